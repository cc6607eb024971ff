"""LDP-GE paper versus measured: Table III cells, the quoted Fig. 2 points, C21's orderings, C22's quoted
gaps and C23's k-sweep statements, as an AuditReport.

A Table III cell matches when |mean_measured - mean_paper| <= max(3, 3 sd_paper) points (spec C21: a two-sample
test across different seeds, splits and tuning is too strict). A quoted Fig. 2 value or gap allows 3 points,
a quoted bound ("less than 7 points") none (C22). C21(a), "HDS has the best AUC in every cell", is one row per
(dataset, eps) over the mechanisms measured as the paper runs them; cells with rescaled reports (not in the
paper) are compared with the printed number only, and so is the non-private row on raw features (the released
code's eps = inf protocol, against the spec's [-1, 1] normalisation: the two differ in the link baseline). The k-sweep statements (C23) are figure-only: "flat" means a
spread of at most 2 points over k (4 points peak to peak), "better for small k" a higher mean over k <= 5 than
over k >= 10.
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
    if cell.table == "ksweep":
        return None
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
        if cell.table == "table3" and cell.eps is not None and not cell.rescaled and scores is not None:
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


def _means(cells: Iterable[LdpGeCell], results: dict, table: str) -> dict:
    """{(dataset, task, mechanism, eps, k): mean score in points} of the finished, unrescaled cells of ``table``;
    the non-private cell has mechanism None."""
    out = {}
    for cell in cells:
        scores = _scores(cell, results)
        if cell.table == table and not cell.rescaled and not cell.raw_clear and scores is not None:
            mechanism = None if cell.eps is None else cell.mechanism
            out[(cell.dataset, cell.task, mechanism, cell.eps, cell.k)] = float(np.mean(scores))
    return out


def _row(name: str, claim: str, holds: bool, value: float, what: str, explanation: str, **details) -> CheckResult:
    return CheckResult(name, claim, Status.PASS if holds else Status.FAIL, value, what, explanation=explanation,
                       details=details)


def link_text_rows(cells: Iterable[LdpGeCell], results: dict) -> list[CheckResult]:
    """C21(c): at eps = 1, HDS's AUC is above 90 on LastFM, Facebook and Wikipedia and above the non-private
    baseline on Facebook and Wikipedia (rows for the datasets measured)."""
    means, rows = _means(cells, results, "table3"), []
    for dataset in paper.TABLE3_ABOVE_90:
        hds = means.get((dataset, "link", "HDS", 1.0, None))
        if hds is None:
            continue
        rows.append(_row(f"C21c {dataset} HDS>90", f"{paper.TABLE3_TEXT_CITE}: HDS AUC > 90 at eps=1 ({dataset})",
                         hds > 90.0, hds, "HDS AUC at eps=1", f"HDS AUC {hds:.2f} at eps = 1 (claim: above 90)"))
        clear = means.get((dataset, "link", None, None, None))
        if dataset in paper.TABLE3_ABOVE_NON_PRIVATE and clear is not None:
            rows.append(_row(f"C21c {dataset} HDS>non-private", f"{paper.TABLE3_TEXT_CITE}: HDS AUC above the "
                             f"non-private baseline ({dataset}, eps=1)", hds > clear, hds - clear,
                             "HDS - non-private (points)", f"HDS {hds:.2f} at eps = 1 vs non-private {clear:.2f}"))
    return rows


def figure2_rows(cells: Iterable[LdpGeCell], results: dict) -> list[CheckResult]:
    """C22's quoted node-classification gaps at eps = 0.01 (HDS against non-private and against each
    competitor, within 3 points, or below a quoted bound) and HDS's flatness over eps in [0.01, 1]."""
    means, rows = _means(cells, results, "fig2"), []
    small = paper.FIG2_SMALL_EPS
    for (dataset, other), (quoted, kind) in paper.FIG2_GAPS.items():
        hds = means.get((dataset, "node", "HDS", small, None))
        ref = means.get((dataset, "node", other, None if other is None else small, None))
        if hds is None or ref is None:
            continue
        versus = "non-private" if other is None else other
        if kind == "loss below":
            loss = ref - hds
            rows.append(_row(f"C22 {dataset} loss vs {versus}", f"{paper.FIG2_CITE}: HDS at eps={small:g} loses less "
                             f"than {quoted:g} points to {versus} ({dataset})", loss < quoted, loss,
                             "accuracy loss (points)", f"HDS {hds:.2f} vs {versus} {ref:.2f}: loss {loss:+.2f} "
                             f"(claim: below {quoted:g})", quoted=quoted))
            continue
        gap = hds - ref
        rows.append(_row(f"C22 {dataset} HDS-{versus}", f"{paper.FIG2_CITE}: HDS at eps={small:g} is {quoted:+g} "
                         f"points from {versus} ({dataset})", abs(gap - quoted) <= MIN_TOLERANCE, gap,
                         "HDS minus reference (points)", f"HDS {hds:.2f} vs {versus} {ref:.2f}: gap {gap:+.2f}, "
                         f"quoted {quoted:+g}, tolerance {MIN_TOLERANCE:g}", quoted=quoted))
    for dataset in dict.fromkeys(key[0] for key in means):
        flat = [means.get((dataset, "node", "HDS", eps, None)) for eps in paper.FIG2_FLAT_EPS]
        if None in flat:
            continue
        spread = max(flat) - min(flat)
        rows.append(_row(f"C22 {dataset} HDS flat", f"{paper.FIG2_CITE}: HDS accuracy nearly flat for eps in "
                         f"[0.01, 1] ({dataset})", spread <= MIN_TOLERANCE, spread, "max - min over eps (points)",
                         "HDS accuracy " + ", ".join(f"{v:.2f}" for v in flat) + f" at eps = "
                         + ", ".join(f"{e:g}" for e in paper.FIG2_FLAT_EPS)
                         + f": spread {spread:.2f} (allowed {MIN_TOLERANCE:g})"))
    return rows


