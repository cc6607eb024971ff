"""The privacy-level leak of PPGNN's PPM (ppgnn C10-C11, errata E4-E6): how well the server guesses a user's
secret level tau (uniform on {1..h}) from the report (x', tau').

Observation of one user, with the sampled count m and the value magnitude of x' (both public to the server):

* (a) tau' alone. In the paper's mode ESW runs at gamma eps^tau, so its law -- even its support -- depends on
  tau (E4); in the corrected mode at the public gamma eps^1.
* (b) tau' plus the magnitude (d/m) C(eps_2/m) and the count m of the non-zero values, read by table lookup:
  in the paper's mode an injective function of tau (E5); in the corrected mode the values are signs and m
  comes from tau', so nothing beyond tau'.
* (c) the whole report of a user whose features the attacker knows (x = 1, the worst case): (b) plus the number
  of positive signs, Binomial(m, e^a/(1 + e^a)) with a = eps_2(tau)/m.

(a) and (b) are compared with the level budget's ceiling e^eps_1/(e^eps_1 + h - 1), eps_1 = gamma eps^1, the
protection the paper claims for the most private users; (c) with the joint ceiling of
eps_1 + (1 - gamma) eps^h (spec C10). Exact accuracies enumerate the observation's law; the Monte Carlo attacks
run the same Bayes rule on PPM reports with a one-sided Clopper-Pearson bound (false-alarm rate alpha).
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from ... import streams
from ...mechanisms.personalised import PersonalisedMechanism
from ..kernel.result import CheckResult
from .bayes import attack_row, bayes_accuracy, count_correct, exact_row, ldp_ceiling, map_guess

CLAIM_LEVEL = "ppgnn Sec. III-B, C11: the level tau is protected by ESW at eps_1 (dual protection)"
CLAIM_JOINT = "ppgnn Thm 5 read for the joint record (x, tau), C10: bounded by eps_1 + (1 - gamma) eps^h"


def _tables(ppm: PersonalisedMechanism):
    """Per-level public description: the ESW law over tau' in 1..h + 2 b_max, and for each (tau, tau') the sampled
    count m, the magnitude class (index of the (m, magnitude) pair in the paper mode, 0 when corrected) and a."""
    b_max = max(ppm.level_mechanism(t).half_width for t in ppm.levels)
    outputs = np.arange(1, ppm.h + 2 * b_max + 1)
    esw = np.array([ppm.level_law(int(t)).atom_mass(outputs.astype(float)) for t in ppm.levels])
    if ppm.mode == "paper":
        pairs = [(ppm.sampled_count(int(t)), round(ppm.magnitude(int(t)), 9)) for t in ppm.levels]
        classes = [sorted(set(pairs)).index(p) for p in pairs]
    else:
        classes = [0] * ppm.h
    counts = np.array([[ppm.sampled_count(int(t), int(g)) if ppm.mode == "corrected" else ppm.sampled_count(int(t))
                        for g in outputs] for t in ppm.levels])
    return outputs, esw, np.array(classes), counts


def exact_accuracies(ppm: PersonalisedMechanism) -> dict[str, float]:
    """Exact Bayes accuracies of the three observations (a), (b), (c) under a uniform prior on tau."""
    outputs, esw, classes, counts = _tables(ppm)
    n_classes = int(classes.max()) + 1
    m_max = int(counts.max())
    full = np.zeros((ppm.h, outputs.size, n_classes, m_max + 1))
    for i, tau in enumerate(ppm.levels):
        for j in range(outputs.size):
            m = int(counts[i, j])
            a = ppm.feature_budget(int(tau)) / m
            plus = stats.binom.pmf(np.arange(m + 1), m, 1.0 / (1.0 + np.exp(-a)))
            full[i, j, classes[i], : m + 1] = esw[i, j] * plus
    return {"tau_prime": bayes_accuracy(esw),
            "magnitude": bayes_accuracy(full.sum(axis=3).reshape(ppm.h, -1)),
            "joint": bayes_accuracy(full.reshape(ppm.h, -1))}


def _simulate(ppm: PersonalisedMechanism, samples: int, seed: int) -> np.ndarray:
    """Correct guesses of attackers (a) and (b) on ``samples`` PPM users with uniform levels and x = 0."""
    _, esw, _, _ = _tables(ppm)
    with np.errstate(divide="ignore"):
        log_esw = np.log(esw)
    table = [(ppm.sampled_count(int(t)), ppm.magnitude(int(t))) for t in ppm.levels] if ppm.mode == "paper" else None

    def batch(size, rng):
        tau = rng.integers(1, ppm.h + 1, size=size)
        reports = ppm.perturb(np.zeros((size, ppm.d)), tau, rng)
        level_scores = log_esw[:, reports.levels - 1].T  # (users, h)
        by_level = np.sum(map_guess(level_scores, rng) + 1 == tau)
        # (b): the public (count, magnitude) of every level, matched against each report
        compatible = np.ones((size, ppm.h), dtype=bool)
        if table is not None:
            values = np.abs(reports.features)
            count, magnitude = (values > 0).sum(axis=1), values.max(axis=1)
            for i, (m, expected) in enumerate(table):
                compatible[:, i] = (count == m) & (np.abs(magnitude - expected) <= 1e-9 * expected)
        by_magnitude = np.sum(map_guess(np.where(compatible, level_scores, -np.inf), rng) + 1 == tau)
        return np.array([by_level, by_magnitude])

    return count_correct(batch, samples, ppm.d, seed, streams.LEVEL_LEAK.key())


def level_leak_attack(ppm: PersonalisedMechanism, *, samples: int = 100_000, seed: int = 0,
                      alpha: float = 1e-3) -> list[CheckResult]:
    """Rows (a), (b) exact and Monte Carlo against the eps_1 ceiling, and (c) exact against the joint ceiling."""
    if not isinstance(ppm, PersonalisedMechanism):
        raise ValueError("level_leak_attack needs a PersonalisedMechanism (ldp_audit.mechanisms.personalised)")
    if not (isinstance(samples, int) and samples >= 1000):
        raise ValueError(f"samples must be an integer >= 1000, got {samples!r}")
    eps_1 = ppm.gamma * ppm.eps
    level_ceiling = ldp_ceiling(eps_1, ppm.h)
    joint_ceiling = ldp_ceiling(eps_1 + ppm.feature_budget(ppm.h), ppm.h)
    exact = exact_accuracies(ppm)
    correct = dict(zip(("tau_prime", "magnitude"), (int(c) for c in _simulate(ppm, samples, seed))))
    label = (f"PPM mode={ppm.mode}, base eps={ppm.eps:g}, h={ppm.h}, gamma={ppm.gamma:g}, d={ppm.d}")
    details = {"ppm": ppm.params(), "eps_1": eps_1, "joint_eps": eps_1 + ppm.feature_budget(ppm.h)}
    rows = []
    for key, what in (("tau_prime", "level from tau' alone (E4)"),
                      ("magnitude", "level from tau' + value magnitude + count (E5)")):
        rows.append(exact_row(f"attack.level-leak.{key}.exact", CLAIM_LEVEL, exact[key], level_ceiling,
                              f"{label}: {what}", ppm.h, details))
        rows.append(attack_row(f"attack.level-leak.{key}", CLAIM_LEVEL, correct[key], samples, level_ceiling,
                               alpha / 2, seed, f"{label}: Bayes attacker, {what}", ppm.h, exact[key], details))
    rows.append(exact_row("attack.level-leak.joint.exact", CLAIM_JOINT, exact["joint"], joint_ceiling,
                          f"{label}: level from the whole report of a user whose x = 1 is known", ppm.h, details))
    return rows
