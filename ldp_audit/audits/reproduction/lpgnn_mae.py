"""LPGNN Fig. 5 (RQ2, seed §4.3) swept over eps: the MAE of one aggregation step of the server's estimates.

``ldp-audit bounds lpgnn`` computes this study at one eps (``aggregation.compare_mae``); here the same
computation (:func:`~.aggregation.aggregation_mae`: one step with self-loops, lpgnn U7, both aggregators on the
same draws) runs for every eps of the figure, on all of a dataset's feature columns mapped to [-1, 1] with the
dataset's public bounds (twice the MAE on the authors' [0, 1] scale: every mechanism here is affine-equivariant).
The seed prints no numbers for Fig. 5, so each point is an INFO row; the figure's claims become rows with verdicts
on the per-draw MAEs (independent perturbations, paired by draw index), each by a 95 % percentile bootstrap CI as in
:mod:`.lpgnn_figures`:

* top row: MAE(MBM) < MAE(AGM) < MAE(1BM) at each eps, with both aggregators;
* the x-axis: each mechanism's MAE falls from the smallest to the largest eps;
* bottom row: the GCN aggregator's MAE is below the mean aggregator's (MBM; they estimate different targets, E8).
"""
from __future__ import annotations

from ... import streams
from ...models.perturbation import unit_box_mechanism
from ..graph.aggregation import MAE_AGGREGATORS, aggregation_mae
from .lpgnn_figures import TREND_ALPHA, trend_row
from .ppgnn import C17_MIN_RUNS, C17_SEED, paired_ci
from ..kernel.result import CheckResult, Status

#: The figure's eps grid; --quick keeps it (the MAE is cheap) and reduces draws and datasets.
FIG5_EPS = (0.1, 0.5, 1.0, 2.0)
DRAWS_FULL, DRAWS_QUICK = 10, 5
#: The printed order of the top row, lowest MAE first.
ORDER = ("MBM", "AGM", "1BM")
CITE = "lpgnn seed §4.3 (RQ2) / Fig. 5"


def fig5_mechanisms(eps: float, d: int) -> dict:
    """Fig. 5's mechanisms on [-1, 1]^d: MBM (m by Eq. 6), AGM at delta = 1e-4 (its registry default), 1BM (m = d)."""
    return {"MBM": unit_box_mechanism("multibit", eps, d, "lpgnn"),
            "AGM": unit_box_mechanism("analytic_gaussian", eps, d),
            "1BM": unit_box_mechanism("multibit", eps, d, d)}


def mae_sweep(adjacency, x, eps_grid, draws: int, seed: int) -> dict:
    """{eps: {(mechanism, aggregator): MAE per draw}}; eps number i draws from ``rng_for(seed, i, ...)``."""
    return {eps: aggregation_mae(adjacency, x, fig5_mechanisms(eps, x.shape[1]), seed, draws,
                                 streams.REPRODUCTION_MAE.key(i)) for i, eps in enumerate(eps_grid)}


def ordering_row(dataset: str, eps: float, mae: dict, reduced: str = "") -> CheckResult:
    """Fig. 5 top at one eps: PASS when every CI of MAE(AGM) - MAE(MBM) and MAE(1BM) - MAE(AGM), with both
    aggregators, lies above 0 (95 % family-wise, Bonferroni over the four); FAIL when one lies below 0."""
    alpha = TREND_ALPHA / (2 * len(MAE_AGGREGATORS))
    cis, fails, passes, parts = [], 0, 0, []
    draws = min(v.size for v in mae.values())
    for agg in MAE_AGGREGATORS:
        for lower, upper in zip(ORDER, ORDER[1:]):
            diff = mae[upper, agg] - mae[lower, agg]
            low, high = paired_ci(diff, alpha)
            cis.append((low, high))
            fails += high < 0
            passes += low > 0
            parts.append(f"{agg}: {upper} - {lower} {diff.mean():+.4g} [{low:+.4g}, {high:+.4g}]")
    if draws < C17_MIN_RUNS:
        status, why = Status.INCONCLUSIVE, f"{draws} draws < {C17_MIN_RUNS}"
    elif fails:
        status, why = Status.FAIL, "a CI lies below 0: not the printed order"
    elif passes == len(cis):
        status, why = Status.PASS, "every CI lies above 0"
    else:
        status, why = Status.INCONCLUSIVE, "a CI contains 0"
    values = ", ".join(f"{label} {mae[label, 'gcn'].mean():.4g}" for label in ORDER)
    return CheckResult(
        f"{dataset} fig5 order eps={eps:g}", f"{CITE} top: MAE of MBM < AGM < 1BM (eps={eps:g})", status,
        float(min(low for low, _ in cis)), "smallest CI lower end (MAE)", threshold=0.0, n=draws, seed=C17_SEED,
        alpha=TREND_ALPHA, explanation=f"MAE (gcn) {values}; {'; '.join(parts)} ({100 * (1 - alpha):.4g}% "
                                       f"bootstrap CIs over {draws} draws); {why}"
                                       + (f"; reduced: {reduced}" if reduced else ""),
        details={"table": "fig5", "kind": "trend", "reduced": bool(reduced)})


def fig5_rows(dataset: str, sweep: dict, reduced: str = "") -> list[CheckResult]:
    """Every (eps, mechanism) point as INFO (MAE with both aggregators), then the three kinds of claim rows."""
    rows = []
    for eps, mae in sweep.items():
        for label in ORDER:
            gcn, mean = mae[label, "gcn"], mae[label, "mean"]
            rows.append(CheckResult(
                f"{dataset} fig5 {label} eps={eps:g}", f"{CITE}: MAE of {label} (figure only, no printed value)",
                Status.INFO, float(gcn.mean()), "MAE (gcn aggregator)", n=gcn.size,
                explanation=f"MAE gcn {gcn.mean():.4g} ± {gcn.std(ddof=1) if gcn.size > 1 else 0:.2g}, mean "
                            f"{mean.mean():.4g} over {gcn.size} draws (features in [-1, 1])"
                            + (f"; reduced: {reduced}" if reduced else ""),
                details={"table": "fig5", "kind": "point", "eps": eps, "mechanism": label,
                         "mae_gcn": gcn.tolist(), "mae_mean": mean.tolist(), "reduced": bool(reduced)}))
    for eps, mae in sweep.items():
        rows.append(ordering_row(dataset, eps, mae, reduced))
    grid = sorted(sweep)
    if len(grid) > 1:
        for label in ORDER:
            rows.append(trend_row(f"{dataset} fig5 {label} falls with eps", f"{CITE} top: the MAE of {label} falls "
                                  f"as eps grows ({grid[0]:g} -> {grid[-1]:g}, gcn aggregator)",
                                  sweep[grid[0]][label, "gcn"], sweep[grid[-1]][label, "gcn"],
                                  f"MAE(eps={grid[0]:g}) - MAE(eps={grid[-1]:g})", reduced, "fig5", unit="MAE"))
    for eps, mae in sweep.items():
        rows.append(trend_row(f"{dataset} fig5 gcn<mean eps={eps:g}", f"{CITE} bottom: the GCN aggregator's MAE of "
                              f"MBM is below the mean aggregator's (eps={eps:g}; different targets, E8)",
                              mae["MBM", "mean"], mae["MBM", "gcn"], "MAE(mean) - MAE(gcn)", reduced, "fig5",
                              unit="MAE"))
    return rows
