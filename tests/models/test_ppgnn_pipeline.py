"""PPGNN on the training core (tiny CSBM graphs): PPM feature reports, FlexProp on the reported levels, ESW's law
for the reported levels, the gamma -> 0 limit, paper vs corrected modes, E16's budget, determinism per seed."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch
from scipy.stats import chisquare

from ldp_audit.mechanisms.personalised import PersonalisedMechanism
from ldp_audit.models import synthetic
from ldp_audit.models.propagation import FlexProp, KProp, flexprop_weights
from ldp_audit.models.training import RunCache, train_run
from ldp_audit.models.training import ppgnn, stages

torch.set_num_threads(1)


def _graph():
    return synthetic.csbm(n=300, classes=4, avg_degree=5.0, homophily=0.85, d=40, signal=0.25, seed=3)


def _config(mechanism="PPM", eps=1.0, k=2, seed=0, **changes):
    return replace(ppgnn.ppgnn_config("csbm", mechanism, eps, k, seed), epochs=40, **changes)


def test_flexprop_with_equal_levels_is_kprop_mean_with_self_loops():
    graph = _graph()
    x = np.random.default_rng(0).normal(size=(graph.num_nodes, 5))
    equal = FlexProp(3, weights=flexprop_weights("tau_prime", tau_prime=np.full(graph.num_nodes, 4)))
    kprop = KProp(3, aggregator="mean", self_loops=True)
    np.testing.assert_allclose(equal.apply(graph.adjacency, x), kprop.apply(graph.adjacency, x), atol=1e-12)
    # and the MB cells of Table III use exactly that KProp
    mb = _config("MB")
    assert stages.feature_propagation(mb) == KProp(2, aggregator="mean", self_loops=True)


def test_ppm_runs_get_flexprop_on_the_same_reported_levels_as_their_features():
    graph, config = _graph(), _config()
    propagation = stages.feature_propagation(config)
    assert isinstance(propagation, stages.LevelFlexProp)
    _, tau_prime = stages.personalised_levels(stages.personalised_mechanism(config, 1), graph.num_nodes, 0)
    expected = FlexProp(2, weights=flexprop_weights("tau_prime", tau_prime=tau_prime)).step_matrix(graph.adjacency)
    step = propagation.step_matrix(graph.adjacency)
    assert abs(step - expected).max() == 0
    np.testing.assert_allclose(np.asarray(step.sum(axis=1)).ravel(), 1.0)
    # a different seed draws different levels, hence a different Pi
    other = stages.feature_propagation(replace(config, seed=1)).step_matrix(graph.adjacency)
    assert abs(other - step).max() > 0


def test_ppm_pipeline_is_deterministic_per_seed():
    graph = _graph()
    first = train_run(_config(), "cpu", RunCache(graphs={"csbm": graph}))
    second = train_run(_config(), "cpu", RunCache(graphs={"csbm": graph}))
    assert first.curves == second.curves and first.metrics == second.metrics
    other = train_run(_config(seed=1), "cpu", RunCache(graphs={"csbm": graph}))
    assert other.curves["train_loss"] != first.curves["train_loss"]


def _chi_square_p(observed: np.ndarray, law) -> float:
    """p-value of the tau' sample against ``law``; a value outside the law's support gives 0."""
    support = law.values[law.probs > 0]
    if not np.isin(observed, support).all():
        return 0.0
    counts = np.array([(observed == v).sum() for v in support])
    return float(chisquare(counts, law.probs[law.probs > 0] * observed.size).pvalue)


def test_reported_levels_follow_the_esw_law_of_each_level():
    """Chi-square of tau' among users at level tau against ESW's exact law at gamma eps^tau (alpha = 1e-3 per
    level); the law of the neighbouring level (a mutant with the wrong budget) is rejected."""
    mechanism = stages.personalised_mechanism(_config(eps=1.0), 1)
    tau, tau_prime = stages.personalised_levels(mechanism, 50_000, seed=7)
    for level in range(1, 6):
        assert _chi_square_p(tau_prime[tau == level], mechanism.level_law(level)) > 1e-3
    assert _chi_square_p(tau_prime[tau == 1], mechanism.level_law(2)) < 1e-6


def test_gamma_to_zero_makes_the_reported_level_uninformative():
    near_zero = PersonalisedMechanism(1.0, 10, h=5, gamma=1e-9)
    laws = [near_zero.level_law(t) for t in range(1, 6)]
    support = np.arange(1, 5 + 2 * near_zero.level_mechanism(1).half_width + 1)
    table = np.array([[law.atom_mass(float(v)) for v in support] for law in laws])
    assert np.abs(table - table[0]).max() < 1e-8  # every level gives tau' the same law
    bayes = table.max(axis=0).sum() / 5  # accuracy of the best guess of tau from tau'
    assert bayes == pytest.approx(0.2, abs=1e-8)
    informative = PersonalisedMechanism(1.0, 10, h=5, gamma=0.5)
    table = np.array([[informative.level_law(t).atom_mass(float(v)) for v in support] for t in range(1, 6)])
    assert table.max(axis=0).sum() / 5 > 0.3


def test_paper_mode_reveals_the_level_in_the_value_scale_and_corrected_mode_does_not():
    """E5: client-rectified reports have a magnitude that is a function of tau; the corrected server estimate's
    magnitude is a function of the public tau' only (spec A4 rectify="server")."""
    graph = _graph()
    for mechanism, leaks in (("ppm", True), ("ppm_corrected", False)):
        config = replace(_config(eps=1.0), mechanism=mechanism)
        x = stages.PersonalisedFeatures().node_features(graph, config, np.random.default_rng(0))
        tau, tau_prime = stages.personalised_levels(stages.personalised_mechanism(config, 1), graph.num_nodes, 0)
        magnitude = np.abs(x).max(axis=1)
        by_level = {t: np.unique(np.round(magnitude[tau == t], 6)) for t in np.unique(tau)}
        assert all(v.size == 1 for v in by_level.values()) == leaks
        if leaks:
            assert len({float(v[0]) for v in by_level.values()}) == len(by_level)  # injective in tau
        else:
            for reported in np.unique(tau_prime):
                assert np.unique(np.round(magnitude[tau_prime == reported], 6)).size == 1


