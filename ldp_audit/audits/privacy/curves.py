"""The curve check (``privacy.curve.*``): certificates for approximate and Gaussian DP, from one sample per input.

An (eps, delta) claim is one point of a curve. What a Gaussian mechanism promises is the whole curve: for every
eps' >= 0, the hockey-stick divergence between the reports of two inputs,

    delta(eps') = sup_S P(S) - e^eps' Q(S) = E_P[(1 - e^eps' q/p)_+]        (P, Q: the report laws of x1, x0)

stays below its privacy profile (Balle & Wang 2018, Theorem 8), and, equivalently for the Gaussian, the trade-off
function T(P, Q) stays above G_mu (mu-GDP, Dong, Roth & Su 2022). The events that decide eps at delta = 1e-5 have
probability near 1e-5, so one (eps, delta) point is expensive to certify; the rest of the curve, and mu, are cheap.

**The certificate.** For every ordered pair (x1, x0) of ``mechanism.privacy_inputs``, a score s (the report itself
when it is one number; a linear discriminant of the coordinates, fitted on a pilot, otherwise) and threshold events
S = {s > t} or {s <= t}. A finite set of such events is chosen before the certification draws are seen: from the
declared law (a one-number report with ``law(x)``: the events are planned exactly, before any sampling, and every
draw certifies) or, without a law, on a selection half of the draws (pilot + selection: n // 2 per input), the other
half certifying. For each chosen event k, one-sided Clopper-Pearson bounds p1_k <= P(S_k) (lower, x1's draws) and
q0_k >= Q(S_k) (upper, x0's draws) at level a_k, with sum_k 2 a_k <= alpha (weighted Bonferroni: half of alpha to
the events chosen for eps at the claimed delta, a quarter to those chosen for mu, a quarter to those chosen at
``CHOICE_POINTS`` values of eps'). With probability >= 1 - alpha every bound holds at once, hence, simultaneously:

* for EVERY eps' >= 0 (not only a grid): delta(eps') >= max_k (p1_k - e^eps' q0_k)  (the certified curve);
* for every delta: the mechanism is not (eps', delta)-DP for any eps' < max_k ln((p1_k - delta) / q0_k): the eps
  lower bound at the claimed delta, read from the certified curve;
* not mu-GDP for any mu < mu_lb = max_k [Phi^-1(1 - q0_k) + Phi^-1(p1_k)]. Why: take S_k as the rejection region
  of a test of "x0" against "x1"; its type I error is alpha_k = Q(S_k) <= q0_k and its type II error
  beta_k = 1 - P(S_k) <= 1 - p1_k. Any test's errors lie on or above the trade-off curve, T(Q, P)(alpha_k) <= beta_k
  (Dong, Roth & Su 2022, Definition 2.1), and mu-GDP means T >= G_mu with G_mu(a) = Phi(Phi^-1(1 - a) - mu), which
  is decreasing in a and in mu. So mu-GDP gives G_mu(q0_k) <= G_mu(alpha_k) <= beta_k <= 1 - p1_k, i.e.
  Phi^-1(1 - q0_k) - mu <= Phi^-1(1 - p1_k), i.e. mu >= Phi^-1(1 - q0_k) + Phi^-1(p1_k). For the Gaussian pair
  N(0, 1) vs N(mu, 1) and S = {y > t} the right side is exactly mu at every t; at finite n it is below mu.

**The bar.** The claimed curve is the smallest of what the mechanism declares: ``privacy_curve(eps')`` (the built-in
Gaussians declare their exact profile), the mu-GDP curve of a declared ``gdp_mu`` (Dong, Roth & Su 2022,
Corollary 2.13), and the curve every (eps, delta) claim implies, that of (eps, delta)-randomized response:
delta + (1 - delta) max(0, e^eps - e^eps') / (1 + e^eps) (Kairouz, Oh & Viswanath 2015, Theorem 2.4: every
(eps, delta)-DP pair is a post-processing of that one, and the hockey-stick divergence never grows under
post-processing).

**The rows**, one false-alarm budget: a mechanism that keeps every claim fails any of them with probability at
most alpha, whatever the sample size.

* ``privacy.curve.eps_at_delta``: the eps lower bound at the claimed delta; FAIL above the claimed eps;
* ``privacy.curve.mu``: mu_lb; FAIL above a declared ``gdp_mu``, INFO when none is declared. mu_lb is a lower
  bound on the mu of any GDP claim the mechanism could make, never an (eps, delta) bound, and the rows keep the two
  apart;
* ``privacy.curve.worst``: the certified curve against the bar on ``GRID_POINTS`` values of eps' in [0, 2 eps]:
  the point where it exceeds the bar most (FAIL), or, when nowhere, where it comes closest in ratio.

Each row's ``ceiling`` (details) is what this n and level could certify for a mechanism exactly on its claim: its
law (planned path), else the Gaussian pair of its ``gdp_mu``, else (eps, delta)-randomized response.

**What it does not claim.** A PASS says that no threshold event of the chosen scores separates the pairs' reports
beyond the claimed curve at this n, not that the mechanism meets its claim: a leak through a direction the
discriminant does not weigh, or through inputs outside ``privacy_inputs`` (``pilot_inputs`` are not read), is not
seen; the black-box search (``privacy.blackbox``) and the float check look elsewhere.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ... import streams
from ...mechanisms.gaussian import gdp_curve
from ..kernel.result import CheckResult, Status
from ..kernel.sampling import Announce, Draws, Plan, rng_for, run_plan
from ..kernel.stats import RATIO_RTOL, one_sided_bounds
from .reports import ReportFormat, Rows
from .search import BLOCK_ENTRIES, CHUNK, read_reports

#: Values of eps' (evenly spaced in [0, 1.5 eps]) at which an event is chosen for the curve, per ordered pair.
CHOICE_POINTS = 12
#: Values of eps' (evenly spaced in [0, 2 eps]) at which the certified curve is held to the bar.
GRID_POINTS = 61
#: Shares of alpha of the events chosen for eps at the claimed delta, for mu, and for the eps' grid.
SHARES = {"delta": 0.5, "mu": 0.25, "grid": 0.25}
#: Pilot draws per input (without a law): they fit the score and its bins, and count toward the selection half.
PILOT = 1 << 14
#: Bins of a score without a law: evenly spaced over the pilot's range widened by its width on each side; a score
#: with at most ATOMS distinct pilot values is cut at those values.
BINS = 4096
ATOMS = 256
#: Tail probabilities at which a law's quantiles give the planned thresholds (both tails).
TAIL_LEVELS = np.logspace(-15.0, math.log10(0.5), 500)


def applies(mechanism) -> bool:
    """Whether ``verify`` runs the curve check by default: an (eps, delta) claim with delta > 0, or a declared
    privacy curve or GDP parameter."""
    return mechanism.eps is not None and (mechanism.delta > 0.0 or mechanism.privacy_curve is not None
                                          or mechanism.gdp_mu is not None)


def rr_curve(eps_prime: float, eps: float, delta: float) -> float:
    """The privacy curve of (eps, delta)-randomized response, the largest any (eps, delta)-DP mechanism can have
    (Kairouz, Oh & Viswanath 2015, Theorem 2.4): delta + (1 - delta) max(0, e^eps - e^eps') / (1 + e^eps)."""
    if eps_prime >= eps:
        return float(delta)
    return float(delta + (1.0 - delta) * -math.expm1(eps_prime - eps) / (1.0 + math.exp(-eps)))


def claimed_curve(mechanism, eps_prime: float) -> tuple[float, str]:
    """(the bar at eps', which claim sets it): the smallest of the declared curve, the declared mu's GDP curve and
    the (eps, delta) claim's randomized-response curve."""
    bars = [(rr_curve(eps_prime, mechanism.eps, mechanism.delta), f"({mechanism.eps:g}, {mechanism.delta:g})-DP")]
    if mechanism.privacy_curve is not None:
        bars.append((float(np.asarray(mechanism.privacy_curve(float(eps_prime))).ravel()[0]), "declared curve"))
    if mechanism.gdp_mu is not None:
        bars.append((gdp_curve(eps_prime, mechanism.gdp_mu), f"{mechanism.gdp_mu:.4g}-GDP"))
    return min(bars, key=lambda b: b[0])


# ----- scores and their histograms ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Score:
    """s(y) = y (``weights`` None: a one-number report) or the report's coordinates weighted by ``weights``, cut at
    ``edges``: bin b holds edges[b - 1] < s <= edges[b] (NaN in the last bin)."""

    weights: np.ndarray | None
    edges: np.ndarray

    def __call__(self, rows: Rows) -> np.ndarray:
        return rows.values[:, 0] if self.weights is None else rows.values @ self.weights

    def histogram(self, rows: Rows) -> np.ndarray:
        return np.bincount(np.searchsorted(self.edges, self(rows), side="left"), minlength=self.edges.size + 1)

    def describe(self, j: int, upper: bool) -> str:
        what = "report" if self.weights is None else _weights_text(self.weights)
        return f"{what} {'>' if upper else '<='} {self.edges[j]:.6g}"


def _weights_text(w: np.ndarray) -> str:
    if np.allclose(w, w[0]):
        return f"sum of the coordinates x {w[0]:.3g}"
    shown = ", ".join(f"{v:.3g}" for v in w[:4])
    return f"<w, y> (w = [{shown}{', ...' if w.size > 4 else ''}])"


class _Histograms:
    """Picklable chunk reducer: ``size`` reports of input x -> the histograms of every score, concatenated."""

    def __init__(self, sample, x, scores, block: int, fmt: ReportFormat):
        self.sample, self.x, self.scores, self.block, self.fmt = sample, x, scores, block, fmt

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        total = np.zeros(sum(s.edges.size + 1 for s in self.scores), dtype=np.int64)
        for start in range(0, size, self.block):
            rows = read_reports(self.sample, self.x, min(self.block, size - start), rng, self.fmt)
            total += np.concatenate([s.histogram(rows) for s in self.scores])
        return total


def _split(total: np.ndarray, scores) -> list[np.ndarray]:
    cuts = np.cumsum([s.edges.size + 1 for s in scores])[:-1]
    return np.split(total, cuts)


@dataclass(frozen=True)
class Tails:
    """P(s <= t_j) and P(s > t_j) of one input at every threshold of one score (exact, or counts / draws)."""

    le: np.ndarray
    gt: np.ndarray

    @classmethod
    def of_counts(cls, histogram: np.ndarray, n: int) -> "Tails":
        le = np.cumsum(histogram)[:-1]
        return cls(le / n, (n - le) / n)

    def side(self, upper: bool) -> np.ndarray:
        return self.gt if upper else self.le


# ----- choosing events ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Event:
    """{score > t_j} (``upper``) or {score <= t_j} of score ``p``, for the ordered pair (i1, i0), bounded at level
    ``level`` (each of its two one-sided bounds)."""

    i1: int
    i0: int
    p: int
    upper: bool
    j: int
    level: float


def _predicted(t1: Tails, t0: Tails, upper: bool, n: int, level: float) -> tuple[np.ndarray, np.ndarray]:
    """(p1 lower, q0 upper) that n draws would give if the counts came out at these probabilities."""
    c1, c0 = np.round(t1.side(upper) * n), np.round(t0.side(upper) * n)
    return one_sided_bounds(c1, n, level)[0], one_sided_bounds(c0, n, level)[1]


def _objectives(p1: np.ndarray, q0: np.ndarray, delta: float, choice: np.ndarray):
    """Per threshold: the eps bound at ``delta``, the mu bound, and the delta bound at each eps' of ``choice``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.where(p1 > delta, np.log(np.maximum(p1 - delta, 1e-300) / q0), -np.inf)
        mu = stats.norm.ppf(p1) + stats.norm.isf(q0)
    with np.errstate(over="ignore"):
        grid = p1[None, :] - np.exp(choice)[:, None] * q0[None, :]
    return eps, np.where(p1 > 0, mu, -np.inf), grid


def choose(pairs, tails: dict, n: int, levels: dict, delta: float, choice: np.ndarray) -> tuple[list[Event], dict]:
    """The events of every ordered pair (i1, i0, score p) chosen on ``tails`` ({(input, p): Tails}) for
    certification on n draws per input; also the predicted best of each objective (the ceiling when ``tails`` are
    a reference mechanism's): {"delta": eps at delta, "mu": mu, "grid": delta at each eps' of ``choice``}."""
    events: dict[tuple, Event] = {}
    best = {"delta": -math.inf, "mu": -math.inf, "grid": np.full(choice.size, -math.inf)}

    def keep(i1, i0, p, upper, j, kind):
        key, level = (i1, i0, p, upper, int(j)), levels[kind]
        if key not in events or events[key].level < level:
            events[key] = Event(i1, i0, p, upper, int(j), level)

    for i1, i0, p in pairs:
        found = {"delta": (-math.inf, None), "mu": (-math.inf, None)}
        grid_best = [(-math.inf, None)] * choice.size
        for upper in (True, False):
            objectives = {}
            for kind in ("delta", "mu", "grid"):
                p1, q0 = _predicted(tails[i1, p], tails[i0, p], upper, n, levels[kind])
                objectives[kind] = _objectives(p1, q0, delta, choice)[("delta", "mu", "grid").index(kind)]
            for kind in ("delta", "mu"):
                j = int(np.argmax(objectives[kind]))
                if objectives[kind][j] > found[kind][0]:
                    found[kind] = (float(objectives[kind][j]), (upper, j))
            for g in range(choice.size):
                j = int(np.argmax(objectives["grid"][g]))
                if objectives["grid"][g, j] > grid_best[g][0]:
                    grid_best[g] = (float(objectives["grid"][g, j]), (upper, j))
        for kind in ("delta", "mu"):
            value, where = found[kind]
            if where is not None and math.isfinite(value):
                keep(i1, i0, p, *where, kind)
                best[kind] = max(best[kind], value)
        for g, (value, where) in enumerate(grid_best):
            if where is not None and value > 0.0:
                keep(i1, i0, p, *where, "grid")
                best["grid"][g] = max(best["grid"][g], value)
    return list(events.values()), best


# ----- the certificate ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Certificate:
    """Simultaneous bounds p1[k] <= P_x1(S_k), q0[k] >= P_x0(S_k) over the chosen events (see the module
    docstring), and the counts behind them."""

    events: tuple[Event, ...]
    p1: np.ndarray
    q0: np.ndarray
    counts: np.ndarray  # (events, 2): count under x1, under x0
    n: int  # certification draws per input

    def delta_lower(self, eps_prime) -> np.ndarray:
        """Lower bounds on delta(eps') (the hockey-stick divergence) at each eps', and the event behind each."""
        eps_prime = np.atleast_1d(np.asarray(eps_prime, dtype=float))
        if not self.events:
            return np.zeros(eps_prime.size), np.full(eps_prime.size, -1)
        with np.errstate(over="ignore"):
            values = self.p1[None, :] - np.exp(eps_prime)[:, None] * self.q0[None, :]
        k = np.argmax(values, axis=1)
        return np.maximum(values[np.arange(eps_prime.size), k], 0.0), k

    def eps_lower(self, delta: float) -> tuple[float, int]:
        """(the largest eps' the certificate excludes at ``delta``: not (eps', delta)-DP for any smaller, its event)."""
        if not self.events:
            return -math.inf, -1
        with np.errstate(divide="ignore", invalid="ignore"):
            eps = np.where(self.p1 > delta, np.log(np.maximum(self.p1 - delta, 1e-300) / self.q0), -np.inf)
        k = int(np.argmax(eps))
        return float(eps[k]), k

    def mu_lower(self) -> tuple[float, int]:
        """(mu_lb: not mu-GDP for any mu < mu_lb, its event)."""
        if not self.events:
            return -math.inf, -1
        with np.errstate(divide="ignore"):
            mu = np.where(self.p1 > 0, stats.norm.ppf(self.p1) + stats.norm.isf(self.q0), -np.inf)
        k = int(np.argmax(mu))
        return float(mu[k]), k


def certify(events: list[Event], histograms: dict, n: int) -> Certificate:
    """Count every event on the certification histograms ({(input, p): histogram} of n draws) and bound it."""
    counts = np.zeros((len(events), 2), dtype=np.int64)
    for k, e in enumerate(events):
        for col, i in enumerate((e.i1, e.i0)):
            le = int(np.cumsum(histograms[i, e.p])[e.j])
            counts[k, col] = n - le if e.upper else le
    levels = np.array([e.level for e in events])
    p1 = one_sided_bounds(counts[:, 0], n, levels)[0] if events else np.zeros(0)
    q0 = one_sided_bounds(counts[:, 1], n, levels)[1] if events else np.zeros(0)
    return Certificate(tuple(events), np.atleast_1d(p1), np.atleast_1d(q0), counts, n)


# ----- scores: planned from a law, or fitted on a pilot -------------------------------------------------------
def _law_thresholds(laws) -> np.ndarray:
    points = []
    for law in laws:
        if law.continuous_mass > 0:
            levels = np.concatenate([TAIL_LEVELS, 1.0 - TAIL_LEVELS])
            points.append(law.continuous_quantiles(levels))
        points.append(law.atoms[0])
    edges = np.unique(np.concatenate(points))
    return edges[np.isfinite(edges)]


def _planned(mechanism, inputs) -> bool:
    """Events are planned from the law (before sampling) for a one-number report with a declared law."""
    return bool(mechanism.has_law) and mechanism.sampling is None


def _fit_score(r1: Rows, r0: Rows) -> Score:
    """The pilot's score for a pair: the report itself (one number), else a diagonal linear discriminant
    (difference of means over the pooled variance, per coordinate); bins over its pooled pilot range."""
    if r1.width == 1:
        weights = None
    else:
        diff = r1.values.mean(axis=0) - r0.values.mean(axis=0)
        var = 0.5 * (r1.values.var(axis=0) + r0.values.var(axis=0))
        floor = max(float(var.max()) * 1e-12, 1e-300)
        weights = np.nan_to_num(diff / np.maximum(var, floor))
        if not np.any(weights):
            weights = np.ones(r1.width)
    score = Score(weights, np.zeros(0))
    values = np.concatenate([score(r1), score(r0)])
    values = values[np.isfinite(values)]
    distinct = np.unique(values)
    if distinct.size <= ATOMS:
        edges = distinct
    else:
        lo, hi = float(distinct[0]), float(distinct[-1])
        width = hi - lo
        edges = np.unique(np.linspace(lo - width, hi + width, BINS))
    return Score(weights, edges)


def curve_privacy(mechanism, n: int, seed: int, alpha: float, workers: int = 1) -> list[CheckResult]:
    """:func:`curve_plan`, run on its own."""
    return run_plan(curve_plan(mechanism, n, seed, alpha), workers)


def curve_plan(mechanism, n: int, seed: int, alpha: float) -> Plan:
    """The ``privacy.curve.*`` rows (module docstring) as a sampling plan (``sampling.Plan``): with a law, one
    round (n certification draws per input); without, a pilot round, then the selection and certification draws
    of every input at once."""
    if mechanism.eps is None:
        raise ValueError(f"{mechanism.name} declares no eps: the curve check needs the claimed eps")
    inputs = list(mechanism.privacy_inputs)
    ordered = [(a, b) for a in range(len(inputs)) for b in range(len(inputs)) if a != b]
    unordered = [(a, b) for a, b in ordered if a < b]
    fmt = ReportFormat(ReportFormat.of(mechanism).universe)
    probe = read_reports(mechanism.sample, inputs[0], 64, rng_for(seed, *streams.CURVE_PROBE.key()), fmt)
    block = int(max(256, min(CHUNK, BLOCK_ENTRIES // max(probe.width, 1))))
    eps, delta = mechanism.eps, mechanism.delta
    choice = np.linspace(0.0, 1.5 * eps, CHOICE_POINTS)
    counts_per_kind = {"delta": len(ordered), "mu": len(ordered), "grid": len(ordered) * CHOICE_POINTS}
    levels = {kind: alpha * share / (2.0 * counts_per_kind[kind]) for kind, share in SHARES.items()}
    yield Announce(n * len(inputs))
    if _planned(mechanism, inputs) and probe.width == 1:
        laws = [mechanism.law(x) for x in inputs]
        score = Score(None, _law_thresholds(laws))
        scores = [score]
        pairs = [(i1, i0, 0) for i1, i0 in ordered]
        tails = {(i, 0): Tails(law.cdf(score.edges), law.sf(score.edges)) for i, law in enumerate(laws)}
        n_cert, selection = n, "law-planned"
        events, ceiling = choose(pairs, tails, n_cert, levels, delta, choice)
        drawn = yield [Draws(_Histograms(mechanism.sample, x, scores, block, fmt), n_cert, seed,
                             streams.CURVE_CERTIFY.key(i)) for i, x in enumerate(inputs)]
        histograms = {(i, 0): total for i, total in enumerate(drawn)}
        reference = None
    else:
        pilot = max(1, min(PILOT, n // 8))
        n_select, n_cert = n // 2 - pilot, n - n // 2
        pilots = yield [Draws(_Rows(mechanism.sample, x, block, fmt), pilot, seed, streams.CURVE_PILOT.key(i))
                        for i, x in enumerate(inputs)]
        pilots = [Rows.concat(p) for p in pilots]
        scores = [_fit_score(pilots[b], pilots[a]) for a, b in unordered]
        score_of = {pair: p for p, pair in enumerate(unordered)}
        pairs = [(i1, i0, score_of[min(i1, i0), max(i1, i0)]) for i1, i0 in ordered]
        uses = {i: [p for p, pair in enumerate(unordered) if i in pair] for i in range(len(inputs))}
        drawn = yield ([Draws(_Histograms(mechanism.sample, x, [scores[p] for p in uses[i]], block, fmt), n_select,
                              seed, streams.CURVE_SELECT.key(i)) for i, x in enumerate(inputs)] +
                       [Draws(_Histograms(mechanism.sample, x, [scores[p] for p in uses[i]], block, fmt), n_cert,
                              seed, streams.CURVE_CERTIFY.key(i)) for i, x in enumerate(inputs)])
        select, final = drawn[:len(inputs)], drawn[len(inputs):]
        tails, histograms = {}, {}
        for i in range(len(inputs)):
            for p, h_sel, h_cert in zip(uses[i], _split(select[i], [scores[p] for p in uses[i]]),
                                        _split(final[i], [scores[p] for p in uses[i]])):
                h_pilot = scores[p].histogram(pilots[i])
                tails[i, p] = Tails.of_counts(h_sel + h_pilot, n_select + pilot)
                histograms[i, p] = h_cert
        events, _ = choose(pairs, tails, n_cert, levels, delta, choice)
        selection, ceiling = "held-out", None
        reference = _reference(mechanism, n_cert, levels, choice)
    if reference is not None:
        ceiling = reference
    cert = certify(events, histograms, n_cert)
    context = _Context(mechanism, inputs, scores, cert, n, seed, alpha, selection, levels, choice, ceiling)
    return [context.eps_row(), context.mu_row(), context.worst_row()]


class _Rows:
    """Picklable chunk reducer: the reports themselves (pilot draws)."""

    def __init__(self, sample, x, block: int, fmt: ReportFormat):
        self.sample, self.x, self.block, self.fmt = sample, x, block, fmt

    def __call__(self, size: int, rng: np.random.Generator) -> list:
        return [read_reports(self.sample, self.x, min(self.block, size - start), rng, self.fmt)
                for start in range(0, size, self.block)]


def _reference(mechanism, n: int, levels: dict, choice: np.ndarray) -> dict:
    """The predicted bests (``choose``) of a mechanism exactly on its claim: the Gaussian pair of the declared mu,
    else (eps, delta)-randomized response."""
    if mechanism.gdp_mu is not None:
        mu = mechanism.gdp_mu
        t = np.linspace(-12.0, 12.0 + mu, 6001)
        tails = {(1, 0): Tails(stats.norm.cdf(t - mu), stats.norm.sf(t - mu)), (0, 0): Tails(stats.norm.cdf(t),
                                                                                            stats.norm.sf(t))}
    else:
        e, d = math.exp(mechanism.eps), mechanism.delta
        p = np.array([d, (1 - d) * e / (1 + e), (1 - d) / (1 + e), 0.0])
        q = p[::-1]
        le1, le0 = np.cumsum(p)[:3], np.cumsum(q)[:3]
        tails = {(1, 0): Tails(le1, 1.0 - le1), (0, 0): Tails(le0, 1.0 - le0)}
    return choose([(1, 0, 0)], tails, n, levels, mechanism.delta, choice)[1]


@dataclass(frozen=True)
class _Context:
    mechanism: object
    inputs: list
    scores: list
    cert: Certificate
    n: int
    seed: int
    alpha: float
    selection: str
    levels: dict
    choice: np.ndarray
    ceiling: dict

    def _label(self, x) -> str:
        x = np.asarray(x)
        if x.ndim and x.size > 1 and np.all(x == x.ravel()[0]):
            return f"({x.ravel()[0]:g}, ..., {x.ravel()[0]:g})"
        return f"{float(x):g}" if x.ndim == 0 else np.array2string(x, precision=4)

    def _event(self, k: int) -> str:
        e = self.cert.events[k]
        return (f"inputs {self._label(self.inputs[e.i1])} vs {self._label(self.inputs[e.i0])}, event "
                f"{self.scores[e.p].describe(e.j, e.upper)}")

    def _details(self, k: int) -> dict:
        out = {"selection": self.selection, "tests": len(self.cert.events), "final_draws": self.cert.n,
               "levels": dict(self.levels)}
        if k >= 0:
            e = self.cert.events[k]
            out.update({"event": self._event(k), "counts": [int(c) for c in self.cert.counts[k]],
                        "p1_lower": float(self.cert.p1[k]), "q0_upper": float(self.cert.q0[k]), "level": e.level})
        return out

    @property
    def _claim_text(self) -> str:
        m = self.mechanism
        return f"{m.reference}: ({m.eps:g}, {m.delta:g})-LDP"

    def eps_row(self) -> CheckResult:
        m = self.mechanism
        raw, k = self.cert.eps_lower(m.delta)
        lower = max(raw, 0.0)
        violated = raw > m.eps * (1.0 + RATIO_RTOL)
        top = self.ceiling["delta"] if self.ceiling else None
        top_text = f"; ceiling {top:.4f} at this n" if top is not None and math.isfinite(top) else ""
        if k < 0 or not math.isfinite(raw):
            text = f"no chosen event certifies a probability above delta={m.delta:g}: eps >= 0{top_text}"
        else:
            text = (f"{self._event(k)}: not (eps', {m.delta:g})-DP for any eps' < {lower:.4f}, read from the "
                    f"certified curve with confidence 1 - {self.alpha:.3g}"
                    + (f", ABOVE the claimed {m.eps:g}" if violated else f" (tightness {lower / m.eps:.3f}{top_text})"))
        details = {**self._details(k), "delta": m.delta, "ceiling": _finite(top), "tightness": lower / m.eps,
                   "raw_lower": _finite(raw)}
        return CheckResult("privacy.curve.eps_at_delta", f"{self._claim_text}, eps at the claimed delta",
                           Status.FAIL if violated else Status.PASS, lower, "eps_lower", interval=(lower, math.inf),
                           threshold=m.eps, n=self.n, seed=self.seed, alpha=self.alpha, explanation=text,
                           details=details)

    def mu_row(self) -> CheckResult:
        m = self.mechanism
        raw, k = self.cert.mu_lower()
        lower = max(raw, 0.0)
        claimed = m.gdp_mu
        top = self.ceiling["mu"] if self.ceiling and claimed is not None else None
        point = (f" (trade-off point: type I error <= {self.cert.q0[k]:.4g}, type II <= {1 - self.cert.p1[k]:.4g}; "
                 f"{self._event(k)})") if k >= 0 and math.isfinite(raw) else ""
        if claimed is None:
            status = Status.INFO
            text = (f"not mu-GDP for any mu < {lower:.4f}{point}; no GDP claim is declared, so nothing to hold it "
                    "to (a GDP parameter is not an (eps, delta) bound)")
            claim = f"{m.reference}: no GDP claim (mu lower bound, informational)"
        else:
            violated = raw > claimed * (1.0 + RATIO_RTOL)
            status = Status.FAIL if violated else Status.PASS
            text = (f"not mu-GDP for any mu < {lower:.4f} with confidence 1 - {self.alpha:.3g}{point}"
                    + (f", ABOVE the claimed mu = {claimed:.4g}" if violated else
                       f" (tightness {lower / claimed:.3f}" + (f"; ceiling {top:.4f} at this n)" if top is not None
                                                               else ")")))
            claim = f"{m.reference}: {claimed:.4g}-GDP"
        details = {**self._details(k), "claimed_mu": claimed, "ceiling": _finite(top),
                   "tightness": lower / claimed if claimed else None, "raw_lower": _finite(raw)}
        return CheckResult("privacy.curve.mu", claim, status, lower, "mu_lower", interval=(lower, math.inf),
                           threshold=claimed, n=self.n, seed=self.seed, alpha=self.alpha, explanation=text,
                           details=details)

    def worst_row(self) -> CheckResult:
        m = self.mechanism
        grid = np.unique(np.concatenate([np.linspace(0.0, 2.0 * m.eps, GRID_POINTS), [m.eps]]))
        certified, which = self.cert.delta_lower(grid)
        bars = [claimed_curve(m, float(e)) for e in grid]
        bar = np.array([b[0] for b in bars])
        excess = certified - bar
        above = certified > bar * (1.0 + RATIO_RTOL) + 1e-300
        if np.any(above):
            g = int(np.argmax(np.where(above, excess, -np.inf)))
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(bar > 0, certified / bar, 0.0)
            g = int(np.argmax(ratio))
        violated = bool(np.any(above))
        k = int(which[g]) if certified[g] > 0 else -1
        at, value, claim_value, source = float(grid[g]), float(certified[g]), float(bar[g]), bars[g][1]
        top = None
        if self.ceiling:
            top = float(np.interp(at, self.choice, np.maximum(self.ceiling["grid"], 0.0)))
        where = f" ({self._event(k)})" if k >= 0 else ""
        if violated:
            text = (f"at eps' = {at:.4g} the certified delta >= {value:.4g}{where}, ABOVE the claimed curve's "
                    f"{claim_value:.4g} (set by the {source}) with confidence 1 - {self.alpha:.3g}")
        else:
            text = (f"the certified curve stays below the claimed one on {grid.size} values of eps' in [0, "
                    f"{2 * m.eps:g}]; closest at eps' = {at:.4g}: delta >= {value:.4g} of the claimed "
                    f"{claim_value:.4g} ({source})" + (f"; ceiling {top:.4g} at this n" if top is not None else ""))
        table = [[float(e), float(c), float(b)] for e, c, b in zip(grid, certified, bar)]
        details = {**self._details(k), "eps_prime": at, "claimed_delta": claim_value, "bar": source,
                   "ceiling": top, "tightness": value / claim_value if claim_value > 0 else None,
                   "curve": table[::max(1, len(table) // 20)]}
        return CheckResult("privacy.curve.worst", f"{self._claim_text}, whole privacy curve",
                           Status.FAIL if violated else Status.PASS, value, "delta_lower",
                           interval=(value, math.inf), threshold=claim_value, n=self.n, seed=self.seed,
                           alpha=self.alpha, explanation=text, details=details)


def _finite(value):
    return float(value) if value is not None and math.isfinite(value) else None
