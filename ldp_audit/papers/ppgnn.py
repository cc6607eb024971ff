"""PPGNN (seed 004) as printed: the Gaussian calibration of Sec. II-D2, the m rule of Theorem 1 and the ESW
window of Eq. 6."""
from __future__ import annotations

import math

import numpy as np

#: Theorem 1 rule m = max(1, min(d, floor(eps / 2.2))).
M_RULE_CONSTANT = 2.2


def gaussian_sigma_printed(eps: float, delta: float) -> float:
    """sigma = sqrt(2 ln(1.25/delta)) / eps (Sec. II-D2): the sensitivity factor is missing (erratum E1)."""
    return math.sqrt(2.0 * math.log(1.25 / delta)) / eps


def m_rule_printed(eps: float, d: int) -> int:
    """Theorem 1 as printed (float arithmetic, as a reader would code it)."""
    return max(1, min(d, int(math.floor(eps / M_RULE_CONSTANT))))


def esw_pmf_printed(eps: float, f: int, g: int, half_width: int) -> np.ndarray:
    """Eq. 6 as printed on outputs {1, ..., f + 2b}: p where |g - g'| <= b, q elsewhere, with
    Z = (2b + 1) e^eps + f - 1. For g <= b fewer than 2b + 1 outputs get p, so the total is below 1 (E3)."""
    outputs = np.arange(1, f + 2 * half_width + 1)
    z = (2 * half_width + 1) * math.exp(eps) + f - 1
    return np.where(np.abs(outputs - g) <= half_width, math.exp(eps) / z, 1.0 / z)


def mlr_coordinate_law_printed(eps: float, d: int, m: int, x: float) -> tuple[np.ndarray, np.ndarray]:
    """The law of one coordinate of MLR's client-rectified report (Algorithm 2 with Algorithm 1 inside), as
    printed: the coordinate is among the m sampled ones with probability m/d; then Algorithm 1 at eps/m sends
    +-1 with Pr[+1] = 1/2 + (x/2)(e^(eps/m) - 1)/(e^(eps/m) + 1), and the report is (d/m) C t with
    C = (e^(eps/m) + 1)/(e^(eps/m) - 1). Returns (values, probabilities) over {-(d/m)C, 0, (d/m)C}."""
    e = math.exp(eps / m)
    rectified = (d / m) * (e + 1.0) / (e - 1.0)
    plus = 0.5 + 0.5 * x * (e - 1.0) / (e + 1.0)
    inclusion = m / d
    return (np.array([-rectified, 0.0, rectified]),
            np.array([inclusion * (1.0 - plus), 1.0 - inclusion, inclusion * plus]))
