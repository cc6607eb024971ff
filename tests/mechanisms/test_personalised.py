"""PPM as a mechanism (ppgnn A4, A7; C9-C11, E4-E6): budgets, modes, exact ratios and the users' draw."""
import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ldp_audit.audits.privacy.exact import enumerate_max_ratio
from ldp_audit.mechanisms.personalised import PersonalisedMechanism as PPM


def test_paper_mode_magnitudes_reveal_the_level_E5():
    ppm = PPM(1.0, 1433)
    assert [ppm.sampled_count(t) for t in ppm.levels] == [1, 1, 1, 1, 3]
    assert np.allclose([ppm.magnitude(t) for t in ppm.levels], [5850.922, 3100.945, 1881.580, 1486.472, 549.003],
                       atol=1e-3)
    reports = ppm.perturb(np.zeros((5, 1433)), np.arange(1, 6), np.random.default_rng(0))
    assert np.allclose(np.abs(reports.features).max(axis=1), [ppm.magnitude(t) for t in ppm.levels])


def test_budgets_compose_and_the_corrected_level_budget_is_public():
    paper, fixed = PPM(0.5, 8, gamma=0.3), PPM(0.5, 8, gamma=0.3, mode="corrected")
    for t in paper.levels:
        assert math.isclose(paper.level_budget(t) + paper.feature_budget(t), 0.5 * 2 ** (t - 1))
        assert fixed.level_budget(t) == pytest.approx(0.3 * 0.5)
    assert fixed.joint_eps() == pytest.approx(0.15 + 0.7 * 0.5 * 16) and paper.joint_eps() == math.inf


def test_corrected_mode_takes_m_from_the_reported_level_E6():
    ppm = PPM(1.0, 1433, mode="corrected")
    b = ppm.level_mechanism(1).half_width
    for t_hat in ppm.levels:
        tau_prime = t_hat + b
        expected = max(1, min(1433, math.floor(0.5 * 2 ** (t_hat - 1) / 2.2 + 1e-12)))
        assert all(ppm.sampled_count(t, tau_prime) == expected for t in ppm.levels)
    reports = ppm.perturb(np.zeros((200, 1433)), np.full(200, 3), np.random.default_rng(1))
    assert set(np.unique(reports.features)) <= {-1.0, 0.0, 1.0}


def test_server_rescaling_is_biased_exactly_when_tau_hat_differs():
    ppm = PPM(4.0, 6, h=3, mode="corrected")
    b = ppm.level_mechanism(1).half_width
    x = np.linspace(-1, 1, 6)
    for tau, t_hat in [(2, 2), (3, 1), (1, 3)]:
        mech = ppm.feature_mechanism(tau, t_hat + b)
        a_true = ppm.feature_budget(tau) / mech.k
        a_server = ppm.feature_budget(t_hat) / mech.k
        factor = math.tanh(a_true / 2) / math.tanh(a_server / 2)
        assert np.allclose(mech.estimate_mean(x), x * factor)
    # Monte Carlo: unbiased when tau_hat == tau (z-test on 4e4 users, Bonferroni over 6 coordinates)
    mech = ppm.feature_mechanism(2, 2 + b)
    est = mech.estimate(mech.perturb(np.tile(x, (40_000, 1)), np.random.default_rng(2)))
    z = (est.mean(0) - x) / (est.std(0) / math.sqrt(40_000))
    assert np.max(np.abs(z)) < stats.norm.isf(1e-3 / 12)


@pytest.mark.parametrize("mode", ["paper", "corrected"])
def test_fixed_level_features_are_exactly_eps2_ldp_C9(mode):
    ppm = PPM(1.0, 3, h=3, mode=mode)
    b = ppm.level_mechanism(1).half_width
    for t in ppm.levels:
        ratio, mass = enumerate_max_ratio(ppm.feature_mechanism(int(t), int(t) + b))
        assert ratio == pytest.approx(ppm.feature_budget(t), rel=1e-9) and mass < 1e-12


def _joint_max_ratio(ppm):
    """Exact max over outputs (tau', support, signs) of the ratio between any two (x corner, tau) inputs."""
    d = ppm.d
    outputs = np.arange(1, ppm.h + 2 * ppm.level_mechanism(1).half_width + 1)
    inputs = [(x, t) for x in itertools.product((-1.0, 1.0), repeat=d) for t in ppm.levels]
    table = []
    for x, t in inputs:
        esw = ppm.level_law(int(t)).atom_mass(outputs.astype(float))
        probs = []
        for g, pg in zip(outputs, esw):
            m = ppm.sampled_count(int(t), int(g))
            a = ppm.feature_budget(t) / m
            for subset in itertools.combinations(range(d), m):
                for signs in itertools.product((-1, 1), repeat=m):
                    p = np.prod([0.5 + 0.5 * s * x[j] * math.tanh(a / 2) for j, s in zip(subset, signs)])
                    probs.append(pg * p / math.comb(d, m))
        table.append(probs)
    table = np.array(table)
    assert np.allclose(table.sum(axis=1), 1.0)
    return float(np.max(table.max(axis=0) / table.min(axis=0)))


def test_joint_record_bound_of_the_corrected_mode_C10():
    ppm = PPM(1.0, 3, h=3, mode="corrected")
    ratio = _joint_max_ratio(ppm)
    assert ratio == pytest.approx(10.11, abs=0.01)
    assert ratio <= math.exp(ppm.joint_eps()) == pytest.approx(12.18, abs=0.01)


def test_ppm_star_has_a_paper_mode_only():
    star = PPM(8.0, 20, feature="ppm_star")
    assert star.feature_mechanism(1).name == "ppm_star"
    with pytest.raises(ValueError, match="corrected"):
        PPM(1.0, 20, mode="corrected", feature="ppm_star")


@pytest.mark.parametrize("kwargs, word", [({"gamma": 1.0}, "gamma"), ({"mode": "fixed"}, "mode"), ({"h": 0}, "h"),
                                          ({"d": 0}, "d"), ({"eps": -1.0}, "eps"), ({"eps": 100.0}, "eps"),
                                          ({"m": 0}, "m")])
def test_bad_parameters_name_themselves(kwargs, word):
    params = {"eps": 1.0, "d": 4, **kwargs}
    with pytest.raises(ValueError, match=word):
        PPM(**params)


def test_bad_levels_are_rejected():
    with pytest.raises(ValueError, match="tau"):
        PPM(1.0, 4).perturb(np.zeros((2, 4)), np.array([0, 6]), np.random.default_rng(0))


@pytest.mark.parametrize("mode", ["paper", "corrected"])
def test_ppm_estimate_uses_public_inputs_only_and_matches_each_users_mechanism(mode):
    ppm = PPM(2.0, 5, mode=mode)
    tau = np.tile(np.arange(1, 6), 8)
    reports = ppm.perturb(np.random.default_rng(3).uniform(-1, 1, (40, 5)), tau, np.random.default_rng(4))
    estimate = ppm.estimate(reports)
    for i in range(40):
        mech = ppm.feature_mechanism(int(tau[i]), int(reports.levels[i]))
        assert np.allclose(estimate[i], mech.estimate(reports.features[i]))
