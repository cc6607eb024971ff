"""The built-in frequency oracles: registry, validation, the sampler against the exact law, the server estimator,
the keyed-report declarations, and ``verify`` on each oracle next to mutants of itself that it must fail.

False alarms: every statistical assertion here is one member of a family of at most ``TESTS`` tests at
FAMILY_ALPHA = 1e-3 (Bonferroni); ``verify`` runs at its own alpha 1e-3. Seeds are fixed.
"""
from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ldp_audit.audits.verify.compare import variance_report
from ldp_audit.audits.privacy.report_law import law_ceiling, whitebox_report_law
from ldp_audit.audits.verify.orchestrator import AuditSettings, verify
from ldp_audit.mechanisms import make, names
from ldp_audit.mechanisms.frequency import ORACLES
from ldp_audit.mechanisms.frequency.hashing import BinaryLocalHashing, OptimisedLocalHashing, universal_hash
from ldp_audit.mechanisms.frequency.hadamard import HadamardResponse
from ldp_audit.mechanisms.frequency.rappor import Rappor
from ldp_audit.mechanisms.frequency.subset import SubsetSelection
from ldp_audit.mechanisms.frequency.unary import (OptimisedUnaryEncoding, SymmetricUnaryEncoding,
                                                  ThresholdHistogramEncoding)

NAMES = [cls.name for cls in ORACLES]
FAMILY_ALPHA = 1e-3
TESTS = 40
ALPHA = FAMILY_ALPHA / TESTS
SETTINGS = AuditSettings(samples=20_000, seed=5)


def _statuses(report):
    return {r.name: r.status.value for r in report.results}


# ----- registry and validation ----------------------------------------------------------------------------------
def test_every_oracle_is_registered_with_k():
    assert set(NAMES) <= set(names())
    for name in NAMES:
        m = make(name, eps=1.0, k=5)
        assert dataclasses.is_dataclass(m) and m.k == 5 and m.domain == (0.0, 4.0)
        with pytest.raises(dataclasses.FrozenInstanceError):
            m.eps = 2.0
        rebuilt = make(name, **m.params())
        assert rebuilt.params() == m.params()
        x = np.array([0, 4, 2, 1])
        assert np.array_equal(m.perturb(x, 7), rebuilt.perturb(x, 7))


@pytest.mark.parametrize("name", NAMES)
def test_bad_parameters_and_inputs_name_what_is_allowed(name):
    for bad in (0, -1.0, float("nan"), 701.0, "1"):
        with pytest.raises(ValueError, match="eps"):
            make(name, eps=bad)
    for bad in (1, 2.5, "a", 1 << 17):
        with pytest.raises(ValueError, match=r"k must be an integer \[2, 65536\]"):
            make(name, eps=1.0, k=bad)
    m = make(name, eps=1.0, k=4)
    for bad in ([0, 4], [0, -1], [0.5], [np.nan]):
        with pytest.raises(ValueError, match="x"):
            m.perturb(bad, 0)
    assert np.asarray(m.perturb([9.0], 0, clip=True)).shape[0] == 1


def test_rappor_parameters():
    with pytest.raises(ValueError, match=r"prr \(RAPPOR's f\) must be a real number in \[0, 0.53"):
        make("rappor", eps=4.0, prr=0.9)
    with pytest.raises(ValueError, match="h must be an integer"):
        make("rappor", eps=1.0, h=0)
    with pytest.raises(ValueError, match="cohorts must be an integer"):
        make("rappor", eps=1.0, cohorts=0)
    m = make("rappor", eps=1.0, k=6, h=3)
    assert m.f == pytest.approx(0.5 * m.max_f) and m.bits == 18
    # the cohort's Bloom map is a public function of the cohort: every item gets h distinct bits
    assert np.array_equal(m.positions, make("rappor", eps=2.0, k=6, h=3).positions)
    assert all(np.unique(m.positions[c]).size == 18 for c in range(m.cohorts))


@pytest.mark.parametrize("name", NAMES)
def test_extreme_budgets_give_finite_constants(name):
    for eps in (1e-6, 50.0, 700.0):
        m = make(name, eps=eps, k=3)
        assert np.all(np.isfinite(m.estimate_var(np.arange(3)))) and np.all(m.estimate_var(np.arange(3)) >= 0)
        reports = m.perturb(np.arange(3), 1)
        assert np.all(np.isfinite(m.estimate(reports)))


