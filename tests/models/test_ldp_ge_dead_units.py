"""``ldp_ge.training`` is the run ``reproduce`` trains, epoch for epoch, for both tasks, and
``benchmarks/ldp_ge_dead_units.py`` counts live units and distinct outputs right: a network whose first layer is
dead gives 0 live units and one output, whatever its input. CPU only, seconds."""
from __future__ import annotations

import pytest
import torch

from conftest import benchmark_script
from ldp_audit import streams
from ldp_audit.models import data as datasets
from ldp_audit.models.training import ldp_ge
from ldp_audit.models.training.ldp_ge_models import node_model
from ldp_audit.seeding import rng_for


@pytest.mark.parametrize("task", ["node", "link"])
def test_training_is_the_stored_run_epoch_for_epoch(task):
    graph = datasets.load("csbm")
    config = ldp_ge.preset("csbm", task, mechanism="LP", eps=1.0, method="auto", seed=3, epochs=3)
    stored = next(iter(ldp_ge.run_ldp_ge(config, graph).curves.values()))
    run = ldp_ge.training(graph, ldp_ge.client_reports(graph, config, rng_for(3, *streams.FEATURES.key())), config)
    for epoch in range(3):
        run.epoch_step()
        assert run.evaluate()[0] == pytest.approx(stored[epoch], abs=1e-6)
    assert run.validation_inputs().shape[1] == run.embedding.shape[1]


def test_live_units_sees_a_dead_network_and_a_live_one():
    script = benchmark_script("ldp_ge_dead_units")
    torch.manual_seed(0)
    inputs = torch.randn(50, 8)
    model = node_model(8, 3, "mlp", layers=3, hidden=16, dropout=0.0)
    live, distinct = script.live_units(model, inputs)
    assert 0 < live <= 1 and distinct == 50
    with torch.no_grad():
        model.linears[0].weight.fill_(-1.0)
    live, distinct = script.live_units(model, inputs.abs())  # every first-layer unit negative on every input
    assert live == 0.0 and distinct == 1
    assert torch.equal(model(inputs.abs()), torch.zeros(50, 3))  # bias-free: all-zero logits, argmax class 0
