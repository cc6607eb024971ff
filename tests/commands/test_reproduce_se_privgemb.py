"""``ldp-audit reproduce se-privgemb``: end to end on a tiny graph copied to a tmp data folder (stands in for Power),
resume and --max-runs, the tolerance rule with a mutant measured value that must FAIL, C17 with a mutant where
the naive perturbation wins, the four DP baselines as INCONCLUSIVE rows, and a bad --tables id exiting 2."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ldp_audit.audits.reproduction import se_privgemb as repro
from ldp_audit.audits.kernel.result import Status
from ldp_audit.cli import main
from ldp_audit.models import se_privgemb_runs
from ldp_audit.models.se_privgemb_runs import SePrivGEmbResult


def _exit_code(argv) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


@pytest.fixture
def tiny_power(tmp_path, monkeypatch):
    """A 60-node random graph written as ``se_privgemb/Power`` (edge list + a 90/10 link split) in a tmp folder;
    the quick grid shortened to 20 steps."""
    rng = np.random.default_rng(0)
    n = 60
    pairs = {tuple(sorted(p)) for p in rng.integers(0, n, size=(400, 2)) if p[0] != p[1]}
    pairs |= {(i, i + 1) for i in range(n - 1)}
    edges = np.array(sorted(pairs)).T
    folder = tmp_path / "data" / "se_privgemb" / "Power"
    folder.mkdir(parents=True)
    (folder / "train_1").write_text("\n".join(f"{u} {v}" for u, v in edges.T) + "\n")
    order = rng.permutation(edges.shape[1])
    test = edges[:, order[:20]]
    non_edges = np.array([(u, v) for u in range(n) for v in range(u + 1, n) if (u, v) not in pairs][:40]).T
    np.savez(folder / "lp_split_train0.9_test0.1.npz", train_pos=edges[:, order[20:]], train_neg=non_edges[:, 20:],
             test_pos=test, test_neg=non_edges[:, :20])
    monkeypatch.setattr(repro, "QUICK_STEPS", {"strucequ": 20, "link": 20})
    monkeypatch.setattr(repro, "PER_SUBGRAPH_ACCOUNTANT", "opacus")  # fast; the accountant is not under test
    return tmp_path


def _reproduce(root, *extra):
    return ["reproduce", "se-privgemb", "--quick", "--runs", "1", "--workers", "1", "--data-dir", str(root / "data"),
            "--no-verify", "--results", str(root / "runs"), "--json", *extra]  # a folder of our own: no SHA256SUMS


def test_quick_end_to_end_then_resume_skips_finished_runs(tiny_power, capsys, monkeypatch):
    code = _exit_code(_reproduce(tiny_power, "--plot", str(tiny_power / "fig.png")))
    report = json.loads(capsys.readouterr().out)
    assert code in (0, 1, 4)  # a verdict (4: inconclusive)
    rows = {r["name"]: r for r in report["results"]}
    table6 = [r for r in rows.values() if r["name"].startswith("table6 ")]
    assert len(table6) == 14  # 12 printed cells + the two noise-only controls
    ran = [r for r in table6 if r["status"] in ("pass", "fail")]
    assert len(ran) >= 8 and {r["status"] for r in table6 if "control" in r["name"]} == {"info"} and all("reduced: 1 of 10 runs" in r["explanation"] for r in ran)
    # eps = 0.5 on a 60-node graph: gamma is so large that the claimed accountant allows no step
    assert all("allows no step" in r["explanation"] for r in table6 if r not in ran and "control" not in r["name"])
    fig4 = [r for r in rows.values() if r["name"].startswith("fig4 Power")]
    assert fig4 and all(r["status"] == "info" and "T_max 20 of 2000 steps" in r["explanation"] for r in fig4
                        if "allows no step" not in r["explanation"])
    assert rows["fig4 Power SE-GEmb_DW"]["status"] == "info"
    assert rows["fig3 Power SE-GEmb_DW"]["details"]["paper_mean"] == 0.32
    assert rows["accountant"]["status"] == "info"
    controls = [r for r in rows.values() if r["name"].startswith("controls: ")]
    ran_strucequ = [r for r in rows.values() if r["details"].get("task") == "strucequ"]
    assert len(controls) == len(ran_strucequ) > 0
    assert all(r["status"] in ("info", "warn") and " / degree-only " in r["explanation"] for r in controls)
    assert (tiny_power / "fig.png").read_bytes()[:4] == b"\x89PNG"
    stored = sorted((tiny_power / "runs").rglob("*.json"))
    assert stored and report["settings"]["runs finished"] == f"{len(stored)}/{len(stored)}"

    def must_not_run(*args):
        raise AssertionError("a finished run was trained again")

    monkeypatch.setattr(se_privgemb_runs, "run_with_cache", must_not_run)
    assert _exit_code(_reproduce(tiny_power)) in (0, 1, 4)  # a verdict (4: inconclusive)
    again = json.loads(capsys.readouterr().out)
    assert [r["details"].get("values") for r in again["results"]] == \
        [r["details"].get("values") for r in report["results"]]


def test_max_runs_caps_new_runs_and_leaves_cells_inconclusive(tiny_power, capsys):
    _exit_code(_reproduce(tiny_power, "--tables", "table6", "--max-runs", "2"))
    report = json.loads(capsys.readouterr().out)
    assert len(list((tiny_power / "runs").rglob("*.json"))) == 2
    assert any(r["status"] == "inconclusive" and "not finished" in r["explanation"] for r in report["results"])


def _cell(table="table6", perturbation="nonzero", proximity="deepwalk", eps=3.5, runs=10):
    return repro._cell(table, "Power", proximity, perturbation, eps, 6594, runs, 200, "")


def _results(cell, values):
    return {c: SePrivGEmbResult(c, {"strucequ": v}) for c, v in zip(cell.configs, values)}


def test_tolerance_rule_passes_the_printed_value_and_fails_a_mutant():
    cell = _cell()  # Table VI, Power, DW, non-zero, eps 3.5: 0.2522 +- 0.0543
    sd = 0.05
    expected = 3 * np.sqrt(0.0543 ** 2 / 10 + sd ** 2 / 10) + 0.01
    assert repro.tolerance(0.0543, sd, 10) == pytest.approx(expected)
    values = 0.2522 + sd * np.linspace(-1.5, 1.5, 10) / np.std(np.linspace(-1.5, 1.5, 10), ddof=1)
    inside = repro.cell_row(cell, _results(cell, values + 0.9 * expected))
    assert inside.status == Status.PASS and inside.threshold == pytest.approx(expected)
    mutant = repro.cell_row(cell, _results(cell, values + 1.1 * expected))
    assert mutant.status == Status.FAIL
    below = repro.cell_row(cell, _results(cell, values - 1.1 * expected))
    assert below.status == Status.FAIL


def test_figure_read_off_uses_the_reading_floor_and_fig4_gives_no_verdict():
    fig3 = repro._cell("fig3", "Power", "deepwalk", "none", None, 6594, 3, 200, "")
    row = repro.cell_row(fig3, _results(fig3, [0.32, 0.32, 0.32]))
    assert row.status == Status.PASS and row.threshold == pytest.approx(0.02)
    assert repro.cell_row(fig3, _results(fig3, [0.35] * 3)).status == Status.FAIL
    fig4 = repro._cell("fig4", "Power", "deepwalk", "none", None, 5935, 2, 2000, "", task="link")
    results = {c: SePrivGEmbResult(c, {"auc": 0.9}) for c in fig4.configs}
    assert repro.cell_row(fig4, results).status == Status.INFO


def test_c17_passes_when_nonzero_wins_and_fails_the_mutant_where_naive_wins():
    rng = np.random.default_rng(1)
    nonzero, naive = _cell(), _cell(perturbation="all")
    high, low = 0.25 + 0.01 * rng.standard_normal(10), 0.08 + 0.01 * rng.standard_normal(10)
    good = repro.c17_rows([nonzero, naive], {**_results(nonzero, high), **_results(naive, low)})
    assert [r.status for r in good] == [Status.PASS]
    mutant = repro.c17_rows([nonzero, naive], {**_results(nonzero, low), **_results(naive, high)})
    assert [r.status for r in mutant] == [Status.FAIL] and "opposite direction" in mutant[0].explanation
    few = repro.c17_rows([nonzero, naive], {**_results(nonzero, high), **_results(naive, high + 0.001)})
    assert [r.status for r in few] == [Status.FAIL]  # 10 runs reach what the paper's effect needs


def test_the_four_baselines_are_inconclusive_rows():
    rows = repro.baseline_rows(("table6", "fig3", "fig4"))
    assert len(rows) == 8 and all(r.status == Status.INCONCLUSIVE for r in rows)
    assert {r.name.split(" above ")[1] for r in rows} == {"DPGGAN", "DPGVAE", "GAP", "ProGAP"}
    assert "not reproduced" in rows[0].explanation


@pytest.mark.parametrize("table", ["drop", "table7"])
def test_bad_tables_id_exits_2_listing_the_valid_ids(table, capsys):
    assert _exit_code(["reproduce", "se-privgemb", "--tables", table, "--max-runs", "0"]) == 2
    err = capsys.readouterr().err
    assert "--tables" in err and "table6" in err and "fig4" in err


def test_noise_only_control_warns_when_it_reproduces_the_trained_value_and_not_otherwise():
    trained = _cell()
    control = repro._cell("table6", "Power", "deepwalk", "nonzero", 3.5, 6594, 10, 200, "", noise_only=True)
    assert control.configs[0].noise_only and control.configs[0].key().endswith("-noiseonly")
    assert control.configs[0].train_config().clip == pytest.approx(1e-12)
    spread = 0.01 * np.linspace(-1, 1, 10)
    same = repro.support_leak_rows([trained, control], {**_results(trained, 0.58 + spread),
                                                        **_results(control, 0.585 + spread)})
    assert [r.status for r in same] == [Status.WARN]
    learned = repro.support_leak_rows([trained, control], {**_results(trained, 0.70 + spread),
                                                           **_results(control, 0.585 + spread)})
    assert [r.status for r in learned] == [Status.INFO]


def _with_controls(cell, measured, degree_only, permuted, released=None):
    return {c: SePrivGEmbResult(c, {"strucequ": measured, "strucequ_degree_only": degree_only,
                                    "strucequ_permuted": permuted,
                                    "strucequ_released": measured if released is None else released,
                                    "strucequ_released_degree_only": degree_only,
                                    "strucequ_released_permuted": permuted}) for c in cell.configs}


def test_controls_row_warns_when_the_model_does_not_beat_the_degree_only_control():
    cell = _cell(runs=3)
    beaten = repro.control_rows([cell], _with_controls(cell, 0.20, 0.35, 0.01))
    assert [r.status for r in beaten] == [Status.WARN] and beaten[0].name == f"controls: {cell.name}"
    assert "measured 0.2000 / degree-only 0.3500 / permuted 0.0100" in beaten[0].explanation
    assert "does NOT beat" in beaten[0].explanation
    beats = repro.control_rows([cell], _with_controls(cell, 0.40, 0.35, 0.01))
    assert [r.status for r in beats] == [Status.INFO] and beats[0].statistic == pytest.approx(0.05)


def test_runs_stored_before_the_controls_share_one_not_recorded_row():
    cell, other = _cell(runs=2), _cell(perturbation="all", runs=2)
    rows = repro.control_rows([cell, other], {**_results(cell, [0.2, 0.3]), **_results(other, [0.1, 0.1])})
    assert [(r.name, r.status) for r in rows] == [("controls not recorded", Status.INFO)]
    assert "2 StrucEqu cells" in rows[0].explanation
    released = repro.cell_row(cell, _results(cell, [0.2, 0.3]), "released")
    assert released.status == Status.INCONCLUSIVE and "predate the released evaluation" in released.explanation


def test_released_evaluation_rows_read_the_released_strucequ_and_say_so():
    cell = _cell(runs=3)
    results = _with_controls(cell, 0.2522, 0.30, 0.0, released=0.9)
    spec, released = repro.cell_row(cell, results), repro.cell_row(cell, results, "released")
    assert spec.status == Status.PASS and "evaluation" not in spec.details
    assert released.name == f"{cell.name} [released StrucEqu]" and released.details["evaluation"] == "released"
    assert released.statistic == pytest.approx(0.9) and released.details["gap"] == pytest.approx(0.9 - 0.2522)
    link = repro._cell("fig4", "Power", "deepwalk", "none", None, 5935, 2, 2000, "", task="link")
    report = repro.se_privgemb_report("t", [cell, link], {**results, **{c: SePrivGEmbResult(c, {"auc": 0.5})
                                                                        for c in link.configs}},
                                      ("table6", "fig4"), ("Power",), evaluations=("spec", "released"))
    names = [r.name for r in report.results]
    assert names.count(f"{cell.name} [released StrucEqu]") == 1 and names.count(link.name) == 1
    assert f"controls: {cell.name}" in names and f"controls: {cell.name} [released StrucEqu]" in names


def test_released_evaluation_rows_explain_and_never_give_a_verdict():
    """The released pairing is a defect (adjacency and embedding rows of different nodes): its rows show the
    measured number, the paper's and the gap, as INFO, whether the gap is inside the tolerance or far outside;
    the spec's verdicts stay."""
    cell = _cell(runs=3)  # Table VI, Power, DW, non-zero, eps 3.5: 0.2522 +- 0.0543
    for measured, spec_status in ((0.2522, Status.PASS), (0.9, Status.FAIL)):
        results = _with_controls(cell, measured, 0.30, 0.0)
        spec, released = repro.cell_row(cell, results), repro.cell_row(cell, results, "released")
        assert spec.status == spec_status and released.status == Status.INFO
        assert f"measured StrucEqu {measured:.4f}" in released.explanation and "paper 0.2522: gap" in \
            released.explanation and "no verdict" in released.explanation
    report = repro.se_privgemb_report("t", [cell], _with_controls(cell, 0.9, 0.30, 0.0), ("table6",), ("Power",),
                                      evaluations=("released",))
    assert [r.name for r in report.failures()] == []


