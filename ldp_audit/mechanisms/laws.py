"""Exact output laws of the mechanisms: the ground truth that the audits talk to.

A law is the distribution of ONE coordinate's report given its input. Like a frozen ``scipy.stats``
distribution it offers ``cdf``, ``density`` (of the continuous part), ``atoms`` (point masses), ``mean``,
``var``, ``sample`` and ``prob`` of intervals, plus what a privacy audit needs: the ``breakpoints`` where
the density changes, so that density ratios can be maximised exactly.

Four shapes cover every mechanism of the five papers:

* :class:`PiecewiseUniform` — piecewise-constant densities (Square Wave, Piecewise);
* :class:`Discrete` — finitely many atoms (one-bit, multi-bit, randomized response, ESW);
* :class:`Smooth` — a scipy continuous distribution (Laplace, Gaussian);
* :class:`Mixture` — a weighted mixture, e.g. "0 with probability 1 - k/d, else the coordinate mechanism"
  for sampled high-dimensional mechanisms.

Each law can be pushed through an affine map ``y -> scale * y + shift`` (``affine``), which turns a report
law into the law of the server's estimate.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cached_property

import numpy as np


class Law(ABC):
    """Distribution of one report coordinate."""

    @property
    @abstractmethod
    def support(self) -> tuple[float, float]:
        """Smallest interval [lo, hi] holding all the mass (may be infinite)."""

    @abstractmethod
    def cdf(self, y) -> np.ndarray:
        """P(Y <= y), elementwise."""

    @abstractmethod
    def density(self, y) -> np.ndarray:
        """Density of the absolutely continuous part at y (0 for purely discrete laws)."""

    @property
    @abstractmethod
    def atoms(self) -> tuple[np.ndarray, np.ndarray]:
        """(values, probabilities) of the point masses; empty arrays for continuous laws."""

    @abstractmethod
    def moment(self, order: int) -> float:
        """Raw moment E[Y^order] for order 1 or 2 (4 where available)."""

    @abstractmethod
    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n independent draws (a reference sampler, independent of the mechanism's fast ``perturb``)."""

    @abstractmethod
    def affine(self, scale: float, shift: float = 0.0) -> "Law":
        """Law of scale * Y + shift."""

    @property
    def breakpoints(self) -> np.ndarray:
        """Points where the density or the cdf is not smooth (edges of pieces, atoms)."""
        return np.sort(self.atoms[0])

    def continuous_quantiles(self, levels) -> np.ndarray:
        """Quantiles of the continuous part at the given levels (empty for purely discrete laws); used to cut
        unbounded supports into cells of comparable mass."""
        return np.empty(0)

    @property
    def continuous_mass(self) -> float:
        """1 - the atoms' mass; round-off of a purely discrete law (|1 - sum| <= ``ROUND_OFF``) is 0, so that a
        law of many atoms never gets interval cells made of round-off (GRR with c = 200)."""
        mass = 1.0 - float(np.sum(self.atoms[1]))
        return mass if mass > ROUND_OFF else 0.0

    def mean(self) -> float:
        return self.moment(1)

    @abstractmethod
    def var(self) -> float:
        """Second moment about the mean, computed from centred values (no m2 - m1^2 cancellation)."""

    def prob(self, lo, hi) -> np.ndarray:
        """P(lo < Y <= hi), elementwise."""
        return np.asarray(self.cdf(hi)) - np.asarray(self.cdf(lo))

    def total_mass(self) -> float:
        """Mass of the density integrated numerically plus the atoms: 1 for a valid law (audited)."""
        return self.continuous_integral() + float(np.sum(self.atoms[1]))

    @abstractmethod
    def continuous_integral(self) -> float:
        """Integral of ``density`` over the support, computed from the density itself (not from ``cdf``)."""


#: Mass below which the continuous part of a law is floating-point round-off of its atoms' sum.
ROUND_OFF = 1e-12


