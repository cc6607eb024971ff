"""``ldp-audit train ppgnn`` / ``reproduce ppgnn``: bad input exits 2 naming the parameter; Table III lookups;
C17 passes when PPM beats MB, fails on a mutant where MB beats PPM, and stays INCONCLUSIVE on 3 runs; E16 reports
PPM's larger mean feature budget; the C19 trend rows pass on conforming and fail on violating results. Measurements
are fabricated (no training)."""
from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from ldp_audit.audits.kernel.result import Status
from ldp_audit.cli import main
from ldp_audit.audits.reproduction.ppgnn import (c19_rows, feature_budget_row, k_trend_row, ppgnn_paper_value,
                                                 ppgnn_rows, ppm_over_mb)
from ldp_audit.models.training import ppgnn
from ldp_audit.models.training.lpgnn import Measured
from ldp_audit.models.training.protocols import protocol
from ldp_audit.models.training.stages import mean_feature_budget
from ldp_audit.papers.ppgnn import E16_BUDGET_RATIO


def _exit_code(argv) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


@pytest.mark.parametrize("argv, parameter", [
    (["train", "ppgnn", "--eps-x", "0"], "--eps-x"),
    (["train", "ppgnn", "--eps-x", "inf"], "--eps-x"),
    (["train", "ppgnn", "--mechanism", "pm"], "--mechanism"),
    (["train", "ppgnn", "--mechanism", "gm", "--eps-x", "5000"], "--eps-x"),  # Cora: eps/d must stay below 1
    (["train", "ppgnn", "--mode", "fixed"], "--mode"),
    (["train", "ppgnn", "--eps-y", "1"], "--eps-y"),
    (["train", "ppgnn", "--mechanism", "mb", "--mode", "corrected"], "--mode"),
    (["reproduce", "ppgnn", "--datasets", "imaginary", "--max-runs", "0"], "--datasets"),
    (["reproduce", "ppgnn", "--tables", "drop", "--max-runs", "0"], "--tables"),
    (["reproduce", "ppgnn", "--backbone", "mlp"], "--backbone"),
    (["reproduce", "ppgnn", "--mechanisms", "MB", "PM", "--max-runs", "0"], "--mechanisms"),
    (["reproduce", "lpgnn", "--mechanisms", "MB", "--max-runs", "0"], "--mechanisms"),
    (["reproduce", "lpgnn", "--protocol", "released", "--tables", "drop", "--max-runs", "0"], "--protocol"),
    (["reproduce", "ppgnn", "--protocol", "released", "--tables", "fig4", "--max-runs", "0"], "--protocol"),
    (["reproduce", "ldp-ge", "--full", "--protocol", "both", "--tables", "fig2", "ksweep", "--max-runs", "0"],
     "--protocol"),
    (["reproduce", "ppgnn", "--protocol", "authors", "--max-runs", "0"], "--protocol"),
])
def test_bad_input_exits_2_naming_the_parameter(argv, parameter, capsys):
    assert _exit_code([*argv, "--epochs", "2"] if argv[0] == "train" else argv) == 2
    assert parameter in capsys.readouterr().err


def _cells(runs):
    return ppgnn.table3_cells(["cora"], (0.01,), ppgnn.MECHANISMS_QUICK, k_grid=(2,), runs=runs)


def _measured(cell, values):
    return Measured(cell, 2, tuple(values), 2, tuple(values), {2: 0.0}, ("cpu",))


def test_table3_lookup_reads_the_printed_cells():
    mb, ppm = _cells(3)
    assert ppgnn_paper_value(mb)[:2] == (55.1, 2.2) and ppgnn_paper_value(ppm)[:2] == (62.0, 2.1)


