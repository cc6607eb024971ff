"""Each built-in frequency oracle next to broken variants of itself: the audit row that owns the bug must FAIL
where the correct oracle PASSes (tests/mechanisms/test_frequency_oracles.py shows the PASS at the same settings).

* built at 2 eps (the constant shared by sampler, law and estimator): ``privacy.whitebox`` FAILS from the law
  alone, and ``privacy.blackbox`` FAILS from samples (local hashing's unique (seed, bucket) reports through the
  search's "supports" family, which reads the oracle's declared ``supports``);
* wrong constant in the server estimator: ``moments.mean`` FAILS;
* wrong variance formula (where the estimate takes more than two values): ``moments.variance`` FAILS;
* cohort RAPPOR whose client applies a smaller f than it declares: ``privacy.blackbox`` and ``moments.mean`` FAIL
  while its (correct) law passes ``privacy.whitebox``.

``verify`` runs at alpha = 1e-3 with fixed seeds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from ldp_audit.audits.privacy.report_law import whitebox_report_law
from ldp_audit.audits.verify.orchestrator import AuditSettings, verify
from ldp_audit.mechanisms.frequency.base import pure_estimate
from ldp_audit.mechanisms.frequency.hadamard import HadamardResponse
from ldp_audit.mechanisms.frequency.hashing import BinaryLocalHashing, OptimisedLocalHashing
from ldp_audit.mechanisms.frequency.rappor import Rappor, rappor_rates
from ldp_audit.mechanisms.frequency.subset import SubsetSelection
from ldp_audit.mechanisms.frequency.unary import (OptimisedUnaryEncoding, SummationHistogramEncoding,
                                                  SymmetricUnaryEncoding, ThresholdHistogramEncoding,
                                                  the_probabilities)

SETTINGS = AuditSettings(samples=20_000, seed=5)


# ----- built at 2 eps ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SueAtTwiceEps(SymmetricUnaryEncoding):
    def support_probabilities(self):
        return SymmetricUnaryEncoding(2 * self.eps, self.k).support_probabilities()


@dataclass(frozen=True)
class OueAtTwiceEps(OptimisedUnaryEncoding):
    def support_probabilities(self):
        return OptimisedUnaryEncoding(2 * self.eps, self.k).support_probabilities()


@dataclass(frozen=True)
class SheUnitSensitivity(SummationHistogramEncoding):
    """Laplace scale 1/eps: forgets that e_x and e_x' differ by 2 in L1."""

    @property
    def noise_scale(self):
        return 1.0 / self.eps


@dataclass(frozen=True)
class TheUnitSensitivity(ThresholdHistogramEncoding):
    @property
    def noise_scale(self):
        return 1.0 / self.eps


@dataclass(frozen=True)
class OlhKeepingAtTwiceEps(OptimisedLocalHashing):
    """The bucket is kept with the probability of 2 eps (g unchanged)."""

    def grr_probabilities(self):
        g, tail = self.buckets, math.exp(-2 * self.eps)
        return 1.0 / (1.0 + (g - 1) * tail), tail / (1.0 + (g - 1) * tail)


@dataclass(frozen=True)
class BlhAtTwiceEps(BinaryLocalHashing):
    def grr_probabilities(self):
        return BinaryLocalHashing(2 * self.eps, self.k).grr_probabilities()


@dataclass(frozen=True)
class HadamardAtTwiceEps(HadamardResponse):
    def report_probabilities(self):
        return HadamardResponse(2 * self.eps, self.k).report_probabilities()


@dataclass(frozen=True)
class SubsetAtTwiceEps(SubsetSelection):
    """x joins S with the probability of 2 eps (d unchanged)."""

    def inclusion(self):
        d, k = self.size, self.k
        tail = (k - d) * math.exp(-2 * self.eps)
        return d / (d + tail), tail / (d + tail)


@dataclass(frozen=True)
class RapporAtTwiceEps(Rappor):
    def support_probabilities(self):
        return rappor_rates(2 * self.eps, self.h)


TWICE = [SueAtTwiceEps, OueAtTwiceEps, SheUnitSensitivity, TheUnitSensitivity, OlhKeepingAtTwiceEps,
         BlhAtTwiceEps, HadamardAtTwiceEps, SubsetAtTwiceEps, RapporAtTwiceEps]
@pytest.mark.parametrize("mutant", TWICE, ids=lambda c: c.__name__)
def test_law_of_a_mutant_at_twice_eps_fails_whitebox(mutant):
    rows = {r.name: r for r in whitebox_report_law(mutant(1.0, 5))}
    white = rows["privacy.whitebox"]
    assert white.status.value == "fail" and white.statistic > 1.5, white.explanation
    assert "law.mass" not in rows or rows["law.mass"].status.value == "pass"


