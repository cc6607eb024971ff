"""Privacy audits of the LDP ratio bound: white-box from the exact law, black-box from samples.

White-box (exact): the largest log density ratio max_{x, x', y} log f(y|x)/f(y|x') over a grid of inputs
(domain ends included) and every output where a density changes, and the total mass of each law. For a
sampled mechanism the whole report's ratio is k times the coordinate's (the subset S is independent of x and
the k coordinate reports are independent). For (eps, delta) mechanisms: the hockey-stick divergence of the
extreme input pair at the claimed eps, integrated numerically from the laws.

Black-box (samples): pairs of inputs and events whose probabilities are compared with Clopper-Pearson
bounds, giving a lower bound on the eps the mechanism really spends:

* with a law, the events are level sets of the law's likelihood ratio (e.g. the Square-Wave window
  [1 - b, 1 + b] of ldp-ge C1, the all-windows event of C2, the all-plus event of lpgnn C1), chosen before
  sampling to maximise the expected lower bound, so nothing is chosen on the data it is tested on;
* without a law, a data-driven search: histogram cells on one half of the samples, ranked by their ratio,
  the best union kept, and its probabilities estimated on the other half.

The check fails when the lower bound exceeds the claimed eps (a privacy violation). A second check fails when
the upper bound of the tight event's ratio falls below e^eps: the mechanism spends less budget than it claims.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import integrate

from ..mechanisms.laws import Law, Smooth
from .result import CheckResult, Status
from .sampling import map_reduce
from .stats import expected_ratio_lower_bound, ratio_lower_bound, ratio_upper_bound

#: Relative slack for exact comparisons of a computed ratio with e^eps (floating point only).
_EXACT_TOL = 1e-9
#: Input grid size of the white-box audit of continuous domains (ldp-ge C1(a) uses 201).
_INPUT_GRID = 201


def is_sampled(mechanism) -> bool:
    return hasattr(mechanism, "coordinate")


def coordinate_of(mechanism):
    """The one-dimensional mechanism whose law the privacy audit analyses, and how many of it a report holds."""
    if is_sampled(mechanism):
        return mechanism.coordinate, mechanism.k
    return mechanism, 1


def _input_grid(mechanism) -> np.ndarray:
    lo, hi = mechanism.domain
    if mechanism.discrete_input:
        return np.arange(lo, hi + 1.0)
    return np.unique(np.concatenate([np.linspace(lo, hi, _INPUT_GRID), mechanism.audit_inputs]))


# ----- white-box ---------------------------------------------------------------------------------------------
def _evaluation_points(laws: list[Law]) -> np.ndarray:
    """Outputs at which every density is evaluated: between and beyond all breakpoints (piecewise-constant and
    Laplace log-densities are monotone or constant between them, so the maximum ratio is attained there)."""
    points = np.unique(np.concatenate([law.breakpoints for law in laws]))
    points = points[np.isfinite(points)]
    if points.size == 0:
        return points
    span = max(points[-1] - points[0], 1.0)
    mids = 0.5 * (points[1:] + points[:-1])
    outside = np.array([points[0] - span, points[-1] + span])
    return np.unique(np.concatenate([mids, outside]))


def max_log_ratio(laws: list[Law]) -> float:
    """max over outputs y of log(max_x f(y|x) / min_x f(y|x)) across the given laws (one per input)."""
    worst = 0.0
    atoms = np.unique(np.concatenate([law.atoms[0] for law in laws]))
    if atoms.size:
        pmf = np.array([[float(np.sum(law.atoms[1][law.atoms[0] == a])) for a in atoms] for law in laws])
        worst = max(worst, _log_ratio(pmf))
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
    for a in atoms:
        p1 = float(np.sum(law1.atoms[1][law1.atoms[0] == a]))
        p0 = float(np.sum(law0.atoms[1][law0.atoms[0] == a]))
        delta += max(0.0, p1 - weight * p0)
    if law1.continuous_mass > 0:
        lo = min(law1.support[0], law0.support[0])
        hi = max(law1.support[1], law0.support[1])
        if not math.isfinite(lo):
            lo = min(law1.mean(), law0.mean()) - 40.0 * math.sqrt(max(law1.var(), law0.var()))
            hi = max(law1.mean(), law0.mean()) + 40.0 * math.sqrt(max(law1.var(), law0.var()))
        points = sorted(set(np.concatenate([law1.breakpoints, law0.breakpoints]).tolist()) | {lo, hi})
        points = [p for p in points if lo <= p <= hi]
        excess = lambda y: max(0.0, float(law1.density(y)) - weight * float(law0.density(y)))
        delta += sum(integrate.quad(excess, a, b, limit=400, epsabs=1e-15, epsrel=1e-10)[0]
                     for a, b in zip(points[:-1], points[1:]))
    return delta


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
    ok = total <= eps * (1.0 + _EXACT_TOL)
    results.append(CheckResult(
        "privacy.whitebox", f"{mechanism.reference}: {eps:g}-LDP",
        Status.PASS if ok else Status.FAIL, total, "max log ratio", threshold=eps,
        explanation=(f"largest log density ratio over {len(grid)} inputs is {total:.6g}"
                     + (f" (= {copies} x {per_coordinate:.6g} per sampled coordinate)" if copies > 1 else "")
                     + ("" if ok else f", above the claimed eps={eps:g}")),
        details={"tightness": total / eps, "per_coordinate": per_coordinate, "copies": copies}))
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
    cells = [((), (float(a),)) for a in atoms]
    p1 = [_atom_mass(law1, atoms)]
    p0 = [_atom_mass(law0, atoms)]
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
            # continuous part of each interval: cdf difference minus the atoms inside it
            cum = np.asarray(law.cdf(edges), dtype=float)
            values, probs = law.atoms
            inside = np.array([np.sum(probs[(values > lo) & (values <= hi)]) for lo, hi in zip(edges[:-1], edges[1:])])
            out.append(np.maximum(np.diff(cum) - inside, 0.0))
    return cells, np.concatenate(p1), np.concatenate(p0)


def _atom_mass(law: Law, atoms: np.ndarray) -> np.ndarray:
    values, probs = law.atoms
    return np.array([float(np.sum(probs[values == a])) for a in atoms])


@dataclass(frozen=True)
class PlannedTest:
    """An ordered input pair and an event, chosen from the law before any sampling."""

    x1: float
    x0: float
    event: Event
    p1: float
    p0: float
    copies: int
    tight: bool  # the event holds only outputs of maximal likelihood ratio

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
    return PlannedTest(0.0, 0.0, event, float(cum1[best_j - 1]), float(cum0[best_j - 1]), copies, tight)


def plan_tests(mechanism, n: int, alpha: float, pairs=None) -> list[PlannedTest]:
    """Ordered input pairs with their events: by default both orders of the domain ends, and of the middle for
    one-dimensional mechanisms; ``pairs`` (in the coordinate mechanism's domain) overrides them."""
    coordinate, copies = coordinate_of(mechanism)
    if pairs is None:
        lo, hi = coordinate.domain
        mid = coordinate.audit_inputs[len(coordinate.audit_inputs) // 2]
        candidates = [lo, hi] if copies > 1 else [lo, mid, hi]
        pairs = [(x1, x0) for x1 in candidates for x0 in candidates if x1 != x0]
    delta = mechanism.delta
    plans = []
    for x1, x0 in pairs:
        plan = plan_event(coordinate.law(x1), coordinate.law(x0), copies, n, alpha / len(pairs), delta)
        if plan is not None:
            plans.append(PlannedTest(x1, x0, plan.event, plan.p1, plan.p0, copies, plan.tight))
    return plans


class _EventCounter:
    """Picklable chunk reducer: how many of ``size`` reports of input ``x`` fall in each event."""

    def __init__(self, mechanism, x, events: list[Event]):
        self.mechanism, self.x, self.events = mechanism, x, events

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        m = self.mechanism
        if is_sampled(m):
            user_input = np.full((size, m.d), m.alpha + (self.x - m.coordinate.domain[0]) * (m.beta - m.alpha)
                                 / (m.coordinate.domain[1] - m.coordinate.domain[0]))
            reports, mask = m.perturb(user_input, rng, return_mask=True)
            values = reports / m.client_scale
            counts = []
            for event in self.events:
                hit = event.contains(values) | ~mask
                counts.append(int(np.count_nonzero(hit.all(axis=1))))
            return np.array(counts)
        reports = m.perturb(np.full(size, self.x), rng)
        return np.array([int(np.count_nonzero(event.contains(reports))) for event in self.events])


def blackbox_privacy(mechanism, n: int, seed: int, alpha: float, workers: int = 1,
                     progress: Callable[[int], None] | None = None, pairs=None) -> list[CheckResult]:
    """Empirical eps lower bound from samples with law-derived events, plus the budget-use (tightness) check.
    ``pairs`` restricts the ordered input pairs (default: see ``plan_tests``)."""
    eps, delta = mechanism.eps, mechanism.delta
    plans = plan_tests(mechanism, n, alpha, pairs)
    inputs = sorted({p.x1 for p in plans} | {p.x0 for p in plans})
    counts = {}
    for stream, x in enumerate(inputs):
        events = [p.event for p in plans]
        counts[x] = map_reduce(_EventCounter(mechanism, x, events), n, seed, stream, workers, progress)
    alpha_each = alpha / len(plans)
    bounds = [ratio_lower_bound(counts[p.x1][i], counts[p.x0][i], n, n, alpha_each, delta)
              for i, p in enumerate(plans)]
    best = int(np.argmax(bounds))
    plan, lower = plans[best], bounds[best]
    violated = lower > eps * (1.0 + _EXACT_TOL)
    results = [CheckResult(
        "privacy.blackbox", f"{mechanism.reference}: {eps:g}-LDP" + (f" (delta={delta:g})" if delta else ""),
        Status.FAIL if violated else Status.PASS, lower, "eps_lower", interval=(lower, math.inf),
        threshold=eps, n=n, seed=seed, alpha=alpha,
        explanation=(f"inputs {plan.x1:g} vs {plan.x0:g}, event {plan.event.describe()}"
                     + (f" on all {plan.copies} sampled coordinates" if plan.copies > 1 else "")
                     + f": eps >= {lower:.4f} with confidence 1 - {alpha:.3g}"
                     + (f", ABOVE the claimed {eps:g}" if violated else f" (tightness {lower / eps:.3f})")),
        details={"tightness": lower / eps, "tests": len(plans), "event": plan.event.describe(),
                 "counts": [int(counts[plan.x1][best]), int(counts[plan.x0][best])]})]
    tight = [(i, p) for i, p in enumerate(plans) if p.tight and delta == 0.0]
    if tight:
        uppers = [ratio_upper_bound(counts[p.x1][i], counts[p.x0][i], n, n, alpha / len(tight)) for i, p in tight]
        j = int(np.argmax(uppers))
        upper, (i, p) = uppers[j], tight[j]
        claimed = p.claimed_log_ratio
        under = upper < claimed * (1.0 - _EXACT_TOL)
        results.append(CheckResult(
            "privacy.budget", f"{mechanism.reference}: spends the claimed eps={eps:g}",
            Status.FAIL if under else Status.PASS, upper, "eps_upper", interval=(-math.inf, upper),
            threshold=claimed, n=n, seed=seed, alpha=alpha,
            explanation=(f"the law's tightest event ({p.event.describe()}, inputs {p.x1:g} vs {p.x0:g}) has log ratio "
                         f"<= {upper:.4f}" + (f", below the {claimed:.4g} the law implies: the mechanism adds more "
                                              f"noise than claimed" if under else f"; the law implies {claimed:.4g}"))))
    return results


# ----- black-box without a law: data-driven event search ------------------------------------------------------
def _statistic(reports: np.ndarray) -> np.ndarray:
    """Scalar statistic of a report: the value itself, or the sum of a vector report's entries."""
    reports = np.asarray(reports, dtype=np.float64)
    return reports if reports.ndim == 1 else reports.reshape(reports.shape[0], -1).sum(axis=1)


def _cell_index(values: np.ndarray, atoms: np.ndarray, edges: np.ndarray) -> np.ndarray:
    if atoms.size:
        pos = np.searchsorted(atoms, values)
        pos = np.clip(pos, 0, atoms.size - 1)
        return np.where(atoms[pos] == values, pos, -1)
    return np.searchsorted(edges, values, side="right") - 1


def search_privacy(sample: Callable[[object, int, np.random.Generator], np.ndarray], x1, x0, eps: float, n: int,
                   seed: int, alpha: float, claim: str, delta: float = 0.0, bins: int = 50,
                   stream: int = 0) -> CheckResult:
    """Data-driven black-box audit: no law needed, only ``sample(x, size, rng) -> reports``.

    Half of the n draws per input choose the cells (atoms when outputs take few values, otherwise ``bins``
    quantile bins of the pooled statistic) and the union of top-ratio cells that maximises the lower bound;
    the other half estimates that event's probabilities with Clopper-Pearson bounds. ``stream`` separates the
    random numbers of several pairs audited with one seed.
    """
    half = n // 2
    def draws(x, size, side, part):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stream, side, part)))
        return _statistic(sample(x, size, rng))

    first = [draws(x1, half, 0, 0), draws(x0, half, 1, 0)]
    second = [draws(x1, n - half, 0, 1), draws(x0, n - half, 1, 1)]
    pooled = np.concatenate(first)
    values = np.unique(pooled)
    if values.size <= 4 * bins:
        atoms, edges = values, np.empty(0)
        n_cells = atoms.size
    else:
        atoms = np.empty(0)
        edges = np.unique(np.quantile(pooled, np.linspace(0, 1, bins + 1)))
        edges[0], edges[-1] = -math.inf, math.inf
        n_cells = edges.size - 1
    c1 = np.bincount(_cell_index(first[0], atoms, edges) + 1, minlength=n_cells + 1)[1:]
    c0 = np.bincount(_cell_index(first[1], atoms, edges) + 1, minlength=n_cells + 1)[1:]
    order = np.argsort(-(c1 + 0.5) / (c0 + 0.5), kind="stable")
    best_j, best = 1, -math.inf
    cum1, cum0 = np.cumsum(c1[order]), np.cumsum(c0[order])
    for j in range(1, n_cells + 1):
        bound = ratio_lower_bound(cum1[j - 1], cum0[j - 1], half, half, alpha, delta)
        if bound > best:
            best_j, best = j, bound
    chosen = order[:best_j]
    hit1 = np.isin(_cell_index(second[0], atoms, edges), chosen)
    hit0 = np.isin(_cell_index(second[1], atoms, edges), chosen)
    lower = ratio_lower_bound(int(hit1.sum()), int(hit0.sum()), n - half, n - half, alpha, delta)
    violated = lower > eps * (1.0 + _EXACT_TOL)
    return CheckResult(
        "privacy.search", claim, Status.FAIL if violated else Status.PASS, lower, "eps_lower",
        interval=(lower, math.inf), threshold=eps, n=n, seed=seed, alpha=alpha,
        explanation=(f"data-driven event ({best_j} of {n_cells} cells chosen on half the samples): eps >= {lower:.4f}"
                     + (f", ABOVE the claimed {eps:g}" if violated else f" (tightness {lower / eps:.3f})")),
        details={"tightness": lower / eps, "cells": int(n_cells), "chosen": int(best_j)})
