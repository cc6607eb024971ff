"""Amplification by shuffling: the accountants against brute-force enumeration of their pairs, against each other
(exact pair <= FMT 2021 numeric <= FMT 2021 closed form), monotone in n and eps0, and n = 1 giving back eps0."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ldp_audit.accounting.shuffle import (ACCOUNTANTS, amplified_delta, amplified_eps, fmt21_clone_delta,
                                          fmt21_closed_form, fmt21_closed_form_range)
from ldp_audit.audits.privacy.white_box import hockey_stick
from ldp_audit.mechanisms import make
from ldp_audit.mechanisms.shuffle import pair_delta


def _hockey(p1, p0, eps):
    return float(np.sum(np.maximum(p1 - math.exp(eps) * p0, 0.0)))


@pytest.mark.parametrize("c", [2, 3, 4])
def test_exact_pair_matches_enumeration_of_every_histogram(c):
    n, eps0 = 10, 1.3
    m = make("shuffle_grr", eps=1.0, n=n, eps0=eps0, c=c)
    hist = np.array([h for h in itertools.product(range(n + 1), repeat=c) if sum(h) == n], dtype=float)
    p1, p0 = np.exp(m.report_loglik(hist, 1)), np.exp(m.report_loglik(hist, 0))
    for eps in (0.0, 0.2, 0.6, 1.0):
        brute = max(_hockey(p1, p0, eps), _hockey(p0, p1, eps))
        assert pair_delta(eps, eps0, n, c) == pytest.approx(brute, rel=1e-9, abs=1e-15)


def test_exact_pair_is_the_white_box_divergence_of_the_count_law():
    m = make("shuffle_rr", eps=0.4, n=500, eps0=3.0)
    law1, law0 = m.law(1.0), m.law(0.0)
    for eps in (0.2, 0.4, 0.8):
        white = max(hockey_stick(law1, law0, eps), hockey_stick(law0, law1, eps))
        assert pair_delta(eps, 3.0, 500) == pytest.approx(white, rel=1e-8)


def test_clone_pair_matches_enumeration():
    """FMT 2021, Theorem 3.1's pair, built from its definition: C ~ Bin(n-1, e^-eps0), A ~ Bin(C, 1/2), and the
    audited user's report adding 1 w.p. e^eps0/(e^eps0 + 1) (P) or 1/(e^eps0 + 1) (Q)."""
    n, eps0 = 12, 1.1
    alpha = math.exp(eps0) / (math.exp(eps0) + 1)
    p, q = {}, {}
    for c in range(n):
        for a in range(c + 1):
            w = stats.binom.pmf(c, n - 1, math.exp(-eps0)) * stats.binom.pmf(a, c, 0.5)
            for first, (wp, wq) in ((a + 1, (alpha, 1 - alpha)), (a, (1 - alpha, alpha))):
                key = (first, c + 1 - first)
                p[key] = p.get(key, 0.0) + w * wp
                q[key] = q.get(key, 0.0) + w * wq
    keys = sorted(p)
    pv, qv = np.array([p[k] for k in keys]), np.array([q[k] for k in keys])
    for eps in (0.0, 0.3, 0.7):
        brute = max(_hockey(pv, qv, eps), _hockey(qv, pv, eps))
        assert fmt21_clone_delta(eps, eps0, n) == pytest.approx(brute, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("n, eps0, delta", [(10_000, 2.0, 1e-6), (100_000, 4.0, 1e-6), (1_000, 1.0, 1e-6)])
def test_exact_pair_below_numeric_below_closed_form(n, eps0, delta):
    assert eps0 <= fmt21_closed_form_range(n, delta)
    exact = amplified_eps(eps0, n, delta, "exact-pair")
    numeric = amplified_eps(eps0, n, delta, "fmt21-numeric")
    closed = amplified_eps(eps0, n, delta, "fmt21-closed-form")
    assert 0 < exact <= numeric <= closed < eps0


def test_closed_form_is_the_printed_formula_and_refuses_outside_its_range():
    n, eps0, delta = 100_000, 4.0, 1e-6
    blanket = 8 * math.sqrt(math.exp(eps0) * math.log(4 / delta)) / math.sqrt(n) + 8 * math.exp(eps0) / n
    printed = math.log(1 + (math.exp(eps0) - 1) / (math.exp(eps0) + 1) * blanket)
    assert fmt21_closed_form(eps0, n, delta) == pytest.approx(printed, rel=1e-14)
    with pytest.raises(ValueError, match="numeric"):
        fmt21_closed_form(4.0, 10_000, 1e-6)


@pytest.mark.parametrize("method", ["fmt21-numeric", "exact-pair"])
def test_monotone_in_n_and_eps0_and_one_user_gets_eps0_back(method):
    by_n = [amplified_eps(3.0, n, 1e-6, method) for n in (10, 100, 1_000, 10_000)]
    assert all(a > b for a, b in zip(by_n, by_n[1:]))
    by_eps0 = [amplified_eps(e, 5_000, 1e-6, method) for e in (0.5, 1.0, 2.0, 4.0)]
    assert all(a < b for a, b in zip(by_eps0, by_eps0[1:]))
    # one user: randomized response itself, delta(eps) = p - e^eps q, so eps -> eps0 as delta -> 0
    assert amplified_eps(2.0, 1, 1e-12, method) == pytest.approx(2.0, abs=1e-10)


def test_delta_at_the_returned_eps_is_within_the_target():
    for method in ("fmt21-numeric", "exact-pair"):
        eps = amplified_eps(4.0, 10_000, 1e-6, method)
        assert amplified_delta(eps, 4.0, 10_000, method) <= 1e-6 < amplified_delta(eps * 0.99, 4.0, 10_000, method)


def test_bad_arguments_say_what_is_allowed():
    with pytest.raises(ValueError, match="method"):
        amplified_eps(1.0, 10, 1e-6, "blanket")
    with pytest.raises(ValueError, match="delta"):
        amplified_eps(1.0, 10, 0.0)
    with pytest.raises(ValueError, match="eps"):
        amplified_delta(-1.0, 1.0, 10)
    assert set(ACCOUNTANTS) == {"fmt21-closed-form", "fmt21-numeric", "exact-pair"}
