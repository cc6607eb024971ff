"""Moment audits: Monte Carlo means, variances and covariances against the papers' (corrected) formulas.

For each input the sample mean of the server estimate is z-tested against ``estimate_mean`` and its sample
variance against ``estimate_var`` with the fourth-moment standard error (ldp-ge §5.0); the raw report is
tested against ``report_mean`` / ``report_var`` too when it differs from the estimate (e.g. the one-bit
report before rectification). For sampled mechanisms one report carries d coordinates with d different
inputs, and the covariance of two coordinates is tested against ``estimate_cov`` (lpgnn E6, ppgnn C7).
Bonferroni splits the false-alarm rate over every z-test of a family.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .privacy import is_sampled
from .result import CheckResult, Status
from .sampling import map_reduce
from .stats import Moments, bonferroni_reject, mean_z, variance_z, z_critical

#: Coordinates of a high-dimensional report whose moments are tested (all of them up to this many).
MAX_COORDINATES = 16


def probe_vector(mechanism) -> np.ndarray:
    """One user's input with a different value in every coordinate, spanning the domain ends."""
    lo, hi = mechanism.domain
    return np.linspace(lo, hi, mechanism.d)


class _MomentReducer:
    """Picklable chunk reducer returning power sums of estimates, raw reports and a coordinate product."""

    def __init__(self, mechanism, x, with_report: bool):
        self.mechanism, self.x, self.with_report = mechanism, x, with_report

    def __call__(self, size, rng):
        m = self.mechanism
        if is_sampled(m):
            reports = m.perturb(np.broadcast_to(self.x, (size, m.d)), rng)[:, :MAX_COORDINATES]
            estimates = m.estimate(reports)
        else:
            reports = m.perturb(np.full(size, self.x), rng)
            estimates = m.estimate(reports)
        x = self.x[:MAX_COORDINATES] if is_sampled(m) else self.x
        parts = [Moments.of(estimates, m.estimate_mean(x))]
        if self.with_report:
            parts.append(Moments.of(reports, m.report_mean(x)))
        if is_sampled(m) and m.d > 1:
            centred = estimates[:, :2] - m.estimate_mean(x[:2])
            parts.append(Moments.of(centred[:, 0] * centred[:, 1], 0.0))
        return _Sum(parts)


class _Sum:
    def __init__(self, parts):
        self.parts = parts

    def __add__(self, other):
        return _Sum([a + b for a, b in zip(self.parts, other.parts)])


def _family(name, claim, zs, ps, alpha, tests, n, seed, what, labels) -> CheckResult:
    zs, ps = np.atleast_1d(zs), np.atleast_1d(ps)
    worst = int(np.argmax(np.abs(zs)))
    critical = z_critical(alpha, tests)  # the same decision as Bonferroni on the p-values, shown as a z bound
    failed = bool(bonferroni_reject(ps, alpha).any())
    return CheckResult(
        name, claim, Status.FAIL if failed else Status.PASS, float(zs[worst]), "z (largest |z|)",
        p_value=float(np.min(ps)), threshold=critical, n=n, seed=seed, alpha=alpha,
        explanation=(f"{what} at {labels[worst]}: z = {zs[worst]:+.2f}"
                     + (f" exceeds the Bonferroni bound {critical:.2f} over {tests} tests" if failed
                        else f" within +-{critical:.2f} ({tests} tests)")),
        details={"z": [float(z) for z in zs]})


def _not_two_point(mechanism, x) -> bool:
    if not hasattr(mechanism, "law"):
        return True
    law = mechanism.law(float(x))
    return law.continuous_mass > 0 or len(law.atoms[0]) > 2


