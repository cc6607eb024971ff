"""Plurality of neighbours' randomized-response labels (lpgnn C16): the quality of LPGNN's label-denoising target,
and equally the accuracy of an attacker who infers v's label from its neighbours' noisy labels.

On a graph where all N neighbours share v's label, the K_y = 1 target argmax(A Y_hat)_v with equal weights is the
plurality of N i.i.d. RR labels (p = e^eps/(e^eps + c - 1) for the true class, q = 1/(e^eps + c - 1) for each
other). Exact: enumerate count vectors by dynamic programming over the c - 1 other classes; ties broken
uniformly at random. torch's argmax breaks ties by the lowest index instead: over a uniformly distributed true
class that gives the same accuracy, but per class it does not (class 0 wins every tie, class c - 1 loses every
tie); both extremes are reported, and averaged over the true class's position the two rules agree.
Without self-loops v's own noisy label is not part of its K_y = 1 target.
The neighbours' labels are other users' data: LDP does not bound this inference (at N = 1 it equals p, the
ceiling of one eps-LDP report of a c-ary secret).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

from ... import streams
from ...mechanisms import make
from ..kernel.result import CheckResult, Status
from ..kernel.sampling import rng_for

CLAIM = "lpgnn C16: plurality of N randomized-response labels (label-denoising target quality)"


def plurality_accuracy(c: int, eps: float, neighbours: int, ties: str = "random", true_label: int = 0) -> float:
    """Exact P[plurality of N RR labels = true class]. ``ties``: "random" (a tie is broken uniformly at random) or
    "lowest" (the lowest class index wins a tie, as torch's argmax does; the true class has index ``true_label``,
    so 0 wins every tie and c - 1 loses every one)."""
    if ties not in ("random", "lowest"):
        raise ValueError(f"ties must be 'random' or 'lowest', got {ties!r}")
    if not 0 <= true_label < c:
        raise ValueError(f"true_label must lie in [0, {c}), got {true_label!r}")
    tail = math.exp(-eps)
    p = 1.0 / (1.0 + (c - 1) * tail)
    q = tail * p
    n = neighbours
    total = 0.0
    for k in range(n + 1):
        rest = n - k
        # poly[s, t]: sum over the classes so far of prod 1/n_j!, with s labels used and t classes tied at k
        poly = np.zeros((rest + 1, c))
        poly[0, 0] = 1.0
        for other in range(c - 1):
            # under the lowest-index rule a class below the true one may not reach k: it would win the tie
            most = k - 1 if ties == "lowest" and other < true_label else k
            nxt = np.zeros_like(poly)
            for take in range(min(most, rest) + 1):
                w = 1.0 / math.factorial(take)
                shift = 1 if take == k else 0
                nxt[take:, shift:] += w * poly[: rest + 1 - take, : c - shift]
            poly = nxt
        credit = 1.0 / (1.0 + np.arange(c)) if ties == "random" else np.ones(c)
        total += math.factorial(n) / math.factorial(k) * p**k * q**rest * float(poly[rest] @ credit)
    return total


def simulate_plurality(c: int, eps: float, neighbours: int, samples: int, seed: int, stream: int = 0,
                       mechanism=None) -> int:
    """Correct pluralities (random ties) over ``samples`` neighbourhoods with uniform true labels, each neighbour's
    label perturbed by ``mechanism`` (default: randomized response at eps)."""
    mechanism = mechanism or make("grr", eps=eps, c=c)
    rng = rng_for(seed, *streams.LABEL_PLURALITY.key(stream))
    truth = rng.integers(0, c, size=samples)
    noisy = mechanism.perturb(np.repeat(truth, neighbours).astype(np.float64), rng).astype(np.int64)
    counts = np.zeros((samples, c))
    np.add.at(counts, (np.repeat(np.arange(samples), neighbours), noisy), 1.0)
    tied = counts == counts.max(axis=1, keepdims=True)
    guess = np.argmax(rng.random(counts.shape) * tied, axis=1)
    return int(np.sum(guess == truth))


#: spec lpgnn C16: c = 7, eps_y = 1
SPEC_TABLE = {1: 0.311791, 4: 0.402590, 16: 0.686885}


def label_plurality_attack(c: int = 7, eps: float = 1.0, neighbours=(1, 4, 16), *, samples: int = 100_000,
                           seed: int = 0, alpha: float = 1e-3, mechanism=None) -> list[CheckResult]:
    """Exact accuracies (against the spec's table where it has one), a Monte Carlo binomial test of each
    (Bonferroni over the N values; ``mechanism`` replaces RR to test a mutant), and the lowest-index tie rule."""
    if not (isinstance(samples, int) and samples >= 1000):
        raise ValueError(f"samples must be an integer >= 1000, got {samples!r}")
    rows = []
    exact = {n: plurality_accuracy(c, eps, n) for n in neighbours}
    if c == 7 and eps == 1.0:
        gap = max(abs(exact[n] - v) for n, v in SPEC_TABLE.items() if n in exact) if set(SPEC_TABLE) & set(exact) \
            else 0.0
        rows.append(CheckResult("attack.label-plurality.exact", CLAIM, Status.PASS if gap < 5e-7 else Status.FAIL,
                                gap, "max |exact - spec|", threshold=5e-7, explanation=(
                                    "exact plurality accuracy " + ", ".join(f"{exact[n]:.6f} (N={n})" for n in exact)
                                    + f" for c={c}, eps_y={eps:g}; spec table 0.311791, 0.402590, 0.686885")))
    for stream, n in enumerate(neighbours):
        correct = simulate_plurality(c, eps, n, samples, seed, stream, mechanism)
        p_value = float(stats.binomtest(correct, samples, exact[n]).pvalue)
        status = Status.FAIL if p_value < alpha / len(neighbours) else Status.PASS
        rows.append(CheckResult(f"attack.label-plurality.N={n}", CLAIM, status, correct / samples, "accuracy",
                                p_value=p_value, threshold=exact[n], n=samples, seed=seed,
                                alpha=alpha / len(neighbours), explanation=(
                                    f"c={c}, eps_y={eps:g}, N={n}: Monte Carlo plurality accuracy "
                                    f"{correct / samples:.4f} vs exact {exact[n]:.4f} (binomial p={p_value:.3g}); "
                                    "LDP does not bound it (neighbours' labels)"
                                    + ("; at N=1 it equals the RR ceiling p" if n == 1 else ""))))
    first = {n: plurality_accuracy(c, eps, n, "lowest", true_label=0) for n in neighbours}
    last = {n: plurality_accuracy(c, eps, n, "lowest", true_label=c - 1) for n in neighbours}
    rows.append(CheckResult("attack.label-plurality.ties", "lpgnn C16: tie rule of the target (torch argmax)",
                            Status.INFO, first[neighbours[-1]], f"accuracy, lowest-index ties, N={neighbours[-1]}",
                            explanation="random ties are implemented here; torch's argmax (lowest index) gives "
                            + ", ".join(f"N={n}: {first[n]:.4f} for class 0 and {last[n]:.4f} for class {c - 1}"
                                        for n in neighbours)
                            + " (averaged over the c positions of the true class it equals random ties)"))
    return rows
