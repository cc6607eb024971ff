"""SE-PrivGEmb StrucEqu beyond the spec's metric (issue 26): the released code's row pairing, the degree-only and
permuted controls, and the metrics a StrucEqu run records."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from ldp_audit.models import se_privgemb as model
from ldp_audit.models.se_privgemb_runs import strucequ_key, strucequ_metrics


def _adjacency(graph: nx.Graph) -> sp.csr_matrix:
    return sp.csr_matrix(nx.to_numpy_array(graph, nodelist=range(graph.number_of_nodes()), weight=None))


@pytest.fixture(scope="module")
def sparse_graph():
    """A connected sparse graph with heterogeneous degrees (preferential attachment, 80 nodes)."""
    return _adjacency(nx.barabasi_albert_graph(80, 2, seed=3))


def test_degree_only_embedding_sees_the_degree_sequence_and_nothing_else():
    # a 6-cycle and two triangles: every node has degree 2, the structures differ
    cycle, triangles = _adjacency(nx.cycle_graph(6)), _adjacency(nx.disjoint_union(nx.cycle_graph(3),
                                                                                     nx.cycle_graph(3)))
    assert np.array_equal(model.degree_only_embedding(cycle, 16, seed=4),
                          model.degree_only_embedding(triangles, 16, seed=4))
    # in a 2-regular graph the control is pure noise: nothing to correlate with
    ring = _adjacency(nx.cycle_graph(200))
    assert abs(model.struc_equ(ring, model.degree_only_embedding(ring, 32, seed=0))) < 0.05
    assert model.struc_equ(ring, ring.toarray()) == pytest.approx(1.0)


def test_degree_only_control_scores_high_on_a_sparse_graph(sparse_graph):
    """Why the control is needed: with no structure at all it reaches a large StrucEqu on a sparse graph."""
    y = model.degree_only_embedding(sparse_graph, 128, seed=0)
    assert y.shape == (80, 128)
    assert model.struc_equ(sparse_graph, y) > 0.6


def test_the_controls_keep_the_draws_the_stored_runs_were_measured_with():
    """benchmarks/results/se_privgemb/controls-cpu/ holds controls drawn from keys (1,) and (2,) under the run's
    seed; the registered families (ldp_audit/streams.py) must keep those numbers."""
    cycle = _adjacency(nx.cycle_graph(6))
    assert model.degree_only_embedding(cycle, 2, seed=3)[0] == pytest.approx([-1.29847413, 0.07488565])
    assert model.permuted_embedding(np.arange(8), seed=3).tolist() == [5, 2, 6, 1, 4, 0, 3, 7]


def test_permuted_control_destroys_a_planted_structural_signal(sparse_graph):
    planted = sparse_graph.toarray()  # Y = A: StrucEqu exactly 1
    shuffled = model.permuted_embedding(planted, seed=0)
    assert sorted(map(tuple, shuffled)) == sorted(map(tuple, planted))  # the same rows, other owners
    assert model.struc_equ(sparse_graph, planted) == pytest.approx(1.0)
    assert model.struc_equ(sparse_graph, shuffled) < 0.5


def test_released_evaluation_with_a_mismatched_order_scores_worse_than_aligned(sparse_graph):
    planted = sparse_graph.toarray()
    aligned = model.struc_equ(sparse_graph, planted, evaluation="released")
    assert aligned == pytest.approx(model.struc_equ(sparse_graph, planted))  # <= 2000 nodes: same as the spec's
    order = np.random.default_rng(0).permutation(80)
    mismatched = model.struc_equ(sparse_graph, planted, evaluation="released", adjacency_order=order)
    assert mismatched < aligned - 0.3
    # pairing embedding row i with adjacency row order[i] is the same as permuting the embedding by order^-1
    inverse = np.argsort(order)
    assert mismatched == pytest.approx(model.struc_equ(sparse_graph, planted[inverse]))


def test_networkx_node_order_is_the_order_networkx_holds_the_listed_pairs():
    pairs = np.array([[5, 5, 2, 0, 3], [3, 2, 7, 1, 6]])
    graph = nx.Graph()
    graph.add_edges_from(pairs.T.tolist())
    assert model.networkx_node_order(pairs).tolist() == list(graph.nodes())
    adjacency = nx.to_numpy_array(graph)  # rows in that order
    assert np.array_equal(adjacency, nx.to_numpy_array(graph, nodelist=model.networkx_node_order(pairs).tolist()))


def test_struc_equ_rejects_a_bad_evaluation_or_order(sparse_graph):
    y = sparse_graph.toarray()
    with pytest.raises(ValueError, match="evaluation"):
        model.struc_equ(sparse_graph, y, evaluation="paper")
    with pytest.raises(ValueError, match="permutation"):
        model.struc_equ(sparse_graph, y, evaluation="released", adjacency_order=np.zeros(80, int))
    with pytest.raises(ValueError, match="same node"):
        model.struc_equ(sparse_graph, y, adjacency_order=np.arange(80))


def test_a_strucequ_run_records_both_evaluations_with_their_controls(sparse_graph):
    y = sparse_graph.toarray()
    order = np.random.default_rng(1).permutation(80)
    metrics = strucequ_metrics(sparse_graph, y, 0, order)
    assert set(metrics) == {strucequ_key(e, c) for e in ("spec", "released")
                            for c in ("measured", "degree_only", "permuted")}
    assert strucequ_key() == "strucequ" and strucequ_key("released", "permuted") == "strucequ_released_permuted"
    assert metrics["strucequ"] == pytest.approx(1.0) and metrics["strucequ_released"] < 0.7


def test_released_evaluation_samples_ten_percent_of_a_large_graph(monkeypatch):
    import scipy.spatial.distance as distance

    seen = []
    real = distance.pdist
    monkeypatch.setattr(distance, "pdist", lambda y: seen.append(y.shape[0]) or real(y))
    ring = _adjacency(nx.cycle_graph(2100))
    y = np.random.default_rng(0).standard_normal((2100, 4))
    model.struc_equ(ring, y, evaluation="released")
    model.struc_equ(ring, y)
    assert seen == [210, 2000]  # released: 10% of the nodes; spec: 2000 nodes (U10)
