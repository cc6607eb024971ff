"""LPGNN's Figs. 6 and 7 (seed §4.4-4.5) as report rows, read from filled cells; never trains.

The seed prints these figures without numbers, so every plotted point is an INFO row, and the figures' claims
become rows with verdicts:

* trend rows: a difference of test accuracies paired by seed (the runs of one seed share the split, the
  initialisation stream and, at one eps, the feature reports), with a 95 % percentile bootstrap CI (1000
  resamples): PASS when the CI lies above 0, FAIL below 0, INCONCLUSIVE when it contains 0 or fewer than
  :data:`~.ppgnn_reproduction.C17_MIN_RUNS` seeds are paired (the C19 rule of ``ppgnn_reproduction``);
* read-off rows, where the text quotes a gain ("about 15 %"): PASS when |measured gain - quoted gain| <=
  max(1.0, 3 s_d sqrt(2/R)) points, s_d the SD of the R paired differences (spec §7.4's rule on a difference).

A row built on a reduced grid (``--quick``) says so in its explanation and in ``details["reduced"]``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.stats import bootstrap

from ...models.training.lpgnn import FIGURE_EPS, FIG7_TOP_K, point_column
from ...papers import lpgnn as paper
from .ppgnn import C17_SEED, paired_ci, sign_verdict
from .lpgnn import MIN_TOLERANCE
from ..kernel.result import CheckResult, Status

TREND_ALPHA = 0.05


def _suffix(reduced: str) -> str:
    return f"; reduced: {reduced}" if reduced else ""


def point_row(measured, cell, reduced: str = "") -> CheckResult:
    """One plotted point (no printed value): measured mean ± std, or INCONCLUSIVE when it has no runs."""
    name = f"{cell.dataset} {cell.table} {cell.column}"
    claim = f"lpgnn seed {_FIGURE[cell.table]}: {cell.column} (figure only, no printed value)"
    if not cell.runnable or measured is None:
        return CheckResult(name, claim, Status.INCONCLUSIVE,
                           explanation=(cell.reason if not cell.runnable else "not finished: rerun to resume")
                           + _suffix(reduced), details={"table": cell.table, "kind": "point"})
    return CheckResult(name, claim, Status.INFO, measured.mean, "test accuracy (%)", n=len(measured.values),
                       explanation=f"measured {measured.mean:.1f} ± {measured.std:.1f} over {len(measured.values)} "
                                   f"runs{_suffix(reduced)}",
                       details={"table": cell.table, "kind": "point", "measured_mean": measured.mean,
                                "measured_std": measured.std, "values": list(measured.values),
                                "reduced": bool(reduced)})


_FIGURE = {"fig6": "Fig. 6 top", "selfloops": "Fig. 6 bottom", "labelrate": "Fig. 7"}


def trend_row(name: str, claim: str, high, low, what: str, reduced: str = "", table: str = "",
              unit: str = "points", missing: str = "runs unfinished or not runnable") -> CheckResult:
    """PASS when high - low, paired by seed, has a 95 % bootstrap CI above 0; FAIL below 0. ``high`` and ``low``
    are arrays of per-seed values (test accuracies in %, unless ``unit`` says otherwise) in seed order, or None
    (INCONCLUSIVE, saying ``missing``)."""
    if high is None or low is None:
        return CheckResult(name, claim, Status.INCONCLUSIVE, explanation=missing + _suffix(reduced),
                           details={"table": table, "kind": "trend"})
    diff = np.asarray(high, dtype=float) - np.asarray(low, dtype=float)
    lo, hi = paired_ci(diff, TREND_ALPHA)
    status, why = sign_verdict(lo, hi, diff.size)
    return CheckResult(
        name, claim, status, float(diff.mean()), f"paired difference ({unit})", interval=(lo, hi), threshold=0.0,
        n=int(diff.size), seed=C17_SEED, alpha=TREND_ALPHA,
        explanation=f"{what}: {diff.mean():+.4g} {unit}, 95% bootstrap CI [{lo:+.4g}, {hi:+.4g}] over {diff.size} "
                    f"pairs; {why}{_suffix(reduced)}",
        details={"table": table, "kind": "trend", "differences": diff.tolist(), "reduced": bool(reduced)})


def shrink_row(name: str, claim: str, wide, narrow, what: str, reduced: str = "", table: str = "") -> CheckResult:
    """PASS when a gap shrinks in size: |mean(wide)| - |mean(narrow)| (per-seed gaps, paired by seed) has a 95 %
    percentile bootstrap CI (1000 paired resamples of seeds, scipy) above 0; FAIL below 0; else, or with fewer
    than C17_MIN_RUNS seeds, INCONCLUSIVE. Sizes, not signs: a gap of -2 shrinking to -0.3 shrinks."""
    if wide is None or narrow is None:
        return CheckResult(name, claim, Status.INCONCLUSIVE, explanation="runs unfinished or not runnable"
                           + _suffix(reduced), details={"table": table, "kind": "trend"})
    wide, narrow = np.asarray(wide, dtype=float), np.asarray(narrow, dtype=float)
    shrink = abs(wide.mean()) - abs(narrow.mean())
    if wide.size < 2 or (np.ptp(wide) == 0 and np.ptp(narrow) == 0):
        lo = hi = shrink
    else:
        ci = bootstrap((wide, narrow), lambda a, b, axis=-1: np.abs(a.mean(axis)) - np.abs(b.mean(axis)),
                       paired=True, confidence_level=1 - TREND_ALPHA, n_resamples=1000, method="percentile",
                       random_state=np.random.default_rng(C17_SEED)).confidence_interval
        lo, hi = float(ci.low), float(ci.high)
    status, why = sign_verdict(lo, hi, wide.size)
    return CheckResult(
        name, claim, status, float(shrink), "shrink of |gap| (points)", interval=(lo, hi), threshold=0.0,
        n=int(wide.size), seed=C17_SEED, alpha=TREND_ALPHA,
        explanation=f"{what}: gap {wide.mean():+.2f} -> {narrow.mean():+.2f} points, |gap| shrinks by "
                    f"{shrink:+.2f}, 95% bootstrap CI [{lo:+.2f}, {hi:+.2f}] over {wide.size} pairs; {why}"
                    + _suffix(reduced),
        details={"table": table, "kind": "trend", "wide": wide.tolist(), "narrow": narrow.tolist(),
                 "reduced": bool(reduced)})


def readoff_tolerance(diff: np.ndarray) -> float:
    """max(1.0, 3 s_d sqrt(2/R)) points: spec §7.4's rule applied to a paired difference of R runs."""
    sd = float(np.std(diff, ddof=1)) if diff.size > 1 else 0.0
    return max(MIN_TOLERANCE, 3.0 * sd * math.sqrt(2.0 / max(diff.size, 1)))


