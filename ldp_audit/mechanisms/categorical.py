"""Mechanisms on finitely many categories: generalized randomized response (lpgnn Part B2) and the Extended
Square Wave on discrete privacy levels (ppgnn A3, Eq. 6, with the window corrected per erratum E3).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .base import ScalarMechanism
from .constants import sw_half_width
from .laws import Discrete
from .validation import check_int


def _keep_or_jump(u, x, keep_mass, jump_mass, n_other, skip_from, skip_width, first):
    """Shared sampler: with probability ``keep_mass`` return a uniform point of the high-probability block, else a
    uniform point among the ``n_other`` remaining categories. The block starts at ``skip_from`` and has
    ``skip_width`` categories; ``first`` is the smallest category."""
    in_block = u < keep_mass
    block = skip_from + np.minimum(np.floor(u / keep_mass * skip_width), skip_width - 1)
    rest = np.minimum(np.floor((u - keep_mass) / jump_mass * n_other), n_other - 1) + first
    rest = rest + skip_width * (rest >= skip_from)
    return np.where(in_block, block, rest)


@dataclass(frozen=True)
class RandomizedResponse(ScalarMechanism):
    """k-ary randomized response on categories {0, ..., c-1}: keep with p = e^eps/(e^eps + c - 1), else a uniform
    other category with q = 1/(e^eps + c - 1); p/q = e^eps (lpgnn B2, used for labels)."""

    c: int = 2

    name = "grr"
    reference = "lpgnn Part B2 (randomized response on labels; authors' code)"

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "c", check_int(self.c, "c", 2))

    @property
    def domain(self):
        return 0.0, float(self.c - 1)

    @property
    def discrete_input(self):
        return True

    @property
    def audit_inputs(self):
        return np.unique(np.array([0.0, float(self.c // 2), float(self.c - 1)]))

    def probabilities(self) -> tuple[float, float]:
        """(p, q), computed from e^-eps so that large budgets do not overflow."""
        tail = math.exp(-self.eps)
        p = 1.0 / (1.0 + (self.c - 1) * tail)
        return p, tail * p

    def _sample(self, x, rng):
        p, q = self.probabilities()
        return _keep_or_jump(rng.random(x.shape), x, p, (self.c - 1) * q, self.c - 1, x, 1, 0.0)

    def law(self, x):
        p, q = self.probabilities()
        probs = np.full(self.c, q)
        probs[int(x)] = p
        return Discrete(np.arange(self.c, dtype=np.float64), probs)

    def report_mean(self, x):
        p, q = self.probabilities()
        x = np.asarray(x, dtype=np.float64)
        return q * (self.c * (self.c - 1) / 2.0 - x) + p * x

    def report_var(self, x):
        p, q = self.probabilities()
        x = np.asarray(x, dtype=np.float64)
        squares = (self.c - 1) * self.c * (2 * self.c - 1) / 6.0
        mean = self.report_mean(x)
        return q * (squares - x * x) + p * x * x - mean * mean

    def params(self):
        return {"eps": self.eps, "c": self.c}


@dataclass(frozen=True)
class ExtendedSquareWaveLevels(ScalarMechanism):
    """Extended Square Wave on levels {1, ..., f} (ppgnn A3, Eq. 6), with the corrected window (E3).

    Half-width b = floor(beta(eps) f) with beta(eps) the unit-domain Square Wave half-width; output levels
    {1, ..., f + 2b}; probability p = e^eps/Z on the window {g, ..., g + 2b} and q = 1/Z elsewhere, with
    Z = (2b + 1) e^eps + f - 1. The printed window |g - g'| <= b does not sum to one (ldp_audit.papers.ppgnn).
    """

    f: int = 5

    name = "esw"
    reference = "ppgnn A3 (Eq. 6, window corrected per E3)"

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "f", check_int(self.f, "f", 2))

    @property
    def half_width(self) -> int:
        return int(math.floor(0.5 * sw_half_width(self.eps) * self.f))

    @property
    def domain(self):
        return 1.0, float(self.f)

    @property
    def discrete_input(self):
        return True

    @property
    def audit_inputs(self):
        return np.unique(np.array([1.0, float((self.f + 1) // 2), float(self.f)]))

    def probabilities(self) -> tuple[float, float]:
        tail = math.exp(-self.eps)
        p = 1.0 / ((2 * self.half_width + 1) + (self.f - 1) * tail)
        return p, tail * p

    def _sample(self, x, rng):
        p, q = self.probabilities()
        width = 2 * self.half_width + 1
        return _keep_or_jump(rng.random(x.shape), x, width * p, (self.f - 1) * q, self.f - 1, x, width, 1.0)

    def law(self, x):
        p, q = self.probabilities()
        outputs = np.arange(1, self.f + 2 * self.half_width + 1, dtype=np.float64)
        window = (outputs >= x) & (outputs <= x + 2 * self.half_width)
        return Discrete(outputs, np.where(window, p, q))

    def _sums(self, x, power):
        b = self.half_width
        x = np.asarray(x, dtype=np.float64)
        window = sum((x + i) ** power for i in range(2 * b + 1))
        total = float(np.sum(np.arange(1, self.f + 2 * b + 1, dtype=np.float64) ** power))
        return window, total

    def report_mean(self, x):
        p, q = self.probabilities()
        window, total = self._sums(x, 1)
        return p * window + q * (total - window)

    def report_var(self, x):
        p, q = self.probabilities()
        window, total = self._sums(x, 2)
        mean = self.report_mean(x)
        return p * window + q * (total - window) - mean * mean

    def params(self):
        return {"eps": self.eps, "f": self.f}
