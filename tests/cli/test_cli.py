"""The ldp-audit CLI: exit codes 0 / 1 / 2, JSON on stdout, atomic --out, list, compare and claims."""
import json

import pytest

from ldp_audit.cli import main

import mutants


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_verify_passes_and_prints_json(capsys, tmp_path):
    out_file = tmp_path / "nested" / "hds.json"
    code, out, _ = run(capsys, "verify", "hds", "--eps", "1", "--samples", "50000", "--json", "--out", str(out_file))
    assert code == 0
    report = json.loads(out)
    assert report["verdict"] == "pass" and report["subject"]["mechanism"] == "hds"
    assert json.loads(out_file.read_text()) == report
    assert not list(out_file.parent.glob("*.tmp"))


def test_verify_markdown_and_table(capsys, tmp_path):
    code, out, _ = run(capsys, "verify", "one_bit", "--eps", "2", "--samples", "20000", "--markdown",
                       "--out", str(tmp_path / "r.md"))
    assert code == 0 and "**Verdict: PASS**" in out and (tmp_path / "r.md").read_text().startswith("## verify")
    code, out, _ = run(capsys, "verify", "multibit", "--eps", "1", "--d", "4", "--m", "2", "--alpha", "-2",
                       "--beta", "3", "--samples", "20000")
    assert code == 0 and "privacy.blackbox" in out


@pytest.mark.parametrize("argv, fragment", [
    (["verify", "hsd", "--eps", "1"], "Did you mean 'hds'"),
    (["verify", "hds", "--eps", "-1"], "argument --eps: must be a finite number in (0, inf)"),
    (["verify", "hds", "--eps", "1", "--k", "9"], "k must be an integer [1, 8]"),
    (["verify", "hds", "--eps", "1", "--param", "zeta=2"], "no parameter 'zeta'"),
    (["verify", "hds", "--eps", "1", "--samples", "10"], "argument --samples: must be an integer in [1000,"),
    (["verify", "hds", "--eps", "1", "--confidence", "1.5"], "argument --confidence: must be a number in (0, 1 - 1e-12]"),
])
def test_bad_input_exits_2_with_a_message(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert fragment in (out + err).replace("\n", " ")
    assert "Traceback" not in err


def test_usage_error_exits_2(capsys):
    assert main(["verify", "hds"]) == 2
    assert "--eps" in capsys.readouterr().err


def test_verify_exit_1_on_a_mutant(capsys, monkeypatch):
    """A registered mechanism that breaks its promise makes the CLI exit 1 and name the failing check."""
    from ldp_audit.mechanisms import registry

    monkeypatch.setitem(registry._REGISTRY, "buggy_laplace", registry._Entry(
        registry._REGISTRY["laplace"].info, lambda eps: mutants.LaplaceUnitSensitivity(eps)))
    code, out, _ = run(capsys, "verify", "buggy_laplace", "--eps", "1", "--samples", "100000", "--json")
    assert code == 1
    failed = {r["name"] for r in json.loads(out)["results"] if r["status"] == "fail"}
    assert "privacy.blackbox" in failed


def test_list_names_every_mechanism(capsys):
    code, out, _ = run(capsys, "list", "--json")
    names = {m["name"] for m in json.loads(out)}
    assert code == 0 and {"hds", "multibit", "mlr", "ppm_star", "esw", "analytic_gaussian"} <= names


def test_compare_and_sweep(capsys, tmp_path):
    code, out, _ = run(capsys, "compare", "--eps", "1", "--mechanisms", "laplace_hd,hds", "--samples", "50000",
                       "--json", "--plot", str(tmp_path / "c.png"))
    report = json.loads(out)
    assert code == 0 and report["schema"] == "ldp-audit/report" and len(report["results"]) == 2
    assert all(r["status"] == "pass" for r in report["results"]) and (tmp_path / "c.png").stat().st_size > 1000
    code, out, _ = run(capsys, "compare", "--sweep", "--json")
    report = json.loads(out)
    sw = next(r for r in report["results"] if r["name"] == "figure1.SW raw")
    assert code == 0 and "crosses PM at 3.6843" in sw["explanation"] and len(report["subject"]["curves"]) == 7


@pytest.mark.parametrize("paper, errata", [
    ("ldp-ge", {"C9 (E1)", "E11"}),
    ("lpgnn", {"C6 (E3)", "E2"}),
    ("ppgnn", {"C2 (E1)", "C6 (E2)", "C8 (E3)", "E14"}),
])
def test_claims_show_errata_as_fail_and_the_rest_pass(capsys, paper, errata):
    from ldp_audit.audits.claims.registry import ClaimSettings, claims_of

    registered = claims_of(paper)  # the mechanism-level claims come before the first graph-level one
    first_graph = {"ldp-ge": "c11_ppr_operator", "lpgnn": "c7_c9_kprop_aggregation",
                   "ppgnn": "c12_c13_flexprop_aggregation"}[paper]
    mechanism_level = registered[:[c.name for c in registered].index(first_graph)]
    rows = [r for c in mechanism_level for r in c.rows(ClaimSettings(samples=50_000))]
    failed = {r.name for r in rows if r.status.value == "fail"}
    assert failed == errata
