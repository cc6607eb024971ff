"""Input and parameter checks shared by every mechanism.

Every failure is a ``ValueError`` whose message names the parameter, the value received and the allowed range,
so that a user never meets a traceback from deep inside numpy or a silently wrong answer.
"""
from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

#: Largest budget accepted. Every constant is computed stably up to here (e^-700 is still a normal float64).
EPS_MAX = 700.0
#: Smallest total budget a registered mechanism accepts. Below it the noise scale (about 2/eps, times d/k for a
#: sampled estimate) makes variances (~1/eps^2) and the fourth-moment sums of the variance test (~n/eps^4) approach
#: float64 overflow (eps = 1e-300 gives an infinite variance), and the constants are verified against 80-digit
#: arithmetic only down to here. A coordinate of a sampled mechanism may run at eps/k below it.
EPS_MIN = 1e-12
#: Why budgets below EPS_MIN are refused (part of the error message).
EPS_MIN_REASON = (f"below {EPS_MIN:g} the noise variance (~1/eps^2) and the audits' fourth moments (~1/eps^4) "
                  "leave the range of float64 numbers")


def check_eps(eps, name: str = "eps", upper: float = EPS_MAX, lower: float = 0.0) -> float:
    """A privacy budget: a finite real number in (0, upper], and >= ``lower`` when one is given (the registry's
    EPS_MIN; the message then says why)."""
    allowed = f"[{lower:g}, {upper:g}]" if lower > 0 else f"(0, {upper:g}]"
    if isinstance(eps, bool) or not isinstance(eps, Real):
        raise ValueError(f"{name} must be a real number in {allowed}, got {eps!r}")
    value = float(eps)
    if not (math.isfinite(value) and 0.0 < value <= upper):
        raise ValueError(f"{name} must be a real number in {allowed}, got {eps!r}")
    if value < lower:
        raise ValueError(f"{name} must be a real number in {allowed}, got {eps!r}: {EPS_MIN_REASON}")
    return value


def check_int(value, name: str, lo: int, hi: int | None = None) -> int:
    """An integer in [lo, hi] (hi=None: no upper limit)."""
    allowed = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
    if isinstance(value, bool) or not isinstance(value, Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer {allowed}, got {value!r}")
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        raise ValueError(f"{name} must be an integer {allowed}, got {value}")
    return value


def check_open_unit(value, name: str) -> float:
    """A probability-like parameter strictly inside (0, 1)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not (0.0 < float(value) < 1.0):
        raise ValueError(f"{name} must be a real number in (0, 1), got {value!r}")
    return float(value)


def check_range(alpha, beta, names: tuple[str, str] = ("alpha", "beta")) -> tuple[float, float]:
    """A finite input range alpha < beta."""
    for value, name in ((alpha, names[0]), (beta, names[1])):
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)):
            raise ValueError(f"{name} must be a finite real number, got {value!r}")
    if not float(alpha) < float(beta):
        raise ValueError(f"{names[0]} must be smaller than {names[1]}, got {names[0]}={alpha!r}, {names[1]}={beta!r}")
    return float(alpha), float(beta)


def check_choice(value, name: str, choices) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def as_input_array(x, lo: float, hi: float, d: int, clip: bool = False, name: str = "x") -> np.ndarray:
    """Validate user inputs for a mechanism with domain [lo, hi]^d and return them as float64.

    Accepts a scalar or shape (n,) when d == 1, and shape (n, d) (or (d,) for one user) otherwise.
    Values outside [lo, hi] are an error unless ``clip`` is true; NaN and inf are always an error.
    """
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of real numbers: {exc}") from None
    if d == 1:
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.ndim > 1:
            raise ValueError(f"{name} must be a scalar or have shape (n,) for a one-dimensional mechanism, "
                             f"got shape {arr.shape}")
    else:
        if arr.ndim == 1 and arr.shape[0] == d:
            arr = arr[None, :]
        if arr.ndim != 2 or arr.shape[1] != d:
            raise ValueError(f"{name} must have shape (n, {d}) for this mechanism (d={d}), got shape {arr.shape}")
    if clip:
        if not np.all(np.isfinite(arr)):
            raise ValueError(_nonfinite_message(arr, name, lo, hi))
        return np.clip(arr, lo, hi)
    if arr.size and not (lo <= float(np.min(arr)) and float(np.max(arr)) <= hi):
        # two reductions decide the common case (NaN makes min/max NaN); the details are only for the message
        if not np.all(np.isfinite(arr)):
            raise ValueError(_nonfinite_message(arr, name, lo, hi))
        outside = (arr < lo) | (arr > hi)
        first = np.argwhere(np.atleast_1d(outside))[0]
        value = np.atleast_1d(arr)[tuple(first)]
        raise ValueError(f"{name} must lie in the domain [{lo:g}, {hi:g}]; {int(outside.sum())} value(s) are outside "
                         f"(e.g. {value:g} at index {tuple(int(i) for i in first)}). Normalise with public bounds, "
                         f"or pass clip=True to clip explicitly")
    return arr


def _nonfinite_message(arr: np.ndarray, name: str, lo: float, hi: float) -> str:
    bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
    return f"{name} contains {bad} NaN or infinite value(s); inputs must be finite numbers in [{lo:g}, {hi:g}]"


def check_rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (Integral, np.random.SeedSequence)):
        return np.random.default_rng(rng)
    raise ValueError(f"rng must be a numpy.random.Generator, a SeedSequence or an integer seed, got {type(rng).__name__}")
