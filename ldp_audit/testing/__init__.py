"""Statistical assertions for a test suite: ``assert_ldp``, ``assert_moments`` and ``audit``.

    from ldp_audit.testing import assert_ldp, assert_moments

    def test_my_randomizer_is_private():
        assert_ldp(my_mechanism, eps=1.0)            # AssertionError with the rendered report on failure

Each assertion runs the audits of :mod:`ldp_audit.external` (or of the engine, for built-in mechanisms) with a
fixed seed and a false-alarm rate ``alpha``: a correct mechanism fails one assertion with probability at most
``alpha``. The default ``alpha`` is 1e-5, so that a suite of up to 100 assertions fails by chance with
probability at most 1e-3 (union bound). The pytest plugin (:mod:`ldp_audit.testing.plugin`) makes this a
configured, enforced session-wide budget; see its docstring.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from typing import Callable

from ..commands.render import to_markdown
from ..audits.kernel.engines import Engine, check_engine_options, engine_name, open_engine
from ..audits.kernel.result import AuditReport, Status
from ..audits.kernel.sampling import using
from ..audits.verify.orchestrator import DEFAULT_SEED, AuditSettings, verify
from ..external.audit import adapted
from ..external.protocol import as_mechanism
from ..mechanisms.validation import MAX_WORKERS, check_eps, check_int

#: Draws per input of one assertion.
DEFAULT_SAMPLES = 200_000
#: False-alarm rate of one assertion (100 assertions: at most 1e-3 for the whole suite).
DEFAULT_ALPHA = 1e-5

__all__ = ["assert_ldp", "assert_moments", "audit", "failure_message", "DEFAULT_SAMPLES", "DEFAULT_ALPHA",
           "DEFAULT_SEED"]


def _settings(samples, seed, alpha, workers, engine, require_seeded=False) -> AuditSettings:
    check_int(workers, "workers", 1, MAX_WORKERS)  # 0 or -1 used to become 1 silently
    # the pickle check of a process pool; Dask ships closures too (cloudpickle) and checks its workers itself
    pool = engine_name(engine, workers) == "processes"
    return AuditSettings(samples=samples, seed=seed, alpha=alpha, workers=workers if pool else 1,
                         require_seeded=require_seeded)


@contextmanager
def _engine(engine, workers: int, scheduler: str | None, mechanism):
    """The engine an assertion runs on (``engines.open_engine``): an :class:`~ldp_audit.audits.kernel.engines.Engine`
    given by the caller (left open, e.g. the plugin's one cluster for the whole session), or one made from
    ``engine`` / ``workers`` / ``scheduler`` for this call (closed after it)."""
    with open_engine(engine, workers, scheduler, mechanism) as running, using(running):
        yield running


def _run(mech, samples, seed, alpha, workers, engine, scheduler, progress=None, checks="all",
         title=None, require_seeded=False) -> AuditReport:
    """``verify`` on the chosen engine; engine, scheduler and workers go into the report's settings only."""
    name = engine.name if isinstance(engine, Engine) else engine
    settings = _settings(samples, seed, alpha, workers, name, require_seeded)
    if not isinstance(engine, Engine):  # the CLI's rules (workers only where there are workers), in Python words
        check_engine_options(name, workers, scheduler, workers_given=True, flags=False)
    with _engine(engine, workers, scheduler, mech) as running:
        report = verify(mech, settings, progress, checks, title=title)
    return replace(report, settings={**report.settings, **running.settings()})


def failure_message(report: AuditReport, call: str = "") -> str:
    """Plain text for an AssertionError: each failed check with its statistic, bound, sample size and seed, how
    to reproduce, then the whole report as Markdown."""
    lines = [f"{report.title}: verdict {report.verdict.value.upper()}"]
    for r in report.results:
        if r.status not in (Status.FAIL, Status.INCONCLUSIVE, Status.WARN):
            continue
        stat = f"{r.statistic_name or 'statistic'} = {r.statistic:.6g}" if r.statistic is not None else ""
        bound = f"bound {r.threshold:.6g}" if r.threshold is not None else ""
        where = ", ".join(part for part in (stat, bound, f"n = {r.n}" if r.n else "",
                                            f"seed = {r.seed}" if r.seed is not None else "",
                                            f"alpha = {r.alpha:.3g}" if r.alpha else "") if part)
        lines.append(f"  {r.status.value.upper()} {r.name}: {r.explanation}" + (f" [{where}]" if where else ""))
    s = report.settings
    if s:
        lines.append(f"  reproduce: {call or 'audit'}(..., samples={s.get('samples')}, seed={s.get('seed')}, "
                     f"alpha={s.get('alpha')})")
    return "\n".join(lines) + "\n\n" + to_markdown(report)


def _raise_unless_passed(report: AuditReport, call: str) -> AuditReport:
    """The report when its verdict is PASS; an AssertionError otherwise. INCONCLUSIVE fails the assertion too: a
    check that could not see (a report of opaque hash seeds with no ``supports``, too few samples) proves nothing,
    and a test that passed on it would be the silent PASS an auditor must never give (``verify`` exits 4)."""
    if report.verdict != Status.PASS:
        raise AssertionError(failure_message(report, call))
    return report


def audit(mechanism, eps: float | None = None, *, domain=None, checks="all", samples: int = DEFAULT_SAMPLES,
          seed: int = DEFAULT_SEED, alpha: float = DEFAULT_ALPHA, workers: int = 1, engine=None,
          scheduler: str | None = None, progress: Callable[[int], None] | None = None, require_seeded: bool = False,
          **claims) -> AuditReport:
    """The selected audits (``checks``: "all", "privacy", "moments", "distribution", "float" or a list; "all" leaves
    out the opt-in "float", the bits of float reports: "all,float" runs everything) of ``mechanism``
    (a user's object in any protocol shape, or a built-in), exactly as ``ldp-audit verify`` runs them; never
    raises on a failed check: inspect ``report.passed`` / ``report.failures()``. ``eps``, ``domain`` and
    ``claims`` override what the object declares (see :func:`ldp_audit.external.as_mechanism`).

    ``engine`` ("local", the default, or "processes" when ``workers`` > 1; "processes" with ``workers``
    processes; "dask" on ``scheduler`` or a LocalCluster of ``workers`` workers; or an open
    :class:`~ldp_audit.audits.kernel.engines.Engine`) says where the draws run, like ``verify --engine``; it never
    changes a number. The assertions take the same options.

    A sampler that draws from a generator of its own (OpenDP, python-dp) is audited on fresh draws, with a WARN
    row ``sanity.determinism``; ``require_seeded=True`` makes that row a failure (as ``verify --require-seeded``)."""
    mech = adapted(mechanism, None if eps is None else check_eps(eps), domain, **claims)
    return _run(mech, samples, seed, alpha, workers, engine, scheduler, progress, checks, f"audit {mech.name}",
                require_seeded)


def assert_ldp(mechanism, eps: float, *, domain=None, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED,
               alpha: float = DEFAULT_ALPHA, workers: int = 1, engine=None, scheduler: str | None = None,
               require_seeded: bool = False, float_bits: bool = False, **claims) -> AuditReport:
    """Assert that ``mechanism`` is ``eps``-LDP (``(eps, delta)`` with ``delta=...``): ``audit`` with
    ``checks="privacy"`` (sanity checks, the exact white-box rows when a law is declared, the black-box search on
    the mechanism's samples). Raises AssertionError with the rendered report on a failure or an INCONCLUSIVE
    verdict; returns the report. An unseedable sampler passes with a WARN row unless ``require_seeded=True``.
    ``float_bits=True`` adds the float check (``checks="privacy,float"``, the two sharing ``alpha``): the bits of
    float reports, where a textbook sampler on doubles leaks (Mironov 2012)."""
    eps = check_eps(eps)  # checked here too: a built-in whose own eps equals float(eps) is used as it is
    if not isinstance(float_bits, bool):
        raise TypeError(f"float_bits must be True or False, got {float_bits!r}")
    mech = adapted(mechanism, eps, domain, **claims)
    report = _run(mech, samples, seed, alpha, workers, engine, scheduler,
                  checks="privacy,float" if float_bits else "privacy",
                  title=f"assert_ldp {mech.name} eps={eps:g}", require_seeded=require_seeded)
    return _raise_unless_passed(report, "assert_ldp")


def assert_moments(mechanism, mean: Callable | None = None, var: Callable | None = None, *, of: str | None = None,
                   domain=None, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED,
                   alpha: float = DEFAULT_ALPHA, workers: int = 1, engine=None, scheduler: str | None = None,
                   require_seeded: bool = False, **claims) -> AuditReport:
    """Assert that sample means and variances match formulas (z-tests, Bonferroni over inputs and families):
    ``audit`` with ``checks="moments"``.

    ``mean`` / ``var`` are functions of the input x; ``of`` says whose moments they are: ``"estimate"`` (the
    mechanism's estimator applied to its reports; the default when it has one) or ``"report"`` (the raw report).
    Without ``mean`` and ``var`` the mechanism's own declared claims are tested (for a built-in: its paper's
    formulas, exactly as ``ldp-audit verify`` tests them). Raises AssertionError with the rendered report on a
    failure or an INCONCLUSIVE verdict; returns the report otherwise.
    """
    if of not in (None, "estimate", "report"):
        raise ValueError(f"of must be 'estimate' or 'report', got {of!r}")
    if mean is not None and not callable(mean):
        raise ValueError(f"mean must be a function of the input x, got {type(mean).__name__}")
    if var is not None and not callable(var):
        raise ValueError(f"var must be a function of the input x, got {type(var).__name__}")
    if mean is None and var is None:
        mech = adapted(mechanism, None, domain, require_eps=False, **claims)
        if not any(any(m) for m in dict(mech.moment_claims).values()):
            raise ValueError(f"{mech.name} declares no moment claims: pass mean=... and/or var=..., or give it "
                             f"report_mean/report_var or estimate/estimate_var")
    else:
        base = as_mechanism(mechanism, None, domain, require_eps=False, **claims)
        target = of or ("estimate" if base.estimator is not None else "report")
        if target == "estimate" and base.estimator is None:
            raise ValueError(f"of='estimate' needs an estimator: {base.name} has no estimate(reports)")
        claimed = {"report_mean_fn": None, "report_var_fn": None, "estimate_mean_fn": None, "estimate_var_fn": None,
                   f"{target}_mean_fn": mean, f"{target}_var_fn": var}
        mech = replace(base, **claimed)
    report = _run(mech, samples, seed, alpha, workers, engine, scheduler, checks="moments",
                  title=f"assert_moments {mech.name}", require_seeded=require_seeded)
    return _raise_unless_passed(report, "assert_moments")

