"""The declared law's likelihood-ratio cut as a planned event (``report_law.planned_candidates``): chosen from the
enumerated law before any sampling, counted on every draw (pilot included) and bounded at its share of alpha
(``search.PLANNED_SHARE``, a weighted Bonferroni split that stays family-wise at alpha and is stated in the row).
A sampler that spends more than its (correct) declared law FAILs through it; reports that float64 rows cannot carry
(local hashing's 63-bit seeds) get no planned event."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from ldp_audit.audits.privacy.search import PLANNED_SHARE
from ldp_audit.audits.verify.orchestrator import AuditSettings, verify
from ldp_audit.mechanisms import make
from ldp_audit.mechanisms.frequency.subset import SubsetSelection
from ldp_audit.mechanisms.frequency.unary import OptimisedUnaryEncoding

ALPHA = 1e-2


def _blackbox(mechanism, samples=20_000, seed=11):
    report = verify(mechanism, AuditSettings(samples=samples, seed=seed, alpha=ALPHA), checks="privacy")
    return next(r for r in report.results if r.name == "privacy.blackbox")


def test_planned_events_get_their_share_of_alpha_and_every_draw():
    row = _blackbox(make("ss", eps=1.0, k=2))
    details = row.details
    assert row.status.value == "pass" and details["family"] == "law-planned"
    assert details["planned"] == 2 and details["planned_alpha"] == pytest.approx(PLANNED_SHARE * ALPHA / 2)
    assert details["level"] == details["planned_alpha"] and details["draws"] == 20_000
    # the rest of alpha is split over every event the pilot may choose: family-wise at alpha in all
    chosen = details["tests"] - details["planned"]
    assert details["alpha_each"] * chosen <= (1.0 - PLANNED_SHARE) * ALPHA * (1.0 + 1e-12)
    assert "weighted Bonferroni: 2 event(s) planned from the law" in row.explanation


@dataclass(frozen=True)
class SubsetSamplingAtTwiceEps(SubsetSelection):
    """Declares the law of subset selection at eps but samples at 2 eps."""

    def _perturb(self, x, rng):
        return SubsetSelection(2 * self.eps, self.k)._perturb(x, rng)


@dataclass(frozen=True)
class OueSamplingAtTwiceEps(OptimisedUnaryEncoding):
    def _perturb(self, x, rng):
        return OptimisedUnaryEncoding(2 * self.eps, self.k)._perturb(x, rng)


@pytest.mark.parametrize("mutant, k", [(SubsetSamplingAtTwiceEps, 2), (OueSamplingAtTwiceEps, 2),
                                      (OueSamplingAtTwiceEps, 25)], ids=lambda v: getattr(v, "__name__", str(v)))
def test_a_sampler_spending_more_than_its_law_fails_through_the_planned_cut(mutant, k):
    """(Subset selection at k = 25 and 2 eps draws subsets of another size, reports the declared law calls
    impossible under both inputs: no cut of its ratio holds them, and the search's other families FAIL it.)"""
    row = _blackbox(mutant(1.0, k))
    assert row.status.value == "fail", row.explanation
    assert row.details["eps_lower_per_family"]["law-planned"] > 1.0


def test_reports_a_float_cannot_carry_get_no_planned_event():
    """OLH's seeds span 2^63: a float64 row rounds them to other seeds, so its declared log likelihood cannot be
    evaluated on the search's rows; the report is read through the declared supports instead."""
    row = _blackbox(make("olh", eps=1.0, k=2))
    assert row.details["planned"] == 0 and "law-planned" not in row.details["eps_lower_per_family"]
    assert row.details["family"] == "supports" and row.status.value == "pass"