@pytest.mark.parametrize("ppm_values, status", [
    ([62, 63, 61, 62, 64, 63, 62, 61, 63, 62], Status.PASS),  # PPM above MB in every run
    ([50, 51, 49, 50, 52, 51, 50, 49, 51, 50], Status.FAIL),  # mutant: MB beats PPM
    ([55, 57, 54, 56, 55, 53, 56, 55, 54, 56], Status.INCONCLUSIVE),  # no difference
])
def test_c17_decides_with_ten_runs(ppm_values, status):
    mb_cell, ppm_cell = _cells(10)
    mb = _measured(mb_cell, [55, 56, 54, 55, 57, 55, 54, 56, 55, 54])
    row = ppm_over_mb("cora", 0.01, mb, _measured(ppm_cell, ppm_values))
    assert row.status is status
    assert row.interval[0] <= row.statistic <= row.interval[1]


def test_c17_on_three_runs_is_inconclusive_even_when_ppm_leads():
    mb_cell, ppm_cell = _cells(3)
    row = ppm_over_mb("cora", 0.01, _measured(mb_cell, [55, 56, 54]), _measured(ppm_cell, [62, 63, 61]))
    assert row.status is Status.INCONCLUSIVE and "too few" in row.explanation


def test_e16_row_reports_ppm_mean_budget_against_mb():
    mb_cell, ppm_cell = _cells(3)
    row = feature_budget_row("cora", 0.01, _measured(mb_cell, [55, 56, 54]), _measured(ppm_cell, [62, 63, 61]),
                             num_nodes=100_000)
    assert row.status is Status.INFO and row.statistic == pytest.approx(3.1, rel=0.02)
    rows = ppgnn_rows([mb_cell, ppm_cell], {mb_cell: _measured(mb_cell, [55, 56, 54]),
                                            ppm_cell: _measured(ppm_cell, [62, 63, 61])}, {"cora": 2708})
    assert [r.name for r in rows] == ["cora C17 PPM-MB eps=0.01", "cora E16 budget eps=0.01"]


def test_e16_row_of_released_runs_reports_what_their_users_spend():
    mb_cell, ppm_cell = ppgnn.table3_cells(["cora"], (1.0,), ppgnn.MECHANISMS_QUICK, k_grid=(2,), runs=3,
                                           protocol=protocol("ppgnn", "released"))
    mb, ppm = _measured(mb_cell, [55, 56, 54]), _measured(ppm_cell, [62, 63, 61])
    row = feature_budget_row("cora", 1.0, mb, ppm, num_nodes=2708, num_features=1433)
    spent = np.mean([mean_feature_budget(c, 2708, 1433) for c in ppm_cell.candidates[2]])
    assert row.statistic == pytest.approx(spent) and row.statistic > 2 * E16_BUDGET_RATIO  # nominal: 3.1
    assert "count draws" in row.explanation
    rows = ppgnn_rows([mb_cell, ppm_cell], {mb_cell: mb, ppm_cell: ppm}, {"cora": 2708}, {"cora": 1433})
    assert rows[1].statistic == row.statistic


def test_table3_lookup_reads_every_mechanism_column():
    cells = ppgnn.table3_cells(["cora"], (0.01,), k_grid=(2,), runs=1)
    assert [c.column.split(" ")[0] for c in cells] == ["1B", "LP", "GM", "MB", "PPM"]
    assert [ppgnn_paper_value(c)[0] for c in cells] == [25.9, 23.3, 31.3, 55.1, 62.0]


# ----- C19 -------------------------------------------------------------------------------------------------------

K_GRID = (0, 2, 4, 8, 16)


def _k_results(cell, curve, noise=0.5, seed=0):
    """Fabricated runs of ``cell``: test and validation accuracy follow ``curve`` (K -> %), each with its own
    seeded noise (validation noise independent of test, as on disjoint node sets)."""
    rng = np.random.default_rng(seed)
    out = {}
    for k, configs in cell.candidates.items():
        for config in configs:
            test, val = (curve[k] + rng.normal(0, noise, size=2)) / 100
            out[config] = SimpleNamespace(test_accuracy=test, metrics={"val_acc": val})
    return out


