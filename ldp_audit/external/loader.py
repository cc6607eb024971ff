"""``load_external("package.module:factory", eps, params)``: import a user's factory and build the mechanism."""
from __future__ import annotations

import contextlib
import importlib
import inspect
import math
import sys
from pathlib import Path

from .protocol import ExternalMechanism, as_mechanism, is_builtin


def _import(module_name: str):
    """Import ``module_name``. When that fails and the working directory holds the module's top-level package,
    retry with the working directory first on sys.path (so ``ldp-audit verify examples.my_mech:make`` works from a
    checkout, as ``python -m`` would), forgetting an installed package of the same top-level name that shadows it."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        top = module_name.split(".")[0]
        local = Path.cwd()
        if exc.name is None or exc.name.split(".")[0] != top or not (
                (local / top / "__init__.py").is_file() or (local / f"{top}.py").is_file()):
            raise
        if str(local) in sys.path:
            sys.path.remove(str(local))
        sys.path.insert(0, str(local))
        cached = sys.modules.get(top)
        origin = getattr(cached, "__file__", None) or ""
        if cached is not None and not Path(origin).resolve().is_relative_to(local.resolve()):
            for name in [n for n in sys.modules if n == top or n.startswith(top + ".")]:
                del sys.modules[name]
        importlib.invalidate_caches()
        return importlib.import_module(module_name)


def load_external(spec: str, eps: float, params: dict) -> ExternalMechanism:
    """Import ``module:factory``, call ``factory(eps=eps, **params)`` and adapt what it returns.

    Raises ``ValueError`` with a message saying what went wrong: a malformed spec, an import error, a missing
    attribute, a factory that raised, or an object that does not fit the protocol (naming what is missing).
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr or ":" in attr:
        raise ValueError(f"MECH must be 'package.module:factory', got {spec!r}")
    try:
        with contextlib.redirect_stdout(sys.stderr):  # a print in the user's module must not break --json output
            module = _import(module_name)
    except SystemExit as exc:  # the user's module ended the interpreter: say so instead of exiting with its code
        raise ValueError(f"importing module {module_name!r} (from {spec!r}) called sys.exit({exc.code!r}); a "
                         f"mechanism module must not exit (guard script code with if __name__ == '__main__')") from exc
    except Exception as exc:  # ImportError, or any error raised while the user's module runs
        raise ValueError(f"cannot import module {module_name!r} (from {spec!r}): {type(exc).__name__}: {exc}. "
                         f"Is it installed, or on PYTHONPATH / in the current directory?") from exc
    factory = module
    for part in attr.split("."):
        if not hasattr(factory, part):
            public = sorted(n for n in dir(module) if not n.startswith("_") and callable(getattr(module, n)))
            raise ValueError(f"module {module_name!r} has no attribute {attr!r}; its callables are: "
                             f"{', '.join(public) or 'none'}")
        factory = getattr(factory, part)
    if not callable(factory):
        raise ValueError(f"{spec!r} is a {type(factory).__name__}, not a factory: it must be callable as "
                         f"factory(eps=..., **params)")
    try:
        inspect.signature(factory).bind(eps=eps, **params)
    except TypeError as exc:
        raise ValueError(f"factory {spec!r} does not accept eps={eps!r}, params {params!r}: {exc}") from exc
    except ValueError:
        pass  # no signature available (builtins, C functions): just call it
    try:
        with contextlib.redirect_stdout(sys.stderr):
            obj = factory(eps=eps, **params)
    except SystemExit as exc:
        raise ValueError(f"factory {spec!r} called sys.exit({exc.code!r}) for eps={eps!r}, params {params!r}; a "
                         f"factory must return a mechanism (or raise an exception saying what is wrong)") from exc
    except Exception as exc:
        raise ValueError(f"factory {spec!r} raised {type(exc).__name__} for eps={eps!r}, params {params!r}: "
                         f"{exc}") from exc
    declared = getattr(obj, "eps", None) if not isinstance(obj, dict) else obj.get("eps")
    if declared is not None and (isinstance(declared, bool) or not isinstance(declared, (int, float))
                                 or not math.isfinite(declared)):
        raise ValueError(f"factory {spec!r} returned a mechanism whose eps is {declared!r}, not a finite number")
    if declared is not None and isinstance(declared, (int, float)) and abs(float(declared) - eps) > 1e-12 * max(1, eps):
        raise ValueError(f"factory {spec!r} was asked for eps={eps:g} but returned a mechanism with eps={declared!r}")
    if is_builtin(obj):  # one of this library's mechanisms (e.g. a sampled one): audited as the built-in it is
        return obj
    mechanism = as_mechanism(obj, eps=eps, params=dict(params), name=_name_of(obj, spec),
                             reference=_reference_of(obj, spec))
    return mechanism


def _name_of(obj, spec):
    name = obj.get("name") if isinstance(obj, dict) else getattr(obj, "name", None)
    return name or spec


def _reference_of(obj, spec):
    ref = obj.get("reference") if isinstance(obj, dict) else getattr(obj, "reference", None)
    return ref or f"{spec}: user's claim"
