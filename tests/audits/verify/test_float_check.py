"""The float check (``--checks float``, ``float.bits``): textbook samplers on doubles leak through the bits of their
reports (Mironov 2012 for Laplace, Jin et al. 2022 for the Gaussian) and FAIL it from samples alone; samplers whose
reports lie on a lattice that does not depend on x (snapped outputs, exact discrete Laplace) PASS it, with no false
alarm over 20 seeds; it is off by default, and its numbers do not depend on the engine."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ldp_audit.audits.kernel.result import Status
from ldp_audit.audits.privacy.float_bits import BitCounts, bit_cells
from ldp_audit.audits.verify.orchestrator import AuditSettings, families, parse_checks, verify
from ldp_audit.cli import main
from ldp_audit.mechanisms import make
from ldp_audit.testing import assert_ldp, audit
from ldp_audit.testing.float_samplers import (DELTA, EPS, discrete_laplace, snapped_laplace,
                                              textbook_gaussian, textbook_laplace)


def opaque(x, n, rng):
    return np.array([f"r{int(v)}" for v in rng.random(n) < (0.6 if x else 0.4)], dtype=object)


def _float_row(report):
    return next(r for r in report.results if r.name == "float.bits")


def _run(sample, domain=(0.0, 1.0), samples=1_000_000, seed=20240601, **options):
    mech = {"sample": sample, "eps": EPS, "domain": domain}
    if sample is textbook_gaussian:
        mech["delta"] = DELTA
    return audit(mech, checks="float", samples=samples, seed=seed, alpha=1e-3, **options)


def test_bits_of_doubles_are_read_exactly():
    tiny = 5e-324
    keep, binade, grain = bit_cells(np.array([1.0, 0.75, -0.5, 6.0, 1 + 2 ** -52, tiny, 3 * tiny, 0.0, np.inf, np.nan]))
    assert keep.tolist() == [True] * 7 + [False] * 3
    assert binade[:7].tolist() == [0, -1, -1, 2, 0, -1074, -1073]
    assert grain[:7].tolist() == [0, -2, -1, 1, -52, -1074, -1074]
    a = BitCounts.of(np.array([[1.0], [0.75]]), [0])
    total = a + BitCounts.of(np.array([[1.0], [3.0]]), [0])
    assert total.counts.sum() == 4 and sorted(total.counts.tolist()) == [1, 1, 2]


@pytest.mark.parametrize("sample", [textbook_laplace, textbook_gaussian], ids=["laplace", "gaussian"])
def test_textbook_samplers_on_doubles_fail_with_a_witness(sample):
    row = _float_row(_run(sample))
    assert row.status == Status.FAIL and row.statistic >= 5.0 and row.threshold == EPS
    assert "multiples of 2^-5" in row.explanation and "under x = 0" in row.explanation
    assert "ABOVE the claimed 1" in row.explanation and row.n == 1_000_000
    c1, c0 = row.details["counts"]
    assert c1 > 1000 and c0 == 0 and row.details["never_seen_under_x0"]


@pytest.mark.parametrize("sample, domain", [(snapped_laplace, (0.0, 1.0)), (discrete_laplace, [0, 1])],
                         ids=["snapped", "discrete"])
def test_samplers_on_a_lattice_independent_of_x_pass(sample, domain):
    row = _float_row(_run(sample, domain))
    assert row.status == Status.PASS and row.statistic <= EPS


@pytest.mark.parametrize("sample, domain", [(snapped_laplace, (0.0, 1.0)), (discrete_laplace, [0, 1])],
                         ids=["snapped", "discrete"])
def test_no_false_alarm_over_twenty_seeds(sample, domain):
    statuses = [_float_row(_run(sample, domain, samples=100_000, seed=seed)).status for seed in range(20)]
    assert statuses.count(Status.FAIL) == 0


def test_the_same_numbers_on_local_and_process_engines():
    local = _run(textbook_laplace, samples=300_000)
    pool = _run(textbook_laplace, samples=300_000, workers=2, engine="processes")
    assert _float_row(local).to_dict() == _float_row(pool).to_dict()


def test_off_by_default_and_opt_in():
    assert "float" not in parse_checks(None) and "float" not in parse_checks("all")
    assert parse_checks("all,float") == ("privacy", "moments", "distribution", "float")
    assert parse_checks("float") == ("float",)
    mechanism = make("laplace", eps=EPS)
    assert "float" not in families(mechanism, parse_checks("all"))
    report = verify(mechanism, AuditSettings(samples=5000), checks=None)
    assert not any(r.name.startswith("float") for r in report.results)
    assert report.settings["checks"] == "privacy,moments,distribution"
    with pytest.raises(ValueError, match="all,float"):
        parse_checks("bits")


def test_assert_ldp_reads_the_bits_only_when_asked():
    mech = {"sample": textbook_laplace, "eps": EPS, "domain": (0.0, 1.0)}
    assert assert_ldp(mech, eps=EPS, samples=100_000).passed
    with pytest.raises(AssertionError, match="FAIL float.bits"):
        assert_ldp(mech, eps=EPS, samples=100_000, float_bits=True)
    with pytest.raises(TypeError, match="float_bits"):
        assert_ldp(mech, eps=EPS, samples=100_000, float_bits="yes")


def test_opaque_reports_have_no_bits_to_read():
    row = _float_row(_run(opaque, [0, 1], samples=20_000))
    assert row.status == Status.INFO and "no bits to read" in row.explanation


def test_cli_builtin_laplace_fails_the_opt_in_check(capsys):
    code = main(["verify", "laplace", "--eps", "1", "--checks", "float", "--samples", "200000", "--json"])
    data = json.loads(capsys.readouterr().out)
    row = next(r for r in data["results"] if r["name"] == "float.bits")
    assert code == 1 and row["status"] == "fail" and row["statistic"] > 1.0
    assert data["settings"]["checks"] == "float"
    assert main(["verify", "duchi", "--eps", "1", "--checks", "float", "--samples", "20000", "--json"]) == 0


def test_the_pytest_fixture_passes_the_checks_and_the_flag_through():
    from ldp_audit.testing.plugin import LdpAuditor

    auditor = LdpAuditor(samples=100_000)
    mech = {"sample": textbook_laplace, "eps": EPS, "domain": (0.0, 1.0)}
    assert _float_row(auditor.audit(mech, checks="float")).status == Status.FAIL
    with pytest.raises(AssertionError, match="FAIL float.bits"):
        auditor.assert_ldp(mech, EPS, float_bits=True)
    assert auditor.made == ["audit", "assert_ldp"]
