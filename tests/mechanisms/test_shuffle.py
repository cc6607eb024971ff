"""Shuffled randomized response (the shuffle model): sampler against the exact law, the declared histogram
likelihood, parameter checks, and ``verify`` with power: a correct amplified claim passes, a claim computed for
ten times the users fails, and shufflers that leak the order fail."""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pytest
from scipy.special import logsumexp

from ldp_audit.accounting.shuffle import amplified_eps
from ldp_audit.audits.verify.orchestrator import AuditSettings, verify
from ldp_audit.cli import main
from ldp_audit.mechanisms import make
from ldp_audit.mechanisms.categorical import RandomizedResponse
from ldp_audit.mechanisms.shuffle import ShuffledGRR

N_USERS, EPS0, DELTA = 100, 2.0, 1e-3
SETTINGS = AuditSettings(samples=200_000, seed=11)


def _claim(n_for_claim=N_USERS):
    return amplified_eps(EPS0, n_for_claim, DELTA)


def test_histogram_sampler_matches_its_moments_and_the_count_view():
    grr = make("shuffle_grr", eps=1.0, n=50, eps0=1.5, c=4)
    h = grr.sample(1, 200_000, np.random.default_rng(1))
    assert h.shape == (200_000, 4) and np.all(h.sum(axis=1) == 50)
    p, q = grr.probabilities()
    own = np.array([q, p, q, q])
    pi = np.array([p, q, q, q])
    mean = 49 * pi + own
    var = 49 * pi * (1 - pi) + own * (1 - own)
    z = (h.mean(axis=0) - mean) / np.sqrt(var / h.shape[0])
    assert np.all(np.abs(z) < 5), z
    # c = 2: the histogram's second entry has the count view's law
    rr = make("shuffle_rr", eps=1.0, n=50, eps0=1.5)
    law = rr.law(1.0)
    h2 = make("shuffle_grr", eps=1.0, n=50, eps0=1.5, c=2).sample(1, 200_000, np.random.default_rng(2))
    assert abs(h2[:, 1].mean() - law.mean()) < 5 * math.sqrt(law.var() / 200_000)


@pytest.mark.parametrize("c", [2, 3])
def test_declared_likelihood_is_a_law_over_all_histograms(c):
    n = 9
    m = make("shuffle_grr", eps=1.0, n=n, eps0=1.2, c=c)
    hist = np.array([h for h in itertools.product(range(n + 1), repeat=c) if sum(h) == n], dtype=float)
    for x in range(c):
        assert abs(math.expm1(logsumexp(m.report_loglik(hist, x)))) < 1e-12
    assert np.all(m.report_loglik(np.array([[n, 1] + [0] * (c - 2)]), 1) == -np.inf)


@pytest.mark.parametrize("params, word", [({"n": 0}, "n"), ({"eps0": -1.0}, "eps0"), ({"delta": 1.5}, "delta"),
                                          ({"c": 1}, "c")])
def test_bad_parameters_name_themselves(params, word):
    with pytest.raises(ValueError, match=word):
        make("shuffle_grr", eps=1.0, **params)


def test_eps0_defaults_to_the_claim_and_params_rebuild():
    m = make("shuffle_rr", eps=0.7)
    assert m.eps0 == 0.7 and make("shuffle_rr", **m.params()) == m
    g = make("shuffle_grr", eps=0.7, c=5, n=30, eps0=3.0)
    assert make("shuffle_grr", **g.params()) == g


@pytest.mark.parametrize("name, params", [("shuffle_rr", {}), ("shuffle_grr", {"c": 2}), ("shuffle_grr", {"c": 3})])
def test_the_accountants_claim_passes_and_a_claim_for_ten_times_the_users_fails(name, params):
    good = verify(make(name, eps=_claim(), delta=DELTA, n=N_USERS, eps0=EPS0, **params), SETTINGS, checks="privacy")
    assert good.passed, [(r.name, r.explanation) for r in good.failures()]
    wrong = verify(make(name, eps=_claim(10 * N_USERS), delta=DELTA, n=N_USERS, eps0=EPS0, **params), SETTINGS,
                   checks="privacy")
    assert "privacy.blackbox" in {r.name for r in wrong.failures()}


@dataclass(frozen=True)
class OwnReportFirst(ShuffledGRR):
    """A shuffler that leaks: the audited user's report travels in front of the histogram."""

    report_loglik = None

    def perturb(self, x, rng):
        x = np.asarray(x, dtype=np.int64)
        p, q = self.probabilities()
        others = rng.multinomial(self.n - 1, [p] + [q] * (self.c - 1), size=x.size)
        own = RandomizedResponse(self.eps0, self.c).perturb(x.astype(float), rng).astype(np.int64)
        others[np.arange(x.size), own] += 1
        return np.column_stack([own, others])


@dataclass(frozen=True)
class Unshuffled(ShuffledGRR):
    """A shuffler that does not shuffle: the n reports in user order, the audited user first."""

    report_loglik = None

    def perturb(self, x, rng):
        x = np.asarray(x, dtype=np.int64)
        users = np.zeros((x.size, self.n))
        users[:, 0] = x
        return RandomizedResponse(self.eps0, self.c).perturb(users.ravel(), rng).reshape(users.shape)


@pytest.mark.parametrize("mutant", [OwnReportFirst, Unshuffled])
def test_a_shuffler_that_leaks_the_order_fails(mutant):
    m = mutant(_claim(), DELTA, 20 if mutant is Unshuffled else N_USERS, EPS0, 2)
    report = verify(m, AuditSettings(samples=50_000, seed=5), checks="privacy")
    row = next(r for r in report.results if r.name == "privacy.blackbox")
    assert row.status.value == "fail" and row.statistic > 1.5, row.explanation


def test_command_line_audits_an_amplified_claim():
    args = ["verify", "shuffle_grr", "--delta", str(DELTA), "--param", f"n={N_USERS}", "--param", f"eps0={EPS0}",
            "--c", "2", "--samples", "200000", "--checks", "privacy", "--json"]
    assert main(args[:2] + ["--eps", f"{_claim():.6f}"] + args[2:]) == 0
    assert main(args[:2] + ["--eps", f"{_claim(10 * N_USERS):.6f}"] + args[2:]) == 1
