"""The training core on tiny graphs (CSBM, karate): determinism, memoisation, propagation, objectives, store."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
import torch

from ldp_audit.models import synthetic
from ldp_audit.models.training import RunCache, RunConfig, RunResult, RunStore, train_run
from ldp_audit.models.training import modules, stages, sweep
from ldp_audit.models.training.runtime import choose_device

torch.set_num_threads(1)


def _graph(shuffle: bool = False):
    graph = synthetic.csbm(n=300, classes=4, avg_degree=5.0, homophily=0.85, d=40, signal=0.25, seed=3)
    if shuffle:
        graph = replace(graph, y=np.random.default_rng(0).permutation(graph.y))
    return graph


def _cache(graph=None):
    return RunCache(graphs={"csbm": graph or _graph()})


def _config(**changes):
    base = dict(dataset="csbm", lr=0.01, weight_decay=0.001, epochs=60, seed=0)
    return RunConfig(**{**base, **changes})


def test_training_is_deterministic_per_seed():
    config = _config(eps_x=1.0, k_x=2)
    first, second = train_run(config, "cpu", _cache()), train_run(config, "cpu", _cache())
    assert first.curves == second.curves and first.metrics == second.metrics
    other = train_run(replace(config, seed=1), "cpu", _cache())
    assert other.curves["train_loss"] != first.curves["train_loss"]


def test_kprop_zero_is_the_identity_and_one_step_with_loops_is_a_gcn_layer():
    from torch_geometric.nn import GCNConv

    graph = _graph()
    cache = _cache(graph)
    config = _config(k_x=0)
    raw = torch.as_tensor(cache.node_features(config, graph), dtype=torch.float32)
    assert torch.equal(cache.propagated_features(config, graph, "cpu"), raw)
    # KProp(1, gcn, self-loops) + Linear is the first layer of the seed's plain GCN
    one_step = cache.propagated_features(_config(k_x=1, self_loops=True), graph, "cpu")
    net = modules.LPGNNNet(raw.shape[1], 16, 4, 0.0)
    conv = GCNConv(raw.shape[1], 16)
    with torch.no_grad():
        conv.lin.weight.copy_(net.first.weight)
        conv.bias.copy_(net.first.bias)
        edge_index = torch.as_tensor(np.hstack([graph.edges, graph.edges[::-1]]))
        assert torch.allclose(net.first(one_step), conv(raw, edge_index), atol=1e-5)


def test_the_perturbation_is_drawn_once_per_user_and_seed():
    cache = _cache()
    a = train_run(_config(eps_x=1.0, k_x=0), "cpu", cache)
    b = train_run(_config(eps_x=1.0, k_x=3, dropout=0.5), "cpu", cache)
    assert cache.draws == 1 and a.metrics != b.metrics
    reports = cache.node_features(_config(eps_x=1.0), cache.graph("csbm"))
    assert reports is cache.node_features(_config(eps_x=1.0, k_x=5), cache.graph("csbm"))
    values = np.unique(reports)  # the rectified multi-bit estimate takes exactly three values (lpgnn M2)
    assert values.size == 3 and np.isclose(values[1], 0.5)
    train_run(_config(eps_x=1.0, seed=1), "cpu", cache)
    assert cache.draws == 2


def test_randomized_response_touches_only_train_and_validation_labels():
    y = np.arange(400) % 4
    nodes = np.arange(200)
    noisy = stages.perturb_labels(y, 4, 0.5, nodes, np.random.default_rng(0))
    assert np.array_equal(noisy.observed[200:], y[200:]) and (noisy.observed[:200] != y[:200]).mean() > 0.3
    assert np.allclose(noisy.transition.sum(axis=1), 1.0)
    assert np.array_equal(stages.perturb_labels(y, 4, None, nodes, None).transition, np.eye(4))


def test_pipeline_learns_and_shuffled_labels_stay_near_chance():
    learned = train_run(_config(k_x=2), "cpu", _cache())
    shuffled = train_run(_config(k_x=2), "cpu", _cache(_graph(shuffle=True)))
    assert learned.test_accuracy > 0.75
    assert shuffled.test_accuracy < 0.25 + 0.12  # 4 classes; 75 test nodes


def test_drop_on_clean_labels_is_no_worse_than_cross_entropy():
    drop = [train_run(_config(k_x=2, objective="drop", k_y=2, seed=s), "cpu", _cache()).test_accuracy
            for s in range(2)]
    plain = [train_run(_config(k_x=2, seed=s), "cpu", _cache()).test_accuracy for s in range(2)]
    assert np.mean(drop) >= np.mean(plain) - 0.03


def test_drop_under_label_noise_beats_cross_entropy():
    noisy = dict(k_x=2, eps_y=1.0, epochs=80, selection="ccs")
    drop = train_run(_config(objective="drop", k_y=2, **noisy), "cpu", _cache()).test_accuracy
    plain = train_run(_config(objective="cross_entropy", **noisy), "cpu", _cache()).test_accuracy
    assert drop > plain + 0.05


def test_capped_selection_follows_a5():
    rule = stages.CappedValidation(np.full((4, 4), 0.1) + 0.6 * np.eye(4))  # maxacc = 0.7
    best = {"val_loss": 1.0, "val_acc": 0.5, "train_acc": 0.5}
    assert rule.better({"val_loss": 0.9, "val_acc": 0.6, "train_acc": 0.6}, best)
    assert not rule.better({"val_loss": 0.9, "val_acc": 0.75, "train_acc": 0.6}, best)  # above maxacc
    assert not rule.better({"val_loss": 1.1, "val_acc": 0.6, "train_acc": 0.6}, best)


def test_result_json_round_trips(tmp_path):
    result = train_run(_config(epochs=5), "cpu", _cache())
    store = RunStore(tmp_path)
    path = store.save(result)
    assert store.load(result.config) == result
    data = json.loads(path.read_text())
    assert data["seed"] == 0 and data["device"] == "cpu" and set(data["versions"]) >= {"torch", "ldp_audit"}
    assert len(data["curves"]["val_acc"]) == 5 and RunResult.from_dict(data) == result


def test_runs_sharing_a_perturbation_travel_together():
    configs = [_config(epochs=5, seed=s, k_x=k) for k in (1, 2) for s in range(2)]
    groups = sweep.group_for_reuse(configs, RunConfig.perturbation_key)
    assert groups == [[configs[0], configs[2]], [configs[1], configs[3]]]
    assert sweep.group_for_reuse(configs, None) == [[c] for c in configs]


@pytest.mark.parametrize("changes, parameter", [
    ({"eps_x": 0.0}, "eps_x"), ({"eps_x": -1.0}, "eps_x"), ({"k_x": -1}, "k_x"), ({"model": "mlp"}, "model"),
    ({"features": "rnd", "eps_x": 1.0}, "eps_x"), ({"k_y": 2}, "k_y"), ({"dropout": 1.0}, "dropout")])
def test_bad_configs_name_the_parameter(changes, parameter):
    with pytest.raises(ValueError, match=parameter):
        _config(**changes)


def test_cuda_without_cuda_is_refused(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # the same on a machine that has CUDA
    with pytest.raises(ValueError, match="cuda"):
        choose_device("cuda")
    assert choose_device(None) == "cpu"


@pytest.mark.parametrize("model", ["gcn", "sage", "gat"])
def test_two_layer_backbones_give_the_same_output_on_the_sparse_adjacency(model):
    from torch_geometric.utils import to_torch_csr_tensor

    graph = _graph()
    torch.manual_seed(0)
    net = modules.build(model, 40, 8, 4, 0.0).eval()
    x = torch.rand(graph.num_nodes, 40)
    edge_index = torch.as_tensor(np.hstack([graph.edges, graph.edges[::-1]]))
    adj_t = to_torch_csr_tensor(edge_index.flip(0), size=(graph.num_nodes, graph.num_nodes))
    assert net.sparse_input and torch.allclose(net(x, edge_index), net(x, adj_t), atol=1e-5)


def test_sage_with_drop_learns_under_label_noise():
    result = train_run(_config(k_x=2, eps_y=2.0, model="sage", objective="drop", k_y=2, selection="ccs",
                               epochs=80), "cpu", _cache())
    assert result.test_accuracy > 0.6
