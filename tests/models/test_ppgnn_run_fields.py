"""PPGNN's run fields (issue 25): h, gamma, the level distribution and the propagation round-trip, enter the key only
when set, change the run, and refuse bad values naming the field; PPM* and every propagation choice change the
features the backbone sees; h = 1 gives every user MB's budget; a fixed m replaces Algorithm 2's rule."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ldp_audit import streams
from ldp_audit.mechanisms.personalised import PersonalisedMechanism
from ldp_audit.models import synthetic
from ldp_audit.models.propagation import FlexProp, KProp, flexprop_weights
from ldp_audit.models.training import RunConfig, ppgnn, stages

NEW_FIELDS = {"ppm_levels": 3, "ppm_gamma": 0.3, "level_distribution": "bimodal", "propagation": "kprop"}


def _graph():
    return synthetic.csbm(n=200, classes=4, avg_degree=5.0, homophily=0.85, d=30, signal=0.25, seed=3)


def _ppm(**changes) -> RunConfig:
    return replace(ppgnn.ppgnn_config("csbm", "PPM", 1.0, 2, 0), epochs=5, **changes)


def _features(config, graph) -> np.ndarray:
    return stages.FEATURES[config.features].node_features(graph, config, np.random.default_rng(config.seed))


def _propagated(config, graph) -> np.ndarray:
    x = _features(config, graph)
    return stages.propagate(stages.feature_propagation(config), graph.adjacency, x, "cpu").numpy()


@pytest.mark.parametrize("field, value", NEW_FIELDS.items())
def test_a_new_field_round_trips_and_enters_the_key_only_when_set(field, value):
    base = _ppm()
    changed = replace(base, **{field: value})
    assert RunConfig.from_dict(changed.to_dict()) == changed
    assert changed.key() != base.key()
    assert field not in base.keyed_fields() and changed.keyed_fields()[field] == value
    # a config written before the field existed (no such key in its JSON) reads back with the paper's default
    old = {k: v for k, v in base.to_dict().items() if k not in NEW_FIELDS}
    assert RunConfig.from_dict(old) == base and RunConfig.from_dict(old).key() == base.key()


@pytest.mark.parametrize("field", ["ppm_levels", "ppm_gamma", "level_distribution"])
def test_each_level_field_changes_the_reports(field):
    graph, base = _graph(), _ppm()
    changed = replace(base, **{field: NEW_FIELDS[field]})
    assert changed.perturbation_key() != base.perturbation_key()
    assert not np.array_equal(_features(changed, graph), _features(base, graph))


def test_default_fields_leave_the_perturbation_key_and_the_uniform_draw_as_before():
    config = _ppm()
    assert len(config.perturbation_key()) == 6  # the key of every run stored before issue 25
    tau, _ = stages.run_levels(config, 500)
    from ldp_audit.seeding import rng_for

    expected = rng_for(0, *streams.FEATURE_LEVELS.key()).integers(1, 6, size=500)
    np.testing.assert_array_equal(tau, expected)


def test_strict_relaxed_and_bimodal_levels_as_the_paper_defines_them():
    """Sec. IV-C: Strict, every user at the smallest budget eps (level 1); Relaxed, every user at the largest
    budget of the ladder (level h); Bimodal, a random half at level 1 and the other half at level h."""
    n = 501
    strict, _ = stages.run_levels(_ppm(level_distribution="strict"), n)
    relaxed, _ = stages.run_levels(_ppm(level_distribution="relaxed", ppm_levels=4), n)
    bimodal, _ = stages.run_levels(_ppm(level_distribution="bimodal"), n)
    assert (strict == 1).all() and (relaxed == 4).all()
    assert set(np.unique(bimodal)) == {1, 5} and (bimodal == 5).sum() == n // 2
    other, _ = stages.run_levels(_ppm(level_distribution="bimodal", seed=1), n)
    assert not np.array_equal(other, bimodal)  # the half is drawn per run
    assert stages.mean_feature_budget(_ppm(level_distribution="strict"), n) == pytest.approx(0.5)
    assert stages.mean_feature_budget(_ppm(level_distribution="relaxed"), n) == pytest.approx(0.5 * 16)


def test_one_level_gives_every_user_mbs_budget():
    """h = 1: every user is at level 1 with eps^1 = eps_x, MB's budget; the level report is the constant 1; the
    features keep Algorithm 3's (1 - gamma) eps."""
    config = _ppm(ppm_levels=1)
    mechanism = stages.personalised_mechanism(config, 30)
    tau, tau_prime = stages.run_levels(config, 300)
    assert (tau == 1).all() and (tau_prime == 1).all()
    assert float(mechanism.budget(tau).max()) == config.eps_x == ppgnn.ppgnn_config("csbm", "MB", 1.0, 2, 0).eps_x
    assert stages.mean_feature_budget(config, 300) == pytest.approx((1 - config.ppm_gamma) * config.eps_x)
    assert mechanism.level_law(1).atom_mass(1.0) == 1.0
    with pytest.raises(ValueError, match="single level"):
        mechanism.level_mechanism(1)
    # FlexProp over equal reported levels is the mean over A + I
    graph = _graph()
    step = stages.feature_propagation(config).step_matrix(graph.adjacency)
    assert abs(step - KProp(2, aggregator="mean", self_loops=True).step_matrix(graph.adjacency)).max() < 1e-12


