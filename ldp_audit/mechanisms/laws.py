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
import math
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from scipy import stats

from .validation import (LAW_BYTES_PER_DRAW, MAX_MOMENT_ORDER, as_points, as_values, check_finite, check_int,
                         check_rng, check_sample_size)


class Law(ABC):
    """Distribution of one report coordinate.

    Like ``scipy.stats``, a shape implements primitives (``_cdf``, ``_density``, ``_moment``, ``_sample``,
    ``_affine``, and optionally ``_sf``, ``_prob``, ``_moment_about``, ``_continuous_quantiles``) on checked
    arguments; the public methods here check every argument once (:mod:`.validation`) and call them, so a bad
    argument is a ValueError naming it whatever the shape.
    """

    @property
    @abstractmethod
    def support(self) -> tuple[float, float]:
        """Smallest interval [lo, hi] holding all the mass (may be infinite)."""

    @property
    @abstractmethod
    def atoms(self) -> tuple[np.ndarray, np.ndarray]:
        """(values, probabilities) of the point masses; empty arrays for continuous laws."""

    @abstractmethod
    def var(self) -> float:
        """Second moment about the mean, computed from centred values (no m2 - m1^2 cancellation)."""

    @abstractmethod
    def continuous_integral(self) -> float:
        """Integral of ``density`` over the support, computed from the density itself (not from ``cdf``)."""

    # ----- primitives of a shape (arguments already checked) ---------------------------------------------------
    @abstractmethod
    def _cdf(self, y: np.ndarray):
        """P(Y <= y), elementwise."""

    @abstractmethod
    def _density(self, y: np.ndarray):
        """Density of the absolutely continuous part, elementwise."""

    @abstractmethod
    def _moment(self, order: int) -> float:
        """E[Y^order]."""

    @abstractmethod
    def _sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n independent draws."""

    @abstractmethod
    def _affine(self, scale: float, shift: float) -> "Law":
        """Law of scale * Y + shift (scale finite and non-zero)."""

    def _sf(self, y):
        return 1.0 - np.asarray(self._cdf(y))

    def _prob(self, lo, hi):
        upper = np.asarray(self._cdf(hi), dtype=np.float64)
        lower = np.asarray(self._cdf(lo), dtype=np.float64)
        from_top = np.asarray(self._sf(lo), dtype=np.float64) - np.asarray(self._sf(hi), dtype=np.float64)
        return np.where(upper <= 0.5, upper - lower, from_top)

    def _continuous_quantiles(self, levels: np.ndarray) -> np.ndarray:
        return np.empty(0)

    def _moment_about(self, center: float, order: int) -> float:
        from scipy.integrate import quad

        values, probs = self.atoms
        lo, hi = self.support
        body = quad(lambda y: (y - center) ** order * float(self._density(y)), lo, hi, limit=400)[0] \
            if self.continuous_mass > 0 else 0.0
        return float(np.dot(probs, (values - center) ** order)) + body

    # ----- the public face: checks, then the primitive ------------------------------------------------------------
    def cdf(self, y) -> np.ndarray:
        """P(Y <= y), elementwise (y real, +-inf allowed, NaN refused)."""
        return self._cdf(as_points(y, "y"))

    def sf(self, y) -> np.ndarray:
        """P(Y > y); the shapes below compute it from the upper tail, so that a far upper tail does not round to 0."""
        return self._sf(as_points(y, "y"))

    def density(self, y) -> np.ndarray:
        """Density of the absolutely continuous part at y (0 for purely discrete laws)."""
        return self._density(as_points(y, "y"))

    def prob(self, lo, hi) -> np.ndarray:
        """P(lo < Y <= hi), elementwise (lo <= hi): from the cdf in the lower half of the law, from ``sf`` in the
        upper half (an interval of mass e^-50 next to mass 1 survives; 1 - (1 - e^-50) is 0 in float64)."""
        lo, hi = as_points(lo, "lo"), as_points(hi, "hi")
        try:
            reversed_ = lo > hi
        except ValueError:
            raise ValueError(f"lo and hi must have shapes that broadcast together, got {lo.shape} and "
                             f"{hi.shape}") from None
        if np.any(reversed_):
            at = np.argwhere(np.atleast_1d(reversed_))[0]
            raise ValueError(f"lo must not exceed hi (the interval is (lo, hi]); {int(np.sum(reversed_))} pair(s) "
                             f"are reversed, e.g. lo={np.atleast_1d(np.broadcast_to(lo, reversed_.shape))[tuple(at)]:g}"
                             f", hi={np.atleast_1d(np.broadcast_to(hi, reversed_.shape))[tuple(at)]:g}")
        return self._prob(lo, hi)

    def moment(self, order: int) -> float:
        """Raw moment E[Y^order], order an integer in [0, MAX_MOMENT_ORDER]."""
        return self._moment(_order(order))

    def moment_about(self, center: float, order: int) -> float:
        """E[(Y - center)^order], computed from values already shifted by ``center`` (no cancellation of raw
        moments when the law is narrow around a distant point, e.g. a Square Wave window at large eps). The
        default integrates the density numerically over a bounded support; the shapes below are exact."""
        return self._moment_about(check_finite(center, "center"), _order(order))

    def sample(self, n: int, rng) -> np.ndarray:
        """n independent draws (a reference sampler, independent of the mechanism's fast ``perturb``)."""
        n = check_sample_size(n, "n", LAW_BYTES_PER_DRAW, "the law's reference sampler")
        return self._sample(n, check_rng(rng))

    def affine(self, scale: float, shift: float = 0.0) -> "Law":
        """Law of scale * Y + shift (scale finite and non-zero, shift finite)."""
        return self._affine(check_finite(scale, "scale", nonzero=True), check_finite(shift, "shift"))

    def continuous_quantiles(self, levels) -> np.ndarray:
        """Quantiles of the continuous part at the given levels in [0, 1] (empty for purely discrete laws); used to
        cut unbounded supports into cells of comparable mass."""
        return self._continuous_quantiles(as_values(levels, 0.0, 1.0, "levels", remedy="Levels are probabilities"))

    @property
    def breakpoints(self) -> np.ndarray:
        """Points where the density or the cdf is not smooth (edges of pieces, atoms)."""
        return np.sort(self.atoms[0])

    @property
    def continuous_mass(self) -> float:
        """1 - the atoms' mass; round-off of a purely discrete law (|1 - sum| <= ``ROUND_OFF``) is 0, so that a
        law of many atoms never gets interval cells made of round-off (GRR with c = 200)."""
        mass = 1.0 - float(np.sum(self.atoms[1]))
        return mass if mass > ROUND_OFF else 0.0

    def mean(self) -> float:
        return self._moment(1)

    @property
    def atom_widths(self) -> np.ndarray:
        """Per atom (in the order of ``atoms``): 0 for a true point mass, else the width of the uniform window it
        stands for, a window narrower than the float64 spacing at its position (a Square Wave or Piecewise window
        at large eps). Another law's mass on that window is its density there times the width (privacy ratios)."""
        return np.zeros(len(self.atoms[0]))

    def atom_mass(self, y, widths=None, rtol: float = 0.0) -> np.ndarray:
        """P(Y == y) for each of ``y``: the point mass of the atom at y, else 0, in O((m + a) log m), never a loop.

        ``rtol``: an atom within ``rtol * max(1, |y|)`` of y counts as at y (a report computed along another float
        path than the law's atoms). ``widths`` (see :func:`window_widths`): where one is positive, y stands for a
        sub-float window of that width, and a law with no atom there has its density times the width there (its
        left limit at the right end of a support, where the window of the top input lies)."""
        y = as_points(y, "y")
        rtol = check_finite(rtol, "rtol")
        if rtol < 0:
            raise ValueError(f"rtol must be a finite number >= 0, got {rtol!r}")
        mass = np.zeros(np.shape(y))
        if widths is not None:
            widths = as_values(widths, 0.0, math.inf, "widths", remedy="Widths are lengths >= 0")
            if np.any(widths > 0):
                density = np.asarray(self._density(y), dtype=float)
                density = np.where(density > 0, density,
                                   np.asarray(self._density(np.nextafter(y, -np.inf)), dtype=float))
                mass = density * widths
        values, probs = self.atoms
        if values.size == 0:
            return mass
        order = np.argsort(values, kind="stable")
        values, probs = values[order], probs[order]
        above = np.clip(np.searchsorted(values, y), 0, values.size - 1)
        for nearest in (np.maximum(above - 1, 0), above):  # the atoms either side of y; at rtol 0 only ``above``
            hit = (values[nearest] == y) | (np.abs(values[nearest] - y) <= rtol * np.maximum(1.0, np.abs(y)))
            mass = np.where(hit, probs[nearest], mass)
        return mass

    def atom_mass_between(self, edges) -> np.ndarray:
        """The atoms' mass inside each interval (edges[i], edges[i + 1]], from one cumulative sum; ``edges`` one
        dimensional and non-decreasing (+-inf allowed)."""
        edges = as_points(edges, "edges")
        if edges.ndim != 1:
            raise ValueError(f"edges must be a one-dimensional array of cell boundaries, got shape {edges.shape}")
        falls = np.flatnonzero(np.diff(edges) < 0)
        if falls.size:
            i = int(falls[0])
            raise ValueError(f"edges must be non-decreasing (cell boundaries in order); edges[{i}] = {edges[i]:g} > "
                             f"edges[{i + 1}] = {edges[i + 1]:g}")
        values, probs = self.atoms
        if values.size == 0:
            return np.zeros(max(edges.size - 1, 0))
        order = np.argsort(values, kind="stable")
        cum = np.concatenate([[0.0], np.cumsum(probs[order])])
        return np.diff(cum[np.searchsorted(values[order], edges, side="right")])

    def total_mass(self) -> float:
        """Mass of the density integrated numerically plus the atoms: 1 for a valid law (audited)."""
        return self.continuous_integral() + float(np.sum(self.atoms[1]))


def _order(order) -> int:
    return check_int(order, "order", 0, MAX_MOMENT_ORDER)


def window_widths(laws: list[Law], y: np.ndarray) -> np.ndarray:
    """The width of the sub-float window each of ``y`` stands for (``Law.atom_widths``), the largest any of
    ``laws`` gives: 0 where every law's atom there is a true point mass, or none has an atom there."""
    widths = np.zeros(np.shape(y))
    for law in laws:
        values, own = law.atoms[0], law.atom_widths
        if values.size:
            pos = np.clip(np.searchsorted(values, y), 0, values.size - 1)
            widths = np.maximum(widths, np.where(values[pos] == y, own[pos], 0.0))
    return widths


#: Mass below which the continuous part of a law is floating-point round-off of its atoms' sum.
ROUND_OFF = 1e-12


@dataclass(frozen=True, eq=False)
class PiecewiseUniform(Law):
    """Density ``masses[i] / widths[i]`` on each piece [edges[i], edges[i+1]).

    ``widths`` are the pieces' exact widths when the caller knows them better than the rounded edges do (a window
    of width 1e-11 at position 1 has edges good to 2e-16, i.e. a relative 1e-5: densities, and so privacy ratios,
    would be off by that much); by default the differences of the edges.
    """

    edges: np.ndarray
    masses: np.ndarray
    widths: np.ndarray | None = None

    def __post_init__(self):
        edges = np.asarray(self.edges, dtype=np.float64)
        masses = np.asarray(self.masses, dtype=np.float64)
        widths = np.diff(edges) if self.widths is None else np.asarray(self.widths, dtype=np.float64)
        keep = np.diff(edges) > 0  # drop zero-width pieces (they carry no mass)
        if np.any(masses[~keep] > 0):
            raise ValueError("a zero-width piece cannot carry mass")
        edges = np.concatenate([edges[:-1][keep], edges[-1:]])
        object.__setattr__(self, "edges", edges)
        object.__setattr__(self, "masses", masses[keep])
        object.__setattr__(self, "widths", widths[keep])
        object.__setattr__(self, "_cum", np.concatenate([[0.0], np.cumsum(self.masses)]))
        object.__setattr__(self, "_tail", np.concatenate([np.cumsum(self.masses[::-1])[::-1], [0.0]]))

    @property
    def support(self):
        return float(self.edges[0]), float(self.edges[-1])

    @property
    def heights(self) -> np.ndarray:
        return self.masses / self.widths

    def _cdf(self, y):
        return np.interp(y, self.edges, self._cum, left=0.0, right=float(self._cum[-1]))

    def _sf(self, y):
        return np.interp(y, self.edges, self._tail, left=float(self._tail[0]), right=0.0)

    def _prob(self, lo, hi):
        """Height times overlap per piece (a piece wholly inside counts its exact mass): a difference of two cdf
        values loses a window of mass 1e-42 next to a tail of 1e-22 (Square Wave at eps = 50)."""
        lo = np.asarray(lo, dtype=np.float64)[..., None]
        hi = np.asarray(hi, dtype=np.float64)[..., None]
        a, b = self.edges[:-1], self.edges[1:]
        overlap = np.clip(np.minimum(hi, b) - np.maximum(lo, a), 0.0, None)
        whole = (lo <= a) & (b <= hi)
        return np.where(whole, self.masses, self.heights * overlap).sum(-1)

    def _density(self, y):
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

    def _moment(self, order):
        a, b = self.edges[:-1], self.edges[1:]
        # E[Y^k] on a uniform piece [a, b) is (b^(k+1) - a^(k+1)) / ((k+1)(b - a)) = sum_i a^i b^(k-i) / (k+1),
        # the second form free of cancellation on narrow pieces
        per_piece = sum(a**i * b ** (order - i) for i in range(order + 1)) / (order + 1)
        return float(np.dot(self.masses, per_piece))

    def continuous_integral(self):
        return float(np.sum(self.heights * self.widths))

    def _moment_about(self, center, order):
        a, b = self.edges[:-1] - center, self.edges[1:] - center
        return float(np.dot(self.masses, sum(a**i * b ** (order - i) for i in range(order + 1)) / (order + 1)))

    def var(self):
        mean = self.mean()
        a, b = self.edges[:-1] - mean, self.edges[1:] - mean
        return float(np.dot(self.masses, (a * a + a * b + b * b) / 3.0))

    def _sample(self, n, rng):
        return np.interp(rng.random(n) * self._cum[-1], self._cum, self.edges)

    def _continuous_quantiles(self, levels):
        return np.interp(np.asarray(levels) * self._cum[-1], self._cum, self.edges)

    def _affine(self, scale, shift):
        edges, masses, widths = self.edges * scale + shift, self.masses, self.widths * abs(scale)
        if scale < 0:
            edges, masses, widths = edges[::-1], masses[::-1], widths[::-1]
        return PiecewiseUniform(edges, masses, widths)


@dataclass(frozen=True, eq=False)
class Discrete(Law):
    """Point masses ``probs[i]`` at ``values[i]``; ``widths[i]`` > 0 marks a sub-float-resolution window
    (see ``Law.atom_widths``), 0 (the default) a true point mass."""

    values: np.ndarray
    probs: np.ndarray
    widths: np.ndarray | None = None

    def __post_init__(self):
        values = np.asarray(self.values, dtype=np.float64)
        probs = np.asarray(self.probs, dtype=np.float64)
        widths = np.zeros_like(values) if self.widths is None else np.asarray(self.widths, dtype=np.float64)
        order = np.argsort(values, kind="stable")
        values, probs, widths = values[order], probs[order], widths[order]
        unique, inverse = np.unique(values, return_inverse=True)  # merge equal values
        merged = np.bincount(inverse, weights=probs, minlength=len(unique))
        merged_widths = np.zeros(len(unique))
        np.maximum.at(merged_widths, inverse, widths)
        object.__setattr__(self, "values", unique)
        object.__setattr__(self, "probs", merged)
        object.__setattr__(self, "widths", merged_widths)

    @property
    def support(self):
        return float(self.values[0]), float(self.values[-1])

    def _cdf(self, y):
        cum = np.concatenate([[0.0], np.cumsum(self.probs)])
        return cum[np.searchsorted(self.values, np.asarray(y, dtype=np.float64), side="right")]

    def _sf(self, y):
        tail = np.concatenate([np.cumsum(self.probs[::-1])[::-1], [0.0]])
        return tail[np.searchsorted(self.values, np.asarray(y, dtype=np.float64), side="right")]

    def _density(self, y):
        return np.zeros_like(np.asarray(y, dtype=np.float64))

    @property
    def atoms(self):
        return self.values.copy(), self.probs.copy()

    @property
    def atom_widths(self):
        return self.widths.copy()

    def _moment(self, order):
        return float(np.dot(self.probs, self.values**order))

    def _moment_about(self, center, order):
        return float(np.dot(self.probs, (self.values - center) ** order))

    def continuous_integral(self):
        return 0.0

    def var(self):
        return float(np.dot(self.probs, (self.values - self.mean()) ** 2))

    def _sample(self, n, rng):
        cum = np.cumsum(self.probs)
        idx = np.searchsorted(cum, rng.random(n) * cum[-1], side="right")
        return self.values[np.minimum(idx, len(self.values) - 1)]

    def _affine(self, scale, shift):
        return Discrete(self.values * scale + shift, self.probs, self.widths * abs(scale))


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

    def _cdf(self, y):
        return self._frozen.cdf(y)

    def _density(self, y):
        return self._frozen.pdf(y)

    def _sf(self, y):
        return self._frozen.sf(y)

    def logdensity(self, y):
        """log density at y, checked like ``density``."""
        return self._logdensity(as_points(y, "y"))

    def _logdensity(self, y):
        return self._frozen.logpdf(y)

    @property
    def atoms(self):
        return np.empty(0), np.empty(0)

    @property
    def breakpoints(self):
        return np.array([self.loc])

    def _moment(self, order):
        return float(self._frozen.moment(order))

    def var(self):
        return float(self._frozen.var())

    def _moment_about(self, center, order):
        """From the standard member's raw moments: E[(loc + scale Z - center)^k] = sum_j C(k, j) (loc -
        center)^(k - j) scale^j E[Z^j]."""
        shift = self.loc - center
        return float(sum(math.comb(order, j) * shift ** (order - j) * self.scale**j * _standard_moment(self.family, j)
                         for j in range(order + 1)))

    def continuous_integral(self):
        from scipy.integrate import quad

        lo, hi = self.loc - 60 * self.scale, self.loc + 60 * self.scale
        body = quad(self._density, lo, self.loc, limit=200)[0] + quad(self._density, self.loc, hi, limit=200)[0]
        return body + float(self._cdf(lo)) + float(1.0 - self._cdf(hi))

    def _sample(self, n, rng):
        return self._frozen.rvs(size=n, random_state=rng)

    def _continuous_quantiles(self, levels):
        return self._frozen.ppf(levels)

    def _affine(self, scale, shift):
        return Smooth(self.family, self.loc * scale + shift, self.scale * abs(scale))


@lru_cache(maxsize=256)
def _standard_moment(family, order: int) -> float:
    """E[Z^order] of the family's standard member (loc 0, scale 1); scipy integrates some of them numerically."""
    return float(family(loc=0.0, scale=1.0).moment(order))


@dataclass(frozen=True, eq=False)
class LaplaceLaw(Smooth):
    """Laplace(loc, scale) with its log density in closed form: scipy's ``laplace.logpdf`` is log(pdf), which is
    -inf beyond about 745 scales from the centre (reached inside [-1, 1] at eps = 700, scale 2/700)."""

    def _logdensity(self, y):
        return -math.log(2.0 * self.scale) - np.abs(y - self.loc) / self.scale

    def _moment(self, order):
        return self._moment_about(0.0, order)

    def _moment_about(self, center, order):
        """In closed form, E[Z^j] = j! for even j and 0 for odd j (Z standard Laplace): scipy integrates these
        numerically, 2e-9 off at order 6 and 4% at order 16."""
        shift = self.loc - center
        return float(sum(math.comb(order, j) * shift ** (order - j) * self.scale**j * math.factorial(j)
                         for j in range(0, order + 1, 2)))

    def _affine(self, scale, shift):
        return LaplaceLaw(stats.laplace, self.loc * scale + shift, self.scale * abs(scale))


@dataclass(frozen=True, eq=False)
class Mixture(Law):
    """``weights[i]`` times ``components[i]``; weights sum to 1."""

    components: tuple[Law, ...]
    weights: tuple[float, ...]

    @property
    def support(self):
        los, his = zip(*(c.support for c, w in zip(self.components, self.weights) if w > 0))
        return float(min(los)), float(max(his))

    def _cdf(self, y):
        return sum(w * np.asarray(c._cdf(y)) for c, w in zip(self.components, self.weights))

    def _density(self, y):
        return sum(w * np.asarray(c._density(y)) for c, w in zip(self.components, self.weights))

    def _sf(self, y):
        return sum(w * np.asarray(c._sf(y)) for c, w in zip(self.components, self.weights))

    def _prob(self, lo, hi):
        return sum(w * np.asarray(c._prob(lo, hi)) for c, w in zip(self.components, self.weights))

    @cached_property
    def _merged_atoms(self) -> Discrete | None:
        values = [c.atoms[0] for c in self.components]
        if not sum(map(len, values)):
            return None
        probs = [w * c.atoms[1] for c, w in zip(self.components, self.weights)]
        widths = [c.atom_widths for c in self.components]
        return Discrete(np.concatenate(values), np.concatenate(probs), np.concatenate(widths))

    @property
    def atoms(self):
        merged = self._merged_atoms
        return (merged.values, merged.probs) if merged is not None else (np.empty(0), np.empty(0))

    @property
    def atom_widths(self):
        merged = self._merged_atoms
        return merged.widths.copy() if merged is not None else np.empty(0)

    @property
    def breakpoints(self):
        return np.unique(np.concatenate([c.breakpoints for c in self.components]))

    def _moment(self, order):
        return float(sum(w * c._moment(order) for c, w in zip(self.components, self.weights)))

    def _moment_about(self, center, order):
        return float(sum(w * c._moment_about(center, order) for c, w in zip(self.components, self.weights)))

    def continuous_integral(self):
        return float(sum(w * c.continuous_integral() for c, w in zip(self.components, self.weights)))

    def var(self):
        """Law of total variance: within-component variances plus the spread of the component means."""
        mean = self.mean()
        return float(sum(w * (c.var() + (c.mean() - mean) ** 2) for c, w in zip(self.components, self.weights)))

    def _sample(self, n, rng):
        which = rng.choice(len(self.components), size=n, p=np.asarray(self.weights) / np.sum(self.weights))
        out = np.empty(n)
        for i, component in enumerate(self.components):
            chosen = which == i
            out[chosen] = component._sample(int(chosen.sum()), rng)
        return out

    def _continuous_quantiles(self, levels):
        return np.concatenate([c._continuous_quantiles(levels) for c in self.components])

    def _affine(self, scale, shift):
        return Mixture(tuple(c._affine(scale, shift) for c in self.components), self.weights)


def point_mass(value: float = 0.0) -> Discrete:
    return Discrete(np.array([value]), np.array([1.0]))
