"""RunConfig.train_fraction (lpgnn RQ4 / Fig. 7): validated, round-trips, keeps old keys at its default, and
changes the run: a run trains on a seeded subset of the training split, the same alone and in a batch."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from ldp_audit.models import synthetic
from ldp_audit.models.training import RunCache, RunConfig, train_batch, train_run
from ldp_audit.models.training.batched import _labels
from ldp_audit.models.training.cache import split_nodes
from ldp_audit.models.training.label_rate import labelled_training_nodes

torch.set_num_threads(1)


def _graph():
    return synthetic.csbm(n=240, classes=4, avg_degree=5.0, homophily=0.85, d=30, signal=0.25, seed=5)


def _config(**changes):
    return RunConfig(**{**dict(dataset="csbm", eps_x=1.0, k_x=2, epochs=20), **changes})


@pytest.mark.parametrize("bad", [0, 0.0, -0.1, 1.5, float("nan"), True, "half"])
def test_bad_train_fraction_names_the_field_and_range(bad):
    with pytest.raises(ValueError, match=r"train_fraction must lie in \(0, 1\]"):
        _config(train_fraction=bad)


def test_train_fraction_round_trips_and_enters_the_key_only_when_set():
    config = _config(train_fraction=0.2, seed=3)
    assert RunConfig.from_dict(config.to_dict()) == config
    assert _config(train_fraction=1).key() == _config().key()
    assert "train_fraction" not in _config().keyed_fields()
    assert _config(train_fraction=0.2).key() != _config().key()
    assert _config().batch_key() == _config(seed=4).batch_key()  # whole-split runs still stack across seeds
    assert _config(train_fraction=0.2).batch_key() != _config(train_fraction=0.2, seed=4).batch_key()
    assert _config(train_fraction=0.2).batch_key() == _config(train_fraction=0.2, k_x=8, eps_x=0.1).batch_key()


def test_the_subset_is_seeded_nested_and_of_the_asked_size():
    train = np.arange(100, 300)
    assert labelled_training_nodes(train, 1.0, 7) is train
    small, large = labelled_training_nodes(train, 0.2, 7), labelled_training_nodes(train, 0.6, 7)
    assert small.size == 40 and large.size == 120 and set(small) <= set(large) and set(large) <= set(train)
    assert np.array_equal(small, labelled_training_nodes(train, 0.2, 7))
    assert not np.array_equal(small, labelled_training_nodes(train, 0.2, 8))  # redrawn per run


def test_a_fraction_changes_the_training_nodes_and_the_run():
    graph = _graph()
    full_train = split_nodes(graph, 12345)[0]
    batch = _labels([_config(train_fraction=0.2, seed=1)], graph, "cpu")
    assert batch.train.numel() == round(0.2 * full_train.size)
    assert set(batch.train.tolist()) <= set(full_train.tolist())
    cache = RunCache(graphs={"csbm": graph})
    whole, part = train_run(_config(), "cpu", cache), train_run(_config(train_fraction=0.2), "cpu", cache)
    assert whole.curves["train_loss"] != part.curves["train_loss"]


def test_a_subset_run_is_the_same_alone_and_in_its_batch():
    configs = [_config(train_fraction=0.4, seed=2), _config(train_fraction=0.4, seed=2, k_x=4, eps_x=0.5)]
    together = train_batch(configs, "cpu", RunCache(graphs={"csbm": _graph()}))
    alone = [train_run(c, "cpu", RunCache(graphs={"csbm": _graph()})) for c in configs]
    assert [r.metrics for r in together] == [r.metrics for r in alone]
