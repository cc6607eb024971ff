"""Paper versus measured, cell by cell: a reproduced table as an :class:`AuditReport`.

Tolerances follow lpgnn spec §7.4: an LPGNN cell matches when |measured - paper| <= max(1.0, 3 s sqrt(2/R))
points (s: the measured standard deviation over R runs), a baseline cell when the gap is <= 1.5 points. A cell
that could not run (features missing) is INCONCLUSIVE with the reason; nothing is dropped silently. A cell run
on several random splits also admits the split-to-split spread (the paper's one split is unknowable, issue 26).
"""
from __future__ import annotations

import math
from typing import Callable, Iterable

import numpy as np

from ...models.training.lpgnn import Cell, Measured
from ...papers import lpgnn as paper
from ..kernel.result import AuditReport, CheckResult, Status

#: Points of slack for baseline cells (spec §7.4).
BASELINE_TOLERANCE = 1.5
#: Smallest tolerance for LPGNN cells (spec §7.4), and the run count the spec's rule assumes.
MIN_TOLERANCE = 1.0
MIN_RUNS = 10

#: (cell) -> (paper mean, paper spread, citation), or None when the paper has no number for the cell.
PaperLookup = Callable[[Cell], "tuple[float, float, str] | None"]


def tolerance(kind: str, std: float, runs: int) -> float:
    """The allowed |measured - paper| gap in points for a cell of ``kind`` ("lpgnn" or "baseline")."""
    if kind == "baseline":
        return BASELINE_TOLERANCE
    return max(MIN_TOLERANCE, 3.0 * std * math.sqrt(2.0 / max(runs, 1)))


def lpgnn_paper_value(cell: Cell):
    """The printed number of an LPGNN cell: seed Table 3, or the authors' Drop table (spec B6.3)."""
    if cell.table == "table3":
        if cell.column not in paper.TABLE3[cell.dataset]:
            return None
        mean, std = paper.TABLE3[cell.dataset][cell.column]
        return mean, std, paper.TABLE3_CITE
    if cell.table == "drop":
        eps_y = cell.configs()[0].eps_y
        column = cell.column.split(" eps_y=")[0]
        mean, half_width = paper.DROP_TABLE[cell.dataset][eps_y][paper.DROP_TABLE_COLUMNS.index(column)]
        return mean, half_width, paper.DROP_TABLE_CITE
    return None


def _choice_text(choice) -> str:
    return "" if choice is None else f"K={choice}"


def chosen_phrase(measured: Measured) -> str:
    """" (K=2 chosen on validation)" for a cell that chose among several K, " (K=0)" for a cell of one K (e.g.
    ``--k-grid 0``: nothing was chosen), "" for a fixed configuration."""
    if measured.choice is None:
        return ""
    chosen = " chosen on validation" if len(measured.validation) > 1 else ""
    return f" ({_choice_text(measured.choice)}{chosen})"


def split_means(measured: Measured) -> dict[int, float]:
    """{split seed: mean test accuracy (%) of the cell's runs on that split} at the chosen K."""
    by_split: dict[int, list[float]] = {}
    for config, value in zip(measured.cell.candidates[measured.choice], measured.values):
        by_split.setdefault(config.split_seed, []).append(value)
    return {split: float(np.mean(values)) for split, values in by_split.items()}


def split_spread(measured: Measured) -> float | None:
    """The standard deviation of the cell's per-split means (:func:`split_means`); None with one split."""
    per_split = split_means(measured)
    return float(np.std(list(per_split.values()), ddof=1)) if len(per_split) > 1 else None


def cell_tolerance(measured: Measured) -> float:
    """A filled cell's tolerance: :func:`tolerance` of its runs, and with runs on several random splits also the
    split-to-split spread, sqrt(tol^2 + (3 s_split)^2): the paper's number came from one split nobody can recover
    (issue 26)."""
    tol = tolerance(measured.cell.kind, measured.std, len(measured.values))
    spread = split_spread(measured)
    return tol if spread is None else math.sqrt(tol ** 2 + (3.0 * spread) ** 2)


