"""lpgnn C10: KProp's effective neighbourhood, exact on small graphs, with a bipartite counter-example."""
import numpy as np
import scipy.sparse as sp

from ldp_audit.audits.claims.lpgnn import check_effective_neighbourhood, effective_neighbourhood
from ldp_audit.models.synthetic import karate


def _status(results):
    return {r.name: r.status.value for r in results}


def test_neff_grows_and_converges_on_karate_and_the_star_erratum_fails():
    statuses = _status(check_effective_neighbourhood(karate().adjacency, "karate"))
    assert statuses == {"lpgnn.C10.neff-grows": "pass", "lpgnn.C10.limit": "pass", "lpgnn.C10 (E7)": "fail"}


def test_a_bipartite_graph_fails_growth_and_limit():
    # a 6-cycle is bipartite: A_hat^K alternates between even and odd distances and never converges
    ring = sp.csr_matrix((np.ones(12), (np.r_[np.arange(6), (np.arange(6) + 1) % 6],
                                        np.r_[(np.arange(6) + 1) % 6, np.arange(6)])), shape=(6, 6))
    statuses = _status(check_effective_neighbourhood(ring, "6-cycle"))
    assert statuses["lpgnn.C10.limit"] == "fail"


def test_neff_of_one_step_is_the_degree_weighted_count():
    adjacency = karate().adjacency
    degrees = np.asarray(sp.csr_matrix(adjacency).sum(axis=1)).ravel()
    expected = []
    for v in range(34):
        w = np.array([1.0 / np.sqrt(degrees[v] * degrees[u]) for u in sp.csr_matrix(adjacency)[v].indices])
        expected.append(w.sum() ** 2 / (w * w).sum())
    assert np.allclose(effective_neighbourhood(adjacency, 1), expected, rtol=1e-12)
