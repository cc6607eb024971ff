"""A user's own LDP mechanisms, written without importing ldp_audit: what `ldp-audit verify` audits.

Two mechanisms, chosen by ``make(eps, mechanism=...)``:

* ``"krr"`` (default): k-ary randomized response on ratings {0, ..., k-1}. A user keeps their rating with
  probability p = e^eps / (e^eps + k - 1) and otherwise reports one of the k - 1 others uniformly, so
  P(y | x) / P(y | x') <= p / q = e^eps. The server estimates the mean rating without bias with
  (y - q k(k-1)/2) / (p - q).
* ``"bounded_laplace"``: a value in [-1, 1] plus Laplace noise of scale b = 2 / eps (sensitivity 2), resampled
  until it lands in [-B, B]. The density ratio of two inputs is e^(|x - x'| / b) C(x') / C(x), where C(x) is the
  Laplace mass of [-B, B] around x; its maximum is e^eps, reached at x = -1, x' = 1 where C(x) = C(x').

Each object declares the protocol attributes ldp_audit reads: ``eps``, ``domain``, ``sample(x, n, rng)``, the
output ``support`` and law (``pmf``, or ``pdf``/``cdf``), the claimed ``report_mean``/``report_var``, and for
k-RR an estimator with its ``estimate_var`` (its ``estimate_mean`` is x: the estimator claims to be unbiased).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import integrate


class KaryRR:
    """k-ary randomized response on categories {0, ..., k-1}."""

    def __init__(self, eps: float, k: int = 4):
        if not eps > 0:
            raise ValueError(f"eps must be positive, got {eps!r}")
        if int(k) != k or k < 2:
            raise ValueError(f"k must be an integer >= 2, got {k!r}")
        self.eps, self.k = float(eps), int(k)
        self.name = f"k-ary randomized response (k={self.k})"
        self.reference = "examples/my_mech.py KaryRR"
        self.domain = range(self.k)   # inputs: the categories
        self.support = range(self.k)  # reports: the categories
        self.p = 1.0 / (1.0 + (self.k - 1) * math.exp(-self.eps))
        self.q = (1.0 - self.p) / (self.k - 1)

    def sample(self, x, n, rng):
        keep = rng.random(n) < self.p
        other = rng.integers(0, self.k - 1, size=n)
        other = other + (other >= x)  # a uniform category other than x
        return np.where(keep, x, other)

    def pmf(self, y, x):
        return np.where(np.asarray(y) == x, self.p, self.q)

    def report_mean(self, x):
        total = self.k * (self.k - 1) / 2.0
        return self.p * x + self.q * (total - x)

    def report_var(self, x):
        squares = (self.k - 1) * self.k * (2 * self.k - 1) / 6.0
        second = self.p * x * x + self.q * (squares - x * x)
        return second - self.report_mean(x) ** 2

    def estimate(self, reports):
        total = self.k * (self.k - 1) / 2.0
        return (np.asarray(reports, dtype=float) - self.q * total) / (self.p - self.q)

    def estimate_var(self, x):
        return self.report_var(x) / (self.p - self.q) ** 2


class BoundedLaplace:
    """x in [-1, 1] plus Laplace(2 / eps) noise, resampled until it lies in [-bound, bound]."""

    def __init__(self, eps: float, bound: float = 3.0):
        if not eps > 0:
            raise ValueError(f"eps must be positive, got {eps!r}")
        if not bound >= 1.0:
            raise ValueError(f"bound must be >= 1 (the input range), got {bound!r}")
        self.eps, self.bound = float(eps), float(bound)
        self.scale = 2.0 / self.eps
        self.name = f"bounded Laplace (B={self.bound:g})"
        self.reference = "examples/my_mech.py BoundedLaplace"
        self.domain = (-1.0, 1.0)
        self.support = (-self.bound, self.bound)

    def _laplace_cdf(self, y, x):
        z = (np.asarray(y, dtype=float) - x) / self.scale
        return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(z, 0.0)))

    def _mass(self, x):
        """Laplace mass of [-bound, bound] around x (the normaliser of the truncated law)."""
        return self._laplace_cdf(self.bound, x) - self._laplace_cdf(-self.bound, x)

    def sample(self, x, n, rng):
        # inverse-cdf sampling of the truncated law: u uniform on [F(-B), F(B)], then the Laplace quantile of u
        lo = self._laplace_cdf(-self.bound, x)
        u = lo + self._mass(x) * rng.random(n)
        return x + self.scale * np.where(u < 0.5, np.log(2.0 * u), -np.log(2.0 * (1.0 - u)))

    def pdf(self, y, x):
        return np.exp(-np.abs(np.asarray(y, dtype=float) - x) / self.scale) / (2.0 * self.scale * self._mass(x))

    def cdf(self, y, x):
        lo = self._laplace_cdf(-self.bound, x)
        return np.clip((self._laplace_cdf(y, x) - lo) / self._mass(x), 0.0, 1.0)

    def report_mean(self, x):
        return integrate.quad(lambda y: y * self.pdf(y, x), -self.bound, self.bound, points=[x])[0]

    def report_var(self, x):
        second = integrate.quad(lambda y: y * y * self.pdf(y, x), -self.bound, self.bound, points=[x])[0]
        return second - self.report_mean(x) ** 2


def make(eps, mechanism: str = "krr", **params):
    """The factory `ldp-audit verify examples.my_mech:make --eps E [--param mechanism=bounded_laplace]` calls."""
    kinds = {"krr": KaryRR, "bounded_laplace": BoundedLaplace}
    if mechanism not in kinds:
        raise ValueError(f"mechanism must be one of {sorted(kinds)}, got {mechanism!r}")
    return kinds[mechanism](eps, **params)


def sample_only(x, n, rng, eps=1.0):
    """A black-box sampler: binary randomized response of x in {0, 1} (no law, no claims)."""
    keep = rng.random(n) < math.exp(eps) / (math.exp(eps) + 1.0)
    return np.where(keep, x, 1 - x)


def make_blackbox(eps):
    """A black-box mechanism: only a sampler, the claimed eps and the input domain."""
    return {"sample": lambda x, n, rng: sample_only(x, n, rng, eps), "eps": eps, "domain": [0, 1],
            "name": "binary randomized response (black-box)"}
