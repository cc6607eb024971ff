"""Bayes-optimal attribute inference from a user's own report (lpgnn C12; ppgnn C10), for any mechanism with a law.

Two binary secrets under a uniform prior, both between the ends lo, hi of the input domain:

* one coordinate: x_0 in {lo, hi}, the other coordinates fixed at the middle. Exact accuracy
  1/2 + TV(law(lo), law(hi)) / 2 from the coordinate law (atoms plus the integral of |f_hi - f_lo|); for a
  sampled mechanism with a binary coordinate law this is 1/2 + (m/d)(p_m - 1/2) (lpgnn C12).
* whole vector: x in {lo 1, hi 1}. The k sampled values are i.i.d. given the secret, so the Bayes attacker sums
  their log-likelihood ratios; for the one-bit coordinate laws that is the majority of the m signs, with exact
  accuracy P[Bin(m, p_m) > m/2] + P[Bin(m, p_m) = m/2] / 2 (exact for every discrete coordinate law, by
  enumerating count vectors).

* c-ary (categorical mechanisms, e.g. randomized response on c labels, ESW on f levels): the secret is uniform
  on all c categories; exact accuracy (1/c) sum_y max_s P(y | s), ceiling e^eps / (e^eps + c - 1).

The empirical attack runs that Bayes rule on fresh reports (``mechanism.perturb``) and is compared with the
ceiling e^eps/(1 + e^eps) of the *claimed* eps (default: the mechanism's own): a mechanism that spends more
than it claims (the 2 eps mutant) FAILs.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import integrate, stats

from ... import streams
from ..kernel.result import CheckResult
from .bayes import attack_row, bayes_accuracy, count_correct, exact_row, ldp_ceiling, map_guess

CLAIM = "lpgnn C12 / ppgnn C10: attribute inference from one's own report is bounded by e^eps/(1+e^eps)"


#: Relative distance within which a report matches an atom of the law (a report may be computed along another
#: float path than the law's atoms).
MATCH_RTOL = 1e-12


def log_likelihood(law, y) -> np.ndarray:
    """log P(y) for atoms; for values no atom explains, log density - 1e6 (atoms dominate any density)."""
    mass = law.atom_mass(y, rtol=MATCH_RTOL)
    with np.errstate(divide="ignore"):
        density = np.log(np.asarray(law.density(y), dtype=np.float64)) - 1e6
        return np.where(mass > 0, np.log(np.maximum(mass, 1e-300)), density)


def total_variation(law0, law1) -> float:
    """TV distance: half the atom differences plus half the integral of |f1 - f0| between breakpoints."""
    values = np.union1d(law0.atoms[0], law1.atoms[0])
    atoms = np.abs(law1.atom_mass(values, rtol=MATCH_RTOL) - law0.atom_mass(values, rtol=MATCH_RTOL)).sum()
    lo = min(law0.support[0], law1.support[0])
    hi = max(law0.support[1], law1.support[1])
    cuts = np.union1d(law0.breakpoints, law1.breakpoints)
    cuts = np.unique(np.concatenate([[lo, hi], cuts[np.isfinite(cuts)]]))
    gap = lambda y: abs(float(law1.density(y)) - float(law0.density(y)))  # noqa: E731
    continuous = sum(integrate.quad(gap, a, b, limit=200)[0] for a, b in zip(cuts[:-1], cuts[1:]) if b > a)
    return 0.5 * (atoms + continuous)


def _ends(mechanism) -> tuple[float, float]:
    lo, hi = mechanism.domain
    return float(lo), float(hi)


def _sampled_law(mechanism, x):
    """Law of one *sampled* coordinate's report (the whole law for a one-dimensional mechanism)."""
    if mechanism.d == 1:
        return mechanism.law(x)
    return mechanism.coordinate.law(float(mechanism.to_coordinate(x))).affine(mechanism.client_scale)


def exact_one_coordinate(mechanism) -> float:
    lo, hi = _ends(mechanism)
    return 0.5 + 0.5 * total_variation(mechanism.law(lo), mechanism.law(hi))


def exact_whole_vector(mechanism) -> float | None:
    """Exact Bayes accuracy for x in {lo 1, hi 1} when the sampled coordinate law is discrete (None otherwise):
    the k sampled values are i.i.d., so the count vector over the atoms is multinomial under each secret."""
    lo, hi = _ends(mechanism)
    law0, law1 = _sampled_law(mechanism, lo), _sampled_law(mechanism, hi)
    if law0.continuous_integral() > 0 or law1.continuous_integral() > 0:
        return None
    values = np.union1d(law0.atoms[0], law1.atoms[0])
    q0, q1 = law0.atom_mass(values, rtol=MATCH_RTOL), law1.atom_mass(values, rtol=MATCH_RTOL)
    k = mechanism.k
    if values.size == 2:  # the count of the larger value is binomial under each secret
        counts = np.arange(k + 1)
        return 0.5 * float(np.maximum(stats.binom.pmf(counts, k, q0[1]), stats.binom.pmf(counts, k, q1[1])).sum())
    if (k + 1) ** values.size > 100_000:
        return None
    total = 0.0
    for counts in itertools.product(range(k + 1), repeat=values.size):
        if sum(counts) == k:
            total += max(stats.multinomial.pmf(counts, k, q0), stats.multinomial.pmf(counts, k, q1))
    return 0.5 * total


