"""Batched runs (issue 24): a run's result never depends on its batch mates, the stacked layers are the
torch-geometric layers' maths, and a diverging run leaves the others alone. CPU, one thread, bit-identical.
tests/models/test_cpu_code_paths.py runs the identity tests here again under every CPU code path (issue 43)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from ldp_audit import streams
from ldp_audit.models import synthetic
from ldp_audit.models.training import RunCache, RunConfig, modules, train_batch, train_run
from ldp_audit.models.training import batched as batched_module
from ldp_audit.models.training.batched import train_batch as train_batch_direct

torch.set_num_threads(1)


def _cache():
    graph = synthetic.csbm(n=240, classes=4, avg_degree=5.0, homophily=0.85, d=30, signal=0.25, seed=5)
    # odd sizes (issue 43): no run's slab of a stacked tensor is a whole number of SIMD vectors or cache lines, so
    # a run's values sit at another alignment and partly in a vector loop's scalar tail, depending on its place
    odd = synthetic.csbm(n=241, classes=7, avg_degree=5.0, homophily=0.85, d=37, signal=0.25, seed=6)
    return RunCache(graphs={"csbm": graph, "odd": replace(odd, name="odd")}, max_features=64)


def _config(**changes):
    base = dict(dataset="csbm", lr=0.01, weight_decay=0.001, epochs=25, seed=0)
    return RunConfig(**{**base, **changes})


def _same(a, b) -> bool:
    return a.config == b.config and a.metrics == b.metrics and a.curves == b.curves


#: Runs of one batch shape per backbone: seeds, budgets, mechanisms (PPM: FlexProp per seed), K, label noise.
MATES = {
    "lpgnn": [dict(eps_x=1.0, k_x=2), dict(eps_x=1.0, k_x=4, seed=1), dict(k_x=0, seed=2), dict(eps_x=0.5, k_x=2),
              dict(eps_x=1.0, k_x=2, eps_y=1.0, seed=3), dict(features="rnd", k_x=1, self_loops=True)],
    "gcn": [dict(eps_x=1.0, k_x=2, model="gcn", dropout=0.5), dict(eps_x=2.0, k_x=0, model="gcn", dropout=0.5),
            dict(eps_x=1.0, mechanism="ppm", m="ppgnn", k_x=2, model="gcn", dropout=0.5, seed=4),
            dict(eps_x=1.0, mechanism="laplace_hd", m="all", k_x=1, model="gcn", dropout=0.5, seed=1,
                 aggregator="mean", self_loops=True)],
    "sage": [dict(eps_x=1.0, eps_y=1.0, k_x=2, k_y=2, model="sage", objective="drop", selection="ccs", dropout=0.25),
             dict(eps_x=1.0, eps_y=2.0, k_x=0, k_y=2, model="sage", objective="drop", selection="ccs", dropout=0.25,
                  seed=1),
             dict(eps_x=0.5, eps_y=1.0, k_x=4, k_y=2, model="sage", objective="drop", selection="ccs", dropout=0.25,
                  seed=2)],
    # PPGNN's released protocol (issue 26): the saturating loss and the all-improve checkpoint rule
    "sage-released": [dict(eps_x=1.0, k_x=2, model="sage", objective="saturating", selection="all_improve",
                           dropout=0.75, weight_decay=0.01),
                      dict(eps_x=0.5, k_x=0, model="sage", objective="saturating", selection="all_improve",
                           dropout=0.75, weight_decay=0.01, seed=1),
                      dict(eps_x=1.0, mechanism="ppm", m="ppgnn", k_x=2, model="sage", objective="saturating",
                           selection="all_improve", dropout=0.75, weight_decay=0.01, seed=2)],
    # odd node, class, feature and hidden counts; dense (Laplace) and sparse (multi-bit) reports, both orders
    "sage-odd": [dict(dataset="odd", hidden=12, model="sage", eps_x=1.0, k_x=k, seed=s, objective="drop", k_y=1,
                      eps_y=2.0, selection="ccs", dropout=0.25, **extra)
                 for s, (k, extra) in enumerate([(0, {}), (3, {}), (1, dict(mechanism="laplace_hd", m="all")),
                                                 (5, dict(mechanism="laplace_hd", m="all")), (2, {})])],
    # five runs on ONE dense report (RND features, K = 0: one perturbation, label budgets differ): one GEMM over
    # their weights side by side sums the fifth run's columns in another order than alone (MKL's AVX2 path)
    "lpgnn-shared-report": [dict(features="rnd", k_x=0, eps_y=e, selection=s)
                            for e, s in [(None, "val_loss"), (1.0, "val_loss"), (2.0, "ccs"), (3.0, "val_loss"),
                                         (0.5, "ccs")]],
    "gcn-odd": [dict(dataset="odd", hidden=12, model="gcn", eps_x=e, k_x=k, seed=s, dropout=0.5)
                for s, (e, k) in enumerate([(1.0, 0), (2.0, 4), (0.5, 1), (1.0, 2), (1.0, 8)])],
}


def test_train_batch_is_importable_from_the_package_and_its_module():
    assert train_batch is train_batch_direct
    assert _config().batch_key() == _config(seed=3, eps_x=1.0, k_x=4).batch_key()
    assert _config().batch_key() != _config(model="gcn").batch_key()


@pytest.mark.parametrize("model", sorted(MATES))
def test_a_run_gives_the_same_result_alone_and_in_any_batch(model):
    configs = [_config(**changes) for changes in MATES[model]]
    assert len({c.batch_key() for c in configs}) == 1
    alone = [train_run(c, "cpu", _cache()) for c in configs]
    together = train_batch(configs, "cpu", _cache())
    reversed_pairs = train_batch(configs[::-1][:2], "cpu", _cache())
    assert all(_same(a, t) for a, t in zip(alone, together))
    assert _same(reversed_pairs[0], alone[-1]) and _same(reversed_pairs[1], alone[-2])
    assert len({r.metrics["test_acc"] for r in alone}) > 1  # the runs really differ


def test_a_batch_mixing_shapes_returns_results_in_config_order_and_gat_trains_alone():
    configs = [_config(k_x=1, model="gat", epochs=5), _config(eps_x=1.0, k_x=2), _config(model="gcn", seed=1),
               _config(eps_x=1.0, k_x=2, seed=2)]
    results = train_batch(configs, "cpu", _cache())
    assert [r.config for r in results] == configs
    assert all(_same(r, train_run(c, "cpu", _cache())) for r, c in zip(results, configs))


def test_a_diverging_run_does_not_disturb_its_batch_mates():
    configs = [_config(eps_x=1.0, k_x=2, seed=s) for s in range(3)]
    clean = train_batch(configs, "cpu", _cache())
    cache = _cache()
    broken = cache.node_features(configs[1], cache.graph("csbm")).copy()
    broken[0, 0] = np.inf  # its loss is NaN from the first epoch on, and so are its parameters
    cache.features[configs[1].perturbation_key()] = broken
    results = train_batch(configs, "cpu", cache)
    assert np.isnan(results[1].curves["train_loss"][-1])
    assert _same(results[0], clean[0]) and _same(results[2], clean[2])


@pytest.mark.parametrize("model", ["lpgnn", "gcn", "sage"])
def test_stacked_layers_compute_what_the_torch_geometric_modules_compute(model):
    cache, config = _cache(), _config(model=model, seed=7)
    graph = cache.graph("csbm")
    backbone, _ = batched_module._stacked_backbone([config, replace(config, seed=8)], graph, "cpu", cache)
    x = torch.as_tensor(cache.node_features(config, graph), dtype=torch.float32)
    edge_index = torch.as_tensor(np.hstack([graph.edges, graph.edges[::-1]]))
    with torch.no_grad():
        evaluated, trained = backbone.logits(training=False), backbone.logits(training=True)
    for run, seed in enumerate((7, 8)):
        torch.manual_seed(batched_module.runtime.torch_seed(seed, *streams.INIT.key()))
        net = modules.build(model, x.shape[1], config.hidden, graph.num_classes, 0.0).eval()
        with torch.no_grad():
            assert torch.allclose(evaluated[run], net(x, edge_index), atol=1e-5)
            assert torch.allclose(trained[run], net.train()(x, edge_index), atol=1e-5)


def test_a_batch_longer_than_a_stack_trains_in_stacks_with_the_same_results(monkeypatch):
    configs = [_config(eps_x=1.0, k_x=2, seed=s) for s in range(3)]
    whole = train_batch(configs, "cpu", _cache())
    monkeypatch.setattr(batched_module, "STACK_SIZE", 2)
    assert batched_module.stack_size(_cache().graph("csbm")) == 2
    assert all(_same(a, b) for a, b in zip(train_batch(configs, "cpu", _cache()), whole))
    monkeypatch.setattr(batched_module, "REPORT_BYTES", 1)  # not even one dense report fits: one run per stack
    assert batched_module.stack_size(_cache().graph("csbm")) == 1


def test_the_alone_versus_batch_check_catches_runs_that_share_statistics(monkeypatch):
    """Power: a stacked BatchNorm that pools its statistics over the whole stack (runs leak into each other) must
    make a run's result depend on its batch mates."""
    from ldp_audit.models.training import stacked

    def pooled(self, z, training):
        mean, var = z.mean((0, 1), keepdim=True), z.var((0, 1), unbiased=False, keepdim=True)
        return (z - mean) / torch.sqrt(var + 1e-5) * self.params["gamma"].unsqueeze(1) + \
            self.params["beta"].unsqueeze(1)

    monkeypatch.setattr(stacked.StackedBackbone, "_batch_norm", pooled)
    configs = [_config(eps_x=1.0, k_x=2, seed=s) for s in range(2)]
    assert not _same(train_batch(configs, "cpu", _cache())[0], train_run(configs[0], "cpu", _cache()))