@pytest.mark.parametrize("name", NAMES)
def test_the_law_is_exact_over_the_whole_budget_range(name):
    """Probabilities near 1 keep their complements' digits: the white-box rows hold from eps = 1e-6 to 700, and
    the law spends eps exactly (THE: at most eps)."""
    for eps in (1e-6, 50.0, 700.0):
        rows = {r.name: r for r in whitebox_report_law(make(name, eps=eps, k=5))}
        assert all(r.status.value == "pass" for r in rows.values()), [r.explanation for r in rows.values()]
        spent = rows["privacy.whitebox"].statistic / eps
        assert spent == pytest.approx(1.0, rel=1e-6) or (name == "the" and 0.5 < spent < 1.0)


# ----- the sampler against the exact law ---------------------------------------------------------------------------
def _all_outputs(m):
    """Every possible report of a small oracle (for an exact goodness-of-fit test), or None."""
    if isinstance(m, HadamardResponse):
        return np.arange(m.order)
    if isinstance(m, Rappor):
        bits = np.array(list(itertools.product([0, 1], repeat=m.bits)))
        return np.array([np.concatenate([[c], b]) for c in range(m.cohorts) for b in bits])
    if isinstance(m, (SymmetricUnaryEncoding, OptimisedUnaryEncoding, ThresholdHistogramEncoding, SubsetSelection)):
        return np.array(list(itertools.product([0, 1], repeat=m.k)))
    return None


GOF = [("sue", {}), ("oue", {}), ("the", {}), ("ss", {}), ("hr", {}), ("rappor", {"h": 1, "cohorts": 2})]


@pytest.mark.parametrize("name,extra", GOF, ids=[g[0] for g in GOF])
def test_reports_follow_the_law_exactly(name, extra):
    """Chi-square of 40000 reports against P(y | x) = exp(report_loglik) over every possible output."""
    m = make(name, eps=1.3, k=3, **extra)
    outputs = _all_outputs(m)
    probs = np.exp(m.report_loglik(outputs, 1))
    assert abs(probs.sum() - 1.0) < 1e-12
    reports = np.asarray(m.sample(1, 40_000, np.random.default_rng(3))).reshape(40_000, -1)
    index = {tuple(row): i for i, row in enumerate(np.asarray(outputs).reshape(len(outputs), -1))}
    counts = np.bincount([index[tuple(r)] for r in reports], minlength=len(outputs))
    keep = probs > 0
    assert counts[~keep].sum() == 0
    assert stats.chisquare(counts[keep], probs[keep] * counts.sum()).pvalue > ALPHA


@pytest.mark.parametrize("cls", [OptimisedLocalHashing, BinaryLocalHashing])
def test_local_hashing_reports_keep_their_63_bit_seeds(cls):
    m = cls(1.5, 5)
    reports = m.sample(2, 40_000, np.random.default_rng(4))
    seeds = m.key(reports)
    assert reports.dtype == np.int64 and seeds.dtype == np.int64 and np.all(seeds >= 0)
    assert np.mean(seeds > 2**62) > 0.4 and np.unique(seeds).size == seeds.size  # a 2^63 space, no repeats
    hit = reports[:, 1] == universal_hash(seeds, 2, m.buckets)
    assert np.array_equal(hit, m.supports(reports, 2))
    p, _ = m.grr_probabilities()
    assert stats.binomtest(int(hit.sum()), hit.size, p).pvalue > ALPHA
    # the universal family: two items collide under a uniform seed with probability 1/g
    collide = universal_hash(seeds, 0, m.buckets) == universal_hash(seeds, 1, m.buckets)
    assert stats.binomtest(int(collide.sum()), collide.size, 1.0 / m.buckets).pvalue > ALPHA


def test_she_coordinates_are_laplace():
    m = make("she", eps=0.8, k=4)
    y = m.sample(2, 40_000, np.random.default_rng(5))
    for v in range(4):
        assert stats.kstest(y[:, v], stats.laplace(loc=float(v == 2), scale=2.0 / 0.8).cdf).pvalue > ALPHA


