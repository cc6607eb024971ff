"""Exact audits of a whole-report law given as classes (frequency oracles: ``law_classes`` and ``report_loglik``).

A mechanism whose report is a vector, a (seed, value) pair or a (cohort, bits) pair has no one-coordinate law, but
its law can still be enumerated exactly: for an ordered input pair (x1, x0) it lists blocks of representative
reports and how many reports each stands for (a partition of the output space into classes whose members share
both likelihoods). From these and the declared ``report_loglik``:

* ``law.mass``: sum over classes of multiplicity x P(report | x) is 1 for both inputs of every pair;
* ``privacy.whitebox``: the largest log likelihood ratio log P(y | x1) / P(y | x0) over the classes and the
  ordered pairs of ``privacy_inputs`` must not exceed eps (an output possible under x1 only is an infinite loss);
* ``law_ceiling``: the best lower bound n draws per input could certify at level alpha if the mechanism follows
  this law exactly (the law's best likelihood-ratio event, counts at their expectations), as
  ``black_box.law_ceiling`` gives for one-coordinate laws;
* ``planned_candidates``: that event, for each ordered input pair of the black-box search, as a candidate fixed
  before any sampling ("the declared log likelihood ratio is at least t", t cut on the enumerated classes), so the
  search counts it on every draw and gives it the planned share of alpha (``search.PLANNED_SHARE``).

Nothing here compares the eps formula with itself: the ratio comes from evaluating the law.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from ..kernel.result import CheckResult, Status
from .search import Candidate, ScoreOf
from .white_box import MASS_TOL
from ..kernel.stats import RATIO_RTOL, expected_ratio_lower_bound

#: Round-off allowed in a difference of two log likelihoods, in units of float64's eps times their magnitude.
_ULPS = 64
#: Log ratios within this distance of a cut count as on it (the score and the classes add terms in other orders).
_CUT_SLACK = 1e-6


def declares_report_law(mechanism) -> bool:
    """Whether the mechanism enumerates its whole-report law (``law_classes``) next to ``report_loglik``."""
    return mechanism.law_classes is not None and mechanism.report_loglik is not None


def _pairs(mechanism):
    inputs = [int(v) for v in mechanism.privacy_inputs]
    return [(a, b) for a in inputs for b in inputs if a != b]


def pair_law(mechanism, x1: int, x0: int):
    """(log P(class | x1), log P(class | x0), continuous): every class's log probability (multiplicity included)
    under both inputs; for a continuous law (multiplicities None) the representatives' log densities."""
    ll1, ll0, continuous = [], [], False
    for values, log_counts in mechanism.law_classes(x1, x0):
        weight = 0.0 if log_counts is None else np.asarray(log_counts, dtype=np.float64)
        continuous |= log_counts is None
        ll1.append(np.asarray(mechanism.report_loglik(values, x1), dtype=np.float64) + weight)
        ll0.append(np.asarray(mechanism.report_loglik(values, x0), dtype=np.float64) + weight)
    return np.concatenate(ll1), np.concatenate(ll0), continuous


def largest_log_ratio(ll1: np.ndarray, ll0: np.ndarray) -> tuple[float, float]:
    """max over classes possible under x1 of ll1 - ll0 (inf where x0 gives the class probability 0), and the
    float64 round-off that difference can carry (a few ulps of the log likelihoods subtracted)."""
    possible = ll1 > -np.inf
    if not np.any(possible):
        return -math.inf, 0.0
    a, b = ll1[possible], ll0[possible]
    scale = float(np.max(np.abs(np.concatenate([a, b[np.isfinite(b)]]))))
    return float(np.max(a - b)), _ULPS * np.finfo(np.float64).eps * scale


def whitebox_report_law(mechanism) -> list[CheckResult]:
    """``law.mass`` (discrete laws) and ``privacy.whitebox`` from the enumerated whole-report law."""
    eps, ref = mechanism.eps, mechanism.reference
    worst, worst_pair, slack, mass_error, classes, continuous = -math.inf, None, 0.0, 0.0, 0, False
    for x1, x0 in _pairs(mechanism):
        ll1, ll0, cont = pair_law(mechanism, x1, x0)
        continuous |= cont
        classes = max(classes, ll1.size)
        if not cont:
            mass_error = max(mass_error, abs(math.expm1(logsumexp(ll1))), abs(math.expm1(logsumexp(ll0))))
        ratio, round_off = largest_log_ratio(ll1, ll0)
        slack = max(slack, round_off)
        if ratio > worst:
            worst, worst_pair = ratio, (x1, x0)
    results = []
    if not continuous:
        ok = mass_error <= MASS_TOL
        results.append(CheckResult(
            "law.mass", f"{ref}: the report law is a probability distribution", Status.PASS if ok else Status.FAIL,
            mass_error, "max |mass - 1|", threshold=MASS_TOL,
            explanation=(f"the law sums to 1 over its output classes (up to {classes} classes per input pair)" if ok
                         else f"the law sums to 1 {'+' if mass_error > 0 else ''}{mass_error:.3g} over its classes"),
            details={"pairs": len(_pairs(mechanism)), "classes": classes}))
    tolerance = max(eps * RATIO_RTOL, slack)
    ok = worst <= eps + tolerance
    how = ("at the representatives that attain the supremum of a continuous law" if continuous
           else f"over every output class (up to {classes} per pair)")
    results.append(CheckResult(
        "privacy.whitebox", f"{ref}: {eps:g}-LDP", Status.PASS if ok else Status.FAIL, worst, "max log ratio",
        threshold=eps,
        explanation=(f"largest log likelihood ratio of the report law {how} is {worst:.6g}, inputs "
                     f"{worst_pair[0]} vs {worst_pair[1]}" + ("" if ok else f", above the claimed eps={eps:g}")
                     + f" (float64 tolerance {tolerance:.2g})"),
        details={"tightness": worst / eps, "pair": list(worst_pair), "pairs": len(_pairs(mechanism)),
                 "tolerance": tolerance}))
    return results


