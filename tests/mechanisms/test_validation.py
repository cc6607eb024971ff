"""Bad input at every public entry point gives a ValueError that names the parameter (DESIGN.md, issue 2)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import case_id, mechanism_cases
from ldp_audit.mechanisms import make

CASES = mechanism_cases()
IDS = [case_id(*c) for c in CASES]
BAD_EPS = [0, -1.0, float("nan"), float("inf"), -float("inf"), 700.0001, 1e300, "1", None, True, [1.0], 1j]


def _shape(m, n=4):
    return (n,) if (m.d == 1 and not hasattr(m, "perturb_sparse")) else (n, m.d)


@pytest.mark.parametrize("name,params", CASES, ids=IDS)
@pytest.mark.parametrize("eps", BAD_EPS, ids=repr)
def test_bad_eps(name, params, eps):
    with pytest.raises(ValueError, match="eps"):
        make(name, eps=eps, **params)


@pytest.mark.parametrize("name,params", CASES, ids=IDS)
def test_eps_is_required_and_accepts_numpy_scalars(name, params):
    with pytest.raises(ValueError, match="eps"):
        make(name, **params)
    make(name, eps=np.float64(0.5), **params)
    make(name, eps=np.float32(0.5), **params)


@pytest.mark.parametrize("name,params", CASES, ids=IDS)
def test_unknown_parameter(name, params):
    with pytest.raises(ValueError, match="no parameter 'epsilon'"):
        make(name, eps=1.0, epsilon=1.0, **params)


@pytest.mark.parametrize("name,params", CASES, ids=IDS)
def test_inputs_outside_domain_nan_inf(name, params):
    m = make(name, eps=0.5, **params)
    lo, hi = m.domain
    width = hi - lo
    rng = np.random.default_rng(0)
    for bad in (hi + 0.01 * width, lo - 0.01 * width, np.nan, np.inf, -np.inf):
        x = np.full(_shape(m), 0.5 * (lo + hi))
        x.flat[1] = bad
        with pytest.raises(ValueError, match="x"):
            m.perturb(x, rng)
        if hasattr(m, "perturb_sparse"):
            with pytest.raises(ValueError, match="x"):
                m.perturb_sparse(x, rng)
    with pytest.raises(ValueError, match="x"):
        m.perturb([["a"] * (m.d if hasattr(m, "perturb_sparse") else 1)], rng)
    # clip=True is the only way in for out-of-range values, and it clips
    x = np.full(_shape(m), hi + width)
    y = m.perturb(x, rng, clip=True)
    assert y.shape == x.shape


@pytest.mark.parametrize("name,params", CASES, ids=IDS)
def test_wrong_shapes(name, params):
    m = make(name, eps=0.5, **params)
    lo, hi = m.domain
    mid = 0.5 * (lo + hi)
    rng = np.random.default_rng(0)
    if hasattr(m, "perturb_sparse"):
        bad_shapes = [(4, m.d + 1), (4, m.d, 1), (m.d + 1,)]
    else:
        bad_shapes = [(4, 2), (2, 2, 2)]
    for shape in bad_shapes:
        with pytest.raises(ValueError, match="shape"):
            m.perturb(np.full(shape, mid), rng)


@pytest.mark.parametrize("name,params", CASES, ids=IDS)
def test_law_rejects_inputs_outside_domain(name, params):
    """law(x) is a public entry point too: outside the domain it must not return an invalid law (mass != 1)."""
    m = make(name, eps=0.5, **params)
    lo, hi = m.domain
    for bad in (hi + 0.5 * (hi - lo), lo - 0.5 * (hi - lo), float("nan")):
        with pytest.raises(ValueError, match="x"):
            m.law(bad)


@pytest.mark.parametrize("name,params", [c for c in CASES if c[0] in ("grr", "esw")],
                         ids=[case_id(*c) for c in CASES if c[0] in ("grr", "esw")])
def test_categories_must_be_integers(name, params):
    m = make(name, eps=0.5, **params)
    lo, _ = m.domain
    with pytest.raises(ValueError, match="integer"):
        m.perturb(np.array([lo, lo + 0.5]), 0)
    with pytest.raises(ValueError, match="x"):
        m.law(lo + 0.5)


@pytest.mark.parametrize("name", ["hds", "piecewise_hd", "multibit", "mlr", "ppm_star"])
def test_bad_k(name):
    for k in (0, -1, 9, 2.5, "2", "paper", "exact", None):
        with pytest.raises(ValueError, match="k"):
            make(name, eps=1.0, d=8, k=k)
    with pytest.raises(ValueError, match="k"):
        make(name, eps=1.0, d=8, k=2, m=2)
    assert make(name, eps=1.0, d=8, m=3).k == 3           # m is an alias of k
    assert make(name, eps=1.0, d=8, k=8).k == 8 and make(name, eps=1.0, d=8, k=1.0).k == 1


def test_hds_has_no_optimal_rule():
    with pytest.raises(ValueError, match="k='optimal'"):
        make("hds", eps=1.0, d=8, k="optimal")


@pytest.mark.parametrize("name", ["hds", "piecewise_hd", "laplace_hd", "gaussian_hd", "analytic_gaussian",
                                  "multibit", "mlr", "ppm_star"])
def test_bad_d(name):
    for d in (0, -3, 2.5, "8", None):
        with pytest.raises(ValueError, match="d"):
            make(name, eps=1.0, d=d)


@pytest.mark.parametrize("name", ["gaussian", "gaussian_hd", "analytic_gaussian"])
def test_bad_delta(name):
    for delta in (0, 1, -0.1, 1.5, float("nan"), "1e-5", None):
        with pytest.raises(ValueError, match="delta"):
            make(name, eps=1.0, delta=delta)


def test_gaussian_calibration_choices():
    with pytest.raises(ValueError, match="calibration"):
        make("gaussian", eps=0.5, calibration="paper")
    with pytest.raises(ValueError, match="eps"):
        make("gaussian", eps=1.5, calibration="classical")
    with pytest.raises(ValueError, match="eps"):
        make("gaussian_hd", eps=9.0, d=8, calibration="classical")


@pytest.mark.parametrize("name", ["multibit", "analytic_gaussian"])
def test_bad_range(name):
    for alpha, beta in ((1.0, 0.0), (0.5, 0.5), (float("nan"), 1.0), (0.0, float("inf")), ("0", 1.0)):
        with pytest.raises(ValueError, match="alpha|beta"):
            make(name, eps=1.0, alpha=alpha, beta=beta)


def test_grr_and_esw_sizes():
    for c in (1, 0, 2.5, "3"):
        with pytest.raises(ValueError, match="c"):
            make("grr", eps=1.0, c=c)
    for f in (1, 0, 2.5):
        with pytest.raises(ValueError, match="f"):
            make("esw", eps=1.0, f=f)


def test_unknown_mechanism_suggests_the_close_name():
    for wrong, right in (("hsd", "hds"), ("lapalce", "laplace"), ("multi_bit", "multibit"), ("piecewise-hd", "piecewise_hd")):
        with pytest.raises(ValueError, match=f"unknown mechanism '{wrong}'.*Did you mean '{right}'"):
            make(wrong, eps=1.0)
    with pytest.raises(ValueError, match="unknown mechanism"):
        make("zzzzzz", eps=1.0)


def test_misspelled_parameter_suggests_the_close_name():
    with pytest.raises(ValueError, match="Did you mean 'delta'"):
        make("gaussian", eps=1.0, detla=1e-5)


def test_bad_rng():
    m = make("laplace", eps=1.0)
    for rng in ("seed", 1.5, np.random.RandomState(0)):
        with pytest.raises(ValueError, match="rng"):
            m.perturb(np.zeros(3), rng)


@pytest.mark.parametrize("name,params", [("hds", dict(d=1, k=1)), ("laplace_hd", dict(d=1)),
                                         ("analytic_gaussian", dict(d=1)), ("multibit", dict(d=1))])
def test_high_dimensional_mechanisms_with_d_equal_1(name, params):
    """d = 1 is allowed by the registry (d >= 1), and the ldp-ge grids use (d, k) = (1, 1): perturb must work."""
    m = make(name, eps=0.5, **params)
    lo, hi = m.domain
    x = np.full((5, 1), 0.5 * (lo + hi))
    assert m.perturb(x, 0).shape == (5, 1)
    assert m.perturb_sparse(x, 0).shape == (5, 1)


@pytest.mark.parametrize("name", ["hds", "multibit", "mlr"])
def test_estimate_rejects_wrong_report_shape(name):
    m = make(name, eps=1.0, d=8)
    with pytest.raises(ValueError, match="reports"):
        m.estimate(np.zeros((3, 9)))
