"""Subset selection (Ye & Barg, IEEE Trans. Inf. Theory 2018, "Optimal schemes for discrete distribution
estimation under locally differential privacy"; Wang et al., arXiv 1602.07387, 2016, "Mutual information
optimally local private discrete distribution estimation").

The client reports a subset S of size d of the k items, d = round(k / (e^eps + 1)) clamped to [1, k - 1], with
P(S | x) = e^eps / Z when x in S and 1 / Z otherwise, Z = C(k-1, d-1) e^eps + C(k-1, d). Equivalently: x is in S
with probability p* = d e^eps / (d e^eps + k - d), and the other d - 1 (or d) members are uniform among the
k - 1 other items. The report is the (n, k) 0/1 indicator of S (its law is written from p*, so the sampler, the law and the
estimator share one constant); it supports v when v in S, with
q* = (p* (d - 1) + (1 - p*) d) / (k - 1) for v != x.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .base import FrequencyOracle, exchangeable_classes, log_comb


def subset_size(k: int, eps: float) -> int:
    """d = k / (e^eps + 1), rounded and clamped to [1, k - 1] (Ye & Barg 2018, Sec. III)."""
    return int(min(max(round(k / (1.0 + math.exp(min(eps, 50.0)))), 1), k - 1))


@dataclass(frozen=True)
class SubsetSelection(FrequencyOracle):
    name = "ss"
    reference = "Ye & Barg 2018 / Wang et al. 2016 subset selection"

    @property
    def size(self) -> int:
        return subset_size(self.k, self.eps)

    def inclusion(self) -> tuple[float, float]:
        """(p*, 1 - p*): x in S with d e^eps / (d e^eps + k - d), both computed from e^-eps."""
        d, k = self.size, self.k
        tail = (k - d) * math.exp(-self.eps)
        return d / (d + tail), tail / (d + tail)

    def support_probabilities(self):
        p, not_p = self.inclusion()
        d = self.size
        return p, (p * (d - 1) + not_p * d) / (self.k - 1)

    def _perturb(self, x, rng):
        d, n = self.size, x.size
        p, _ = self.inclusion()
        rows = np.arange(n)
        keys = rng.random((n, self.k))
        keys[rows, x] = 2.0  # x is never among the d smallest keys of the others
        chosen = np.argpartition(keys, d - 1, axis=1)[:, :d]  # the d smallest: a uniform d-subset of the others
        include = rng.random(n) < p
        # with x in S: drop the largest-keyed of the d (a uniform (d-1)-subset remains) and add x
        largest = np.argmax(np.take_along_axis(keys, chosen, axis=1), axis=1)
        chosen[rows, largest] = np.where(include, x, chosen[rows, largest])
        bits = np.zeros((n, self.k), dtype=np.uint8)
        bits[rows[:, None], chosen] = 1
        return bits

    def _check_report_values(self, reports):
        """0/1 indicators (any number of ones: the law's classes, sizes other than d included, are read too)."""
        self._check_bits(reports)

    def support_matrix(self, reports):
        return np.asarray(reports) == 1

    def _report_loglik(self, values, x):
        """log P(S | x): x in S with probability p*, the rest of S uniform: p* / C(k-1, d-1) for S holding x,
        (1 - p*) / C(k-1, d) for the others (= e^eps / Z and 1 / Z)."""
        d, k = self.size, self.k
        p, not_p = self.inclusion()
        bits = np.asarray(values, dtype=np.float64).reshape(np.shape(values)[0], -1)
        valid = np.all((bits == 0.0) | (bits == 1.0), axis=1) & (bits.sum(axis=1) == d)
        with np.errstate(divide="ignore"):
            holding, other = np.log(p) - log_comb(k - 1, d - 1), np.log(not_p) - log_comb(k - 1, d)
        ll = np.where(bits[:, int(x)] == 1.0, holding, other)
        return np.where(valid, ll, -np.inf)

    def _law_classes(self, x1, x0):
        """Subsets by (x1 in S, x0 in S, how many others): sizes other than d get probability 0 from the law."""
        others = np.setdiff1d(np.arange(self.k), [x1, x0])
        yield exchangeable_classes(self.k, [np.array([x1]), np.array([x0]), others])
