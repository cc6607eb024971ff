"""The curve check (``privacy.curve.*``): certified lower bounds on the privacy curve delta(eps') and on mu (GDP).

Correct Gaussians PASS; a sampler with half the noise, a mechanism built for delta = 1e-5 that claims 1e-9, and a user
curve or mu more optimistic than the sampler FAIL; over 50 seeds of a fast setting the certified curve never exceeds
the true one and mu_lb never exceeds the true mu, on both paths (law-planned events, and events chosen on a held-out
half); the numbers are the same on the local and the process engines."""
from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from ldp_audit.audits.kernel.result import Status
from ldp_audit.audits.privacy.curves import SHARES, applies, claimed_curve, curve_privacy, rr_curve
from ldp_audit.audits.verify.orchestrator import AuditSettings, families, parse_checks, verify
from ldp_audit.external import as_mechanism
from ldp_audit.external.calls import UserCodeError
from ldp_audit.mechanisms import make
from ldp_audit.mechanisms.gaussian import Gaussian, GaussianCurve, analytic_sigma, gdp_curve, privacy_profile
from ldp_audit.testing import audit

ALPHA = 1e-3
SIGMA = analytic_sigma(1.0, 1e-5, 2.0)  # the built-in gaussian at eps = 1, delta = 1e-5 on [-1, 1]
MU = 2.0 / SIGMA


@dataclass(frozen=True)
class GaussianHalfSigma(Gaussian):
    """Claims the analytic calibration, samples with half of its sigma."""

    def _sample(self, x, rng):
        return x + 0.5 * self.sigma * rng.standard_normal(x.shape)


@dataclass(frozen=True)
class GaussianBuiltForOtherDelta(Gaussian):
    """Claims (eps, delta) with the sigma of that claim, samples with the sigma of (eps, 1e-5)."""

    def _sample(self, x, rng):
        return x + analytic_sigma(self.eps, 1e-5, self.sensitivity) * rng.standard_normal(x.shape)


def user_gaussian(x, n, rng):
    return x + SIGMA * rng.standard_normal(n)


def _rows(mechanism, samples=200_000, seed=20240601, **options):
    report = verify(mechanism, AuditSettings(samples=samples, seed=seed, alpha=ALPHA, **options), checks="curve")
    return {r.name: r for r in report.results if r.name.startswith("privacy.curve")}


def _user(**claims):
    return as_mechanism({"sample": user_gaussian, "eps": 1.0, "delta": 1e-5, "domain": (-1.0, 1.0), **claims})


def test_gdp_curve_is_the_gaussian_profile_and_rr_bounds_it():
    for eps in (0.0, 0.5, 1.0, 3.0):
        assert gdp_curve(eps, MU) == pytest.approx(privacy_profile(max(eps, 1e-12), SIGMA, 2.0), rel=1e-9, abs=1e-15)
        assert gdp_curve(eps, MU) <= rr_curve(eps, 1.0, 1e-5) * (1 + 1e-9) or eps < 1.0
    assert rr_curve(0.0, 1.0, 0.0) == pytest.approx(math.tanh(0.5))  # total variation of randomized response
    m = make("gaussian", eps=1.0)
    assert m.gdp_mu == pytest.approx(MU) and m.privacy_curve(1.0) == pytest.approx(1e-5, rel=1e-6)
    assert claimed_curve(m, 0.5)[1] == "declared curve" and claimed_curve(m, 0.5)[0] < rr_curve(0.5, 1.0, 1e-5)
    hd = make("gaussian_hd", eps=1.0, d=4)  # composition of 4 coordinates, each mu_c-GDP
    assert hd.gdp_mu == pytest.approx(2.0 * hd.coordinate.gdp_mu)
    assert make("analytic_gaussian", eps=1.0, d=4).gdp_mu == pytest.approx(make("analytic_gaussian", eps=1.0, d=4)
                                                                            .coordinate.gdp_mu)
    assert make("laplace", eps=1.0).privacy_curve is None and not applies(make("laplace", eps=1.0))


def test_runs_with_privacy_when_delta_or_a_curve_is_claimed():
    assert "curve" not in parse_checks("all") and parse_checks("curve") == ("curve",)
    assert "curve" in families(make("gaussian", eps=1.0), parse_checks("all"))
    assert "curve" not in families(make("laplace", eps=1.0), parse_checks("all"))
    laplace_with_mu = as_mechanism({"sample": user_gaussian, "eps": 1.0, "domain": (-1.0, 1.0), "gdp_mu": 1.0})
    assert "curve" in families(laplace_with_mu, parse_checks("privacy"))


@pytest.mark.parametrize("name", ["gaussian", "analytic_gaussian"])
def test_correct_gaussians_pass(name):
    rows = _rows(make(name, eps=1.0))
    assert set(rows) == {"privacy.curve.eps_at_delta", "privacy.curve.mu", "privacy.curve.worst"}
    assert all(r.status == Status.PASS for r in rows.values()), [r.explanation for r in rows.values()]
    mu = rows["privacy.curve.mu"]
    assert 0.85 * mu.threshold < mu.statistic <= mu.threshold
    assert mu.details["ceiling"] is not None and rows["privacy.curve.eps_at_delta"].details["ceiling"] > 0.4
    assert all(r.alpha == pytest.approx(ALPHA / 1) for r in rows.values())  # checks="curve": one family


