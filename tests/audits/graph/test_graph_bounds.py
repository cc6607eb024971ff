"""Bound audits: each passes for the correct pipeline and fails for a deliberately broken one."""
from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from mutants import WrongBudget, WrongRectifier

from ldp_audit.audits.graph import aggregation, bounds as graph_bounds
from ldp_audit.audits.claims import ldp_ge as claims_ldp_ge, lpgnn as claims_lpgnn
from ldp_audit.audits.claims.registry import ClaimSettings, claims_of
from ldp_audit.audits.kernel.result import Status
from ldp_audit.mechanisms import make
from ldp_audit.mechanisms.personalised import PersonalisedMechanism
from ldp_audit.models import propagation as prop
from ldp_audit.models.synthetic import karate
from ldp_audit.papers import graph_rates
from ldp_audit.seeding import rng_for

pytestmark = pytest.mark.graph
ALPHA = 1e-3


@pytest.fixture(scope="module")
def six():
    return claims_lpgnn._six_node_graph()


def test_bernstein_threshold_inverts_the_tail():
    t = graph_bounds.bernstein_threshold(2.0, 3.0, np.log(40))
    assert 2 * np.exp(-t ** 2 / (2 * 2.0 + 2 * 3.0 * t / 3)) == pytest.approx(2 / 40)


def test_pi_properties_and_the_row_sum_erratum():
    results = graph_bounds.check_pi_properties(karate().adjacency, 0.1, "karate")
    assert [r.status for r in results] == [Status.PASS] * 3 + [Status.FAIL]
    assert results[-1].interval == pytest.approx((0.4847, 1.7435), abs=1e-4)


def test_push_check_passes_corrected_and_fails_literal_algorithm3():
    adjacency = karate().adjacency
    x = np.random.default_rng(0).uniform(-1, 1, size=(34, 8))
    assert graph_bounds.check_push(adjacency, x, 0.1, 0.5, 1e-4).status is Status.PASS
    literal = graph_bounds.check_push(adjacency, x, 0.1, 0.5, 1e-4, partial(prop.backward_push, divide_by="pusher"))
    assert literal.status is Status.FAIL and literal.statistic > 100


def test_error_bound_holds_for_hds_and_fails_when_the_budget_is_wrong():
    setting = claims_ldp_ge._karate_setting()
    hds = make("hds", eps=1.0, d=32, k=1)
    good = graph_bounds.check_error_bound(setting, hds, 0.1, 1000, 1, ALPHA, "b", "ldp-ge C14")
    assert good.status is Status.PASS
    unbiased = make("piecewise_hd", eps=1.0, d=32, k=1)
    assert graph_bounds.check_error_bound(setting, unbiased, 0.1, 1000, 1, ALPHA, "b", "C17").status is Status.PASS
    broken = WrongBudget(unbiased, make("piecewise_hd", eps=0.05, d=32, k=1))
    assert graph_bounds.check_error_bound(setting, broken, 0.1, 1000, 1, ALPHA, "b", "C17").status is Status.FAIL
    laplace = make("laplace_hd", eps=1.0, d=32)
    assert graph_bounds.check_error_bound(setting, laplace, 0.1, 1000, 1, ALPHA, "b", "C16").status is Status.PASS


def test_eps_rate_matches_the_printed_rates():
    setting = claims_ldp_ge._karate_setting()
    for name, params in (("hds", {"k": 1}), ("laplace_hd", {})):
        result = graph_bounds.check_eps_rate(setting, lambda e, n=name, p=params: make(n, eps=e, d=32, **p), name, 1.0,
                                       1000, 2)
        assert result.status is Status.PASS, result.explanation
    # the debiased HDS is not O(1) in eps: claimed against Theorem 2's rate it fails
    debiased = graph_bounds.check_eps_rate(setting, lambda e: WrongRectifier(make("hds", eps=e, d=32, k=1),
                                                                       1 / make("hds", eps=e, d=32, k=1)
                                                                       .estimate_mean(np.ones(1))[0]),
                                     "hds", 1.0, 1000, 2)
    assert debiased.status is Status.FAIL


def test_aggregation_moments_pass_and_catch_rectifier_and_self_loop_bugs(six):
    x = np.random.default_rng(11).uniform(0, 1, size=(6, 10))
    mech = make("multibit", eps=1.0, d=10, k=1)
    kprop = prop.KProp(steps=2, aggregator="gcn")
    good = aggregation.check_linear_aggregation(six.adjacency, x, mech, kprop, np.arange(6), 20_000, 3, ALPHA, "lpgnn")
    assert [r.status for r in good] == [Status.PASS, Status.PASS]
    scaled = aggregation.check_linear_aggregation(six.adjacency, x, WrongRectifier(mech, 1.15), kprop, np.arange(6),
                                             20_000, 3, ALPHA, "lpgnn")
    assert scaled[0].status is Status.FAIL
    looped = aggregation.check_linear_aggregation(six.adjacency, x, mech, prop.KProp(steps=1, self_loops=True),
                                             np.arange(6), 20_000, 3, ALPHA, "lpgnn", claimed=prop.KProp(steps=1))
    assert Status.FAIL in {r.status for r in looped}


