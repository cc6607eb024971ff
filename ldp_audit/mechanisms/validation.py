"""Input and parameter checks shared by every public function: the mechanisms, the models' data functions, the
audit settings, the pytest plugin and the command line all validate through this one module (the lowest layer
that every one of them imports), so a cap or a memory estimate has one copy.

Every failure is a ``ValueError`` whose message names the parameter, the value received and the allowed range,
so that a user never meets a traceback from deep inside numpy or a silently wrong answer. The Python API passes
its parameter names (``samples``), the command line its flags (``--samples``).
"""
from __future__ import annotations

import math
import os
from numbers import Integral, Real

import numpy as np

#: Numbers of draws, repetitions, steps and dimensions are capped here: beyond these no run ends in a day.
MAX_COUNT = 10 ** 12
#: Simulated users of an attack or a claim check: at the usual 1e6-1e7 draws per second and core, 1e9 of them
#: already take hours; beyond it a run would not end in a day.
MAX_DRAWS = 10 ** 9
#: Random numbers one attack may draw (users x report width x queries): at the 1e6-1e7 per second the Bayes
#: attackers reach on one core, beyond this a run takes hours.
MAX_ENTRIES = 10 ** 10
#: Largest input dimension d of a mechanism: one report of 1e7 float64 coordinates is 80 MB already, and the
#: audits hold many reports at once (the memory estimate, :func:`check_memory`, refuses what does not fit).
MAX_DIMENSION = 10 ** 7
#: Most worker processes of an engine.
MAX_WORKERS = 64
#: Largest seed: 63 bits, so that a seed is an int64 in every result file and report.
MAX_SEED = 2 ** 63 - 1
#: Training runs per configuration of a reproduction: a run takes seconds at least, so 1e5 of them per cell
#: already take days.
MAX_RUNS = 10 ** 5
#: Highest confidence level: its false-alarm rate 1 - level must survive rounding to 12 digits (above, the rate
#: rounds to 0 and no statistical test can run at it).
MAX_CONFIDENCE = 1.0 - 1e-12

#: Largest budget accepted. Every constant is computed stably up to here (e^-700 is still a normal float64).
EPS_MAX = 700.0
#: Smallest total budget a registered mechanism accepts. Below it the noise scale (about 2/eps, times d/k for a
#: sampled estimate) makes variances (~1/eps^2) and the fourth-moment sums of the variance test (~n/eps^4) approach
#: float64 overflow (eps = 1e-300 gives an infinite variance), and the constants are verified against 80-digit
#: arithmetic only down to here. A coordinate of a sampled mechanism may run at eps/k below it.
EPS_MIN = 1e-12
#: Most categories (GRR's c) or levels (ESW's f) of a mechanism: its law and variance formulas hold arrays of that
#: many entries per input, and the command line caps --c and --f here too.
MAX_CATEGORIES = 10 ** 6
#: Highest moment order a law computes. Every one-dimensional built-in keeps its report's raw moments finite in
#: float64 up to this order at the smallest budget EPS_MIN (Laplace: 20! (2/1e-12)^20 ~ 1e264); the audits use
#: order 6 at most.
MAX_MOMENT_ORDER = 20
#: Bytes one draw of a law's reference sampler holds (the draw, its uniform, an index): refuses n that cannot fit.
LAW_BYTES_PER_DRAW = 24
#: Bytes one report coordinate holds while a mechanism's ``sample`` makes it (input, uniforms, temporaries, report).
BYTES_PER_DRAW = 48

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


