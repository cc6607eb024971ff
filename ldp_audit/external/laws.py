"""Turn a user's description of a report law into an ``ldp_audit`` :class:`~ldp_audit.mechanisms.laws.Law`.

Accepted descriptions (per input x):

* an ``ldp_audit`` Law — used as is;
* a frozen ``scipy.stats`` distribution — continuous ones become :class:`FrozenLaw` (a ``Smooth`` law over any
  scipy family, so the engine's quantile cells and log-density ratios apply); discrete ones are enumerated
  into a ``Discrete`` law;
* a dict ``{value: probability}`` or a pair ``(values, probabilities)`` — a ``Discrete`` law;
* ``pmf(y, x)`` with a finite output support — a ``Discrete`` law;
* ``pdf(y, x)`` (and optionally ``cdf(y, x)``) with a bounded output support [lo, hi] — a :class:`DensityLaw`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import integrate

from ..mechanisms.laws import Discrete, Law, Smooth

#: Quantile grid on which the density ratio of a generic continuous law is evaluated (white-box audit).
QUANTILE_POINTS = 401
#: Grid of a user density on a bounded support: where ratios are evaluated and the numeric cdf is tabulated.
DENSITY_GRID = 1001
#: Mass left out when a discrete scipy law with unbounded support is enumerated.
TAIL_MASS = 1e-13


def _vectorised(fn, y, *args) -> np.ndarray:
    """fn(y, *args) on an array y, falling back to element-wise calls for functions written for scalars."""
    y = np.asarray(y, dtype=np.float64)
    try:
        out = np.asarray(fn(y, *args), dtype=np.float64)
        if out.shape == y.shape:
            return out
    except (TypeError, ValueError):
        pass
    return np.array([float(fn(float(v), *args)) for v in y.ravel()]).reshape(y.shape)


class _Bound:
    """``f(y, x)`` with x fixed, as a picklable one-argument callable."""

    def __init__(self, fn, x):
        self.fn, self.x = fn, x

    def __call__(self, y):
        return _vectorised(self.fn, y, self.x)


class _Rescaled:
    """A scipy location-scale family around a frozen distribution: ``(loc, scale) -> loc + scale * Y``."""

    def __init__(self, base):
        self.base = base

    def __call__(self, loc=0.0, scale=1.0):
        if loc == 0.0 and scale == 1.0:
            return self.base
        shapes, base_loc, base_scale = self.base.dist._parse_args(*self.base.args, **self.base.kwds)
        return self.base.dist(*shapes, loc=base_loc * scale + loc, scale=base_scale * scale)


@dataclass(frozen=True, eq=False)
class FrozenLaw(Smooth):
    """Any frozen continuous ``scipy.stats`` distribution as a Law.

    Built as ``FrozenLaw(_Rescaled(frozen), 0.0, 1.0)`` by :func:`frozen_law`. The engine's code for smooth laws
    (quantile cells, log-density ratios) applies unchanged; the breakpoints are a quantile grid, because a
    general density is not monotone between one location and the next as a Laplace density is.
    """

    @property
    def breakpoints(self):
        qs = np.linspace(0.0, 1.0, QUANTILE_POINTS)[1:-1]
        points = np.asarray(self._frozen.ppf(qs), dtype=np.float64)
        return np.unique(points[np.isfinite(points)])

    def continuous_integral(self):
        points = np.concatenate([self.breakpoints[::20], self.breakpoints[-1:]])
        body = sum(integrate.quad(lambda y: float(self._frozen.pdf(y)), a, b, limit=200)[0]
                   for a, b in zip(points[:-1], points[1:]))
        return body + float(self._frozen.cdf(points[0])) + float(self._frozen.sf(points[-1]))

    def _affine(self, scale, shift):
        if scale < 0:
            raise ValueError(f"scale must be positive for a FrozenLaw (a scipy law cannot be mirrored), got {scale!r}")
        return FrozenLaw(self.family, self.loc * scale + shift, self.scale * scale)


def frozen_law(frozen) -> Law:
    """A Law from a frozen scipy distribution (continuous or discrete)."""
    if hasattr(frozen, "pdf"):
        return FrozenLaw(_Rescaled(frozen), 0.0, 1.0)
    lo, hi = (float(v) for v in frozen.support())
    if not math.isfinite(lo):
        lo = float(frozen.ppf(TAIL_MASS))
    if not math.isfinite(hi):
        hi = float(frozen.isf(TAIL_MASS))
    if hi - lo > 1e6:
        raise ValueError(f"a discrete law must have at most 1e6 support points; got support [{lo:g}, {hi:g}]")
    values = np.arange(lo, hi + 1.0)
    return Discrete(values, np.asarray(frozen.pmf(values), dtype=np.float64))


@dataclass(frozen=True, eq=False)
class DensityLaw(Law):
    """A user density on the bounded support [lo, hi], with the user's cdf or a tabulated one.

    The white-box audit evaluates density ratios between the points of a fine grid (``DENSITY_GRID``), so for a
    density that is not piecewise monotone on that grid the white-box ratio is an approximation from below;
    the black-box audit does not depend on it.
    """

    pdf: object
    cdf_fn: object
    lo: float
    hi: float

    @property
    def support(self):
        return self.lo, self.hi

    @cached_property
    def _grid(self) -> np.ndarray:
        return np.linspace(self.lo, self.hi, DENSITY_GRID)

    @cached_property
    def _table(self) -> np.ndarray:
        """cdf on the grid: the user's cdf when given, else the cumulative integral of the density."""
        if self.cdf_fn is not None:
            return np.asarray(self.cdf_fn(self._grid), dtype=np.float64)
        fine = np.linspace(self.lo, self.hi, 16 * (DENSITY_GRID - 1) + 1)
        cum = integrate.cumulative_trapezoid(self._density(fine), fine, initial=0.0)
        return cum[::16]

    def _cdf(self, y):
        if self.cdf_fn is not None:
            inside = np.asarray(self.cdf_fn(np.clip(y, self.lo, self.hi)), dtype=np.float64)
        else:
            inside = np.interp(y, self._grid, self._table)
        return np.where(y < self.lo, 0.0, np.where(y >= self.hi, float(self._table[-1]), inside))

    def _density(self, y):
        y = np.asarray(y, dtype=np.float64)
        inside = (y >= self.lo) & (y <= self.hi)
        return np.where(inside, self.pdf(np.clip(y, self.lo, self.hi)), 0.0)

    @property
    def atoms(self):
        return np.empty(0), np.empty(0)

    @property
    def breakpoints(self):
        return self._grid.copy()

    def _moment(self, order):
        return float(integrate.quad(lambda y: y**order * float(self._density(y)), self.lo, self.hi, limit=400)[0])

    def var(self):
        mean = self._moment(1)
        return float(integrate.quad(lambda y: (y - mean) ** 2 * float(self._density(y)), self.lo, self.hi,
                                    limit=400)[0])

    def continuous_integral(self):
        if self.cdf_fn is not None:
            # the declared cdf is the density's exact integral, also across jumps of a piecewise-constant density
            # that adaptive quadrature smears into a false "mass != 1" alarm
            return float(self.cdf_fn(np.float64(self.hi))) - float(self.cdf_fn(np.float64(self.lo)))
        return float(integrate.quad(lambda y: float(self._density(y)), self.lo, self.hi, limit=400)[0])

    def _continuous_quantiles(self, levels):
        table = self._table
        return np.interp(levels * table[-1], table, self._grid)

    def _sample(self, n, rng):
        table = self._table
        return np.interp(rng.random(n) * table[-1], table, self._grid)

    def _affine(self, scale, shift):
        if scale < 0:
            raise ValueError(f"scale must be positive for a DensityLaw (its support [lo, hi] keeps its order), got "
                             f"{scale!r}")
        return DensityLaw(_Affine(self.pdf, scale, shift, True), _Affine(self._cdf, scale, shift, False),
                          self.lo * scale + shift, self.hi * scale + shift)


