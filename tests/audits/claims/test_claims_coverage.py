"""``ldp-audit claims --coverage``: every spec id is listed, with the rows whose ``spec_ids`` name it."""
import json
from pathlib import Path

import pytest

from ldp_audit.papers import claim_catalogue as catalogue
from ldp_audit.audits.claims import registry as claims
from ldp_audit.audits.kernel.result import CheckResult, Status

SPECS = Path(__file__).resolve().parents[4] / "shared" / "specs"


@pytest.mark.skipif(not SPECS.is_dir(), reason="the specs are not next to this checkout")
@pytest.mark.parametrize("paper", sorted(catalogue.SPEC_IDS))
def test_catalogue_is_the_spec_transcribed(paper):
    assert tuple(catalogue.parse_spec_ids((SPECS / f"{paper}.md").read_text())) == catalogue.SPEC_IDS[paper]


def test_catalogue_data_ship_with_the_package():
    assert set(catalogue.SPEC_IDS) == set(catalogue.NEEDS) == set(claims.papers())
    assert dict(catalogue.SPEC_IDS["lpgnn"])["C1"].startswith("Theorem 3.1")


def _row(name, status=Status.PASS, spec_ids=None):
    return CheckResult(name, "", status, spec_ids=spec_ids)


def test_coverage_lists_every_c_and_e_id_and_reads_the_ids_of_each_row():
    rows = [_row("C1", spec_ids=("C1",)), _row("C2 (E1)", Status.FAIL, ("C2", "E1")), _row("M1 extra", spec_ids=("M1",)),
            _row("attack.aia", Status.INCONCLUSIVE, ("C9",)), _row("C3 named only")]
    entries = {e["id"]: e for e in catalogue.coverage("ppgnn", rows)}
    spec = [i for i, _ in catalogue.SPEC_IDS["ppgnn"]]
    assert [i for i in spec if i[0] in "CE"] == [i for i in entries if i[0] in "CE"]
    assert entries["C2"]["status"] == entries["E1"]["status"] == "fail"
    assert entries["C9"]["status"] == "inconclusive" and entries["C9"]["rows"] == ["attack.aia"]
    assert entries["C3"]["status"] == "needs"  # a name is not parsed: a row checks the ids it declares
    assert entries["M1"]["rows"] == ["M1 extra"] and "M2" not in entries  # M ids only when checked
    assert entries["C19"]["status"] == "needs" and entries["C19"]["needs"].startswith("hours of training")


def only(monkeypatch, paper, names, source=None):
    """Let ``paper`` report only its claims (or those of ``source``) named ``names``, in that order."""
    registered = {c.name: c for c in claims.claims_of(source or paper)}
    claims.claims_of(paper)  # import the paper's module before its list is replaced
    monkeypatch.setitem(claims.REGISTERED, paper, [registered[name] for name in names])


PPGNN_MECHANISM = ("c1_laplace_baseline", "c2_printed_gaussian_calibration", "c2_corrected_gaussian_calibration",
                   "c3_c5_one_bit_randomizer", "c4_mb_and_mlr_share_a_law", "c6_m_rule_is_not_the_minimiser",
                   "e14_m_raises_budget", "c7_mlr_is_ldp", "c7_mlr_moments", "c8_esw_window_as_printed",
                   "c8_corrected_esw")


def test_run_claims_reports_each_claim_and_quotes_the_unchecked_errata(monkeypatch):
    only(monkeypatch, "ppgnn", PPGNN_MECHANISM)
    seen = []
    report = claims.run_claims("ppgnn", claims.ClaimSettings(samples=20_000),
                               progress=lambda name, rows: seen.append((name, rows)))
    assert [name for name, _ in seen] == list(PPGNN_MECHANISM) + ["errata quoted from the spec"]
    assert [r for _, rows in seen for r in rows] == list(report.results)  # the report shows the claims' rows
    quoted = [r for r in report.results if r.name.endswith("(quoted)")]
    assert all(r.status is Status.INFO and "the spec says" in r.explanation for r in quoted)
    named = {i for r in report.results for i in r.spec_ids}
    assert {i for i, _ in catalogue.SPEC_IDS["ppgnn"] if i.startswith("E")} <= named  # every E id is listed
    assert report.to_dict()["results"][0].keys() >= {"name", "claim"} and "spec_ids" not in report.to_dict()["results"][0]


def test_cli_coverage_json_and_a_missing_paper(monkeypatch, capsys):
    from ldp_audit.cli import main

    assert main(["claims"]) == 2
    assert "paper is required" in capsys.readouterr().err
    only(monkeypatch, "ppgnn", PPGNN_MECHANISM)
    assert main(["claims", "ppgnn", "--coverage", "--run", "--json", "--samples", "20000"]) == 0
    data = json.loads(capsys.readouterr().out)
    entries = {e["id"]: e for e in data["papers"]["ppgnn"]}
    assert entries["C4"]["status"] == "pass" and entries["C6"]["status"] == "fail"


