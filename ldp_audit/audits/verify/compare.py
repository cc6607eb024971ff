"""Empirical against theoretical variance, side by side, and ldp-ge Figure 1 (claim C10).

``compare_variances`` draws reports of several mechanisms at the same budget and sets each estimate's sample
variance (with a 4th-moment confidence interval) next to the closed form, at the worst-case input and at
chosen inputs. ``figure1_curves`` evaluates the worst-case one-dimensional variance curves of ldp-ge Figure 1
with all four readings of the Square Wave curve, and ``crossings`` finds where two curves cross.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from ... import streams
from ...mechanisms import make
from ...mechanisms.constants import coth_half
from .moments import law_shapes, skewed_variance_p
from ..kernel.result import AuditReport, CheckResult, Status
from ..kernel.sampling import map_reduce
from ..kernel.stats import Moments


@dataclass(frozen=True)
class VarianceRow:
    mechanism: str
    x: str
    theory: float
    empirical: float
    low: float
    high: float
    n: int
    #: Bennett's p-value where the estimate's law is too skewed for the normal interval at this n (a rare part
    #: of the law that n draws may miss entirely); None where the interval decides
    exact_p: float | None = None
    alpha: float = 0.0

    @property
    def ratio(self) -> float:
        return self.empirical / self.theory

    @property
    def agrees(self) -> bool:
        if self.exact_p is not None:
            return self.exact_p >= self.alpha
        return self.low <= self.theory <= self.high


def _first(values, x):
    """Coordinate 0 of an estimate that is a vector for a one-dimensional input (a frequency oracle estimates the
    indicator vector e_x); the values as they are otherwise."""
    values = np.asarray(values)
    return values[..., 0] if values.ndim > np.ndim(x) else values


class _EstimateMoments:
    def __init__(self, mechanism, x):
        self.mechanism, self.x = mechanism, x

    def __call__(self, size, rng):
        m = self.mechanism
        if m.sampling is not None:
            est = m.estimate(m.perturb(np.full((size, m.d), self.x), rng))[:, 0]
        else:
            x = np.full(size, self.x)
            est = _first(m.estimate(m.perturb(x, rng)), x)
        return Moments.of(est, _first(m.estimate_mean(self.x), self.x))


def worst_input(mechanism) -> float:
    xs = mechanism.audit_inputs
    return float(xs[int(np.argmax(_first(mechanism.estimate_var(xs), xs)))])


def compare_variances(mechanisms: list, inputs: list[float] | None, n: int, seed: int, alpha: float,
                      progress=None) -> list[VarianceRow]:
    """Rows of (mechanism, input, theory, empirical variance, confidence interval) for the worst case and inputs."""
    rows = []
    z = float(stats.norm.isf(alpha / 2.0))
    for i, m in enumerate(mechanisms):
        points = [("worst " + f"{worst_input(m):.3g}", worst_input(m))]
        points += [(f"{v:.3g}", float(v)) for v in (inputs or []) if m.domain[0] <= v <= m.domain[1]]
        for j, (label, x) in enumerate(points):
            moments = map_reduce(_EstimateMoments(m, x), n, seed, streams.COMPARE_VARIANCE.key(1000 * i + j),
                                 progress=progress)
            var, fourth = moments.central()
            se = math.sqrt(max(fourth - var * var, 0.0) / n)
            theory = float(_first(m.estimate_var(x), x))
            exact = skewed_variance_p(n, float(moments.s2 / n), theory, law_shapes(m, "estimate", [x])[0])
            rows.append(VarianceRow(getattr(m, "name", "?"), label, theory, float(var),
                                    float(var - z * se), float(var + z * se), n, exact, alpha))
    return rows


def variance_report(mechanisms: list, inputs: list[float] | None, n: int, seed: int, alpha: float,
                    progress=None) -> AuditReport:
    """:func:`compare_variances` as a report: one row per (mechanism, input), FAIL when the closed form lies
    outside the empirical variance's (1 - alpha) interval."""
    rows = compare_variances(mechanisms, inputs, n, seed, alpha, progress)
    params = {getattr(m, "name", "?"): m.params() for m in mechanisms}
    results = [CheckResult(f"variance.{row.mechanism}@{row.x}", f"closed-form variance of {row.mechanism}",
                           Status.PASS if row.agrees else Status.FAIL, row.empirical, "var",
                           (row.low, row.high), threshold=row.theory, n=row.n, seed=seed, alpha=alpha,
                           explanation=f"x = {row.x}: empirical/theory = {row.ratio:.4f}; " + (
                               f"the law is too skewed for a normal interval at this n: Bennett's bound gives "
                               f"p = {row.exact_p:.3g}" + ("" if row.agrees else f" < {alpha:g}")
                               if row.exact_p is not None else
                               "the theory " + ("lies in" if row.agrees else "lies OUTSIDE") + " the interval"),
                           details={"params": params[row.mechanism], "theory": row.theory})
               for row in rows]
    return AuditReport.of("variance of the server estimate (coordinate 0)", results,
                          subject={"mechanisms": params}, settings={"samples": n, "seed": seed, "alpha": alpha})