@pytest.mark.parametrize("curve, status", [
    ({0: 50, 2: 60, 4: 63, 8: 61, 16: 55}, Status.PASS),  # rises, then falls (Fig. 6)
    ({0: 50, 2: 55, 4: 58, 8: 61, 16: 64}, Status.FAIL),  # mutant: keeps rising, no over-smoothing
    ({0: 64, 2: 61, 4: 58, 8: 55, 16: 50}, Status.FAIL),  # mutant: propagation only hurts
    ({0: 60, 2: 60, 4: 60, 8: 60, 16: 60}, Status.INCONCLUSIVE),  # flat: no evidence either way
])
def test_c19_k_trend_on_ten_seeds(curve, status):
    cell = ppgnn.table3_cells(["cora"], (0.01,), ("PPM",), k_grid=K_GRID, runs=10)[0]
    row = k_trend_row(cell, _k_results(cell, curve))
    assert row.status is status, row.explanation


def test_c19_k_trend_is_inconclusive_on_the_quick_grid_and_on_unfinished_runs():
    quick = ppgnn.table3_cells(["cora"], (0.01,), ("PPM",), k_grid=(2, 8), runs=10)[0]
    assert k_trend_row(quick, _k_results(quick, {2: 60, 8: 50})).status is Status.INCONCLUSIVE
    full = ppgnn.table3_cells(["cora"], (0.01,), ("PPM",), k_grid=K_GRID, runs=10)[0]
    results = _k_results(full, {0: 50, 2: 60, 4: 63, 8: 61, 16: 55})
    results.pop(full.candidates[16][0])
    assert "unfinished" in k_trend_row(full, results).explanation


@pytest.mark.parametrize("low, high, status", [
    ([55, 56, 54, 55, 57, 55, 54, 56, 55, 54], [78, 79, 77, 79, 80, 78, 77, 79, 78, 79], Status.PASS),
    ([78, 79, 77, 79, 80, 78, 77, 79, 78, 79], [55, 56, 54, 55, 57, 55, 54, 56, 55, 54], Status.FAIL),  # mutant
    ([55, 56, 54, 55, 57, 55, 54, 56, 55, 54], [55, 57, 54, 56, 55, 53, 56, 55, 54, 56], Status.INCONCLUSIVE),
])
def test_c19_eps_trend_per_mechanism(low, high, status):
    cells = ppgnn.table3_cells(["cora"], (0.01, 1.0), ("LP",), k_grid=(2,), runs=10)
    measured = {cells[0]: _measured(cells[0], low), cells[1]: _measured(cells[1], high)}
    rows = c19_rows(cells, measured, {})
    assert [r.name for r in rows] == ["cora C19 eps-trend LP"] and rows[0].status is status


def test_c19_rows_need_five_seeds():
    cells = ppgnn.table3_cells(["cora"], (0.01, 1.0), ("MB", "PPM"), k_grid=(2, 8), runs=3)
    measured = {c: _measured(c, [50 + 20 * ("eps=1" in c.column) + i for i in range(3)]) for c in cells}
    rows = c19_rows(cells, measured, _k_results(cells[1], {2: 60, 8: 50}))
    assert {r.status for r in rows} == {Status.INCONCLUSIVE}
    assert sum("eps-trend" in r.name for r in rows) == 2 and sum("K-trend" in r.name for r in rows) == 2


def test_train_ppgnn_runs_a_table3_baseline(tmp_path, capsys):
    import json

    assert main(["train", "ppgnn", "--mechanism", "lp", "--eps-x", "1", "--epochs", "2", "--k", "1",
                 "--results", str(tmp_path), "--json", "--device", "cpu"]) == 0
    config = json.loads(capsys.readouterr().out)["config"]
    assert (config["mechanism"], config["m"], config["aggregator"], config["self_loops"]) == \
        ("laplace_hd", "all", "mean", True)


