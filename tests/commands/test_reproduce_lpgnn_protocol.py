"""``reproduce lpgnn --protocol spec|released|both`` (issue 26): the released column uses the released split and the
paper's K grid, combines with --splits, and ``both`` attributes the gap to the split and the K grid. Measurements
are fabricated (no training)."""
from __future__ import annotations

import json

import pytest

from ldp_audit.cli import main


def _exit_code(argv) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def _report(argv, capsys) -> dict:
    assert _exit_code(argv) in (0, 1, 4)  # a verdict (4: inconclusive)
    return json.loads(capsys.readouterr().out)


def test_released_runs_use_the_released_split_and_the_papers_k_grid_on_every_split(tmp_path, capsys, monkeypatch):
    from ldp_audit.commands.reproduce import command

    seen = {}
    original = command._cells

    def spy(args):
        out = original(args)
        seen.update(args.protocol_cells)
        return out

    monkeypatch.setattr(command, "_cells", spy)
    argv = ["reproduce", "lpgnn", "--quick", "--datasets", "cora", "--runs", "2", "--splits", "2", "--protocol",
            "both", "--max-runs", "0", "--results", str(tmp_path), "--json"]
    report = _report(argv, capsys)
    assert report["subject"]["protocol"] == "both"
    names = {r["name"] for r in report["results"]}
    assert {"cora LPGNN eps=1 [spec]", "cora LPGNN eps=1 [released]", "cora GCN+Raw [released]"} <= names
    spec, released = seen["spec"], seen["released"]
    lpgnn_cell = next(c for c in released if c.column == "LPGNN eps=1")
    assert tuple(lpgnn_cell.candidates) == (1, 2, 4, 8, 16, 32)
    assert tuple(next(c for c in spec if c.column == "LPGNN eps=1").candidates) == (2, 8, 16, 32)
    configs = [c for cell in released for c in cell.configs()]
    assert {c.split_rule for c in configs} == {"released"} and {c.split_seed for c in configs} == {12345, 12346}
    assert {c.split_rule for cell in spec for c in cell.configs()} == {"spec"}
    assert len(lpgnn_cell.candidates[1]) == 4  # 2 runs on each of 2 splits


def test_the_spec_protocol_keeps_the_default_runs(tmp_path, capsys):
    argv = ["reproduce", "lpgnn", "--quick", "--datasets", "cora", "--max-runs", "0", "--results", str(tmp_path),
            "--json"]
    default = _report(argv, capsys)
    spec = _report([*argv, "--protocol", "spec"], capsys)
    assert spec["settings"]["runs finished"] == default["settings"]["runs finished"]  # same configs: 0 / same count
    assert [r["name"] for r in spec["results"]] == [r["name"] for r in default["results"]]
    assert "protocol" not in default["subject"] and spec["subject"]["protocol"] == "spec"


@pytest.mark.parametrize("argv", [
    ["reproduce", "lpgnn", "--protocol", "both", "--tables", "fig6", "--max-runs", "0"],
    ["reproduce", "lpgnn", "--protocol", "released", "--full", "--tables", "table3", "drop", "--max-runs", "0"],
])
def test_protocol_is_refused_beside_the_other_lpgnn_targets(argv, capsys):
    assert _exit_code(argv) == 2
    assert "--protocol" in capsys.readouterr().err


#: Fabricated accuracy: the released split adds SPLIT points; K = 1 is best on validation and test, so the released
#: grid (which has K = 1) beats the spec grid (best K = 2) by K1 points.
SPLIT, K1 = 2.0, 3.0


def _accuracy(config) -> float:
    base = 0.80 + (SPLIT / 100 if config.split_rule == "released" else 0.0) + 0.001 * config.seed
    return base + (K1 / 100 if config.k_x == 1 else -0.001 * config.k_x)


def test_both_attributes_the_gap_to_the_split_and_the_k_grid(monkeypatch, tmp_path, capsys):
    from ldp_audit.models.training import RunResult, sweep

    def fake_sweep(configs, *args, **kwargs):
        return {c: RunResult(c, {"val_acc": _accuracy(c), "test_acc": _accuracy(c)}, {}, "cpu", "cpu", {}, 0.0,
                             {"num_nodes": 2708}) for c in configs}

    monkeypatch.setattr(sweep, "run_sweep", fake_sweep)
    argv = ["reproduce", "lpgnn", "--quick", "--datasets", "cora", "--runs", "5", "--protocol", "both",
            "--results", str(tmp_path), "--json", "--device", "cpu", "--plot", str(tmp_path / "both.png")]
    report = _report(argv, capsys)
    rows = {r["name"]: r for r in report["results"]}
    spec, released = rows["cora LPGNN eps=1 [spec]"], rows["cora LPGNN eps=1 [released]"]
    assert spec["details"]["choice"] == 2 and released["details"]["choice"] == 1
    assert released["details"]["measured_mean"] - spec["details"]["measured_mean"] == pytest.approx(SPLIT + K1 + 0.2)
    label = "cora LPGNN eps=1 attribution"  # one of the two LPGNN cells: they differ most
    assert rows[f"{label}: split_rule -> spec"]["statistic"] == pytest.approx(-SPLIT)
    assert rows[f"{label}: k_grid -> spec"]["statistic"] == pytest.approx(-K1 - 0.2)
    whole = rows[f"{label}: whole gap"]
    assert whole["statistic"] == pytest.approx(-SPLIT - K1 - 0.2)
    assert whole["details"]["unexplained"] == pytest.approx(0.0, abs=1e-9)  # additive: the two shares explain all
    per_k = rows["cora LPGNN eps=1 [released] per K"]
    assert per_k["status"] == "info" and per_k["details"]["test_selected_k"] == 1
    assert "cora GCN+Raw [released] per K" not in rows  # no K grid: no per-K row
    assert (tmp_path / "both.png").read_bytes().startswith(b"\x89PNG")


def test_per_k_rows_on_several_splits_use_the_cells_split_aware_tolerance(monkeypatch, tmp_path, capsys):
    """The per-K row says "within/outside the cell's tolerance": with --splits that tolerance admits the
    split-to-split spread, so the row must use the cell row's tolerance, not the runs' alone."""
    from ldp_audit.models.training import RunResult, sweep

    def by_split(config) -> float:
        return _accuracy(config) + (0.03 if config.split_seed % 2 else 0.0)

    def fake_sweep(configs, *args, **kwargs):
        return {c: RunResult(c, {"val_acc": by_split(c), "test_acc": by_split(c)}, {}, "cpu", "cpu", {}, 0.0,
                             {"num_nodes": 2708}) for c in configs}

    monkeypatch.setattr(sweep, "run_sweep", fake_sweep)
    argv = ["reproduce", "lpgnn", "--quick", "--datasets", "cora", "--runs", "3", "--splits", "2", "--protocol",
            "released", "--results", str(tmp_path), "--json", "--device", "cpu"]
    rows = {r["name"]: r for r in _report(argv, capsys)["results"]}
    cell, per_k = rows["cora LPGNN eps=1"], rows["cora LPGNN eps=1 [released] per K"]
    assert cell["details"]["split_spread"] > 1.0
    assert per_k["threshold"] == pytest.approx(cell["details"]["tolerance"])
    assert "K chosen on test (the paper's way, lpgnn E14)" in per_k["explanation"]
