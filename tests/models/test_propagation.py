"""Propagation against the exact operators: karate club, graphs with isolated nodes, the literal Algorithm 3."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from ldp_audit.models import propagation as prop
from ldp_audit.models.synthetic import csbm, karate

pytestmark = pytest.mark.graph


@pytest.fixture(scope="module")
def club():
    return karate().adjacency


@pytest.fixture(scope="module")
def with_isolated(club):
    """Karate plus a separate path 35-36-37 and three isolated nodes 34, 38, 39."""
    extra = sp.csr_matrix(([1.0] * 4, ([1, 2, 2, 3], [2, 1, 3, 2])), shape=(6, 6))
    return sp.block_diag([club, extra]).tocsr()


def test_pi_properties_on_karate(club):
    """ldp-ge C11 reference numbers (spec §5 C11) and the closed form against the truncated series."""
    for r, (low, high) in {0.0: (1.0, 1.0), 0.5: (0.4847, 1.7435), 1.0: (0.2898, 3.5178)}.items():
        pi = prop.ppr_exact(club, 0.1, r)
        sums = pi.sum(axis=1)
        assert sums.min() == pytest.approx(low, abs=1e-4) and sums.max() == pytest.approx(high, abs=1e-4)
        assert pi.max() == pytest.approx(0.2208, abs=1e-4) and pi.diagonal().min() == pytest.approx(0.1111, abs=1e-4)
        assert (pi >= 0).all() and (pi <= 1).all() and (pi.diagonal() >= 0.1).all()
        p = prop.transition(club, r).toarray()
        series, term = np.zeros_like(p), 0.1 * np.eye(34)
        for _ in range(600):
            series += term
            term = 0.9 * term @ p
        assert np.abs(series - pi).max() < 1e-10
    assert np.allclose(prop.ppr_exact(club, 0.1, 1.0).sum(axis=0), 1.0)
    half = prop.ppr_exact(club, 0.1, 0.5)
    assert np.allclose(half, half.T)


@pytest.mark.parametrize("alpha", [0.1, 0.3, 0.5])
@pytest.mark.parametrize("r", [0.0, 0.5, 1.0])
def test_push_meets_its_error_bound(with_isolated, alpha, r):
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, size=(with_isolated.shape[0], 12))
    exact = prop.ppr_exact(with_isolated, alpha, r) @ x
    degrees = prop.safe_degrees(with_isolated)
    previous = np.inf
    for r_max in (1e-2, 1e-3, 1e-4):
        for correction, factor in ((False, 1.0), (True, 1.0 - alpha)):
            result = prop.backward_push(with_isolated, x, alpha, r, r_max, residual_correction=correction)
            error = np.abs(result.z - exact).max(axis=1)
            assert result.max_residual <= r_max
            assert (error <= factor * degrees ** r * r_max + 1e-12).all()
            assert (error <= result.error_bound + 1e-12).all()
        plain = np.abs(prop.backward_push(with_isolated, x, alpha, r, r_max).z - exact).max()
        assert plain <= previous
        previous = plain


def test_push_narrow_and_wide_rounds_agree(club):
    x = np.random.default_rng(2).uniform(-1, 1, size=(34, 5))
    narrow = prop.backward_push(club, x, 0.2, 0.5, 1e-6, dense_fraction=1.0)
    wide = prop.backward_push(club, x, 0.2, 0.5, 1e-6, dense_fraction=0.0, block=2)
    exact = prop.ppr_exact(club, 0.2, 0.5) @ x
    assert np.abs(narrow.z - exact).max() <= narrow.error_bound.max()
    assert np.abs(wide.z - exact).max() <= wide.error_bound.max()


def test_isolated_nodes_keep_alpha_times_their_row(with_isolated):
    pi = prop.ppr_exact(with_isolated, 0.2, 0.5)
    for v in (34, 38, 39):
        assert np.allclose(pi[v], 0.2 * np.eye(with_isolated.shape[0])[v])
    x = np.arange(40.0).reshape(40, 1) / 40
    iso = [34, 38, 39]
    assert np.allclose(prop.backward_push(with_isolated, x, 0.2, 0.5, 1e-9).z[iso, 0], 0.2 * x[iso, 0])
    assert np.allclose(prop.KProp(steps=2).apply(with_isolated, x)[iso], 0.0)


def test_literal_algorithm3_is_eq2_with_r_plus_one(club):
    """ldp-ge E2 / C12(e): dividing by the pusher's degree converges to Eq. 2 with r + 1."""
    x = np.random.default_rng(3).uniform(-1, 1, size=(34, 8))
    literal = prop.backward_push(club, x, 0.1, 0.5, 1e-9, divide_by="pusher").z
    exact = prop.ppr_exact(club, 0.1, 0.5) @ x
    assert np.abs(literal - exact).max() > 0.5
    degrees = prop.safe_degrees(club)
    shifted = np.diag(degrees ** 0.5) @ club.toarray() @ np.diag(degrees ** -1.5)
    wrong = 0.1 * np.linalg.solve(np.eye(34) - 0.9 * shifted, x)
    assert np.abs(literal - wrong).max() < 1e-6


