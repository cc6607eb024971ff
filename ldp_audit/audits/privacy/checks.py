"""Privacy audits of the LDP ratio bound: white-box from the exact law, black-box from samples.

White-box (exact): the largest log density ratio max_{x, x', y} log f(y|x)/f(y|x') over a grid of inputs
(domain ends included) and every output where a density changes, and the total mass of each law. For a
sampled mechanism the whole report's ratio is k times the coordinate's (the subset S is independent of x and
the k coordinate reports are independent). For (eps, delta) mechanisms: the hockey-stick divergence of the
extreme input pair at the claimed eps, integrated numerically from the laws.

Black-box (samples): pairs of inputs and events whose probabilities are compared with Clopper-Pearson
bounds, giving a lower bound on the eps the mechanism really spends:

* always, the data-driven search of :mod:`ldp_audit.audits.privacy.search` on the mechanism's own samples, for reports
  of any shape (events chosen on a pilot sample, bounded on fresh draws);
* with a law, the level sets of the law's likelihood ratio (e.g. the Square-Wave window [1 - b, 1 + b] of
  ldp-ge C1, the all-windows event of C2, the all-plus event of lpgnn C1), chosen before sampling to maximise
  the expected lower bound, join the search as candidates ("law" family). A declared law adds events; it never
  replaces the search, so a sampler that disagrees with its own law is still measured as it is.

The check fails when the lower bound exceeds the claimed eps (a privacy violation). A second check fails when
the upper bound of the tight event's ratio falls below e^eps: the mechanism spends less budget than it claims.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
from scipy import integrate

from ...mechanisms.laws import Law, Smooth
from ..kernel.result import CheckResult, Status
from ..kernel.sampling import Plan, run_plan
from .reports import ReportFormat
from .report_law import declares_report_law, planned_candidates
from .search import PLANNED_SHARE, Candidate, KeyEvent, ScoreOf, ceiling, pilot_pairs, search_plan
from ..kernel.stats import expected_ratio_lower_bound, ratio_upper_bound

#: Relative slack for exact comparisons of a computed ratio with e^eps (floating point only).
_EXACT_TOL = 1e-9
#: Input grid size of the white-box audit of continuous domains (ldp-ge C1(a) uses 201).
_INPUT_GRID = 201
#: Most pieces the hockey-stick integral is cut into (between breakpoints; quad adapts inside each).
_HOCKEY_PIECES = 64


def is_sampled(mechanism) -> bool:
    """Whether the mechanism declares the sampled-coordinate structure (``mechanism.sampling``)."""
    return mechanism.sampling is not None


def coordinate_of(mechanism):
    """The one-dimensional mechanism whose law the privacy audit analyses, and how many of it a report holds."""
    if is_sampled(mechanism):
        return mechanism.sampling.coordinate, mechanism.sampling.k
    return mechanism, 1


def _input_grid(mechanism) -> np.ndarray:
    lo, hi = mechanism.domain
    if mechanism.discrete_input:
        return np.arange(lo, hi + 1.0)
    return np.unique(np.concatenate([np.linspace(lo, hi, _INPUT_GRID), mechanism.audit_inputs]))


# ----- white-box ---------------------------------------------------------------------------------------------
def _evaluation_points(laws: list[Law]) -> np.ndarray:
    """Outputs at which every density is evaluated: at, between and beyond all breakpoints (piecewise-constant and
    Laplace log-densities are monotone or constant between them, so the maximum ratio is attained there; densities
    are right-continuous, so a breakpoint stands for the piece it opens, even one a single float step wide, whose
    midpoint rounds onto an edge)."""
    points = np.unique(np.concatenate([law.breakpoints for law in laws]))
    points = points[np.isfinite(points)]
    if points.size == 0:
        return points
    span = max(points[-1] - points[0], 1.0)
    mids = 0.5 * (points[1:] + points[:-1])
    outside = np.array([points[0] - span, points[-1] + span])
    return np.unique(np.concatenate([points, mids, outside]))


def atom_widths(laws: list[Law], atoms: np.ndarray) -> np.ndarray:
    """The width each atom stands for (``Law.atom_widths``: 0 for a true point mass), the largest any law gives."""
    widths = np.zeros(np.shape(atoms))
    for law in laws:
        values, own = law.atoms[0], law.atom_widths
        if values.size:
            pos = np.clip(np.searchsorted(values, atoms), 0, values.size - 1)
            widths = np.maximum(widths, np.where(values[pos] == atoms, own[pos], 0.0))
    return widths


def max_log_ratio(laws: list[Law]) -> float:
    """max over outputs y of log(max_x f(y|x) / min_x f(y|x)) across the given laws (one per input)."""
    worst = 0.0
    atoms = np.unique(np.concatenate([law.atoms[0] for law in laws]))
    if atoms.size:
        widths = atom_widths(laws, atoms)
        worst = max(worst, _log_ratio(np.array([_atom_mass(law, atoms, widths) for law in laws])))
    if any(law.continuous_mass > 0 for law in laws):
        ys = _evaluation_points(laws)
        if all(isinstance(law, Smooth) for law in laws):
            logs = np.array([law.logdensity(ys) for law in laws])
            worst = max(worst, float(np.max(logs.max(0) - logs.min(0))))
        else:
            worst = max(worst, _log_ratio(np.array([law.density(ys) for law in laws])))
    return worst


def _log_ratio(values: np.ndarray) -> float:
    high, low = values.max(0), values.min(0)
    if np.any((low <= 0) & (high > 0)):
        return math.inf
    positive = high > 0
    return float(np.max(np.log(high[positive] / low[positive]))) if np.any(positive) else 0.0


def hockey_stick(law1: Law, law0: Law, eps: float) -> float:
    """delta = integral of max(0, f1 - e^eps f0): the smallest delta for which this pair is (eps, delta)-close."""
    weight = math.exp(eps)
    delta = 0.0
    atoms = np.unique(np.concatenate([law1.atoms[0], law0.atoms[0]]))
    if atoms.size:
        delta += float(np.sum(np.maximum(0.0, _atom_mass(law1, atoms) - weight * _atom_mass(law0, atoms))))
    if law1.continuous_mass > 0:
        lo = min(law1.support[0], law0.support[0])
        hi = max(law1.support[1], law0.support[1])
        if not math.isfinite(lo):
            lo = min(law1.mean(), law0.mean()) - 40.0 * math.sqrt(max(law1.var(), law0.var()))
            hi = max(law1.mean(), law0.mean()) + 40.0 * math.sqrt(max(law1.var(), law0.var()))
        points = sorted(set(np.concatenate([law1.breakpoints, law0.breakpoints]).tolist()) | {lo, hi})
        points = [p for p in points if lo <= p <= hi]
        if len(points) > _HOCKEY_PIECES + 1:
            # a smooth law's breakpoints are a fine quantile grid; quad is adaptive inside each piece, so a
            # coarser grid integrates as exactly at a fraction of the cost
            keep = np.unique(np.linspace(0, len(points) - 1, _HOCKEY_PIECES + 1).round().astype(int))
            points = [points[i] for i in keep]
        excess = lambda y: max(0.0, float(law1.density(y)) - weight * float(law0.density(y)))
        delta += sum(integrate.quad(excess, a, b, limit=400, epsabs=1e-15, epsrel=1e-10)[0]
                     for a, b in zip(points[:-1], points[1:]))
    return delta


#: Ulps of the law's float type a log density ratio may be off by: two densities each carry a few rounding
#: errors, so their log ratio is known only to a few ulp of 1.0 absolute. For float64 that is about 4e-15, which
#: matters only at tiny eps (at eps = 1e-8 a relative slack alone flagged correct mechanisms, issue 22); a float32
#: law exactly at its claim is off by about 1e-7 (issue 21). Far below any real excess either way.
_RATIO_ULPS = 16.0
_FLOAT64 = float(np.finfo(np.float64).eps)


def ratio_tolerance(resolution: float, copies: int = 1) -> float:
    """Absolute slack on a law's log density ratio for a law computed in a float type of machine epsilon
    ``resolution``; a sampled report multiplies the coordinate's ratio, and its rounding, by ``copies``."""
    return _RATIO_ULPS * resolution * copies


