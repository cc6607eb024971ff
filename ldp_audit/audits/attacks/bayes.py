"""What every attack shares: the Bayes-optimal accuracy of a discrete channel, the LDP ceiling on any attacker's
accuracy, and the row that compares a measured attack with that ceiling.

For a secret s uniform on c values and an eps-LDP report, every attacker's accuracy is at most
e^eps / (e^eps + c - 1) (lpgnn C12 for c = 2, ppgnn C11 for c = h); an (eps, delta)-LDP report of a binary
secret allows (e^eps + delta) / (e^eps + 1). An attack FAILs when the one-sided Clopper-Pearson lower bound
of its accuracy exceeds the ceiling: for a mechanism that keeps its promise this happens with probability at
most alpha (the false-alarm rate).
"""
from __future__ import annotations

import math

import numpy as np

from ..kernel.result import CheckResult, Status
from ..kernel.sampling import map_reduce
from ..kernel.stats import one_sided_bounds

#: Report entries (users x report width) simulated at once inside a chunk: bounds memory at any d.
BATCH_ENTRIES = 1 << 21


def ldp_ceiling(eps: float, secrets: int = 2, delta: float = 0.0) -> float:
    """Largest accuracy of any attacker guessing a uniform secret among ``secrets`` values from an
    (eps, delta)-LDP report: 1 / (1 + (c - 1) e^-eps) (+ delta / (1 + e^eps) for c = 2); 1 for eps = inf."""
    if secrets < 2:
        raise ValueError(f"secrets must be an integer >= 2, got {secrets!r}")
    if delta and secrets != 2:
        raise ValueError("the (eps, delta) ceiling is implemented for binary secrets only")
    if math.isinf(eps):
        return 1.0
    tail = math.exp(-eps)  # stable for large eps: e^eps/(e^eps + c - 1) = 1/(1 + (c - 1) e^-eps)
    return min(1.0, 1.0 / (1.0 + (secrets - 1) * tail) + delta * tail / (1.0 + tail))


def bayes_accuracy(likelihoods, prior=None) -> float:
    """sum_o max_s prior_s P(o | s) for a (secrets, outputs) matrix of likelihoods (uniform prior by default)."""
    lik = np.asarray(likelihoods, dtype=np.float64)
    prior = np.full(lik.shape[0], 1.0 / lik.shape[0]) if prior is None else np.asarray(prior, dtype=np.float64)
    return float((prior[:, None] * lik).max(axis=0).sum())


def map_guess(scores: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Row-wise argmax of (users, secrets) scores (log-likelihoods), ties broken uniformly at random."""
    scores = np.asarray(scores, dtype=np.float64)
    best = scores.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        tied = (scores == best) | (np.abs(scores - best) <= 1e-12 * np.maximum(1.0, np.abs(best)))
    pick = rng.random(scores.shape) * tied
    return np.argmax(pick, axis=1)


def count_correct(attack_batch, n: int, width: int, seed: int, stream: tuple[int, ...]):
    """Sum of ``attack_batch(size, rng)`` (correct guesses, or any summable tally) over n simulated users, in the
    package's seeded chunks (``sampling.map_reduce``), each chunk cut into batches of BATCH_ENTRIES / width users
    so that memory stays bounded for wide reports."""
    batch = max(1, BATCH_ENTRIES // max(1, width))

    def chunk(size, rng):
        total = 0
        for start in range(0, size, batch):
            total = total + attack_batch(min(batch, size - start), rng)
        return total

    return map_reduce(chunk, n, seed, stream)


def closeness(accuracy: float, ceiling: float, secrets: int) -> float:
    """How far from guessing towards the ceiling an attack gets: (acc - 1/c) / (ceiling - 1/c)."""
    span = ceiling - 1.0 / secrets
    return (accuracy - 1.0 / secrets) / span if span > 0 else float("nan")


def attack_row(name: str, claim: str, correct: int, n: int, ceiling: float, alpha: float, seed: int,
               what: str, secrets: int = 2, exact: float | None = None, details: dict | None = None) -> CheckResult:
    """A measured attack against its LDP ceiling: FAIL when the lower confidence bound of the accuracy exceeds
    the ceiling (a privacy violation, false-alarm rate alpha), PASS otherwise."""
    low, high = one_sided_bounds(correct, n, alpha)
    low, high = float(low), float(high)
    accuracy = correct / n
    violated = low > ceiling
    exact_text = "" if exact is None else f", exact Bayes {exact:.4f}"
    explanation = (f"{what}: accuracy {accuracy:.4f} [{low:.4f}, {high:.4f}]{exact_text} vs LDP ceiling "
                   f"{ceiling:.4f} ({closeness(accuracy, ceiling, secrets):.0%} of the way from guessing) -- "
                   + ("exceeds the ceiling: privacy violation" if violated else "within the ceiling"))
    return CheckResult(name, claim, Status.FAIL if violated else Status.PASS, accuracy, "attack accuracy",
                       (low, high), None, ceiling, n, seed, alpha, explanation,
                       {"exact_accuracy": exact, "secrets": secrets, **(details or {})})


def exact_row(name: str, claim: str, accuracy: float, ceiling: float, what: str, secrets: int = 2,
              details: dict | None = None) -> CheckResult:
    """An exactly computed Bayes accuracy against its ceiling (no sampling): FAIL above ceiling (1 + 1e-9)."""
    violated = accuracy > ceiling * (1.0 + 1e-9)
    return CheckResult(name, claim, Status.FAIL if violated else Status.PASS, accuracy, "exact Bayes accuracy",
                       threshold=ceiling, explanation=(
                           f"{what}: exact Bayes accuracy {accuracy:.6f} vs LDP ceiling {ceiling:.6f} "
                           f"({closeness(accuracy, ceiling, secrets):.0%} of the way from guessing)"
                           + (" -- exceeds the ceiling" if violated else "")),
                       details={"secrets": secrets, **(details or {})})


def not_covered_row(name: str, claim: str, explanation: str) -> CheckResult:
    """An explicit "not covered" row: what the paper's guarantee does not protect, so silence is not read as
    protection."""
    return CheckResult(name, claim, Status.INFO, None, "not covered", explanation=explanation)
