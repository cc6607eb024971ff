"""LPGNN Figs. 5-7 report rows (``reproduce lpgnn --tables fig5 fig6 fig7``): each claim row PASSes on results
that follow the figure and FAILs on a mutant (the same numbers with the trend reversed). Training results are
fabricated (no training); the Fig. 5 MAE runs for real on a small CSBM."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ldp_audit.audits.reproduction.lpgnn_figures import fig6_rows, labelrate_rows, readoff_tolerance, selfloop_rows
from ldp_audit.audits.reproduction.lpgnn_mae import fig5_rows, mae_sweep
from ldp_audit.audits.kernel.result import Status
from ldp_audit.cli import main
from ldp_audit.models import synthetic
from ldp_audit.models.training import lpgnn
from ldp_audit.models.training.lpgnn import Measured

RUNS = 8
NOISE = np.array([0.3, -0.2, 0.1, -0.4, 0.2, 0.0, -0.1, 0.3])


def _fill(cells, value_of):
    """Measured per cell: ``value_of(cell)`` -> the mean; runs vary by a fixed seed-wise noise (paired)."""
    out = {}
    for cell in cells:
        mean = value_of(cell)
        values = tuple(mean + NOISE[:RUNS])
        out[cell] = Measured(cell, None, values, None, values, {None: mean}, ("cpu",))
    return out


def _k(cell) -> int:
    return int(cell.column.split("K=")[1].split()[0])


def _by_name(rows):
    return {r.name: r for r in rows}


# ----- Fig. 6 top -------------------------------------------------------------------------------------------------

def _fig6(reverse: bool):
    cells = lpgnn.fig6_cells(["cora"], (1, 4, 16), RUNS)
    order = {1: 0, 4: 1, 16: 2} if not reverse else {1: 2, 4: 1, 16: 0}
    # LPGNN gains 5 points from K=1 to K=16 (the text's Cora read-off); GCN+Raw loses 2 per step

    def value(cell):
        step = order[_k(cell)]
        return 78.0 + 2.5 * step if cell.column.startswith("LPGNN") else 85.0 - 2.0 * step
    return _by_name(fig6_rows(cells, _fill(cells, value), reduced="test grid"))


def test_fig6_rows_pass_on_the_figure_and_fail_on_reversed_k():
    good, bad = _fig6(False), _fig6(True)
    for name in ("cora fig6 GCN+Raw falls with K", "cora fig6 LPGNN rises with K",
                 "cora fig6 LPGNN gain K=16 over K=1"):
        assert good[name].status is Status.PASS, good[name].explanation
        assert bad[name].status is Status.FAIL, bad[name].explanation
    point = good["cora fig6 LPGNN K=4"]
    assert point.status is Status.INFO and "reduced: test grid" in point.explanation
    assert point.details["reduced"]


def test_readoff_is_inconclusive_when_the_grid_lacks_its_k():
    cells = lpgnn.fig6_cells(["cora"], (1, 2, 4), RUNS)
    rows = _by_name(fig6_rows(cells, _fill(cells, lambda c: 80.0 + _k(c)), ""))
    assert rows["cora fig6 LPGNN gain K=16 over K=1"].status is Status.INCONCLUSIVE


def test_readoff_tolerance_is_the_spec_rule_on_paired_differences():
    assert readoff_tolerance(np.zeros(10)) == 1.0
    diff = np.array([0.0, 4.0] * 5)
    assert readoff_tolerance(diff) == pytest.approx(3 * np.std(diff, ddof=1) * np.sqrt(2 / 10))


# ----- Fig. 6 bottom ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("loops_better, status", [(False, Status.PASS), (True, Status.FAIL)])
def test_selfloop_rows_follow_which_variant_wins(loops_better, status):
    cells = lpgnn.selfloop_cells(["cora"], (1, 4, 16), RUNS)
    winner = "LPGNN self-loops" if loops_better else "LPGNN K="
    value = lambda c: 80.0 + _k(c) / 8 + (3.0 if c.column.startswith(winner) else 0.0)  # noqa: E731
    rows = _by_name(selfloop_rows(cells, _fill(cells, value)))
    for name in ("cora selfloops better without at K=1", "cora selfloops best without"):
        assert rows[name].status is status, rows[name].explanation


# ----- Fig. 7 -----------------------------------------------------------------------------------------------------

def _fig7(reverse: bool):
    cells = lpgnn.labelrate_cells(["cora"], (0.1, 0.5), (0.1, 1.0), (1, 4, 8), RUNS)

    def value(cell):
        eps = float(cell.column.split("eps=")[1].split()[0])
        rho = float(cell.column.split("rho=")[1].rstrip("%")) / 100
        if reverse:
            rho = 0.6 - rho
        gap = (0.5 - rho) * 20  # the eps gap: 8 points at 10 %, 0 at 50 %
        k_gain = {1: 0.0, 4: 10.0, 8: 15.0}[_k(cell)] * (0.5 - rho) / 0.4  # 15 points at 10 %, 0 at 50 %
        return 70.0 + 40 * rho - (gap if eps < 1 else 0.0) + k_gain
    return _by_name(labelrate_rows(cells, _fill(cells, value)))


def test_labelrate_rows_pass_on_the_figure_and_fail_on_reversed_rates():
    good, bad = _fig7(False), _fig7(True)
    for name in ("cora labelrate rises eps=0.1", "cora labelrate rises eps=1", "cora labelrate eps gap shrinks",
                 "cora labelrate gain K=8 over K=1 at rho=10%"):
        assert good[name].status is Status.PASS, good[name].explanation
        assert bad[name].status is Status.FAIL, bad[name].explanation


def test_labelrate_cells_train_on_rho_over_the_training_share():
    cells = lpgnn.labelrate_cells(["cora"], (0.1, 0.5), (0.1,), (1,), 2)
    fractions = {c.column: c.configs()[0].train_fraction for c in cells}
    assert fractions["LPGNN eps=0.1 K=4 rho=10%"] == pytest.approx(0.2)
    assert fractions["LPGNN eps=0.1 K=4 rho=50%"] == 1.0  # the whole split: the Table 3 configuration's key
    assert cells[1].configs()[0].key() == lpgnn._seed_config("cora", 0, eps_x=0.1, k_x=4).key()


# ----- Fig. 5 -----------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sweep():
    graph = synthetic.csbm(n=300, classes=3, avg_degree=4.0, d=40, base_rate=0.1, signal=0.0, seed=3)
    return mae_sweep(graph.adjacency, graph.normalized_features(), (0.5, 2.0), 5, 11)


def test_fig5_rows_pass_on_real_mae_and_fail_on_mutants(sweep):
    good = _by_name(fig5_rows("csbm", sweep, "test"))
    for name in ("csbm fig5 order eps=0.5", "csbm fig5 order eps=2", "csbm fig5 MBM falls with eps",
                 "csbm fig5 AGM falls with eps", "csbm fig5 1BM falls with eps", "csbm fig5 gcn<mean eps=0.5"):
        assert good[name].status is Status.PASS, good[name].explanation
    assert good["csbm fig5 MBM eps=2"].status is Status.INFO
    # mutants: MBM and 1BM swapped; the eps axis reversed; the aggregators swapped
    swapped = {eps: {(({"MBM": "1BM", "1BM": "MBM"}.get(m, m)), a): v for (m, a), v in mae.items()}
               for eps, mae in sweep.items()}
    reversed_eps = dict(zip(sweep, reversed(list(sweep.values()))))
    aggs = {eps: {(m, {"gcn": "mean", "mean": "gcn"}[a]): v for (m, a), v in mae.items()} for eps, mae in sweep.items()}
    assert _by_name(fig5_rows("csbm", swapped))["csbm fig5 order eps=2"].status is Status.FAIL
    assert _by_name(fig5_rows("csbm", reversed_eps))["csbm fig5 MBM falls with eps"].status is Status.FAIL
    assert _by_name(fig5_rows("csbm", aggs))["csbm fig5 gcn<mean eps=2"].status is Status.FAIL


# ----- the command ------------------------------------------------------------------------------------------------

def _run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr()


def test_reproduce_lists_the_figure_rows_before_training(tmp_path, capsys):
    code, out = _run(["reproduce", "lpgnn", "--quick", "--tables", "fig6", "fig7", "--max-runs", "0", "--json",
                      "--results", str(tmp_path / "runs")], capsys)
    report = json.loads(out.out)
    names = [r["name"] for r in report["results"]]
    assert "cora fig6 LPGNN K=16" in names and "cora selfloops best without" in names
    assert "cora labelrate gain K=8 over K=1 at rho=10%" in names
    assert all(r["status"] == "inconclusive" for r in report["results"])
    assert "Fig. 6" in report["subject"]["tables"] and "Fig. 7" in report["subject"]["tables"]
    assert report["settings"]["figure runs"] == lpgnn.FIGURE_RUNS_QUICK


def test_reproduce_refuses_a_figure_of_another_paper(capsys):
    code, out = _run(["reproduce", "lpgnn", "--tables", "fig2", "--max-runs", "0"], capsys)
    assert code == 2 and "--tables" in out.err


def test_each_target_draws_a_png_and_several_targets_get_one_file_each(sweep):
    from ldp_audit.audits.kernel.result import AuditReport
    from ldp_audit.commands.reproduce.lpgnn import PLOTS, plot_paths

    fig6 = list(_fig6(False).values())
    cells = lpgnn.selfloop_cells(["cora"], (1, 4, 16), RUNS)
    fig6 += selfloop_rows(cells, _fill(cells, lambda c: 80.0 + _k(c) / 8))
    rows = {"fig5": fig5_rows("csbm", sweep), "fig6": fig6, "fig7": list(_fig7(False).values())}
    for target, draw in PLOTS.items():
        assert draw(AuditReport.of(target, rows[target])).startswith(b"\x89PNG")
    assert plot_paths("out/f.png", ["fig6"]) == {"fig6": "out/f.png"}
    assert plot_paths("out/f.png", ["table3", "fig7"]) == {"table3": "out/f-table3.png", "fig7": "out/f-fig7.png"}


@pytest.mark.parametrize("dataset, ks, accuracy, status", [
    ("cora", (1, 16, 32), {1: 78.0, 16: 83.0, 32: 84.0}, Status.PASS),  # still rising at K = 32
    ("cora", (1, 16, 32), {1: 78.0, 16: 84.0, 32: 83.0}, Status.FAIL),  # mutant: peaks at 16
    ("facebook", (1, 4, 16), {1: 90.0, 4: 93.0, 16: 91.0}, Status.PASS),  # falls after K = 4
    ("facebook", (1, 4, 16), {1: 90.0, 4: 91.0, 16: 93.0}, Status.FAIL),  # mutant: keeps rising
    ("cora", (1, 4, 16), {1: 78.0, 4: 82.0, 16: 84.0}, Status.INCONCLUSIVE),  # K = 32 not in the grid
])
def test_fig6_peak_row_follows_where_the_text_says_accuracy_peaks(dataset, ks, accuracy, status):
    cells = lpgnn.fig6_cells([dataset], ks, RUNS)
    rows = [r for r in fig6_rows(cells, _fill(cells, lambda c: accuracy[_k(c)])) if " fig6 LPGNN still rises "
            in r.name or " fig6 LPGNN falls " in r.name]
    assert len(rows) == 1 and rows[0].status is status, rows[0].explanation


@pytest.mark.parametrize("wide, narrow, status", [
    (-2.3, -0.3, Status.PASS),  # a negative gap shrinking towards zero shrinks (Pubmed, quick)
    (8.0, 0.5, Status.PASS),
    (-2.0, 5.0, Status.FAIL),  # mutant: the gap flips sign and grows
    (0.5, 8.0, Status.FAIL),  # mutant: the gap grows
])
def test_the_eps_gap_row_compares_sizes_not_signs(wide, narrow, status):
    from ldp_audit.audits.reproduction.lpgnn_figures import shrink_row

    row = shrink_row("gap", "claim", wide + NOISE, narrow + NOISE[::-1], "gap")
    assert row.status is status, row.explanation
