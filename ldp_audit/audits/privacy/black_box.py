"""Black-box privacy audit: a lower bound on the eps a mechanism really spends, from its own samples.

Pairs of inputs and events whose probabilities are compared with Clopper-Pearson bounds:

* always, the data-driven search of :mod:`ldp_audit.audits.privacy.search` on the mechanism's own samples, for reports
  of any shape (events chosen on a pilot sample, bounded on fresh draws);
* with a law, the level sets of the law's likelihood ratio (e.g. the Square-Wave window [1 - b, 1 + b] of
  ldp-ge C1, the all-windows event of C2, the all-plus event of lpgnn C1), chosen before sampling to maximise
  the expected lower bound, join the search as candidates ("law" family). A declared law adds events; it never
  replaces the search, so a sampler that disagrees with its own law is still measured as it is.

The check fails when the lower bound exceeds the claimed eps (a privacy violation). A second check fails when
the upper bound of the tight event's ratio falls below e^eps: the mechanism spends less budget than it claims.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from ...mechanisms.base import coordinate_of
from ...mechanisms.laws import Law, window_widths
from ..kernel.result import CheckResult, Status
from ..kernel.sampling import Plan, run_plan
from ..kernel.stats import RATIO_RTOL, expected_ratio_lower_bound, ratio_upper_bound
from .reports import ReportFormat
from .report_law import declares_report_law, planned_candidates
from .search import PLANNED_SHARE, Candidate, KeyEvent, ScoreOf, ceiling, pilot_pairs, search_plan


@dataclass(frozen=True)
class Event:
    """A union of half-open output intervals (lo, hi] and single output values (atoms)."""

    intervals: tuple[tuple[float, float], ...]
    atoms: tuple[float, ...]

    @classmethod
    def of(cls, intervals, atoms) -> "Event":
        """An event with touching intervals merged, so membership tests stay cheap."""
        merged: list[list[float]] = []
        for lo, hi in sorted(intervals):
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        return cls(tuple((lo, hi) for lo, hi in merged), tuple(sorted(set(atoms))))

    def contains(self, y: np.ndarray) -> np.ndarray:
        inside = np.zeros(y.shape, dtype=bool)
        for lo, hi in self.intervals:
            inside |= (y > lo) & (y <= hi)
        if self.atoms:
            inside |= np.isin(y, self.atoms)
        return inside

    def describe(self) -> str:
        parts = [f"({lo:.4g}, {hi:.4g}]" for lo, hi in self.intervals] + [f"{{{a:.4g}}}" for a in self.atoms]
        return " U ".join(parts) if parts else "{}"


def _cells(law1: Law, law0: Law, smooth_cells: int = 400):
    """Cells (atoms, then intervals) and both laws' exact probabilities of each, computed from the cdfs."""
    atoms = np.unique(np.concatenate([law1.atoms[0], law0.atoms[0]]))
    widths = window_widths([law1, law0], atoms)
    cells = [((), (float(a),)) for a in atoms]
    p1 = [law1.atom_mass(atoms, widths)]
    p0 = [law0.atom_mass(atoms, widths)]
    if law1.continuous_mass > 0 or law0.continuous_mass > 0:
        if not all(math.isfinite(v) for v in law1.support + law0.support):
            qs = np.linspace(0.0, 1.0, smooth_cells + 1)[1:-1]
            edges = np.concatenate([[-math.inf, math.inf], law1.continuous_quantiles(qs),
                                    law0.continuous_quantiles(qs)])
        else:
            edges = np.concatenate([law1.breakpoints, law0.breakpoints])
        edges = np.unique(edges)
        cells += [(((float(lo), float(hi)),), ()) for lo, hi in zip(edges[:-1], edges[1:])]
        for law, out in ((law1, p1), (law0, p0)):
            # continuous part of each interval: its probability (from the upper tail in the upper half, so that a
            # far tail does not round to 0) minus the atoms inside it
            out.append(np.maximum(law.prob(edges[:-1], edges[1:]) - law.atom_mass_between(edges), 0.0))
    return cells, np.concatenate(p1), np.concatenate(p0)


