"""``ldp-audit train`` and ``ldp-audit reproduce``: bad input exits 2 naming the parameter; the reproduction
comparison fails a table far from the paper and passes a close one (results fabricated in the store, no
training)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ldp_audit.audits.reproduction.lpgnn import reproduction_report, tolerance
from ldp_audit.cli import main
from ldp_audit.models.training import RunConfig, RunResult, RunStore
from ldp_audit.models.training import lpgnn
from ldp_audit.papers import lpgnn as paper


@pytest.mark.parametrize("argv, parameter", [
    (["--dataset", "nope"], "dataset"),
    (["--model", "mlp"], "--model"),
    (["--eps-x", "0"], "--eps-x"),
    (["--eps-x", "-1"], "--eps-x"),
    (["--k", "-1"], "--k"),
    (["--dataset", "karate"], "--features raw"),
])
def test_train_bad_input_exits_2_naming_the_parameter(argv, parameter, capsys):
    assert _exit_code(["train", "lpgnn", *argv, "--epochs", "2"]) == 2
    assert parameter in capsys.readouterr().err


def _exit_code(argv) -> int:
    """main's return value, or argparse's exit status for usage errors."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def test_train_cuda_without_cuda_exits_2(capsys, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # the same on a machine that has CUDA
    assert main(["train", "lpgnn", "--dataset", "karate", "--features", "ohd", "--device", "cuda"]) == 2
    assert "cuda" in capsys.readouterr().err


