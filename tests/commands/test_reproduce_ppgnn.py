"""``ldp-audit train ppgnn`` / ``reproduce ppgnn``: bad input exits 2 naming the parameter; Table III lookups;
C17 passes when PPM beats MB, fails on a mutant where MB beats PPM, and stays INCONCLUSIVE on 3 runs; E16 reports
PPM's larger mean feature budget. Measurements are fabricated (no training)."""
from __future__ import annotations

import pytest

from ldp_audit.audits.result import Status
from ldp_audit.cli import main
from ldp_audit.audits.ppgnn_reproduction import feature_budget_row, ppgnn_paper_value, ppgnn_rows, ppm_over_mb
from ldp_audit.models.training import ppgnn
from ldp_audit.models.training.lpgnn import Measured


def _exit_code(argv) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


@pytest.mark.parametrize("argv, parameter", [
    (["train", "ppgnn", "--eps-x", "0"], "--eps-x"),
    (["train", "ppgnn", "--eps-x", "inf"], "--eps-x"),
    (["train", "ppgnn", "--mechanism", "gm"], "--mechanism"),
    (["train", "ppgnn", "--mode", "fixed"], "--mode"),
    (["train", "ppgnn", "--eps-y", "1"], "--eps-y"),
    (["train", "ppgnn", "--mechanism", "mb", "--mode", "corrected"], "--mode"),
    (["reproduce", "ppgnn", "--datasets", "imaginary", "--max-runs", "0"], "--datasets"),
    (["reproduce", "ppgnn", "--tables", "drop", "--max-runs", "0"], "--tables"),
    (["reproduce", "ppgnn", "--backbone", "mlp"], "--backbone"),
])
def test_bad_input_exits_2_naming_the_parameter(argv, parameter, capsys):
    assert _exit_code([*argv, "--epochs", "2"] if argv[0] == "train" else argv) == 2
    assert parameter in capsys.readouterr().err


def _cells(runs):
    return ppgnn.table3_cells(["cora"], (0.01,), k_grid=(2,), runs=runs)


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