def test_full_restricts_to_chosen_mechanisms_and_skips_datasets_without_features(tmp_path, capsys):
    argv = ["reproduce", "ppgnn", "--full", "--datasets", "cora", "lastfm", "--mechanisms", "mb", "--max-runs", "0",
            "--results", str(tmp_path), "--json"]
    assert _exit_code(argv) in (0, 1, 4)
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    table = [name for name, r in rows.items() if r["details"].get("table") == "ppgnn_table3" and " eps=" in name
             and "C1" not in name and "E16" not in name]
    assert table and all(" MB eps=" in name for name in table)
    assert any(name.startswith("lastfm") and "not runnable" in rows[name]["explanation"] for name in table)


def test_the_released_protocol_builds_released_runs_and_says_so(tmp_path, capsys):
    from ldp_audit.models.training.protocols import protocol

    argv = ["reproduce", "ppgnn", "--quick", "--max-runs", "0", "--results", str(tmp_path), "--json"]
    assert _exit_code([*argv, "--protocol", "released"]) in (0, 1, 4)
    released = json.loads(capsys.readouterr().out)
    assert released["subject"]["protocol"] == "released" and released["subject"]["backbone"] == "sage"
    assert _exit_code([*argv, "--protocol", "released", "--backbone", "gcn"]) in (0, 1, 4)
    assert json.loads(capsys.readouterr().out)["subject"]["backbone"] == "gcn"
    assert _exit_code(argv) in (0, 1, 4)
    spec = json.loads(capsys.readouterr().out)
    assert "protocol" not in spec["subject"] and spec["subject"]["backbone"] == "gcn"
    preset = protocol("ppgnn", "released")
    [cell] = ppgnn.table3_cells(["cora"], (1.0,), ("MB",), k_grid=(2,), runs=1, protocol=preset)
    [spec_cell] = ppgnn.table3_cells(["cora"], (1.0,), ("MB",), k_grid=(2,), runs=1)
    assert cell.configs() == [preset.apply(c) for c in spec_cell.configs()]


def test_attribution_recovers_both_shares_of_a_synthetic_two_element_difference():
    from ldp_audit.audits.reproduction.protocol_gap import attribution_rows

    rng = np.random.default_rng(0)
    released = 25 + rng.normal(0, 1, 10)
    loss_share, model_share = 40.0, 8.0  # additive effects of two elements
    switched = {"objective -> spec": released + loss_share + rng.normal(0, 0.3, 10),
                "model -> spec": released + model_share + rng.normal(0, 0.3, 10)}
    spec = released + loss_share + model_share + rng.normal(0, 0.3, 10)
    rows = {r.name.split(": ")[1]: r for r in attribution_rows("cora 1B eps=0.01", spec, released, switched, {})}
    assert abs(rows["objective -> spec"].statistic - loss_share) < 0.5
    assert abs(rows["model -> spec"].statistic - model_share) < 0.5
    lo, hi = rows["objective -> spec"].interval
    assert lo < loss_share < hi
    assert abs(rows["whole gap"].details["unexplained"]) < 0.5
    # an interaction (the model matters only under the released loss) shows up as unexplained, not as a share
    interacting = attribution_rows("x", released + loss_share, released, {"objective -> spec": released + loss_share,
                                                                          "model -> spec": released + model_share}, {})
    assert abs(interacting[-1].details["unexplained"] + model_share) < 1e-9


