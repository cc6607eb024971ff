"""Exact laws against the papers' (corrected) moment formulas, for every registered mechanism, over the whole budget
range eps in [1e-8, 700]; and the stable constants against 80-digit decimal arithmetic.

Tolerances: a law's total mass to 1e-9; its variance to 1e-9 relative; its mean to 1e-9 relative to
max(|mean|, standard deviation) (a mean computed from atoms or pieces of size ~sd can only be exact to ulp * sd).
"""
from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest

from conftest import BIASED, EPS_GRID, case_id, eps_allowed, mechanism_cases
from ldp_audit.mechanisms import make
from ldp_audit.mechanisms import constants as C

CASES = [(name, params, eps) for name, params in mechanism_cases() for eps in EPS_GRID
         if eps_allowed(name, params, eps)]
IDS = [case_id(*c) for c in CASES]


def _moment_errors(law, mean, var):
    mean, var = float(mean), float(var)
    sd = math.sqrt(max(var, 0.0))
    got_mean, got_var = law.mean(), law.var()
    mean_ok = abs(got_mean - mean) <= 1e-9 * max(abs(mean), sd) + 1e-300
    var_ok = abs(got_var - var) <= 1e-9 * var + 1e-300
    return mean_ok, var_ok, (got_mean, mean, got_var, var)


@pytest.mark.parametrize("name,params,eps", CASES, ids=IDS)
def test_law_is_a_probability_law(name, params, eps):
    m = make(name, eps=eps, **params)
    for x in m.audit_inputs:
        law = m.law(x)
        assert abs(law.total_mass() - 1.0) <= 1e-9, (x, law.total_mass())
        lo, hi = law.support
        assert abs(float(law.cdf(hi)) - 1.0) <= 1e-9 and float(law.cdf(lo - 1.0)) == 0.0
        values, probs = law.atoms
        assert np.all(probs >= 0) and np.all(np.isfinite(values))
        if hasattr(law, "masses"):
            assert np.all(law.masses >= 0)


@pytest.mark.parametrize("name,params,eps", CASES, ids=IDS)
def test_law_moments_match_formulas(name, params, eps):
    m = make(name, eps=eps, **params)
    for x in m.audit_inputs:
        mean_ok, var_ok, info = _moment_errors(m.law(x), m.report_mean(x), m.report_var(x))
        assert mean_ok and var_ok, f"report law at x={x}: (law mean, formula, law var, formula) = {info}"
        mean_ok, var_ok, info = _moment_errors(m.estimate_law(x), m.estimate_mean(x), m.estimate_var(x))
        assert mean_ok and var_ok, f"estimate law at x={x}: (law mean, formula, law var, formula) = {info}"


@pytest.mark.parametrize("name,params,eps", CASES, ids=IDS)
def test_formulas_finite_and_vectorised(name, params, eps):
    m = make(name, eps=eps, **params)
    xs = np.asarray(m.audit_inputs)
    for f in (m.report_mean, m.report_var, m.estimate_mean, m.estimate_var):
        vec = np.asarray(f(xs), dtype=np.float64)
        assert vec.shape == xs.shape and np.all(np.isfinite(vec))
        assert np.array_equal(vec, np.array([float(f(x)) for x in xs]))
    assert np.all(np.asarray(m.report_var(xs)) >= 0)
    assert np.isfinite(m.worst_case_variance())


UNBIASED = [c for c in CASES if c[0] not in BIASED]


@pytest.mark.parametrize("name,params,eps", UNBIASED, ids=[case_id(*c) for c in UNBIASED])
def test_estimate_unbiased_where_the_paper_says_so(name, params, eps):
    m = make(name, eps=eps, **params)
    xs = np.asarray(m.audit_inputs)
    sd = np.sqrt(np.asarray(m.estimate_var(xs)))
    assert np.all(np.abs(np.asarray(m.estimate_mean(xs)) - xs) <= 1e-12 * np.maximum(np.abs(xs), 1.0))
    law_means = np.array([m.estimate_law(x).mean() for x in xs])
    assert np.all(np.abs(law_means - xs) <= 1e-9 * np.maximum(np.abs(xs), sd))


