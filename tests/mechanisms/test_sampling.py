"""perturb() agrees with law(): goodness of fit at fixed seeds, output support, and the structure of the
sampled high-dimensional mechanisms (exactly k non-zeros, inclusion k/d, uniform subsets, sparse output, mask,
within-user covariance).

Every statistical test here is one member of a family whose false-alarm rate is FAMILY_ALPHA = 1e-3, split by
Bonferroni over all members (ALPHA below); seeds are derived from the test parameters, so a run is deterministic
and independent of order and process.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import sparse, stats

from conftest import case_id, eps_allowed, mechanism_cases, rng_for
from ldp_audit.mechanisms import make, sample_subsets

FAMILY_ALPHA = 1e-3
N = 100_000          # reports per goodness-of-fit test of a one-dimensional mechanism
N_HD = 40_000        # users per goodness-of-fit test of a high-dimensional mechanism (coordinate 0 is tested)
SAMPLING_EPS = [0.01, 1.0, 4.0]

GOF_CASES = [(name, params, eps) for name, params in mechanism_cases() for eps in SAMPLING_EPS
             if eps_allowed(name, params, eps)]
HD_CASES = [c for c in GOF_CASES if hasattr(make(c[0], eps=c[2], **c[1]), "perturb_sparse")]
COV_CASES = [("multibit", dict(d=6, k=2, alpha=0.0, beta=1.0), 3.0, (0, 1, 0.2, 0.9, 0.5, 0.7)),
             ("mlr", dict(d=10, k=1), 1.0, tuple(np.linspace(-1, 1, 10))),
             ("mlr", dict(d=10, k=2), 5.0, tuple(np.linspace(-1, 1, 10))),
             ("hds", dict(d=5, k=2), 2.0, (-1.0, 1.0, 0.5, -0.3, 0.8)),
             ("piecewise_hd", dict(d=5, k=2), 3.0, (-1.0, 1.0, 0.5, -0.3, 0.8))]

# members of the family: one GOF per (case, input) (+ the sparse and law.sample repeats), inclusion tests, subsets,
# covariance z-tests (3 pairs each)
_N_INPUTS = 5
N_TESTS = (len(GOF_CASES) * _N_INPUTS * 2 + len(HD_CASES) * (2 + _N_INPUTS) + 1 + 3 * len(COV_CASES))
ALPHA = FAMILY_ALPHA / N_TESTS


def gof_pvalue(samples: np.ndarray, law) -> float:
    """Exact-law goodness of fit for any law: chi-square over the atoms (plus one cell for the continuous part),
    and a KS test of the continuous part against its conditional cdf; the smaller p-value, Bonferroni x2."""
    samples = np.asarray(samples, dtype=np.float64)
    values, probs = law.atoms
    cont = law.continuous_mass
    pvals = []
    if len(values):
        is_atom = np.isin(samples, values)
        counts = np.array([np.count_nonzero(samples == v) for v in values] +
                          ([np.count_nonzero(~is_atom)] if cont > 1e-12 else []), dtype=float)
        expected = np.concatenate([probs, [cont] if cont > 1e-12 else []]) * len(samples)
        assert counts.sum() == len(samples), "samples outside the law's atoms and no continuous part"
        assert np.all(counts[expected == 0] == 0), "a sample hit an atom of probability 0"
        keep = expected > 0
        counts, expected = counts[keep], expected[keep]
        # merge cells with expected count < 5 into one
        small = expected < 5
        if small.any():
            counts = np.append(counts[~small], counts[small].sum())
            expected = np.append(expected[~small], expected[small].sum())
        if len(counts) > 1:
            pvals.append(stats.chisquare(counts, expected * counts.sum() / expected.sum()).pvalue)
        rest = samples[~is_atom]
    else:
        rest = samples
    if cont > 1e-12 and len(rest) > 0:
        atom_cdf = (lambda y: np.sum(probs[None, :] * (values[None, :] <= np.asarray(y)[:, None]), axis=1)) \
            if len(values) else (lambda y: 0.0)
        def conditional_cdf(y):
            y = np.asarray(y, dtype=np.float64)
            return np.clip((np.asarray(law.cdf(y)) - atom_cdf(y)) / cont, 0.0, 1.0)
        pvals.append(stats.kstest(rest, conditional_cdf).pvalue)
    return min(1.0, len(pvals) * min(pvals)) if pvals else 1.0


def _column(m, x, rng):
    """Reports of coordinate 0 of mechanism m at input x (a column of an HD report, or the 1-D report)."""
    if m.d == 1 and not hasattr(m, "perturb_sparse"):
        return m.perturb(np.full(N, x), rng)
    return m.perturb(np.full((N_HD, m.d), x), rng)[:, 0]


@pytest.mark.parametrize("name,params,eps", GOF_CASES, ids=[case_id(*c) for c in GOF_CASES])
def test_perturb_agrees_with_law(name, params, eps):
    m = make(name, eps=eps, **params)
    inputs = m.audit_inputs
    assert len(inputs) <= _N_INPUTS
    for x in inputs:
        law = m.law(x)
        rng = rng_for("perturb", name, params, eps, float(x))
        y = _column(m, x, rng)
        lo, hi = law.support
        assert np.all(np.isfinite(y)) and y.min() >= lo and y.max() <= hi, (x, y.min(), y.max(), law.support)
        p = gof_pvalue(y, law)
        assert p >= ALPHA, f"x={x}: goodness of fit p = {p:.3g} < {ALPHA:.2g}"
        # the law's own reference sampler must agree with it too
        p_ref = gof_pvalue(law.sample(N_HD // 2, rng_for("law.sample", name, params, eps, float(x))), law)
        assert p_ref >= ALPHA, f"law.sample at x={x}: p = {p_ref:.3g}"


@pytest.mark.parametrize("name,params,eps", GOF_CASES, ids=[case_id(*c) for c in GOF_CASES])
def test_estimate_support_and_shape(name, params, eps):
    m = make(name, eps=eps, **params)
    x = float(m.audit_inputs[0])
    rng = rng_for("estimate", name, params, eps)
    shape = (1000,) if (m.d == 1 and not hasattr(m, "perturb_sparse")) else (1000, m.d)
    reports = m.perturb(np.full(shape, x), rng)
    assert reports.shape == shape
    est = m.estimate(reports)
    assert est.shape == shape
    elo, ehi = m.estimate_law(x).support
    assert np.all(est >= elo - 1e-9 * max(1, abs(elo))) and np.all(est <= ehi + 1e-9 * max(1, abs(ehi)))
    assert np.allclose(est, m.estimate_shift + m.estimate_scale * reports, rtol=1e-15, atol=0)


def test_scalar_perturb_keeps_shape_and_accepts_seeds():
    m = make("laplace", eps=1.0)
    assert np.shape(m.perturb(0.3, 1)) == ()
    assert m.perturb(np.zeros(7), np.random.SeedSequence(3)).shape == (7,)
    a = m.perturb(np.zeros(50), 5)
    assert np.array_equal(a, m.perturb(np.zeros(50), np.random.default_rng(5)))


# ----- sampled (high-dimensional) structure ------------------------------------------------------------------------
@pytest.mark.parametrize("name,params,eps", HD_CASES, ids=[case_id(*c) for c in HD_CASES])
def test_exactly_k_per_row_mask_and_inclusion(name, params, eps):
    m = make(name, eps=eps, **params)
    n, d, k = N_HD, m.d, m.k
    lo, hi = m.domain
    x = rng_for("x", name, params).uniform(lo, hi, size=(n, d))
    reports, mask = m.perturb(x, rng_for("mask", name, params, eps), return_mask=True)
    assert reports.shape == (n, d) and mask.shape == (n, d) and mask.dtype == bool
    assert np.all(mask.sum(axis=1) == k)
    assert np.all(reports[~mask] == 0.0)
    # a sampled coordinate is 0 with probability 0 for every registered coordinate law except by the law's atoms
    law_atoms = m.coordinate.law(0.0).atoms[0] * m.client_scale
    if not np.any(law_atoms == 0):
        assert np.all(np.count_nonzero(reports, axis=1) == k)
    if k < d:
        # per-coordinate inclusion counts: sum (O - E)^2 / E is (d-k)/(d-1) * chi2(d-1) under uniform k-subsets
        counts = mask.sum(axis=0)
        expected = n * k / d
        stat = np.sum((counts - expected) ** 2 / expected) / ((d - k) / (d - 1))
        p = stats.chi2.sf(stat, d - 1)
        assert p >= ALPHA, f"inclusion frequencies {counts / n} vs k/d = {k / d}: p = {p:.3g}"
    # a single user (shape (d,)) gives shape (d,)
    one, one_mask = m.perturb(x[0], 1, return_mask=True)
    assert one.shape == (d,) and one_mask.shape == (d,) and one_mask.sum() == k


@pytest.mark.parametrize("name,params,eps", HD_CASES, ids=[case_id(*c) for c in HD_CASES])
def test_perturb_sparse_matches_dense(name, params, eps):
    m = make(name, eps=eps, **params)
    n, d, k = 20_000, m.d, m.k
    lo, hi = m.domain
    x = rng_for("xs", name, params).uniform(lo, hi, size=(n, d))
    csr = m.perturb_sparse(x, rng_for("sparse", name, params, eps))
    assert sparse.isspmatrix_csr(csr) and csr.shape == (n, d)
    assert np.all(np.diff(csr.indptr) == k) and csr.nnz == n * k
    assert csr.has_sorted_indices
    for row in (0, n // 2, n - 1):
        cols = csr.indices[csr.indptr[row]:csr.indptr[row + 1]]
        assert len(np.unique(cols)) == k
    # the same random stream gives the same reports dense and sparse
    dense = m.perturb(x, rng_for("same", name, params, eps))
    again = m.perturb_sparse(x, rng_for("same", name, params, eps))
    assert np.array_equal(again.toarray(), dense)
    # the sparse estimate agrees with the dense one
    assert np.allclose(np.asarray(sparse.csr_matrix(m.estimate(again)).toarray()) if sparse.issparse(m.estimate(again))
                       else m.estimate(again), m.estimate(dense), rtol=1e-15, atol=0)
    # and its coordinate-0 marginal follows the law (fresh stream)
    for x0 in m.audit_inputs:
        col = m.perturb_sparse(np.full((N_HD // 2, d), x0), rng_for("sparse-gof", name, params, eps, float(x0)))[:, 0]
        p = gof_pvalue(col.toarray().ravel(), m.law(x0))
        assert p >= ALPHA, f"sparse reports at x={x0}: p = {p:.3g}"


def test_sample_subsets_uniform_over_all_10_subsets():
    n, d, k = 200_000, 5, 2
    sub = sample_subsets(n, d, k, rng_for("subsets"))
    assert sub.shape == (n, k)
    assert np.all(sub[:, 0] != sub[:, 1]) and sub.min() >= 0 and sub.max() < d
    pairs = list(itertools.combinations(range(d), 2))
    code = np.sort(sub, axis=1) @ np.array([d, 1])
    counts = np.array([np.count_nonzero(code == a * d + b) for a, b in pairs])
    assert counts.sum() == n
    p = stats.chisquare(counts).pvalue
    assert p >= ALPHA, counts


@pytest.mark.parametrize("d,k", [(7, 1), (7, 7), (100, 70), (3, 2), (1, 1)])
def test_sample_subsets_distinct_and_in_range(d, k):
    sub = sample_subsets(2000, d, k, rng_for("subsets", d, k))
    assert sub.shape == (2000, k)
    s = np.sort(sub, axis=1)
    assert s.min() >= 0 and s.max() < d and np.all(np.diff(s, axis=1) > 0)


@pytest.mark.parametrize("name,params,eps,x", COV_CASES, ids=[f"{c[0]}-{c[2]}" for c in COV_CASES])
def test_within_user_covariance_formula(name, params, eps, x):
    """lpgnn E6 / ppgnn C7: Cov[x'_i, x'_j] of the server estimate, against Monte Carlo (z-test per pair)."""
    m = make(name, eps=eps, **params)
    x = np.asarray(x, dtype=np.float64)
    n = 400_000
    est = m.estimate(m.perturb(np.broadcast_to(x, (n, m.d)), rng_for("cov", name, params, eps)))
    z_crit = stats.norm.isf(ALPHA / 2)
    for i, j in [(0, 1), (0, 2), (2, 3)]:
        a, b = est[:, i] - est[:, i].mean(), est[:, j] - est[:, j].mean()
        prod = a * b
        cov, se = prod.mean(), prod.std() / np.sqrt(n)
        theory = float(m.estimate_cov(x[i], x[j]))
        assert abs(cov - theory) <= z_crit * se, f"Cov({i},{j}) = {cov:.4g} +- {se:.2g}, theory {theory:.4g}"
        assert float(m.report_cov(x[i], x[j])) * m.estimate_scale**2 == pytest.approx(theory, rel=1e-12)


@pytest.mark.parametrize("name,params", [("square_wave", {}), ("one_bit", {}), ("hds", dict(d=4, k=2)),
                                         ("piecewise", {}), ("esw", dict(f=5))])
def test_goodness_of_fit_has_power(name, params):
    """The same test rejects a mechanism that spends 15% more budget than its law says (it must be able to fail)."""
    claimed, actual = make(name, eps=1.0, **params), make(name, eps=1.15, **params)
    x = float(claimed.audit_inputs[-1])
    y = _column(actual, x, rng_for("power", name, params))
    assert gof_pvalue(y, claimed.law(x)) < ALPHA


def test_every_coordinate_mechanisms_report_every_coordinate_in_order():
    """k == d (laplace_hd, ppgnn's 1B as multibit k='all'): the fast path without index arrays gives a full
    mask, the same reports densely and sparsely, and the coordinate mechanism's draws in input order."""
    import numpy as np

    from ldp_audit.mechanisms import make

    x = np.random.default_rng(0).uniform(-1, 1, (30, 5))
    for mechanism in (make("laplace_hd", eps=2.0, d=5), make("multibit", eps=2.0, d=5, k="all", alpha=-1, beta=1)):
        reports, mask = mechanism.perturb(x, np.random.default_rng(1), return_mask=True)
        assert mask.all() and reports.shape == x.shape
        np.testing.assert_array_equal(mechanism.perturb_sparse(x, np.random.default_rng(1)).toarray(), reports)
        direct = mechanism.coordinate._sample(mechanism.to_coordinate(x), np.random.default_rng(1))
        np.testing.assert_array_equal(reports, direct)
