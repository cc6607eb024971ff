"""PPGNN's figures as paper-vs-measured reports: one INFO row per plotted point (the figures print no numbers there),
then the figure's claims as verdict rows. Reads filled cells; never trains.

Verdicts (runs paired by seed; 95% percentile bootstrap CIs, 1000 resamples; INCONCLUSIVE below C17_MIN_RUNS runs):

* an ordering "A above B" (Figs. 3, 4, 5 right, 8, 9): :func:`ppgnn_reproduction.paired_difference_row`;
* "A close to B" (Fig. 5 right, Strict: PPGNN ~ LPGNN): PASS when the CI of A - B lies inside +-EQUIVALENCE_MARGIN
  points, FAIL when it lies outside, else INCONCLUSIVE;
* a growing gap (Figs. 8-9: FlexProp's lead grows with eps; Fig. 4 right: PPM*'s lead shrinks): the paired
  difference of the two gaps;
* rise-then-fall over a swept parameter (Fig. 6 over K, Fig. 7b over gamma): the interior point best on validation
  beats both ends;
* a monotone rise (Fig. 7a over h, 7c over m): the last point above the first;
* the printed numbers: Fig. 3(a)'s gains over BASE, |measured - printed| within max(1, 3 s sqrt(2/R)) points
  (lpgnn spec §7.4 with s the SD of the paired gains), and Fig. 5 left's NonPriv attack accuracy above 90%.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...papers import ppgnn as paper
from .ppgnn import (C17_MIN_RUNS, C17_SEED, C19_ALPHA, paired_ci, paired_difference_row,
                    rise_then_fall)
from .lpgnn import MIN_RUNS, chosen_phrase, not_run, tolerance
from ..kernel.result import CheckResult, Status

#: Points within which "similar accuracy" holds (Fig. 5 right, Strict case); spec C18 uses the same 3 points.
EQUIVALENCE_MARGIN = 3.0


def _details(figure: str, kind: str, **extra) -> dict:
    return {"table": f"ppgnn_{figure}", "kind": kind, **extra}


def point_row(cell, filled) -> CheckResult:
    """INFO: one plotted point, measured (the figures print no number for it); INCONCLUSIVE when not run."""
    figure = cell.table.removeprefix("ppgnn_")
    if not cell.runnable or filled is None:
        return not_run(cell, None, cell.reason if not cell.runnable else "not finished: rerun to resume")
    notes = [f"measured {filled.mean:.1f} ± {filled.std:.1f} over {len(filled.values)} runs{chosen_phrase(filled)}",
             "no printed value (figure only)"]
    if cell.reduced:
        notes.append(cell.reduced)
    if filled.devices:
        notes.append("device " + "/".join(filled.devices))
    return CheckResult(
        f"{cell.dataset} {cell.column}", f"{paper.FIGURE_CITES[figure]}: {cell.dataset} {cell.column}", Status.INFO,
        filled.mean, "measured", n=len(filled.values), explanation="; ".join(notes),
        details=_details(figure, "point", series=cell.series, x=cell.x, panel=cell.panel, measured_mean=filled.mean,
                         measured_std=filled.std, values=list(filled.values), choice=filled.choice,
                         devices=list(filled.devices), reduced=cell.reduced))


def order_row(figure: str, dataset: str, claim: str, high_label: str, low_label: str, high, low) -> CheckResult:
    """``high`` above ``low`` on one dataset (paired bootstrap, see the module docstring)."""
    return paired_difference_row(f"{dataset} {figure} {high_label} > {low_label}",
                                 f"{paper.FIGURE_CITES[figure]}: {claim}", high_label, low_label, high, low,
                                 _details(figure, "order"), f": {low_label} beats {high_label}")


def close_row(figure: str, dataset: str, claim: str, a_label: str, b_label: str, a, b) -> CheckResult:
    """``a`` within +-EQUIVALENCE_MARGIN points of ``b``: PASS when the 95% CI of the paired mean difference lies
    inside the margin, FAIL when it lies wholly outside, else (or below C17_MIN_RUNS runs) INCONCLUSIVE."""
    diff = np.asarray(a.values) - np.asarray(b.values)
    low, high = paired_ci(diff, 0.05)
    if diff.size < C17_MIN_RUNS:
        status, why = Status.INCONCLUSIVE, f"{diff.size} paired runs < {C17_MIN_RUNS}: too few to decide"
    elif -EQUIVALENCE_MARGIN <= low and high <= EQUIVALENCE_MARGIN:
        status, why = Status.PASS, f"the CI lies inside +-{EQUIVALENCE_MARGIN:g} points"
    elif low > EQUIVALENCE_MARGIN or high < -EQUIVALENCE_MARGIN:
        status, why = Status.FAIL, f"the CI lies outside +-{EQUIVALENCE_MARGIN:g} points"
    else:
        status, why = Status.INCONCLUSIVE, f"the CI reaches beyond +-{EQUIVALENCE_MARGIN:g} points"
    return CheckResult(
        f"{dataset} {figure} {a_label} ~ {b_label}", f"{paper.FIGURE_CITES[figure]}: {claim}", status,
        float(diff.mean()), "mean difference (points)", interval=(low, high), threshold=EQUIVALENCE_MARGIN,
        n=int(diff.size), seed=C17_SEED, alpha=0.05,
        explanation=f"{a_label} - {b_label} = {diff.mean():+.1f} points, 95% bootstrap CI [{low:+.1f}, {high:+.1f}] "
                    f"over {diff.size} paired runs; {why}",
        details=_details(figure, "close", differences=diff.tolist()))


class _Gap:
    """The paired per-seed gap between two filled cells, as a filled cell (``values``) for the order rows."""

    def __init__(self, high, low):
        self.values = tuple(np.asarray(high.values) - np.asarray(low.values))


def gap_growth_row(figure: str, dataset: str, claim: str, label: str, at_large, at_small) -> CheckResult:
    """The gap ``label`` at the larger eps above the gap at the smaller eps (``at_large``/``at_small``: (high, low)
    pairs of filled cells), paired by seed."""
    return paired_difference_row(f"{dataset} {figure} {label} grows with eps", f"{paper.FIGURE_CITES[figure]}: "
                                 f"{claim}", f"{label} at large eps", f"{label} at small eps", _Gap(*at_large),
                                 _Gap(*at_small), _details(figure, "gap"), ": the gap shrinks")


def rise_and_fall_row(figure: str, dataset: str, claim: str, label: str, points: list) -> CheckResult:
    """Accuracy rises then falls over ``points`` ((x, filled cell) in x order): the interior x with the best mean
    validation accuracy (test accuracies stay unselected) beats both ends, each by a paired bootstrap CI at
    1 - C19_ALPHA/2. PASS when both CIs lie above 0; FAIL when either lies below 0 (an end beats the interior
    best); else, or with fewer than 3 points or C17_MIN_RUNS runs, INCONCLUSIVE."""
    name = f"{dataset} {figure} rise-and-fall over {label}"
    full_claim = f"{paper.FIGURE_CITES[figure]}: {claim}"
    if len(points) < 3:
        return CheckResult(name, full_claim, Status.INCONCLUSIVE, explanation=f"needs >= 3 values of {label}",
                           details=_details(figure, "peak"))
    xs = [x for x, _ in points]
    by_x = dict(points)
    validation = {x: m.validation[m.choice] for x, m in points}
    peak = max(xs[1:-1], key=lambda x: validation[x])
    test = {x: np.asarray(m.values) for x, m in points}
    status, (d_low, lo1, hi1), (d_high, lo2, hi2) = rise_then_fall(test, xs[0], peak, xs[-1])
    means = ", ".join(f"{label}={x:g}: {by_x[x].mean:.1f}" for x in xs)
    return CheckResult(
        name, full_claim, status, float(min(d_low.mean(), d_high.mean())), "min(rise, fall) (points)",
        interval=(min(lo1, lo2), min(hi1, hi2)), threshold=0.0, n=int(d_low.size), seed=C17_SEED, alpha=C19_ALPHA,
        explanation=f"test accuracy {means}; interior {label} best on validation: {peak:g}; rise from "
                    f"{label}={xs[0]:g} {d_low.mean():+.1f} [{lo1:+.1f}, {hi1:+.1f}], fall to {label}={xs[-1]:g} "
                    f"{d_high.mean():+.1f} [{lo2:+.1f}, {hi2:+.1f}] ({100 * (1 - C19_ALPHA / 2):g}% bootstrap CIs)"
                    + ("" if d_low.size >= C17_MIN_RUNS else f"; {d_low.size} runs < {C17_MIN_RUNS}: too few"),
        details=_details(figure, "peak", peak=peak, test_means={str(x): by_x[x].mean for x in xs}))


def gain_readoff_row(dataset: str, method: str, printed: float, method_cell, base_cell) -> CheckResult:
    """Fig. 3(a)'s printed gain of ``method`` over BASE at eps = 0.01 against the measured paired gain: PASS when
    |measured - printed| <= max(1, 3 s sqrt(2/R)) points (lpgnn spec §7.4; s the SD of the R paired gains)."""
    gains = np.asarray(method_cell.values) - np.asarray(base_cell.values)
    std = float(np.std(gains, ddof=1)) if gains.size > 1 else 0.0
    tol = tolerance("lpgnn", std, gains.size)
    gap = float(gains.mean()) - printed
    status = Status.PASS if abs(gap) <= tol else Status.FAIL
    note = f"; R = {gains.size} < {MIN_RUNS} runs (quick)" if gains.size < MIN_RUNS else ""
    return CheckResult(
        f"{dataset} fig3(a) {method} - BASE eps={paper.FIG3A_EPS:g}",
        f"{paper.FIGURE_CITES['fig3']}: in panel (a) (read as Cora, GCN) {method} is {printed:g} points above BASE "
        f"at eps={paper.FIG3A_EPS:g} (Sec. IV-B)", status, float(gains.mean()), "measured gain (points)",
        interval=(printed - tol, printed + tol), threshold=tol, n=int(gains.size),
        explanation=f"measured gain {gains.mean():+.1f} ± {std:.1f} vs printed {printed:+.1f}: gap {gap:+.1f}, "
                    f"tolerance {tol:.1f}{note}",
        details=_details("fig3", "readoff", paper_mean=printed, gap=gap, tolerance=tol, gains=gains.tolist()))


def nonpriv_attack_row(attack_row: CheckResult) -> CheckResult:
    """Fig. 5 left: NonPriv's attribute-inference accuracy on Cora is above 90% (the neighbour vote on the raw
    features, ``audits.attacks.neighbour_vote``): PASS above, FAIL at or below."""
    accuracy = float(attack_row.details["accuracy"])
    threshold = paper.FIG5_NONPRIV_ATTACK_ACCURACY
    return CheckResult(
        "fig5 left NonPriv attack accuracy > 90%", f"{paper.FIGURE_CITES['fig5']}: NonPriv's attack accuracy is "
        "> 90% on Cora (Sec. IV-E)", Status.PASS if accuracy > threshold else Status.FAIL, accuracy, "accuracy",
        threshold=threshold, n=attack_row.n,
        explanation=f"neighbour vote on the raw features: accuracy {accuracy:.4f} over {attack_row.n:,} "
                    f"(target, column) pairs against the printed > {threshold:.0%}",
        details=_details("fig5", "readoff", paper_mean=threshold))


# ----- the claims of each figure --------------------------------------------------------------------------------

def _index(cells, measured) -> dict:
    """{(dataset, panel, series, x): filled cell} of the finished cells."""
    return {(c.dataset, c.panel, c.series, c.x): measured[c] for c in cells if measured.get(c) is not None}


def _eps_values(filled: dict, dataset: str, panel: str, series: str) -> list:
    return sorted(x for (d, p, s, x) in filled if (d, p, s) == (dataset, panel, series) and x is not None)


def _orders(figure, filled, dataset, panel, pairs, claim_of) -> list[CheckResult]:
    """Order rows ``high > low`` at every eps both series have."""
    rows = []
    for high, low in pairs:
        for eps in _eps_values(filled, dataset, panel, high):
            a, b = filled.get((dataset, panel, high, eps)), filled.get((dataset, panel, low, eps))
            if a is not None and b is not None:
                row = order_row(figure, dataset, claim_of(high, low, eps), high, low, a, b)
                rows.append(_renamed(row, f"{row.name} eps={eps:g}"))
    return rows


def _renamed(row: CheckResult, name: str) -> CheckResult:
    return replace(row, name=name)


def fig3_rows(cells, filled) -> list[CheckResult]:
    rows = []
    for dataset in dict.fromkeys(c.dataset for c in cells):
        rows += _orders("fig3", filled, dataset, dataset, (("PPGNN", "LPGNN"), ("LPGNN", "BASE")),
                        lambda h, lo, e: f"{h} above {lo} at eps={e:g} ({dataset})")
        base = filled.get((dataset, dataset, "BASE", paper.FIG3A_EPS))
        for method, printed in paper.FIG3A_GAINS_OVER_BASE.items():
            cell = filled.get((dataset, dataset, method, paper.FIG3A_EPS))
            if dataset == "cora" and base is not None and cell is not None:
                rows.append(gain_readoff_row(dataset, method, printed, cell, base))
    return rows


def fig4_rows(cells, filled) -> list[CheckResult]:
    rows = []
    for dataset in dict.fromkeys(c.dataset for c in cells):
        left, right = f"{dataset} (left)", f"{dataset} (right)"
        eps = _eps_values(filled, dataset, left, "PPGNN GAT")
        if eps:
            rows += [_renamed(r, f"{r.name} eps={eps[0]:g}") for r in (
                order_row("fig4", dataset, f"GAT underperforms {other} at small eps ({eps[0]:g})", f"PPGNN {other}",
                          "PPGNN GAT", filled[(dataset, left, f"PPGNN {other}", eps[0])],
                          filled[(dataset, left, "PPGNN GAT", eps[0])])
                for other in ("GCN", "SAGE") if (dataset, left, f"PPGNN {other}", eps[0]) in filled)]
        rows += _orders("fig4", filled, dataset, right, (("PPM*", "LP"),),
                        lambda h, lo, e: f"PPM* (LP inside MLR) beats vanilla LP at eps={e:g}")
        eps = [e for e in _eps_values(filled, dataset, right, "PPM*") if (dataset, right, "LP", e) in filled]
        if len(eps) >= 2:
            pair = lambda e: (filled[(dataset, right, "LP", e)], filled[(dataset, right, "PPM*", e)])  # noqa: E731
            rows.append(gap_growth_row("fig4", dataset, "PPM*'s lead over LP is larger at tighter budgets",
                                       "LP - PPM*", pair(eps[-1]), pair(eps[0])))
    return rows


def fig5_rows(cells, filled) -> list[CheckResult]:
    rows = []
    for cell in cells:
        if cell.series != "BASE":
            continue
        dataset, panel = cell.dataset, cell.panel
        base, lpgnn = filled.get((dataset, panel, "BASE", "uniform")), filled.get((dataset, panel, "LPGNN", "uniform"))
        suffix = panel.removeprefix(dataset).strip()
        for distribution in ("strict", "relaxed", "bimodal"):
            ppgnn = filled.get((dataset, panel, "PPGNN", distribution))
            if ppgnn is None:
                continue
            if base is not None:
                rows.append(_renamed(order_row("fig5", dataset, f"PPGNN beats BASE under {distribution} levels",
                                               "PPGNN", "BASE", ppgnn, base),
                                     f"{dataset} fig5 {distribution} PPGNN > BASE {suffix}"))
            if lpgnn is None:
                continue
            if distribution == "strict":
                rows.append(_renamed(close_row("fig5", dataset, "under Strict levels PPGNN and LPGNN perform alike",
                                               "PPGNN", "LPGNN", ppgnn, lpgnn),
                                     f"{dataset} fig5 strict PPGNN ~ LPGNN {suffix}"))
            else:
                rows.append(_renamed(order_row("fig5", dataset, f"under {distribution} levels PPGNN is best",
                                               "PPGNN", "LPGNN", ppgnn, lpgnn),
                                     f"{dataset} fig5 {distribution} PPGNN > LPGNN {suffix}"))
    return rows


def _sweeps(filled) -> dict:
    """{(dataset, panel, series): [(x, filled cell)] in x order}."""
    groups: dict = {}
    for (dataset, panel, series, x), cell in filled.items():
        groups.setdefault((dataset, panel, series), []).append((x, cell))
    return {key: sorted(points, key=lambda p: p[0]) for key, points in groups.items()}


def fig6_rows(cells, filled) -> list[CheckResult]:
    return [_renamed(rise_and_fall_row("fig6", dataset, "accuracy rises with K, then falls (over-smoothing)", "K",
                                       points), f"{dataset} fig6 {series} rise-and-fall over K")
            for (dataset, _, series), points in _sweeps(filled).items()]


def fig7_rows(cells, filled) -> list[CheckResult]:
    rows = []
    for (dataset, panel, series), points in _sweeps(filled).items():
        label = panel.split()[-1]
        name = f"{dataset} fig7 {series} over {label}"
        if label == "gamma":
            rows.append(_renamed(rise_and_fall_row("fig7", dataset, "accuracy peaks at an intermediate gamma "
                                                   f"(near {paper.FIG7B_BEST_GAMMA:g})", "gamma", points),
                                 name + " rises and falls"))
        elif len(points) >= 2:
            (x0, first), (x1, last) = points[0], points[-1]
            claim = {"h": "accuracy increases with h (more levels, larger budgets)",
                     "m": "accuracy increases with m (E14: expected to fall at small eps)"}[label]
            rows.append(_renamed(order_row("fig7", dataset, claim, f"{label}={x1:g}", f"{label}={x0:g}", last, first),
                                 f"{name}: {label}={x1:g} > {label}={x0:g}"))
    return rows


def propagation_rows(figure: str):
    def rows_of(cells, filled) -> list[CheckResult]:
        rows = []
        for dataset in dict.fromkeys(c.dataset for c in cells):
            rows += _orders(figure, filled, dataset, dataset, (("FlexProp", "KProp"),),
                            lambda h, lo, e: f"FlexProp beats KProp at eps={e:g}")
            eps = [e for e in _eps_values(filled, dataset, dataset, "FlexProp")
                   if (dataset, dataset, "KProp", e) in filled]
            if len(eps) >= 2:
                pair = lambda e: (filled[(dataset, dataset, "FlexProp", e)],  # noqa: E731
                                  filled[(dataset, dataset, "KProp", e)])
                rows.append(gap_growth_row(figure, dataset, "FlexProp's lead over KProp grows with eps",
                                           "FlexProp - KProp", pair(eps[-1]), pair(eps[0])))
        return rows
    return rows_of


FIGURE_ROWS = {"fig3": fig3_rows, "fig4": fig4_rows, "fig5": fig5_rows, "fig6": fig6_rows, "fig7": fig7_rows,
               "fig8": propagation_rows("fig8"), "fig9": propagation_rows("fig9")}


def figure_report_rows(figure: str, cells, measured) -> list[CheckResult]:
    """Every point of ``figure`` (INFO, or INCONCLUSIVE when not run), then its claims' verdict rows."""
    return [point_row(c, measured.get(c)) for c in cells] + FIGURE_ROWS[figure](cells, _index(cells, measured))
