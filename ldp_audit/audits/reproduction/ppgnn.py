"""PPGNN's Table III as a paper-vs-measured report: the printed cells, C17 (PPM above MB, by a bootstrap of the
paired differences) and E16 (PPM's mean feature budget against MB's). Reads stored training results; never trains."""
from __future__ import annotations

import numpy as np

from ...models.training.stages import mean_feature_budget
from ...papers import ppgnn as paper
from ..kernel.result import CheckResult, Status
from ..kernel.stats import paired_mean_ci


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


def paired_ci(diff: np.ndarray, alpha: float, seed: int = C17_SEED) -> tuple[float, float]:
    """C17's CI of a mean paired difference: :func:`~ldp_audit.audits.kernel.stats.paired_mean_ci` on the stream
    ``default_rng(seed)``, C17's seed by default (the C17 and C19 rows, the figures' trends and LPGNN's MAE rows
    use it)."""
    return paired_mean_ci(diff, alpha, seed)


def sign_verdict(low: float, high: float, runs: int) -> tuple[Status, str]:
    """PASS when a CI lies above 0, FAIL below 0, INCONCLUSIVE when it contains 0 or ``runs`` < C17_MIN_RUNS."""
    if runs < C17_MIN_RUNS:
        return Status.INCONCLUSIVE, f"{runs} paired runs < {C17_MIN_RUNS}: too few to decide"
    if low > 0:
        return Status.PASS, "the CI of the difference lies above 0"
    if high < 0:
        return Status.FAIL, "the CI of the difference lies below 0"
    return Status.INCONCLUSIVE, "the CI of the difference contains 0"


def paired_difference_row(name: str, claim: str, high_label: str, low_label: str, high, low,
                          details: dict, fail_note: str = "") -> CheckResult:
    """``high`` above ``low`` (two filled cells, runs paired by seed): PASS when the 95% percentile bootstrap CI
    (1000 resamples, scipy) of the mean paired difference lies above 0; FAIL below 0 (``fail_note`` appended);
    INCONCLUSIVE when it contains 0 or fewer than C17_MIN_RUNS runs are paired."""
    diff = np.asarray(high.values) - np.asarray(low.values)
    low_ci, high_ci = paired_ci(diff, C17_ALPHA)
    status, why = sign_verdict(low_ci, high_ci, diff.size)
    if status is Status.FAIL:
        why += fail_note
    return CheckResult(
        name, claim, status, float(diff.mean()), "mean difference (points)",
        interval=(low_ci, high_ci), threshold=0.0, n=int(diff.size), seed=C17_SEED, alpha=C17_ALPHA,
        explanation=f"{high_label} - {low_label} = {diff.mean():+.1f} points, 95% bootstrap CI [{low_ci:+.1f}, "
                    f"{high_ci:+.1f}] over {diff.size} paired runs; {why}",
        details={"differences": diff.tolist(), **details})


def ppm_over_mb(dataset: str, eps: float, mb, ppm):
    """C17 (ppgnn Table III ordering): PPM > MB when the 95% percentile bootstrap CI (1000 resamples, scipy) of
    the mean paired difference PPM - MB (runs paired by seed, each at its cell's K) lies above 0; FAIL when it
    lies below 0; INCONCLUSIVE when it contains 0 or fewer than C17_MIN_RUNS runs are paired."""
    try:
        printed = f" (paper {paper.table3(dataset, eps, 'PPM')[0]:.1f} vs {paper.table3(dataset, eps, 'MB')[0]:.1f})"
    except KeyError:  # an eps Table III does not print
        printed = ""
    claim = f"{paper.TABLE3_CITE} / C17: PPM > MB on {dataset} at eps={eps:g}{printed}"
    return paired_difference_row(f"{dataset} C17 PPM-MB eps={eps:g}", claim, "PPM", "MB", ppm, mb,
                                 {"table": "ppgnn_table3", "kind": "c17"}, ": MB beats PPM")


