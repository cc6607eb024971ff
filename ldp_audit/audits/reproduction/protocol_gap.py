"""What a paper's released protocol changes in a reproduced cell (issue 26), for any paper: which cells to
attribute (those whose two protocols differ most), their one-at-a-time grids (one element switched back to the spec
at a time), how many points each element moves a cell (paired by seed) and which K of a cell's grid comes closest to
the printed number. Descriptive (INFO) rows; the cells themselves carry the verdicts. The GNN papers (``reproduce
ppgnn|lpgnn``) and LDP-GE share it; what differs between them comes in as arguments: how a cell's per-seed scores
are read, which spec runs a cell's grid switches (the GNN papers: those at the released cell's K) and how a
switched run is scored."""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from ... import streams
from ..kernel.result import CheckResult, Status
from ..kernel.stats import paired_mean_ci

#: ``reproduce --protocol both`` attributes the gap of this many cells (those whose spec and released means differ
#: most), for every paper.
ATTRIBUTED_CELLS = 2
#: The attribution rows' CIs: 95 %, percentile bootstrap on the attribution's own stream,
#: ``rng_for(ATTRIBUTION_SEED, *streams.REPRODUCTION_ATTRIBUTION.key())``.
ATTRIBUTION_ALPHA = 0.05
ATTRIBUTION_SEED = 20261127


def attribution_ci(diff) -> tuple[float, float]:
    """The CI of an attribution row's mean paired difference (:data:`ATTRIBUTION_ALPHA`, the attribution's
    stream)."""
    return paired_mean_ci(diff, ATTRIBUTION_ALPHA, ATTRIBUTION_SEED, *streams.REPRODUCTION_ATTRIBUTION.key())


class AttributedCell(NamedTuple):
    """A table cell whose gap is attributed: its spec-protocol and released-protocol cells, and per seed the
    attribution grid ``{row name: config}`` (:func:`switch_grid`)."""

    spec: object
    released: object
    grid: tuple


def attributed_cells(pairs, scores_of: Callable, spec_runs_of: Callable, preset, planning: bool = False,
                     count: int = ATTRIBUTED_CELLS) -> list[AttributedCell]:
    """The ``count`` (spec cell, released cell) ``pairs`` whose mean scores differ most (``scores_of(cell)``: the
    cell's per-seed scores, None while unfinished; ties keep the pairs' order), each with its grid: per spec run
    of ``spec_runs_of(spec, released)`` (one config per seed), :func:`switch_grid`. Only finished pairs are chosen,
    except when ``planning`` (``--plan``, before the tables' runs exist): the unfinished pairs then follow the
    finished ones in order, so that the plan counts the switched runs the report will train."""
    def gap(pair):
        spec, released = (scores_of(c) for c in pair)
        return None if spec is None or released is None else abs(np.mean(spec) - np.mean(released))

    gaps = [(pair, gap(pair)) for pair in pairs]
    ranked = sorted((g for g in gaps if g[1] is not None), key=lambda g: g[1], reverse=True)
    ranked += [g for g in gaps if g[1] is None] if planning else []
    return [AttributedCell(s, r, tuple(switch_grid(c, preset) for c in spec_runs_of(s, r)))
            for (s, r), _ in ranked[:count]]


def switch_grid(config, preset) -> dict:
    """``protocols.one_at_a_time`` of one spec run, every row that also sets other elements back to the spec
    (the config class ties them) named after them too: in LDP-GE, switching ``method`` back to "auto" drops the
    released push switches, which act on push only (``ldp_ge.ACTS_ON``), so that row reads
    "method -> spec (push_threshold, push_signs, push_leftover with it)"."""
    from ...models.training.protocols import one_at_a_time

    grid = one_at_a_time(config, preset)
    full, named = grid["released"], {}
    for name, switched in grid.items():
        own = name.removesuffix(" -> spec")
        along = [e.field for e in preset.elements
                 if e.field != own and getattr(switched, e.field) != getattr(full, e.field)]
        named[f"{name} ({', '.join(along)} with it)" if along and name != "released" else name] = switched
    return named


def attribution_configs(cells: list[AttributedCell]) -> list:
    """Every config of the cells' grids, once, in grid order: what the attribution trains."""
    return list(dict.fromkeys(c for cell in cells for seed in cell.grid for c in seed.values()))


def cell_attribution_rows(label: str, spec, released, grid, score_of: Callable, details: dict,
                          extra: dict | None = None) -> list[CheckResult]:
    """The attribution rows of one attributed cell: ``spec`` and ``released`` its per-seed scores, paired by seed
    with the ``grid`` (:class:`AttributedCell`), ``score_of(config)`` a switched run's score (None while
    unfinished), ``extra`` further switches given as per-seed scores (the GNN papers' narrower K grid). One
    INCONCLUSIVE row while a switched run is missing. A row that switches other elements with its own (named
    "... with it)", :func:`switch_grid`) comes after the others and is left out of the whole gap's "explained"
    sum, which would otherwise count those elements twice."""
    switches = [name for name in grid[0] if name != "released"]
    switched = {name: [score_of(seed[name]) for seed in grid] for name in switches}
    if any(v is None for values in switched.values() for v in values):
        return [CheckResult(f"{label} attribution", f"issue 26: what each protocol element moves {label}",
                            Status.INCONCLUSIVE, explanation="attribution runs not finished: rerun to resume",
                            details={**details, "kind": "attribution"})]
    switched.update(extra or {})
    own = {name: values for name, values in switched.items() if not name.endswith(" with it)")}
    rows = attribution_rows(label, spec, released, own, details)
    compound = attribution_rows(label, spec, released, {n: v for n, v in switched.items() if n not in own},
                                details)[:-1]
    return rows[:-1] + compound + rows[-1:]


