"""Gaussian mechanisms: the classical calibration with the corrected sensitivity (ppgnn M2, erratum E1) and the
analytic calibration of Balle & Wang (2018) used by lpgnn M5. Both are (eps, delta)-LDP, not eps-LDP.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, special, stats

from .base import ScalarMechanism
from .laws import Smooth
from .validation import check_choice, check_eps, check_open_unit, check_positive

CALIBRATIONS = ("analytic", "classical")


def privacy_profile(eps: float, sigma: float, sensitivity: float) -> float:
    """Smallest delta for which N(0, sigma^2) noise on a query of L2 sensitivity ``sensitivity`` is (eps, delta)-DP.

    delta(eps) = Phi(D/(2 sigma) - eps sigma/D) - e^eps Phi(-D/(2 sigma) - eps sigma/D)  (Balle & Wang 2018, Thm 8),
    with the second term evaluated in log space so that large eps does not overflow.
    """
    eps, sigma = check_eps(eps, upper=math.inf), check_positive(sigma, "sigma")
    return _profile(eps, sigma, check_positive(sensitivity, "sensitivity"))


def _profile(eps: float, sigma: float, sensitivity: float) -> float:
    """:func:`privacy_profile` on checked arguments (the root finding of :func:`analytic_sigma` calls it often)."""
    a = sensitivity / (2.0 * sigma)
    b = eps * sigma / sensitivity
    first = special.ndtr(a - b)
    second = math.exp(eps + special.log_ndtr(-a - b))
    return max(first - second, 0.0)


def gdp_curve(eps: float, mu: float) -> float:
    """delta(eps) of mu-Gaussian differential privacy: Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) (Dong, Roth &
    Su 2022, Corollary 2.13), for eps >= 0. It is :func:`privacy_profile` with sigma = 1 and sensitivity mu, the
    profile of one Gaussian pair N(0, 1) vs N(mu, 1)."""
    eps = float(eps)
    if not (math.isfinite(eps) and eps >= 0.0):
        raise ValueError(f"eps must be a finite real number >= 0, got {eps!r}")
    return _profile(eps, 1.0, check_positive(mu, "mu"))


@dataclass(frozen=True)
class GaussianCurve:
    """The privacy curve eps -> delta(eps) of mu-GDP (:func:`gdp_curve`) as a picklable callable: what a Gaussian
    mechanism declares as its ``privacy_curve``."""

    mu: float

    def __call__(self, eps: float) -> float:
        return gdp_curve(eps, self.mu)


def classical_sigma(eps: float, delta: float, sensitivity: float) -> float:
    """sigma = D sqrt(2 ln(1.25/delta)) / eps (Dwork & Roth Thm A.1), valid only for eps < 1."""
    eps, delta = check_eps(eps), check_open_unit(delta, "delta")
    sensitivity = check_positive(sensitivity, "sensitivity")
    if eps >= 1.0:
        raise ValueError(f"the classical Gaussian calibration needs eps < 1 per coordinate, got eps={eps:g}; "
                         "use calibration='analytic'")
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / eps


def analytic_sigma(eps: float, delta: float, sensitivity: float) -> float:
    """Smallest sigma with privacy_profile(eps, sigma, sensitivity) <= delta (Balle & Wang 2018), by root finding."""
    eps, delta = check_eps(eps), check_open_unit(delta, "delta")
    sensitivity = check_positive(sensitivity, "sensitivity")

    def excess(log_sigma):
        return _profile(eps, math.exp(log_sigma), sensitivity) - delta

    lo = hi = math.log(sensitivity)
    while excess(lo) <= 0.0:
        lo -= 1.0
    while excess(hi) > 0.0:
        hi += 1.0
    return math.exp(optimize.brentq(excess, lo, hi, xtol=1e-14, rtol=1e-14))


@dataclass(frozen=True)
class Gaussian(ScalarMechanism):
    """y = x + N(0, sigma^2) on [-1, 1], calibrated for (eps, delta) with L2 sensitivity ``sensitivity``.

    With the default sensitivity 2 (the width of [-1, 1]) this is ppgnn M2 with the sensitivity the paper's
    formula omits (E1). Sampled compositions pass a larger sensitivity when one sigma protects a whole vector.
    """

    delta: float = 1e-5
    calibration: str = "analytic"
    sensitivity: float = 2.0
    sigma: float = field(init=False)

    name = "gaussian"
    reference = "ppgnn M2 (Sec. II-D2, sensitivity corrected per E1); analytic form: lpgnn M5 (Balle & Wang 2018)"

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "delta", check_open_unit(self.delta, "delta"))
        check_choice(self.calibration, "calibration", CALIBRATIONS)
        object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))
        calibrate = analytic_sigma if self.calibration == "analytic" else classical_sigma
        object.__setattr__(self, "sigma", calibrate(self.eps, self.delta, float(self.sensitivity)))

    def _sample(self, x, rng):
        return x + self.sigma * rng.standard_normal(x.shape)

    def _law(self, x):
        return Smooth(stats.norm, float(x), self.sigma)

    def _report_mean(self, x):
        return np.asarray(x, dtype=np.float64)

    def _report_var(self, x):
        return np.full_like(np.asarray(x, dtype=np.float64), self.sigma**2)

    @property
    def gdp_mu(self) -> float:
        """The claimed Gaussian-DP parameter, sensitivity / sigma (Dong, Roth & Su 2022, Theorem 2.7)."""
        return float(self.sensitivity) / self.sigma

    @property
    def privacy_curve(self) -> GaussianCurve:
        """The claimed privacy curve: the exact profile of this sigma and sensitivity (Balle & Wang 2018, Thm 8),
        equal to the mu-GDP curve at :attr:`gdp_mu`."""
        return GaussianCurve(self.gdp_mu)

    def params(self):
        return {"eps": self.eps, "delta": self.delta, "calibration": self.calibration}