def whitebox_privacy(mechanism) -> list[CheckResult]:
    """Exact checks from the law: total mass of every input's law, and the ratio bound (or delta profile)."""
    coordinate, copies = coordinate_of(mechanism)
    grid = _input_grid(coordinate)
    laws = [coordinate.law(z) for z in grid]
    masses = np.array([coordinate.law(z).total_mass() for z in coordinate.audit_inputs])
    mass_error = float(np.max(np.abs(masses - 1.0)))
    mass_ok = mass_error <= 1e-9
    results = [CheckResult(
        "law.mass", f"{mechanism.reference}: the output law is a probability distribution",
        Status.PASS if mass_ok else Status.FAIL, mass_error, "max |mass - 1|", threshold=1e-9,
        explanation=(f"every law integrates to 1 over {len(masses)} inputs" if mass_ok else
                     f"a law integrates to {masses[np.argmax(np.abs(masses - 1.0))]:.10g} instead of 1"),
        details={"inputs": len(masses)})]
    eps = mechanism.eps
    if mechanism.delta > 0:
        lo, hi = coordinate.domain
        if copies > 1:
            # one isotropic Gaussian per report: the extreme pair differs by (hi - lo) sqrt(k) in L2
            shift = (hi - lo) * math.sqrt(copies)
            base = coordinate.law(lo)
            delta = hockey_stick(base.affine(1.0, shift), base, eps)
        else:
            shift = hi - lo
            delta = max(hockey_stick(coordinate.law(hi), coordinate.law(lo), eps),
                        hockey_stick(coordinate.law(lo), coordinate.law(hi), eps))
        ok = delta <= mechanism.delta * (1.0 + 1e-6)
        results.append(CheckResult(
            "privacy.whitebox", f"{mechanism.reference}: ({eps:g}, {mechanism.delta:g})-LDP",
            Status.PASS if ok else Status.FAIL, delta, "delta(eps)", threshold=mechanism.delta,
            explanation=(f"hockey-stick divergence of the extreme inputs at eps={eps:g} is {delta:.3e}"
                         f" {'<=' if ok else '>'} delta={mechanism.delta:g}"),
            details={"l2_shift_in_coordinate_units": shift}))
        return results
    per_coordinate = max_log_ratio(laws)
    total = copies * per_coordinate
    slack = ratio_tolerance(mechanism.law_resolution, copies)
    ok = total <= eps * (1.0 + _EXACT_TOL) + slack
    results.append(CheckResult(
        "privacy.whitebox", f"{mechanism.reference}: {eps:g}-LDP",
        Status.PASS if ok else Status.FAIL, total, "max log ratio", threshold=eps,
        explanation=(f"largest log density ratio over {len(grid)} inputs is {total:.6g}"
                     + (f" (= {copies} x {per_coordinate:.6g} per sampled coordinate)" if copies > 1 else "")
                     + ("" if ok else f", above the claimed eps={eps:g}")
                     + (f" (compared with tolerance {slack:.2g}: the law is computed in a float type of resolution "
                        f"{mechanism.law_resolution:.2g})" if mechanism.law_resolution > _FLOAT64 else "")),
        details={"tightness": total / eps, "per_coordinate": per_coordinate, "copies": copies,
                 "tolerance": slack}))
    return results