def attribution_rows(label: str, spec, released, switched: dict, details: dict) -> list[CheckResult]:
    """How many points each protocol element moves one cell (issue 26). ``released`` and every ``switched[name]``
    hold per-seed test accuracies (%) at the released cell's K, paired by seed; ``switched[name]`` is the released
    protocol with that one element set back to the spec's value. Per element: the mean paired difference
    switched - released with its 95% percentile bootstrap CI. Last, the whole gap spec - released (the spec cell
    at its own K, paired by seed) and the part that the one-at-a-time switches leave unexplained (interactions,
    K choice, or elements not yet modelled). Descriptive rows (INFO): the released-protocol cells carry the
    verdicts."""
    released = np.asarray(released, dtype=float)
    rows, explained = [], 0.0
    for name, values in switched.items():
        diff = np.asarray(values, dtype=float) - released
        lo, hi = attribution_ci(diff)
        explained += float(diff.mean())
        rows.append(CheckResult(
            f"{label} attribution: {name}", f"issue 26: switching {name} moves {label}", Status.INFO,
            float(diff.mean()), "points moved", interval=(lo, hi), n=int(diff.size), seed=ATTRIBUTION_SEED,
            alpha=ATTRIBUTION_ALPHA,
            explanation=f"{diff.mean():+.1f} points, 95% bootstrap CI [{lo:+.1f}, {hi:+.1f}] over {diff.size} "
                        f"seeds (released {released.mean():.1f} -> {np.mean(values):.1f})",
            details={**details, "kind": "attribution", "element": name, "differences": diff.tolist()}))
    gap = np.asarray(spec, dtype=float) - released
    lo, hi = attribution_ci(gap)
    rows.append(CheckResult(
        f"{label} attribution: whole gap", f"issue 26: spec - released protocol on {label}", Status.INFO,
        float(gap.mean()), "points (spec - released)", interval=(lo, hi), n=int(gap.size), seed=ATTRIBUTION_SEED,
        alpha=ATTRIBUTION_ALPHA,
        explanation=f"spec {np.mean(spec):.1f} - released {released.mean():.1f} = {gap.mean():+.1f} points "
                    f"[{lo:+.1f}, {hi:+.1f}]; the one-at-a-time switches explain {explained:+.1f}, "
                    f"{gap.mean() - explained:+.1f} remain (interactions, K choice, elements not modelled)",
        details={**details, "kind": "attribution", "element": "whole gap", "explained": explained,
                 "unexplained": float(gap.mean() - explained)}))
    return rows


def k_match_row(label: str, paper_mean: float, test_by_k: dict, tolerance_by_k: dict, details: dict,
                test_rule: str) -> CheckResult:
    """Which K of the grid reproduces the printed number (issue 26): the per-K mean test accuracies of one cell,
    and the K whose mean is closest to the paper's, judged against the tolerance of that K's own runs
    (``tolerance_by_k``: a K whose runs spread more earns a wider one, as the cell would at that K). Explanatory
    only (INFO): choosing K by the paper's own number is fitting on test, so it can suggest how the paper ran
    (e.g. no propagation, K = 0), never decide a cell. The row also names the K with the best mean test accuracy:
    how LPGNN's notebook picks K for its Table 3 (lpgnn E14), shown as a comparison figure only; ``test_rule``
    says how that choice relates to the paper."""
    means = {k: float(np.mean(v)) for k, v in test_by_k.items()}
    closest = min(means, key=lambda k: (abs(means[k] - paper_mean), k))
    on_test = max(means, key=lambda k: (means[k], -k))
    gap, tolerance = means[closest] - paper_mean, tolerance_by_k[closest]
    within = "within" if abs(gap) <= tolerance else "outside"
    return CheckResult(
        f"{label} per K", f"issue 26: the K at which {label} comes closest to the paper's {paper_mean:.1f}",
        Status.INFO, means[closest], f"test accuracy at K={closest}", threshold=tolerance,
        explanation=", ".join(f"K={k}: {m:.1f}" for k, m in means.items())
                    + f"; closest to the paper at K={closest} ({gap:+.1f}, {within} the tolerance of its runs "
                      f"at that K, {tolerance:.1f}); K chosen on test ({test_rule}): K={on_test}, "
                      f"{means[on_test]:.1f} ({means[on_test] - paper_mean:+.1f}); both read the test set, so "
                      "explanatory only",
        details={**details, "kind": "k-match", "test_means": {str(k): m for k, m in means.items()},
                 "closest_k": closest, "paper_mean": paper_mean, "test_selected_k": on_test,
                 "test_selected_mean": means[on_test]})
