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
from scipy import sparse

from .result import CheckResult, Status
from .sampling import Plan, Stream, rng_for, run_plan
from .stats import Moments, bonferroni_reject, mean_z, variance_z, z_critical

#: Coordinates of a high-dimensional report whose moments are tested (all of them up to this many).
MAX_COORDINATES = 16
#: Reports drawn to tell whether a mechanism without a law reports two values only.
TWO_POINT_PILOT = 2000


def probe_vector(mechanism) -> np.ndarray:
    """One user's input with a different value in every coordinate, spanning the domain ends."""
    lo, hi = mechanism.domain
    return np.linspace(lo, hi, mechanism.d)


class _MomentReducer:
    """Picklable chunk reducer: power sums of each claimed quantity (raw report, estimate) of input x, and the
    product of two estimate coordinates of a sampled mechanism."""

    def __init__(self, mechanism, x, quantities: dict[str, tuple[bool, bool]], covariance: bool):
        self.mechanism, self.x, self.quantities, self.covariance = mechanism, x, quantities, covariance

    def __call__(self, size, rng):
        m = self.mechanism
        reports = m.sample(self.x, size, rng)
        x = _tested(m, self.x)
        parts = []
        for quantity, (claims_mean, _) in self.quantities.items():
            values = _as_array(reports if quantity == "report" else m.estimate(reports))
            values = values[:, :MAX_COORDINATES] if values.ndim > 1 else values
            # centred at the claimed mean where there is one (accurate float sums); every chunk must use the same
            # centre, since their power sums are added
            center = _claimed(m, quantity, "mean", x) if claims_mean else 0.0
            parts.append(Moments.of(values, center))
        if self.covariance:
            estimates = _as_array(m.estimate(reports))
            centred = estimates[:, :2] - m.estimate_mean(x[:2])
            parts.append(Moments.of(centred[:, 0] * centred[:, 1], 0.0))
        return _Sum(parts)


def _as_array(values) -> np.ndarray:
    return np.asarray(values.toarray() if sparse.issparse(values) else values, dtype=np.float64)


def _tested(mechanism, x):
    """The tested part of input x: its first MAX_COORDINATES coordinates for a sampled mechanism."""
    return x[:MAX_COORDINATES] if mechanism.sampling is not None else x


def _claimed(mechanism, quantity: str, moment: str, x):
    """The claimed mean or variance of the raw report or of the estimate at x (of its first MAX_COORDINATES
    coordinates when a one-dimensional input has a vector report, e.g. unary encoding)."""
    formulas = {("report", "mean"): mechanism.report_mean, ("report", "variance"): mechanism.report_var,
                ("estimate", "mean"): mechanism.estimate_mean, ("estimate", "variance"): mechanism.estimate_var}
    value = formulas[quantity, moment](x)
    return value[:MAX_COORDINATES] if mechanism.sampling is None and np.ndim(value) else value


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


def _two_point(mechanism, x, seed: int) -> bool:
    """Whether the report (or, when claimed, its estimate) at x takes at most two values (from the law, else from
    a small seeded pilot): a frequency oracle's many-valued report can have a two-valued estimate per item."""
    if mechanism.has_law:
        law = mechanism.law(float(x))
        return law.continuous_mass == 0 and len(law.atoms[0]) <= 2
    reports = mechanism.sample(x, TWO_POINT_PILOT, rng_for(seed, 190))
    seen = [reports] + ([mechanism.estimate(reports)] if "estimate" in dict(mechanism.moment_claims) else [])
    return any(np.unique(_as_array(values)).size <= 2 for values in seen)


def moment_checks(mechanism, n: int, seed: int, alpha: float, workers: int = 1,
                  progress: Callable[[int], None] | None = None, stream_base: int = 100) -> list[CheckResult]:
    """:func:`moment_plan`, run on its own."""
    return run_plan(moment_plan(mechanism, n, seed, alpha, stream_base), workers, progress)


