"""Every reproduce target draws its PNG: ldp-ge's Table III, Fig. 2 and k sweep, se-privgemb's Tables II-V and
Fig. 4 (beside Fig. 3 / Table VI), one row of panels per table, one panel per dataset."""
from __future__ import annotations

import numpy as np

from ldp_audit.audits.reproduction.ldp_ge import ldp_ge_report
from ldp_audit.audits.kernel.result import AuditReport, CheckResult, Status
from ldp_audit.commands.reproduce.common import LEGEND_WIDTH, legend_beside_rows, panel_grid
from ldp_audit.commands.reproduce.ldp_ge import ldp_ge_plot
from ldp_audit.commands.reproduce.se_privgemb import se_privgemb_plot
from ldp_audit.models.training import ldp_ge
from ldp_audit.models.training.store import RunResult

PNG = b"\x89PNG\r\n\x1a\n"


def test_panel_grid_has_one_row_per_table_and_drops_the_unused_places():
    fig, grid = panel_grid([["cora: Table III", "citeseer: Table III"], ["cora: k sweep"]])
    assert [[title for _, title in row] for row in grid] == [["cora: Table III", "citeseer: Table III"],
                                                             ["cora: k sweep"]]
    assert len(fig.axes) == 3
    fig, [row] = panel_grid([])
    assert row == [] and len(fig.axes) == 1


def test_each_row_gets_one_legend_beside_its_last_panel_with_every_label_of_the_row():
    fig, grid = panel_grid([["cora", "citeseer"], ["cora k"]])
    (a, _), (b, _) = grid[0]
    a.plot([1, 2], [1, 2], label="MB")
    b.plot([1, 2], [2, 1], label="MB")
    b.plot([1, 2], [3, 3], label="paper (text)")
    grid[1][0][0].plot([1, 2], [0, 1], label="HDS")
    width = fig.get_figwidth()
    legend_beside_rows(fig)
    assert a.get_legend() is None  # nothing over the first panel's data
    assert [t.get_text() for t in b.get_legend().get_texts()] == ["MB", "paper (text)"]  # each label once
    assert [t.get_text() for t in grid[1][0][0].get_legend().get_texts()] == ["HDS"]
    anchor = b.get_legend().get_bbox_to_anchor().transformed(b.transAxes.inverted())
    assert anchor.x0 > 1.0  # right of the panel, off its data
    assert fig.get_figwidth() == width + LEGEND_WIDTH


def test_ldp_ge_plot_draws_every_table_of_the_report():
    cells = ldp_ge.full_cells(("cora", "citeseer"), runs=2)
    results = {c: RunResult(c, {f"test_{c.metric}": 0.8 + 0.01 * i}, {}, "cpu", "test", {}, 0.0,
                            {"propagation": "push", "k": 1})
               for cell in cells for i, c in enumerate(cell.configs)}
    report = ldp_ge_report("t", cells, results)
    assert {"link", "node"} <= {r.details.get("task") for r in report.results}
    assert any(" k=" in r.name for r in report.results)
    assert ldp_ge_plot(report).startswith(PNG)


def _row(table, dataset, method, eps=3.5, param=None, value=None, task="strucequ", paper=True):
    details = {"table": table, "dataset": dataset, "method": method, "eps": eps, "param": param, "value": value,
               "task": task, "measured_mean": 0.5, "measured_std": 0.02}
    if paper:
        details.update(paper_mean=0.25, paper_std=0.05)
    return CheckResult(f"{table} {dataset} {method}", "c", Status.INFO, details=details)


def test_se_privgemb_plot_draws_the_sweep_tables_and_fig4():
    rows = [_row("table2", d, m, param="B", value=b) for d in ("Power", "Arxiv")
            for m in ("SE-PrivGEmb_DW", "SE-PrivGEmb_Deg") for b in (32, 128, 1024)]
    rows += [_row("fig4", "Power", m, eps=e, task="link", paper=e in (0.5, 3.5))
             for m in ("SE-PrivGEmb_DW", "SE-PrivGEmb_Deg") for e in np.arange(0.5, 4.0, 0.5)]
    rows += [_row("fig4", "Power", "SE-GEmb_DW", eps=None, task="link")]
    assert se_privgemb_plot(AuditReport.of("t", rows)).startswith(PNG)


def test_a_report_with_nothing_measured_still_draws_an_empty_png():
    empty = AuditReport.of("t", [CheckResult("x", "c", Status.INCONCLUSIVE)])
    assert ldp_ge_plot(empty).startswith(PNG) and se_privgemb_plot(empty).startswith(PNG)
