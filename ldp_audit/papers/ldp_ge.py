"""LDP-GE (seed 000) as printed: formulas with their equation numbers, errors included.

These functions reproduce what the paper prints. The corrected mechanisms live in ``ldp_audit.mechanisms``;
``ldp_audit.audits.paper_claims`` compares the two.
"""
from __future__ import annotations

import math

import numpy as np


def sw_half_width_printed(eps: float) -> float:
    """b of Algorithm 1 / Eq. 9, evaluated literally: (eps e^eps - e^eps + 1) / (e^eps (e^eps - eps - 1)).

    Mathematically right; numerically unusable for small eps (ldp-ge E11): the numerator and the bracket in
    the denominator both cancel catastrophically in float64.
    """
    e = math.exp(eps)
    return (eps * e - e + 1.0) / (e * (e - eps - 1.0))


def one_bit_pmf_printed(eps: float, x: float) -> tuple[float, float]:
    """(Pr[c = +1 | x], Pr[c = -1 | x]) as printed in Eq. 6: the second line's first term is (e^eps - 1)/(e^eps + 1)
    where 1 - Pr[+1] needs e^eps/(e^eps + 1) (erratum E1), so the two sum to e^eps/(e^eps + 1)."""
    e = math.exp(eps)
    slope = ((x + 1.0) / 2.0) * (e - 1.0) / (e + 1.0)
    return 1.0 / (e + 1.0) + slope, (e - 1.0) / (e + 1.0) - slope


def hds_mean_factor_lemma1(eps: float, d: int, k: int) -> float:
    """C = (k/d) b'(e' - 1)/(b' e' + 1) with b' = b(eps/k), e' = e^(eps/k) (Lemma 1, Eqs. 10, 12-14)."""
    b, e = sw_half_width_printed(eps / k), math.exp(eps / k)
    return (k / d) * b * (e - 1.0) / (b * e + 1.0)


def hds_variance_lemma1(eps: float, d: int, k: int, x):
    """Var[x~_j] = (k/d)(b'^3 e' + 3b'^2 + 3b' + 1)/(3(b'e' + 1)) + (C - C^2) x^2 (Lemma 1, Eqs. 11, 15-16)."""
    b, e = sw_half_width_printed(eps / k), math.exp(eps / k)
    c = hds_mean_factor_lemma1(eps, d, k)
    return (k / d) * (b**3 * e + 3 * b**2 + 3 * b + 1.0) / (3.0 * (b * e + 1.0)) + (c - c * c) * np.asarray(x) ** 2


def pm_variance_eq5(eps: float, d: int, k: int, x):
    """Eq. 5: d(t'+3)/(3k(t'-1)^2) + [d t'/(k(t'-1)) - 1] x^2 with t' = e^(eps/(2k))."""
    t = math.exp(eps / (2.0 * k))
    return d * (t + 3.0) / (3.0 * k * (t - 1.0) ** 2) + (d * t / (k * (t - 1.0)) - 1.0) * np.asarray(x) ** 2


def mb_variance_eq8(eps: float, d: int, k: int, x):
    """Eq. 8: (d/k)((e^(eps/k) + 1)/(e^(eps/k) - 1))^2 - x^2."""
    e = math.exp(eps / k)
    return (d / k) * ((e + 1.0) / (e - 1.0)) ** 2 - np.asarray(x) ** 2


def laplace_variance(eps: float, d: int = 1):
    """8 d^2 / eps^2 (Sec. III, Laplace baseline with eps/d per coordinate)."""
    return 8.0 * d * d / eps**2


#: Figure 1's textual claims: SW below PM for eps <= 3.5 and above after; below LP and MB for eps <= 5.
FIGURE1_PM_CROSSING_CLAIM = 3.5
FIGURE1_LP_MB_CLAIM = 5.0


def laplace_mgf_lemma2(s):
    """Lemma 2: E[e^(s eta)] = 1 / (1 - s^2) for eta ~ Lap(1), |s| < 1."""
    return 1.0 / (1.0 - np.asarray(s, dtype=float) ** 2)


def subexponential_bound_lemma2(s):
    """Lemma 2: 1 / (1 - s^2) <= e^(2 s^2) for |s| < 1/2, i.e. Lap(1) ~ subE(2) (so Lap(lambda) ~ subE(2 lambda))."""
    return np.exp(2.0 * np.asarray(s, dtype=float) ** 2)
