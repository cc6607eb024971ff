"""Neighbour majority vote on a real graph (ppgnn A9, Sec. IV-E, C18): the attacker never reads the target's own
report; it majority-votes the target's binary attribute from its neighbours' reports (homophily).

LDP does NOT bound this attack: it uses other users' data, and each neighbour's report is private about that
neighbour only. The rows therefore report accuracy and balanced accuracy against guessing, not against an LDP
ceiling. Protocol (A9): the ``columns`` most frequent binary feature columns (mapped to -1/+1), all nodes with a
neighbour as targets, vote +1 / -1 by the sign of a neighbour's report at the column, abstain on 0 (an unsampled
coordinate), prediction = sign of the vote sum, ties and empty votes a fair coin. Accuracy alone is dominated by
the columns' sparsity, hence balanced accuracy, pooled over the columns with one-sided Clopper-Pearson bounds
(targets share neighbours, so the interval treats them as independent: a caveat, not a proof).

A private method PASSes when the balanced-accuracy interval lies within 0.5 +- ``band`` (spec C18: 3 points),
FAILs when it lies wholly outside, and is INCONCLUSIVE otherwise; the raw features give an INFO row.
"""
from __future__ import annotations

import math

import numpy as np

from ... import streams
from ...mechanisms.personalised import PersonalisedMechanism
from ...models.reports import column_reports, neighbour_votes
from ..kernel.result import CheckResult, Status
from ..kernel.sampling import rng_for
from ..kernel.stats import one_sided_bounds

CLAIM = "ppgnn Sec. IV-E, C18: neighbour-vote attribute inference is near guessing under LDP (not an LDP bound)"
NOT_BOUNDED = "LDP does not bound this attack (it reads the neighbours' reports, not the target's)"


def star_vote_accuracy(neighbours: int, d: int, m: int, a: float) -> float:
    """Exact vote accuracy on a star whose ``neighbours`` leaves share the centre's attribute (spec C18): each
    leaf votes right with (m/d) e^a/(e^a + 1), wrong with (m/d)/(e^a + 1), abstains otherwise;
    accuracy = P(#right > #wrong) + P(tie)/2, a trinomial sum."""
    s = m / d
    right, wrong = s / (1.0 + math.exp(-a)), s / (1.0 + math.exp(a))
    rest = 1.0 - s
    total = 0.0
    for r in range(neighbours + 1):
        for w in range(neighbours - r + 1):
            p = (math.comb(neighbours, r) * math.comb(neighbours - r, w) * right**r * wrong**w
                 * rest ** (neighbours - r - w))
            total += p if r > w else 0.5 * p if r == w else 0.0
    return total


def frequent_columns(graph, count: int) -> np.ndarray:
    """The ``count`` binary feature columns with the most ones (ties by column index)."""
    x = graph.features()
    values = np.unique(x.data)
    if not np.all(np.isin(values, (0.0, 1.0))):
        raise ValueError(f"{graph.name} has non-binary features; the vote attack needs binary columns")
    totals = np.asarray(x.sum(axis=0)).ravel()
    return np.argsort(-totals, kind="stable")[:count]


def _row(label, eps, counts, seed, alpha, band, raw, details):
    right, n, tp, pos, tn, neg = counts
    accuracy = right / n
    lo_p, hi_p = one_sided_bounds(tp, pos, alpha / 4)
    lo_n, hi_n = one_sided_bounds(tn, neg, alpha / 4)
    balanced = 0.5 * (tp / pos + tn / neg)
    low, high = 0.5 * float(lo_p + lo_n), 0.5 * float(hi_p + hi_n)
    if raw:
        status, verdict = Status.INFO, "no privacy: the reference the paper expects above 90% accuracy"
    elif 0.5 - band <= low and high <= 0.5 + band:
        status, verdict = Status.PASS, f"within 0.5 +- {band:g} (near guessing)"
    elif low > 0.5 + band or high < 0.5 - band:
        status, verdict = Status.FAIL, f"outside 0.5 +- {band:g}: the vote recovers the attribute"
    else:
        status, verdict = Status.INCONCLUSIVE, f"interval too wide to decide against 0.5 +- {band:g}"
    name = "attack.neighbour-vote." + label + ("" if eps is None else f".eps={eps:g}")
    return CheckResult(name, CLAIM, status, balanced, "balanced accuracy", (low, high), threshold=0.5 + band,
                       n=n, seed=seed, alpha=alpha,
                       explanation=f"{label}{'' if eps is None else f' eps={eps:g}'}: accuracy {accuracy:.4f}, "
                                   f"balanced accuracy {balanced:.4f} [{low:.4f}, {high:.4f}]; {verdict}. "
                                   f"{NOT_BOUNDED}.",
                       details={"accuracy": accuracy, "majority_class_rate": max(pos, neg) / n, **details})


def neighbour_vote_attack(graph, methods, *, columns: int = 10, seed: int = 0, alpha: float = 1e-3,
                          band: float = 0.03) -> list[CheckResult]:
    """One row per method. ``methods`` is a sequence of (label, mechanism or None for the raw features, eps or
    None); a PPM draws uniform levels. The false-alarm rate alpha is per row."""
    if not 0 < band < 0.5:
        raise ValueError(f"band must lie in (0, 0.5), got {band!r}")
    cols = frequent_columns(graph, columns)
    x = graph.normalized_features()
    truth = x[:, cols] > 0
    targets = np.flatnonzero(graph.degrees > 0)
    rows = []
    for stream, (label, mechanism, eps) in enumerate(methods):
        rng = rng_for(seed, *streams.NEIGHBOUR_VOTE.key(stream))
        tau = rng.integers(1, mechanism.h + 1, size=graph.num_nodes) \
            if isinstance(mechanism, PersonalisedMechanism) else None
        reports = column_reports(mechanism, x, cols, rng, tau)
        votes = neighbour_votes(graph.adjacency, reports)[targets]
        coin = rng.random(votes.shape) < 0.5
        guess = np.where(votes == 0, coin, votes > 0)
        t = truth[targets]
        right = guess == t
        counts = (int(right.sum()), right.size, int((right & t).sum()), int(t.sum()), int((right & ~t).sum()),
                  int((~t).sum()))
        per_column = {int(c): float(v) for c, v in zip(cols, right.mean(axis=0))}
        rows.append(_row(label, eps, counts, seed, alpha, band, mechanism is None,
                         {"columns": [int(c) for c in cols], "accuracy_per_column": per_column,
                          "targets": int(targets.size), "graph": graph.name}))
    return rows
