"""LPGNN (seed 003) as printed: the m rule of Prop. 3.4 (Eq. 6) and the rectifier of Eq. 4."""
from __future__ import annotations

import math

#: The continuous optimum of Prop. 3.4: the root z* of z = sinh(z)/2 (the spec's value; the rule's 2.18 rounds it).
Z_STAR = 2.1773189849653067

#: The constant of the printed rule m = max(1, min(d, floor(eps / 2.18))) (Eq. 6), a rounding of z* = 2.17732.
M_RULE_CONSTANT = 2.18


def m_rule_printed(eps: float, d: int) -> int:
    """Eq. 6 as printed: the number of sampled dimensions that the paper claims minimises the variance."""
    return max(1, min(d, int(math.floor(eps / M_RULE_CONSTANT))))


def rectifier_factor_printed(eps: float, d: int, m: int, alpha: float, beta: float) -> float:
    """C_m of Eq. 4 evaluated literally: d(beta - alpha)/(2m) * (e^(eps/m) + 1)/(e^(eps/m) - 1).

    Exact in real arithmetic; in float64 it overflows for eps/m > 709 and loses digits for tiny eps (E2).
    """
    e = math.exp(eps / m)
    return d * (beta - alpha) / (2.0 * m) * (e + 1.0) / (e - 1.0)


def worst_case_variance(eps: float, d: int, m: int, alpha: float = 0.0, beta: float = 1.0) -> float:
    """V_max(m) = (d/m)((beta - alpha)/2)^2 coth^2(eps/(2m)) (Prop. 3.3 at x_i = c), the objective of Eq. 6."""
    return (d / m) * ((beta - alpha) / 2.0) ** 2 / math.tanh(eps / (2.0 * m)) ** 2


def covariance_e6(d: int, m: int, x_i: float, x_j: float, alpha: float, beta: float) -> float:
    """lpgnn spec E6: Cov[x'_i, x'_j] = -(d - m)/(m (d - 1)) (x_i - c)(x_j - c), c = (alpha + beta)/2, for two
    coordinates of one user's rectified report (not stated in the paper)."""
    c = (alpha + beta) / 2.0
    return -(d - m) / (m * (d - 1)) * (x_i - c) * (x_j - c)
