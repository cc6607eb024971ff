"""Moment audits: Monte Carlo means, variances and covariances against the papers' (corrected) formulas.

For each input the sample mean of the server estimate is z-tested against ``estimate_mean`` and its sample
variance against ``estimate_var`` with the fourth-moment standard error (ldp-ge §5.0); the raw report is
tested against ``report_mean`` / ``report_var`` too when it differs from the estimate (e.g. the one-bit
report before rectification). For sampled mechanisms one report carries d coordinates with d different
inputs, and the covariance of two coordinates is tested against ``estimate_cov`` (lpgnn E6, ppgnn C7).
Bonferroni splits the false-alarm rate over every test of a family.

A quantity that takes two values a < b (a one-bit report, a frequency oracle's per-item estimate) has its mean and
variance fixed by the frequency of b: both claims get an exact binomial test on that frequency
(``two_point_mean_p``, ``two_point_variance_p``) instead of the z-tests, which degenerate there (a rare b at large
eps; a sample variance of kurtosis 1).

Where the tested quantity's exact law is known but too skewed for a z-test at this n
(``stats.normal_approximation_holds``: a rare atom such as the one-bit report's minority value at large eps, a
Square Wave or Piecewise window holding nearly all the mass), the mean and variance tests use Bennett's
inequality with the law's variance and range instead (``stats.bennett_p_value``; Cantelli's inequality for an
unbounded law, e.g. the squared deviation of a Laplace report at n = 1000): a bound valid at every n, shown on the
z scale. The covariance of two coordinates falls back to Bennett's bound too where either coordinate's law is too
skewed, with Var[product] bounded by Cauchy-Schwarz from the two fourth moments. A z-test there is driven by
whether the rare part happened to be drawn (issue 22: the one-bit estimate at eps = 10 gave z = -2.9e147 from a
sample variance of 0).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import sparse

from ... import streams
from ...mechanisms.base import Mechanism
from ..kernel.result import CheckResult, Status
from ..kernel.sampling import Announce, Draws, Plan, rng_for
from ..kernel.stats import (Moments, bennett_p_value, binomial_two_sided_p, bonferroni_reject, cantelli_p_value, equivalent_z,
                            mean_z, normal_approximation_holds, variance_z, z_critical)

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
        for quantity, (claims_mean, claims_var) in self.quantities.items():
            values = _as_array(reports if quantity == "report" else m.estimate(reports))
            values = values[:, :MAX_COORDINATES] if values.ndim > 1 else values
            if claims_var:
                _fitting(m, quantity, "variance", x, values)
            # centred at the claimed mean where there is one (accurate float sums); every chunk must use the same
            # centre, since their power sums are added
            center = _fitting(m, quantity, "mean", x, values) if claims_mean else 0.0
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


#: The mechanism's method that claims each (quantity, moment).
_CLAIMS = {("report", "mean"): "report_mean", ("report", "variance"): "report_var",
           ("estimate", "mean"): "estimate_mean", ("estimate", "variance"): "estimate_var"}


def _claimed(mechanism, quantity: str, moment: str, x):
    """The claimed mean or variance of the raw report or of the estimate at x (of its first MAX_COORDINATES
    coordinates when a one-dimensional input has a vector report, e.g. unary encoding)."""
    value = getattr(mechanism, _CLAIMS[quantity, moment])(x)
    return value[:MAX_COORDINATES] if mechanism.sampling is None and np.ndim(value) else value


def _fitting(mechanism, quantity: str, moment: str, x, values: np.ndarray):
    """The claimed ``moment`` of ``quantity`` at x, refused (ValueError) unless it is one number, or one per
    coordinate of the (n, w) ``values`` it describes: a claim of another shape cannot be compared with them."""
    claim = _claimed(mechanism, quantity, moment, x)
    if np.ndim(claim) and np.shape(claim) != values.shape[1:]:
        width = values.shape[1] if values.ndim > 1 else 1
        raise ValueError(f"{mechanism.name}: {_CLAIMS[quantity, moment]}({np.asarray(x).tolist()}), the claimed "
                         f"{moment} of the {quantity}, has shape {np.shape(claim)}, but each {quantity} holds "
                         f"{width} number(s): claim one number, or one per coordinate")
    return claim


#: Rounding of a mean of float64 values, in units of the law's largest |value|: deviations below it are not evidence.
_ROUNDING = 64 * float(np.finfo(np.float64).eps)


class _Shape:
    """What the exact tests need of a law: its mean, variance, fourth central moment, range (possibly infinite)
    and the skewness of one draw X and of one squared deviation Y = (X - mean)^2 (the variance test's summand)."""

    def __init__(self, law):
        self.lo, self.hi = law.support
        self.bounded = math.isfinite(self.lo) and math.isfinite(self.hi)
        self.mean = law.mean()
        m2, m3, m4, m6 = (law.moment_about(self.mean, k) for k in (2, 3, 4, 6))
        self.var, self.var_y = max(m2, 0.0), max(m4 - m2 * m2, 0.0)
        self.fourth = max(m4, 0.0)
        # divided in two steps: var**1.5 underflows when the law's variance is ~e^-700
        self.skew = m3 / self.var / math.sqrt(self.var) if self.var > 0 else math.inf
        third_y = m6 - 3.0 * m2 * m4 + 2.0 * m2**3
        self.skew_y = third_y / self.var_y / math.sqrt(self.var_y) if self.var_y > 0 else math.inf
        self.reach = max(self.hi - self.mean, self.mean - self.lo)
        self.y_max = self.reach**2
        self.scale = max(abs(self.lo), abs(self.hi)) if self.bounded else abs(self.mean) + math.sqrt(self.var)

    def normal(self, n: int) -> bool:
        """Whether both the mean and the variance of n draws may be z-tested."""
        return normal_approximation_holds(n, self.skew) and normal_approximation_holds(n, self.skew_y)


def law_shapes(mechanism, quantity: str, points) -> list:
    """The shape of the tested quantity's law at each point (None where the law is unknown): the report's law, or
    the estimate's where the estimate is the built-ins' declared affine map of the report."""
    if not mechanism.has_law or (quantity == "estimate" and not isinstance(mechanism, Mechanism)):
        return [None] * len(points)
    laws = [mechanism.law(float(x)) for x in points]
    if quantity == "estimate":
        laws = [law.affine(mechanism.estimate_scale, mechanism.estimate_shift) for law in laws]
    return [_Shape(law) for law in laws]


def skewed_mean_p(n: int, mean: float, expected: float, shape) -> float | None:
    """An exact p-value for a sample mean of n draws where the law is too skewed for a z-test (Bennett's bound for a
    bounded law, Cantelli's otherwise); None elsewhere."""
    if shape is None or normal_approximation_holds(n, shape.skew):
        return None
    if not shape.bounded:
        return cantelli_p_value(mean - expected, n, shape.var, _ROUNDING * shape.scale)
    return bennett_p_value(mean - expected, n, shape.var, shape.hi - expected, expected - shape.lo,
                           _ROUNDING * shape.scale)


def skewed_variance_p(n: int, mean_square: float, expected_var: float, shape) -> float | None:
    """An exact p-value for the mean of (X - claimed mean)^2 over n draws where the squared deviation is too skewed
    for the fourth-moment z-test (Bennett's bound for a bounded law, Cantelli's otherwise); None elsewhere."""
    if shape is None or normal_approximation_holds(n, shape.skew_y):
        return None
    if not shape.bounded:
        return cantelli_p_value(mean_square - expected_var, n, shape.var_y, _ROUNDING * shape.scale**2)
    return bennett_p_value(mean_square - expected_var, n, shape.var_y, shape.y_max - expected_var, expected_var,
                           _ROUNDING * shape.y_max)


def skewed_covariance_p(n: int, mean_product: float, expected_cov: float, shapes) -> float | None:
    """Bennett's p-value for the mean of n products (e_0 - mu_0)(e_1 - mu_1) of two coordinates' estimates where
    either coordinate's law is too skewed for a z-test (None elsewhere, and for unbounded laws, whose products
    keep the z-test). Var[product] <= sqrt(m4_0 m4_1) (Cauchy-Schwarz), |product - cov| <= reach_0 reach_1 +
    |cov|: a larger variance or range only loosens Bennett's bound, so both keep it valid."""
    if any(s is None or not s.bounded for s in shapes) or all(s.normal(n) for s in shapes):
        return None
    variance = math.sqrt(shapes[0].fourth * shapes[1].fourth)
    reach = shapes[0].reach * shapes[1].reach + abs(expected_cov)
    return bennett_p_value(mean_product - expected_cov, n, variance, reach, reach, _ROUNDING * reach)


def _mean_tests(moments: Moments, center, expected, shapes):
    """z and p of the mean test per coordinate, and which are exact: the z-test, or an exact bound where the law is
    too skewed."""
    z, p = (np.atleast_1d(v).astype(float) for v in mean_z(moments, center, expected))
    mean = np.atleast_1d(center + moments.mean_offset())
    expected = np.broadcast_to(np.atleast_1d(expected), mean.shape)
    exact = np.zeros(z.shape, dtype=bool)
    for i, shape in enumerate(shapes):
        bound = skewed_mean_p(moments.n, float(mean[i]), float(expected[i]), shape)
        if bound is not None:
            p[i], z[i], exact[i] = bound, equivalent_z(bound, mean[i] - expected[i]), True
    return z, p, exact


def _variance_tests(moments: Moments, expected_var, shapes, centred: bool):
    """z and p of the variance test per coordinate, and which are exact: the fourth-moment z-test, or, where the
    squared deviation is too skewed, an exact bound on the mean of (X - claimed mean)^2 (the power sums are
    centred there)."""
    z, p = (np.atleast_1d(v).astype(float) for v in variance_z(moments, expected_var))
    exact = np.zeros(z.shape, dtype=bool)
    if not centred:
        return z, p, exact
    mean_y = np.atleast_1d(moments.s2 / moments.n)
    expected_var = np.broadcast_to(np.atleast_1d(expected_var), mean_y.shape)
    for i, shape in enumerate(shapes):
        bound = skewed_variance_p(moments.n, float(mean_y[i]), float(expected_var[i]), shape)
        if bound is not None:
            p[i], z[i], exact[i] = bound, equivalent_z(bound, mean_y[i] - expected_var[i]), True
    return z, p, exact


def _label(name: str, exact: bool) -> str:
    return f"{name} (exact bound, z-equivalent)" if exact else name


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


def _two_values(mechanism, x, quantity: str, seed: int) -> np.ndarray | None:
    """The values a < b of the quantity (raw report or estimate) at x when it takes at most two (from the law,
    else from a small seeded pilot; a frequency oracle's many-valued report can have a two-valued estimate per
    item): [a, b], [a] when only one value is possible or seen; None when it takes more."""
    if mechanism.has_law and (quantity == "report" or isinstance(mechanism, Mechanism)):
        law = mechanism.law(float(x))  # a user's estimator need not be the built-ins' affine map of the report
        if quantity == "estimate":
            law = law.affine(mechanism.estimate_scale, mechanism.estimate_shift)
        values, probs = law.atoms
        values = np.unique(np.asarray(values, dtype=float)[np.asarray(probs) > 0])
        return values if law.continuous_mass == 0 and values.size <= 2 else None
    reports = mechanism.sample(x, TWO_POINT_PILOT, rng_for(seed, *streams.TWO_POINT_PILOT.key()))
    values = np.unique(_as_array(reports if quantity == "report" else mechanism.estimate(reports)))
    return values if values.size <= 2 else None


#: |mean of (X - a)(X - b)| above this share of max(|a|, |b|)^2 shows a third value (far above float round-off).
_THIRD_VALUE = 1e-8


def _two_point_count(n: int, mean: float, mean_product: float, values: np.ndarray) -> int | None:
    """How many of n draws of a quantity X taking two values a < b took b, from its sample mean; None when the
    sample mean of (X - a)(X - b), 0 for every draw of a two-valued X, shows a third value the law or pilot missed."""
    a, b = float(values[0]), float(values[1])
    if abs(mean_product) > _THIRD_VALUE * max(abs(a), abs(b)) ** 2:
        return None
    return int(np.clip(np.rint((mean - a) / (b - a) * n), 0, n))


def two_point_mean_p(n: int, mean: float, mean_product: float, values: np.ndarray, claimed_mean: float) -> float | None:
    """An exact p-value of a claimed mean M of a quantity X taking two values a < b (see ``_two_point_count`` for
    None): X = a + (b - a) B with B ~ Bernoulli(p), so M is right only if p = (M - a) / (b - a), and the count of b
    is binomial: the two-sided exact binomial test (``stats.binomial_two_sided_p``; 0 when M lies outside [a, b]).
    A z-test is unfit where b is rare (a frequency oracle's estimate at large eps: one draw of b moved z by 1e100)."""
    count = _two_point_count(n, mean, mean_product, values)
    if count is None:
        return None
    a, b = float(values[0]), float(values[1])
    p = (float(claimed_mean) - a) / (b - a)
    if not -_ROUNDING <= p <= 1.0 + _ROUNDING:
        return 0.0
    return binomial_two_sided_p(count, n, min(max(p, 0.0), 1.0))


def two_point_variance_p(n: int, mean: float, mean_product: float, values: np.ndarray,
                         claimed_var: float) -> float | None:
    """An exact p-value of a claimed variance V of a quantity X taking two values a < b (see ``_two_point_count``
    for None).

    X = a + (b - a) B with B ~ Bernoulli(p), so its variance (b - mean)(mean - a) = (b - a)^2 p (1 - p) is fixed
    by the frequency p of b: V is right only if p is a root of p (1 - p) = V / (b - a)^2. The count of b in the n
    draws is binomial, so the p-value of the composite null "p is a root" is the larger two-sided exact binomial
    p-value at the roots (``stats.binomial_two_sided_p``; 0 when V is no variance of a two-valued law: V < 0 or
    V > (b - a)^2 / 4). The sample variance's own z-test is unfit here: its kurtosis is 1 at p = 1/2, its standard
    error vanishes as p nears 0 or 1."""
    count = _two_point_count(n, mean, mean_product, values)
    if count is None:
        return None
    r = float(claimed_var) / (float(values[1]) - float(values[0])) ** 2
    if r < -_ROUNDING or r > 0.25 * (1.0 + _ROUNDING):
        return 0.0
    root = 0.5 * math.sqrt(max(1.0 - 4.0 * r, 0.0))
    roots = (min(max(0.5 + sign * root, 0.0), 1.0) for sign in (-1.0, 1.0))
    return max(binomial_two_sided_p(count, n, p) for p in roots)


def _two_point_sums(moments: Moments, center, c: int, values: np.ndarray) -> tuple[float, float]:
    """(sample mean, sample mean of (X - a)(X - b)) of coordinate c, from the power sums of X - center:
    (X - a)(X - b) = Y^2 + Y (2 m - a - b) + (m - a)(m - b) with Y = X - m, m the centre."""
    off = float(np.atleast_1d(moments.mean_offset())[c])
    m = float(np.broadcast_to(np.atleast_1d(center), np.atleast_1d(moments.s1).shape)[c])
    a, b = float(values[0]), float(values[1])
    product = float(np.atleast_1d(moments.s2 / moments.n)[c]) + off * (2 * m - a - b) + (m - a) * (m - b)
    return m + off, product


def _exact_two_point(moments: Moments, center, found, claimed, test, zz, pp, labels, names, deviation) -> None:
    """Replace, in place, the z-test of every coordinate whose quantity takes two values (``found``) by ``test``
    (two_point_mean_p or two_point_variance_p), shown as a z-equivalent with the sign of ``deviation``."""
    claimed = np.broadcast_to(np.atleast_1d(claimed), zz.shape)
    for c, values in enumerate(found):
        if values is None or values.size < 2:
            continue
        exact_p = test(moments.n, *_two_point_sums(moments, center, c, values), values, float(claimed[c]))
        if exact_p is not None:
            pp[c], zz[c] = exact_p, equivalent_z(exact_p, float(deviation[c]))
            labels[c] = f"{names[c]} (exact binomial test: two values)"


def moment_plan(mechanism, n: int, seed: int, alpha: float) -> Plan:
    """Mean, variance (and covariance) z-tests of every claimed quantity (``mechanism.moment_claims``: the raw
    report and/or the server estimate, each with the moments it claims) against the formulas: a sampling plan
    (``sampling.Plan``, one stream per input, announcing its n draws per input) returning the rows."""
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
    yield Announce(n * len(inputs))
    totals = yield [Draws(_MomentReducer(mechanism, x, ordered, covariance), n, seed, streams.MOMENTS.key(i))
                    for i, x in enumerate(inputs)]
    sums = [total.parts for total in totals]
    two_values = {q: [_two_values(mechanism, v, q, seed) for v in points] for q in quantities}
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
            per_coordinate_law = width == len(at)
            if not per_coordinate_law:  # a vector report of a one-dimensional input: one test per coordinate
                at = [f"{names[i]}, coordinate {j}" for j in range(width)]
            # a two-point quantity's mean and variance are fixed by the frequency of its larger value: exact binomial
            # tests there (two_point_mean_p, two_point_variance_p); one that takes a single value has no variance
            found = two_values[quantity] if sampled else [two_values[quantity][i]] * width
            keep = np.array([v is None or v.size == 2 for v in found])
            shapes = (law_shapes(mechanism, quantity, points if sampled else [x]) if per_coordinate_law
                      else [None] * width)
            center = _claimed(mechanism, quantity, "mean", tx) if claims_mean else 0.0
            if claims_mean:
                zz, pp, exact = _mean_tests(moments, center, center, shapes)
                names_m = [_label(prefix[quantity] + name, e) for name, e in zip(at, exact)]
                _exact_two_point(moments, center, found, center, two_point_mean_p, zz, pp, names_m,
                                 [prefix[quantity] + name for name in at],
                                 np.atleast_1d(moments.mean_offset()) * np.ones(zz.shape))
                z["mean"].append(zz)
                p["mean"].append(pp)
                labels["mean"] += names_m
            if claims_var:
                claimed_var = _claimed(mechanism, quantity, "variance", tx)
                zz, pp, exact = _variance_tests(moments, claimed_var, shapes, claims_mean)
                names_v = [_label(prefix[quantity] + name, e) for name, e in zip(at, exact)]
                _exact_two_point(moments, center, found, claimed_var, two_point_variance_p, zz, pp, names_v,
                                 [prefix[quantity] + name for name in at],
                                 np.atleast_1d(moments.central()[0]) - np.atleast_1d(claimed_var))
                z["variance"].append(zz[keep])
                p["variance"].append(pp[keep])
                labels["variance"] += [name for name, k in zip(names_v, keep) if k]
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
                "not tested: every tested quantity takes a single value")))
    if covariance:
        x = inputs[0]
        product = sums[0][-1]
        theory = float(mechanism.estimate_cov(x[0], x[1]))
        zc, pc = mean_z(product, 0.0, theory)
        exact = skewed_covariance_p(n, float(product.s1 / product.n), theory,
                                    law_shapes(mechanism, "estimate", x[:2]))
        if exact is not None:
            zc, pc = equivalent_z(exact, product.s1 / product.n - theory), exact
        results.append(_family("moments.covariance", f"{ref}: covariance of two coordinates (lpgnn E6)",
                               zc, pc, share, 1, n, seed, f"Cov[x'_0, x'_1] (theory {theory:.4g})",
                               ["coordinates 0 and 1"]))
    return results