# ----- server side, keyed declarations ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_frequencies_are_unbiased_on_a_population(name):
    m = make(name, eps=1.0, k=6)
    truth = np.array([0.4, 0.25, 0.15, 0.1, 0.1, 0.0])
    x = np.repeat(np.arange(6), (truth * 30_000).astype(int))
    estimate = m.frequencies(m.perturb(x, np.random.default_rng(6)))
    sd = np.sqrt((truth[:, None] * m.estimate_var(np.arange(6))).sum(0) / x.size)
    assert np.all(np.abs(estimate - truth) <= stats.norm.isf(ALPHA / 12) * sd)


def test_keyed_declarations():
    rng = np.random.default_rng(8)
    for name in NAMES:
        m = make(name, eps=1.0, k=5)
        reports = m.perturb(np.array([0, 1, 2, 3]), rng)
        if name == "she":
            assert m.supports is None
        else:
            support = m.supports(reports, 3)
            assert support.dtype == bool and support.shape == (4,)
            with pytest.raises(ValueError, match="item"):
                m.supports(reports, 5)
        if name in ("olh", "blh", "rappor"):
            assert m.key(reports).dtype == np.int64 and m.key(reports).shape == (4,)
        else:
            assert m.key is None
    rappor = make("rappor", eps=1.0, k=5, cohorts=4)
    reports = rappor.perturb(np.zeros(100), rng)
    assert set(rappor.key(reports)) <= set(range(4))


# ----- verify: every oracle passes; mutants fail ------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_verify_passes_every_oracle(name):
    report = verify(make(name, eps=1.0, k=5), SETTINGS)
    assert report.passed, [(r.name, r.explanation) for r in report.failures()]
    rows = _statuses(report)
    assert {"privacy.whitebox", "privacy.blackbox", "moments.mean"} <= set(rows)
    assert name == "she" or "law.mass" in rows
    white = next(r for r in report.results if r.name == "privacy.whitebox")
    # the law spends the budget exactly, except THE (thresholding gives some of it back)
    assert white.statistic == pytest.approx(1.0, rel=1e-9) or (name == "the" and 0.8 < white.statistic < 1.0)


def test_law_ceiling_of_an_enumerated_law():
    for name in ("sue", "hr", "ss", "rappor", "olh"):
        top = law_ceiling(make(name, eps=1.0, k=5), 1_000_000, 1e-4)
        assert 0.9 < top < 1.0, (name, top)
    assert math.isnan(law_ceiling(make("she", eps=1.0, k=5), 1_000_000, 1e-4))


def test_compare_reads_coordinate_0_of_an_oracle_estimate():
    oracles = [make(name, eps=1.0, k=5) for name in ("sue", "olh", "rappor")]
    report = variance_report(oracles, [0.0, 3.0], 20_000, 9, 1e-3)
    assert report.passed and len(report.results) == 9
    wrong = variance_report([RapporTimesTwoVariance(1.0, 5)], None, 20_000, 9, 1e-3)
    assert not wrong.passed


@dataclasses.dataclass(frozen=True)
class RapporTimesTwoVariance(Rappor):
    def estimate_var(self, x):
        return 2.0 * super().estimate_var(x)


@pytest.mark.parametrize("name", ["sue", "oue", "the", "ss", "hr", "rappor"])
def test_estimator_formulas_agree_with_the_law_exactly(name):
    """The estimate's mean and variance for item x (= x1) and an item v != x (= x0), summed over the law's classes,
    equal ``estimate_mean`` / ``estimate_var`` (Wang et al. 2017, Eqs. (1)-(2)) to float precision. (Local hashing's
    classes stand for the seed space by a seed sample, exact for likelihood ratios, not for means over seeds.)"""
    m = make(name, eps=1.3, k=5)
    x, v = 1, 3
    mean, second = np.zeros(2), np.zeros(2)
    for values, log_counts in m.law_classes(x, v):
        probs = np.exp(m.report_loglik(values, x) + log_counts)
        est = m.estimate(values)[:, [x, v]]
        mean += probs @ est
        second += probs @ est**2
    formula_mean, formula_var = m.estimate_mean(x)[[x, v]], m.estimate_var(x)[[x, v]]
    assert np.allclose(mean, formula_mean, rtol=0, atol=1e-9 * np.sqrt(formula_var).max())
    assert np.allclose(second - mean**2, formula_var, rtol=1e-9, atol=0)
