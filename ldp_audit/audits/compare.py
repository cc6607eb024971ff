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

from ..mechanisms import make
from ..mechanisms.constants import coth_half
from .privacy import is_sampled
from .sampling import map_reduce
from .stats import Moments


@dataclass(frozen=True)
class VarianceRow:
    mechanism: str
    x: str
    theory: float
    empirical: float
    low: float
    high: float
    n: int

    @property
    def ratio(self) -> float:
        return self.empirical / self.theory

    @property
    def agrees(self) -> bool:
        return self.low <= self.theory <= self.high


class _EstimateMoments:
    def __init__(self, mechanism, x):
        self.mechanism, self.x = mechanism, x

    def __call__(self, size, rng):
        m = self.mechanism
        if is_sampled(m):
            est = m.estimate(m.perturb(np.full((size, m.d), self.x), rng))[:, 0]
        else:
            est = m.estimate(m.perturb(np.full(size, self.x), rng))
        return Moments.of(est, m.estimate_mean(self.x))


def worst_input(mechanism) -> float:
    xs = mechanism.audit_inputs
    return float(xs[int(np.argmax(mechanism.estimate_var(xs)))])


def compare_variances(mechanisms: list, inputs: list[float] | None, n: int, seed: int, alpha: float,
                      progress=None) -> list[VarianceRow]:
    """Rows of (mechanism, input, theory, empirical variance, confidence interval) for the worst case and inputs."""
    rows = []
    z = float(stats.norm.isf(alpha / 2.0))
    for i, m in enumerate(mechanisms):
        points = [("worst " + f"{worst_input(m):.3g}", worst_input(m))]
        points += [(f"{v:.3g}", float(v)) for v in (inputs or []) if m.domain[0] <= v <= m.domain[1]]
        for j, (label, x) in enumerate(points):
            moments = map_reduce(_EstimateMoments(m, x), n, seed, 1000 * i + j, progress=progress)
            var, fourth = moments.central()
            se = math.sqrt(max(fourth - var * var, 0.0) / n)
            rows.append(VarianceRow(getattr(m, "name", "?"), label, float(m.estimate_var(x)), float(var),
                                    float(var - z * se), float(var + z * se), n))
    return rows


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