def test_flexprop_unbiased_with_personal_budgets_and_biased_with_server_rescaling(six):
    users = PersonalisedMechanism(1.0, 4).draw(6, rng_for(5), tau=np.array([1, 2, 3, 4, 5, 2]))
    x = np.random.default_rng(5).uniform(-1, 1, size=(6, 4))
    flex = prop.FlexProp(steps=2, weights=prop.flexprop_weights("tau_prime", tau_prime=users.tau_prime))
    good = aggregation.check_linear_aggregation(six.adjacency, x, users.mechanisms, flex, np.arange(6), 20_000, 4,
                                           ALPHA, "ppgnn")
    assert [r.status for r in good] == [Status.PASS, Status.PASS]
    # server rectification with the level-1 scale for everybody: biased wherever tau differs
    magnitude = {id(m): m.estimate_law(0.0).support[1] for m in users.mechanisms}  # (d/m) C(eps/m)
    one = users.mechanisms[0]
    wrong = [m if m is one else WrongRectifier(m, magnitude[id(one)] / magnitude[id(m)]) for m in users.mechanisms]
    bad = aggregation.check_linear_aggregation(six.adjacency, x, wrong, flex, np.arange(6), 20_000, 4, ALPHA, "ppgnn")
    assert bad[0].status is Status.FAIL


def test_mean_bound_holds_rate_erratum_shows_and_scaled_rectifier_fails():
    pool = np.random.default_rng(0).uniform(0, 1, size=(256, 100))
    mech = make("multibit", eps=1.0, d=100, k=1)
    bound, rate = aggregation.check_mean_aggregation(mech, pool, (1, 4, 16), 0.05, 300, 1, ALPHA,
                                                graph_rates.LPGNN_PROP36)
    assert bound.status is Status.PASS
    assert rate.status is Status.FAIL and rate.statistic < -0.8  # lpgnn E4: about N^-1, not N^-1/2
    # a rectifier that applies the sampling factor d/m twice
    broken, _ = aggregation.check_mean_aggregation(WrongRectifier(mech, mech.d / mech.k), pool, (8, 16), 0.05, 300, 1, ALPHA,
                                              graph_rates.LPGNN_PROP36)
    assert broken.status is Status.FAIL


def test_flexprop_weighting_erratum_depends_on_eps():
    small = aggregation.check_flexprop_weighting(1433, 0.01, 20, 100, 7)
    assert small[0].status is Status.PASS and small[1].status is Status.FAIL  # ppgnn E10: worse than the mean
    large = aggregation.check_flexprop_weighting(1433, 3.0, 20, 100, 7)
    assert large[1].status is Status.PASS and large[1].statistic < 1


def test_graph_claims_are_fast_and_report_the_errata():
    settings = ClaimSettings(samples=100_000)
    for paper, names, failing in (
            ("ldp-ge", ("c11_ppr_operator", "c12_corrected_push", "e12_isolated_nodes", "e2_push_as_printed",
                        "c14_c18_error_bounds", "c19_debiased_hds"), {"ldp-ge.pi.row-sums", "ldp-ge.push.printed"}),
            ("lpgnn", ("c7_c9_kprop_aggregation", "c8_mean_aggregation_bound", "c13_mae_on_a_small_csbm",
                       "c10_effective_neighbourhood"), {"lpgnn.rate.N", "lpgnn.C10 (E7)"}),
            ("ppgnn", ("c12_c13_flexprop_aggregation", "c13_c14_flexprop_weights", "c15_mean_aggregation_bound"),
             {"ppgnn.flexprop.weights", "ppgnn.rate.N"})):
        registered = {c.name: c for c in claims_of(paper)}
        results = [r for name in names for r in registered[name].rows(settings)]
        assert {r.name for r in results if r.status is Status.FAIL} == failing


def test_cli_bounds_on_the_embedded_csbm(capsys):
    from ldp_audit.cli import main

    code = main(["bounds", "ldp-ge", "--dataset", "csbm", "--mechanism", "hds", "--eps", "1", "--features", "16",
                 "--reps", "100", "--json"])
    out = capsys.readouterr().out
    assert code == 0 and '"ldp-ge.bound.hds"' in out
    assert main(["bounds", "ldp-ge", "--dataset", "karate"]) == 2  # karate has no features
    assert main(["bounds", "lpgnn", "--dataset", "csbm", "--reps", "10"]) == 2
