"""LDP-GE paper versus measured: Table III cells, the quoted Fig. 2 points and C21's ordering, as an AuditReport.

A Table III cell matches when |mean_measured - mean_paper| <= max(3, 3 sd_paper) points (spec C21: a two-sample
test across different seeds, splits and tuning is too strict). A quoted Fig. 2 value allows 3 points (C22).
C21(a), "HDS has the best AUC in every cell", is one row per (dataset, eps) over the mechanisms measured as the
paper runs them; cells with rescaled reports (not in the paper) are compared with the printed number only.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ..models.training.ldp_ge import LdpGeCell
from ..papers import ldp_ge as paper
from .result import AuditReport, CheckResult, Status

MIN_TOLERANCE = 3.0


def table3_tolerance(paper_std: float) -> float:
    """Allowed gap in AUC points for a Table III cell (spec C21)."""
    return max(MIN_TOLERANCE, 3.0 * paper_std)


def printed_value(cell: LdpGeCell):
    """(mean, spread, tolerance, citation) the paper prints for ``cell``, or None."""
    if cell.task == "link":
        rows = paper.TABLE3.get(cell.dataset)
        if rows is None:
            return None
        mean, std = rows[None][None] if cell.eps is None else rows[cell.mechanism].get(cell.eps, (None, None))
        return None if mean is None else (mean, std, table3_tolerance(std), paper.TABLE3_CITE)
    quoted = paper.FIG2_HDS_QUOTED.get(cell.dataset)
    if quoted is None or cell.mechanism != "HDS" or cell.eps is None or cell.eps > 1.0:
        return None
    return quoted, 0.0, MIN_TOLERANCE, paper.FIG2_CITE


def _scores(cell: LdpGeCell, results: dict) -> list[float] | None:
    if not all(c in results for c in cell.configs):
        return None
    return [100.0 * results[c].test_score for c in cell.configs]


def cell_row(cell: LdpGeCell, results: dict) -> CheckResult:
    """PASS/FAIL against the printed value, INFO when the paper prints none, INCONCLUSIVE when unfinished."""
    metric = "AUC" if cell.task == "link" else "accuracy"
    printed = printed_value(cell)
    scores = _scores(cell, results)
    claim = "no printed value" if printed is None else \
        f"{printed[3]}: {cell.name} {metric} = {printed[0]:.2f} ± {printed[1]:.2f}"
    if scores is None:
        return CheckResult(cell.name, claim, Status.INCONCLUSIVE, explanation="not finished: rerun to resume")
    mean, std = float(np.mean(scores)), float(np.std(scores, ddof=1)) if len(scores) > 1 else 0.0
    methods = sorted({results[c].extra.get("propagation", "?") for c in cell.configs})
    details = {"measured_mean": mean, "measured_std": std, "values": scores, "task": cell.task,
               "mechanism": cell.mechanism, "eps": cell.eps, "propagation": methods,
               "k": results[cell.configs[0]].extra.get("k")}
    text = f"measured {metric} {mean:.2f} ± {std:.2f} over {len(scores)} runs (propagation {'/'.join(methods)})"
    if printed is None:
        return CheckResult(cell.name, claim, Status.INFO, mean, f"measured {metric}", n=len(scores),
                           explanation=text, details=details)
    value, spread, tol, _ = printed
    gap = mean - value
    details.update(paper_mean=value, paper_spread=spread, gap=gap, tolerance=tol)
    return CheckResult(cell.name, claim, Status.PASS if abs(gap) <= tol else Status.FAIL, mean, f"measured {metric}",
                       interval=(value - tol, value + tol), threshold=tol, n=len(scores),
                       explanation=f"{text} vs paper {value:.2f}: gap {gap:+.2f}, tolerance {tol:.2f}",
                       details=details)


def ordering_rows(cells: Iterable[LdpGeCell], results: dict) -> list[CheckResult]:
    """C21(a): in each (dataset, eps) link-prediction group with HDS and a competitor measured, HDS's mean AUC
    is the highest."""
    groups: dict[tuple, dict[str, float]] = {}
    for cell in cells:
        scores = _scores(cell, results)
        if cell.task == "link" and cell.eps is not None and not cell.rescaled and scores is not None:
            groups.setdefault((cell.dataset, cell.eps), {})[cell.mechanism] = float(np.mean(scores))
    rows = []
    for (dataset, eps), means in groups.items():
        if "HDS" not in means or len(means) < 2:
            continue
        best_other = max((m for m in means if m != "HDS"), key=means.get)
        margin = means["HDS"] - means[best_other]
        ours = ", ".join(f"{m} {v:.2f}" for m, v in means.items())
        rows.append(CheckResult(
            f"C21a {dataset} eps={eps:g}", f"ldp-ge C21(a): HDS has the best link-prediction AUC ({dataset}, "
            f"eps={eps:g})", Status.PASS if margin > 0 else Status.FAIL, margin, "HDS margin (points)",
            explanation=f"means {ours}: HDS margin over {best_other} {margin:+.2f} points",
            details={"means": means, "best_competitor": best_other}))
    return rows


def ldp_ge_report(title: str, cells: list[LdpGeCell], results: dict, subject: dict | None = None,
                  settings: dict | None = None) -> AuditReport:
    return AuditReport.of(title, [cell_row(c, results) for c in cells] + ordering_rows(cells, results),
                          subject, settings)
