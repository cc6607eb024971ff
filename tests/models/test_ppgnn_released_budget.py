"""E16 under the released PPM: the mean feature budget is what the run's users spend, min(d, M) eps_2 / m' from
the very level and count draws the run's features used, not the nominal (1 - gamma) eps^tau."""
from __future__ import annotations

from dataclasses import replace

import pytest

from ldp_audit import streams
from ldp_audit.mechanisms.personalised import PersonalisedMechanism
from ldp_audit.models import synthetic
from ldp_audit.models.training import ppgnn, stages
from ldp_audit.seeding import rng_for


def _released(seed: int = 0):
    return replace(ppgnn.ppgnn_config("csbm", "PPM", 1.0, 2, seed), epochs=5, ppm_variant="released")


def test_released_budget_is_the_spend_of_the_runs_own_count_draws(monkeypatch):
    graph = synthetic.csbm(n=200, classes=4, avg_degree=5.0, homophily=0.85, d=30, signal=0.25, seed=3)
    config, drawn = _released(), []
    perturb_counts = PersonalisedMechanism.perturb_counts
    monkeypatch.setattr(PersonalisedMechanism, "perturb_counts",
                        lambda self, tau, rng: drawn.append(perturb_counts(self, tau, rng)) or drawn[-1])
    stages.FEATURES["raw"].node_features(graph, config, rng_for(config.seed, *streams.FEATURES.key()))
    (counts,) = drawn
    tau, _ = stages.run_levels(config, graph.num_nodes)
    nominal = (1 - config.ppm_gamma) * config.eps_x * 2.0 ** (tau - 1)
    spent = nominal * min(30, counts.max()) / counts
    budget = stages.mean_feature_budget(config, graph.num_nodes, 30)
    assert budget == pytest.approx(spent.mean())
    assert budget > nominal.mean()  # users below the largest count spend more than claimed
    spec = replace(config, ppm_variant="spec")
    assert stages.mean_feature_budget(spec, graph.num_nodes, 30) == pytest.approx(nominal.mean())


def test_released_budget_needs_the_feature_count():
    with pytest.raises(ValueError, match="num_features"):
        stages.mean_feature_budget(_released(), 200)