def readoff_row(name: str, claim: str, high, low, quoted: float, what: str, reduced: str = "",
                table: str = "") -> CheckResult:
    """A gain the text quotes against the measured paired gain acc(high) - acc(low): PASS within
    :func:`readoff_tolerance`, else FAIL; INCONCLUSIVE when a side is missing."""
    if high is None or low is None:
        return CheckResult(name, claim, Status.INCONCLUSIVE, explanation="runs unfinished, not runnable or not "
                           "in the grid" + _suffix(reduced), details={"table": table, "kind": "readoff"})
    diff = np.asarray(high, dtype=float) - np.asarray(low, dtype=float)
    tol, gain = readoff_tolerance(diff), float(diff.mean())
    status = Status.PASS if abs(gain - quoted) <= tol else Status.FAIL
    return CheckResult(
        name, claim, status, gain, "gain (points)", interval=(quoted - tol, quoted + tol), threshold=tol,
        n=int(diff.size), explanation=f"{what}: measured {gain:+.1f} vs quoted {quoted:+.1f}: gap "
                                      f"{gain - quoted:+.1f}, tolerance {tol:.1f} (max(1, 3 s_d sqrt(2/R)))"
                                      + ("" if diff.size >= 10 else f"; R = {diff.size} < 10 runs")
                                      + _suffix(reduced),
        details={"table": table, "kind": "readoff", "quoted": quoted, "gap": gain - quoted, "tolerance": tol,
                 "differences": diff.tolist(), "reduced": bool(reduced)})


class Points:
    """The filled points of one target: ``values(dataset, column)`` -> per-seed accuracies, or None."""

    def __init__(self, cells, measured):
        self.by_key = {(c.dataset, c.column): measured.get(c) for c in cells}
        self.cells = list(cells)

    def values(self, dataset: str, column: str):
        filled = self.by_key.get((dataset, column))
        return None if filled is None else np.asarray(filled.values)

    def validation(self, dataset: str, column: str) -> float:
        filled = self.by_key.get((dataset, column))
        return -math.inf if filled is None else filled.validation[None]

    def datasets(self) -> list:
        return list(dict.fromkeys(c.dataset for c in self.cells))

    def ks(self, dataset: str, prefix: str) -> list:
        return sorted({int(c.column.split("K=")[1].split()[0]) for c in self.cells
                       if c.dataset == dataset and c.column.startswith(prefix + " K=")})


