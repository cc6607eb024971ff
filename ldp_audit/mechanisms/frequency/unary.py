"""Unary and histogram encoding (Wang et al., USENIX Security 2017, Sections 4.2-4.3): the input becomes the
one-hot vector e_x of length k and every coordinate is perturbed independently.

* SUE (symmetric unary encoding, basic one-time RAPPOR): keep each bit with p = e^(eps/2) / (e^(eps/2) + 1),
  flip it otherwise (q = 1 - p);
* OUE (optimised unary encoding): p = 1/2, q = 1 / (e^eps + 1);
* THE (thresholding with histogram encoding): bit v = 1[e_x[v] + Lap(2/eps) > theta], theta in (1/2, 1) chosen
  to minimise the variance (Wang et al. 2017, Section 4.3);
* SHE (summation with histogram encoding): the report is e_x + Lap(2/eps)^k and the server sums it.

Under a bit-vector law the bits other than x1 and x0 have one law under both inputs, and the bits of one group
are exchangeable, so the law's classes for a pair are counted by ``exchangeable_classes``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from .base import FrequencyOracle, exchangeable_classes, one_hot


def _as_rows(values) -> np.ndarray:
    """Reports as (n, k) rows (one report may come as a flat vector)."""
    values = np.asarray(values)
    return values.reshape(values.shape[0], -1) if values.ndim != 2 else values


def bit_loglik(bits: np.ndarray, x: int, p: float, q: float, not_p: float, not_q: float) -> np.ndarray:
    """log P(bits | x) when bit x is Bernoulli(p) and every other bit Bernoulli(q), independently (``not_p`` and
    ``not_q`` are 1 - p and 1 - q, given separately so that a probability near 1 keeps its complement's digits);
    -inf for a row that is not a 0/1 vector."""
    bits = np.asarray(bits, dtype=np.float64)
    ones = bits.sum(axis=1)
    hit = bits[:, int(x)]
    with np.errstate(divide="ignore"):
        lq, l1q, lp, l1p = np.log(q), np.log(not_q), np.log(p), np.log(not_p)
    ll = ones * lq + (bits.shape[1] - ones) * l1q
    # bit x follows p, not q (written as a sum of the two branches, so a 0 * -inf never appears)
    ll = ll + np.where(hit == 1.0, lp - lq, l1p - l1q)
    valid = np.all((bits == 0.0) | (bits == 1.0), axis=1)
    return np.where(valid, ll, -np.inf)


@dataclass(frozen=True)
class BitVectorOracle(FrequencyOracle):
    """A report of k independent bits: bit x is 1 with p*, every other bit with q* (``support_probabilities``)."""

    def _perturb(self, x, rng):
        p, q = self.support_probabilities()
        u = rng.random((x.size, self.k))
        bits = u < q
        rows = np.arange(x.size)
        bits[rows, x] = u[rows, x] < p
        return bits.astype(np.uint8)

    def _check_report_values(self, reports):
        self._check_bits(reports)

    def support_complements(self) -> tuple[float, float]:
        """(1 - p*, 1 - q*); subclasses whose p* can be near 1 give them in a stable form."""
        p, q = self.support_probabilities()
        return 1.0 - p, 1.0 - q

    def support_matrix(self, reports):
        return np.asarray(reports) == 1

    def _report_loglik(self, values, x):
        return bit_loglik(_as_rows(values), x, *self.support_probabilities(), *self.support_complements())

    def _law_classes(self, x1, x0):
        others = np.setdiff1d(np.arange(self.k), [x1, x0])
        yield exchangeable_classes(self.k, [np.array([x1]), np.array([x0]), others])


@dataclass(frozen=True)
class SymmetricUnaryEncoding(BitVectorOracle):
    name = "sue"
    reference = "Wang et al. 2017 SUE (basic one-time RAPPOR), Sec. 4.2"

    def support_probabilities(self):
        p = 1.0 / (1.0 + math.exp(-0.5 * self.eps))
        return p, math.exp(-0.5 * self.eps) * p

    def support_complements(self):
        """Symmetric: 1 - p = q and 1 - q = p."""
        p, q = self.support_probabilities()
        return q, p


@dataclass(frozen=True)
class OptimisedUnaryEncoding(BitVectorOracle):
    name = "oue"
    reference = "Wang et al. 2017 OUE, Sec. 4.2"

    def support_probabilities(self):
        return 0.5, 1.0 / (1.0 + math.exp(self.eps))


def laplace_upper_tail(t: float, scale: float) -> float:
    """P(Lap(scale) > t), without cancellation on either side of 0."""
    return 0.5 * math.exp(-t / scale) if t >= 0 else -0.5 * math.expm1(t / scale) + 0.5


def the_probabilities(theta: float, scale: float) -> tuple[float, float]:
    """THE's (p*, q*) = (P(1 + Lap(scale) > theta), P(Lap(scale) > theta)) (Wang et al. 2017, Sec. 4.3)."""
    return laplace_upper_tail(theta - 1.0, scale), laplace_upper_tail(theta, scale)


def the_threshold(scale: float) -> float:
    """The theta in (1/2, 1) minimising THE's variance q*(1 - q*) / (p* - q*)^2 (Wang et al. 2017, Sec. 4.3)."""
    def variance(theta):
        p, q = the_probabilities(theta, scale)
        return q * (1.0 - q) / (p - q) ** 2
    return float(optimize.minimize_scalar(variance, bounds=(0.5, 1.0), method="bounded",
                                          options={"xatol": 1e-10}).x)


@dataclass(frozen=True)
class ThresholdHistogramEncoding(BitVectorOracle):
    name = "the"
    reference = "Wang et al. 2017 THE (thresholding with histogram encoding), Sec. 4.3"

    @property
    def noise_scale(self) -> float:
        """Laplace scale of each coordinate: sensitivity 2 of e_x in L1 over eps."""
        return 2.0 / self.eps

    @property
    def threshold(self) -> float:
        return the_threshold(self.noise_scale)

    def support_probabilities(self):
        return the_probabilities(self.threshold, self.noise_scale)

    def support_complements(self):
        """(P(1 + Lap <= theta), P(Lap <= theta)): the lower tails, computed as tails."""
        theta, scale = self.threshold, self.noise_scale
        return laplace_upper_tail(1.0 - theta, scale), laplace_upper_tail(-theta, scale)

    def _perturb(self, x, rng):
        noisy = one_hot(x, self.k) + rng.laplace(0.0, self.noise_scale, (x.size, self.k))
        return (noisy > self.threshold).astype(np.uint8)


@dataclass(frozen=True)
class SummationHistogramEncoding(FrequencyOracle):
    """SHE: e_x + Lap(2/eps) on every coordinate; the per-report estimate is the report itself, of variance
    2 (2/eps)^2 = 8/eps^2 (Wang et al. 2017, Sec. 4.3). Not a pure protocol: no report "supports" an item."""

    name = "she"
    reference = "Wang et al. 2017 SHE (summation with histogram encoding), Sec. 4.3"
    supports = None

    @property
    def noise_scale(self) -> float:
        return 2.0 / self.eps

    def _perturb(self, x, rng):
        return one_hot(x, self.k) + rng.laplace(0.0, self.noise_scale, (x.size, self.k))

    def _report_loglik(self, values, x):
        y = np.asarray(_as_rows(values), dtype=np.float64)
        b = self.noise_scale
        return -self.k * math.log(2.0 * b) - np.abs(y - one_hot(x, self.k)).sum(axis=1) / b

    def _law_classes(self, x1, x0):
        """A continuous law has no finite classes: the one representative e_x1 attains the supremum of the
        likelihood ratio (each Laplace log ratio |y - mu0| - |y - mu1| is largest at y = mu1, coordinatewise)."""
        yield one_hot(np.array([x1]), self.k), None

    def estimate(self, reports):
        return self.checked_reports(reports).astype(np.float64)

    def estimate_var(self, x):
        return np.full(self.categories_of(x).shape + (self.k,), 2.0 * self.noise_scale**2)
