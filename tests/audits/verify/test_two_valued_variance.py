"""The variance claim of a two-valued quantity (a frequency oracle's per-item estimate, the one-bit report) gets an
exact binomial test on the frequency of its larger value (``moments.two_point_variance_p``): the fourth-moment
z-test is degenerate there, and before this test such variance formulas were not checked at all. Correct formulas
PASS ``moments.variance``; a formula claiming twice the variance FAILs it while ``moments.mean`` still PASSes.
``verify`` runs at alpha = 1e-3 with fixed seeds."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from ldp_audit.audits.verify.moments import two_point_mean_p, two_point_variance_p
from ldp_audit.audits.kernel.stats import binomial_two_sided_p
from ldp_audit.audits.verify.orchestrator import AuditSettings, verify
from ldp_audit.mechanisms import make
from ldp_audit.mechanisms.frequency.hadamard import HadamardResponse
from ldp_audit.mechanisms.frequency.hashing import BinaryLocalHashing, OptimisedLocalHashing
from ldp_audit.mechanisms.frequency.subset import SubsetSelection
from ldp_audit.mechanisms.frequency.unary import (OptimisedUnaryEncoding, SymmetricUnaryEncoding,
                                                  ThresholdHistogramEncoding)
from ldp_audit.mechanisms.scalar import Duchi, OneBit

SETTINGS = AuditSettings(samples=20_000, seed=13)
TWO_VALUED = [SymmetricUnaryEncoding, OptimisedUnaryEncoding, ThresholdHistogramEncoding, OptimisedLocalHashing,
              BinaryLocalHashing, HadamardResponse, SubsetSelection]


def _twice_the_variance(cls):
    """A mutant of ``cls`` whose variance formula claims twice the true variance."""

    @dataclass(frozen=True)
    class TwiceTheVariance(cls):
        def estimate_var(self, x):
            return 2.0 * super().estimate_var(x)

    TwiceTheVariance.__name__ = f"{cls.__name__}TwiceTheVariance"
    return TwiceTheVariance


def _rows(report):
    return {r.name: r for r in report.results}


@pytest.mark.parametrize("cls", TWO_VALUED, ids=lambda c: c.__name__)
def test_an_oracles_variance_formula_is_tested_exactly(cls):
    good = _rows(verify(cls(1.0, 5), SETTINGS, checks="moments"))
    assert good["moments.variance"].status.value == "pass", good["moments.variance"]
    assert "exact binomial test" in good["moments.variance"].explanation
    bad = _rows(verify(_twice_the_variance(cls)(1.0, 5), SETTINGS, checks="moments"))
    assert bad["moments.mean"].status.value == "pass", bad["moments.mean"]
    assert bad["moments.variance"].status.value == "fail", bad["moments.variance"]


@pytest.mark.parametrize("cls", [OneBit, Duchi], ids=lambda c: c.__name__)
def test_the_one_bit_variance_formula_is_tested_exactly(cls):
    @dataclass(frozen=True)
    class TwiceTheVariance(cls):
        def report_var(self, x):
            return 2.0 * super().report_var(x)

        def estimate_var(self, x):
            return 2.0 * super().estimate_var(x)

    good = _rows(verify(cls(1.0), SETTINGS, checks="moments"))
    assert good["moments.variance"].status.value == "pass", good["moments.variance"]
    bad = _rows(verify(TwiceTheVariance(1.0), SETTINGS, checks="moments"))
    assert bad["moments.mean"].status.value == "pass" and bad["moments.variance"].status.value == "fail", bad


def _moments(draws, a, b):
    x = np.where(draws, b, a)
    return x.size, float(x.mean()), float(np.mean((x - a) * (x - b)))


def test_the_exact_p_value_of_a_two_valued_variance():
    rng = np.random.default_rng(3)
    a, b, p = -0.5, 2.0, 0.2
    n, mean, product = _moments(rng.random(50_000) < p, a, b)
    true_var = (b - a) ** 2 * p * (1 - p)
    count = int(round((mean - a) / (b - a) * n))
    # at the true variance the p-value is the binomial test's at the true frequency (or its mirror 1 - p)
    assert two_point_variance_p(n, mean, product, np.array([a, b]), true_var) == pytest.approx(
        max(binomial_two_sided_p(count, n, p), binomial_two_sided_p(count, n, 1 - p)))
    assert two_point_variance_p(n, mean, product, np.array([a, b]), true_var) > 1e-3
    assert two_point_variance_p(n, mean, product, np.array([a, b]), 2 * true_var) < 1e-12
    assert two_point_variance_p(n, mean, product, np.array([a, b]), (b - a) ** 2 / 3) == 0.0  # above (b - a)^2 / 4
    assert two_point_variance_p(n, mean, product, np.array([a, b]), -1.0) == 0.0


def test_the_exact_p_value_of_a_two_valued_mean():
    rng = np.random.default_rng(6)
    a, b, p = -0.5, 2.0, 0.2
    n, mean, product = _moments(rng.random(50_000) < p, a, b)
    values = np.array([a, b])
    assert two_point_mean_p(n, mean, product, values, a + (b - a) * p) > 1e-3
    assert two_point_mean_p(n, mean, product, values, a + (b - a) * 1.05 * p) < 1e-6
    assert two_point_mean_p(n, mean, product, values, b + 1.0) == 0.0  # outside [a, b]


@pytest.mark.parametrize("name", ["sue", "olh", "ss", "hr"])
def test_oracle_moments_at_the_top_of_the_range_pass(name):
    """At eps = 700 the estimate's larger value has probability ~e^-700 for an item v != x: the mean's z-test gave
    z ~ 1e100 from one draw (false alarms in every seed before the exact test); the binomial tail does not
    overflow where scipy's binomtest does."""
    report = verify(make(name, eps=700.0), AuditSettings(samples=1000, seed=22126, alpha=0.01), checks="moments")
    assert report.passed, [(r.name, r.explanation) for r in report.failures()]


