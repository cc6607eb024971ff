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
from .validation import MAX_CATEGORIES, as_values, check_int


def _keep_or_jump(u, x, keep_mass, jump_mass, n_other, width, first):
    """Shared one-uniform sampler of randomized response and ESW.

    The top ``keep_mass`` of [0, 1) maps uniformly onto the ``width`` high-probability categories starting at x;
    the rest maps uniformly onto the ``n_other`` remaining categories (counted from ``first``, skipping the block).
    """
    out = u * (n_other / jump_mass)
    in_block = out >= n_other
    np.floor(out, out=out)
    out += first
    out += width * (out >= x)
    if width == 1:
        np.copyto(out, np.broadcast_to(x, out.shape), where=in_block)
        return out
    block = u - jump_mass
    block *= width / keep_mass
    np.floor(block, out=block)
    np.minimum(block, width - 1, out=block)
    block += x
    np.copyto(out, block, where=in_block)
    return out


@dataclass(frozen=True)
class RandomizedResponse(ScalarMechanism):
    """k-ary randomized response on categories {0, ..., c-1}: keep with p = e^eps/(e^eps + c - 1), else a uniform
    other category with q = 1/(e^eps + c - 1); p/q = e^eps (lpgnn B2, used for labels)."""

    c: int = 2

    name = "grr"
    reference = "lpgnn Part B2 (randomized response on labels; authors' code)"

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "c", check_int(self.c, "c", 2, MAX_CATEGORIES))

    @property
    def domain(self):
        return 0.0, float(self.c - 1)

    @property
    def discrete_input(self):
        return True

    @property
    def audit_inputs(self):
        return np.unique(np.array([0.0, float(self.c // 2), float(self.c - 1)]))

    def checked_reports(self, reports, name: str = "reports") -> np.ndarray:
        """Reports as float64, each a category in {0..c-1}."""
        return as_values(reports, 0.0, float(self.c - 1), name, integer=True,
                         remedy=f"grr with c={self.c} reports the categories 0..{self.c - 1}")

    def probabilities(self) -> tuple[float, float]:
        """(p, q), computed from e^-eps so that large budgets do not overflow."""
        tail = math.exp(-self.eps)
        p = 1.0 / (1.0 + (self.c - 1) * tail)
        return p, tail * p

    def _sample(self, x, rng):
        p, q = self.probabilities()
        return _keep_or_jump(rng.random(x.shape), x, p, (self.c - 1) * q, self.c - 1, 1, 0.0)

    def _law(self, x):
        p, q = self.probabilities()
        probs = np.full(self.c, q)
        probs[int(x)] = p
        return Discrete(np.arange(self.c, dtype=np.float64), probs)

    def _report_mean(self, x):
        p, q = self.probabilities()
        x = np.asarray(x, dtype=np.float64)
        return q * (self.c * (self.c - 1) / 2.0 - x) + p * x

    def _report_var(self, x):
        """Computed from the offsets y - x, which only the q-weighted categories have (no cancellation)."""
        _, q = self.probabilities()
        x = np.asarray(x, dtype=np.float64)
        offsets = np.arange(self.c, dtype=np.float64)[None, :] - np.atleast_1d(x)[:, None]
        first, second = q * offsets.sum(1), q * (offsets**2).sum(1)
        return (second - first * first).reshape(x.shape)

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
        object.__setattr__(self, "f", check_int(self.f, "f", 2, MAX_CATEGORIES))

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

    def checked_reports(self, reports, name: str = "reports") -> np.ndarray:
        """Reports as float64, each an output level in {1..f + 2b}."""
        top = self.f + 2 * self.half_width
        return as_values(reports, 1.0, float(top), name, integer=True,
                         remedy=f"esw with f={self.f} at eps={self.eps:g} reports the levels 1..{top}")

    def probabilities(self) -> tuple[float, float]:
        tail = math.exp(-self.eps)
        p = 1.0 / ((2 * self.half_width + 1) + (self.f - 1) * tail)
        return p, tail * p

    def _sample(self, x, rng):
        p, q = self.probabilities()
        width = 2 * self.half_width + 1
        return _keep_or_jump(rng.random(x.shape), x, width * p, (self.f - 1) * q, self.f - 1, width, 1.0)

    def _law(self, x):
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

    def _report_mean(self, x):
        p, q = self.probabilities()
        window, total = self._sums(x, 1)
        return p * window + q * (total - window)

    def _report_var(self, x):
        """Computed from the offsets y - x (window offsets 0..2b, weight p; the rest, weight q), no cancellation."""
        p, q = self.probabilities()
        x = np.asarray(x, dtype=np.float64)
        outputs = np.arange(1, self.f + 2 * self.half_width + 1, dtype=np.float64)[None, :]
        offsets = outputs - np.atleast_1d(x)[:, None]
        weights = np.where((offsets >= 0) & (offsets <= 2 * self.half_width), p, q)
        first, second = (weights * offsets).sum(1), (weights * offsets**2).sum(1)
        return (second - first * first).reshape(x.shape)

    def params(self):
        return {"eps": self.eps, "f": self.f}
