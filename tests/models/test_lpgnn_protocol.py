"""LPGNN's released protocol (issue 26): the released split draw and the paper's K grid change what they claim, the
preset round-trips, and runs stored before ``split_rule`` existed keep their keys. CPU only, no dataset."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from ldp_audit.models import data as datasets
from ldp_audit.models.training import RunConfig
from ldp_audit.models.training.cache import split_nodes
from ldp_audit.models.training.protocols import Element, Protocol, one_at_a_time, protocol
from ldp_audit.models.training.released_splits import RELEASED_ORDER, lpgnn_released_split


class _Graph:
    def __init__(self, name, num_nodes):
        self.name, self.num_nodes = name, num_nodes


def test_the_released_split_is_the_seeded_torch_permutation_validation_first():
    train, val, test = lpgnn_released_split("cora", 2708, 12345)
    torch.manual_seed(12345)  # what the released error.py does before processing Cora
    order = torch.randperm(2708).numpy()
    assert np.array_equal(val, np.sort(order[:677])) and np.array_equal(test, np.sort(order[677:1354]))
    assert np.array_equal(train, np.sort(order[1354:]))
    assert (len(train), len(val), len(test)) == (1354, 677, 677)


def test_a_later_dataset_draws_after_the_ones_processed_before_it():
    torch.manual_seed(12345)
    torch.randperm(2708)  # Cora's draw comes first in the released order
    citeseer = torch.randperm(3327).numpy()
    _, val, _ = lpgnn_released_split("citeseer", 3327, 12345)
    assert np.array_equal(val, np.sort(citeseer[:831]))
    assert [name for name, _ in RELEASED_ORDER][:3] == ["cora", "citeseer", "pubmed"]


def test_the_released_split_refuses_other_datasets_and_other_sizes():
    with pytest.raises(ValueError, match="released LPGNN split"):
        lpgnn_released_split("wikipedia_crocodile", 11631, 12345)
    with pytest.raises(ValueError, match="2708"):
        lpgnn_released_split("cora", 2700, 12345)


def test_a_released_split_of_a_dataset_the_released_code_never_split_is_refused_by_the_config():
    with pytest.raises(ValueError, match="split_rule='released' is the LPGNN code's split of cora"):
        RunConfig("wikipedia_crocodile", split_rule="released")


def test_split_rule_picks_the_draw_and_the_spec_split_is_unchanged():
    graph = _Graph("cora", 2708)
    spec = split_nodes(graph, 12345)
    assert all(np.array_equal(a, b) for a, b in zip(spec, datasets.node_split(2708, 12345)))
    released = split_nodes(graph, 12345, "released")
    assert all(np.array_equal(a, b) for a, b in zip(released, lpgnn_released_split("cora", 2708, 12345)))
    assert not np.array_equal(spec[2], released[2])
    assert sorted(np.concatenate(released).tolist()) == list(range(2708))  # a partition


def test_split_rule_is_keyed_only_when_set_and_batches_apart():
    spec = RunConfig("cora", eps_x=1.0, k_x=4)
    released = protocol("lpgnn", "released").apply(spec)
    assert released.split_rule == "released" and spec.split_rule == "spec"
    assert "split_rule" not in spec.keyed_fields() and released.keyed_fields()["split_rule"] == "released"
    assert spec.key() != released.key() and spec.batch_key() != released.batch_key()
    with pytest.raises(ValueError, match="split_rule"):
        RunConfig("cora", split_rule="fresh")


def test_the_lpgnn_presets_round_trip_and_the_released_k_grid_is_the_papers():
    released = protocol("lpgnn", "released")
    assert Protocol.from_dict(json.loads(json.dumps(released.to_dict()))) == released
    assert released.k_values((2, 8, 16, 32)) == (1, 2, 4, 8, 16, 32)
    assert protocol("lpgnn", "spec").k_values((2, 8, 16, 32)) == (2, 8, 16, 32)
    assert protocol("lpgnn", "spec").apply(RunConfig("cora", k_x=2)) == RunConfig("cora", k_x=2)
    assert all("d306f1d" in e.source for e in (*released.elements, released.k_grid))


def test_a_k_grid_must_be_a_k_grid_element():
    with pytest.raises(ValueError, match="k_grid"):
        Protocol("lpgnn", "x", k_grid=Element("k_x", (1, 2), "s", "e"))
    with pytest.raises(ValueError, match="k_grid"):
        Protocol("lpgnn", "x", k_grid=Element("k_grid", (1, -2), "s", "e"))


def test_one_at_a_time_switches_the_split_back_to_the_spec():
    grid = one_at_a_time(RunConfig("cora", eps_x=1.0, k_x=4), protocol("lpgnn", "released"))
    assert set(grid) == {"released", "split_rule -> spec"}
    assert grid["split_rule -> spec"] == RunConfig("cora", eps_x=1.0, k_x=4)
