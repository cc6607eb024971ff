"""``reproduce --help`` and ``claims --coverage`` list every table and figure of the four papers from the one
registry (papers/artefacts.py), with what runs it and the count of reproduce targets."""
from __future__ import annotations

import json

from ldp_audit.audits.claims import registry as claims
from ldp_audit.cli import main
from ldp_audit.papers import artefacts


def test_reproduce_help_lists_every_id_with_what_runs_it(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["reproduce", "--help"]) == 0
    text = capsys.readouterr().out
    listing = text[text.index("Tables and figures of the four papers"):]
    for paper in artefacts.PAPERS:
        counts = artefacts.counts(paper)
        assert f"{paper} ({artefacts.PAPERS[paper]}): {counts['target']}/{counts['artefacts']} " in listing
    lines = listing.splitlines()
    for entry in artefacts.ARTEFACTS:
        line = next(x for x in lines if x.startswith(f"  {entry.id:<9} {entry.printed:<10} "))
        assert (entry.arguments or entry.command or "none: ") in line
        lines = lines[lines.index(line) + 1:]  # entries appear in registry order


def _fast_claims(monkeypatch):
    stand_in = [c for c in claims.claims_of("se-privgemb") if c.name == "metric_claims"]
    for paper in claims.papers():  # fast stand-ins: the listing, not the claims, is under test here
        claims.claims_of(paper)  # import the paper's module before its list is replaced
        monkeypatch.setitem(claims.REGISTERED, paper, stand_in)


def test_claims_coverage_json_has_every_artefact_and_the_counts(monkeypatch, capsys):
    _fast_claims(monkeypatch)
    assert main(["claims", "--coverage", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["artefacts"]
    assert set(data) == set(artefacts.PAPERS)
    assert data["ldp-ge"]["counts"] == {"artefacts": 7, "target": 4, "elsewhere": 2, "not runnable": 1}
    fig3 = next(a for a in data["ldp-ge"]["artefacts"] if a["id"] == "fig3")
    assert fig3["command"] == "ldp-audit reproduce ldp-ge --full --tables ksweep" and fig3["status"] == "target"
    assert sum(len(p["artefacts"]) for p in data.values()) == len(artefacts.ARTEFACTS)


def test_claims_coverage_table_of_one_paper(monkeypatch, capsys):
    _fast_claims(monkeypatch)
    assert main(["claims", "se-privgemb", "--coverage"]) == 0
    text = capsys.readouterr().out
    assert "se-privgemb tables and figures: 7/10 targets" in text and "TABLE VI" in text