def test_cli_prints_each_claim_as_it_finishes(monkeypatch):
    """Issue 11 item 6: per-claim progress in a terminal instead of one static spinner."""
    import io

    from rich.console import Console

    from ldp_audit.commands import claims as command

    only(monkeypatch, "se-privgemb", ("metric_claims", "c1_gradients"))
    out = io.StringIO()
    report = command._run_with_progress("se-privgemb", claims.ClaimSettings(), Console(file=out, force_terminal=True,
                                                                                         width=120), enabled=True)
    text = out.getvalue()
    assert text.index("C19.strucequ") < text.index("C1.gradients")  # printed in the order the claims finish
    assert "E14.table-vs-figure" in text and len(report.results) >= 4


def test_cli_coverage_without_a_paper_covers_all_four(monkeypatch, capsys):
    from ldp_audit.cli import main

    for paper in claims.papers():  # fast stand-ins: the path, not the claims, is under test here
        only(monkeypatch, paper, ("metric_claims",), source="se-privgemb")
    assert main(["claims", "--coverage"]) == 0
    text = capsys.readouterr().out
    assert all(f"{paper}: " in text for paper in ("ldp-ge", "lpgnn", "ppgnn", "se-privgemb"))


# ----- the listing without running (issue 48 item 6), and the ids whose NEEDS were stale ------------------------

def test_coverage_lists_the_registered_claims_without_running_any(monkeypatch, capsys):
    from ldp_audit.cli import main

    for paper in claims.papers():
        monkeypatch.setitem(claims.REGISTERED, paper, [claims.Claim(c.paper, c.spec_ids, _refuse(c.name))
                                                       for c in claims.claims_of(paper)])
    assert main(["claims", "--coverage", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["papers"]
    ppgnn = {e["id"]: e for e in data["ppgnn"]}
    assert ppgnn["C1"]["status"] == "registered" and ppgnn["C1"]["rows"] == ["c1_laplace_baseline"]
    assert ppgnn["E6"]["status"] == "registered" and ppgnn["E6"]["rows"] == ["e6_sampled_count_rules"]
    assert ppgnn["E4"]["rows"] == ppgnn["E5"]["rows"] == ["ppgnn_attack_claims"]
    assert {e["id"]: e["status"] for e in data["ldp-ge"]}["C21"] == "needs"


def _refuse(name):
    def check(settings):
        raise AssertionError(f"{name} ran, but --coverage without --run must not run any claim")
    check.__name__ = name
    return check


def test_run_goes_with_coverage(capsys):
    from ldp_audit.cli import main

    assert main(["claims", "lpgnn", "--run"]) == 2
    assert "--run goes with --coverage" in capsys.readouterr().err


def test_no_registered_id_says_it_waits_for_a_pipeline_or_an_attack():
    """Pipelines and attacks exist: an id whose claim is registered needs neither, and no id waits for them."""
    for paper in claims.papers():
        registered = {i for c in claims.claims_of(paper) for i in c.spec_ids}
        for spec_id, text in catalogue.NEEDS[paper].items():
            assert not text.startswith("needs: pipeline"), (paper, spec_id, text)
            assert "attacks" not in text or "attack level-leak" in text, (paper, spec_id, text)
            if spec_id in registered:  # what a registered claim leaves out may be named, never the whole id
                assert not text.startswith("hours of training"), (paper, spec_id, text)


def test_e6_the_two_sampled_count_rules_differ_as_the_spec_says():
    from ldp_audit.audits.claims.ppgnn import sampled_count_rules

    row = sampled_count_rules()
    assert row.status is Status.FAIL and row.statistic == 2
    assert "[1, 1, 1, 1, 3]" in row.explanation and "[1, 1, 1, 3, 7]" in row.explanation
    # a text whose rule used the feature budget, as Algorithm 2 does, would agree with it: the row can pass
    agreeing = sampled_count_rules(text_budget=lambda tau, eps, gamma: (1 - gamma) * 2 ** (tau - 1) * eps)
    assert agreeing.status is Status.PASS and agreeing.statistic == 0


def test_the_paper_mode_level_leak_rows_check_e4_and_e5():
    from ldp_audit.audits.attacks.level_leak import level_leak_attack
    from ldp_audit.audits.claims.ppgnn import LEAK_ERRATA
    from ldp_audit.mechanisms.personalised import PersonalisedMechanism

    rows = level_leak_attack(PersonalisedMechanism(1.0, 8, mode="paper"), samples=2000, seed=0)
    keys = {r.name.split(".")[2] for r in rows}
    assert set(LEAK_ERRATA) <= keys  # the row names the claim reads are the attack's
    leaks = [r for r in rows if r.name.split(".")[2] in LEAK_ERRATA and r.name.endswith(".exact")]
    assert leaks and all(r.status is Status.FAIL for r in leaks)  # in the paper's mode both observations leak
