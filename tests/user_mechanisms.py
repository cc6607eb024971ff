"""Third-party style LDP clients with vector and tuple reports, handed to the auditor as a user would.

Each builder returns a protocol dict (``ldp_audit.external.as_mechanism``): ``sample(x, n, rng)``, ``eps`` and
``domain`` always; with ``declare_law=True`` also the whole-report log likelihood ``report_loglik(values, x)``
that the author claims. A ``bug`` keeps the claims of the correct client and breaks only the code that runs,
as in ``tests/mutants.py``.

* unary encoding (Wang et al. 2017): bit x is set with probability p, every other bit with probability q;
  symmetric (SUE) p = e^(eps/2) / (1 + e^(eps/2)), q = 1 - p, or optimised (OUE) p = 1/2, q = 1 / (1 + e^eps);
* optimised local hashing (OLH): the client draws a hash seed s, hashes x into g = round(e^eps) + 1 buckets and
  reports (s, GRR_g(H_s(x))); with ``seeds`` distinct seeds.
"""
from __future__ import annotations

import math

import numpy as np

from ldp_audit.audits.privacy.reports import splitmix64

_PRIME = 2**31 - 1


def ue_probabilities(eps: float, optimal: bool) -> tuple[float, float]:
    if optimal:
        return 0.5, 1.0 / (1.0 + math.exp(eps))
    p = 1.0 / (1.0 + math.exp(-eps / 2.0))
    return p, 1.0 - p


def unary_encoding(eps: float, c: int, optimal: bool = True, declare_law: bool = True, bug: str | None = None):
    """``bug``: "true_bit_not_reset" (the one-hot bit is kept and never replaced by its coin: P(bit x) = 1),
    "p_q_swapped" (the true bit gets q and the others p)."""
    p, q = ue_probabilities(eps, optimal)
    run_p, run_q = (q, p) if bug == "p_q_swapped" else (p, q)

    def sample(x, n, rng):
        bits = rng.random((n, c)) < run_q
        bits[:, int(x)] = True if bug == "true_bit_not_reset" else rng.random(n) < run_p
        return bits.astype(np.int8)

    def report_loglik(values, x):
        own = values[:, int(x)]
        others = values.sum(axis=1) - own
        return (np.where(own == 1, math.log(p), math.log1p(-p)) + others * math.log(q)
                + (c - 1 - others) * math.log1p(-q))

    def estimate(reports):
        return (np.asarray(reports, dtype=float) - q) / (p - q)

    mech = {"sample": sample, "eps": eps, "domain": list(range(c)), "estimate": estimate,
            "estimate_mean": lambda x: np.eye(c)[int(x)],
            "name": f"{'OUE' if optimal else 'SUE'} c={c}" + (f" ({bug})" if bug else "")}
    if declare_law:
        mech["report_loglik"] = report_loglik
    return mech


def _hash(seeds: np.ndarray, x: int, g: int) -> np.ndarray:
    """H_s(x) = ((a_s (x + 1) + b_s) mod P) mod g, a universal hash with (a_s, b_s) derived from the seed."""
    mixed = splitmix64(seeds.astype(np.uint64))
    a = (mixed % np.uint64(_PRIME - 1) + np.uint64(1)).astype(np.int64)
    b = (splitmix64(mixed) % np.uint64(_PRIME)).astype(np.int64)
    return ((a * (int(x) + 1) + b) % _PRIME) % g


def local_hashing(eps: float, c: int, seeds: int = 1024, declare_law: bool = True, bug: str | None = None):
    """``bug``: "seed_reused" (the hash seed also seeds the client's coin and its replacement bucket, so the
    report is a function of (seed, x): public code that reuses one seed for hashing and randomising)."""
    g = int(round(math.exp(eps))) + 1
    p = math.exp(eps) / (math.exp(eps) + g - 1)
    q = 1.0 / (math.exp(eps) + g - 1)

    def sample(x, n, rng):
        s = rng.integers(0, seeds, n)
        h = _hash(s, x, g)
        if bug == "seed_reused":
            coin = splitmix64(splitmix64(splitmix64(s.astype(np.uint64))))
            u = (coin >> np.uint64(11)).astype(np.float64) / 2.0**53
            other = (coin % np.uint64(g - 1)).astype(np.int64)
        else:
            u, other = rng.random(n), rng.integers(0, g - 1, n)
        return s, np.where(u < p, h, (h + 1 + other) % g)

    def report_loglik(values, x):
        s, y = values[:, 0].astype(np.int64), values[:, 1]
        return -math.log(seeds) + np.where(y == _hash(s, x, g), math.log(p), math.log(q))

    mech = {"sample": sample, "eps": eps, "domain": list(range(c)),
            "name": f"OLH c={c} g={g}" + (f" ({bug})" if bug else "")}
    if declare_law:
        mech["report_loglik"] = report_loglik
    return mech


def grr_against_its_law(eps: float, c: int, declare_law: bool = True):
    """Randomized response whose sampler runs at 2 eps while its declared law (pmf) is the one at eps."""
    def pmf_at(budget):
        def pmf(y, x):
            keep = math.exp(budget) / (math.exp(budget) + c - 1)
            return np.where(np.asarray(y) == x, keep, (1.0 - keep) / (c - 1))
        return pmf

    def sample(x, n, rng):
        keep = math.exp(2 * eps) / (math.exp(2 * eps) + c - 1)
        other = (int(x) + 1 + rng.integers(0, c - 1, n)) % c
        return np.where(rng.random(n) < keep, int(x), other)

    mech = {"sample": sample, "eps": eps, "domain": list(range(c)), "name": f"GRR c={c} sampled at 2 eps"}
    if declare_law:
        mech.update(pmf=pmf_at(eps), support=list(range(c)))
    return mech


def laplace_leaking_input(eps: float, leak: float = 1e-3, declare_law: bool = True):
    """x + Lap(2/eps) on [-1, 1], except that with probability ``leak`` the raw input is reported: an event of
    infinite privacy loss ({y = x} has probability 0 under any other input)."""
    from scipy import stats

    def sample(x, n, rng):
        return np.where(rng.random(n) < leak, x, x + rng.laplace(0.0, 2.0 / eps, n))

    mech = {"sample": sample, "eps": eps, "domain": (-1.0, 1.0), "name": "Laplace leaking its input"}
    if declare_law:
        mech["law"] = lambda x: stats.laplace(loc=x, scale=2.0 / eps)
    return mech


def grr_leaking_one_category(eps: float, c: int, leaky: int, declare_law: bool = True):
    """Randomized response that reports category ``leaky`` truthfully with probability 0.9 instead of
    e^eps / (e^eps + c - 1): a violation confined to inputs the fixed contrast set (both ends and two categories
    between) does not hold."""
    def keep_of(x):
        return np.where(np.asarray(x) == leaky, 0.9, math.exp(eps) / (math.exp(eps) + c - 1))

    def sample(x, n, rng):
        other = (int(x) + 1 + rng.integers(0, c - 1, n)) % c
        return np.where(rng.random(n) < keep_of(x), int(x), other)

    mech = {"sample": sample, "eps": eps, "domain": list(range(c)), "name": f"GRR c={c} leaking {leaky}"}
    if declare_law:
        keep = math.exp(eps) / (math.exp(eps) + c - 1)
        mech.update(pmf=lambda y, x: np.where(np.asarray(y) == x, keep, (1.0 - keep) / (c - 1)),
                    support=list(range(c)))
    return mech
