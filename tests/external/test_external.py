"""A user's own mechanism: the protocol and its adapters, `ldp-audit verify module:factory`, and the Python API.

Every audit that the external path runs is shown to fail a deliberately broken mechanism (power) and to pass
the correct one. Fixed seeds throughout; sample sizes are the smallest that detect each bug with a wide margin.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from ldp_audit.cli import main
from ldp_audit.external import Box, FiniteSet, Interval, as_mechanism, audit_external, load_external
from ldp_audit.audits.verify.orchestrator import AuditSettings
from ldp_audit.mechanisms import make
from ldp_audit.testing import DEFAULT_ALPHA, DEFAULT_SAMPLES, assert_ldp, assert_moments, audit

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = (REPO / "examples" / "my_mech.py").read_text()
N = 20_000


@pytest.fixture
def isolated_imports(monkeypatch):
    """Forget any imported `examples` package and keep sys.path as it was, so each test imports its own copy."""
    for name in [n for n in sys.modules if n == "examples" or n.startswith("examples.") or n == "usermods"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield
    for name in [n for n in sys.modules if n == "examples" or n.startswith("examples.") or n == "usermods"]:
        del sys.modules[name]


def _copy_examples(root: Path, old: str | None = None, new: str | None = None) -> Path:
    """examples/ under root, with my_mech.py mutated by replacing ``old`` with ``new`` (the deliberate bug)."""
    text = EXAMPLE
    if old is not None:
        assert text.count(old) == 1, f"mutation anchor {old!r} not found exactly once"
        text = text.replace(old, new)
    (root / "examples").mkdir()
    (root / "examples" / "__init__.py").write_text("")
    (root / "examples" / "my_mech.py").write_text(text)
    return root


def _verify_json(capsys, *argv) -> tuple[int, dict | None, str]:
    code = main(["verify", *argv, "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code in (0, 1) else None), err


def _status(report: dict) -> dict:
    return {r["name"]: r["status"] for r in report["results"]}


# ----- the CLI on the examples ----------------------------------------------------------------------------------
def test_verify_example_from_repo_root_passes(monkeypatch, capsys, isolated_imports):
    monkeypatch.chdir(REPO)
    code, report, _ = _verify_json(capsys, "examples.my_mech:make", "--eps", "1", "--samples", str(N))
    assert code == 0, report
    status = _status(report)
    for name in ("sanity.shape", "sanity.finite", "sanity.support", "sanity.determinism", "law.mass",
                 "privacy.whitebox", "privacy.blackbox", "moments.mean", "moments.variance", "distribution.fit"):
        assert status[name] == "pass", name
    assert report["subject"]["level"] == "white-box" and report["settings"]["samples"] == N


BUGS = {
    "budget doubled": ("(self.k - 1) * math.exp(-self.eps))", "(self.k - 1) * math.exp(-2 * self.eps))",
                       [], {"privacy.whitebox", "privacy.blackbox"}),
    "biased estimator": ("(np.asarray(reports, dtype=float) - self.q * total)", "np.asarray(reports, dtype=float)",
                         [], {"moments.mean"}),
    "laplace sensitivity 1": ("self.scale = 2.0 / self.eps", "self.scale = 1.0 / self.eps",
                              ["--param", "mechanism=bounded_laplace"], {"privacy.whitebox", "privacy.blackbox"}),
}


@pytest.mark.parametrize("bug", list(BUGS))
def test_verify_fails_a_broken_copy(bug, tmp_path, monkeypatch, capsys, isolated_imports):
    old, new, extra, must_fail = BUGS[bug]
    monkeypatch.chdir(_copy_examples(tmp_path, old, new))
    monkeypatch.syspath_prepend(str(tmp_path))  # as `python -m` would: the broken copy shadows the repository's
    code, report, _ = _verify_json(capsys, "examples.my_mech:make", "--eps", "1", "--samples", str(N), *extra)
    assert code == 1
    failed = {name for name, status in _status(report).items() if status == "fail"}
    assert must_fail <= failed, failed


# ----- exit code 2: import errors and protocol mismatches ---------------------------------------------------------
USERMODS = '''
import numpy as np

def no_sampler(eps):
    return {"eps": eps, "domain": (-1.0, 1.0)}

def no_domain(eps):
    return {"eps": eps, "sample": lambda x, n, rng: rng.random(n)}

def pmf_without_support(eps):
    return {"eps": eps, "domain": [0, 1], "sample": lambda x, n, rng: rng.integers(0, 2, n),
            "pmf": lambda y, x: 0.5}

def wrong_eps(eps):
    return {"eps": 2 * eps, "domain": (0.0, 1.0), "sample": lambda x, n, rng: rng.random(n)}

def strict(eps, k=2):
    if k < 2:
        raise ValueError("k must be at least 2")
    return {"eps": eps, "domain": range(k), "sample": lambda x, n, rng: rng.integers(0, k, n)}

NOT_CALLABLE = 3
'''


@pytest.mark.parametrize("spec,extra,message", [
    ("no_such_module_xyz:make", [], "cannot import module 'no_such_module_xyz'"),
    ("usermods:missing", [], "has no attribute 'missing'"),
    ("usermods:NOT_CALLABLE", [], "not a factory"),
    ("usermods:", [], "package.module:factory"),
    ("usermods:no_sampler", [], "neither sample(x, n, rng) nor"),
    ("usermods:no_domain", [], "does not declare its input domain"),
    ("usermods:pmf_without_support", [], "no finite output `support`"),
    ("usermods:wrong_eps", [], "returned a mechanism with eps=2"),
    ("usermods:strict", ["--param", "k=1"], "raised ValueError"),
    ("usermods:strict", ["--param", "colour=red"], "does not accept"),
])
def test_import_and_protocol_errors_exit_2(spec, extra, message, tmp_path, monkeypatch, capsys, isolated_imports):
    (tmp_path / "usermods.py").write_text(USERMODS)
    monkeypatch.chdir(tmp_path)
    code, _, err = _verify_json(capsys, spec, "--eps", "1", "--samples", "2000", *extra)
    assert code == 2
    assert message in " ".join(err.split()), err


# ----- adapters and the audits they unlock --------------------------------------------------------------------------
def _rr_sample(eps):
    def sample(x, n, rng):
        keep = rng.random(n) < math.exp(eps) / (math.exp(eps) + 1.0)
        return np.where(keep, x, 1 - x)
    return sample


def test_blackbox_function_search_has_power():
    good = audit(_rr_sample(1.0), eps=1.0, domain=[0, 1], samples=N)
    bad = audit(_rr_sample(2.0), eps=1.0, domain=[0, 1], samples=N)
    assert good.passed and _names(good) == ["sanity.shape", "sanity.finite", "sanity.determinism", "privacy.blackbox"]
    assert good.subject["level"] == "black-box"
    search = bad.results[-1]
    assert search.name == "privacy.blackbox" and search.status.value == "fail" and search.statistic > 1.5
    assert search.details["pairs"] == 2


def _example_module():
    """examples/my_mech.py loaded from its file (a top-level `examples` package may be installed elsewhere)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("ldp_audit_example_my_mech", REPO / "examples" / "my_mech.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _names(report):
    return [r.name for r in report.results]


def test_perturb_style_and_box_domain():
    def perturb(xs, rng):  # vectorised over users; 3-dimensional inputs, Laplace per coordinate
        return xs + rng.laplace(scale=2.0 * 3 / 1.0, size=xs.shape)

    report = audit(perturb, eps=1.0, domain=(np.full(3, -1.0), np.full(3, 1.0)), samples=N)
    assert report.passed and report.subject["domain"] == "box of dimension 3"
    leaky = audit(lambda xs, rng: xs + rng.laplace(scale=0.5, size=xs.shape), eps=1.0,
                  domain=(np.full(3, -1.0), np.full(3, 1.0)), samples=N)
    assert leaky.results[-1].name == "privacy.blackbox" and not leaky.passed


def test_scipy_family_gets_whitebox_audits():
    fine = audit(lambda x: stats.laplace(loc=x, scale=2.0), eps=1.0, domain=(-1.0, 1.0), samples=N)
    assert fine.passed, fine.failures()
    assert {"privacy.whitebox", "moments.mean", "moments.variance", "distribution.fit"} <= set(_names(fine))
    leaky = audit(lambda x: stats.laplace(loc=x, scale=1.0), eps=1.0, domain=(-1.0, 1.0), samples=N)
    status = {r.name: r.status.value for r in leaky.results}
    assert status["privacy.whitebox"] == "fail" and status["privacy.blackbox"] == "fail"


def test_gaussian_family_delta_claim_uses_hockey_stick():
    sigma = lambda eps, delta: 2.0 * math.sqrt(2 * math.log(1.25 / delta)) / eps  # classical calibration, eps < 1
    ok = assert_ldp(lambda x: stats.norm(loc=x, scale=sigma(0.5, 1e-5)), 0.5, domain=(-1.0, 1.0), delta=1e-5,
                    samples=20_000)
    assert {r.name: r.status.value for r in ok.results}["privacy.whitebox"] == "pass"
    with pytest.raises(AssertionError, match="hockey-stick"):
        assert_ldp(lambda x: stats.norm(loc=x, scale=sigma(2.0, 1e-5)), 0.5, domain=(-1.0, 1.0), delta=1e-5,
                   samples=20_000)


class _RR:
    """k-RR on arbitrary (non-consecutive) category values with a pmf, for mutants of each piece."""

    def __init__(self, eps, values=(1.0, 5.0, 10.0), spend=None, var_factor=1.0, uniform_other=True):
        self.eps, self.values = eps, np.asarray(values)
        spent = eps if spend is None else spend
        k = len(values)
        self.p, self.q = math.exp(spent) / (math.exp(spent) + k - 1), 1.0 / (math.exp(spent) + k - 1)
        self.p_law = math.exp(eps) / (math.exp(eps) + k - 1)
        self.q_law = (1 - self.p_law) / (k - 1)
        self.domain, self.support = list(values), list(values)
        self.var_factor, self.uniform_other = var_factor, uniform_other

    def sample(self, x, n, rng):
        others = self.values[self.values != x]
        pick = rng.integers(0, len(others), n) if self.uniform_other else np.zeros(n, dtype=int)
        return np.where(rng.random(n) < self.p, x, others[pick])

    def pmf(self, y, x):
        return np.where(np.asarray(y) == x, self.p_law, self.q_law)

    def report_mean(self, x):
        return self.p_law * x + self.q_law * (self.values.sum() - x)

    def report_var(self, x):
        second = self.p_law * x * x + self.q_law * (np.sum(self.values ** 2) - x * x)
        return self.var_factor * (second - self.report_mean(x) ** 2)


def _status_of(report):
    return {r.name: r.status.value for r in report.results}


def test_recoded_categories_pass_and_each_audit_has_power():
    assert audit(_RR(1.0), samples=N).passed
    assert FiniteSet([10, 1, 5]).describe() == "{1, 5, 10}"
    over = _status_of(audit(_RR(1.0, spend=2.0), samples=N))  # sampler spends 2 eps, law claims 1
    assert over["privacy.blackbox"] == "fail" and over["distribution.fit"] == "fail" and over["privacy.whitebox"] == "pass"
    under = _status_of(audit(_RR(1.0, spend=0.5), samples=N))  # more noise than the law says
    assert under["privacy.budget"] == "fail" and under["privacy.blackbox"] == "pass"
    wrong_var = _status_of(audit(_RR(1.0, var_factor=1.1), samples=N))
    assert wrong_var["moments.variance"] == "fail" and wrong_var["moments.mean"] == "pass"
    skewed = _status_of(audit(_RR(1.0, uniform_other=False), samples=N))  # "other" is always the same category
    assert skewed["distribution.fit"] == "fail" and skewed["moments.mean"] == "fail"


@pytest.mark.parametrize("bug,check,words", [
    ("short", "sanity.shape", "first axis of length n"),
    ("nan", "sanity.finite", "NaN"),
    ("outside", "sanity.support", "outside"),
    ("global", "sanity.determinism", "global or hidden random state"),
    ("fixed", "sanity.determinism", "ignores its rng"),
])
def test_sanity_checks_have_power(bug, check, words):
    def sample(x, n, rng):
        if bug == "global":
            return np.clip(x + np.random.laplace(scale=2.0, size=n), -3.0, 3.0)
        if bug == "fixed":
            return np.clip(x + np.random.default_rng(0).laplace(scale=2.0, size=n), -3.0, 3.0)
        y = x + rng.laplace(scale=2.0, size=n)
        if bug == "short":
            return y[:-1]
        if bug == "nan":
            y[::1000] = np.nan
        return np.clip(y, -3.0, 3.5 if bug == "outside" else 3.0)

    report = audit(sample, eps=1.0, domain=(-1.0, 1.0), support=(-3.0, 3.0), samples=5_000, require_seeded=True)
    failed = [r for r in report.results if r.status.value == "fail"]
    assert failed and failed[0].name == check and words in failed[0].explanation
    if bug in ("short", "nan"):
        assert "privacy.blackbox" not in _names(report)  # a broken sampler stops the statistical audits


def test_clean_sampler_passes_sanity():
    report = audit(lambda x, n, rng: np.clip(x + rng.laplace(scale=2.0, size=n), -3, 3), eps=1.0,
                   domain=(-1.0, 1.0), support=(-3.0, 3.0), samples=5_000)
    assert report.passed


# ----- the Python API --------------------------------------------------------------------------------------------------
def test_assert_ldp_message_names_statistic_bound_and_seed():
    with pytest.raises(AssertionError) as info:
        assert_ldp(_rr_sample(2.0), eps=1.0, domain=[0, 1], samples=N, seed=11)
    text = str(info.value)
    assert "FAIL privacy.blackbox" in text and "eps_lower = " in text and "bound 1" in text
    assert "seed = 11" in text and f"reproduce: assert_ldp(..., samples={N}, seed=11" in text
    assert "| FAIL | privacy.blackbox |" in text  # the whole report follows as Markdown


def test_assert_moments_catches_a_biased_estimator():
    KaryRR = _example_module().KaryRR
    mech = KaryRR(1.0, k=4)
    assert_moments(mech, samples=N)  # its own declared claims

    class Biased(KaryRR):
        def estimate(self, reports):
            return np.asarray(reports, dtype=float) / (self.p - self.q)  # forgot to subtract q k(k-1)/2

    with pytest.raises(AssertionError, match="moments.mean"):
        assert_moments(Biased(1.0, k=4), mean=lambda x: x, samples=N)
    with pytest.raises(AssertionError, match="moments.variance"):
        assert_moments(mech, var=lambda x: 1.05 * mech.report_var(x), of="report", samples=N)


def test_builtin_mechanisms_are_accepted():
    grr = make("grr", eps=1.0, c=3)
    assert_ldp(grr, eps=1.0, samples=N)
    with pytest.raises(AssertionError, match="ABOVE the claimed 0.5"):
        assert_ldp(grr, eps=0.5, samples=N)
    assert_moments(make("one_bit", eps=1.0), samples=N)
    report = audit(make("laplace", eps=1.0), samples=N)
    assert report.passed and report.title == "audit laplace"
    wrapped = as_mechanism(grr)
    assert wrapped.discrete_input and wrapped.has_law and wrapped.domain == (0.0, 2.0)


def test_audit_external_signature_and_load_external(monkeypatch, isolated_imports):
    monkeypatch.chdir(REPO)
    mech = load_external("examples.my_mech:make", 1.0, {"k": 3})
    assert mech.params() == {"eps": 1.0, "k": 3, "domain": "{0, ..., 2}", "level": "white-box"}
    report = audit_external(mech, AuditSettings(samples=20_000, seed=3), progress=None)
    assert report.passed and report.settings["seed"] == 3


def test_protocol_value_errors_name_the_problem():
    with pytest.raises(ValueError, match="takes 4 required arguments"):
        as_mechanism(lambda a, b, c, d: None, eps=1.0, domain=(0.0, 1.0))
    with pytest.raises(ValueError, match="claimed eps"):
        as_mechanism(lambda x, n, rng: rng.random(n), domain=(0.0, 1.0))
    with pytest.raises(ValueError, match="eps must be"):
        as_mechanism(lambda x, n, rng: rng.random(n), eps=-1.0, domain=(0.0, 1.0))
    with pytest.raises(ValueError, match="lo < hi"):
        as_mechanism(lambda x, n, rng: rng.random(n), eps=1.0, domain=(1.0, 0.0))
    with pytest.raises(ValueError, match="box domain is audited black-box only"):
        as_mechanism(lambda x: stats.norm(x), eps=1.0, domain=(np.zeros(2), np.ones(2)))
    with pytest.raises(ValueError, match="unknown protocol keyword"):
        as_mechanism(lambda x, n, rng: rng.random(n), eps=1.0, domain=(0.0, 1.0), varaince=lambda x: 1.0)
    with pytest.raises(ValueError, match="of must be"):
        assert_moments(lambda x, n, rng: rng.random(n), mean=lambda x: 0.5, of="raw", domain=(0.0, 1.0))
    assert Interval(0, 1).describe() == "[0, 1]" and Box([0, 0], [1, 1]).d == 2


def test_defaults_are_stated():
    assert DEFAULT_SAMPLES == 200_000 and DEFAULT_ALPHA == 1e-5
