"""Calls into a user's code, kept apart from the audit's own output and errors.

Every function a user hands in (``sample``, ``pdf``, ``report_mean``, ``estimate``, ``supports``, ``key``...) is
wrapped once in a :class:`UserCall`. While it runs, what it prints goes to stderr (stdout carries the report:
``ldp-audit verify ... --json`` must stay parseable); whatever it raises, ``sys.exit`` included, becomes a
:class:`UserCodeError` naming the method, and what it returns is checked against what the protocol allows
(finite numbers, one estimate per report...), so the command line exits 2 with ``ldp-audit: error: NAME: pdf(y, x)
raised ...`` instead of a traceback or a statistic computed from garbage, and the Python API raises a ``ValueError``
that says which method failed. The wrapper runs wherever the function runs, worker processes included.
"""
from __future__ import annotations

import reprlib
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable

import numpy as np


class UserCodeError(ValueError):
    """A user's function raised, exited, or returned something the protocol does not allow; the message names the
    method, the value received and what is allowed."""


_REDIRECTING = threading.Lock()
_inside = 0  # user calls running now, in any thread
_stdout = None  # sys.stdout as it was before the first of them


@contextmanager
def _prints_to_stderr():
    """sys.stdout is sys.stderr while any user call runs, in any thread (a Dask worker's threads run several at
    once). ``contextlib.redirect_stdout`` in each would race: two overlapping calls can restore each other's
    stream and leave stdout on stderr for good, and the report with it."""
    global _inside, _stdout
    with _REDIRECTING:
        if _inside == 0:
            _stdout, sys.stdout = sys.stdout, sys.stderr
        _inside += 1
    try:
        yield
    finally:
        with _REDIRECTING:
            _inside -= 1
            if _inside == 0:
                sys.stdout, _stdout = _stdout, None


@dataclass(frozen=True)
class UserCall:
    """``fn`` (a user's ``method``, e.g. ``"pdf(y, x)"``, of the mechanism ``owner``) with its prints on stderr and
    its errors reported as :class:`UserCodeError`; ``returns(call, value, args)`` checks (and converts) what it
    returned. Picklable when ``fn`` is."""

    fn: Callable
    method: str
    owner: str
    returns: Callable | None = None

    def __call__(self, *args):
        with _prints_to_stderr():
            try:
                value = self.fn(*args)
            except UserCodeError:
                raise
            except SystemExit as exc:  # user code must not end the audit, nor choose its exit code
                raise UserCodeError(f"{self.owner}: {self.shown(args)} called sys.exit({exc.code!r})") from exc
            except Exception as exc:
                raise UserCodeError(f"{self.owner}: {self.shown(args)} raised {type(exc).__name__}: {exc}") from exc
        return value if self.returns is None else self.returns(self, value, args)

    def shown(self, args) -> str:
        """The call as written in the protocol, with the arguments that are single values filled in:
        ``sample(1, 2000, rng)``, ``pdf(y, 0.5)``."""
        head, paren, rest = self.method.partition("(")
        names = rest[:-1].split(", ") if paren and rest.endswith(")") and "(" not in rest else []
        if len(names) != len(args):
            return self.method
        filled = [reprlib.repr(a) if isinstance(a, (str, int, float, np.number)) else name
                  for a, name in zip(args, names)]
        return f"{head}({', '.join(filled)})"

    def refuse(self, value, allowed: str, args=(), where: str = "") -> UserCodeError:
        """The error for a ``value`` this method returned when called with ``args`` (``where``: more on the call,
        e.g. " for 2000 reports") that is not ``allowed``."""
        return UserCodeError(f"{self.owner}: {self.shown(args)} returned {_describe(value)}{where}; it must return "
                             f"{allowed}")


def _describe(value) -> str:
    """A value a user's function returned, short: an array by its dtype and shape, anything else by its repr."""
    if isinstance(value, np.ndarray) and value.size > 4:
        return f"a {value.dtype} array of shape {value.shape}"
    return reprlib.repr(value.tolist() if isinstance(value, np.ndarray) else value)


def guarded(fn: Callable | None, method: str, owner: str, returns: Callable | None = None) -> UserCall | None:
    """``fn`` wrapped in a :class:`UserCall` (None, and a function wrapped already, stay as they are)."""
    return fn if fn is None or isinstance(fn, UserCall) else UserCall(fn, method, owner, returns)


def _numbers(call: UserCall, value, args, allowed: str) -> np.ndarray:
    """``value`` as an array of real numbers (floating types kept: a float32 law stays float32). A truth value is
    not a number here: ``report_mean`` returning True is a bug, not a claimed mean of 1."""
    array = np.asarray(value) if not isinstance(value, (str, bytes)) else None
    if array is not None and array.dtype.kind == "b":
        array = None
    if array is not None and array.dtype.kind not in "iuf":
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError):
            array = None
    if array is None:
        raise call.refuse(value, allowed, args)
    return array if array.dtype.kind == "f" else array.astype(np.float64)


def finite_reals(call: UserCall, value, args) -> np.ndarray:
    """A claimed moment (or a law's cdf): finite real numbers."""
    allowed = "finite real numbers (a number, or one per report coordinate)"
    array = _numbers(call, value, args, allowed)
    if not np.all(np.isfinite(array)):
        raise call.refuse(value, allowed, args)
    return array


def non_negative_reals(call: UserCall, value, args) -> np.ndarray:
    """A variance, a density or a probability: finite real numbers >= 0."""
    allowed = "finite real numbers >= 0"
    array = _numbers(call, value, args, allowed)
    if not np.all(np.isfinite(array) & (array >= 0)):
        raise call.refuse(value, allowed, args)
    return array


def a_delta(call: UserCall, value, args) -> float:
    """A declared privacy curve's value: one real number in [0, 1] (a delta)."""
    allowed = "one real number in [0, 1] (the delta of the curve at this eps)"
    array = _numbers(call, value, args, allowed)
    if array.size != 1 or not (np.isfinite(array).all() and 0.0 <= float(array.ravel()[0]) <= 1.0):
        raise call.refuse(value, allowed, args)
    return float(array.ravel()[0])


def one_per_report(call: UserCall, value, args) -> np.ndarray:
    """A server's ``estimate(reports)``: one finite estimate (a number or a vector) per report."""
    n = len(args[0])
    allowed = f"one finite estimate per report (an array whose first axis has length n={n})"
    array = _numbers(call, value, args, allowed)
    if array.ndim == 0 or array.shape[0] != n:
        raise call.refuse(value, allowed, args, f" for {n} reports")
    if not np.all(np.isfinite(array)):
        raise call.refuse(value, allowed, args, f" with NaN or infinite entries for {n} reports")
    return array


def log_likelihoods(call: UserCall, value, args) -> np.ndarray:
    """``report_loglik(values, x)``: one log likelihood per report, a real number or -inf (an impossible report)."""
    n = len(args[0])
    allowed = f"one log likelihood per report (shape ({n},)): real numbers, or -inf for an impossible report"
    array = _numbers(call, value, args, allowed)
    if array.shape != (n,) or np.any(np.isnan(array) | (array == np.inf)):
        raise call.refuse(value, allowed, args)
    return array