def test_chameleon_released_rows_say_their_node_order_is_hypothesised():
    cell = repro._cell("table6", "Chameleon", "deepwalk", "nonzero", 3.5, 31421, 2, 200, "")
    results = _with_controls(cell, 0.09, -0.02, -0.05)
    hypothesis = "hypothesised node order: the MUSAE edge file stands in for the unreleased train_1"
    assert hypothesis in repro.cell_row(cell, results, "released").explanation
    assert hypothesis in repro.control_rows([cell], results, "released")[0].explanation
    assert hypothesis not in repro.cell_row(cell, results).explanation
    assert hypothesis not in repro.control_rows([cell], results)[0].explanation
    power = _cell(runs=2)
    assert hypothesis not in repro.cell_row(power, _with_controls(power, 0.1, 0.0, 0.0), "released").explanation


def test_the_hypothesised_orders_are_the_datasets_without_a_released_edge_list():
    from ldp_audit.models import data

    assert set(repro.RELEASED_ORDER_HYPOTHESISED) == {name for name, loader in repro.DATASETS.items()
                                                      if loader not in data._EDGE_LISTS}


@pytest.mark.parametrize("protocol", ["released", "both"])
def test_a_released_protocol_without_a_strucequ_table_is_refused(tiny_power, protocol, capsys):
    """fig4 has link cells only: a released StrucEqu evaluation would change nothing while the settings claimed it."""
    assert _exit_code(_reproduce(tiny_power, "--tables", "fig4", "--protocol", protocol)) == 2
    err = capsys.readouterr().err
    assert f"--protocol {protocol}" in err and "--tables fig4" in err and "no StrucEqu cell" in err
    assert not (tiny_power / "runs").exists() or not list((tiny_power / "runs").rglob("*.json"))


