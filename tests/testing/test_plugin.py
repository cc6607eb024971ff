"""The pytest plugin, run in inner pytest sessions (pytester, in-process): the examples' own tests, a broken copy,
option handling, and the session false-alarm budget."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def inner(pytester, monkeypatch):
    """A pytester whose inner sessions import their own `examples` package, not one imported earlier."""
    for name in [n for n in sys.modules if n == "examples" or n.startswith("examples.")]:
        monkeypatch.delitem(sys.modules, name)
    return pytester


def _examples(pytester, old=None, new=None):
    text = (REPO / "examples" / "my_mech.py").read_text()
    if old is not None:
        assert text.count(old) == 1
        text = text.replace(old, new)
    pytester.mkpydir("examples")
    (pytester.path / "examples" / "my_mech.py").write_text(text)
    (pytester.path / "examples" / "test_my_mech.py").write_text((REPO / "examples" / "test_my_mech.py").read_text())


def test_examples_tests_pass_with_the_plugin(inner):
    _examples(inner)
    result = inner.runpytest("examples", "--ldp-audit-samples", "100000")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["ldp-audit: 5 statistical assertion(s) at alpha=1e-05 each (samples=100000, "
                                 "seed=20240601); session false-alarm rate <= 5e-05 (<= 0.001 for up to 100)"])


def test_broken_copy_fails_with_a_helpful_message(inner):
    _examples(inner, "(self.k - 1) * math.exp(-self.eps))", "(self.k - 1) * math.exp(-2 * self.eps))")
    result = inner.runpytest("examples", "-k", "privacy", "--ldp-audit-samples", "20000")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*AssertionError: assert_ldp k-ary randomized response (k=4) eps=1: verdict FAIL",
                                 "*FAIL privacy.whitebox: largest log density ratio over 4 inputs is 2, above the "
                                 "claimed eps=1*",
                                 "*FAIL privacy.blackbox: *ABOVE the claimed 1*seed = 20240601*",
                                 "*reproduce: assert_ldp(..., samples=20000, seed=20240601, alpha=1e-05)"])


OPTIONS_TEST = """
import numpy as np

def sample(x, n, rng):
    return np.where(rng.random(n) < np.e / (np.e + 1), x, 1 - x)

def test_configured(ldp_auditor):
    assert (ldp_auditor.samples, ldp_auditor.seed) == (5000, 7)
    assert abs(ldp_auditor.alpha - 0.01 / 4) < 1e-15
    report = ldp_auditor.assert_ldp(sample, eps=1.0, domain=[0, 1])
    assert report.settings["samples"] == 5000 and report.settings["seed"] == 7
    assert abs(report.settings["alpha"] - 0.0025) < 1e-15

def test_alpha_cannot_be_loosened(ldp_auditor):
    import pytest
    with pytest.raises(ValueError, match="exceeds the per-assertion level"):
        ldp_auditor.assert_ldp(sample, eps=1.0, domain=[0, 1], alpha=0.01)
    ldp_auditor.audit(sample, eps=1.0, domain=[0, 1], alpha=1e-4)  # a stricter level is fine
