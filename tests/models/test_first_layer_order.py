"""The stacked first layer in either order, C (X' W) or (C X') W (issue 24, PubMed): both compute the same
layer, each run's order is decided by its config and dataset alone, so a run stays bit-identical alone and in a
batch that mixes the orders. CPU, one thread."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from ldp_audit.models import synthetic
from ldp_audit.models.training import RunCache, RunConfig, stacked, train_batch, train_run
from ldp_audit.models.training import batched

torch.set_num_threads(1)


def _cache():
    graph = synthetic.csbm(n=240, classes=4, avg_degree=5.0, homophily=0.85, d=30, signal=0.25, seed=5)
    return RunCache(graphs={"csbm": graph}, max_features=64)


def _config(**changes):
    base = dict(dataset="csbm", lr=0.01, weight_decay=0.001, epochs=20, seed=0)
    return RunConfig(**{**base, **changes})


def _same(a, b) -> bool:
    return a.config == b.config and a.metrics == b.metrics and a.curves == b.curves


def _chain_lengths(first: stacked.FirstLayer) -> list:
    """Per term and run: the steps left to apply per pass (0 where the chain was folded into the report)."""
    return [[len(chain) for chain in chains] for _, chains in first.terms]


#: Sparse products cost 3 dense ones per multiply-add in these tests (whatever the tuned constant): on the test graph
#: (n = 240, d = 30, about 1,200 stored entries per step) a multi-bit run (sparse report) at K = 1 stays in the
#: product order and one at K = 4 goes features first; K = 0 has no chain (for LPGNN) at all.
COST = 3.0


@pytest.fixture(autouse=True)
def sparse_cost(monkeypatch):
    monkeypatch.setattr(stacked, "SPARSE_COST", COST)

MIXED = {"lpgnn": [dict(eps_x=1.0, k_x=1), dict(eps_x=1.0, k_x=4), dict(features="rnd", k_x=4, seed=1),
                   dict(eps_x=1.0, k_x=0, seed=2)],
         "gcn": [dict(model="gcn", eps_x=1.0, k_x=0),
                 dict(model="gcn", eps_x=1.0, mechanism="laplace_hd", m="all", k_x=4),
                 dict(model="gcn", eps_x=1.0, mechanism="ppm", m="ppgnn", k_x=4, seed=1)],
         "sage": [dict(model="sage", eps_x=1.0, k_x=0), dict(model="sage", eps_x=1.0, k_x=4, seed=1)]}


def test_the_rule_weighs_the_chain_against_one_dense_product_and_sends_dense_reports_first():
    cache = _cache()
    graph = cache.graph("csbm")
    configs = [_config(eps_x=1.0, k_x=k) for k in (0, 1, 4)] + [_config(features="rnd", k_x=2)]
    first, _ = batched._first_layer(configs, graph, "cpu", cache)
    (reports, chains), = first.terms
    assert _chain_lengths(first) == [[0, 1, 0, 0]]  # K = 4 folded its 4 steps into its report, RND its 2
    assert reports[0] is reports[1] and reports[2] is not reports[0]  # K = 0 and 1 share the seed's report X'
    assert reports[1].sparse is not None and reports[3].sparse is None and reports[3].dense is not None
    step = chains[1][0]
    n, d = graph.num_nodes, graph.num_features
    assert COST * step.nnz < n * d <= COST * 4 * step.nnz  # multi-bit: the chain alone decides
    assert COST * 2 * step.nnz < n * d  # RND at K = 2: its chain alone would not tip the balance, but a dense
    # report's own n x d x h product is paid per pass in either order, so any chain goes first
    assert stacked.features_first([step], n, d, True) and not stacked.features_first([step], n, d, False)
    assert not stacked.features_first([], n, d, True)  # nothing to propagate


@pytest.mark.parametrize("model", sorted(MIXED))
def test_both_orders_compute_the_same_layer_and_gradients(model, monkeypatch):
    configs = [_config(**changes) for changes in MIXED[model]]
    layers = {}
    for name, cost in (("product", 0.0), ("features", math.inf)):
        monkeypatch.setattr(stacked, "SPARSE_COST", cost)
        cache = _cache()
        first, width = batched._first_layer(configs, cache.graph("csbm"), "cpu", cache)
        assert (max(map(max, _chain_lengths(first))) == 0) == (cost == math.inf)
        torch.manual_seed(3)
        weights = [torch.randn(len(configs), width, 16, requires_grad=True) for _ in first.terms]
        out = first.output(weights)
        grad = torch.randn_like(out)
        (out * grad).sum().backward()
        layers[name] = (out.detach(), [w.grad for w in weights])
    (out_p, grads_p), (out_f, grads_f) = layers["product"], layers["features"]
    close = lambda a, b: torch.allclose(a, b, rtol=0, atol=1e-5 * float(a.abs().max()))  # noqa: E731 float32
    assert close(out_p, out_f) and all(close(a, b) for a, b in zip(grads_p, grads_f))
    assert not torch.equal(out_p, out_f)  # the two orders really ran


@pytest.mark.parametrize("model", sorted(MIXED))
def test_a_run_is_bit_identical_alone_and_in_a_batch_that_mixes_the_orders(model):
    configs = [_config(**changes) for changes in MIXED[model]]
    cache = _cache()
    first, _ = batched._first_layer(configs, cache.graph("csbm"), "cpu", cache)
    lengths = [n for term in _chain_lengths(first) for n in term]
    assert 0 in lengths and max(lengths) > 0  # really mixed: folded and propagated chains in one stack
    together = train_batch(configs, "cpu", _cache())
    assert all(_same(train_run(c, "cpu", _cache()), t) for c, t in zip(configs, together))
    assert all(_same(a, b) for a, b in zip(train_batch(configs[::-1], "cpu", _cache())[::-1], together))


def test_the_orders_round_differently_so_a_rule_that_saw_batch_mates_would_be_caught(monkeypatch):
    """Power of the alone-versus-batch check above: the two orders agree to float rounding, not bit for bit, so a
    rule that chose a run's order from its batch (say, features first only in a batch) would change its result."""
    config = _config(eps_x=1.0, k_x=4)
    results = {}  # the fixture's COST is replaced by the two extremes
    for name, cost in (("product", 0.0), ("features", math.inf)):
        monkeypatch.setattr(stacked, "SPARSE_COST", cost)
        results[name] = train_run(config, "cpu", _cache())
    product, features = results["product"], results["features"]
    assert not _same(product, features)
    assert np.allclose(product.curves["train_loss"], features.curves["train_loss"], rtol=1e-3)