@dataclass(frozen=True)
class PlannedTest:
    """An event chosen from the laws of an ordered input pair before any sampling, with its probabilities."""

    event: Event
    p1: float
    p0: float
    copies: int
    tight: bool  # the event holds only outputs of maximal likelihood ratio
    impossible: bool = False  # the law of x0 gives the event probability 0 (not a tail that underflowed)

    @property
    def claimed_log_ratio(self) -> float:
        return self.copies * math.log(self.p1 / self.p0) if self.p0 > 0 else math.inf


def plan_event(law1: Law, law0: Law, copies: int, n: int, alpha: float, delta: float = 0.0) -> PlannedTest | None:
    """The union of top-likelihood-ratio cells that maximises the expected lower bound for ``copies``-fold products."""
    cells, p1, p0 = _cells(law1, law0)
    keep = p1 > 0
    if not np.any(keep):
        return None
    cells = [c for c, k in zip(cells, keep) if k]
    p1, p0 = p1[keep], p0[keep]
    with np.errstate(divide="ignore"):
        ratio = np.where(p0 > 0, p1 / np.where(p0 > 0, p0, 1.0), np.inf)
    order = np.argsort(-ratio, kind="stable")
    cum1, cum0 = np.cumsum(p1[order]), np.cumsum(p0[order])
    useful = max(1, int(np.count_nonzero(ratio[order] > 1.0)))  # adding a cell of ratio <= 1 never helps
    bounds = expected_ratio_lower_bound(cum1[:useful] ** copies, cum0[:useful] ** copies, n, alpha, delta)
    best_j = int(np.argmax(bounds)) + 1
    chosen = [cells[i] for i in order[:best_j]]
    top = ratio[order[0]]
    tight = bool(np.all(ratio[order[:best_j]] >= top * (1.0 - RATIO_RTOL)))
    event = Event.of([iv for c in chosen for iv in c[0]], [a for c in chosen for a in c[1]])
    # a law with a density on the whole line (Laplace, Gaussian) gives every interval positive probability; a 0 there
    # is a tail beyond float64 (a Gaussian at eps = 700), not an impossible event
    full_line = all(math.isinf(v) for v in law0.support)
    impossible = float(cum0[best_j - 1]) == 0.0 and not (event.intervals and full_line)
    return PlannedTest(event, float(cum1[best_j - 1]), float(cum0[best_j - 1]), copies, tight, impossible)


@dataclass(frozen=True)
class LawEvent:
    """A law-planned event on whole reports: the scalar report in ``event``, or, for a sampled mechanism, every
    sampled (non-zero) coordinate divided by the client scale in ``event``."""

    event: Event
    scale: float = 1.0

    def contains(self, rows) -> np.ndarray:
        if rows.width == 1:
            return self.event.contains(rows.values[:, 0])
        sampled = rows.values != 0.0
        return np.all(self.event.contains(rows.values / self.scale) | ~sampled, axis=1)

    def describe(self) -> str:
        return self.event.describe()


def _law_plans(mechanism, inputs, pair_ids, n: int, alpha: float) -> list[tuple[int, int, PlannedTest]]:
    """The law's likelihood-ratio event for each ordered pair of the search's inputs (chosen before sampling)."""
    sampling = mechanism.sampling
    coordinate, copies = coordinate_of(mechanism)
    to_coordinate = (lambda x: float(sampling.to_coordinate(np.asarray(x).ravel()[0]))) if sampling else (lambda x: x)
    plans = []
    for i1, i0 in pair_ids:
        plan = plan_event(coordinate.law(to_coordinate(inputs[i1])), coordinate.law(to_coordinate(inputs[i0])),
                          copies, n, alpha, mechanism.delta)
        if plan is not None:
            plans.append((i1, i0, plan))
    return plans


def _law_candidates(mechanism, plans) -> list[Candidate]:
    scale = mechanism.sampling.client_scale if mechanism.sampling else 1.0
    return [Candidate(i1, i0, "law-tight" if plan.tight else "law", LawEvent(plan.event, scale),
                      plan.claimed_log_ratio, plan.impossible) for i1, i0, plan in plans]


def law_ceiling(mechanism, n: int, alpha: float, pairs=None) -> float:
    """The best lower bound n draws per input could certify at level alpha (per event) if the mechanism follows
    its law exactly: the law's best event over the search's input pairs, with counts at their expectations."""
    inputs = list(mechanism.privacy_inputs)
    pair_ids = pairs or [(a, b) for a in range(len(inputs)) for b in range(len(inputs)) if a != b]
    return _best_expected(_law_plans(mechanism, inputs, pair_ids, n, alpha), n, alpha, mechanism.delta)