# ----- black-box with law-derived events ---------------------------------------------------------------------
@dataclass(frozen=True)
class Event:
    """A union of half-open output intervals (lo, hi] and single output values (atoms)."""

    intervals: tuple[tuple[float, float], ...]
    atoms: tuple[float, ...]

    @classmethod
    def of(cls, intervals, atoms) -> "Event":
        """An event with touching intervals merged, so membership tests stay cheap."""
        merged: list[list[float]] = []
        for lo, hi in sorted(intervals):
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        return cls(tuple((lo, hi) for lo, hi in merged), tuple(sorted(set(atoms))))

    def contains(self, y: np.ndarray) -> np.ndarray:
        inside = np.zeros(y.shape, dtype=bool)
        for lo, hi in self.intervals:
            inside |= (y > lo) & (y <= hi)
        if self.atoms:
            inside |= np.isin(y, self.atoms)
        return inside

    def describe(self) -> str:
        parts = [f"({lo:.4g}, {hi:.4g}]" for lo, hi in self.intervals] + [f"{{{a:.4g}}}" for a in self.atoms]
        return " U ".join(parts) if parts else "{}"


def _cells(law1: Law, law0: Law, smooth_cells: int = 400):
    """Cells (atoms, then intervals) and both laws' exact probabilities of each, computed from the cdfs."""
    atoms = np.unique(np.concatenate([law1.atoms[0], law0.atoms[0]]))
    widths = atom_widths([law1, law0], atoms)
    cells = [((), (float(a),)) for a in atoms]
    p1 = [_atom_mass(law1, atoms, widths)]
    p0 = [_atom_mass(law0, atoms, widths)]
    if law1.continuous_mass > 0 or law0.continuous_mass > 0:
        if not all(math.isfinite(v) for v in law1.support + law0.support):
            qs = np.linspace(0.0, 1.0, smooth_cells + 1)[1:-1]
            edges = np.concatenate([[-math.inf, math.inf], law1.continuous_quantiles(qs),
                                    law0.continuous_quantiles(qs)])
        else:
            edges = np.concatenate([law1.breakpoints, law0.breakpoints])
        edges = np.unique(edges)
        cells += [(((float(lo), float(hi)),), ()) for lo, hi in zip(edges[:-1], edges[1:])]
        for law, out in ((law1, p1), (law0, p0)):
            # continuous part of each interval: its probability (from the upper tail in the upper half, so that a
            # far tail does not round to 0) minus the atoms inside it
            out.append(np.maximum(law.prob(edges[:-1], edges[1:]) - atoms_between(law, edges), 0.0))
    return cells, np.concatenate(p1), np.concatenate(p0)


