"""PPGNN's Table III as a paper-vs-measured report: the printed cells, C17 (PPM above MB, by a bootstrap of the
paired differences) and E16 (PPM's mean feature budget against MB's). Reads stored training results; never trains."""
from __future__ import annotations

import numpy as np
from scipy.stats import bootstrap

from ..models.training.stages import mean_feature_budget
from ..papers import ppgnn as paper
from .result import CheckResult, Status


def ppgnn_paper_value(cell):
    """The printed Table III number of a ppgnn cell (mechanism and eps from the column name)."""
    mechanism, eps = cell.column.split(" eps=")
    try:
        mean, half_width = paper.table3(cell.dataset, float(eps), mechanism)
    except KeyError:
        return None
    return mean, half_width, paper.TABLE3_CITE


#: C17 verdicts need this many paired runs: below it a percentile bootstrap of the mean under-covers.
C17_MIN_RUNS = 5
C17_ALPHA = 0.05
C17_SEED = 20260415


def ppm_over_mb(dataset: str, eps: float, mb, ppm):
    """C17 (ppgnn Table III ordering): PPM > MB when the 95% percentile bootstrap CI (1000 resamples, scipy) of
    the mean paired difference PPM - MB (runs paired by seed, each at its cell's K) lies above 0; FAIL when it
    lies below 0; INCONCLUSIVE when it contains 0 or fewer than C17_MIN_RUNS runs are paired."""
    diff = np.asarray(ppm.values) - np.asarray(mb.values)
    claim = (f"{paper.TABLE3_CITE} / C17: PPM > MB on {dataset} at eps={eps:g} "
             f"(paper {paper.table3(dataset, eps, 'PPM')[0]:.1f} vs {paper.table3(dataset, eps, 'MB')[0]:.1f})")
    if diff.size < 2 or np.ptp(diff) == 0:
        low = high = float(diff.mean()) if diff.size else float("nan")
    else:
        ci = bootstrap((diff,), np.mean, confidence_level=1 - C17_ALPHA, n_resamples=1000, method="percentile",
                       random_state=np.random.default_rng(C17_SEED)).confidence_interval
        low, high = float(ci.low), float(ci.high)
    if diff.size < C17_MIN_RUNS:
        status, why = Status.INCONCLUSIVE, f"{diff.size} paired runs < {C17_MIN_RUNS}: too few to decide"
    elif low > 0:
        status, why = Status.PASS, "the CI of the difference lies above 0"
    elif high < 0:
        status, why = Status.FAIL, "the CI of the difference lies below 0: MB beats PPM"
    else:
        status, why = Status.INCONCLUSIVE, "the CI of the difference contains 0"
    return CheckResult(
        f"{dataset} C17 PPM-MB eps={eps:g}", claim, status, float(diff.mean()), "mean difference (points)",
        interval=(low, high), threshold=0.0, n=int(diff.size), seed=C17_SEED, alpha=C17_ALPHA,
        explanation=f"PPM - MB = {diff.mean():+.1f} points, 95% bootstrap CI [{low:+.1f}, {high:+.1f}] over "
                    f"{diff.size} paired runs; {why}",
        details={"differences": diff.tolist(), "table": "ppgnn_table3", "kind": "c17"})


def feature_budget_row(dataset: str, eps: float, mb, ppm, num_nodes: int):
    """E16: PPM's mean feature budget (1 - gamma) eps^tau over the runs' users against MB's eps (an INFO row)."""
    seeds = ppm.cell.candidates[ppm.choice]
    ppm_budget = float(np.mean([mean_feature_budget(c, num_nodes) for c in seeds]))
    ratio = ppm_budget / eps
    return CheckResult(
        f"{dataset} E16 budget eps={eps:g}", f"ppgnn E16: PPM's mean feature budget is {paper.E16_BUDGET_RATIO:g} "
        "eps against eps for MB", Status.INFO, ratio, "PPM mean feature budget / MB budget", n=len(seeds),
        explanation=f"PPM users spend {ppm_budget:.4g} on features on average (over {len(seeds)} runs' level "
                    f"draws), MB users {eps:g}: {ratio:.2f}x (E16 expects {paper.E16_BUDGET_RATIO:g}x); at that "
                    f"budget PPM - MB = {ppm.mean - mb.mean:+.1f} accuracy points",
        details={"ppm_mean_budget": ppm_budget, "mb_budget": eps, "ratio": ratio,
                 "expected_ratio": paper.E16_BUDGET_RATIO, "table": "ppgnn_table3", "kind": "e16"})


def ppgnn_rows(cells, measured, graphs: dict):
    """C17 and E16 rows for every (dataset, eps) whose MB and PPM cells are both filled."""
    by_key = {(c.dataset, c.column): measured.get(c) for c in cells}
    rows = []
    for cell in cells:
        if not cell.column.startswith("PPM eps="):
            continue
        eps = float(cell.column.split("eps=")[1])
        ppm, mb = by_key.get((cell.dataset, cell.column)), by_key.get((cell.dataset, f"MB eps={eps:g}"))
        if ppm is None or mb is None:
            continue
        rows.append(ppm_over_mb(cell.dataset, eps, mb, ppm))
        rows.append(feature_budget_row(cell.dataset, eps, mb, ppm, graphs[cell.dataset]))
    return rows