def _best_expected(plans, n: int, alpha: float, delta: float) -> float:
    bounds = [expected_ratio_lower_bound(plan.p1 ** plan.copies, plan.p0 ** plan.copies, n, alpha, delta)
              for _, _, plan in plans]
    return float(max(bounds, default=-math.inf))


def _likelihood_scores(mechanism, inputs, pair_ids) -> dict:
    """Score functions log f(y | x1) - log f(y | x0) of a declared whole-report law, one per ordered pair."""
    loglik = mechanism.report_loglik
    return {(i1, i0): [ScoreOf(_RatioOf(loglik, inputs[i1], inputs[i0]), "declared law's log likelihood ratio")]
            for i1, i0 in pair_ids}


class _RatioOf:
    def __init__(self, loglik, x1, x0):
        self.loglik, self.x1, self.x0 = loglik, x1, x0

    def __call__(self, values):
        with np.errstate(invalid="ignore"):
            ratio = np.asarray(self.loglik(values, self.x1), float) - np.asarray(self.loglik(values, self.x0), float)
        return np.nan_to_num(np.round(ratio, 9), nan=0.0, posinf=1e300, neginf=-1e300)


def _show(x) -> str:
    x = np.asarray(x)
    if x.ndim and x.size > 1 and np.all(x == x.ravel()[0]):
        return f"({x.ravel()[0]:g}, ..., {x.ravel()[0]:g})"
    return np.array2string(x, precision=4) if x.ndim else f"{float(x):g}"


def _input_label(mechanism, x) -> str:
    """An input as the user writes it: the category (e.g. 'red') for a finite domain of declared categories."""
    categories = mechanism.categories
    if categories is not None and np.ndim(x) == 0:
        j = int(round(float(x) - mechanism.domain[0]))
        if 0 <= j < len(categories):
            value = categories[j]
            return repr(value) if isinstance(value, str) else f"{float(value):g}"
    return _show(x)


def search_pairs(mechanism, seed: int) -> list:
    """The ordered input pairs the black-box search contrasts: every ordered pair of ``mechanism.privacy_inputs``,
    plus the pairs of ``mechanism.pilot_inputs`` that a short seeded pilot run finds most different."""
    fixed = list(mechanism.privacy_inputs)
    pairs = [(a, b) for i, a in enumerate(fixed) for j, b in enumerate(fixed) if i != j]
    if len(mechanism.pilot_inputs):
        pairs += pilot_pairs(mechanism.sample, list(mechanism.pilot_inputs), seed, set(pairs),
                             fmt=ReportFormat(ReportFormat.of(mechanism).universe))
    return pairs


def distinct_inputs(pairs) -> list:
    """The inputs of ``pairs``, each once, in order of appearance (the search draws n reports of each)."""
    inputs = []
    for pair in pairs:
        inputs += [x for x in pair if not any(np.array_equal(x, y) for y in inputs)]
    return inputs


def blackbox_privacy(mechanism, n: int, seed: int, alpha: float, workers: int = 1,
                     progress: Callable[[int], None] | None = None, pairs=None) -> list[CheckResult]:
    """:func:`blackbox_plan`, run on its own."""
    return run_plan(blackbox_plan(mechanism, n, seed, alpha, pairs), workers, progress)