def test_train_writes_a_result_and_reuses_it(tmp_path, capsys):
    argv = ["train", "lpgnn", "--dataset", "karate", "--features", "ohd", "--k", "2", "--epochs", "20",
            "--results", str(tmp_path), "--json"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["config"]["features"] == "ohd" and first["config"]["eps_x"] is None
    assert len(list(tmp_path.rglob("seed0.json"))) == 1
    assert main(argv) == 0 and json.loads(capsys.readouterr().out) == first


def test_reproduce_unknown_dataset_exits_2(capsys):
    assert _exit_code(["reproduce", "lpgnn", "--datasets", "imaginary", "--max-runs", "0"]) == 2
    assert "--datasets" in capsys.readouterr().err


def _fabricate(store: RunStore, cells, value_for) -> None:
    """Store a result for every run of every cell, with test accuracy value_for(cell, choice, seed)."""
    for cell in cells:
        for choice, configs in cell.candidates.items():
            for config in configs:
                acc = value_for(cell, choice, config.seed) / 100
                val = 0.9 if choice in (None, 8) else 0.8  # validation picks K = 8
                store.save(RunResult(config, {"test_acc": acc, "val_acc": val, "val_loss": 0.5, "train_acc": 0.9,
                                              "epoch": 1, "test_acc_best": acc}, {}, "cpu", "cpu", {}, 0.0))


def _paper_value(cell):
    return paper.TABLE3[cell.dataset].get(cell.column, (50.0, 0.0))[0]  # controls have no printed value


@pytest.mark.parametrize("offset, verdict, code", [(0.0, "pass", 0), (4.0, "fail", 1)])
def test_reproduce_compares_stored_results_with_the_paper(tmp_path, capsys, offset, verdict, code):
    cells = lpgnn.table3_cells(["cora"], lpgnn.EPS_QUICK, lpgnn.K_QUICK, 3)
    _fabricate(RunStore(tmp_path), cells, lambda cell, k, seed: _paper_value(cell) + offset + (seed - 1) * 0.3)
    argv = ["reproduce", "lpgnn", "--quick", "--datasets", "cora", "--results", str(tmp_path), "--max-runs", "0",
            "--json"]
    assert main(argv) == code
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == verdict and len(report["results"]) == 6
    control = next(r for r in report["results"] if r["name"] == "cora KProp+RND (E15)")
    assert control["status"] == "info" and control["details"]["choice"] == 8
    lpgnn_row = next(r for r in report["results"] if r["name"] == "cora LPGNN eps=1")
    assert lpgnn_row["details"]["choice"] == 8 and lpgnn_row["n"] == 3


def test_a_gap_explained_by_test_selection_is_reported():
    cells = [c for c in lpgnn.table3_cells(["cora"], (1.0,), (2, 8), 3) if c.kind == "lpgnn"]
    from ldp_audit.models.training.lpgnn import Measured

    measured = {cells[0]: Measured(cells[0], 8, (80.0, 80.2, 79.8), 2, (84.5, 84.7, 84.6), {8: 90.0, 2: 85.0},
                                   ("cpu",))}
    row = reproduction_report("t", cells, measured).results[0]
    assert row.status.value == "fail" and "choosing K on validation instead of test" in row.explanation


def test_unfinished_and_unrunnable_cells_are_inconclusive_not_dropped():
    cells = lpgnn.table3_cells(["github"], (1.0,), (2,), 2, has_features={"github": False})
    report = reproduction_report("t", cells, {})
    statuses = {r.name: (r.status.value, r.explanation) for r in report.results}
    assert statuses["github GCN+Raw"] == ("inconclusive", "not runnable: features missing")
    assert statuses["github GCN+RND"][0] == "inconclusive" and "not finished" in statuses["github GCN+RND"][1]


def test_tolerances_follow_spec_7_4():
    assert tolerance("baseline", 5.0, 3) == 1.5
    assert tolerance("lpgnn", 0.1, 10) == 1.0
    assert np.isclose(tolerance("lpgnn", 2.0, 10), 3 * 2.0 * np.sqrt(2 / 10))


def test_e12_fails_the_printed_github_sentence_and_passes_a_table_that_supports_it():
    from copy import deepcopy

    from ldp_audit.audits.claims.lpgnn import e12_rq1_arithmetic

    printed = e12_rq1_arithmetic()
    assert [r.status.value for r in printed] == ["fail", "pass", "pass"]
    table = deepcopy(paper.TABLE3)
    table["github"]["LPGNN eps=0.1"] = (86.5, 0.1)  # 2.5 points over GCN+OHD, as the text says
    assert e12_rq1_arithmetic(table)[0].status.value == "pass"
    table["pubmed"]["LPGNN eps=0.1"] = (75.0, 0.1)  # mutant: the Pubmed gain falls below 19 points
    assert e12_rq1_arithmetic(table)[1].status.value == "fail"


@pytest.mark.parametrize("offset, status", [(0.0, "pass"), (-5.0, "fail")])
def test_c14_and_e14_rows_read_stored_results(tmp_path, offset, status):
    from ldp_audit.audits.claims.lpgnn import table3_reproduction_rows

    cells = lpgnn.table3_cells(lpgnn.QUICK_DATASETS, lpgnn.EPS_QUICK, lpgnn.K_QUICK, lpgnn.RUNS_QUICK)
    _fabricate(RunStore(tmp_path), cells,
               lambda cell, k, seed: _paper_value(cell) + offset + (1.0 if k == 2 else 0.0))
    c14, e14 = table3_reproduction_rows("quick", tmp_path)
    assert c14.status.value == status and c14.threshold == 10
    assert e14.status.value == "info" and np.isclose(e14.statistic, 1.0)  # test would pick K=2: +1 point


def test_c14_without_results_is_inconclusive(tmp_path):
    from ldp_audit.audits.claims.lpgnn import table3_reproduction_rows

    assert [r.status.value for r in table3_reproduction_rows("quick", tmp_path)] == ["inconclusive", "inconclusive"]


def test_c16_passes_drop_and_fails_a_target_with_the_wrong_step_count():
    from ldp_audit.audits.claims.registry import ClaimSettings
    from ldp_audit.audits.claims.lpgnn import c16_drop_targets
    from ldp_audit.models.training.stages import Drop

    settings = ClaimSettings(samples=4_000)
    assert all(r.status.value == "pass" for r in c16_drop_targets(settings))
    two_steps = lambda batch, k_y: Drop().prepare(batch, 2)  # noqa: E731 - mutant: K_y = 2 instead of 1
    mutant = c16_drop_targets(settings, target=two_steps)
    assert [r.status.value for r in mutant[1:]] == ["fail", "fail", "fail"]  # walks return to the centre


def test_c13_holds_for_the_mechanisms_and_fails_when_mbm_is_really_the_one_bit_mechanism():
    from ldp_audit.audits.claims.registry import ClaimSettings
    from ldp_audit.audits.claims.lpgnn import _rq2_mechanisms, c13_mae_ordering
    from ldp_audit.mechanisms import make

    settings = ClaimSettings(samples=4_000)
    assert c13_mae_ordering(settings)[0].status.value == "pass"

    def mutant(eps, d):  # "MBM" that samples every coordinate (m = d): the Eq. 6 rule ignored
        return {**_rq2_mechanisms(eps, d), "MBM": make("multibit", eps=eps, d=d, k=d)}

    row = c13_mae_ordering(settings, mutant)[0]
    assert row.status.value == "fail" and "mechanism order" in row.explanation


def test_reproduce_drop_table_lists_every_cell_with_the_authors_number(tmp_path, capsys):
    argv = ["reproduce", "lpgnn", "--quick", "--tables", "drop", "--results", str(tmp_path), "--max-runs", "0",
            "--json"]
    assert main(argv) == 4  # nothing finished: inconclusive, its own exit code (not 1, "violated")
    rows = json.loads(capsys.readouterr().out)["results"]
    assert len(rows) == 9 and {r["status"] for r in rows} == {"inconclusive"}
    assert next(r for r in rows if r["name"] == "cora Drop eps_y=1")["claim"].endswith("= 69.3 ± 1.2")


def test_report_names_the_devices_the_runs_trained_on_not_this_machine():
    from ldp_audit.commands.reproduce.common import devices_used

    def result(device, name):
        return RunResult(RunConfig("cora"), {}, {}, device, name, {}, 1.0)

    results = [result("cuda", "NVIDIA H100"), result("cuda", "NVIDIA H100"), result("cpu", "2 CPU cores")]
    assert devices_used(results, "cpu") == "cuda (NVIDIA H100): 2 runs; cpu (2 CPU cores): 1 runs"
    assert devices_used([], "cpu").startswith("cpu (") and devices_used([], "cpu").endswith("no runs")


def test_report_names_the_torch_versions_a_resumed_folder_mixes():
    from ldp_audit.commands.reproduce.common import software_used

    def result(versions):
        return RunResult(RunConfig("cora"), {}, {}, "cpu", "2 CPU cores", versions, 1.0)

    mixed = [result({"torch": "2.13.0+cpu"})] * 2 + [result({"torch": "2.14.1"}), result({})]
    assert software_used(mixed) == "torch 2.13.0+cpu: 2 runs; torch 2.14.1: 1 runs; unrecorded: 1 runs"
    assert software_used([]) == "no runs"


def test_several_splits_widen_the_tolerance_by_the_split_to_split_spread(tmp_path, capsys):
    """Runs on 5 splits whose means differ by up to 2 points: a gap of 3 points FAILs on one split (tolerance 1.5)
    and PASSes once the split-to-split spread enters the tolerance; the row reports the per-split means."""
    from ldp_audit.models.training.lpgnn import Measured

    [one] = [c for c in lpgnn.table3_cells(["cora"], (1.0,), (8,), 4) if c.kind == "lpgnn"]
    [five] = [c for c in lpgnn.table3_cells(["cora"], (1.0,), (8,), 4, splits=5) if c.kind == "lpgnn"]
    assert len({c.split_seed for c in five.candidates[8]}) == 5 and one.candidates[8] == five.candidates[8][:4]
    printed = paper.TABLE3["cora"]["LPGNN eps=1"][0]
    shifts = [-2.0, -1.0, 0.0, 1.0, 2.0]
    values = tuple(printed + 3.0 + shifts[i // 4] + 0.01 * (i % 4) for i in range(20))
    single = Measured(one, 8, values[8:12], 8, values[8:12], {8: 90.0}, ("cpu",))
    spread = Measured(five, 8, values, 8, values, {8: 90.0}, ("cpu",))
    [row_one] = reproduction_report("t", [one], {one: single}).results
    [row_five] = reproduction_report("t", [five], {five: spread}).results
    assert row_one.status.value == "fail" and "split_spread" not in row_one.details
    assert row_five.status.value == "pass" and "on 5 splits" in row_five.explanation
    assert row_five.details["split_spread"] == pytest.approx(np.std(shifts, ddof=1), abs=0.01)
    assert len(row_five.details["split_means"]) == 5


@pytest.mark.parametrize("argv", [["reproduce", "lpgnn", "--splits", "0"], ["reproduce", "lpgnn", "--splits", "21"],
                                  ["reproduce", "ppgnn", "--splits", "3", "--max-runs", "0"]])
def test_splits_out_of_range_or_on_another_paper_exit_2(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    assert code == 2 and "--splits" in capsys.readouterr().err
