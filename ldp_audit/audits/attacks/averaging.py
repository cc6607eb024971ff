"""Averaging and differencing attacks on repeated queries (lpgnn Cor. 3.7 and C11 iii-iv).

A server that may ask a user again should get the stored report back (memoisation). Averaging R answers of a
memoised user gives the one report again: the attacker's accuracy on a binary whole-vector secret stays that
of one report, under e^eps/(1+e^eps). Without memoisation the R encodings are independent, the variance of their
mean is Var/R and the secret is recovered as R grows: that mutant FAILs. Differencing two sum aggregates that
differ by one user returns that user's report exactly (Fig. 3): no more than the user's own report.
"""
from __future__ import annotations

import numpy as np

from ... import streams
from ...models.reports import query_reports
from ..kernel.result import CheckResult, Status
from ..kernel.sampling import rng_for
from .bayes import attack_row, count_correct, ldp_ceiling, map_guess

CLAIM = "lpgnn Cor. 3.7 (post-processing), C11: repeated queries gain nothing when reports are memoised"


def averaging_attack(mechanism, *, queries: int = 16, memoise: bool = True, samples: int = 50_000, seed: int = 0,
                     alpha: float = 1e-3) -> list[CheckResult]:
    """R = ``queries`` answers per user, averaged by the server, then the sign of the mean estimate decides the
    whole-vector secret x in {lo 1, hi 1}. Rows: the attack against the ceiling of the mechanism's eps, the
    variance ratio Var[mean of R] / Var[one] (1 memoised, 1/R otherwise), and the differencing identity."""
    if not (isinstance(samples, int) and samples >= 1000):
        raise ValueError(f"samples must be an integer >= 1000, got {samples!r}")
    if not (isinstance(queries, int) and queries >= 2):
        raise ValueError(f"queries must be an integer >= 2, got {queries!r}")
    lo, hi = (float(v) for v in mechanism.domain)
    middle = 0.5 * (lo + hi)

    def batch(size, rng):
        """(correct guesses, sum and sum of squares of the first coordinate's error: one report, mean of R)."""
        bits = rng.integers(0, 2, size=size)
        x = np.repeat(np.where(bits == 1, hi, lo)[:, None], mechanism.d, axis=1)
        reports = query_reports(mechanism, x, queries, rng, memoise)
        estimates = np.asarray(mechanism.estimate(reports.reshape(-1, mechanism.d))).reshape(reports.shape)
        average = estimates.mean(axis=0).mean(axis=1)
        guess = map_guess(np.stack([middle - average, average - middle], axis=1), rng)
        one, mean_r = estimates[0, :, 0] - x[:, 0], estimates[:, :, 0].mean(axis=0) - x[:, 0]
        return np.array([np.sum(guess == bits), one.sum(), (one ** 2).sum(), mean_r.sum(), (mean_r ** 2).sum()])

    tally = count_correct(batch, samples, queries * mechanism.d, seed, streams.AVERAGING_TALLY.key())
    correct = int(tally[0])
    ceiling = ldp_ceiling(mechanism.eps, 2, float(getattr(mechanism, "delta", 0.0)))
    label = f"{mechanism.name} {mechanism.params()}, {queries} queries, memoise={memoise}"
    rows = [attack_row("attack.averaging", CLAIM, correct, samples, ceiling, alpha, seed,
                       f"{label}: sign of the averaged estimate")]
    var_one = tally[2] / samples - (tally[1] / samples) ** 2
    var_mean = tally[4] / samples - (tally[3] / samples) ** 2
    ratio = float(var_mean / var_one)
    rows.append(CheckResult("attack.averaging.variance", "lpgnn C11 iii: Var[mean of R re-encodings] = Var/R",
                            Status.INFO, ratio, "Var[mean of R]/Var[one]", threshold=1.0 if memoise else 1.0 / queries,
                            n=samples, seed=seed, explanation=f"{label}: variance of the averaged first coordinate "
                            f"is {ratio:.3f} of one report's (1 when memoised, 1/R = {1 / queries:.3f} otherwise)"))
    x = np.repeat(np.array([[hi], [lo], [hi]]), mechanism.d, axis=1)
    estimates = np.asarray(mechanism.estimate(query_reports(mechanism, x, 1, rng_for(seed, *streams.AVERAGING_QUERIES.key()), memoise)[0]))
    # differencing (Fig. 3): AGG(B, C, D) - AGG(C, D) with the sum aggregator
    b, c, d = estimates
    difference = (b + c + d) - (c + d)
    exact_gap = float(np.max(np.abs(difference - b)))
    raw_gap = float(np.max(np.abs(difference - x[0])))
    holds = exact_gap <= 1e-9 * max(1.0, float(np.max(np.abs(b))))
    rows.append(CheckResult("attack.differencing", "lpgnn C11 iv (Fig. 3): differencing returns the user's report, "
                            "not x", Status.PASS if holds else Status.FAIL, exact_gap, "max|diff - report_B|",
                            threshold=1e-9, explanation=f"{label}: AGG(B,C,D) - AGG(C,D) equals B's report to "
                            f"{exact_gap:.1e} and differs from x_B by up to {raw_gap:.3g}: the attacker learns "
                            "exactly B's own report, which the LDP bound covers"))
    return rows
