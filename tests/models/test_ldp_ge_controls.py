"""LDP-GE's structure-only control (``structure_only``): the users report on uniform random features, so the
server's embedding holds the graph and the mechanism's noise, and nothing of the data. CPU only, seconds."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy import sparse

from ldp_audit.models import data as datasets
from ldp_audit.models.training import ldp_ge


def _graph_with(x: np.ndarray):
    graph = datasets.load("csbm")
    return replace(graph, x=sparse.csr_matrix(x[:graph.num_nodes]))


def _reports(graph, config, seed: int = 3):
    return ldp_ge.client_reports(graph, config, np.random.default_rng(seed))


def test_the_control_reports_do_not_depend_on_the_features():
    rng = np.random.default_rng(1)
    ones, other = (_graph_with(rng.integers(0, 2, size=(1000, 16)).astype(float)) for _ in range(2))
    hds = ldp_ge.preset("csbm", "node", mechanism="HDS", eps=1.0)
    control = replace(hds, structure_only=True)
    assert np.array_equal(_reports(ones, control), _reports(other, control))
    assert not np.array_equal(_reports(ones, hds), _reports(other, hds))  # the data's own reports do
    assert not np.array_equal(_reports(ones, control), _reports(ones, hds))


def test_the_control_features_are_uniform_over_the_public_range():
    graph = _graph_with(np.zeros((1000, 16)))
    clear = ldp_ge.preset("csbm", "node", eps=None, raw_clear=True, structure_only=True)
    x = _reports(graph, clear)
    lo, hi = graph.feature_range
    assert x.shape == (graph.num_nodes, 16) and lo <= x.min() and x.max() <= hi
    assert abs(x.mean() - (lo + hi) / 2) < 0.02 * (hi - lo)  # 16,000 uniform draws: sd of the mean 0.002 (hi - lo)


def test_the_control_is_keyed_apart_and_named_in_the_caveats():
    hds = ldp_ge.preset("cora", "node", mechanism="HDS", eps=1.0)
    control = replace(hds, structure_only=True)
    assert "structure_only" not in hds.key() and control.key() != hds.key()
    assert "structure_only=True" in control.caveats() and not hds.caveats()


def test_the_control_refuses_a_non_boolean():
    import pytest

    with pytest.raises(ValueError, match="structure_only must be True or False"):
        ldp_ge.preset("cora", "node", structure_only="yes")