def _atom_mass(law: Law, atoms: np.ndarray, widths: np.ndarray | None = None) -> np.ndarray:
    """The law's point mass at each of ``atoms``: O((m + a) log m), never a loop. Where it has none, 0, or, for an
    atom standing for a sub-float window of width w (``atom_widths``), the law's density there times w (its
    left limit at the right end of a support, where the window of the top input lies)."""
    values, probs = law.atoms
    spread = np.zeros(np.shape(atoms))
    if widths is not None and np.any(widths > 0):
        density = np.asarray(law.density(atoms), dtype=float)
        density = np.where(density > 0, density, np.asarray(law.density(np.nextafter(atoms, -np.inf)), dtype=float))
        spread = density * widths
    if values.size == 0:
        return spread
    order = np.argsort(values, kind="stable")
    values, probs = values[order], probs[order]
    pos = np.clip(np.searchsorted(values, atoms), 0, values.size - 1)
    return np.where(values[pos] == atoms, probs[pos], spread)


def atoms_between(law: Law, edges: np.ndarray) -> np.ndarray:
    """The law's atom mass inside each interval (edges[i], edges[i + 1]], from one cumulative sum."""
    values, probs = law.atoms
    if values.size == 0:
        return np.zeros(edges.size - 1)
    order = np.argsort(values, kind="stable")
    cum = np.concatenate([[0.0], np.cumsum(probs[order])])
    return np.diff(cum[np.searchsorted(values[order], edges, side="right")])


@dataclass(frozen=True)
class PlannedTest:
    """An event chosen from the laws of an ordered input pair before any sampling, with its probabilities."""

    event: Event
    p1: float
    p0: float
    copies: int
    tight: bool  # the event holds only outputs of maximal likelihood ratio
    impossible: bool = False  # the law of x0 gives the event probability 0 (not a tail that underflowed)

    @property
    def claimed_log_ratio(self) -> float:
        return self.copies * math.log(self.p1 / self.p0) if self.p0 > 0 else math.inf