def feature_budget_row(dataset: str, eps: float, mb, ppm, num_nodes: int, num_features: int | None = None):
    """E16: PPM's mean feature budget over the runs' users against MB's eps (an INFO row): (1 - gamma) eps^tau, or
    for released runs what their users actually spend, min(d, M) eps_2 / m' from the runs' level and count draws
    (:func:`mean_feature_budget`; ``num_features`` = d is needed then)."""
    seeds = ppm.cell.candidates[ppm.choice]
    released = any(c.ppm_variant == "released" for c in seeds)
    ppm_budget = float(np.mean([mean_feature_budget(c, num_nodes, num_features) for c in seeds]))
    ratio = ppm_budget / eps
    draws = "level and count draws, released PPM: min(d, M) eps_2 / m' each" if released else "level draws"
    return CheckResult(
        f"{dataset} E16 budget eps={eps:g}", f"ppgnn E16: PPM's mean feature budget is {paper.E16_BUDGET_RATIO:g} "
        "eps against eps for MB", Status.INFO, ratio, "PPM mean feature budget / MB budget", n=len(seeds),
        explanation=f"PPM users spend {ppm_budget:.4g} on features on average (over {len(seeds)} runs' {draws}), "
                    f"MB users {eps:g}: {ratio:.2f}x (E16 expects {paper.E16_BUDGET_RATIO:g}x); at that "
                    f"budget PPM - MB = {ppm.mean - mb.mean:+.1f} accuracy points",
        details={"ppm_mean_budget": ppm_budget, "mb_budget": eps, "ratio": ratio,
                 "expected_ratio": paper.E16_BUDGET_RATIO, "table": "ppgnn_table3", "kind": "e16"})


def ppgnn_rows(cells, measured, graphs: dict, widths: dict | None = None):
    """C17 and E16 rows for every (dataset, eps) whose MB and PPM cells are both filled; ``graphs`` gives each
    dataset's number of nodes, ``widths`` its number of features d (needed for released PPM's E16 row)."""
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
        rows.append(feature_budget_row(cell.dataset, eps, mb, ppm, graphs[cell.dataset],
                                       (widths or {}).get(cell.dataset)))
    return rows


# ----- C19: the trends of the figures, read on the Table III runs ------------------------------------------------

#: Family-wise false-alarm rate of one C19 row (its two CIs share it, Bonferroni).
C19_ALPHA = 0.05


def _cell_eps(cell) -> tuple[str, float]:
    mechanism, eps = cell.column.split(" eps=")
    return mechanism, float(eps)


def rise_then_fall(test: dict, first, peak, last):
    """The verdict of "accuracy rises to ``peak``, then falls" (Fig. 6's shape) on per-seed test accuracies
    ``test[x]`` paired by seed: ``(status, (d_low, lo, hi), (d_high, lo, hi))`` with d_low = peak - first and
    d_high = peak - last and their bootstrap CIs at C19_ALPHA / 2 each; FAIL if an end significantly beats the
    peak, PASS if both differences are significantly positive, else INCONCLUSIVE."""
    d_low, d_high = test[peak] - test[first], test[peak] - test[last]
    (lo1, hi1), (lo2, hi2) = paired_ci(d_low, C19_ALPHA / 2), paired_ci(d_high, C19_ALPHA / 2)
    (s1, _), (s2, _) = sign_verdict(lo1, hi1, d_low.size), sign_verdict(lo2, hi2, d_high.size)
    status = (Status.FAIL if Status.FAIL in (s1, s2) else Status.PASS if s1 is s2 is Status.PASS
              else Status.INCONCLUSIVE)
    return status, (d_low, lo1, hi1), (d_high, lo2, hi2)