def test_a_fixed_m_replaces_algorithm_2s_rule():
    mechanism = stages.personalised_mechanism(_ppm(m=4), 30)
    assert [mechanism.sampled_count(t) for t in (1, 5)] == [4, 4]
    assert stages.personalised_mechanism(_ppm(), 30).sampled_count(1) == 1  # floor(0.5 / 2.2) -> 1
    assert PersonalisedMechanism(1.0, 3, m=10).sampled_count(2) == 3  # capped at d
    graph = _graph()
    nonzero = (_features(_ppm(m=4), graph) != 0).sum(axis=1)
    assert (nonzero == 4).all()
    with pytest.raises(ValueError, match="m of a personalised mechanism"):
        stages.personalised_mechanism(_ppm(m="lpgnn"), 30)


def test_ppm_star_reports_laplace_values_and_changes_the_features():
    graph = _graph()
    star, ppm = _features(_ppm(mechanism="ppm_star"), graph), _features(_ppm(), graph)
    assert not np.array_equal(star, ppm)
    assert np.unique(np.abs(ppm[ppm != 0])).size <= 5  # MLR: one magnitude per level
    assert np.unique(np.abs(star[star != 0])).size > 100  # PPM*: continuous Laplace values
    mechanism = stages.personalised_mechanism(_ppm(mechanism="ppm_star"), 30)
    assert mechanism.feature == "ppm_star" and mechanism.mode == "paper"
    assert isinstance(stages.feature_propagation(_ppm(mechanism="ppm_star")), stages.LevelFlexProp)


def test_each_propagation_choice_changes_the_features_the_backbone_sees():
    graph = _graph()
    ppm = {p: _propagated(_ppm(propagation=p, aggregator="mean", self_loops=False), graph)
           for p in ("auto", "flexprop", "kprop")}
    np.testing.assert_array_equal(ppm["auto"], ppm["flexprop"])  # auto = FlexProp for PPM (today's behaviour)
    assert not np.allclose(ppm["kprop"], ppm["flexprop"])
    assert stages.feature_propagation(_ppm(propagation="kprop", aggregator="mean")) == KProp(2, aggregator="mean")
    mb = RunConfig("csbm", eps_x=1.0, k_x=2, epochs=5)  # LPGNN's KProp: GCN aggregator, no self-loops
    mb_flex = replace(mb, propagation="flexprop")
    assert stages.feature_propagation(mb) == KProp(2, aggregator="gcn")
    assert not np.allclose(_propagated(mb, graph), _propagated(mb_flex, graph))
    # MB users report no level: FlexProp's weights are all equal, i.e. the mean over A + I
    equal = FlexProp(2, weights=flexprop_weights("tau_prime", tau_prime=np.ones(graph.num_nodes)))
    assert abs(stages.feature_propagation(mb_flex).step_matrix(graph.adjacency)
               - equal.step_matrix(graph.adjacency)).max() < 1e-12


@pytest.mark.parametrize("changes, field, allowed", [
    ({"ppm_levels": 0}, "ppm_levels", ">= 1"),
    ({"ppm_levels": 17}, "ppm_levels", "[1, 16]"),
    ({"ppm_levels": 2.5}, "ppm_levels", ">= 1"),
    ({"ppm_levels": True}, "ppm_levels", ">= 1"),
    ({"ppm_gamma": 0.0}, "ppm_gamma", "(0, 1)"),
    ({"ppm_gamma": 1.0}, "ppm_gamma", "(0, 1)"),
    ({"ppm_gamma": float("nan")}, "ppm_gamma", "(0, 1)"),
    ({"ppm_gamma": "half"}, "ppm_gamma", "(0, 1)"),
    ({"level_distribution": "skewed"}, "level_distribution", "uniform, strict, relaxed, bimodal"),
    ({"propagation": "ppr"}, "propagation", "auto, kprop, flexprop"),
])
def test_bad_values_name_the_field_and_the_allowed_range(changes, field, allowed):
    with pytest.raises(ValueError) as error:
        RunConfig("cora", **changes)
    assert field in str(error.value) and allowed in str(error.value)