class _Affine:
    """Density (``is_density``) or cdf of scale * Y + shift from those of Y; picklable."""

    def __init__(self, fn, scale, shift, is_density):
        self.fn, self.scale, self.shift, self.is_density = fn, scale, shift, is_density

    def __call__(self, y):
        value = np.asarray(self.fn((np.asarray(y, dtype=np.float64) - self.shift) / self.scale), dtype=np.float64)
        return value / self.scale if self.is_density else value


def to_law(description, what: str = "law(x)") -> Law:
    """A Law from what a user's ``law(x)`` returned (see the module docstring)."""
    if isinstance(description, Law):
        return description
    if hasattr(description, "rvs") and (hasattr(description, "pdf") or hasattr(description, "pmf")):
        return frozen_law(description)
    if isinstance(description, dict):
        return Discrete(np.asarray(list(description.keys()), dtype=np.float64),
                        np.asarray(list(description.values()), dtype=np.float64))
    if isinstance(description, tuple) and len(description) == 2:
        values, probs = (np.asarray(part, dtype=np.float64) for part in description)
        if values.shape == probs.shape and values.ndim == 1:
            return Discrete(values, probs)
    raise ValueError(f"{what} must return an ldp_audit Law, a frozen scipy.stats distribution, a dict "
                     f"{{value: probability}} or a pair (values, probabilities); got {type(description).__name__}")


def pmf_law(pmf, support_values: np.ndarray, x) -> Discrete:
    """The Discrete law with masses pmf(y, x) at the finite output support."""
    return Discrete(support_values, _vectorised(pmf, support_values, x))


def density_law(pdf, cdf, lo: float, hi: float, x) -> DensityLaw:
    """The law with density pdf(y, x) (and cdf(y, x) when given) on [lo, hi]."""
    return DensityLaw(_Bound(pdf, x), None if cdf is None else _Bound(cdf, x), lo, hi)


#: Resolution (machine epsilon) of float64, the precision of every law that is not given in a narrower type.
FLOAT64_RESOLUTION = float(np.finfo(np.float64).eps)


def float_resolution(description) -> float:
    """The machine epsilon of the narrowest floating type in a user's law description (a float32 pmf table, a dict
    of float16 probabilities...); float64's for scipy distributions, Laws and plain Python numbers."""
    if isinstance(description, dict):
        return float_resolution(list(description.values()))
    if isinstance(description, (list, tuple)) and description:
        return min(float_resolution(part) for part in description)
    dtype = getattr(description, "dtype", None)
    if dtype is not None and np.issubdtype(dtype, np.floating):
        return float(np.finfo(dtype).eps)
    return FLOAT64_RESOLUTION