def k_trend_row(cell, results) -> CheckResult:
    """C19 (Fig. 6): accuracy rises with K, then falls (over-smoothing), on one Table III cell's K grid.

    The interior K-hat is the interior K with the best mean *validation* accuracy (so test accuracies stay
    unselected); per seed, d_low = acc(K-hat) - acc(K_min) and d_high = acc(K-hat) - acc(K_max) on test, each
    with a percentile bootstrap CI at 1 - C19_ALPHA/2. PASS when both CIs lie above 0 (a rise and a fall); FAIL
    when either lies below 0 (an end of the grid beats the best interior K: no rise, or no fall); else, or
    with fewer than 3 K values, unfinished runs or fewer than C17_MIN_RUNS seeds, INCONCLUSIVE."""
    mechanism, eps = _cell_eps(cell)
    ks = sorted(cell.candidates)
    name = f"{cell.dataset} C19 K-trend {mechanism} eps={eps:g}"
    claim = f"ppgnn Fig. 6 / C19: accuracy rises with K then falls ({mechanism}, K in {ks}, backbone of the run)"
    runs = {k: [results.get(c) for c in cell.candidates[k]] for k in ks}
    if len(ks) < 3 or any(r is None for rs in runs.values() for r in rs):
        why = f"needs >= 3 values of K (grid {ks})" if len(ks) < 3 else "runs unfinished"
        return CheckResult(name, claim, Status.INCONCLUSIVE, explanation=why, details={"kind": "c19"})
    test = {k: 100 * np.array([r.test_accuracy for r in rs]) for k, rs in runs.items()}
    val = {k: float(np.mean([r.metrics["val_acc"] for r in rs])) for k, rs in runs.items()}
    peak = max(ks[1:-1], key=lambda k: (val[k], -k))
    status, (d_low, lo1, hi1), (d_high, lo2, hi2) = rise_then_fall(test, ks[0], peak, ks[-1])
    means = ", ".join(f"K={k}: {test[k].mean():.1f}" for k in ks)
    return CheckResult(
        name, claim, status, float(min(d_low.mean(), d_high.mean())), "min(rise, fall) (points)",
        interval=(min(lo1, lo2), min(hi1, hi2)), threshold=0.0, n=int(d_low.size), seed=C17_SEED, alpha=C19_ALPHA,
        explanation=f"test accuracy {means}; interior K chosen on validation: {peak}; rise from K={ks[0]} "
                    f"{d_low.mean():+.1f} [{lo1:+.1f}, {hi1:+.1f}], fall to K={ks[-1]} {d_high.mean():+.1f} "
                    f"[{lo2:+.1f}, {hi2:+.1f}] ({100 * (1 - C19_ALPHA / 2):g}% bootstrap CIs over {d_low.size} "
                    "seeds); fails if an end of the grid beats the interior K",
        details={"test_means": {str(k): float(test[k].mean()) for k in ks}, "peak": peak, "kind": "c19"})


def eps_trend_row(dataset: str, mechanism: str, low, high) -> CheckResult:
    """C19 (the x-axis of Figs. 3, 4, 6-9 and Table III's rows): accuracy rises with eps. Paired by seed (each
    run at its cell's K), acc(eps_max) - acc(eps_min) with a 95% percentile bootstrap CI; PASS above 0, FAIL
    below 0, else (or with fewer than C17_MIN_RUNS seeds) INCONCLUSIVE."""
    (_, eps_low), (_, eps_high) = _cell_eps(low.cell), _cell_eps(high.cell)
    diff = np.asarray(high.values) - np.asarray(low.values)
    lo, hi = paired_ci(diff, C19_ALPHA)
    status, why = sign_verdict(lo, hi, diff.size)
    return CheckResult(
        f"{dataset} C19 eps-trend {mechanism}", f"ppgnn Figs. 3-9 / C19: accuracy of {mechanism} rises with eps "
        f"(eps={eps_low:g} -> {eps_high:g})", status, float(diff.mean()), "accuracy gain (points)",
        interval=(lo, hi), threshold=0.0, n=int(diff.size), seed=C17_SEED, alpha=C19_ALPHA,
        explanation=f"{low.mean:.1f} at eps={eps_low:g} -> {high.mean:.1f} at eps={eps_high:g}: "
                    f"{diff.mean():+.1f} points, 95% bootstrap CI [{lo:+.1f}, {hi:+.1f}]; {why}",
        details={"differences": diff.tolist(), "kind": "c19"})


def c19_rows(cells, measured, results) -> list[CheckResult]:
    """C19 rows on the Table III runs: the K trend of every PPM cell (Fig. 6 is PPGNN's) and, per dataset and
    mechanism with two finished eps, the eps trend between the smallest and the largest eps."""
    rows = [k_trend_row(cell, results) for cell in cells if cell.column.startswith("PPM eps=") and cell.runnable]
    groups: dict[tuple[str, str], list] = {}
    for cell in cells:
        if measured.get(cell) is not None:
            groups.setdefault((cell.dataset, _cell_eps(cell)[0]), []).append(measured[cell])
    for (dataset, mechanism), filled in groups.items():
        if len(filled) >= 2:
            ordered = sorted(filled, key=lambda m: _cell_eps(m.cell)[1])
            rows.append(eps_trend_row(dataset, mechanism, ordered[0], ordered[-1]))
    return rows
