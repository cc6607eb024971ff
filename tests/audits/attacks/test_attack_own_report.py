"""Own-report attribute inference (lpgnn C12): closed forms on small cases, correct mechanisms PASS, a mechanism
that spends 2 eps while claiming eps FAILs. Fixed seeds; the false-alarm rate of every Monte Carlo row is alpha
(1e-3): a correct mechanism's Bayes accuracy is at most the ceiling, so its lower bound exceeds it with
probability <= alpha."""
import math

import pytest

from ldp_audit.audits.attacks.bayes import bayes_accuracy, ldp_ceiling
from ldp_audit.audits.attacks.own_report import (exact_one_coordinate, exact_whole_vector, majority_accuracy,
                                                 own_report_attack)
from ldp_audit.audits.kernel.result import Status
from ldp_audit.mechanisms import make


def _p(eps):
    return 1.0 / (1.0 + math.exp(-eps))


def test_ceiling_and_bayes_on_randomized_response():
    assert ldp_ceiling(1.0) == pytest.approx(_p(1.0))
    assert ldp_ceiling(1.0, 7) == pytest.approx(math.e / (math.e + 6))
    assert ldp_ceiling(800.0) == 1.0
    rr = make("grr", eps=1.0, c=4)
    lik = [rr.law(float(s)).probs for s in range(4)]
    assert bayes_accuracy(lik) == pytest.approx(ldp_ceiling(1.0, 4))  # RR meets its ceiling exactly


def test_majority_closed_form_C12():
    assert majority_accuracy(3, 3.0) == pytest.approx(0.8219, abs=5e-5)
    assert majority_accuracy(2, 1.0) == pytest.approx(_p(0.5))  # m = 2 equals p_m
    assert majority_accuracy(1, 1.0) == pytest.approx(_p(1.0))  # m = 1 meets the bound
    for d, m, eps in [(5, 3, 3.0), (6, 2, 1.0), (4, 4, 2.0), (7, 1, 0.5)]:
        mech = make("multibit", eps=eps, d=d, k=m, alpha=-1.0, beta=1.0)
        assert exact_whole_vector(mech) == pytest.approx(majority_accuracy(m, eps), abs=1e-12)
        # one coordinate: 1/2 + (m/d)(p_m - 1/2)
        assert exact_one_coordinate(mech) == pytest.approx(0.5 + (m / d) * (_p(eps / m) - 0.5), abs=1e-12)


def test_continuous_laws_by_total_variation():
    # Laplace with shift 2 and scale 2/eps: accuracy 1 - exp(-eps/2)/2
    assert exact_one_coordinate(make("laplace", eps=1.0)) == pytest.approx(1 - 0.5 * math.exp(-0.5), abs=1e-7)
    assert exact_one_coordinate(make("duchi", eps=0.7)) == pytest.approx(_p(0.7), abs=1e-12)


@pytest.mark.parametrize("name, params", [("duchi", {}), ("laplace", {}), ("piecewise", {}),
                                          ("multibit", {"d": 8, "k": 1, "alpha": -1.0, "beta": 1.0}),
                                          ("mlr", {"d": 6, "k": 2}), ("hds", {"d": 6, "k": 2})])
def test_correct_mechanisms_pass(name, params):
    rows = own_report_attack(make(name, eps=1.0, **params), samples=40_000, seed=3)
    assert all(r.status is Status.PASS for r in rows), [r.explanation for r in rows if r.status is not Status.PASS]


@pytest.mark.parametrize("name, params", [("duchi", {}), ("multibit", {"d": 8, "k": 1, "alpha": -1.0, "beta": 1.0}),
                                          ("grr", {"c": 2})])
def test_a_mechanism_spending_twice_its_claim_fails(name, params):
    rows = own_report_attack(make(name, eps=2.0, **params), claimed_eps=1.0, samples=20_000, seed=3)
    assert any(r.status is Status.FAIL and r.n > 0 for r in rows)
    assert any(r.status is Status.FAIL and r.n == 0 for r in rows)  # the exact row too


def test_bad_input():
    with pytest.raises(ValueError, match="samples"):
        own_report_attack(make("duchi", eps=1.0), samples=10)
    with pytest.raises(ValueError, match="claimed_eps"):
        own_report_attack(make("duchi", eps=1.0), claimed_eps=-1.0)


def test_c_ary_secret_meets_the_ceiling_for_rr_and_fails_at_2eps():
    rows = {r.name: r for r in own_report_attack(make("grr", eps=1.0, c=7), samples=30_000, seed=8)}
    assert rows["attack.own-report.c-ary.exact"].statistic == pytest.approx(ldp_ceiling(1.0, 7))
    assert rows["attack.own-report.c-ary"].status is Status.PASS
    esw = {r.name: r for r in own_report_attack(make("esw", eps=1.0, f=5), samples=30_000, seed=8)}
    assert esw["attack.own-report.c-ary.exact"].statistic < ldp_ceiling(1.0, 5)
    leaked = {r.name: r for r in own_report_attack(make("esw", eps=2.0, f=5), claimed_eps=1.0, samples=30_000,
                                                   seed=8)}
    assert leaked["attack.own-report.c-ary"].status is Status.FAIL