@dataclass(frozen=True, eq=False)
class PiecewiseUniform(Law):
    """Density ``masses[i] / (edges[i+1] - edges[i])`` on each piece [edges[i], edges[i+1])."""

    edges: np.ndarray
    masses: np.ndarray

    def __post_init__(self):
        edges = np.asarray(self.edges, dtype=np.float64)
        masses = np.asarray(self.masses, dtype=np.float64)
        keep = np.diff(edges) > 0  # drop zero-width pieces (they carry no mass)
        if np.any(masses[~keep] > 0):
            raise ValueError("a zero-width piece cannot carry mass")
        edges = np.concatenate([edges[:-1][keep], edges[-1:]])
        object.__setattr__(self, "edges", edges)
        object.__setattr__(self, "masses", masses[keep])
        object.__setattr__(self, "_cum", np.concatenate([[0.0], np.cumsum(self.masses)]))

    @property
    def support(self):
        return float(self.edges[0]), float(self.edges[-1])

    @property
    def heights(self) -> np.ndarray:
        return self.masses / np.diff(self.edges)

    def cdf(self, y):
        return np.interp(y, self.edges, self._cum, left=0.0, right=float(self._cum[-1]))

    def density(self, y):
        y = np.asarray(y, dtype=np.float64)
        piece = np.searchsorted(self.edges, y, side="right") - 1
        inside = (piece >= 0) & (piece < len(self.masses))
        return np.where(inside, self.heights[np.clip(piece, 0, len(self.masses) - 1)], 0.0)

    @property
    def atoms(self):
        return np.empty(0), np.empty(0)

    @property
    def breakpoints(self):
        return self.edges.copy()

    def moment(self, order):
        a, b = self.edges[:-1], self.edges[1:]
        # E[Y^k] on a uniform piece [a, b) is (b^(k+1) - a^(k+1)) / ((k+1)(b - a)) = sum_i a^i b^(k-i) / (k+1),
        # the second form free of cancellation on narrow pieces
        per_piece = sum(a**i * b ** (order - i) for i in range(order + 1)) / (order + 1)
        return float(np.dot(self.masses, per_piece))

    def continuous_integral(self):
        return float(np.sum(self.heights * np.diff(self.edges)))

    def var(self):
        mean = self.mean()
        a, b = self.edges[:-1] - mean, self.edges[1:] - mean
        return float(np.dot(self.masses, (a * a + a * b + b * b) / 3.0))

    def sample(self, n, rng):
        return np.interp(rng.random(n) * self._cum[-1], self._cum, self.edges)

    def continuous_quantiles(self, levels):
        return np.interp(np.asarray(levels) * self._cum[-1], self._cum, self.edges)

    def affine(self, scale, shift=0.0):
        if scale == 0:
            return Discrete(np.array([shift]), np.array([1.0]))
        edges, masses = self.edges * scale + shift, self.masses
        if scale < 0:
            edges, masses = edges[::-1], masses[::-1]
        return PiecewiseUniform(edges, masses)


@dataclass(frozen=True, eq=False)
class Discrete(Law):
    """Point masses ``probs[i]`` at ``values[i]``."""

    values: np.ndarray
    probs: np.ndarray

    def __post_init__(self):
        values = np.asarray(self.values, dtype=np.float64)
        probs = np.asarray(self.probs, dtype=np.float64)
        order = np.argsort(values, kind="stable")
        values, probs = values[order], probs[order]
        unique, inverse = np.unique(values, return_inverse=True)  # merge equal values
        merged = np.bincount(inverse, weights=probs, minlength=len(unique))
        object.__setattr__(self, "values", unique)
        object.__setattr__(self, "probs", merged)

    @property
    def support(self):
        return float(self.values[0]), float(self.values[-1])

    def cdf(self, y):
        cum = np.concatenate([[0.0], np.cumsum(self.probs)])
        return cum[np.searchsorted(self.values, np.asarray(y, dtype=np.float64), side="right")]

    def density(self, y):
        return np.zeros_like(np.asarray(y, dtype=np.float64))

    def pmf(self, y):
        y = np.asarray(y, dtype=np.float64)
        idx = np.clip(np.searchsorted(self.values, y), 0, len(self.values) - 1)
        return np.where(self.values[idx] == y, self.probs[idx], 0.0)

    @property
    def atoms(self):
        return self.values.copy(), self.probs.copy()

    def moment(self, order):
        return float(np.dot(self.probs, self.values**order))

    def continuous_integral(self):
        return 0.0

    def var(self):
        return float(np.dot(self.probs, (self.values - self.mean()) ** 2))

    def sample(self, n, rng):
        cum = np.cumsum(self.probs)
        idx = np.searchsorted(cum, rng.random(n) * cum[-1], side="right")
        return self.values[np.minimum(idx, len(self.values) - 1)]

    def affine(self, scale, shift=0.0):
        return Discrete(self.values * scale + shift, self.probs)