def test_protocol_both_reports_both_columns_and_attributes_the_gap(monkeypatch, tmp_path, capsys):
    """Fabricated runs (no training): accuracy 20 % under the saturating loss, 70 % otherwise, +5 with SAGE,
    spread over the seeds ten times wider at K = 2 than at K = 8 (chosen on validation). The attribution must
    give the loss +50 points and the backbone -5, and leave nothing unexplained; the per-K row judges K = 2 by
    the tolerance of its own runs."""
    from ldp_audit.models.training import RunResult, sweep

    def accuracy(config):
        return (0.2 if config.objective == "saturating" else 0.7) + (0.05 if config.model == "sage" else 0.0) \
            + 0.001 * config.seed * (10 if config.k_x == 2 else 1)

    def fake_sweep(configs, *args, **kwargs):
        return {c: RunResult(c, {"val_acc": accuracy(c) + 0.01 * c.k_x, "test_acc": accuracy(c)}, {}, "cpu", "cpu",
                             {}, 0.0, {"num_nodes": 2708}) for c in configs}

    monkeypatch.setattr(sweep, "run_sweep", fake_sweep)
    argv = ["reproduce", "ppgnn", "--quick", "--mechanisms", "MB", "--runs", "5", "--protocol", "both",
            "--results", str(tmp_path), "--json", "--device", "cpu", "--plot", str(tmp_path / "both.png")]
    assert _exit_code(argv) in (0, 1, 4)  # a verdict (4: inconclusive)
    report = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in report["results"]}
    assert rows["cora MB eps=0.01 [spec]"]["details"]["measured_mean"] == pytest.approx(70.2)
    assert rows["cora MB eps=0.01 [released]"]["details"]["measured_mean"] == pytest.approx(25.2)
    assert rows["cora MB eps=0.01 attribution: objective -> spec"]["statistic"] == pytest.approx(50.0)
    assert rows["cora MB eps=0.01 attribution: model -> spec"]["statistic"] == pytest.approx(-5.0)
    whole = rows["cora MB eps=0.01 attribution: whole gap"]
    assert whole["statistic"] == pytest.approx(45.0) and whole["details"]["unexplained"] == pytest.approx(0.0)
    assert report["subject"]["protocol"] == "both"
    per_k = rows["cora MB eps=0.01 [released] per K"]
    assert per_k["status"] == "info" and per_k["details"]["closest_k"] == 2
    assert per_k["statistic"] == pytest.approx(27.0)
    assert per_k["threshold"] == pytest.approx(3 * np.std([25.0, 26, 27, 28, 29], ddof=1) * np.sqrt(2 / 5))
    assert (tmp_path / "both.png").read_bytes().startswith(b"\x89PNG")


def test_the_k_match_row_finds_the_k_that_reproduces_the_printed_number():
    from ldp_audit.audits.reproduction.protocol_gap import k_match_row

    row = k_match_row("cora 1B eps=0.01 [released]", 25.9, {0: [20.0, 21.0], 2: [33.0, 34.0], 16: [53.0, 54.0]},
                      {0: 6.0, 2: 1.0, 16: 1.0}, {}, "a rule")
    assert row.details["closest_k"] == 0 and row.statistic == pytest.approx(20.5)
    assert "K chosen on test (a rule): K=16" in row.explanation
    assert "within the tolerance of its runs at that K, 6.0" in row.explanation and row.status.value == "info"
    assert row.threshold == 6.0
    far = k_match_row("x", 90.0, {0: [20.0], 2: [33.0]}, {0: 5.0, 2: 5.0}, {}, "a rule")
    assert far.details["closest_k"] == 2 and "outside" in far.explanation
    # the closest K is judged by its own runs' tolerance, not by the tolerance of the K chosen on validation
    narrow = k_match_row("y", 25.9, {0: [20.0, 21.0], 16: [53.0, 54.0]}, {0: 1.0, 16: 6.0}, {}, "a rule")
    assert "outside the tolerance of its runs at that K, 1.0" in narrow.explanation


@pytest.mark.parametrize("argv, parameter", [
    (["reproduce", "ppgnn", "--k-grid", "0", "0", "--max-runs", "0"], "--k-grid"),
    (["reproduce", "ppgnn", "--k-grid", "65", "--max-runs", "0"], "--k-grid"),
    (["reproduce", "ldp-ge", "--k-grid", "0", "--max-runs", "0"], "--k-grid"),
    (["reproduce", "lpgnn", "--k-grid", "2", "--tables", "fig6", "--max-runs", "0"], "--k-grid"),
    (["reproduce", "lpgnn", "--k-grid", "2", "--tables", "table3", "drop", "--max-runs", "0"], "--k-grid"),
])
def test_k_grid_refuses_what_it_cannot_do(argv, parameter, capsys):
    assert _exit_code(argv) == 2
    assert parameter in capsys.readouterr().err