def plan_event(law1: Law, law0: Law, copies: int, n: int, alpha: float, delta: float = 0.0) -> PlannedTest | None:
    """The union of top-likelihood-ratio cells that maximises the expected lower bound for ``copies``-fold products."""
    cells, p1, p0 = _cells(law1, law0)
    keep = p1 > 0
    if not np.any(keep):
        return None
    cells = [c for c, k in zip(cells, keep) if k]
    p1, p0 = p1[keep], p0[keep]
    with np.errstate(divide="ignore"):
        ratio = np.where(p0 > 0, p1 / np.where(p0 > 0, p0, 1.0), np.inf)
    order = np.argsort(-ratio, kind="stable")
    cum1, cum0 = np.cumsum(p1[order]), np.cumsum(p0[order])
    useful = max(1, int(np.count_nonzero(ratio[order] > 1.0)))  # adding a cell of ratio <= 1 never helps
    bounds = expected_ratio_lower_bound(cum1[:useful] ** copies, cum0[:useful] ** copies, n, alpha, delta)
    best_j = int(np.argmax(bounds)) + 1
    chosen = [cells[i] for i in order[:best_j]]
    top = ratio[order[0]]
    tight = bool(np.all(ratio[order[:best_j]] >= top * (1.0 - _EXACT_TOL)))
    event = Event.of([iv for c in chosen for iv in c[0]], [a for c in chosen for a in c[1]])
    # a law with a density on the whole line (Laplace, Gaussian) gives every interval positive probability; a 0 there
    # is a tail beyond float64 (a Gaussian at eps = 700), not an impossible event
    full_line = all(math.isinf(v) for v in law0.support)
    impossible = float(cum0[best_j - 1]) == 0.0 and not (event.intervals and full_line)
    return PlannedTest(event, float(cum1[best_j - 1]), float(cum0[best_j - 1]), copies, tight, impossible)


@dataclass(frozen=True)
class LawEvent:
    """A law-planned event on whole reports: the scalar report in ``event``, or, for a sampled mechanism, every
    sampled (non-zero) coordinate divided by the client scale in ``event``."""

    event: Event
    scale: float = 1.0

    def contains(self, rows) -> np.ndarray:
        if rows.width == 1:
            return self.event.contains(rows.values[:, 0])
        sampled = rows.values != 0.0
        return np.all(self.event.contains(rows.values / self.scale) | ~sampled, axis=1)

    def describe(self) -> str:
        return self.event.describe()


def _law_plans(mechanism, inputs, pair_ids, n: int, alpha: float) -> list[tuple[int, int, PlannedTest]]:
    """The law's likelihood-ratio event for each ordered pair of the search's inputs (chosen before sampling)."""
    sampling = mechanism.sampling
    coordinate = sampling.coordinate if sampling else mechanism
    copies = sampling.k if sampling else 1
    to_coordinate = (lambda x: float(sampling.to_coordinate(np.asarray(x).ravel()[0]))) if sampling else (lambda x: x)
    plans = []
    for i1, i0 in pair_ids:
        plan = plan_event(coordinate.law(to_coordinate(inputs[i1])), coordinate.law(to_coordinate(inputs[i0])),
                          copies, n, alpha, mechanism.delta)
        if plan is not None:
            plans.append((i1, i0, plan))
    return plans


def _law_candidates(mechanism, plans) -> list[Candidate]:
    scale = mechanism.sampling.client_scale if mechanism.sampling else 1.0
    return [Candidate(i1, i0, "law-tight" if plan.tight else "law", LawEvent(plan.event, scale),
                      plan.claimed_log_ratio, plan.impossible) for i1, i0, plan in plans]


def law_ceiling(mechanism, n: int, alpha: float, pairs=None) -> float:
    """The best lower bound n draws per input could certify at level alpha (per event) if the mechanism follows
    its law exactly: the law's best event over the search's input pairs, with counts at their expectations."""
    inputs = list(mechanism.privacy_inputs)
    pair_ids = pairs or [(a, b) for a in range(len(inputs)) for b in range(len(inputs)) if a != b]
    return _best_expected(_law_plans(mechanism, inputs, pair_ids, n, alpha), n, alpha, mechanism.delta)


def _best_expected(plans, n: int, alpha: float, delta: float) -> float:
    bounds = [expected_ratio_lower_bound(plan.p1 ** plan.copies, plan.p0 ** plan.copies, n, alpha, delta)
              for _, _, plan in plans]
    return float(max(bounds, default=-math.inf))


def _likelihood_scores(mechanism, inputs, pair_ids) -> dict:
    """Score functions log f(y | x1) - log f(y | x0) of a declared whole-report law, one per ordered pair."""
    loglik = mechanism.report_loglik
    return {(i1, i0): [ScoreOf(_RatioOf(loglik, inputs[i1], inputs[i0]), "declared law's log likelihood ratio")]
            for i1, i0 in pair_ids}


