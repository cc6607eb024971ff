"""Hadamard response (Acharya, Sun and Zhang, AISTATS 2019, "Hadamard response: estimating distributions
privately, efficiently, and with little communication"), the one-set version with K = 2^ceil(log2(k + 1)).

Item x owns row x + 1 of the K x K Sylvester-Hadamard matrix H (row 0, all ones, is skipped) and the set
C_x = {y : H[x + 1, y] = +1} = {y : popcount((x + 1) & y) even} of K/2 outputs. The client reports a uniform
element of C_x with probability e^eps / (e^eps + 1), else a uniform element of its complement: the report is one
integer in {0, ..., K-1}, of probability 2 e^eps / (K (e^eps + 1)) on C_x and 2 / (K (e^eps + 1)) elsewhere.
Rows of H are orthogonal, so |C_x & C_v| = K/4 for v != x: the report supports v (lies in C_v) with
q* = 1/2, and supports x with p* = e^eps / (e^eps + 1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .base import FrequencyOracle


def hadamard_order(k: int) -> int:
    """K = the smallest power of 2 above k (rows 1..k of H code the k items)."""
    return 1 << int(k).bit_length()


def in_set(y, items) -> np.ndarray:
    """y in C_v, i.e. H[v + 1, y] = +1 (broadcast over y and the items v)."""
    both = np.asarray(y).astype(np.uint64) & (np.asarray(items).astype(np.uint64) + np.uint64(1))
    return np.bitwise_count(both) % 2 == 0


@dataclass(frozen=True)
class HadamardResponse(FrequencyOracle):
    name = "hr"
    reference = "Acharya, Sun & Zhang 2019 Hadamard response (one set, K = 2^ceil(log2(k+1)))"

    @property
    def order(self) -> int:
        return hadamard_order(self.k)

    def report_probabilities(self) -> tuple[float, float]:
        """(P(y in C_x), P(y not in C_x)) = (e^eps, 1) / (e^eps + 1), both from e^-eps (no rounding to 1)."""
        inside = 1.0 / (1.0 + math.exp(-self.eps))
        return inside, math.exp(-self.eps) * inside

    def support_probabilities(self):
        return self.report_probabilities()[0], 0.5

    @property
    def report_width(self) -> None:
        """A report is one output y in {0..K-1}."""
        return None

    def _perturb(self, x, rng):
        """A uniform y in {0..K-1}, moved into C_x (or out of it) by flipping bit t, the lowest set bit of x + 1:
        flipping t changes the parity of popcount((x + 1) & y), a bijection between C_x and its complement."""
        p, _ = self.report_probabilities()
        y = rng.integers(0, self.order, size=x.size, dtype=np.int64)
        lowest = (x + 1) & -(x + 1)
        wanted = rng.random(x.size) < p
        return np.where(in_set(y, x) == wanted, y, y ^ lowest)

    def _check_report_values(self, reports):
        self._check_categories(reports, self.order - 1, "outputs")

    def support_matrix(self, reports):
        return in_set(np.asarray(reports).reshape(-1, 1), np.arange(self.k)[None, :])

    def _report_loglik(self, values, x):
        y = np.asarray(values).reshape(-1)
        inside, outside = self.report_probabilities()
        valid = (y >= 0) & (y < self.order) & (y == np.round(y))
        half = math.log(self.order / 2.0)
        ll = np.where(in_set(np.where(valid, y, 0), int(x)), math.log(inside), math.log(outside)) - half
        return np.where(valid, ll, -np.inf)

    def _law_classes(self, x1, x0):
        """Every output, each its own class (K <= 2k + 1 outputs)."""
        yield np.arange(self.order, dtype=np.int64), np.zeros(self.order)