def test_half_sigma_fails_mu_and_curve():
    rows = _rows(GaussianHalfSigma(1.0))
    assert rows["privacy.curve.mu"].status == Status.FAIL
    assert rows["privacy.curve.worst"].status == Status.FAIL
    assert rows["privacy.curve.mu"].statistic > 1.5 * MU


def test_built_for_delta_1e5_claiming_1e9_fails():
    """sigma is that of (1, 1e-5) but the claim, and the curve and mu it implies, are those of (1, 1e-9): the true
    mu is about 1.5 times the claimed one and the curve lies above the claimed one everywhere. The eps at 1e-9
    row needs an event of probability near 1e-9 to fail, far beyond 200,000 draws: it passes here."""
    mutant = GaussianBuiltForOtherDelta(1.0, 1e-9)
    assert MU / mutant.gdp_mu > 1.3
    rows = _rows(mutant)
    assert rows["privacy.curve.mu"].status == Status.FAIL
    assert rows["privacy.curve.worst"].status == Status.FAIL


def test_user_curve_or_mu_too_optimistic_fails():
    honest = _rows(_user(privacy_curve=GaussianCurve(MU), gdp_mu=MU))
    assert all(r.status == Status.PASS for r in honest.values()), [r.explanation for r in honest.values()]
    assert honest["privacy.curve.mu"].details["selection"] == "held-out"
    optimistic = _rows(_user(privacy_curve=GaussianCurve(0.6 * MU)))
    assert optimistic["privacy.curve.worst"].status == Status.FAIL
    assert optimistic["privacy.curve.worst"].details["bar"] == "declared curve"
    assert optimistic["privacy.curve.mu"].status == Status.INFO  # no mu declared: reported, held to nothing
    small_mu = _rows(_user(gdp_mu=0.6 * MU))
    assert small_mu["privacy.curve.mu"].status == Status.FAIL


def test_protocol_checks_the_declared_claims():
    with pytest.raises(ValueError, match="gdp_mu"):
        _user(gdp_mu=-1.0)
    with pytest.raises(ValueError, match="privacy_curve"):
        _user(privacy_curve="tight")
    bad = _user(privacy_curve=lambda eps: 2.0)
    with pytest.raises(UserCodeError, match=r"privacy_curve\(0.5\) returned 2.0; it must return one real number"):
        bad.privacy_curve(0.5)


def _true_eps(delta: float, mu: float) -> float:
    from scipy import optimize
    return optimize.brentq(lambda e: gdp_curve(e, mu) - delta, 0.0, 50.0)


@pytest.mark.parametrize("path", ["law-planned", "held-out"])
def test_never_above_the_truth_over_fifty_seeds(path):
    """The certified curve (at the 20 points a row keeps), the eps at delta and mu_lb against the true curve of the
    sampler (Gaussian, mu = 1 between the extreme inputs: a setting where the bounds come close to the truth)."""
    sigma = 2.0  # mu = 2 / sigma = 1
    if path == "law-planned":
        mechanism = make("gaussian", eps=1.0)
        object.__setattr__(mechanism, "sigma", sigma)
    else:
        mechanism = as_mechanism({"sample": _sigma_two, "eps": 1.0, "delta": 1e-5, "domain": (-1.0, 1.0)})
    worst_gap, top = -math.inf, 0.0
    for seed in range(50):
        rows = {r.name: r for r in curve_privacy(mechanism, 20_000, seed, ALPHA)}
        assert rows["privacy.curve.mu"].details["selection"] == path
        mu_lb = rows["privacy.curve.mu"].details["raw_lower"]
        assert mu_lb is None or mu_lb <= 1.0
        eps_lb = rows["privacy.curve.eps_at_delta"].details["raw_lower"]
        assert eps_lb is None or eps_lb <= _true_eps(1e-5, 1.0)
        for eps_prime, certified, _ in rows["privacy.curve.worst"].details["curve"]:
            worst_gap = max(worst_gap, certified - gdp_curve(eps_prime, 1.0))
        top = max(top, mu_lb or 0.0)
    assert worst_gap <= 0.0 and top > 0.7  # sound, and not vacuous


def _sigma_two(x, n, rng):
    return x + 2.0 * rng.standard_normal(n)


def test_the_same_numbers_on_local_and_process_engines():
    mech = {"sample": user_gaussian, "eps": 1.0, "delta": 1e-5, "domain": (-1.0, 1.0), "gdp_mu": MU}
    local = audit(mech, checks="curve", samples=300_000, seed=7, alpha=ALPHA)
    pool = audit(mech, checks="curve", samples=300_000, seed=7, alpha=ALPHA, workers=2, engine="processes")
    assert [r.to_dict() for r in local.results if r.name.startswith("privacy.curve")] == \
        [r.to_dict() for r in pool.results if r.name.startswith("privacy.curve")]


def test_stated_false_alarm_rate_is_split_over_the_events():
    rows = curve_privacy(make("gaussian", eps=1.0), 50_000, 1, ALPHA)
    levels = rows[0].details["levels"]
    pairs = 6  # ordered pairs of the three contrast inputs
    used = 2 * (levels["delta"] * pairs + levels["mu"] * pairs + levels["grid"] * pairs * 12)
    assert used == pytest.approx(ALPHA) and sum(SHARES.values()) == pytest.approx(1.0)
