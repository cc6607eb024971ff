"""pytest plugin (entry point ``pytest11``): configured, reproducible LDP assertions with a session-wide error budget.

Options (command line, or ``addopts`` in your pytest configuration):

* ``--ldp-audit-samples N``   draws per input of every assertion (default 200000);
* ``--ldp-audit-seed S``      seed of every assertion (default 20240601); a failure message names it;
* ``--ldp-audit-confidence C``  1 - the family-wise false-alarm rate of the WHOLE session (default 0.999);
* ``--ldp-audit-max-assertions M``  the number of statistical assertions the session may make (default 100);
* ``--ldp-audit-engine E``   where the draws run: local (default), processes or dask (as ``verify --engine``; one
  pool or cluster for the whole session, started at the first assertion); never changes a number;
* ``--ldp-audit-workers W``  worker processes of that engine (default 1);
* ``--ldp-audit-scheduler tcp://HOST:PORT``  Dask scheduler for ``--ldp-audit-engine dask`` (default:
  ``$DASK_SCHEDULER_ADDRESS``, else a LocalCluster of W workers);
* ``--ldp-audit-require-seeded``  fail every assertion whose sampler is not reproducible from its seed (by
  default such a sampler, e.g. OpenDP's or python-dp's own secure generator, is audited on fresh draws and
  its ``sanity.determinism`` row is a WARN).

How the session's false-alarm rate is bounded: every assertion made through the ``ldp_auditor`` fixture runs at
the fixed level ``alpha = (1 - C) / M`` (default 1e-3 / 100 = 1e-5). A correct mechanism fails one assertion
with probability at most ``alpha`` whatever the other assertions do, so by the union bound a session of N <= M
assertions fails by chance with probability at most ``N alpha <= 1 - C``. The level does not depend on which
tests run or in which order, so a failing test re-run alone reproduces bit for bit. The plugin counts the
assertions; when a session makes more than M, the bound no longer holds and the session fails with a message
saying so (raise M, which lowers alpha, or lower the number of assertions). Under pytest-xdist each worker
counts its own assertions; M then bounds each worker, so divide it by the number of workers.

The fixture::

    def test_private(ldp_auditor):
        ldp_auditor.assert_ldp(my_mechanism, eps=1.0)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import pytest

# The plugin loads in every pytest session of an environment where ldp-audit is installed, so it imports the
# audit machinery (scipy, statsmodels) only when an assertion runs. These equal ldp_audit.testing's defaults
# (a test checks it).
DEFAULT_SAMPLES = 200_000
DEFAULT_SEED = 20240601
DEFAULT_CONFIDENCE = 0.999
DEFAULT_MAX_ASSERTIONS = 100
#: The engines of ldp_audit.audits.kernel.engines (a test checks it).
ENGINES = ("local", "processes", "dask")
#: The smallest false-alarm rate of one assertion: 1 - MAX_CONFIDENCE of ldp_audit.mechanisms.validation (a test
#: checks it).
MIN_ALPHA = 1e-12

_AUDITOR = pytest.StashKey["LdpAuditor"]()


@dataclass
class LdpAuditor:
    """The configured auditor: ``assert_ldp``, ``assert_moments`` and ``audit`` at the session's settings.

    Keyword arguments given to a method override the configured ``samples``, ``seed`` and ``alpha``; an override
    of ``alpha`` above the configured one voids the session bound and is refused.
    """

    samples: int = DEFAULT_SAMPLES
    seed: int = DEFAULT_SEED
    confidence: float = DEFAULT_CONFIDENCE
    max_assertions: int = DEFAULT_MAX_ASSERTIONS
    engine: str = "local"
    workers: int = 1
    scheduler: str | None = None
    require_seeded: bool = False
    made: list = field(default_factory=list)
    _running: object = field(default=None, repr=False)

    def _session_engine(self):
        """The session's engine, started at the first assertion that needs it (local: nothing to start)."""
        if self.engine == "local":
            return "local"
        if self._running is None:
            from ..audits.kernel.engines import make_engine

            self._running = make_engine(self.engine, self.workers, self.scheduler)
        return self._running

    def close(self) -> None:
        if self._running is not None:
            self._running.close()
            self._running = None

    @property
    def session_alpha(self) -> float:
        return round(1.0 - self.confidence, 15)

    @property
    def alpha(self) -> float:
        """False-alarm rate of one assertion."""
        return self.session_alpha / self.max_assertions

    def _options(self, what: str, options: dict) -> dict:
        merged = {"samples": self.samples, "seed": self.seed, "alpha": self.alpha,
                  "require_seeded": self.require_seeded, **options}
        if "engine" not in options:
            merged["engine"] = self._session_engine()
        if "alpha" in options:  # named as the settings name it, before it is compared with the session's level
            from ..audits.verify.orchestrator import check_false_alarm_rate

            check_false_alarm_rate(options["alpha"])
        if merged["alpha"] > self.alpha:
            raise ValueError(f"alpha={merged['alpha']:g} exceeds the per-assertion level {self.alpha:g} that keeps "
                             f"the session's false-alarm rate <= {self.session_alpha:g}")
        self.made.append(what)
        return merged

    def assert_ldp(self, mechanism, eps, **options):
        from . import assert_ldp

        return assert_ldp(mechanism, eps, **self._options("assert_ldp", options))

    def assert_moments(self, mechanism, mean=None, var=None, **options):
        from . import assert_moments

        return assert_moments(mechanism, mean, var, **self._options("assert_moments", options))

    def audit(self, mechanism, eps=None, **options):
        from . import audit

        return audit(mechanism, eps, **self._options("audit", options))

    @property
    def bound(self) -> float:
        """Union bound on the probability that any assertion made so far failed by chance."""
        return len(self.made) * self.alpha