def test_modes_differ_in_the_level_budget_exactly_as_the_spec_says():
    paper = PersonalisedMechanism(0.1, 10, mode="paper")
    corrected = PersonalisedMechanism(0.1, 10, mode="corrected")
    assert [paper.level_budget(t) for t in (1, 2, 5)] == pytest.approx([0.05, 0.1, 0.8])
    assert [corrected.level_budget(t) for t in (1, 2, 5)] == pytest.approx([0.05, 0.05, 0.05])
    assert [paper.feature_budget(t) for t in (1, 5)] == [corrected.feature_budget(t) for t in (1, 5)]


def test_e16_mean_feature_budget_is_about_three_point_one_eps():
    config = _config(eps=0.5)
    assert stages.mean_feature_budget(config, 200_000) == pytest.approx(3.1 * 0.5, rel=0.01)
    assert stages.mean_feature_budget(_config("MB", eps=0.5), 10) == 0.5


def test_table3_cells_cover_the_grid_and_refuse_unknown_input():
    cells = ppgnn.table3_cells(["cora"], (0.01, 1.0), ppgnn.MECHANISMS_QUICK, k_grid=(2, 8), runs=3)
    assert [c.column for c in cells] == ["MB eps=0.01", "PPM eps=0.01", "MB eps=1", "PPM eps=1"]
    assert all(len(c.configs()) == 6 for c in cells)
    full = ppgnn.table3_cells(["cora"], (0.01,), k_grid=(2,), runs=1)
    assert [c.column for c in full] == [f"{m} eps=0.01" for m in ("1B", "LP", "GM", "MB", "PPM")]
    with pytest.raises(ValueError, match="datasets"):
        ppgnn.table3_cells(["nope"])
    with pytest.raises(ValueError, match="mechanism"):
        ppgnn.ppgnn_config("cora", "AGM", 1.0, 2, 0)


def test_baselines_perturb_every_coordinate_at_eps_over_d_with_the_corrected_gaussian():
    """Spec §5.3: 1B, LP and GM give every coordinate eps/d; GM's sigma is E1's corrected classical one,
    sigma^2 = 8 d^2 ln(1.25 d / delta) / eps^2 with delta = 1e-5."""
    d, eps = 40, 0.5
    built = {name: stages.feature_mechanism(_config(name, eps=eps), d) for name in ("1B", "LP", "GM")}
    for name, mechanism in built.items():
        assert mechanism.k == d and mechanism.coordinate.eps == pytest.approx(eps / d), name
    assert built["1B"].coordinate.name == "one_bit" and built["LP"].coordinate.name == "laplace"
    assert built["GM"].coordinate.sigma ** 2 == pytest.approx(8 * d**2 * np.log(1.25 * d / 1e-5) / eps**2)
    assert stages.feature_mechanism(_config("MB", eps=eps), d).k == 1  # m by LPGNN's rule


@pytest.mark.parametrize("mechanism", ["1B", "LP", "GM", "MB"])
def test_baseline_estimates_are_unbiased_for_the_unit_features(mechanism):
    """The server's estimate of the [0, 1] features, whatever box the mechanism works on (LP and GM take
    [-1, 1]): mean residual over all n d entries within 4 standard errors of 0, at eps/d = 0.05."""
    graph = _graph()
    x = stages.unit_features(graph)
    estimate = stages.RawFeatures().node_features(graph, _config(mechanism, eps=2.0), np.random.default_rng(1))
    residual = estimate - x
    z = residual.mean() / (residual.std() / np.sqrt(residual.size))
    assert abs(z) < 4, (mechanism, z)
    assert abs(estimate.mean() - x.mean()) < 0.1 * estimate.std()


@pytest.mark.parametrize("mechanism", ["1B", "LP", "GM"])
def test_baselines_train_end_to_end(mechanism):
    graph = _graph()
    result = train_run(replace(_config(mechanism, eps=1.0), epochs=5), "cpu", RunCache(graphs={"csbm": graph}))
    assert 0.0 <= result.test_accuracy <= 1.0 and result.config.mechanism == ppgnn.MECHANISMS[mechanism][0]