def check_positive(value, name: str) -> float:
    """A finite real number > 0 (a scale, a sensitivity)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def check_finite(value, name: str, nonzero: bool = False) -> float:
    """One finite real number (a 0-d array too; not a bool), and not 0 when ``nonzero``."""
    try:
        arr = as_real_array(value, name)
    except ValueError:
        arr = None
    if arr is None or arr.ndim != 0 or not math.isfinite(float(arr)) or (nonzero and float(arr) == 0.0):
        allowed = "a finite, non-zero real number" if nonzero else "a finite real number"
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return float(arr)


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


def check_confidence(value, name: str = "confidence") -> float:
    """A confidence level in (0, MAX_CONFIDENCE]: 1 - level is the false-alarm rate of a family of tests."""
    if isinstance(value, bool) or not isinstance(value, Real) or not 0.0 < float(value) <= MAX_CONFIDENCE:
        raise ValueError(f"{name} must be a number in (0, 1 - 1e-12], got {value!r} (its false-alarm rate 1 - "
                         f"{name} must survive rounding to 12 digits)")
    return float(value)


def check_flag(value, name: str) -> bool:
    """True or False (numpy's booleans included); a truthy string or number is refused, never guessed."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


#: dtype kinds read as real numbers: signed and unsigned integers, floats, and Python objects that are numbers.
_REAL_KINDS = "iufO"


def as_real_array(x, name: str) -> np.ndarray:
    """``x`` (any shape) as float64; booleans, text, complex numbers and dates are refused, never read as numbers.
    NaN and inf pass (callers that need finite numbers check them, e.g. :func:`as_finite_array`)."""
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of real numbers: {exc}") from None
    kind = arr.dtype.kind
    if kind == "O" and any(isinstance(v, (str, bytes, bool, np.bool_)) for v in arr.flat):
        kind = "U"
    if kind not in _REAL_KINDS:
        shown = repr(x) if arr.size <= 3 else f"an array of dtype {arr.dtype}"
        raise ValueError(f"{name} must be an array of real numbers (not booleans, text or complex numbers), "
                         f"got {shown}")
    try:
        return np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of real numbers: {exc}") from None


def _check_domain(arr: np.ndarray, lo: float, hi: float, name: str, remedy: str) -> None:
    """Every entry of ``arr`` a finite number in [lo, hi]; ``remedy`` ends the message about values outside."""
    if arr.size and not (lo <= float(np.min(arr)) and float(np.max(arr)) <= hi):
        # two reductions decide the common case (NaN makes min/max NaN); the details are only for the message
        if not np.all(np.isfinite(arr)):
            raise ValueError(_nonfinite_message(arr, name, lo, hi))
        outside = (arr < lo) | (arr > hi)
        first = np.argwhere(np.atleast_1d(outside))[0]
        value = np.atleast_1d(arr)[tuple(first)]
        raise ValueError(f"{name} must lie in the domain [{lo:g}, {hi:g}]; {int(outside.sum())} value(s) are outside "
                         f"(e.g. {value:g} at index {tuple(int(i) for i in first)}). {remedy}")


def _check_integers(arr: np.ndarray, lo: float, hi: float, name: str) -> None:
    fractional = arr != np.round(arr)
    if np.any(fractional):
        raise ValueError(f"{name} must hold integer categories in [{lo:g}, {hi:g}], got {arr[fractional][0]:g}")


def as_values(x, lo: float, hi: float, name: str = "x", integer: bool = False,
              remedy: str = "Normalise with public bounds") -> np.ndarray:
    """Inputs of any shape, each a finite number in [lo, hi] (an integer category there when ``integer``), as
    float64: what a moment formula or a law of one coordinate takes, elementwise. ``remedy`` ends the message
    about values outside."""
    arr = as_real_array(x, name)
    _check_domain(arr, lo, hi, name, remedy)
    if integer:
        _check_integers(arr, lo, hi, name)
    return arr


def as_input_array(x, lo: float, hi: float, d: int, clip: bool = False, name: str = "x",
                   integer: bool = False) -> np.ndarray:
    """Validate user inputs for a mechanism with domain [lo, hi]^d and return them as float64.

    Accepts a scalar or shape (n,) when d == 1, and shape (n, d) (or (d,) for one user) otherwise.
    Values outside [lo, hi] are an error unless ``clip`` is true; NaN and inf are always an error; with
    ``integer`` every value (after clipping) must be an integer category.
    """
    arr = as_real_array(x, name)
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
    if check_flag(clip, "clip"):
        if not np.all(np.isfinite(arr)):
            raise ValueError(_nonfinite_message(arr, name, lo, hi))
        arr = np.clip(arr, lo, hi)
    else:
        _check_domain(arr, lo, hi, name, "Normalise with public bounds, or pass clip=True to clip explicitly")
    if integer:
        _check_integers(arr, lo, hi, name)
    return arr


def _nonfinite_message(arr: np.ndarray, name: str, lo: float, hi: float) -> str:
    bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
    return f"{name} contains {bad} NaN or infinite value(s); inputs must be finite numbers in [{lo:g}, {hi:g}]"


def as_finite_array(values, name: str) -> np.ndarray:
    """Numbers a server reads (reports), as float64: real and finite, whatever their range."""
    arr = as_real_array(values, name)
    if not np.all(np.isfinite(arr)):
        bad = int(arr.size - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); reports are finite numbers")
    return arr


def as_points(y, name: str = "y") -> np.ndarray:
    """Points at which a law is evaluated, any shape, as float64: real numbers, +-inf allowed, NaN refused."""
    arr = as_real_array(y, name)
    if np.isnan(arr).any():
        raise ValueError(f"{name} contains {int(np.isnan(arr).sum())} NaN value(s); points must be real numbers "
                         "(-inf and inf allowed)")
    return arr


def check_among(arr: np.ndarray, values, name: str, owner: str) -> np.ndarray:
    """Every entry of ``arr`` one of the few ``values`` that ``owner`` reports: one comparison per value,
    vectorised; NaN and inf are never among them."""
    ok = np.zeros(arr.shape, dtype=bool)
    for value in values:
        ok |= arr == value
    if not ok.all():
        shown = ", ".join(f"{v:g}" for v in values)
        finite = np.isfinite(arr)
        if not finite.all():
            raise ValueError(f"{name} contains {int(finite.size - finite.sum())} NaN or infinite value(s); "
                             f"{owner} reports one of {{{shown}}}")
        bad = np.argwhere(np.atleast_1d(~ok))[0]
        raise ValueError(f"{name} must hold values that {owner} reports, one of {{{shown}}}; "
                         f"{int(ok.size - ok.sum())} value(s) are not (e.g. {np.atleast_1d(arr)[tuple(bad)]:g} "
                         f"at index {tuple(int(i) for i in bad)})")
    return arr


def as_reports(reports, name: str, owner: str, values=None) -> np.ndarray:
    """Reports a server reads, as float64: finite real numbers, each one of ``values`` when ``owner`` reports only
    these few (None: any finite number)."""
    if values is None:
        return as_finite_array(reports, name)
    return check_among(as_real_array(reports, name), values, name, owner)


def check_rng(rng, name: str = "rng") -> np.random.Generator:
    """A numpy Generator, or what seeds one: None, a SeedSequence or a non-negative integer (not a bool)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    if isinstance(rng, Integral) and not isinstance(rng, bool):
        if rng < 0:
            raise ValueError(f"{name} must be a numpy.random.Generator, a SeedSequence or a non-negative integer "
                             f"seed, got {rng}")
        return np.random.default_rng(rng)
    raise ValueError(f"{name} must be a numpy.random.Generator, a SeedSequence or a non-negative integer seed, got "
                     f"{rng!r} ({type(rng).__name__})")


def check_count(value, name: str, lo: int = 0) -> int:
    """A number of things to draw or repeat: an integer in [lo, MAX_COUNT]."""
    return check_int(value, name, lo, MAX_COUNT)


def check_sample_size(value, name: str, bytes_each: float, what: str) -> int:
    """A number of draws held in memory at once: an integer in [0, MAX_COUNT] whose ``bytes_each`` per draw fit
    in memory (:func:`check_size`), so that a huge n is a ValueError, never a MemoryError."""
    value = check_count(value, name)
    check_size(name, value, bytes_each, what)
    return value


def check_dimension(value, name: str = "d") -> int:
    """An input dimension: an integer in [1, MAX_DIMENSION]."""
    return check_int(value, name, 1, MAX_DIMENSION)


def check_seed(value, name: str = "seed") -> int:
    """A seed: an integer in [0, MAX_SEED]."""
    return check_int(value, name, 0, MAX_SEED)


# ----- what a run may cost: draws and memory ------------------------------------------------------------------

def check_draws(sizes: dict[str, tuple[int, int]], what: str) -> None:
    """Refuse a run whose ``sizes`` (option -> (value, default)) multiply to more than :data:`MAX_ENTRIES`
    random numbers, naming the option furthest above its default and its largest allowed value."""
    total = math.prod(value for value, _ in sizes.values())
    if total > MAX_ENTRIES:
        option = max(sizes, key=lambda name: sizes[name][0] / max(1, sizes[name][1]))
        others = total // sizes[option][0]
        raise ValueError(f"{option} {sizes[option][0]:,} is too large: {what} draws about {total:.1e} random "
                         f"numbers, more than the {MAX_ENTRIES:.0e} one run may draw (hours on one core); the "
                         f"largest allowed {option} here is {max(1, MAX_ENTRIES // others):,}")


def available_memory() -> int:
    """Bytes of physical memory of this machine (the upper limit of any single run)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 16 * 2 ** 30


def check_memory(option: str, nbytes: float, what: str, fraction: float = 0.75, largest: str = "") -> None:
    """Refuse a size whose arrays would not fit in ``fraction`` of this machine's memory, with the estimate
    (and ``largest``, the largest allowed value, when the caller can say it)."""
    limit = fraction * available_memory()
    if nbytes > limit:
        raise ValueError(f"{option} is too large: {what} needs about {nbytes / 2 ** 30:,.1f} GiB, more than "
                         f"{limit / 2 ** 30:,.1f} GiB ({fraction:.0%} of this machine's memory)"
                         + (f"; the largest allowed {option} here is {largest}" if largest else ""))


def check_size(option: str, value: int, bytes_each: float, what: str, fixed: float = 0.0,
               fraction: float = 0.75) -> None:
    """Refuse ``option`` = ``value`` when ``fixed + value * bytes_each`` bytes would not fit in ``fraction`` of
    this machine's memory; the message gives the estimate and the largest value that fits (others as given)."""
    limit = fraction * available_memory()
    need = fixed + value * bytes_each
    if need > limit:
        largest = max(0, int((limit - fixed) // bytes_each))
        raise ValueError(f"{option} {value:,} is too large: {what} needs about {need / 2 ** 30:,.1f} GiB, more "
                         f"than {limit / 2 ** 30:,.1f} GiB ({fraction:.0%} of this machine's memory); the largest "
                         f"allowed {option} here is {largest:,}")
