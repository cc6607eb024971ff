"""Option types that validate before any work starts: every bad value is a usage error (exit 2) whose message
names the option and the allowed range, never a traceback from deep inside numpy.

argparse turns an ``ArgumentTypeError`` raised by a ``type=`` callable into ``argument --NAME: MESSAGE`` and
exit status 2, so the option is always named. Sizes are also checked against this machine's memory
(:func:`check_memory`); output paths are proven writable before a run by ``ldp_audit.files``.
"""
from __future__ import annotations

import argparse
import math
import os

#: Numbers of draws, repetitions, steps and dimensions are capped here: beyond these no run ends in a day.
MAX_COUNT = 10 ** 12
#: Simulated users of an attack or a claim check: at the usual 1e6-1e7 draws per second and core, 1e9 of them
#: already take hours; beyond it a run would not end in a day.
MAX_DRAWS = 10 ** 9


def _number(text: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if math.isnan(value):
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")
    return value


def _interval(low, high, low_open: bool, high_open: bool) -> str:
    left = "(" if low_open or low is None else "["
    right = ")" if high_open or high is None else "]"
    return f"{left}{'-inf' if low is None else f'{low:g}'}, {'inf' if high is None else f'{high:g}'}{right}"


def integer(low: int, high: int = MAX_COUNT):
    """An integer in [low, high]; ``1e6`` style input is accepted when it is a whole number."""
    def parse(text: str) -> int:
        value = _number(text)
        if not math.isfinite(value) or value != int(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer in [{low:g}, {high:g}], got {text!r}")
        return int(value)

    parse.__name__ = "integer"
    return parse


def real(low: float | None = None, high: float | None = None, *, low_open: bool = False, high_open: bool = False):
    """A finite number in the given interval (open or closed at each end; None: unbounded)."""
    def parse(text: str) -> float:
        value = _number(text)
        ok = math.isfinite(value)
        if low is not None:
            ok &= value > low if low_open else value >= low
        if high is not None:
            ok &= value < high if high_open else value <= high
        if not ok:
            raise argparse.ArgumentTypeError(f"must be a finite number in {_interval(low, high, low_open, high_open)}, "
                                             f"got {text!r}")
        return value

    parse.__name__ = "number"
    return parse


def eps_budget(text: str) -> float:
    """A built-in mechanism's privacy budget: a number in [EPS_MIN, EPS_MAX], the registry's range (with why)."""
    from ..mechanisms.validation import EPS_MAX, EPS_MIN, EPS_MIN_REASON

    value = _number(text)
    if not (math.isfinite(value) and 0.0 < value <= EPS_MAX):
        raise argparse.ArgumentTypeError(f"must be a number in [{EPS_MIN:g}, {EPS_MAX:g}], got {text!r}")
    if value < EPS_MIN:
        raise argparse.ArgumentTypeError(f"{text!r} is too small: must be a number in [{EPS_MIN:g}, {EPS_MAX:g}]; "
                                         f"{EPS_MIN_REASON}")
    return value


#: The common ones.
positive = real(0.0, low_open=True)
probability = real(0.0, 1.0, low_open=True, high_open=True)
seed = integer(0, 2 ** 63 - 1)


def confidence(text: str) -> float:
    """A confidence level in (0, 1 - 1e-12]: its false-alarm rate 1 - level must survive the commands' rounding
    to 12 digits (above, the rate would round to 0)."""
    value = _number(text)
    if not 0.0 < value <= 1.0 - 1e-12:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1 - 1e-12], got {text!r}")
    return value

#: Random numbers one attack may draw (users x report width x queries): at the 1e6-1e7 per second the Bayes
#: attackers reach on one core, beyond this a run takes hours.
MAX_ENTRIES = 10 ** 10


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


def scheduler(text: str) -> str:
    """A Dask scheduler address, ``tcp://HOST:PORT`` (or tls://, ucx://, inproc://)."""
    scheme, sep, rest = text.partition("://")
    host, colon, port = rest.rpartition(":")
    if not sep or scheme not in ("tcp", "tls", "ucx", "inproc") or (scheme != "inproc" and not (
            colon and host and port.isdigit() and 0 < int(port) < 65536)):
        raise argparse.ArgumentTypeError(f"must be a Dask scheduler address tcp://HOST:PORT, got {text!r}")
    return text
