"""RAPPOR with cohorts (Erlingsson, Pihur & Korolova, CCS 2014), one report per user.

Each client belongs to a uniform cohort c in {0, ..., cohorts - 1}. The cohort's public, seeded Bloom map sends
item v to h bits of an m = h k bit filter (the cohort's seeded permutation of the m positions, cut into blocks of
h: a collision-free Bloom filter, so the per-report estimator below is exactly unbiased; a colliding filter needs
RAPPOR's regression decoder instead). The client then applies

* the permanent randomized response: each bit is set to 1 with probability f/2, to 0 with f/2, kept otherwise;
* the instantaneous randomized response: report 1 with probability q where the permanent bit is 1, p where 0.

A reported bit is 1 with q* = (1 - f/2) q + (f/2) p on x's h bits and p* = (f/2) q + (1 - f/2) p elsewhere
(Erlingsson et al. 2014, Sec. 3), independently given the cohort. One report costs
eps = h log(q*(1 - p*) / (p*(1 - q*))) (ibid., Theorem 2 for eps_1): x and x' differ on 2h bits. Here p = 1 - q,
so p* = 1 - q*, and the budget fixes q* = 1 / (1 + e^(-eps/(2h))); f sets how much of the noise is permanent,
f in [0, 2(1 - q*)] (parameter ``prr``; default: half of that), and q = (q* - f/2) / (1 - f).

The report is an (n, 1 + m) int32 array [cohort, bits]. The server reads item v from its h bits in the report's
cohort: est_v = mean over those bits of (bit - p*) / (q* - p*), unbiased for 1[v = x], of variance
p* q* / (h (q* - p*)^2). ``supports`` says whether all h bits of v are set (the count a server tallies for v).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .base import FrequencyOracle, exchangeable_classes
from ..validation import check_int

#: Public seed of the cohorts' Bloom maps.
BLOOM_SEED = 0x5AB0
#: Most bits per report accepted (h k).
MAX_BITS = 1 << 14


def rappor_rates(eps: float, hashes: int) -> tuple[float, float]:
    """(q*, p*) with p* = 1 - q*, such that hashes * log(q*(1-p*)/(p*(1-q*))) = eps."""
    q_star = 1.0 / (1.0 + math.exp(-eps / (2.0 * hashes)))
    return q_star, math.exp(-eps / (2.0 * hashes)) * q_star


@dataclass(frozen=True)
class Rappor(FrequencyOracle):
    h: int = 2
    cohorts: int = 8
    prr: float | None = None

    name = "rappor"
    reference = "Erlingsson, Pihur & Korolova 2014 RAPPOR (cohorts, one report)"

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "h", check_int(self.h, "h", 1, 64))
        object.__setattr__(self, "cohorts", check_int(self.cohorts, "cohorts", 1, 4096))
        if self.h * self.k > MAX_BITS:
            raise ValueError(f"h * k (the Bloom filter's bits) must be at most {MAX_BITS}, got {self.h * self.k}")
        top = self.max_f
        f = 0.5 * top if self.prr is None else self.prr
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not (0.0 <= float(f) <= top):
            raise ValueError(f"prr (RAPPOR's f) must be a real number in [0, {top:.6g}] (= 2 / (1 + e^(eps/(2h))) at "
                             f"eps={self.eps:g}, h={self.h}: more permanent noise than the budget allows), got {f!r}")
        object.__setattr__(self, "prr", float(f))

    @property
    def f(self) -> float:
        """Erlingsson et al.'s f: the probability that the permanent response replaces a Bloom bit by a coin."""
        return self.prr

    @property
    def max_f(self) -> float:
        return 2.0 * (1.0 - rappor_rates(self.eps, self.h)[0])

    @property
    def bits(self) -> int:
        return self.h * self.k

    def params(self):
        return {"eps": self.eps, "k": self.k, "h": self.h, "cohorts": self.cohorts, "prr": self.prr}

    @cached_property
    def positions(self) -> np.ndarray:
        """(cohorts, k, h): the Bloom bits of item v in cohort c (a public, seeded function of c)."""
        return np.stack([np.random.default_rng([BLOOM_SEED, c]).permutation(self.bits).reshape(self.k, self.h)
                         for c in range(self.cohorts)])

    def support_probabilities(self):
        """(q*, p*): a reported bit is 1 with q* on the item's bits, p* elsewhere."""
        return rappor_rates(self.eps, self.h)

    def instantaneous(self) -> tuple[float, float]:
        """(q, p) of the instantaneous randomized response, given the declared f (``prr``)."""
        q_star, _ = self.support_probabilities()
        q = min(1.0, (q_star - 0.5 * self.prr) / (1.0 - self.prr))
        return q, 1.0 - q

    def _perturb(self, x, rng):
        n = x.size
        cohort = rng.integers(0, self.cohorts, size=n)
        bloom = np.zeros((n, self.bits), dtype=bool)
        bloom[np.arange(n)[:, None], self.positions[cohort, x]] = True
        u = rng.random((n, self.bits))
        permanent = np.where(u < 0.5 * self.f, True, np.where(u < self.f, False, bloom))
        q, p = self.instantaneous()
        reported = rng.random((n, self.bits)) < np.where(permanent, q, p)
        return np.column_stack([cohort, reported]).astype(np.int32)

    @property
    def report_width(self) -> int:
        """A report is [cohort, h k bits]."""
        return 1 + self.bits

    def checked_reports(self, reports) -> np.ndarray:
        """As the base checks them, and each cohort id in [0, cohorts - 1] (it indexes the public Bloom maps)."""
        arr = super().checked_reports(reports)
        cohort = arr[:, 0]
        if arr.size and not (np.all(cohort == np.round(cohort)) and 0 <= cohort.min() and cohort.max() < self.cohorts):
            raise ValueError(f"reports' first column (the cohort) must hold integers in [0, {self.cohorts - 1}], got "
                             f"values in [{cohort.min():g}, {cohort.max():g}]")
        return arr

    def _check_report_values(self, reports):
        self._check_bits(reports[:, 1:])

    def key(self, reports) -> np.ndarray:
        """The public cohort id of each report."""
        return self.checked_reports(reports)[:, 0].astype(np.int64)

    def _item_bits(self, reports) -> np.ndarray:
        """(n, k, h): each report's bits at every item's Bloom positions in its cohort."""
        reports = np.asarray(reports)
        n = len(reports)
        where = self.positions[reports[:, 0].astype(np.int64)].reshape(n, -1)
        return np.take_along_axis(reports[:, 1:], where, axis=1).reshape(n, self.k, self.h)

    def support_matrix(self, reports):
        return np.all(self._item_bits(reports) == 1, axis=2)

    def estimate(self, reports):
        q_star, p_star = self.support_probabilities()
        return (self._item_bits(self.checked_reports(reports)).mean(axis=2) - p_star) / (q_star - p_star)

    def estimate_var(self, x):
        q_star, p_star = self.support_probabilities()
        return np.full(self.categories_of(x).shape + (self.k,), p_star * q_star / (self.h * (q_star - p_star) ** 2))

    def _report_loglik(self, values, x):
        values = np.asarray(values)
        cohort = values[:, 0]
        valid_cohort = (cohort >= 0) & (cohort < self.cohorts) & (cohort == np.round(cohort))
        bits = values[:, 1:].astype(np.float64)
        q_star, p_star = self.support_probabilities()
        ones = bits.sum(axis=1)
        # p* = 1 - q*, so log(1 - p*) = log q* and log(1 - q*) = log p* (no complement rounded near 1)
        lq, lp = math.log(q_star), math.log(p_star)
        ll = ones * lp + (self.bits - ones) * lq - math.log(self.cohorts)
        own = np.take_along_axis(bits, self.positions[np.where(valid_cohort, cohort, 0).astype(np.int64), int(x)],
                                 axis=1)
        ll = ll + (own * (lq - lp) + (1.0 - own) * (lp - lq)).sum(1)
        valid = valid_cohort & np.all((bits == 0.0) | (bits == 1.0), axis=1)
        return np.where(valid, ll, -np.inf)

    def _law_classes(self, x1, x0):
        """Per cohort: reports by the number of ones among x1's bits, x0's bits and the others (each group's bits
        are exchangeable under both inputs)."""
        for c in range(self.cohorts):
            own1, own0 = self.positions[c, x1], self.positions[c, x0]
            others = np.setdiff1d(np.arange(self.bits), np.concatenate([own1, own0]))
            values, log_counts = exchangeable_classes(self.bits, [own1, own0, others], offset=1)
            values = values.astype(np.int32)
            values[:, 0] = c
            yield values, log_counts
