"""``ldp-audit attack NAME``: every attack is listed, verdicts map to exit codes, bad input exits 2; the claims
registry carries the attack rows of both papers."""
import json

import pytest

from ldp_audit.audits.claims.registry import claims_of
from ldp_audit.cli import build_parser, main

ATTACKS = ("own-report", "averaging", "level-leak", "neighbour-vote", "label-plurality", "not-covered")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_help_lists_every_attack():
    text = build_parser()._subparsers._group_actions[0].choices["attack"].format_help()
    assert all(name in text for name in ATTACKS)


@pytest.mark.parametrize("argv, code", [
    (("own-report", "multibit", "--eps", "1", "--d", "8", "--k", "1", "--samples", "20000"), 0),
    (("own-report", "duchi", "--eps", "2", "--claimed-eps", "1", "--samples", "20000"), 1),
    (("averaging", "duchi", "--eps", "1", "--samples", "5000"), 0),
    (("averaging", "duchi", "--eps", "1", "--samples", "5000", "--no-memoise"), 1),
    (("level-leak", "--mode", "paper", "--samples", "5000"), 1),
    (("level-leak", "--mode", "corrected", "--samples", "5000"), 0),
    (("label-plurality", "--samples", "5000"), 0),
    (("not-covered", "ppgnn"), 0),
])
def test_exit_codes_follow_the_verdict(capsys, argv, code):
    got, out, _ = run(capsys, "attack", *argv, "--json")
    assert got == code
    report = json.loads(out)
    assert report["results"] and report["verdict"] in ("pass", "fail")


@pytest.mark.parametrize("argv, fragment", [
    (("own-report", "nope", "--eps", "1"), "unknown mechanism"),
    (("own-report", "duchi", "--eps", "1", "--samples", "5"), "samples"),
    (("level-leak", "--gamma", "1.5"), "gamma"),
    (("averaging", "duchi", "--eps", "1", "--queries", "1"), "queries"),
])
def test_bad_input_exits_2(capsys, argv, fragment):
    code, _, err = run(capsys, "attack", *argv)
    assert code == 2 and fragment in err


def test_claims_register_the_attack_rows():
    assert "lpgnn_attack_claims" in [c.name for c in claims_of("lpgnn")]
    assert "ppgnn_attack_claims" in [c.name for c in claims_of("ppgnn")]


def test_lpgnn_attack_claims_pass():
    from ldp_audit.audits.claims.registry import ClaimSettings
    from ldp_audit.audits.claims.lpgnn import lpgnn_attack_claims

    rows = lpgnn_attack_claims(ClaimSettings(samples=20_000))
    assert all(r.passed for r in rows) and any(r.name.startswith("C12") for r in rows)
    assert sum(r.statistic_name == "not covered" for r in rows) == 3


def test_ppgnn_attack_claims_flag_the_paper_mode_only():
    from ldp_audit.audits.claims.registry import ClaimSettings
    from ldp_audit.audits.claims.ppgnn import ppgnn_attack_claims
    from ldp_audit.audits.kernel.result import Status

    rows = ppgnn_attack_claims(ClaimSettings(samples=20_000))
    paper = [r for r in rows if r.name.startswith("C11 (paper)")]
    assert paper and all(r.status is Status.FAIL for r in paper)
    others = [r for r in rows if not r.name.startswith("C11 (paper)")]
    assert all(r.passed for r in others), [r.name for r in others if not r.passed]
    assert any(r.name.startswith("C18") and r.status is Status.PASS for r in rows)