@pytest.mark.parametrize("paper, extra", [("ppgnn", ["--protocol", "released", "--mechanisms", "1B", "LP"]),
                                          ("lpgnn", ["--protocol", "released", "--datasets", "cora"]),
                                          ("ppgnn", [])])
def test_k_grid_replaces_the_modes_and_the_presets_k(paper, extra, monkeypatch, tmp_path, capsys):
    """Every private Table III / Table 3 run of --k-grid 0 3 has K in {0, 3} (the released LPGNN preset's own grid
    {1, ..., 32} and the mode's give way; LPGNN's GCN rows keep their one fixed KProp(1) layer), and each cell
    chooses among exactly those K."""
    from ldp_audit.models.training import RunResult, sweep

    trained = []

    def fake_sweep(configs, *args, **kwargs):
        trained.extend(configs)
        return {c: RunResult(c, {"val_acc": 0.5 + 0.1 * (c.k_x == 3), "test_acc": 0.5}, {}, "cpu", "cpu", {}, 0.0,
                             {"num_nodes": 2708, "in_features": 1433}) for c in configs}

    monkeypatch.setattr(sweep, "run_sweep", fake_sweep)
    argv = ["reproduce", paper, "--quick", "--runs", "1", "--k-grid", "0", "3", "--results", str(tmp_path), "--json",
            "--device", "cpu", "--data-dir", str(tmp_path / "none"), *extra]
    assert _exit_code(argv) in (0, 1, 4)  # a verdict (4: inconclusive)
    report = json.loads(capsys.readouterr().out)
    rows = report["results"]
    assert report["settings"]["k grid"] == "0 3"
    assert trained and {c.k_x for c in trained if c.eps_x is not None} == {0, 3}
    chosen = [r["details"]["choice"] for r in rows if r.get("details", {}).get("choice") is not None]
    assert chosen and set(chosen) == {3}


@pytest.mark.parametrize("protocol", [[], ["--protocol", "released"]])
def test_k_grid_leaves_lpgnns_drop_table_out_of_full_and_a_one_k_cell_chooses_nothing(protocol, monkeypatch,
                                                                                      tmp_path, capsys):
    """--full --k-grid 0 fills Table 3 only (the Drop table sweeps its own K, so it is not silently kept at its
    own K), and a cell of one K says K=0 without "chosen on validation" and gets no per-K row."""
    from ldp_audit.models.training import RunResult, sweep

    trained = []

    def fake_sweep(configs, *args, **kwargs):
        trained.extend(configs)
        return {c: RunResult(c, {"val_acc": 0.5, "test_acc": 0.5}, {}, "cpu", "cpu", {}, 0.0,
                             {"num_nodes": 2708, "in_features": 1433}) for c in configs}

    monkeypatch.setattr(sweep, "run_sweep", fake_sweep)
    argv = ["reproduce", "lpgnn", "--full", "--datasets", "cora", "--runs", "1", "--k-grid", "0", *protocol,
            "--results", str(tmp_path), "--json", "--device", "cpu", "--data-dir", str(tmp_path / "none")]
    assert _exit_code(argv) in (0, 1, 4)  # a verdict (4: inconclusive)
    report = json.loads(capsys.readouterr().out)
    assert "Drop" not in report["subject"].get("tables", "")
    assert all(r["details"].get("table") != "drop" for r in report["results"])
    private = [r for r in report["results"] if r["details"].get("choice") == 0]
    assert private and all("K=0)" in r["explanation"] and "chosen on validation" not in r["explanation"]
                           for r in private)
    assert not any("per K" in r["name"] for r in report["results"])