def test_spec_protocol_and_a_strucequ_table_beside_fig4_are_accepted():
    from argparse import Namespace

    from ldp_audit.commands.reproduce.se_privgemb import _evaluations

    assert _evaluations(Namespace(protocol="spec"), ("fig4",)) == ("spec",)
    assert _evaluations(Namespace(protocol=None), ("fig4",)) == ("spec",)
    assert _evaluations(Namespace(protocol="both"), ("fig4", "fig3")) == ("spec", "released")


def test_protocol_released_reports_strucequ_under_the_released_evaluation(tiny_power, capsys):
    """``--protocol released`` end to end: se-privgemb's released protocol is an evaluation, not a training preset."""
    _exit_code(_reproduce(tiny_power, "--tables", "table6", "--protocol", "released"))
    report = json.loads(capsys.readouterr().out)
    cells = [r for r in report["results"] if r["name"].startswith("table6 ") and "measured_mean" in r["details"]]
    assert cells and all(r["name"].endswith("[released StrucEqu]") for r in cells)
    assert all(r["status"] == "info" for r in cells)
    assert all("no verdict" in r["explanation"] for r in cells if "paper_mean" in r["details"])
    assert all(r["details"]["evaluation"] == "released" for r in cells)
    controls = [r for r in report["results"] if r["name"].startswith("controls: ")]
    assert controls and all("released evaluation" in r["explanation"] for r in controls)
    assert report["settings"]["strucequ evaluation"] == "released"