@dataclass(frozen=True, eq=False)
class Smooth(Law):
    """A location-scale continuous law from ``scipy.stats`` (``family`` is e.g. ``scipy.stats.laplace``)."""

    family: object
    loc: float
    scale: float

    @cached_property
    def _frozen(self):
        return self.family(loc=self.loc, scale=self.scale)

    @property
    def support(self):
        lo, hi = self._frozen.support()
        return float(lo), float(hi)

    def cdf(self, y):
        return self._frozen.cdf(y)

    def density(self, y):
        return self._frozen.pdf(y)

    def logdensity(self, y):
        return self._frozen.logpdf(y)

    @property
    def atoms(self):
        return np.empty(0), np.empty(0)

    @property
    def breakpoints(self):
        return np.array([self.loc])

    def moment(self, order):
        return float(self._frozen.moment(order))

    def var(self):
        return float(self._frozen.var())

    def continuous_integral(self):
        from scipy.integrate import quad

        lo, hi = self.loc - 60 * self.scale, self.loc + 60 * self.scale
        body = quad(self.density, lo, self.loc, limit=200)[0] + quad(self.density, self.loc, hi, limit=200)[0]
        return body + float(self.cdf(lo)) + float(1.0 - self.cdf(hi))

    def sample(self, n, rng):
        return self._frozen.rvs(size=n, random_state=rng)

    def continuous_quantiles(self, levels):
        return self._frozen.ppf(levels)

    def affine(self, scale, shift=0.0):
        if scale == 0:
            return Discrete(np.array([shift]), np.array([1.0]))
        return Smooth(self.family, self.loc * scale + shift, self.scale * abs(scale))


@dataclass(frozen=True, eq=False)
class Mixture(Law):
    """``weights[i]`` times ``components[i]``; weights sum to 1."""

    components: tuple[Law, ...]
    weights: tuple[float, ...]

    @property
    def support(self):
        los, his = zip(*(c.support for c, w in zip(self.components, self.weights) if w > 0))
        return float(min(los)), float(max(his))

    def cdf(self, y):
        return sum(w * np.asarray(c.cdf(y)) for c, w in zip(self.components, self.weights))

    def density(self, y):
        return sum(w * np.asarray(c.density(y)) for c, w in zip(self.components, self.weights))

    @property
    def atoms(self):
        values = [c.atoms[0] for c in self.components]
        probs = [w * c.atoms[1] for c, w in zip(self.components, self.weights)]
        merged = Discrete(np.concatenate(values), np.concatenate(probs)) if sum(map(len, values)) else None
        return (merged.values, merged.probs) if merged is not None else (np.empty(0), np.empty(0))

    @property
    def breakpoints(self):
        return np.unique(np.concatenate([c.breakpoints for c in self.components]))

    def moment(self, order):
        return float(sum(w * c.moment(order) for c, w in zip(self.components, self.weights)))

    def continuous_integral(self):
        return float(sum(w * c.continuous_integral() for c, w in zip(self.components, self.weights)))

    def var(self):
        """Law of total variance: within-component variances plus the spread of the component means."""
        mean = self.mean()
        return float(sum(w * (c.var() + (c.mean() - mean) ** 2) for c, w in zip(self.components, self.weights)))

    def sample(self, n, rng):
        which = rng.choice(len(self.components), size=n, p=np.asarray(self.weights) / np.sum(self.weights))
        out = np.empty(n)
        for i, component in enumerate(self.components):
            chosen = which == i
            out[chosen] = component.sample(int(chosen.sum()), rng)
        return out

    def continuous_quantiles(self, levels):
        return np.concatenate([c.continuous_quantiles(levels) for c in self.components])

    def affine(self, scale, shift=0.0):
        return Mixture(tuple(c.affine(scale, shift) for c in self.components), self.weights)


def point_mass(value: float = 0.0) -> Discrete:
    return Discrete(np.array([value]), np.array([1.0]))