def blackbox_plan(mechanism, n: int, seed: int, alpha: float, pairs=None) -> Plan:
    """The black-box search (``search.py``) on the mechanism's own samples, with the declared law's events
    added as candidates; plus the budget-use (tightness) check when the law has events of maximal ratio. A
    sampling plan (``sampling.Plan``) returning the rows.

    ``pairs`` restricts the ordered input pairs (values in ``sample``'s input space; default: every ordered pair
    of ``mechanism.privacy_inputs``, plus the pairs of ``mechanism.pilot_inputs`` that a short pilot run finds
    most different).
    """
    delta = mechanism.delta
    pairs = search_pairs(mechanism, seed) if pairs is None else pairs
    inputs = distinct_inputs(pairs)
    index = lambda x: next(i for i, y in enumerate(inputs) if np.array_equal(x, y))
    pair_ids = [(index(a), index(b)) for a, b in pairs]
    planned_alpha = alpha * PLANNED_SHARE / len(pair_ids)  # about the level search_plan gives each
    plans = _law_plans(mechanism, inputs, pair_ids, n, planned_alpha) if mechanism.has_law else []
    planned = _law_candidates(mechanism, plans)
    tight = [t for t, c in enumerate(planned) if c.family == "law-tight" and delta == 0.0]
    search_alpha = alpha / 2.0 if tight else alpha
    scores = _likelihood_scores(mechanism, inputs, pair_ids) if mechanism.report_loglik is not None else None
    if declares_report_law(mechanism):  # the law's best cut of its likelihood ratio replaces the score's cells
        planned += planned_candidates(mechanism, inputs, pair_ids, scores, n, planned_alpha)
        covered = {(c.i1, c.i0) for c in planned}
        scores = {pair: s for pair, s in scores.items() if pair not in covered} or None
    fmt = ReportFormat.of(mechanism, inputs)
    finding = yield from search_plan(mechanism.sample, inputs, pair_ids, n, seed, search_alpha, delta, planned,
                                     scores, fmt, [_input_label(mechanism, x) for x in inputs])
    if mechanism.has_law and mechanism.sampling is None:
        finding = _weigh_exact_events(mechanism, inputs, finding)
    top = ceiling(mechanism.eps, finding.n_final, finding.alpha_each, delta)
    if planned:
        top = max(top, ceiling(mechanism.eps, n, finding.planned_alpha, delta))
    if plans:  # the law says what this mechanism, exactly at its claim, lets this sample size certify
        top = min(top, max(_best_expected(plans, finding.n_final, finding.alpha_each, delta),
                           _best_expected(plans, n, finding.planned_alpha, delta)))
    results = [_blackbox_row(mechanism, inputs, finding, n, seed, alpha, top)]
    if finding.score_max and not declares_report_law(mechanism):
        results.append(_loglik_row(mechanism, inputs, finding, n, seed, alpha))
    if tight:
        results.append(_budget_row(mechanism, inputs, finding, tight, n, seed, alpha / 2.0))
    return results


def _weigh_exact_events(mechanism, inputs, finding):
    """Exact-report events of a scalar mechanism that the declared law gives probability 0 under x0 (a finite
    set of values has the mass of the law's atoms there, and none from a density): marked impossible, so that,
    once seen under x1, they are reported as an unbounded loss."""
    marked = []
    for c in finding.candidates:
        if isinstance(c.event, KeyEvent) and c.event.values.size:
            law0 = mechanism.law(inputs[c.i0])
            widths = window_widths([law0, mechanism.law(inputs[c.i1])], c.event.values)
            mass = float(np.sum(law0.atom_mass(c.event.values, widths)))
            c = replace(c, impossible_under_x0=mass == 0.0)
        marked.append(c)
    return replace(finding, candidates=tuple(marked))


#: What a user does when the search cannot see into the reports.
REMEDY = ("declare how the server reads a report (supports(reports, item) and/or key(reports)), or report a numeric "
          "encoding (numbers, an indicator vector, a tuple of numbers)")
#: What a user does when a report column takes a fresh value for every user.
ID_REMEDY = ("declare supports(reports, item) (does each report count for an item, e.g. hash(seed, item) == value "
             "in local hashing) and/or key(reports) (a public key whose values repeat, e.g. a cohort id), or leave the "
             "column out of the report if the server never reads it")


def _blind_row(mechanism, finding, n, seed, alpha, reason: str) -> CheckResult:
    """INCONCLUSIVE, never a blind PASS: the search had nothing it could see into."""
    eps, delta = mechanism.eps, mechanism.delta
    return CheckResult(
        "privacy.blackbox", f"{mechanism.reference}: {eps:g}-LDP" + (f" (delta={delta:g})" if delta else ""),
        Status.INCONCLUSIVE, None, "eps_lower", threshold=eps, n=n, seed=seed, alpha=alpha,
        explanation=f"the search cannot see into these reports: {reason}; to audit them, {REMEDY}",
        details={"blind": reason, "remedy": REMEDY, "tests": len(finding.candidates), "pilot": finding.pilot,
                 "final_draws": finding.n_final})


