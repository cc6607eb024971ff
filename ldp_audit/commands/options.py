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
from pathlib import Path

# The caps and memory estimates live with the Python API's checks (one copy); the commands import them from here.
from ..mechanisms.validation import (MAX_CATEGORIES, MAX_COUNT, MAX_DRAWS, MAX_SEED,  # noqa: F401
                                     available_memory, check_confidence, check_draws, check_memory, check_size)


def _number(text: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if math.isnan(value):
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")
    return value


def _shown(bound: int) -> str:
    """An integer bound as a reader checks it: its digits up to a million, a power of two minus one as such,
    else the short ``%g`` form (1e+12)."""
    if abs(bound) <= 10 ** 6:
        return str(bound)
    if (bound + 1) & bound == 0:
        return f"2^{(bound + 1).bit_length() - 1} - 1"
    return f"{bound:g}"


def _interval(low, high, low_open: bool, high_open: bool) -> str:
    left = "(" if low_open or low is None else "["
    right = ")" if high_open or high is None else "]"
    return f"{left}{'-inf' if low is None else f'{low:g}'}, {'inf' if high is None else f'{high:g}'}{right}"


def integer(low: int, high: int = MAX_COUNT):
    """An integer in [low, high]; ``1e6`` style input is accepted when it is a whole number. Digits are read
    exactly (a float holds integers only up to 2^53: a seed of 9007199254740993 must not become ...992)."""
    def parse(text: str) -> int:
        try:
            value = int(text.strip().replace("_", ""), 10)
        except ValueError:
            number = _number(text)
            value = int(number) if math.isfinite(number) and number == int(number) else None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer in [{_shown(low)}, {_shown(high)}], got {text!r}")
        if value >= 2 ** 53 and not text.strip().lstrip("+").replace("_", "").isdigit():
            raise argparse.ArgumentTypeError(f"{text!r} is at or above 2^53, where a number written with an "
                                             "exponent or a point is not exact; write its digits")
        return value

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
seed = integer(0, MAX_SEED)


def confidence(text: str) -> float:
    """A confidence level in (0, 1 - 1e-12] (``check_confidence``, the rule the Python API applies too)."""
    value = _number(text)
    try:
        return check_confidence(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1 - 1e-12], got {text!r}") from None


def scheduler(text: str) -> str:
    """A Dask scheduler address (``engines.check_scheduler``, the rule the Python API applies too)."""
    from ..audits.kernel.engines import EngineError, check_scheduler

    try:
        return check_scheduler(text)
    except EngineError:
        raise argparse.ArgumentTypeError(f"must be a Dask scheduler address tcp://HOST:PORT, got {text!r}") from None


def folder(text: str) -> str:
    """A folder's path, as given: an empty one is refused (it used to mean the default folder, in silence)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty; give a folder, or leave the option out for the default")
    return text


def add_device_option(parser) -> None:
    """--device of the commands that train."""
    parser.add_argument("--device", choices=("cpu", "cuda"),
                        help="where to train (default: cuda when available, else cpu)")


#: Where results go without --results: $XDG_DATA_HOME/ldp-audit, else ~/.local/share/ldp-audit.
DATA_HOME_HELP = "$XDG_DATA_HOME/ldp-audit, else ~/.local/share/ldp-audit"


def user_data_folder() -> Path:
    """The user's data folder for ldp-audit's results (XDG base directories), never the working directory."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base).expanduser() / "ldp-audit"


def check_paths(args, results: Path) -> None:
    """Before any work: the results folder can be written (``files.check_output_folder``: a writable folder, names
    the file system takes, room on its disk and under the file size limit; exit 2 naming --results and the path
    otherwise). The CLI has proven --out, --plot and the dataset cache folder already."""
    from ..files import check_output_folder

    given = getattr(args, "results", None) is not None
    check_output_folder("--results" if given else f"the default results folder (--results left out; {DATA_HOME_HELP})",
                        results)


def add_data_options(parser) -> None:
    """``--data-dir``, ``--cache-dir`` and ``--no-verify``, shared by every command that reads a dataset."""
    from ..models import data as datasets

    parser.add_argument("--data-dir", metavar="DIR", type=folder, help=f"dataset folder (default: ${datasets.ENV_DATA}, "
                                                          "else ../shared/datasets beside the project)")
    parser.add_argument("--cache-dir", metavar="DIR", type=folder, help=f"writable folder for torch-geometric's processed "
                                                           f"files (default: ${datasets.ENV_CACHE} or "
                                                           "~/.cache/ldp-audit)")
    parser.add_argument("--no-verify", action="store_true",
                        help="read the dataset files without checking them against the folder's SHA256SUMS (by "
                             "default a folder without SHA256SUMS, or a file without a line in it, is refused)")