def moment_checks(mechanism, n: int, seed: int, alpha: float, workers: int = 1,
                  progress: Callable[[int], None] | None = None, stream_base: int = 100) -> list[CheckResult]:
    """Mean, variance (and covariance) z-tests of estimates and raw reports against the closed forms."""
    with_report = not (mechanism.estimate_scale == 1.0 and mechanism.estimate_shift == 0.0)
    if is_sampled(mechanism):
        inputs = [probe_vector(mechanism)]
        labels = [f"coordinate {j} (x={v:.3g})" for j, v in enumerate(inputs[0][:MAX_COORDINATES])]
    else:
        inputs = list(mechanism.audit_inputs)
        labels = [f"x={v:.3g}" for v in inputs]
    sums = [map_reduce(_MomentReducer(mechanism, x, with_report), n, seed, stream_base + i, workers, progress).parts
            for i, x in enumerate(inputs)]
    expected = [(mechanism.estimate_mean(x[:MAX_COORDINATES] if is_sampled(mechanism) else x),
                 mechanism.estimate_var(x[:MAX_COORDINATES] if is_sampled(mechanism) else x)) for x in inputs]
    est = [s[0] for s in sums]
    z_mean = np.concatenate([np.atleast_1d(mean_z(m, e[0], e[0])[0]) for m, e in zip(est, expected)])
    p_mean = np.concatenate([np.atleast_1d(mean_z(m, e[0], e[0])[1]) for m, e in zip(est, expected)])
    z_var = np.concatenate([np.atleast_1d(variance_z(m, e[1])[0]) for m, e in zip(est, expected)])
    p_var = np.concatenate([np.atleast_1d(variance_z(m, e[1])[1]) for m, e in zip(est, expected)])
    if with_report:
        rep = [s[1] for s in sums]
        rep_expected = [(mechanism.report_mean(x[:MAX_COORDINATES] if is_sampled(mechanism) else x),
                         mechanism.report_var(x[:MAX_COORDINATES] if is_sampled(mechanism) else x)) for x in inputs]
        z_mean = np.concatenate([z_mean] + [np.atleast_1d(mean_z(m, e[0], e[0])[0]) for m, e in zip(rep, rep_expected)])
        p_mean = np.concatenate([p_mean] + [np.atleast_1d(mean_z(m, e[0], e[0])[1]) for m, e in zip(rep, rep_expected)])
        z_var = np.concatenate([z_var] + [np.atleast_1d(variance_z(m, e[1])[0]) for m, e in zip(rep, rep_expected)])
        p_var = np.concatenate([p_var] + [np.atleast_1d(variance_z(m, e[1])[1]) for m, e in zip(rep, rep_expected)])
        labels = [f"estimate {label}" for label in labels] + [f"raw report {label}" for label in labels]
    # A two-point law's variance is a function of its mean, and its sample variance is far from normal
    # (kurtosis 1 at the symmetric point), so the variance test is left to the mean test there.
    testable = np.array([_not_two_point(mechanism, x) for x in
                         (inputs[0][:MAX_COORDINATES] if is_sampled(mechanism) else inputs)] * (2 if with_report else 1))
    covariance = is_sampled(mechanism) and mechanism.d > 1
    families = 3 if covariance else 2
    share = alpha / families
    ref = mechanism.reference
    results = [
        _family("moments.mean", f"{ref}: mean formula", z_mean, p_mean, share, z_mean.size, n, seed,
                "sample mean", labels),
        _family("moments.variance", f"{ref}: variance formula", z_var[testable], p_var[testable], share,
                int(testable.sum()), n, seed, "sample variance", [lab for lab, t in zip(labels, testable) if t])
        if testable.any() else
        CheckResult("moments.variance", f"{ref}: variance formula", Status.INFO, explanation=(
            "not tested separately: every report takes two values, so its variance is fixed by its mean")),
    ]
    if covariance:
        x = inputs[0]
        product = sums[0][-1]
        theory = float(mechanism.estimate_cov(x[0], x[1]))
        z, p = mean_z(product, 0.0, theory)
        results.append(_family("moments.covariance", f"{ref}: covariance of two coordinates (lpgnn E6)",
                               z, p, share, 1, n, seed, f"Cov[x'_0, x'_1] (theory {theory:.4g})",
                               ["coordinates 0 and 1"]))
    return results