def test_plot_draws_the_degree_only_control_of_the_drawn_evaluation():
    from ldp_audit.commands.reproduce.se_privgemb import _degree_only_means, se_privgemb_plot

    cell = _cell(runs=2)
    report = repro.se_privgemb_report("t", [cell], _with_controls(cell, 0.5, 0.9, 0.0), ("table6",), ("Power",),
                                      evaluations=("spec", "released"))
    assert _degree_only_means(report, "spec") == {"Power": pytest.approx(0.9)}
    assert se_privgemb_plot(report).startswith(b"\x89PNG")


def test_plot_under_the_released_protocol_keeps_the_strucequ_panels_beside_a_link_row(monkeypatch):
    """Link rows carry no evaluation: they must not make the plot pick the spec's StrucEqu (and draw none)."""
    from ldp_audit.commands.reproduce import se_privgemb as command

    cell = _cell(runs=2)
    link = repro._cell("fig4", "Power", "deepwalk", "none", None, 5935, 2, 2000, "", task="link")
    results = {**_with_controls(cell, 0.5, 0.9, 0.0, released=0.02),
               **{c: SePrivGEmbResult(c, {"auc": 0.5}) for c in link.configs}}
    report = repro.se_privgemb_report("t", [cell, link], results, ("table6", "fig4"), ("Power",),
                                      evaluations=("released",))
    drawn = {}
    monkeypatch.setattr(command, "_eps_panel", lambda ax, own: drawn.setdefault(
        own[0].details["table"], [r.details["measured_mean"] for r in own]))
    assert command.se_privgemb_plot(report).startswith(b"\x89PNG")
    assert drawn == {"table6": [pytest.approx(0.02)], "fig4": [pytest.approx(0.5)]}