def k_sweep_rows(cells: Iterable[LdpGeCell], results: dict) -> list[CheckResult]:
    """C23 (Figs. 3-4) at eps = 1 with HDS: "flat" datasets have a spread over k of at most 4 points (+-2);
    "small k" datasets a higher mean over k <= 5 than over k >= 10, "large k" the reverse."""
    means, rows = _means(cells, results, "ksweep"), []
    for (dataset, task), shape in paper.K_SWEEP_SHAPES.items():
        curve = {key[4]: value for key, value in means.items() if key[:2] == (dataset, task)}
        if len(curve) < 2:
            continue
        text = ", ".join(f"k={k}: {v:.2f}" for k, v in sorted(curve.items()))
        claim = f"{paper.K_SWEEP_CITE}: {task} accuracy {shape} in k ({dataset})"
        if shape == "flat":
            spread = max(curve.values()) - min(curve.values())
            rows.append(_row(f"C23 {dataset} {task} flat in k", claim, spread <= 2 * paper.K_SWEEP_FLAT, spread,
                             "max - min over k (points)", f"{text}: spread {spread:.2f} (allowed "
                             f"{2 * paper.K_SWEEP_FLAT:g})", curve=curve))
            continue
        low = [v for k, v in curve.items() if k <= 5]
        high = [v for k, v in curve.items() if k >= 10]
        if not low or not high:
            continue
        lead = float(np.mean(low) - np.mean(high)) * (1 if shape == "better for small k" else -1)
        rows.append(_row(f"C23 {dataset} {task} {shape}", claim, lead > 0, lead, "mean advantage (points)",
                         f"{text}: mean over k <= 5 {np.mean(low):.2f}, over k >= 10 {np.mean(high):.2f}",
                         curve=curve))
    return rows


def baseline_protocol_rows(cells: Iterable[LdpGeCell], results: dict) -> list[CheckResult]:
    """INFO per dataset: the non-private link AUC on [-1, 1]-normalised features (the spec, A1) next to the one
    on raw features (the released code at eps = inf) and the printed Table III value. On Cora the normalised
    baseline is unstable across seeds (81.8 and 48.6 on seeds 0 and 1), the raw one is not (86.4, 86.6); both stay
    below the printed 93.07. Propagating over the whole graph, validation and test edges included (a leak the
    pipeline avoids, spec §9), gives 98.8 on seed 0. The printed value lies between the two; the released code
    reads a preprocessed adjacency whose content is not available, so the gap stays open."""
    found: dict = {}
    for cell in cells:
        scores = _scores(cell, results)
        if cell.table == "table3" and cell.eps is None and scores is not None:
            found.setdefault(cell.dataset, {})["raw" if cell.raw_clear else "normalised"] = scores
    rows = []
    for dataset, pair in found.items():
        if len(pair) < 2 or dataset not in paper.TABLE3:
            continue
        printed = paper.TABLE3[dataset][None][None][0]
        text = "; ".join(f"{k} features {np.mean(v):.2f} (min {min(v):.2f}, max {max(v):.2f})"
                         for k, v in sorted(pair.items()))
        rows.append(CheckResult(
            f"{dataset} non-private protocol", f"{paper.TABLE3_CITE}: non-private AUC {printed:.2f} ({dataset}); "
            "the paper does not say how the clear features enter", Status.INFO, float(np.mean(pair["raw"])),
            "raw-feature AUC", explanation=f"{text}; paper {printed:.2f}",
            details={"normalised": pair["normalised"], "raw": pair["raw"], "paper": printed}))
    return rows


def missing_dataset_rows(names: Iterable[str]) -> list[CheckResult]:
    """One INFO row per paper dataset that cannot run (its features are not in the datasets folder)."""
    return [CheckResult(f"{name} not run", "ldp-ge Table III / Fig. 2 / C23", Status.INFO,
                        explanation=f"{name}: node features missing from the datasets folder (see its README); "
                                    "its cells are not run") for name in names]


def ldp_ge_report(title: str, cells: list[LdpGeCell], results: dict, subject: dict | None = None,
                  settings: dict | None = None, missing: Iterable[str] = ()) -> AuditReport:
    rows = [cell_row(c, results) for c in cells] + ordering_rows(cells, results) + link_text_rows(cells, results)
    rows += baseline_protocol_rows(cells, results) + figure2_rows(cells, results) + k_sweep_rows(cells, results)
    rows += missing_dataset_rows(missing)
    return AuditReport.of(title, rows, subject, settings)