def moment_plan(mechanism, n: int, seed: int, alpha: float, stream_base: int = 100) -> Plan:
    """Mean, variance (and covariance) z-tests of every claimed quantity (``mechanism.moment_claims``: the raw
    report and/or the server estimate, each with the moments it claims) against the formulas: a sampling plan
    (``sampling.Plan``, one stream per input) returning the rows."""
    claims = {q: moments for q, moments in dict(mechanism.moment_claims).items() if any(moments)}
    if not claims:
        return []
    quantities = tuple(sorted(claims, key=lambda q: q != "estimate"))
    sampled = mechanism.sampling is not None
    if sampled:
        inputs = [probe_vector(mechanism)]
        names = [f"coordinate {j} (x={v:.3g})" for j, v in enumerate(inputs[0][:MAX_COORDINATES])]
        points = list(inputs[0][:MAX_COORDINATES])
    else:
        inputs = list(mechanism.audit_inputs)
        names = [f"x={v:.3g}" for v in inputs]
        points = inputs
    covariance = sampled and mechanism.d > 1 and "estimate" in claims
    ordered = {q: claims[q] for q in quantities}
    totals = yield [Stream(_MomentReducer(mechanism, x, ordered, covariance), n, seed, stream_base + i)
                    for i, x in enumerate(inputs)]
    sums = [total.parts for total in totals]
    two_point = np.array([_two_point(mechanism, v, seed) for v in points])
    z = {"mean": [], "variance": []}
    p = {"mean": [], "variance": []}
    labels = {"mean": [], "variance": []}
    prefix = {"estimate": "estimate " if len(quantities) > 1 else "", "report": "raw report "}
    for j, quantity in enumerate(quantities):
        claims_mean, claims_var = claims[quantity]
        for i, (x, parts) in enumerate(zip(inputs, sums)):
            moments, tx = parts[j], _tested(mechanism, x)
            at = names if sampled else [names[i]]
            width = np.atleast_1d(moments.s1).size
            if width != len(at):  # a vector report of a one-dimensional input: one test per coordinate
                at = [f"{names[i]}, coordinate {j}" for j in range(width)]
            # a two-point report's variance is fixed by its mean and its sample variance is far from normal
            # (kurtosis 1 at the symmetric point): the variance test is left to the mean test there
            keep = ~two_point if sampled else np.repeat(~two_point[i:i + 1], width)
            if claims_mean:
                expected = _claimed(mechanism, quantity, "mean", tx)
                zz, pp = mean_z(moments, expected, expected)
                z["mean"].append(np.atleast_1d(zz))
                p["mean"].append(np.atleast_1d(pp))
                labels["mean"] += [prefix[quantity] + name for name in at]
            if claims_var:
                zz, pp = variance_z(moments, _claimed(mechanism, quantity, "variance", tx))
                z["variance"].append(np.atleast_1d(zz)[keep])
                p["variance"].append(np.atleast_1d(pp)[keep])
                labels["variance"] += [prefix[quantity] + name for name, k in zip(at, keep) if k]
    families = (1 if z["mean"] else 0) + (1 if any(claims[q][1] for q in quantities) else 0) + (1 if covariance else 0)
    share = alpha / families
    ref = mechanism.reference
    results = []
    if z["mean"]:
        zm, pm = np.concatenate(z["mean"]), np.concatenate(p["mean"])
        results.append(_family("moments.mean", f"{ref}: mean formula", zm, pm, share, zm.size, n, seed,
                               "sample mean", labels["mean"]))
    if any(claims[q][1] for q in quantities):
        zv = np.concatenate(z["variance"]) if z["variance"] else np.empty(0)
        pv = np.concatenate(p["variance"]) if p["variance"] else np.empty(0)
        results.append(
            _family("moments.variance", f"{ref}: variance formula", zv, pv, share, zv.size, n, seed,
                    "sample variance", labels["variance"]) if zv.size else
            CheckResult("moments.variance", f"{ref}: variance formula", Status.INFO, explanation=(
                "not tested separately: every report takes two values, so its variance is fixed by its mean")))
    if covariance:
        x = inputs[0]
        product = sums[0][-1]
        theory = float(mechanism.estimate_cov(x[0], x[1]))
        zc, pc = mean_z(product, 0.0, theory)
        results.append(_family("moments.covariance", f"{ref}: covariance of two coordinates (lpgnn E6)",
                               zc, pc, share, 1, n, seed, f"Cov[x'_0, x'_1] (theory {theory:.4g})",
                               ["coordinates 0 and 1"]))
    return results