def test_biased_mechanisms_are_biased_as_the_papers_say():
    """HDS / Square Wave shrink towards 0 by C = (k/d) C1(eps/k) (ldp-ge Lemma 1); it must not be 'fixed'."""
    m = make("hds", eps=1.0, d=10, k=3)
    assert float(m.estimate_mean(1.0)) == pytest.approx(0.0448781795, abs=1e-10)
    sw = make("square_wave", eps=1.0)
    assert float(sw.estimate_mean(1.0)) == pytest.approx(C.sw_mean_factor(1.0), rel=1e-14)


# ----- constants against high precision ---------------------------------------------------------------------------
def _exact(eps: float) -> dict[str, Decimal]:
    with localcontext() as ctx:
        ctx.prec = 80
        e = Decimal(eps)
        E, Em = e.exp(), (-e).exp()
        b = (e - 1 + Em) / (E - 1 - e)
        t = (e / 2).exp()
        tm1 = t - 1
        return {
            "b": b, "p": E / (2 * b * E + 2), "q": 1 / (2 * b * E + 2),
            "window_in": b * E / (b * E + 1), "window_out": 1 / (b * E + 1),
            "C1": b * (E - 1) / (b * E + 1), "V0": (b**3 * E + 3 * b * b + 3 * b + 1) / (3 * (b * E + 1)),
            "s": (t + 1) / tm1, "w": t / (t + 1), "w_out": 1 / (t + 1),
            "coth_half": (E + 1) / (E - 1),
            "pm_var0": (t + 3) / (3 * tm1 * tm1), "pm_var1": 1 / tm1 + (t + 3) / (3 * tm1 * tm1),
        }


def _computed(eps: float) -> dict[str, float]:
    b, p, q = C.sw_probabilities(eps)
    win, wout = C.sw_window_masses(eps)
    s, w, w_out = C.pm_constants(eps)
    return {"b": C.sw_half_width(eps), "p": p, "q": q, "window_in": win, "window_out": wout,
            "C1": C.sw_mean_factor(eps), "V0": C.sw_second_moment_offset(eps), "s": s, "w": w, "w_out": w_out,
            "coth_half": C.coth_half(eps), "pm_var0": C.pm_variance(eps, 0.0), "pm_var1": C.pm_variance(eps, 1.0)}


STABILITY_EPS = sorted(set(np.logspace(-8, math.log10(700.0), 120).tolist()
                           + [1e-8, 9.99e-4, 1e-3, 1.001e-3, 29.99, 30.0, 30.01, 700.0, 1e-12]))


@pytest.mark.parametrize("eps", STABILITY_EPS)
def test_constants_match_80_digit_arithmetic(eps):
    exact, got = _exact(eps), _computed(eps)
    for key, value in got.items():
        ref = float(exact[key])
        assert math.isfinite(value) and ref > 0 and value > 0, key
        assert abs(value - ref) <= 1e-12 * ref, f"{key}({eps:g}) = {value!r}, exact {ref!r}"
    # identities that the samplers rely on, to the last bits
    assert got["window_in"] + got["window_out"] == pytest.approx(1.0, abs=4e-16)
    assert got["w"] + got["w_out"] == pytest.approx(1.0, abs=4e-16)
    assert got["p"] / got["q"] == pytest.approx(math.exp(min(eps, 700.0)), rel=1e-12)


def test_sw_half_width_limits_and_monotone():
    grid = np.logspace(-8, math.log10(700.0), 2000)
    b = np.array([C.sw_half_width(float(e)) for e in grid])
    assert np.all(np.diff(b) < 0) and np.all((b > 0) & (b < 1))
    assert C.sw_half_width(1e-8) == pytest.approx(1.0 - 2e-8 / 3.0, rel=1e-15)
    assert C.sw_half_width(700.0) == pytest.approx(699.0 * math.exp(-700.0), rel=1e-12)