def test_power_iteration_and_rows_match_exact(with_isolated):
    x = np.random.default_rng(4).uniform(-1, 1, size=(40, 6))
    for r in (0.0, 0.5, 1.0):
        pi = prop.ppr_exact(with_isolated, 0.15, r)
        power = prop.ppr_power(with_isolated, x, 0.15, r, tol=1e-9)
        assert (np.abs(power.z - pi @ x).max(axis=1) <= power.error_bound + 1e-15).all()
        assert power.error_bound.max() <= 1e-9
        assert np.abs(prop.ppr_rows(with_isolated, [0, 33, 35, 38], 0.15, r) - pi[[0, 33, 35, 38]]).max() < 1e-11
        operator = prop.PPR(alpha=0.15, r=r, method="push", r_max=1e-8)
        assert np.abs(operator.apply(with_isolated, x) - pi @ x).max() < 1e-6
        assert np.allclose(prop.PPR(alpha=0.15, r=r, method="exact").dense(with_isolated), pi)


def test_kprop_operators():
    graph = csbm(n=60, avg_degree=3, seed=2)
    a = graph.adjacency.toarray()
    deg = a.sum(axis=1)
    inv = np.divide(1, deg, out=np.zeros_like(deg), where=deg > 0)
    x = np.random.default_rng(5).normal(size=(60, 3))
    mean = np.diag(inv) @ a
    gcn = np.diag(np.sqrt(inv)) @ a @ np.diag(np.sqrt(inv))
    for k in (0, 1, 3):
        assert np.allclose(prop.KProp(steps=k).apply(graph.adjacency, x), np.linalg.matrix_power(mean, k) @ x)
        assert np.allclose(prop.KProp(steps=k, aggregator="gcn").dense(graph.adjacency),
                           np.linalg.matrix_power(gcn, k))
    looped = a + np.eye(60)
    assert np.allclose(prop.KProp(steps=1, self_loops=True).dense(graph.adjacency),
                       looped / looped.sum(axis=1, keepdims=True))
    with pytest.raises(ValueError, match="aggregator"):
        prop.KProp(aggregator="max")
    with pytest.raises(ValueError, match="steps"):
        prop.KProp(steps=-1)


def test_flexprop_weights_and_operator():
    graph = csbm(n=40, avg_degree=3, seed=3)
    tau_prime = np.random.default_rng(6).integers(1, 8, size=40).astype(float)
    w = prop.flexprop_weights("tau_prime", tau_prime=tau_prime)
    op = prop.FlexProp(steps=2, weights=w)
    step = op.step_matrix(graph.adjacency).toarray()
    support = graph.adjacency.toarray() + np.eye(40)
    expected = support * tau_prime[None, :]
    expected /= expected.sum(axis=1, keepdims=True)
    assert np.allclose(step, expected) and np.allclose(step.sum(axis=1), 1.0)
    assert np.allclose(op.dense(graph.adjacency), step @ step)
    uniform = prop.flexprop_weights("uniform", num_nodes=40)
    assert np.allclose(prop.FlexProp(steps=1, weights=uniform).dense(graph.adjacency),
                       support / support.sum(axis=1, keepdims=True))
    assert np.allclose(prop.flexprop_weights("inv_var", variances=[2.0, 4.0]), [0.5, 0.25])
    with pytest.raises(ValueError, match="needs tau"):
        prop.flexprop_weights("true_tau")
    with pytest.raises(ValueError, match="positive"):
        prop.flexprop_weights("tau_prime", tau_prime=[1.0, 0.0])


def test_bad_parameters_name_themselves(club):
    x = np.zeros((34, 1))
    for kwargs, name in (({"alpha": 0.0}, "alpha"), ({"alpha": 1.0}, "alpha"), ({"r": 1.5}, "r"),
                         ({"r_max": 0.0}, "r_max")):
        args = {"alpha": 0.1, "r": 0.5, "r_max": 1e-3, **kwargs}
        with pytest.raises(ValueError, match=name):
            prop.backward_push(club, x, **args)
    with pytest.raises(ValueError, match="one row per node"):
        prop.backward_push(club, np.zeros((5, 1)), 0.1, 0.5, 1e-3)
    with pytest.raises(ValueError, match="finite"):
        prop.ppr_power(club, np.full((34, 1), np.nan), 0.1, 0.5)
    with pytest.raises(ValueError, match="at most"):
        prop.ppr_exact(sp.identity(prop.DENSE_LIMIT + 1, format="csr"), 0.1, 0.5)
