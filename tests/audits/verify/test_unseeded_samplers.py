"""Samplers that cannot be seeded (issue 21 item 1): OpenDP and python-dp draw from their own secure generator.
Such a sampler is audited on fresh draws; ``sanity.determinism`` is a WARN row that never fails a verdict, and
the verdict and exit code follow the statistical rows. ``--require-seeded`` (``require_seeded=True``, the plugin's
``--ldp-audit-require-seeded``) restores the strict failure and exit 3. A sampler that ignores its rng (every user
gets the same noise) still fails, whatever the option."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ldp_audit.audits.kernel.result import AuditReport, CheckResult, Status
from ldp_audit.cli import main
from ldp_audit.commands.render import to_markdown, to_table
from ldp_audit.testing import assert_ldp, audit

pytest_plugins = ["pytester"]

_OWN = np.random.default_rng()  # an unseeded generator of the sampler's own, like a library's secure RNG


def own_generator_rr(spend: float):
    """Binary randomized response on its own generator (the rng argument is ignored, as OpenDP's is)."""
    def sample(x, n, rng):
        return np.where(_OWN.random(n) < 1.0 / (1.0 + math.exp(-spend)), x, 1 - x)
    return sample


MODULE = """
import math
import numpy as np
_OWN = np.random.default_rng()
def make(eps, spend=None):
    p = 1.0 / (1.0 + math.exp(-(eps if spend is None else spend)))
    return {'sample': lambda x, n, rng: np.where(_OWN.random(n) < p, x, 1 - x), 'eps': eps, 'domain': [0, 1]}
"""


def _status(report, name):
    return next(r for r in report.results if r.name == name).status.value


def test_an_unseedable_correct_sampler_passes_with_a_warning():
    report = audit(own_generator_rr(1.0), eps=1.0, domain=[0, 1], checks="privacy", samples=20_000)
    assert report.verdict == Status.PASS and report.passed and _status(report, "sanity.determinism") == "warn"
    row = report.warnings()[0]
    assert "not reproducible from its seed" in row.explanation and "differ run to run" in row.explanation
    assert assert_ldp(own_generator_rr(1.0), eps=1.0, domain=[0, 1], samples=20_000).passed


def test_an_unseedable_broken_sampler_fails_on_its_statistics():
    report = audit(own_generator_rr(2.0), eps=1.0, domain=[0, 1], checks="privacy", samples=20_000)
    assert report.verdict == Status.FAIL and _status(report, "privacy.blackbox") == "fail"
    assert _status(report, "sanity.determinism") == "warn"
    with pytest.raises(AssertionError, match="WARN sanity.determinism"):  # the note is in the failure message
        assert_ldp(own_generator_rr(2.0), eps=1.0, domain=[0, 1], samples=20_000)


def test_require_seeded_restores_the_strict_failure():
    report = audit(own_generator_rr(1.0), eps=1.0, domain=[0, 1], checks="privacy", samples=20_000,
                   require_seeded=True)
    assert report.verdict == Status.FAIL and _status(report, "sanity.determinism") == "fail"
    assert report.settings["require_seeded"] is True
    with pytest.raises(AssertionError):
        assert_ldp(own_generator_rr(1.0), eps=1.0, domain=[0, 1], samples=20_000, require_seeded=True)


def test_a_sampler_that_ignores_its_rng_fails_without_the_option():
    fixed = lambda x, n, rng: np.where(np.random.default_rng(0).random(n) < 0.7, x, 1 - x)
    report = audit(fixed, eps=1.0, domain=[0, 1], checks="privacy", samples=20_000)
    assert _status(report, "sanity.determinism") == "fail" and "ignores its rng" in report.failures()[0].explanation


@pytest.mark.parametrize("extra,code,status", [((), 0, "warn"), (("--require-seeded",), 3, "fail"),
                                               (("--param", "spend=2.0"), 1, "warn")])
def test_verify_exit_codes_follow_the_statistical_rows(tmp_path, monkeypatch, capsys, extra, code, status):
    (tmp_path / "own_rng.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["verify", "own_rng:make", "--eps", "1", "--samples", "20000", "--checks", "privacy", "--json",
                 *extra]) == code
    rows = {r["name"]: r["status"] for r in json.loads(capsys.readouterr().out)["results"]}
    assert rows["sanity.determinism"] == status


def test_renderers_show_warn_rows_and_count_them_beside_the_verdict():
    report = AuditReport.of("t", [CheckResult("a", "c", Status.PASS), CheckResult("b", "c", Status.WARN,
                                                                                 explanation="note")])
    assert report.verdict == Status.PASS and report.passed and report.to_dict()["results"][1]["status"] == "warn"
    assert "**Verdict: PASS** (1 warning)" in to_markdown(report) and "| WARN | b |" in to_markdown(report)
    table = to_table(report)
    assert "(1 warning)" in str(table.title) and "WARN" in str(table.columns[0]._cells[1])
    failing = AuditReport.of("t", [CheckResult("b", "c", Status.WARN), CheckResult("a", "c", Status.FAIL)])
    assert failing.verdict == Status.FAIL


PLUGIN_TEST = """
import math
import numpy as np
_OWN = np.random.default_rng()

def test_unseeded(ldp_auditor):
    ldp_auditor.assert_ldp(lambda x, n, rng: np.where(_OWN.random(n) < 1 / (1 + math.exp(-1)), x, 1 - x), eps=1.0,
                           domain=[0, 1])
"""


@pytest.mark.parametrize("strict", [False, True])
def test_the_plugin_option_require_seeded(pytester, strict):
    pytester.makepyfile(test_unseeded=PLUGIN_TEST)
    result = pytester.runpytest("--ldp-audit-samples", "20000", *(["--ldp-audit-require-seeded"] if strict else []))
    result.assert_outcomes(**({"failed": 1} if strict else {"passed": 1}))