class _RatioOf:
    def __init__(self, loglik, x1, x0):
        self.loglik, self.x1, self.x0 = loglik, x1, x0

    def __call__(self, values):
        with np.errstate(invalid="ignore"):
            ratio = np.asarray(self.loglik(values, self.x1), float) - np.asarray(self.loglik(values, self.x0), float)
        return np.nan_to_num(np.round(ratio, 9), nan=0.0, posinf=1e300, neginf=-1e300)


def _show(x) -> str:
    x = np.asarray(x)
    if x.ndim and x.size > 1 and np.all(x == x.ravel()[0]):
        return f"({x.ravel()[0]:g}, ..., {x.ravel()[0]:g})"
    return np.array2string(x, precision=4) if x.ndim else f"{float(x):g}"


def _input_label(mechanism, x) -> str:
    """An input as the user writes it: the category (e.g. 'red') for a finite domain of declared categories."""
    categories = mechanism.categories
    if categories is not None and np.ndim(x) == 0:
        j = int(round(float(x) - mechanism.domain[0]))
        if 0 <= j < len(categories):
            value = categories[j]
            return repr(value) if isinstance(value, str) else f"{float(value):g}"
    return _show(x)


def search_pairs(mechanism, seed: int) -> list:
    """The ordered input pairs the black-box search contrasts: every ordered pair of ``mechanism.privacy_inputs``,
    plus the pairs of ``mechanism.pilot_inputs`` that a short seeded pilot run finds most different."""
    fixed = list(mechanism.privacy_inputs)
    pairs = [(a, b) for i, a in enumerate(fixed) for j, b in enumerate(fixed) if i != j]
    if len(mechanism.pilot_inputs):
        pairs += pilot_pairs(mechanism.sample, list(mechanism.pilot_inputs), seed, set(pairs),
                             fmt=ReportFormat(ReportFormat.of(mechanism).universe))
    return pairs


def distinct_inputs(pairs) -> list:
    """The inputs of ``pairs``, each once, in order of appearance (the search draws n reports of each)."""
    inputs = []
    for pair in pairs:
        inputs += [x for x in pair if not any(np.array_equal(x, y) for y in inputs)]
    return inputs


def blackbox_privacy(mechanism, n: int, seed: int, alpha: float, workers: int = 1,
                     progress: Callable[[int], None] | None = None, pairs=None) -> list[CheckResult]:
    """:func:`blackbox_plan`, run on its own."""
    return run_plan(blackbox_plan(mechanism, n, seed, alpha, pairs), workers, progress)


def blackbox_plan(mechanism, n: int, seed: int, alpha: float, pairs=None) -> Plan:
    """The black-box search (``search.py``) on the mechanism's own samples, with the declared law's events
    added as candidates; plus the budget-use (tightness) check when the law has events of maximal ratio. A
    sampling plan (``sampling.Plan``) returning the rows.

    ``pairs`` restricts the ordered input pairs (values in ``sample``'s input space; default: every ordered pair
    of ``mechanism.privacy_inputs``, plus the pairs of ``mechanism.pilot_inputs`` that a short pilot run finds
    most different).
    """
    delta = mechanism.delta
    pairs = search_pairs(mechanism, seed) if pairs is None else pairs
    inputs = distinct_inputs(pairs)
    index = lambda x: next(i for i, y in enumerate(inputs) if np.array_equal(x, y))
    pair_ids = [(index(a), index(b)) for a, b in pairs]
    planned_alpha = alpha * PLANNED_SHARE / len(pair_ids)  # about the level search_plan gives each
    plans = _law_plans(mechanism, inputs, pair_ids, n, planned_alpha) if mechanism.has_law else []
    planned = _law_candidates(mechanism, plans)
    tight = [t for t, c in enumerate(planned) if c.family == "law-tight" and delta == 0.0]
    search_alpha = alpha / 2.0 if tight else alpha
    scores = _likelihood_scores(mechanism, inputs, pair_ids) if mechanism.report_loglik is not None else None
    if declares_report_law(mechanism):  # the law's best cut of its likelihood ratio replaces the score's cells
        planned += planned_candidates(mechanism, inputs, pair_ids, scores, n, planned_alpha)
        covered = {(c.i1, c.i0) for c in planned}
        scores = {pair: s for pair, s in scores.items() if pair not in covered} or None
    fmt = ReportFormat.of(mechanism, inputs)
    finding = yield from search_plan(mechanism.sample, inputs, pair_ids, n, seed, search_alpha, delta, planned,
                                     scores, fmt, [_input_label(mechanism, x) for x in inputs])
    if mechanism.has_law and mechanism.sampling is None:
        finding = _weigh_exact_events(mechanism, inputs, finding)
    top = ceiling(mechanism.eps, finding.n_final, finding.alpha_each, delta)
    if planned:
        top = max(top, ceiling(mechanism.eps, n, finding.planned_alpha, delta))
    if plans:  # the law says what this mechanism, exactly at its claim, lets this sample size certify
        top = min(top, max(_best_expected(plans, finding.n_final, finding.alpha_each, delta),
                           _best_expected(plans, n, finding.planned_alpha, delta)))
    results = [_blackbox_row(mechanism, inputs, finding, n, seed, alpha, top)]
    if tight:
        results.append(_budget_row(mechanism, inputs, finding, tight, n, seed, alpha / 2.0))
    return results