"""


def test_options_are_honoured(inner):
    inner.makepyfile(test_options=OPTIONS_TEST)
    result = inner.runpytest("--ldp-audit-samples", "5000", "--ldp-audit-seed", "7", "--ldp-audit-confidence",
                             "0.99", "--ldp-audit-max-assertions", "4")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["ldp-audit: 2 statistical assertion(s) at alpha=0.0025 each (samples=5000, seed=7); "
                                 "session false-alarm rate <= 0.005 (<= 0.01 for up to 4)"])


def test_exceeding_the_assertion_budget_fails_the_session(inner):
    inner.makepyfile(test_options=OPTIONS_TEST.replace("(5000, 7)", "(5000, 20240601)")
                     .replace("0.01 / 4", "0.001").replace('report.settings["seed"] == 7', "True")
                     .replace("0.0025", "0.001"))
    result = inner.runpytest("--ldp-audit-samples", "5000", "--ldp-audit-max-assertions", "1")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*2 statistical assertion(s)*EXCEEDS the stated 0.001: 2 assertions > "
                                 "--ldp-audit-max-assertions=1*"])


#: Bad option values and what the usage error says: the option, the allowed range (the CLI's, from the one
#: validation layer) and the value received.
BAD_OPTIONS = [
    ("--ldp-audit-confidence", "1.5", "(0, 1 - 1e-12]"),
    ("--ldp-audit-confidence", "0.9999999999999999", "(0, 1 - 1e-12]"),  # rounds to a false-alarm rate of 0
    ("--ldp-audit-confidence", "0", "(0, 1 - 1e-12]"),
    ("--ldp-audit-confidence", "nan", "expected a number"),
    ("--ldp-audit-samples", "10", "[1000, 1e+12]"),
    ("--ldp-audit-samples", "1e15", "[1000, 1e+12]"),
    ("--ldp-audit-samples", "1000.5", "[1000, 1e+12]"),
    ("--ldp-audit-samples", "many", "expected a number"),
    ("--ldp-audit-max-assertions", "0", "[1, 1e+12]"),
    ("--ldp-audit-seed", "-1", "[0, 2^63 - 1]"),
    ("--ldp-audit-seed", "1e19", "[0, 2^63 - 1]"),
    ("--ldp-audit-workers", "65", "[1, 64]"),
    ("--ldp-audit-scheduler", "tcp://bad", "tcp://HOST:PORT"),
    ("--ldp-audit-scheduler", "tcp://host:99999", "tcp://HOST:PORT"),
    ("--ldp-audit-scheduler", "localhost:8786", "tcp://HOST:PORT"),
]


@pytest.mark.parametrize("option,value,allowed", BAD_OPTIONS)
def test_bad_options_are_usage_errors(inner, option, value, allowed):
    inner.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = inner.runpytest(option, value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = result.stderr.str()
    assert f"argument {option}:" in error and allowed in error and repr(value) in error, error
    assert "Traceback" not in error


def test_plugin_defaults_match_the_library():
    import ldp_audit.testing as testing
    from ldp_audit.testing import plugin

    assert plugin.DEFAULT_SAMPLES == testing.DEFAULT_SAMPLES and plugin.DEFAULT_SEED == testing.DEFAULT_SEED
    assert (1 - plugin.DEFAULT_CONFIDENCE) / plugin.DEFAULT_MAX_ASSERTIONS == pytest.approx(testing.DEFAULT_ALPHA)


def test_the_docs_example_runs_as_written(inner):
    """The pytest plugin page's example (docs/guide/pytest-plugin.md), copied verbatim, passes in a fresh session."""
    readme = (REPO / "docs" / "guide" / "pytest-plugin.md").read_text()
    start = readme.index("# test_my_mech.py -- run from the repository root")
    block = readme[start:readme.index("```", start)]
    _examples(inner)
    (inner.path / "test_readme_example.py").write_text(block)
    result = inner.runpytest("test_readme_example.py", "--ldp-audit-samples", "50000")
    result.assert_outcomes(passed=2)


# ----- the engine option: CI audits on a process pool or a Dask cluster (the helpers: tests/audits/kernel/test_engines.py)
ENGINE_TEST = """
import numpy as np

def sample(x, n, rng):
    return np.where(rng.random(n) < np.e / (np.e + 1), x, 1 - x)

def test_on_the_session_pool(ldp_auditor):
    first = ldp_auditor.assert_ldp(sample, eps=1.0, domain=[0, 1])
    second = ldp_auditor.audit(sample, eps=1.0, domain=[0, 1], checks="privacy")
    assert first.settings["engine"] == "processes" and first.settings["workers"] == 2
    assert ldp_auditor._running is not None  # one pool for the whole session
    assert first.results[-1].to_dict() == second.results[-1].to_dict()
"""


def test_the_plugin_runs_every_assertion_on_the_configured_engine(inner):
    inner.makepyfile(test_ldp_engine_option=ENGINE_TEST)
    result = inner.runpytest("--ldp-audit-samples", "5000", "--ldp-audit-engine", "processes",
                             "--ldp-audit-workers", "2")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize("args,message", [
    (["--ldp-audit-engine", "spark"], "--ldp-audit-engine must be one of local, processes, dask"),
    (["--ldp-audit-workers", "0"], "argument --ldp-audit-workers: must be an integer in [[]1, 64], got '0'"),
    (["--ldp-audit-scheduler", "tcp://h:1"], "--ldp-audit-scheduler needs --ldp-audit-engine dask"),
])
def test_bad_engine_options_are_usage_errors(inner, args, message):
    inner.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = inner.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


def test_plugin_engines_match_the_library():
    from ldp_audit.audits.kernel.engines import ENGINES
    from ldp_audit.testing import plugin

    assert plugin.ENGINES == ENGINES