def majority_accuracy(m: int, eps: float) -> float:
    """lpgnn C12's closed form: P[Bin(m, p) > m/2] + P[Bin(m, p) = m/2] / 2 with p = e^(eps/m)/(1 + e^(eps/m))."""
    p = 1.0 / (1.0 + math.exp(-eps / m))
    law = stats.binom(m, p)
    tie = law.pmf(m // 2) if m % 2 == 0 else 0.0
    return float(law.sf(m // 2) + 0.5 * tie)


def _attack_batch(mechanism, secret_columns: slice, n: int, rng) -> int:
    """Correct guesses of the Bayes attacker over n users whose secret bit is uniform."""
    lo, hi = _ends(mechanism)
    bits = rng.integers(0, 2, size=n)
    if mechanism.d == 1:
        x = np.where(bits == 1, hi, lo).astype(np.float64)
        reports = np.asarray(mechanism.perturb(x, rng)).reshape(n, 1)
    else:
        x = np.full((n, mechanism.d), 0.5 * (lo + hi))
        x[:, secret_columns] = np.where(bits == 1, hi, lo)[:, None]
        reports = np.asarray(mechanism.perturb(x, rng), dtype=np.float64)
    scores = np.zeros((n, 2))
    for s, value in enumerate((lo, hi)):
        if secret_columns.stop == 1:
            scores[:, s] = log_likelihood(mechanism.law(value), reports[:, 0])
        else:
            # only the k sampled entries of a row carry information: score those, not all n x d entries
            law = _sampled_law(mechanism, value)
            rows, cols = np.nonzero(reports) if mechanism.k < mechanism.d else np.indices(reports.shape).reshape(2, -1)
            scores[:, s] = np.bincount(rows, log_likelihood(law, reports[rows, cols]), minlength=n)
    return int(np.sum(map_guess(scores, rng) == bits))


def _categories(mechanism) -> np.ndarray:
    lo, hi = _ends(mechanism)
    return np.arange(lo, hi + 1.0)


def exact_categorical(mechanism) -> float:
    """(1/c) sum_y max_s P(y | s) over the c categories of a categorical mechanism."""
    laws = [mechanism.law(float(s)) for s in _categories(mechanism)]
    outputs = np.unique(np.concatenate([law.atoms[0] for law in laws]))
    return bayes_accuracy([law.atom_mass(outputs, rtol=MATCH_RTOL) for law in laws])


def _categorical_batch(mechanism, n: int, rng) -> int:
    categories = _categories(mechanism)
    secret = rng.integers(0, categories.size, size=n)
    reports = np.asarray(mechanism.perturb(categories[secret], rng), dtype=np.float64)
    scores = np.stack([log_likelihood(mechanism.law(float(s)), reports) for s in categories], axis=1)
    return int(np.sum(map_guess(scores, rng) == secret))


def own_report_attack(mechanism, *, claimed_eps: float | None = None, samples: int = 200_000, seed: int = 0,
                      alpha: float = 1e-3) -> list[CheckResult]:
    """Exact and empirical Bayes attribute inference on one coordinate and on the whole vector of ``mechanism``.

    Rows: the exact accuracies against the ceiling of ``claimed_eps`` (PASS/FAIL, no sampling), and the empirical
    attacks with one-sided Clopper-Pearson bounds, alpha split over them (family-wise false-alarm rate alpha).
    Categorical mechanisms with c > 2 categories add the c-ary secret.
    """
    if not (isinstance(samples, int) and samples >= 1000):
        raise ValueError(f"samples must be an integer >= 1000, got {samples!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    eps = float(mechanism.eps if claimed_eps is None else claimed_eps)
    if not eps > 0:
        raise ValueError(f"claimed_eps must be > 0, got {claimed_eps!r}")
    ceiling = ldp_ceiling(eps, 2, float(getattr(mechanism, "delta", 0.0)))
    label = f"{mechanism.name} {mechanism.params()}, claimed eps={eps:g}"
    rows = []
    cases = [("one-coordinate", slice(0, 1), exact_one_coordinate(mechanism))]
    if mechanism.d > 1:
        cases.append(("whole-vector", slice(0, mechanism.d), exact_whole_vector(mechanism)))
    c = _categories(mechanism).size if mechanism.discrete_input else 2
    share = alpha / (len(cases) + (c > 2))  # Bonferroni over the Monte Carlo rows
    for stream, (case, columns, exact) in enumerate(cases):
        if exact is not None:
            rows.append(exact_row(f"attack.own-report.{case}.exact", CLAIM, exact, ceiling, f"{label}, {case} secret"))
        correct = count_correct(lambda size, rng: _attack_batch(mechanism, columns, size, rng), samples,
                                mechanism.d, seed, streams.OWN_REPORT_CASES.key(stream))
        rows.append(attack_row(f"attack.own-report.{case}", CLAIM, correct, samples, ceiling, share, seed,
                               f"{label}, Bayes attacker on the {case} secret", exact=exact))
    if c > 2:
        exact, ceiling_c = exact_categorical(mechanism), ldp_ceiling(eps, c)
        rows.append(exact_row("attack.own-report.c-ary.exact", CLAIM, exact, ceiling_c,
                              f"{label}, secret uniform on {c} categories", c))
        correct = count_correct(lambda size, rng: _categorical_batch(mechanism, size, rng), samples, 1, seed,
                                streams.OWN_REPORT_CATEGORIES.key())
        rows.append(attack_row("attack.own-report.c-ary", CLAIM, correct, samples, ceiling_c, share, seed,
                               f"{label}, Bayes attacker on a secret uniform on {c} categories", c, exact))
    return rows