def _weigh_exact_events(mechanism, inputs, finding):
    """Exact-report events of a scalar mechanism that the declared law gives probability 0 under x0 (a finite
    set of values has the mass of the law's atoms there, and none from a density): marked impossible, so that,
    once seen under x1, they are reported as an unbounded loss."""
    marked = []
    for c in finding.candidates:
        if isinstance(c.event, KeyEvent) and c.event.values.size:
            law0 = mechanism.law(inputs[c.i0])
            widths = atom_widths([law0, mechanism.law(inputs[c.i1])], c.event.values)
            mass = float(np.sum(_atom_mass(law0, c.event.values, widths)))
            c = replace(c, impossible_under_x0=mass == 0.0)
        marked.append(c)
    return replace(finding, candidates=tuple(marked))


#: What a user does when the search cannot see into the reports.
REMEDY = ("declare how the server reads a report (supports(reports, item) and/or key(reports)), or report a numeric "
          "encoding (numbers, an indicator vector, a tuple of numbers)")


def _blind_row(mechanism, finding, n, seed, alpha, reason: str) -> CheckResult:
    """INCONCLUSIVE, never a blind PASS: the search had nothing it could see into."""
    eps, delta = mechanism.eps, mechanism.delta
    return CheckResult(
        "privacy.blackbox", f"{mechanism.reference}: {eps:g}-LDP" + (f" (delta={delta:g})" if delta else ""),
        Status.INCONCLUSIVE, None, "eps_lower", threshold=eps, n=n, seed=seed, alpha=alpha,
        explanation=f"the search cannot see into these reports: {reason}; to audit them, {REMEDY}",
        details={"blind": reason, "remedy": REMEDY, "tests": len(finding.candidates), "pilot": finding.pilot,
                 "final_draws": finding.n_final})


