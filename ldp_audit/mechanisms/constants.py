"""Numerically stable constants of the mechanisms, as pure functions of the budget.

Closed forms such as b(eps) = (eps e^eps - e^eps + 1) / (e^eps (e^eps - eps - 1)) cancel catastrophically for
small eps and overflow for large eps (ldp-ge E11, lpgnn E2). Each function here uses a Taylor series below a
threshold, ``expm1``/``tanh`` forms in the middle and ``exp(-eps)`` forms above, and is accurate to a few ulp on
eps in [1e-8, 700] (better than 1e-12 relative everywhere, checked against 80-digit arithmetic in tests).
"""
from __future__ import annotations

import math

#: Below this budget the Square Wave half-width uses its Taylor series (truncation error below 1e-19 there).
_SERIES_BELOW = 1e-2
#: Taylor coefficients of b(eps) around 0, from the series of numerator and denominator (checked with sympy).
_B_SERIES = (1.0, -2 / 3, 2 / 9, -7 / 135, 4 / 405, -11 / 6804, 29 / 127575, -17 / 612360, 1 / 328050)


def coth_half(eps: float) -> float:
    """C(eps) = (e^eps + 1)/(e^eps - 1) = coth(eps/2), the one-bit rectifier factor (ppgnn C(.), lpgnn Eq. 4)."""
    return 1.0 / math.tanh(eps / 2.0)


def sw_half_width(eps: float) -> float:
    """Window half-width b(eps) of the Square Wave on [-1, 1] (ldp-ge Algorithm 1).

    b = (eps - 1 + e^-eps) / (e^eps - 1 - eps). Series 1 - 2e/3 + 2e^2/9 - 7e^3/135 + ... (to e^8) for small eps;
    the e^-eps form for large eps never overflows.
    """
    if eps < _SERIES_BELOW:
        return sum(c * eps**i for i, c in reversed(list(enumerate(_B_SERIES))))
    numerator = eps + math.expm1(-eps)          # eps - 1 + e^-eps
    if eps < 30.0:
        return numerator / (math.expm1(eps) - eps)
    tail = math.exp(-eps)
    return numerator * tail / (1.0 - (1.0 + eps) * tail)


def sw_probabilities(eps: float) -> tuple[float, float, float]:
    """(b, p, q) of the Square Wave on [-1, 1]: density p inside the window |y - x| <= b, q outside, p/q = e^eps."""
    b = sw_half_width(eps)
    tail = math.exp(-eps)
    p = 1.0 / (2.0 * b + 2.0 * tail)
    return b, p, p * tail


def sw_window_masses(eps: float) -> tuple[float, float]:
    """(inside, outside): probability 2bp = b e^eps / (b e^eps + 1) that the Square Wave output falls in its
    window, and its complement computed without cancellation."""
    b = sw_half_width(eps)
    tail = math.exp(-eps)
    return b / (b + tail), tail / (b + tail)


def sw_mean_factor(eps: float) -> float:
    """C1(eps) = b (e^eps - 1) / (b e^eps + 1): E[y | x] = C1 x for the Square Wave on [-1, 1] (ldp-ge Eq. 13)."""
    b = sw_half_width(eps)
    tail = math.exp(-eps)
    return -b * math.expm1(-eps) / (b + tail)


def sw_second_moment_offset(eps: float) -> float:
    """V0(eps) = (b^3 e^eps + 3b^2 + 3b + 1) / (3 (b e^eps + 1)): E[y^2 | x] = V0 + C1 x^2 (ldp-ge Eq. 16)."""
    b = sw_half_width(eps)
    tail = math.exp(-eps)
    return (b**3 + (3.0 * b**2 + 3.0 * b + 1.0) * tail) / (3.0 * (b + tail))


def pm_constants(eps: float) -> tuple[float, float, float]:
    """(s, w, 1 - w) of the Piecewise mechanism (ldp-ge Eq. 3): with t = e^(eps/2), s = (t+1)/(t-1) = coth(eps/4)
    and the centre piece's mass w = t/(t+1); the complement 1/(t+1) is computed without cancellation."""
    s = 1.0 / math.tanh(eps / 4.0)
    return s, 1.0 / (1.0 + math.exp(-eps / 2.0)), 1.0 / (1.0 + math.exp(eps / 2.0))


def pm_variance(eps: float, x):
    """Var[y | x] = x^2/(t-1) + (t+3)/(3(t-1)^2) of the one-dimensional Piecewise mechanism (ldp-ge Eq. 3)."""
    tm1 = math.expm1(eps / 2.0)
    return x * x / tm1 + (tm1 + 4.0) / (3.0 * tm1 * tm1)
