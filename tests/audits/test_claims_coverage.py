"""``ldp-audit claims --coverage``: every spec id is listed, rows are found by the ids their names carry."""
import json
from pathlib import Path

import pytest

from ldp_audit.papers import claim_catalogue as catalogue
from ldp_audit.audits.claims import registry as claims
from ldp_audit.audits.kernel.result import CheckResult, Status

SPECS = Path(__file__).resolve().parents[3] / "shared" / "specs"


@pytest.mark.skipif(not SPECS.is_dir(), reason="the specs are not next to this checkout")
@pytest.mark.parametrize("paper", sorted(catalogue.SPEC_IDS))
def test_catalogue_is_the_spec_transcribed(paper):
    assert tuple(catalogue.parse_spec_ids((SPECS / f"{paper}.md").read_text())) == catalogue.SPEC_IDS[paper]


@pytest.mark.parametrize("name, claim, ids", [
    ("C6 (E3)", "", ["C6", "E3"]),
    ("C2-C5", "", ["C2", "C3", "C4", "C5"]),
    ("C4/C5 MC", "", ["C4", "C5"]),
    ("E9-E11.node-level", "", ["E9", "E10", "E11"]),
    ("C17.nonzero-beats-naive", "", ["C17"]),
    ("lpgnn.C10 (E7)", "", ["C10", "E7"]),
    ("ldp-ge.pi.r=0", "ldp-ge Eq. 2/17, C11", ["C11"]),
    ("C8.algorithm1-vs-thm3", "Alg. 1 realises Thm 3 (E2)", ["C8", "E2"]),
    ("lpgnn.mae.MBM.mean", "lpgnn Eq. 10, Fig. 5", []),
])
def test_rows_are_found_by_the_ids_they_name(name, claim, ids):
    assert catalogue.row_ids(name, claim) == ids


def _row(name, status=Status.PASS, claim=""):
    return CheckResult(name, claim, status)


def test_coverage_lists_every_c_and_e_id_and_picks_up_new_rows():
    rows = [_row("C1"), _row("C2 (E1)", Status.FAIL), _row("M1 extra"), _row("C9 attack.aia", Status.INCONCLUSIVE)]
    entries = {e["id"]: e for e in catalogue.coverage("ppgnn", rows)}
    spec = [i for i, _ in catalogue.SPEC_IDS["ppgnn"]]
    assert [i for i in spec if i[0] in "CE"] == [i for i in entries if i[0] in "CE"]
    assert entries["C2"]["status"] == entries["E1"]["status"] == "fail"
    assert entries["C9"]["status"] == "inconclusive"  # a row added later (by its name) is discovered
    assert entries["M1"]["rows"] == ["M1 extra"] and "M2" not in entries  # M ids only when checked
    assert entries["C19"]["status"] == "needs" and entries["C19"]["needs"].startswith("needs: pipeline")


def test_run_claims_reports_each_provider_and_quotes_the_unchecked_errata(monkeypatch):
    monkeypatch.setitem(claims.PROVIDERS, "ppgnn", ("ldp_audit.audits.claims.ppgnn:ppgnn_claims",))
    seen = []
    report = claims.run_claims("ppgnn", claims.ClaimSettings(samples=20_000),
                               progress=lambda group, rows: seen.append((group, len(rows))))
    assert seen[0][0] == "ppgnn_claims" and seen[-1][0] == "errata quoted from the spec"
    quoted = [r for r in report.results if r.name.endswith("(quoted)")]
    assert all(r.status is Status.INFO and "the spec says" in r.explanation for r in quoted)
    named = {i for r in report.results for i in catalogue.row_ids(r.name, r.claim)}
    assert {i for i, _ in catalogue.SPEC_IDS["ppgnn"] if i.startswith("E")} <= named  # every E id is listed


def test_cli_coverage_json_and_a_missing_paper(monkeypatch, capsys):
    from ldp_audit.cli import main

    assert main(["claims"]) == 2
    assert "paper is required" in capsys.readouterr().err
    monkeypatch.setitem(claims.PROVIDERS, "ppgnn", ("ldp_audit.audits.claims.ppgnn:ppgnn_claims",))
    assert main(["claims", "ppgnn", "--coverage", "--json", "--samples", "20000"]) == 0
    data = json.loads(capsys.readouterr().out)
    entries = {e["id"]: e for e in data["papers"]["ppgnn"]}
    assert entries["C4"]["status"] == "pass" and entries["C6"]["status"] == "fail"


def test_cli_prints_each_claim_as_its_group_finishes(monkeypatch):
    """Issue 11 item 6: per-group progress in a terminal instead of one static spinner."""
    import io

    from rich.console import Console

    from ldp_audit.commands import claims as command

    monkeypatch.setitem(claims.PROVIDERS, "se-privgemb", (
        "ldp_audit.audits.claims.se_privgemb:metric_claims", "ldp_audit.audits.claims.se_privgemb:gradient_claims"))
    out = io.StringIO()
    report = command._run_with_progress("se-privgemb", claims.ClaimSettings(), Console(file=out, force_terminal=True,
                                                                                         width=120), enabled=True)
    text = out.getvalue()
    assert text.index("C19.strucequ") < text.index("C1.gradients")  # printed in the order the groups finish
    assert "E14.table-vs-figure" in text and len(report.results) >= 6


def test_cli_coverage_without_a_paper_covers_all_four(monkeypatch, capsys):
    from ldp_audit.cli import main

    for paper in claims.PROVIDERS:  # fast stand-ins: the path, not the claims, is under test here
        monkeypatch.setitem(claims.PROVIDERS, paper, ("ldp_audit.audits.claims.se_privgemb:metric_claims",))
    assert main(["claims", "--coverage"]) == 0
    text = capsys.readouterr().out
    assert all(f"{paper}: " in text for paper in ("ldp-ge", "lpgnn", "ppgnn", "se-privgemb"))