def _blackbox_row(mechanism, inputs, finding, n, seed, alpha, top: float) -> CheckResult:
    eps, delta = mechanism.eps, mechanism.delta
    if not finding.candidates:
        return _blind_row(mechanism, finding, n, seed, alpha, finding.blind or "no family found an event to test")
    bounds = finding.bounds()
    counts = lambda t: (int(finding.counts[finding.candidates[t].i1][t]), int(finding.counts[finding.candidates[t].i0][t]))
    # infinite loss by the law: an event the declared law gives probability 0 under x0, seen under x1
    impossible = [t for t, c in enumerate(finding.candidates) if c.impossible_under_x0 and counts(t)[0] > 0]
    best = impossible[0] if impossible else int(np.argmax(bounds))
    cand, raw = finding.candidates[best], float(bounds[best])
    lower = max(raw, 0.0)
    c1, c0 = counts(best)
    x1, x0 = _input_label(mechanism, inputs[cand.i1]), _input_label(mechanism, inputs[cand.i0])
    violated = raw > eps * (1.0 + _EXACT_TOL) or bool(impossible)
    if finding.blind and not violated:  # an event found anyway may still prove a violation; a pass it cannot
        return _blind_row(mechanism, finding, n, seed, alpha, finding.blind)
    where = f"inputs {x1} vs {x0}, {cand.family} event {cand.event.describe()}"
    if impossible:
        finding_text = (f"UNBOUNDED loss: {where} has probability 0 under {x0} by the declared law and occurred {c1} "
                        f"times in {finding.draws(best)} draws of {x1}")
    elif finding.never_seen_under_x0(best) and violated:
        finding_text = (f"{where}: seen {c1} times under {x1}, never under {x0} in {finding.draws(best)} draws: eps >= "
                        f"{lower:.4f} (sample-limited; the loss may be unbounded), ABOVE the claimed {eps:g}")
    else:
        finding_text = (f"{where}: eps >= {lower:.4f} with confidence 1 - {alpha:.3g}"
                        + (f", ABOVE the claimed {eps:g}" if violated else
                           f" (tightness {lower / eps:.3f}; ceiling {top:.4f} at this n and confidence)"))
    if finding.id_like and not violated:
        finding_text += (f"; coordinate(s) {list(finding.id_like)[:4]} take a fresh integer in nearly every report (a "
                         f"hash seed or id?): if the server reads reports through them, declare supports(reports, "
                         f"item) and/or key(reports) so the search can too")
    if finding.planned:
        chosen = len(finding.candidates) - finding.planned
        finding_text += (f"; weighted Bonferroni: {finding.planned} event(s) planned from the law before sampling, at "
                         f"{finding.planned_alpha:.2g} each on all {finding.pilot + finding.n_final} draws, and "
                         f"{chosen} chosen on the pilot, at {finding.alpha_each:.2g} each on {finding.n_final}")
    per_family = {}
    for t, c in enumerate(finding.candidates):
        per_family[c.family] = max(per_family.get(c.family, -math.inf), float(bounds[t]))
    return CheckResult(
        "privacy.blackbox", f"{mechanism.reference}: {eps:g}-LDP" + (f" (delta={delta:g})" if delta else ""),
        Status.FAIL if violated else Status.PASS, lower, "eps_lower", interval=(lower, math.inf), threshold=eps,
        n=n, seed=seed, alpha=alpha, explanation=finding_text,
        details={"tightness": lower / eps, "ceiling": top, "raw_lower": raw if math.isfinite(raw) else None,
                 "unbounded": bool(impossible), "never_seen_under_x0": finding.never_seen_under_x0(best),
                 "family": cand.family, "event": cand.event.describe(), "counts": [c1, c0],
                 "tests": len(finding.candidates), "alpha_each": finding.alpha_each, "pairs": len({(c.i1, c.i0) for c in finding.candidates}),
                 "planned": finding.planned, "planned_alpha": finding.planned_alpha, "level": finding.level(best),
                 "draws": finding.draws(best),
                 "pilot": finding.pilot, "final_draws": finding.n_final, "id_like_columns": list(finding.id_like),
                 "eps_lower_per_family": {k: (v if math.isfinite(v) else None) for k, v in per_family.items()}})


def _budget_row(mechanism, inputs, finding, tight, n, seed, alpha) -> CheckResult:
    eps = mechanism.eps
    uppers = [ratio_upper_bound(finding.counts[finding.candidates[t].i1][t], finding.counts[finding.candidates[t].i0][t],
                                finding.draws(t), finding.draws(t), alpha / len(tight)) for t in tight]
    j = int(np.argmax(uppers))
    upper, cand = uppers[j], finding.candidates[tight[j]]
    claimed = cand.log_ratio
    under = upper < claimed * (1.0 - _EXACT_TOL)
    where = f"the law's tightest event ({cand.event.describe()}, inputs {_show(inputs[cand.i1])} vs {_show(inputs[cand.i0])})"
    return CheckResult(
        "privacy.budget", f"{mechanism.reference}: spends the claimed eps={eps:g}",
        Status.FAIL if under else Status.PASS, upper, "eps_upper", interval=(-math.inf, upper), threshold=claimed,
        n=n, seed=seed, alpha=alpha,
        explanation=(f"{where} has log ratio <= {upper:.4f}" + (
            f", below the {claimed:.4g} the law implies: the mechanism adds more noise than claimed" if under
            else f"; the law implies {claimed:.4g}")))
