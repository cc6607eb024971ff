"""Statistical building blocks of the audits, from statsmodels and scipy rather than hand-written formulas.

Conventions (ldp-ge §5.0, ppgnn §3): every check gets a family-wise false-alarm rate and splits it over its
sub-tests with Bonferroni; mean tests are z-tests; variance tests use the empirical fourth central moment;
probability ratios use Clopper-Pearson intervals.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

#: Relative slack when a computed log ratio (exact, or a confidence bound) is compared with a claimed one:
#: floating-point round-off only, far below any real excess.
RATIO_RTOL = 1e-9


def clopper_pearson(count, n, alpha: float):
    """Two-sided exact (Clopper-Pearson) interval at level 1 - alpha for ``count`` successes out of ``n``: the
    alpha/2 and 1 - alpha/2 quantiles of Beta(count, n - count + 1) and Beta(count + 1, n - count), with the
    closed ends 0 at count = 0 and 1 at count = n. Scalar counts give a pair of floats, arrays a pair of arrays."""
    count, n = np.asarray(count), np.asarray(n)
    low, high = proportion_confint(count, n, alpha=alpha, method="beta")
    low = np.where(count == 0, 0.0, low).astype(float)
    high = np.where(count == n, 1.0, high).astype(float)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def one_sided_bounds(count, n, alpha: float):
    """(lower, upper) one-sided Clopper-Pearson bounds, each holding with probability >= 1 - alpha (floats for
    scalar counts, arrays for arrays)."""
    return clopper_pearson(count, n, 2.0 * alpha)


def binomial_two_sided_p(count: int, n: int, p: float) -> float:
    """Exact two-sided p-value of ``count`` successes in n Bernoulli(p) draws: twice the smaller tail, capped at 1
    (the equal-tailed test that Clopper-Pearson intervals invert). scipy's binomial tails stay finite where
    ``binomtest``'s search over the pmf overflows (p ~ 1e-300, a frequency oracle's estimate at eps = 700)."""
    return float(min(1.0, 2.0 * min(stats.binom.cdf(count, n, p), stats.binom.sf(count - 1, n, p))))


def bonferroni_reject(p_values, alpha: float) -> np.ndarray:
    """Which hypotheses a Bonferroni correction rejects at family-wise rate alpha (statsmodels' multipletests)."""
    p = np.atleast_1d(np.asarray(p_values, dtype=float))
    if p.size == 0:
        return np.zeros(0, dtype=bool)
    return multipletests(p, alpha=alpha, method="bonferroni")[0]


@dataclass(frozen=True)
class Moments:
    """Sufficient statistics of a sample: count and the first four power sums, mergeable across chunks."""

    n: int
    s1: np.ndarray
    s2: np.ndarray
    s3: np.ndarray
    s4: np.ndarray

    @classmethod
    def of(cls, values: np.ndarray, center) -> "Moments":
        """Power sums of ``values - center`` along axis 0 (centering near the mean keeps float sums accurate)."""
        v = np.asarray(values, dtype=np.float64) - center
        v2 = v * v
        return cls(v.shape[0], v.sum(0), v2.sum(0), (v2 * v).sum(0), (v2 * v2).sum(0))

    def __add__(self, other: "Moments") -> "Moments":
        return Moments(self.n + other.n, self.s1 + other.s1, self.s2 + other.s2, self.s3 + other.s3, self.s4 + other.s4)

    def mean_offset(self):
        return self.s1 / self.n

    def central(self):
        """(variance with divisor n, fourth central moment) of the sample."""
        m1 = self.s1 / self.n
        m2, m3, m4 = self.s2 / self.n, self.s3 / self.n, self.s4 / self.n
        var = m2 - m1 * m1
        fourth = m4 - 4 * m1 * m3 + 6 * m1 * m1 * m2 - 3 * m1**4
        return var, fourth


def mean_z(moments: Moments, center, expected) -> tuple[np.ndarray, np.ndarray]:
    """z = (mean - expected) / (s / sqrt(n)) and its two-sided p-value (normal approximation)."""
    var, _ = moments.central()
    mean = center + moments.mean_offset()
    se = np.sqrt(np.maximum(var, 1e-300) / moments.n)
    z = (mean - expected) / se
    return z, 2.0 * stats.norm.sf(np.abs(z))


def variance_z(moments: Moments, expected_var) -> tuple[np.ndarray, np.ndarray]:
    """z = (s^2 - sigma^2) / sqrt((m4 - s^4) / n), the large-sample variance test (ldp-ge §5.0)."""
    var, fourth = moments.central()
    n = moments.n
    sample_var = var * n / (n - 1)
    se = np.sqrt(np.maximum(fourth - var * var, 1e-300) / n)
    z = (sample_var - expected_var) / se
    return z, 2.0 * stats.norm.sf(np.abs(z))


#: A z-test of the mean of n draws is trusted when n >= NORMAL_MIN_FACTOR * skewness^2 of one draw: the skewness of
#: the mean is then <= 0.1, where the first Edgeworth term cancels in a two-sided test and the second moves a tail
#: of ~1e-5 by a few per cent. Cochran's rule (n > 25 skewness^2, Sampling Techniques, 1977) is the 95 % version.
NORMAL_MIN_FACTOR = 100.0


def normal_approximation_holds(n: int, skewness: float) -> bool:
    """Whether the mean of n draws of a law with this skewness may be z-tested (see ``NORMAL_MIN_FACTOR``)."""
    return math.isfinite(skewness) and n >= NORMAL_MIN_FACTOR * skewness * skewness


def bennett_p_value(deviation: float, n: int, variance: float, up: float, down: float, tolerance: float = 0.0) -> float:
    """Two-sided p-value of a sample mean's ``deviation`` from its expectation, from Bennett's inequality
    (Bennett 1962, Eq. 8b): for n independent draws with variance sigma^2 and X - mu <= up,
    P(mean - mu >= t) <= exp(-n (sigma^2/up^2) h(up t / sigma^2)), h(u) = (1 + u) log(1 + u) - u (``down`` bounds
    mu - X for the other tail). A bound, not an approximation: valid at any n however skewed the law (a rare atom,
    a narrow window), which is where the z-test is not. The p-value doubles the bound of the observed side, so each
    side's rejection region has probability <= alpha/2. ``tolerance`` is float rounding of the mean, not evidence.
    """
    t = abs(deviation) - tolerance
    if not t > 0.0:
        return 1.0
    bound = up if deviation > 0 else down
    if bound <= 0.0:
        return 0.0  # a deviation to a side where the law has no room: impossible under the claim
    v, a = max(variance, 0.0) / (bound * bound), t / bound
    if v == 0.0:
        return 0.0
    exponent = n * ((v + a) * math.log1p(a / v) - a)
    return float(min(1.0, 2.0 * math.exp(-exponent)))


def cantelli_p_value(deviation: float, n: int, variance: float, tolerance: float = 0.0) -> float:
    """Two-sided p-value of a sample mean's ``deviation`` from Cantelli's inequality, P(mean - mu >= t) <=
    sigma^2 / (sigma^2 + n t^2): valid for any law with a finite variance, bounded or not (a heavy-tailed summand
    such as the square of a Laplace deviation), at the price of power. The observed side's bound is doubled."""
    t = abs(deviation) - tolerance
    if not t > 0.0:
        return 1.0
    variance = max(variance, 0.0)
    return float(min(1.0, 2.0 * variance / (variance + n * t * t))) if variance > 0 else 0.0


def equivalent_z(p_value: float, sign: float) -> float:
    """The normal deviate with the same two-sided p-value (for showing an exact test's result on the z scale)."""
    return float(math.copysign(stats.norm.isf(max(p_value, 1e-300) / 2.0), sign))


def z_critical(alpha: float, tests: int = 1) -> float:
    """Two-sided Bonferroni critical value Phi^-1(1 - alpha / (2 tests))."""
    return float(stats.norm.isf(alpha / (2.0 * tests)))


def ratio_lower_bound(count1, count0, n1, n0, alpha: float, delta: float = 0.0):
    """ln((CP_low(p1) - delta) / CP_high(p0)) with each one-sided bound at level alpha/2: a lower bound on the
    epsilon an event certifies, holding with probability >= 1 - alpha (-inf when nothing is certified).
    Vectorised over arrays of counts; returns a float for scalar counts."""
    low1, _ = one_sided_bounds(count1, n1, alpha / 2.0)
    _, high0 = one_sided_bounds(count0, n0, alpha / 2.0)
    numerator = np.asarray(low1, dtype=float) - delta
    with np.errstate(divide="ignore"):
        bound = np.where(numerator > 0.0, np.log(np.maximum(numerator, 1e-300) / high0), -np.inf)
    return float(bound) if bound.ndim == 0 else bound


def ratio_upper_bound(count1, count0, n1, n0, alpha: float) -> float:
    """ln(CP_high(p1) / CP_low(p0)) with one-sided bounds at alpha/2: an upper bound on the event's log ratio."""
    _, high1 = one_sided_bounds(count1, n1, alpha / 2.0)
    low0, _ = one_sided_bounds(count0, n0, alpha / 2.0)
    if float(low0) <= 0.0:
        return math.inf
    return math.log(float(high1) / float(low0))


def expected_ratio_lower_bound(p1, p0, n: int, alpha: float, delta: float = 0.0):
    """The lower bound ``ratio_lower_bound`` would give if the counts came out at their expectations.

    Used to choose input pairs and events from the exact law before any sample is drawn (no data snooping).
    """
    return ratio_lower_bound(np.round(np.asarray(p1) * n), np.round(np.asarray(p0) * n), n, n, alpha, delta)


#: Resamples of :func:`paired_mean_ci`'s percentile bootstrap.
PAIRED_RESAMPLES = 1000


def paired_mean_ci(diff, alpha: float, seed: int, *key: int) -> tuple[float, float]:
    """(1 - alpha) percentile bootstrap CI (:data:`PAIRED_RESAMPLES` resamples, scipy) of the mean of paired
    differences ``diff`` (runs paired by seed), drawing from the stream ``rng_for(seed, *key)`` (with no key, the
    generator of ``default_rng(seed)``); a degenerate sample (one value, or all equal) gives its mean at both
    ends."""
    from ...seeding import rng_for

    diff = np.asarray(diff, dtype=float)
    if diff.size < 2 or np.ptp(diff) == 0:
        mean = float(diff.mean()) if diff.size else float("nan")
        return mean, mean
    ci = stats.bootstrap((diff,), np.mean, confidence_level=1 - alpha, n_resamples=PAIRED_RESAMPLES,
                         method="percentile", random_state=rng_for(seed, *key)).confidence_interval
    return float(ci.low), float(ci.high)


def runs_needed(effect: float, sd: float, alpha: float, power: float = 0.9) -> int:
    """Runs per arm for a one-sided two-sample t-test to detect ``effect`` (with spread ``sd``) at ``alpha``
    with probability ``power`` (statsmodels' TTestIndPower; never fewer than 2)."""
    from statsmodels.stats.power import TTestIndPower

    return max(2, int(math.ceil(TTestIndPower().solve_power(effect_size=effect / sd, alpha=alpha, power=power,
                                                             alternative="larger"))))