def _best_on_validation(points: Points, dataset: str, series: str, ks) -> int:
    """The K with the best mean validation accuracy (ties: the smaller K), so test accuracies stay unselected."""
    return max(ks, key=lambda k: (points.validation(dataset, point_column(series, k)), -k))


def fig6_rows(cells, measured, reduced: str = "") -> list[CheckResult]:
    """Fig. 6 top: every point, then per dataset (1) KProp hurts non-private GCN: acc(K_min) - acc(K_max) of
    GCN+Raw+KProp > 0; (2) KProp helps LPGNN: acc(K*) - acc(K_min) > 0 with K* > K_min chosen on validation;
    (3) the text's gain of LPGNN at its K over K = 1 (:data:`papers.lpgnn.FIG6_GAIN_OVER_K1`); (4) where LPGNN
    peaks (:data:`papers.lpgnn.FIG6_PEAK`): still rising from K = 16 to 32 on the citation graphs, falling from
    K = 4 to the largest K on the social ones."""
    points = Points(cells, measured)
    rows = [point_row(measured.get(c), c, reduced) for c in cells]
    for name in points.datasets():
        ks = points.ks(name, "LPGNN")
        raw = lambda k: points.values(name, point_column("GCN+Raw+KProp", k))  # noqa: E731
        lp = lambda k: points.values(name, point_column("LPGNN", k))  # noqa: E731
        rows.append(trend_row(f"{name} fig6 GCN+Raw falls with K", f"{paper.FIG6_CITE}: KProp hurts non-private "
                              f"GCN as K grows (over-smoothing), K={ks[0]} -> {ks[-1]}", raw(ks[0]), raw(ks[-1]),
                              f"GCN+Raw+KProp acc(K={ks[0]}) - acc(K={ks[-1]})", reduced, "fig6"))
        best = _best_on_validation(points, name, "LPGNN", ks[1:]) if len(ks) > 1 else ks[0]
        rows.append(trend_row(f"{name} fig6 LPGNN rises with K", f"{paper.FIG6_CITE}: KProp helps LPGNN at "
                              f"eps={FIGURE_EPS:g} (K={ks[0]} -> the K > {ks[0]} best on validation)", lp(best),
                              lp(ks[0]), f"LPGNN acc(K={best}, chosen on validation) - acc(K={ks[0]})", reduced,
                              "fig6"))
        if name in paper.FIG6_GAIN_OVER_K1:
            k, quoted = paper.FIG6_GAIN_OVER_K1[name]
            rows.append(readoff_row(f"{name} fig6 LPGNN gain K={k} over K=1", f"{paper.FIG6_CITE}: LPGNN at "
                                    f"eps={FIGURE_EPS:g} gains about {quoted:g} points at K={k} over K=1 on {name}",
                                    lp(k) if k in ks else None, lp(1) if 1 in ks else None, quoted,
                                    f"acc(K={k}) - acc(K=1)", reduced, "fig6"))
        if name in paper.FIG6_PEAK:
            first, last, rises = paper.FIG6_PEAK[name]
            last = max(ks) if last is None else last
            a, b = (lp(last), lp(first)) if rises else (lp(first), lp(last))
            present = first in ks and last in ks and first != last
            rows.append(trend_row(
                f"{name} fig6 LPGNN {'still rises' if rises else 'falls'} K={first}->{last}",
                f"{paper.FIG6_CITE}: on {name} LPGNN's accuracy " + (f"keeps rising up to K={last}" if rises else
                                                                      f"falls after K={first}"),
                a if present else None, b if present else None,
                f"acc(K={last}) - acc(K={first})" if rises else f"acc(K={first}) - acc(K={last})", reduced, "fig6",
                missing=f"K={first} and a larger K={last} must both be in the grid {ks}" if not present
                else "runs unfinished or not runnable"))
    return rows


