"""Input domains of a user's mechanism: a scalar interval, a vector box, or a finite set of values.

A user may write a domain in plain Python and :func:`parse_domain` reads it:

* ``(lo, hi)`` — a tuple of two reals: the interval [lo, hi] (integer categories lo..hi when the mechanism
  says ``discrete_input = True``);
* ``range(k)``, a list, set or 1-D array — a finite set of categories: numbers, or strings such as
  ``["red", "green", "blue"]`` (the engine works with their codes 0..c-1 and hands the sampler the string);
* ``(lo_vector, hi_vector)`` — a tuple of two equal-length sequences: the box prod_j [lo_j, hi_j];
* an :class:`Interval`, :class:`Box` or :class:`FiniteSet` — taken as is.
"""
from __future__ import annotations

import math
import reprlib
from dataclasses import dataclass
from numbers import Real

import numpy as np


def _finite_real(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (Real, np.number)) or not math.isfinite(float(value)):
        raise ValueError(f"{what} must be a finite real number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Interval:
    """The closed interval [lo, hi] of real inputs (or outputs)."""

    lo: float
    hi: float

    def __post_init__(self):
        lo, hi = _finite_real(self.lo, "domain lower end"), _finite_real(self.hi, "domain upper end")
        if not lo < hi:
            raise ValueError(f"domain must have lo < hi, got [{lo:g}, {hi:g}]")
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)

    def contains(self, values) -> np.ndarray:
        values = np.asarray(values, dtype=np.float64)
        return (values >= self.lo) & (values <= self.hi)

    def describe(self) -> str:
        return f"[{self.lo:g}, {self.hi:g}]"


@dataclass(frozen=True, eq=False)
class FiniteSet:
    """Finitely many categories, kept sorted: numbers, or strings (then always re-coded 0..c-1 by the engine)."""

    values: np.ndarray

    def __post_init__(self):
        raw = list(self.values)
        if raw and all(isinstance(v, str) for v in raw):
            values = np.unique(np.asarray(raw, dtype=str))
        else:
            try:
                values = np.unique(np.asarray(raw, dtype=np.float64))
            except (TypeError, ValueError) as exc:
                raise ValueError(f"a finite domain must hold numbers or strings (not a mix), got {self.values!r}") \
                    from exc
            if not np.all(np.isfinite(values)):
                raise ValueError(f"a finite domain needs finite values, got {self.values!r}")
        if values.size < 2:
            raise ValueError(f"a finite domain needs at least two distinct values, got {self.values!r}")
        object.__setattr__(self, "values", values)

    @property
    def strings(self) -> bool:
        return self.values.dtype.kind == "U"

    @property
    def consecutive_integers(self) -> bool:
        """True for {lo, lo+1, ..., hi}: then categories are used as they are, without re-coding."""
        v = self.values
        return not self.strings and bool(np.all(v == np.round(v)) and np.all(np.diff(v) == 1.0))

    def category(self, code: int):
        """The category of code ``code`` (0..c-1, in sorted order), as the user writes it."""
        value = self.values[int(code)]
        return str(value) if self.strings else float(value)

    def contains(self, values) -> np.ndarray:
        if self.strings:
            values = np.asarray(values, dtype=object)
            return np.isin(values, self.values) & np.vectorize(lambda v: isinstance(v, str), otypes=[bool])(values)
        try:
            return np.isin(np.asarray(values, dtype=np.float64), self.values)
        except (TypeError, ValueError):
            return np.zeros(np.shape(values), dtype=bool)

    def describe(self) -> str:
        v = self.values
        if self.consecutive_integers:
            return f"{{{v[0]:g}, ..., {v[-1]:g}}}"
        shown = ", ".join(repr(str(a)) if self.strings else f"{a:g}" for a in v[:6])
        return "{" + shown + (", ..." if v.size > 6 else "") + "}"


@dataclass(frozen=True, eq=False)
class Box:
    """The box prod_j [lo_j, hi_j] of d-dimensional real inputs."""

    lo: np.ndarray
    hi: np.ndarray

    def __post_init__(self):
        lo = np.atleast_1d(np.asarray(self.lo, dtype=np.float64))
        hi = np.atleast_1d(np.asarray(self.hi, dtype=np.float64))
        if lo.ndim != 1 or lo.shape != hi.shape:
            raise ValueError(f"a box domain needs lo and hi vectors of one length, got shapes {lo.shape}, {hi.shape}")
        if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(lo < hi)):
            raise ValueError("a box domain needs finite lo_j < hi_j in every coordinate")
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)

    @property
    def d(self) -> int:
        return int(self.lo.size)

    def contains(self, values) -> np.ndarray:
        values = np.asarray(values, dtype=np.float64)
        return np.all((values >= self.lo) & (values <= self.hi), axis=-1)

    def describe(self) -> str:
        return f"box of dimension {self.d}"


Domain = Interval | FiniteSet | Box


def parse_domain(value, what: str = "domain", discrete: bool = False) -> Domain:
    """Read a domain written in plain Python (see the module docstring); ValueError naming ``what`` otherwise."""
    if isinstance(value, (Interval, FiniteSet, Box)):
        return value
    if isinstance(value, (range, list, set, frozenset)) or (isinstance(value, np.ndarray) and value.ndim == 1):
        values = np.asarray(list(value))
        if isinstance(value, list) and values.dtype.kind in "biuf" and values.ndim >= 1 and values.size:
            kept, counts = np.unique(values, axis=0, return_counts=True)
            if counts.max() > 1:  # a typo more often than not ([0, 1, 1] for [0, 1, 2]): one input less probed
                raise ValueError(f"{what} lists {kept[counts.argmax()].tolist()!r} more than once "
                                 f"({reprlib.repr(value)}); list each input once")
        return FiniteSet(values)
    if isinstance(value, tuple) and len(value) == 2:
        lo, hi = value
        if np.ndim(lo) == 1 and np.ndim(hi) == 1:
            return Box(lo, hi)
        if np.ndim(lo) == 0 and np.ndim(hi) == 0:
            interval = Interval(lo, hi)
            if discrete:
                if interval.lo != round(interval.lo) or interval.hi != round(interval.hi):
                    raise ValueError(f"{what} of integer categories needs integer ends, got {value!r}")
                return FiniteSet(np.arange(interval.lo, interval.hi + 1.0))
            return interval
    raise ValueError(f"{what} must be (lo, hi) for an interval, (lo_vector, hi_vector) for a box, or a "
                     f"range/list/set of values for a finite set; got {value!r}")