@pytest.mark.parametrize("mutant", TWICE, ids=lambda c: c.__name__)
def test_samples_of_a_mutant_at_twice_eps_fail_blackbox(mutant):
    """Local hashing's unique (seed, bucket) reports are read through its declared ``supports``."""
    report = verify(mutant(1.0, 5), SETTINGS, checks="privacy")
    row = next(r for r in report.results if r.name == "privacy.blackbox")
    assert row.status.value == "fail" and row.statistic > 1.0, row.explanation


# ----- server estimator and variance formula ----------------------------------------------------------------------
@dataclass(frozen=True)
class OlhIgnoringCollisions(OptimisedLocalHashing):
    """Server uses q* = q (the randomized response's) instead of 1/g: forgets that other items collide."""

    def support_probabilities(self):
        return self.grr_probabilities()


@dataclass(frozen=True)
class BlhIgnoringCollisions(BinaryLocalHashing):
    def support_probabilities(self):
        return self.grr_probabilities()


@dataclass(frozen=True)
class SubsetNaiveQ(SubsetSelection):
    """Server uses q* = d/k, the inclusion rate of a uniform d-subset."""

    def support_probabilities(self):
        return super().support_probabilities()[0], self.size / self.k


@dataclass(frozen=True)
class SueWithOueEstimator(SymmetricUnaryEncoding):
    """Client runs SUE, server unbiases with OUE's (p, q)."""

    def estimate(self, reports):
        return OptimisedUnaryEncoding(self.eps, self.k).estimate(reports)


@dataclass(frozen=True)
class OueWithSueEstimator(OptimisedUnaryEncoding):
    def estimate(self, reports):
        return SymmetricUnaryEncoding(self.eps, self.k).estimate(reports)


@dataclass(frozen=True)
class TheWithHalfThreshold(ThresholdHistogramEncoding):
    """Server unbiases with theta = 1/2 while the client thresholds at the optimal theta."""

    def estimate(self, reports):
        return pure_estimate(np.asarray(reports) == 1, *the_probabilities(0.5, self.noise_scale))


@dataclass(frozen=True)
class HadamardWithBlockQ(HadamardResponse):
    """Server assumes q* = 1 - p* (a report supports other items as often as x's complement)."""

    def support_probabilities(self):
        p, _ = super().support_probabilities()
        return p, 1.0 - p


@dataclass(frozen=True)
class SheForgettingTwo(SummationHistogramEncoding):
    """Variance b^2 instead of 2 b^2 for Lap(b)."""

    def estimate_var(self, x):
        return super().estimate_var(x) / 2.0


@dataclass(frozen=True)
class RapporForgettingH(Rappor):
    """Variance of one bit's estimate, not of the mean of h bits."""

    def estimate_var(self, x):
        return super().estimate_var(x) * self.h


BIASED = [OlhIgnoringCollisions, BlhIgnoringCollisions, SubsetNaiveQ, SueWithOueEstimator, OueWithSueEstimator,
          TheWithHalfThreshold, HadamardWithBlockQ]


@pytest.mark.parametrize("mutant", BIASED, ids=lambda c: c.__name__)
def test_biased_server_estimator_fails_the_mean_row(mutant):
    report = verify(mutant(1.0, 5), SETTINGS, checks="moments")
    rows = {r.name: r.status.value for r in report.results}
    assert rows["moments.mean"] == "fail", report.results


@pytest.mark.parametrize("mutant", [SheForgettingTwo, RapporForgettingH], ids=lambda c: c.__name__)
def test_wrong_variance_formula_fails_the_variance_row(mutant):
    report = verify(mutant(1.0, 5), SETTINGS, checks="moments")
    rows = {r.name: r.status.value for r in report.results}
    assert rows["moments.mean"] == "pass" and rows["moments.variance"] == "fail", report.results


# ----- RAPPOR whose client applies another f than it declares ----------------------------------------------------
@dataclass(frozen=True)
class RapporWithSmallerF(Rappor):
    """The permanent response uses f/8 while the instantaneous one is tuned for the declared f."""

    @property
    def f(self):
        return self.prr / 8.0


def test_rappor_with_a_wrong_f_fails_from_its_samples():
    mutant = RapporWithSmallerF(1.0, 5)
    report = verify(mutant, SETTINGS)
    rows = {r.name: r for r in report.results}
    assert rows["privacy.whitebox"].status.value == "pass"  # the declared law is the correct one
    assert rows["privacy.blackbox"].status.value == "fail", rows["privacy.blackbox"].explanation
    assert rows["moments.mean"].status.value == "fail"