def _blackbox_row(mechanism, inputs, finding, n, seed, alpha, top: float) -> CheckResult:
    eps, delta = mechanism.eps, mechanism.delta
    if not finding.candidates:
        return _blind_row(mechanism, finding, n, seed, alpha, finding.blind or "no family found an event to test")
    bounds = finding.bounds()
    counts = lambda t: (int(finding.counts[finding.candidates[t].i1][t]), int(finding.counts[finding.candidates[t].i0][t]))
    # infinite loss by the law: an event the declared law gives probability 0 under x0, seen under x1
    impossible = [t for t, c in enumerate(finding.candidates) if c.impossible_under_x0 and counts(t)[0] > 0]
    best = impossible[0] if impossible else int(np.argmax(bounds))
    cand, raw = finding.candidates[best], float(bounds[best])
    lower = max(raw, 0.0)
    c1, c0 = counts(best)
    x1, x0 = _input_label(mechanism, inputs[cand.i1]), _input_label(mechanism, inputs[cand.i0])
    violated = raw > eps * (1.0 + RATIO_RTOL) or bool(impossible)
    if finding.blind and not violated:  # an event found anyway may still prove a violation; a pass it cannot
        return _blind_row(mechanism, finding, n, seed, alpha, finding.blind)
    where = f"inputs {x1} vs {x0}, {cand.family} event {cand.event.describe()}"
    if impossible:
        finding_text = (f"UNBOUNDED loss: {where} has probability 0 under {x0} by the declared law and occurred {c1} "
                        f"times in {finding.draws(best)} draws of {x1}")
    elif finding.never_seen_under_x0(best) and violated:
        finding_text = (f"{where}: seen {c1} times under {x1}, never under {x0} in {finding.draws(best)} draws: eps >= "
                        f"{lower:.4f} (sample-limited; the loss may be unbounded), ABOVE the claimed {eps:g}")
    else:
        finding_text = (f"{where}: eps >= {lower:.4f} with confidence 1 - {alpha:.3g}"
                        + (f", ABOVE the claimed {eps:g}" if violated else
                           f" (tightness {lower / eps:.3f}; ceiling {top:.4f} at this n and confidence)"))
    unseen = bool(finding.id_like) and not violated  # a column the search cannot read: no pass at this bound
    if unseen:
        finding_text += (f"; INCONCLUSIVE: coordinate(s) {list(finding.id_like)[:4]} take a fresh value in nearly "
                         f"every report (a hash seed or an id?) and nothing says how the server reads them, so the "
                         f"search cannot see through them: {ID_REMEDY}")
    if finding.key_column is not None:
        finding_text += (f"; coordinate {finding.key_column} takes few values that do not depend on the input and was "
                         f"read as a key (a cohort id?): the keyed family conditions on it (declare key(reports) "
                         f"to say so, or supports(reports, item))")
    if finding.planned:
        chosen = len(finding.candidates) - finding.planned
        finding_text += (f"; weighted Bonferroni: {finding.planned} event(s) planned from the law before sampling, at "
                         f"{finding.planned_alpha:.2g} each on all {finding.pilot + finding.n_final} draws, and "
                         f"{chosen} chosen on the pilot, at {finding.alpha_each:.2g} each on {finding.n_final}")
    per_family = {}
    for t, c in enumerate(finding.candidates):
        per_family[c.family] = max(per_family.get(c.family, -math.inf), float(bounds[t]))
    status = Status.FAIL if violated else Status.INCONCLUSIVE if unseen else Status.PASS
    return CheckResult(
        "privacy.blackbox", f"{mechanism.reference}: {eps:g}-LDP" + (f" (delta={delta:g})" if delta else ""),
        status, lower, "eps_lower", interval=(lower, math.inf), threshold=eps,
        n=n, seed=seed, alpha=alpha, explanation=finding_text,
        details={"tightness": lower / eps, "ceiling": top, "raw_lower": raw if math.isfinite(raw) else None,
                 "unbounded": bool(impossible), "never_seen_under_x0": finding.never_seen_under_x0(best),
                 "family": cand.family, "event": cand.event.describe(), "counts": [c1, c0],
                 "tests": len(finding.candidates), "alpha_each": finding.alpha_each, "pairs": len({(c.i1, c.i0) for c in finding.candidates}),
                 "planned": finding.planned, "planned_alpha": finding.planned_alpha, "level": finding.level(best),
                 "draws": finding.draws(best),
                 "pilot": finding.pilot, "final_draws": finding.n_final, "id_like_columns": list(finding.id_like),
                 "key_column": finding.key_column, **({"remedy": ID_REMEDY} if unseen else {}),
                 "eps_lower_per_family": {k: (v if math.isfinite(v) else None) for k, v in per_family.items()}})