def test_a_third_value_turns_the_exact_test_off():
    rng = np.random.default_rng(4)
    x = rng.choice([-1.0, 0.0, 1.0], size=10_000)
    assert two_point_variance_p(x.size, float(x.mean()), float(np.mean((x + 1) * (x - 1))), np.array([-1.0, 1.0]),
                                0.5) is None


def test_false_alarm_rate_of_the_exact_test_is_at_most_its_level():
    """Under the true variance the test rejects at most alpha of the time (exact binomial test at the roots)."""
    rng = np.random.default_rng(5)
    a, b, p, alpha = 0.0, 1.0, 0.03, 0.05
    trials = rng.random((2000, 400)) < p
    rejections = sum(two_point_variance_p(*_moments(t, a, b), np.array([a, b]), p * (1 - p)) < alpha
                     for t in trials)
    assert rejections / 2000 <= alpha


# ----- local hashing: the estimate's moments depend on the seeds only through the collision probability --------
@pytest.mark.parametrize("cls", [OptimisedLocalHashing, BinaryLocalHashing], ids=lambda c: c.__name__)
def test_local_hashing_formulas_agree_with_the_law_exactly(cls):
    """The estimate of item v given x depends on the public seed only through whether H_s(v) = H_s(x): the seed
    space splits into a colliding part of share c = 1/g (the universal family's collision probability, which
    Wang et al.'s q* = 1/g assumes) and the rest. Summing over these two seed classes (one representative seed
    each) and the buckets gives the estimate's mean and variance exactly; they equal ``estimate_mean`` and
    ``estimate_var`` (Wang et al. 2017, Eqs. (1)-(2)) to float precision. The oracle's ``law_classes`` stand for
    the seed space by a sample of seeds instead (exact for likelihood ratios, not for means over seeds)."""
    from ldp_audit.mechanisms.frequency.hashing import universal_hash

    m = cls(1.3, 5)
    g, x, v = m.buckets, 1, 3
    p, q = m.grr_probabilities()
    seeds = np.arange(4096, dtype=np.int64)
    collide = universal_hash(seeds, x, g) == universal_hash(seeds, v, g)
    mean, second = np.zeros(2), np.zeros(2)
    for seed, share in ((seeds[collide][0], 1.0 / g), (seeds[~collide][0], 1.0 - 1.0 / g)):
        reports = np.column_stack([np.full(g, seed), np.arange(g)])  # every bucket under this seed
        probs = share * np.where(np.arange(g) == universal_hash(np.array([seed]), x, g)[0], p, q)
        est = m.estimate(reports)[:, [x, v]]
        mean += probs @ est
        second += probs @ est ** 2
    formula_mean, formula_var = m.estimate_mean(x)[[x, v]], m.estimate_var(x)[[x, v]]
    assert np.allclose(mean, formula_mean, rtol=0, atol=1e-12)
    assert np.allclose(second - mean ** 2, formula_var, rtol=1e-12, atol=0)


@pytest.mark.parametrize("g", [2, 5, 21])
def test_the_seeded_hash_family_collides_with_probability_one_over_g(g):
    """The assumption above, on the implementation: over 2^20 public seeds, every pair of a few items collides at
    a rate whose Clopper-Pearson interval (level 1e-6 per pair) holds 1/g (Carter-Wegman: 1/g up to O(g / P))."""
    from ldp_audit.audits.kernel.stats import clopper_pearson
    from ldp_audit.mechanisms.frequency.hashing import universal_hash

    seeds = np.random.default_rng(g).integers(0, np.iinfo(np.int64).max, size=1 << 20, dtype=np.int64)
    hashed = universal_hash(seeds[:, None], np.arange(6)[None, :], g)
    for a in range(6):
        for b in range(a + 1, 6):
            low, high = clopper_pearson(int(np.count_nonzero(hashed[:, a] == hashed[:, b])), seeds.size, 1e-6)
            assert low <= 1.0 / g <= high, (a, b, low, high)