def selfloop_rows(cells, measured, reduced: str = "") -> list[CheckResult]:
    """Fig. 6 bottom: every point, then per dataset (1) without self-loops beats with at the smallest K, (2) the
    best accuracy is without self-loops: each variant at its K chosen on validation, paired by seed."""
    points = Points(cells, measured)
    rows = [point_row(measured.get(c), c, reduced) for c in cells]
    for name in points.datasets():
        ks = points.ks(name, "LPGNN")
        plain, loops = "LPGNN", "LPGNN self-loops"
        rows.append(trend_row(f"{name} selfloops better without at K={ks[0]}", "lpgnn seed §4.4 / Fig. 6 bottom: "
                              "KProp without self-loops beats with self-loops, especially at small K (eps=1)",
                              points.values(name, point_column(plain, ks[0])),
                              points.values(name, point_column(loops, ks[0])),
                              f"acc(without) - acc(with) at K={ks[0]}", reduced, "selfloops"))
        best_plain = _best_on_validation(points, name, plain, ks)
        best_loops = _best_on_validation(points, name, loops, ks)
        rows.append(trend_row(f"{name} selfloops best without", "lpgnn seed §4.4 / Fig. 6 bottom: the highest "
                              "accuracy is reached with self-loops removed (eps=1)",
                              points.values(name, point_column(plain, best_plain)),
                              points.values(name, point_column(loops, best_loops)),
                              f"acc(without, K={best_plain}) - acc(with, K={best_loops}), each K chosen on "
                              "validation", reduced, "selfloops"))
    return rows


def _rates(cells, dataset: str) -> list:
    return sorted({float(c.column.split("rho=")[1].rstrip("%")) / 100 for c in cells if c.dataset == dataset})


def labelrate_rows(cells, measured, reduced: str = "") -> list[CheckResult]:
    """Fig. 7: every point, then per dataset (1) per eps at K = 4, accuracy rises from the lowest to the highest
    label rate; (2) the gap between the largest and the smallest eps shrinks in size as the label rate
    grows (:func:`shrink_row`); (3) the text's gain of K = 8 over K = 1 at rho = 10 %, eps = 1."""
    points = Points(cells, measured)
    rows = [point_row(measured.get(c), c, reduced) for c in cells]
    for name in points.datasets():
        rates = _rates(cells, name)
        low, high = rates[0], rates[-1]
        eps_grid = sorted({float(c.column.split("eps=")[1].split()[0]) for c in cells
                           if c.dataset == name and f"K={FIG7_TOP_K} " in c.column})
        at = lambda eps, k, rho: points.values(name, point_column(f"LPGNN eps={eps:g}", k, rho))  # noqa: E731
        for eps in eps_grid:
            rows.append(trend_row(f"{name} labelrate rises eps={eps:g}", f"lpgnn seed §4.5 / Fig. 7 top: accuracy "
                                  f"rises with the label rate (eps={eps:g}, K={FIG7_TOP_K})",
                                  at(eps, FIG7_TOP_K, high), at(eps, FIG7_TOP_K, low),
                                  f"acc(rho={high:.0%}) - acc(rho={low:.0%})", reduced, "labelrate"))
        if len(eps_grid) > 1:
            small, large = eps_grid[0], eps_grid[-1]

            def gap(rho):
                high, low = at(large, FIG7_TOP_K, rho), at(small, FIG7_TOP_K, rho)
                return None if high is None or low is None else high - low
            rows.append(shrink_row(f"{name} labelrate eps gap shrinks", "lpgnn seed §4.5 / Fig. 7 top: the gap "
                                   "between privacy budgets shrinks towards zero as the label rate grows",
                                   gap(low), gap(high), f"acc(eps={large:g}) - acc(eps={small:g}) from rho="
                                   f"{low:.0%} to rho={high:.0%}", reduced, "labelrate"))
        if name in paper.FIG7_GAIN_OVER_K1:
            quoted = paper.FIG7_GAIN_OVER_K1[name]
            rho, k = paper.FIG7_RATE, paper.FIG7_K_GAIN
            rows.append(readoff_row(f"{name} labelrate gain K={k} over K=1 at rho={rho:.0%}", f"{paper.FIG7_CITE}: "
                                    f"at rho={rho:.0%} and eps={FIGURE_EPS:g}, K={k} gains about {quoted:g} points "
                                    f"over K=1 on {name}", at(FIGURE_EPS, k, rho), at(FIGURE_EPS, 1, rho), quoted,
                                    f"acc(K={k}) - acc(K=1) at rho={rho:.0%}", reduced, "labelrate"))
    return rows