def compare_cell(measured: Measured, printed: tuple[float, float, str]) -> CheckResult:
    """One row: PASS when the measured mean is within :func:`cell_tolerance` of the printed mean, else FAIL."""
    cell = measured.cell
    mean, spread, cite = printed
    runs = len(measured.values)
    tol = cell_tolerance(measured)
    per_split = split_means(measured)
    between = split_spread(measured)
    gap = measured.mean - mean
    status = Status.PASS if abs(gap) <= tol else Status.FAIL
    splits_text = "" if between is None else \
        f" on {len(per_split)} splits (split-to-split spread {between:.1f})"
    parts = [f"measured {measured.mean:.1f} ± {measured.std:.1f} over {runs} runs{splits_text}"
             + chosen_phrase(measured)
             + f" vs paper {mean:.1f} ± {spread:.1f}: gap {gap:+.1f}, tolerance {tol:.1f}"]
    test_mean = sum(measured.test_values) / len(measured.test_values)
    if measured.test_choice != measured.choice:
        parts.append(f"the paper's test-selected {_choice_text(measured.test_choice)} would give {test_mean:.1f} "
                     f"(gap {test_mean - mean:+.1f}; E14)")
    if status is Status.FAIL and abs(test_mean - mean) <= tol < abs(gap):
        parts.append("the gap comes from choosing K on validation instead of test")
    if runs < MIN_RUNS:
        parts.append(f"R = {runs} < {MIN_RUNS} runs (quick)")
    if measured.devices:
        parts.append("device " + "/".join(measured.devices))
    return CheckResult(
        f"{cell.dataset} {cell.column}", f"{cite}: {cell.dataset} {cell.column} = {mean:.1f} ± {spread:.1f}", status,
        measured.mean, "measured", interval=(mean - tol, mean + tol), threshold=tol, n=runs,
        explanation="; ".join(parts),
        details={"paper_mean": mean, "paper_spread": spread, "measured_mean": measured.mean,
                 "measured_std": measured.std, "values": list(measured.values), "gap": gap, "tolerance": tol,
                 "choice": measured.choice, "test_choice": measured.test_choice, "test_selected_mean": test_mean,
                 "validation_by_choice": {str(k): v for k, v in measured.validation.items()},
                 "devices": list(measured.devices), "table": cell.table, "kind": cell.kind,
                 **({} if between is None else {"split_means": {str(k): v for k, v in per_split.items()},
                                                     "split_spread": between})})


def not_run(cell: Cell, printed: tuple[float, float, str] | None, reason: str) -> CheckResult:
    claim = f"{cell.dataset} {cell.column}" if printed is None else \
        f"{printed[2]}: {cell.dataset} {cell.column} = {printed[0]:.1f} ± {printed[1]:.1f}"
    return CheckResult(f"{cell.dataset} {cell.column}", claim, Status.INCONCLUSIVE, explanation=reason,
                       details={"table": cell.table, "kind": cell.kind})


def reproduction_report(title: str, cells: Iterable[Cell], measured: dict[Cell, Measured | None],
                        lookup: PaperLookup = lpgnn_paper_value, subject: dict | None = None,
                        settings: dict | None = None) -> AuditReport:
    """One row per cell, in the given order: the comparison, or INCONCLUSIVE with why it has no number."""
    rows = []
    for cell in cells:
        printed = lookup(cell)
        filled = measured.get(cell)
        if not cell.runnable:
            rows.append(not_run(cell, printed, cell.reason))
        elif filled is None:
            rows.append(not_run(cell, printed, "not finished: rerun to resume"))
        elif printed is None:
            rows.append(CheckResult(
                f"{cell.dataset} {cell.column}", "no printed value (a control)", Status.INFO, filled.mean,
                "measured", n=len(filled.values),
                explanation=f"measured {filled.mean:.1f} ± {filled.std:.1f} over {len(filled.values)} runs"
                            + chosen_phrase(filled),
                details={"measured_mean": filled.mean, "measured_std": filled.std, "values": list(filled.values),
                         "choice": filled.choice, "devices": list(filled.devices), "table": cell.table,
                         "kind": cell.kind}))
        else:
            rows.append(compare_cell(filled, printed))
    return AuditReport.of(title, rows, subject, settings)


def stored_measurements(cells: Iterable[Cell], root) -> dict[Cell, Measured | None]:
    """Fill cells from a results folder only (no training): unfinished cells map to None."""
    from ...models.training import RunStore
    from ...models.training.lpgnn import summarise

    store = RunStore(root)
    measured = {}
    for cell in cells:
        loaded = {c: store.load(c) for c in cell.configs()} if cell.runnable else {}
        measured[cell] = summarise(cell, {c: r for c, r in loaded.items() if r is not None})
    return measured