def law_ceiling(mechanism, n: int, alpha: float) -> float:
    """The best lower bound n draws per input could certify at level alpha (per event) if the mechanism follows
    its enumerated law exactly: the best likelihood-ratio cut (:func:`best_cut`) over the ordered pairs of
    ``privacy_inputs``. NaN for a continuous law (its classes are not enumerated)."""
    best = -math.inf
    for x1, x0 in _pairs(mechanism):
        cut = best_cut(*pair_law(mechanism, x1, x0), n, alpha)
        if cut is None:
            return math.nan
        best = max(best, cut[3])
    return best


def best_cut(ll1: np.ndarray, ll0: np.ndarray, continuous: bool, n: int, alpha: float):
    """(t, P(E | x1), P(E | x0), expected bound, impossible under x0) of the event
    E = {log P(y | x1) - log P(y | x0) >= t} whose bound at n draws per input and level alpha, counts at their
    expectations, is largest (the Neyman-Pearson events are the cuts of the ratio); None for a continuous law or
    when no class is possible under x1."""
    possible = ll1 > -np.inf
    if continuous or not np.any(possible):
        return None
    with np.errstate(invalid="ignore"):
        ratio = (ll1 - ll0)[possible]
    levels = np.unique(ratio)[::-1]
    levels = levels[np.concatenate([[True], np.diff(levels) < -_CUT_SLACK])]  # merge round-off twins
    inside = ratio[None, :] >= levels[:, None] - _CUT_SLACK
    p1 = inside @ np.exp(ll1[possible])
    p0 = inside @ np.exp(ll0[possible])
    bounds = np.asarray(expected_ratio_lower_bound(p1, p0, n, alpha), dtype=float)
    j = int(np.argmax(bounds))
    impossible = not np.any(inside[j] & (ll0[possible] > -np.inf))  # not a tail that underflowed
    return float(levels[j]), float(p1[j]), float(p0[j]), float(bounds[j]), impossible


def _readable_as_floats(mechanism, x1: int, x0: int) -> bool:
    """Whether the declared log likelihoods of the law's representative reports survive the search's float64 rows
    (the score is evaluated on them): not for local hashing's 63-bit seeds, which a float64 rounds to another seed
    (its reports are read through the declared ``supports`` instead)."""
    for values, _ in mechanism.law_classes(x1, x0):
        values = np.asarray(values)
        as_floats = values.astype(np.float64)
        for x in (x1, x0):
            exact = np.asarray(mechanism.report_loglik(values, x), dtype=np.float64)
            if not np.array_equal(exact, np.asarray(mechanism.report_loglik(as_floats, x), dtype=np.float64)):
                return False
    return True


@dataclass(frozen=True)
class RatioCut:
    """The reports whose declared log likelihood ratio (``score``) is at least ``threshold``."""

    score: ScoreOf
    threshold: float

    def contains(self, rows) -> np.ndarray:
        return self.score(rows) >= min(self.threshold, 1e300) - _CUT_SLACK

    def describe(self) -> str:
        return f"{self.score.describe()} >= {self.threshold:.4g}"


def planned_candidates(mechanism, inputs, pair_ids, scores: dict, n: int, alpha: float) -> list[Candidate]:
    """For each ordered pair (i1, i0) of the search's ``inputs``, the law's best likelihood-ratio cut at n draws
    and per-event level alpha, chosen from the enumerated classes before any sampling (``scores`` maps the pair to
    the declared log likelihood ratio of its reports); pairs whose law is continuous, or whose reports the float64
    rows of the search cannot carry exactly, get none."""
    planned = []
    for i1, i0 in pair_ids:
        x1, x0 = int(inputs[i1]), int(inputs[i0])
        if not _readable_as_floats(mechanism, x1, x0):
            continue
        cut = best_cut(*pair_law(mechanism, x1, x0), n, alpha)
        if cut is not None:
            t, p1, p0, _, impossible = cut
            planned.append(Candidate(i1, i0, "law-planned", RatioCut(scores[(i1, i0)][0], t),
                                     math.log(p1 / p0) if p0 > 0 else math.inf, impossible))
    return planned