# ----- ldp-ge Figure 1 ----------------------------------------------------------------------------------
def figure1_curves(eps) -> dict[str, np.ndarray]:
    """Worst-case 1-D variance curves over eps: LP, PM, MB and four readings of the Square Wave curve."""
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    curves = {name: np.empty_like(eps) for name in
              ("LP", "PM", "MB", "SW raw", "SW MSE", "SW debiased", "SW original [0,1]")}
    for i, e in enumerate(eps):
        sw = make("square_wave", eps=e)
        c1 = float(sw.report_mean(1.0))
        raw = float(sw.report_var(1.0))
        curves["LP"][i] = float(make("laplace", eps=e).report_var(1.0))
        curves["PM"][i] = float(make("piecewise", eps=e).report_var(1.0))
        curves["MB"][i] = coth_half(e) ** 2
        curves["SW raw"][i] = raw
        curves["SW MSE"][i] = raw + (c1 - 1.0) ** 2
        curves["SW debiased"][i] = raw / c1**2
        unit = make("square_wave_unit", eps=e)
        curves["SW original [0,1]"][i] = max(float(unit.report_var(0.0)), float(unit.report_var(1.0)))
    return curves


def crossings(name_a: str, name_b: str, lo: float = 0.1, hi: float = 8.0, grid: int = 400) -> list[float]:
    """Budgets in [lo, hi] where curve a equals curve b (sign changes on a grid, refined with brentq)."""
    def gap(e):
        c = figure1_curves(e)
        return float(c[name_a][0] - c[name_b][0])

    xs = np.linspace(lo, hi, grid)
    values = np.array([gap(e) for e in xs])
    roots = []
    for a, b, fa, fb in zip(xs[:-1], xs[1:], values[:-1], values[1:]):
        if fa == 0.0:
            roots.append(float(a))
        elif fa * fb < 0:
            roots.append(float(optimize.brentq(gap, a, b, xtol=1e-10)))
    return roots


#: The Square Wave readings of Figure 1 and the curves each is compared with.
SW_READINGS = ("SW raw", "SW MSE", "SW debiased", "SW original [0,1]")


def figure1_report(grid) -> AuditReport:
    """ldp-ge Figure 1 as a report: the curves on ``grid`` (in the subject) and one INFO row per Square Wave
    reading with the budgets where it crosses PM, LP and MB (the claim itself is checked by ``claims ldp-ge``)."""
    grid = np.asarray(grid, dtype=float)
    curves = figure1_curves(grid)
    results = []
    for reading in SW_READINGS:
        found = {other: crossings(reading, other) for other in ("PM", "LP", "MB")}
        first = found["PM"][0] if found["PM"] else None
        results.append(CheckResult(
            f"figure1.{reading}", "ldp-ge Figure 1 (C10)", Status.INFO, first, "crossing with PM",
            explanation=f"{reading} crosses " + "; ".join(
                f"{o} at {', '.join(f'{v:.4f}' for v in r) or 'never'}" for o, r in found.items()),
            details={"crossings": found}))
    return AuditReport.of("ldp-ge Figure 1: worst-case 1-D variance", results,
                          subject={"eps": grid.tolist(), "curves": {k: v.tolist() for k, v in curves.items()}})