def _loglik_row(mechanism, inputs, finding, n, seed, alpha) -> CheckResult:
    """``law.loglik``: a declared whole-report log likelihood that no exact audit enumerates (a user's
    ``report_loglik``) is held against the samples. Were it the sampler's law, no event of an input pair (x1, x0)
    could have a log probability ratio above the largest log likelihood ratio the law gives a report; the row fails
    when the search certifies a larger one (on the pilot reports, the largest seen stands in for the supremum). The
    bounds are the privacy row's, at its confidence: no extra test, no extra false alarm."""
    bounds = finding.bounds()
    worst = None
    for (i1, i0), declared in finding.score_max.items():
        events = [t for t, c in enumerate(finding.candidates) if (c.i1, c.i0) == (i1, i0)]
        if events:
            t = max(events, key=lambda e: bounds[e])
            if worst is None or bounds[t] - declared > worst[0]:
                worst = (float(bounds[t] - declared), t, declared)
    ref = mechanism.reference
    used = any(c.family == "law" for c in finding.candidates)
    claim = f"{ref}: the declared report_loglik is the sampler's law"
    if worst is None:
        return CheckResult("law.loglik", claim, Status.INFO, explanation="no event was tested, nothing to hold it to")
    excess, t, declared = worst
    cand = finding.candidates[t]
    measured = float(bounds[t])
    x1, x0 = _input_label(mechanism, inputs[cand.i1]), _input_label(mechanism, inputs[cand.i0])
    contradicted = measured > declared + RATIO_RTOL * max(abs(declared), 1.0)
    text = (f"inputs {x1} vs {x0}: the declared law's largest log likelihood ratio on the {2 * finding.pilot} pilot "
            f"reports is {declared:.4g}; the search certifies an event ({cand.family}: {cand.event.describe()}) of log "
            f"ratio >= {measured:.4f} with confidence 1 - {alpha:.3g}")
    if contradicted:
        text += ": no law can give an event a larger ratio than its reports have, so this is not the sampler's law"
        text += " (does it read x?)" if declared <= 0 else ""
    else:
        text += ("; consistent" + ("" if used else ", but it proposed no event (its ratio is constant on the reports)")
                 + ": the law is used by the black-box search only, not checked exactly (give pmf, pdf or law(x) "
                 "for a report of one number to have it checked)")
    return CheckResult("law.loglik", claim, Status.FAIL if contradicted else Status.PASS, measured, "eps_lower",
                       threshold=declared, n=n, seed=seed, alpha=alpha, explanation=text,
                       details={"declared_max_log_ratio": declared, "used": used, "family": cand.family})


def _budget_row(mechanism, inputs, finding, tight, n, seed, alpha) -> CheckResult:
    eps = mechanism.eps
    uppers = [ratio_upper_bound(finding.counts[finding.candidates[t].i1][t], finding.counts[finding.candidates[t].i0][t],
                                finding.draws(t), finding.draws(t), alpha / len(tight)) for t in tight]
    j = int(np.argmax(uppers))
    upper, cand = uppers[j], finding.candidates[tight[j]]
    claimed = cand.log_ratio
    under = upper < claimed * (1.0 - RATIO_RTOL)
    where = f"the law's tightest event ({cand.event.describe()}, inputs {_show(inputs[cand.i1])} vs {_show(inputs[cand.i0])})"
    return CheckResult(
        "privacy.budget", f"{mechanism.reference}: spends the claimed eps={eps:g}",
        Status.FAIL if under else Status.PASS, upper, "eps_upper", interval=(-math.inf, upper), threshold=claimed,
        n=n, seed=seed, alpha=alpha,
        explanation=(f"{where} has log ratio <= {upper:.4f}" + (
            f", below the {claimed:.4g} the law implies: the mechanism adds more noise than claimed" if under
            else f"; the law implies {claimed:.4g}")))
