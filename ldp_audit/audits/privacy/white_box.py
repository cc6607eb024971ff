"""White-box privacy audit: the LDP ratio bound checked exactly from a mechanism's output law.

The largest log density ratio max_{x, x', y} log f(y|x)/f(y|x') over a grid of inputs (domain ends included) and
every output where a density changes, and the total mass of each law. For a sampled mechanism the whole report's
ratio is k times the coordinate's (the subset S is independent of x and the k coordinate reports are
independent). For (eps, delta) mechanisms: the hockey-stick divergence of the extreme input pair at the claimed
eps, integrated numerically from the laws.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import integrate

from ...mechanisms.base import coordinate_of
from ...mechanisms.laws import Law, Smooth, window_widths
from ..kernel.result import CheckResult, Status
from ..kernel.stats import RATIO_RTOL

#: Largest |mass - 1| a law may show and still be a probability distribution (sums of up to ~1e5 float64 terms).
MASS_TOL = 1e-9
#: Input grid size of the white-box audit of continuous domains (ldp-ge C1(a) uses 201).
_INPUT_GRID = 201
#: Most pieces the hockey-stick integral is cut into (between breakpoints; quad adapts inside each).
_HOCKEY_PIECES = 64


def _input_grid(mechanism) -> np.ndarray:
    lo, hi = mechanism.domain
    if mechanism.discrete_input:
        return np.arange(lo, hi + 1.0)
    return np.unique(np.concatenate([np.linspace(lo, hi, _INPUT_GRID), mechanism.audit_inputs]))


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


def max_log_ratio(laws: list[Law]) -> float:
    """max over outputs y of log(max_x f(y|x) / min_x f(y|x)) across the given laws (one per input)."""
    worst = 0.0
    atoms = np.unique(np.concatenate([law.atoms[0] for law in laws]))
    if atoms.size:
        widths = window_widths(laws, atoms)
        worst = max(worst, _log_ratio(np.array([law.atom_mass(atoms, widths) for law in laws])))
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
        delta += float(np.sum(np.maximum(0.0, law1.atom_mass(atoms) - weight * law0.atom_mass(atoms))))
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
    mass_ok = mass_error <= MASS_TOL
    results = [CheckResult(
        "law.mass", f"{mechanism.reference}: the output law is a probability distribution",
        Status.PASS if mass_ok else Status.FAIL, mass_error, "max |mass - 1|", threshold=MASS_TOL,
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
    ok = total <= eps * (1.0 + RATIO_RTOL) + slack
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