def pytest_addoption(parser):
    """The options, parsed by the CLI's own option types (``ldp_audit.commands.options``: the same ranges and caps
    as ``ldp-audit verify``), so a bad value is a usage error naming the option before any test runs."""
    from ..commands.options import confidence, integer, scheduler, seed
    from ..mechanisms.validation import MAX_WORKERS

    group = parser.getgroup("ldp-audit", "statistical LDP assertions (ldp_audit.testing)")
    group.addoption("--ldp-audit-samples", type=integer(1000), default=DEFAULT_SAMPLES, metavar="N",
                    help="draws per input of every ldp-audit assertion, in [1000, 1e12] (default %(default)s)")
    group.addoption("--ldp-audit-seed", type=seed, default=DEFAULT_SEED, metavar="S",
                    help="seed of every ldp-audit assertion, in [0, 2^63 - 1] (default %(default)s)")
    group.addoption("--ldp-audit-confidence", type=confidence, default=DEFAULT_CONFIDENCE, metavar="C",
                    help="1 - family-wise false-alarm rate of the whole session, in (0, 1 - 1e-12] "
                         "(default %(default)s)")
    group.addoption("--ldp-audit-max-assertions", type=integer(1), default=DEFAULT_MAX_ASSERTIONS, metavar="M",
                    help="statistical assertions the session may make; each runs at alpha = (1 - C) / M "
                         "(default %(default)s)")
    group.addoption("--ldp-audit-engine", default="local", metavar="|".join(ENGINES),
                    help="where the draws of every assertion run (one pool or cluster per session); never changes a "
                         "number (default %(default)s)")
    group.addoption("--ldp-audit-workers", type=integer(1, MAX_WORKERS), default=1, metavar="W",
                    help=f"worker processes of --ldp-audit-engine processes or dask, in [1, {MAX_WORKERS}] "
                         "(default %(default)s)")
    group.addoption("--ldp-audit-scheduler", type=scheduler, default=None, metavar="tcp://HOST:PORT",
                    help="Dask scheduler for --ldp-audit-engine dask (default: $DASK_SCHEDULER_ADDRESS, else a "
                         "LocalCluster of W workers)")
    group.addoption("--ldp-audit-require-seeded", action="store_true", default=False,
                    help="fail assertions whose sampler is not reproducible from its seed (default: a WARN row)")


def pytest_configure(config):
    engine, scheduler = config.getoption("--ldp-audit-engine"), config.getoption("--ldp-audit-scheduler")
    if engine not in ENGINES:
        raise pytest.UsageError(f"--ldp-audit-engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if scheduler and engine != "dask":
        raise pytest.UsageError(f"--ldp-audit-scheduler needs --ldp-audit-engine dask (got {engine})")
    workers = config.getoption("--ldp-audit-workers")
    if engine == "local" and workers > 1:
        raise pytest.UsageError(f"--ldp-audit-workers {workers} needs --ldp-audit-engine processes or dask: the "
                                "local engine runs every chunk in the test's own process")
    auditor = LdpAuditor(
        config.getoption("--ldp-audit-samples"), config.getoption("--ldp-audit-seed"),
        config.getoption("--ldp-audit-confidence"), config.getoption("--ldp-audit-max-assertions"), engine,
        workers, scheduler, config.getoption("--ldp-audit-require-seeded"))
    if auditor.alpha < MIN_ALPHA:
        raise pytest.UsageError(
            f"--ldp-audit-max-assertions {auditor.max_assertions} splits the session's false-alarm rate "
            f"{auditor.session_alpha:g} into {auditor.alpha:.3g} per assertion, below the smallest rate an audit "
            f"takes ({MIN_ALPHA:g}); at confidence {auditor.confidence:g} the most is "
            f"{math.floor(auditor.session_alpha / MIN_ALPHA + 1e-9):,}")
    config.stash[_AUDITOR] = auditor


def pytest_unconfigure(config):
    auditor = config.stash.get(_AUDITOR, None)
    if auditor is not None:
        auditor.close()


@pytest.fixture(scope="session")
def ldp_auditor(pytestconfig) -> LdpAuditor:
    """The session's :class:`LdpAuditor`, configured by the ``--ldp-audit-*`` options."""
    return pytestconfig.stash[_AUDITOR]


def _over_budget(auditor: LdpAuditor) -> bool:
    return len(auditor.made) > auditor.max_assertions


def pytest_sessionfinish(session, exitstatus):
    auditor = session.config.stash.get(_AUDITOR, None)
    if auditor is not None and _over_budget(auditor) and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    auditor = config.stash.get(_AUDITOR, None)
    if auditor is None or not auditor.made:
        return
    n = len(auditor.made)
    line = (f"ldp-audit: {n} statistical assertion(s) at alpha={auditor.alpha:.3g} each (samples={auditor.samples}, "
            f"seed={auditor.seed}); session false-alarm rate <= {auditor.bound:.3g}")
    if _over_budget(auditor):
        terminalreporter.write_line(
            line + f" -- EXCEEDS the stated {auditor.session_alpha:g}: {n} assertions > --ldp-audit-max-assertions="
                   f"{auditor.max_assertions}; raise it (lowering alpha) to restore the bound", red=True)
    else:
        terminalreporter.write_line(line + f" (<= {auditor.session_alpha:g} for up to {auditor.max_assertions})")
