"""Privacy amplification by shuffling: the central (eps, delta) of n shuffled eps0-LDP reports, from three sources.

* ``fmt21-closed-form``: Feldman, McMillan, Talwar 2021 ("Hiding among the clones", Theorem 3.2), generic for every
  eps0-LDP randomizer, valid for eps0 <= log(n / (16 log(4/delta))):
      eps = log(1 + (e^eps0 - 1)/(e^eps0 + 1) (8 sqrt(e^eps0 log(4/delta)) / sqrt(n) + 8 e^eps0 / n)).
  (The paper states the range with log(2/delta); its reference code checks log(4/delta), the stricter one, used here.)
* ``fmt21-numeric``: the same paper's reduction (Theorem 3.1), also generic: the shuffled outputs are as close as
  the pair P, Q on {0..C+1} where C ~ Bin(n - 1, e^-eps0) counts the other users that act as clones of the
  audited one, A ~ Bin(C, 1/2) the clones that look like input 1, and the audited user's own report adds one to
  the count (P: w.p. e^eps0/(e^eps0 + 1); Q: w.p. 1/(e^eps0 + 1)). Its hockey-stick divergence is summed here
  exactly over every C (closed form per C from two binomial cdfs), not bounded on a grid of steps as the paper's
  code does; the mass of C outside the summed window (below 1e-30) is added to delta, so the result stays an
  upper bound. This is what a deployment would claim.
* ``exact-pair``: the exact hockey-stick divergence of shuffled randomized response on the audited dataset pair
  (others at category 0, the audited user 0 vs 1; :func:`ldp_audit.mechanisms.shuffle.pair_delta`). It is the
  truth for that pair, a lower bound on the worst case over datasets, and the best any audit of that pair can find.

For the audited pair: exact-pair <= fmt21-numeric <= fmt21-closed-form (tests/accounting/test_shuffle_accountant.py).
The functions are pure (numbers in, numbers out) like :mod:`.rdp`.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy import stats

from ..mechanisms.shuffle import MAX_USERS, pair_delta, pair_ratio_law
from ..mechanisms.validation import MAX_CATEGORIES, check_eps, check_int, check_open_unit

#: Bisection steps of :func:`amplified_eps` (the interval [0, eps0] halves each time: 2^-60 of eps0).
_BISECTION_STEPS = 60
#: Standard deviations (plus a constant) of C kept in the clone sum; the rest of its mass is added to delta.
_WINDOW_SD, _WINDOW_PAD = 13.0, 40.0


def _check(eps0, n, delta=None):
    eps0 = check_eps(eps0, "eps0")
    n = check_int(n, "n", 1, MAX_USERS)
    return (eps0, n) if delta is None else (eps0, n, check_open_unit(delta, "delta"))


def _check_target(eps) -> float:
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not (0.0 <= float(eps) < math.inf):
        raise ValueError(f"eps must be a finite real number >= 0, got {eps!r}")
    return float(eps)


def fmt21_closed_form_range(n: int, delta: float) -> float:
    """The largest eps0 for which :func:`fmt21_closed_form` holds: log(n / (16 log(4/delta)))."""
    return math.log(n / (16.0 * math.log(4.0 / delta)))


def fmt21_closed_form(eps0: float, n: int, delta: float) -> float:
    """Feldman, McMillan, Talwar 2021, Theorem 3.2 (module docstring); ValueError outside its range of eps0."""
    eps0, n, delta = _check(eps0, n, delta)
    top = fmt21_closed_form_range(n, delta)
    if eps0 > top:
        raise ValueError(f"the closed-form bound of Feldman et al. 2021 needs eps0 <= log(n/(16 log(4/delta))) = "
                         f"{top:.4g} at n={n}, delta={delta:g}; got eps0={eps0:g} (use the numeric bound)")
    blanket = 8.0 * math.sqrt(math.exp(eps0) * math.log(4.0 / delta) / n) + 8.0 * math.exp(eps0) / n
    return math.log1p(math.tanh(eps0 / 2.0) * blanket)


def fmt21_clone_delta(eps: float, eps0: float, n: int) -> float:
    """delta(eps) of the clone pair of Feldman, McMillan, Talwar 2021 (Theorem 3.1) for n users at eps0, summed
    exactly over the number of clones C (module docstring). The pair is symmetric (a -> C + 1 - a swaps P and
    Q), so one direction is the divergence."""
    eps, (eps0, n) = _check_target(eps), _check(eps0, n)
    if eps >= eps0:
        return 0.0
    clone = math.exp(-eps0)
    mean, sd = (n - 1) * clone, math.sqrt((n - 1) * clone * (1.0 - clone))
    lo = max(0, int(mean - _WINDOW_SD * sd - _WINDOW_PAD))
    hi = min(n - 1, int(math.ceil(mean + _WINDOW_SD * sd + _WINDOW_PAD)))
    c = np.arange(lo, hi + 1)
    weight = stats.binom.pmf(c, n - 1, clone)
    left_out = max(0.0, 1.0 - float(np.sum(weight)))
    # given C = c, with alpha = e^eps0/(e^eps0 + 1) and b the Bin(c, 1/2) pmf:
    # P(a) = alpha b(a) + (1 - alpha) b(a - 1), Q(a) = alpha b(a - 1) + (1 - alpha) b(a), a in 0..c+1, and
    # P(a)/Q(a) = (alpha (c + 1 - a) + (1 - alpha) a) / (alpha a + (1 - alpha)(c + 1 - a)) decreases in a: P exceeds
    # e^eps Q exactly on a <= t(c), t(c) = largest a with a/(c + 1) < u, u below
    alpha = 1.0 / (1.0 + math.exp(-eps0))
    grow = math.exp(eps)
    u = (alpha - grow * (1.0 - alpha)) / ((2.0 * alpha - 1.0) * (1.0 + grow))
    t = np.ceil(u * (c + 1)) - 1.0
    cdf = lambda k: stats.binom.cdf(k, c, 0.5)
    excess = alpha * cdf(t) + (1.0 - alpha) * cdf(t - 1) - grow * (alpha * cdf(t - 1) + (1.0 - alpha) * cdf(t))
    return float(np.dot(weight, np.maximum(excess, 0.0))) + left_out


def exact_pair_delta(eps: float, eps0: float, n: int, c: int = 2) -> float:
    """delta(eps) of shuffled randomized response on c categories for the audited dataset pair (exact)."""
    eps, (eps0, n) = _check_target(eps), _check(eps0, n)
    return pair_delta(eps, eps0, n, check_int(c, "c", 2, MAX_CATEGORIES))


#: The accountants by name: delta(eps, eps0, n, c) (c matters to the exact pair only).
DELTA_OF: dict[str, Callable[..., float]] = {
    "fmt21-numeric": lambda eps, eps0, n, c=2: fmt21_clone_delta(eps, eps0, n),
    "exact-pair": exact_pair_delta,
}
#: Every accountant name :func:`amplified_eps` takes.
ACCOUNTANTS = ("fmt21-closed-form", "fmt21-numeric", "exact-pair")


def amplified_delta(eps: float, eps0: float, n: int, method: str = "fmt21-numeric", c: int = 2) -> float:
    """The delta at central budget eps of n shuffled eps0-LDP reports, by ``method`` (not the closed form, which
    is stated as eps at a given delta)."""
    if method not in DELTA_OF:
        raise ValueError(f"method must be one of {', '.join(DELTA_OF)} for a delta at eps; got {method!r}")
    return DELTA_OF[method](eps, eps0, n, c)


def amplified_eps(eps0: float, n: int, delta: float, method: str = "fmt21-numeric", c: int = 2) -> float:
    """The smallest central eps (to 2^-60 eps0, rounded up) at which n shuffled eps0-LDP reports are
    (eps, delta)-DP, by ``method`` (:data:`ACCOUNTANTS`); never above eps0 (shuffling is post-processing)."""
    eps0, n, delta = _check(eps0, n, delta)
    if method == "fmt21-closed-form":
        return fmt21_closed_form(eps0, n, delta)
    if method not in DELTA_OF:
        raise ValueError(f"method must be one of {', '.join(ACCOUNTANTS)}; got {method!r}")
    if method == "exact-pair":
        law = pair_ratio_law(eps0, n, check_int(c, "c", 2, MAX_CATEGORIES))
        delta_at = lambda eps: pair_delta(eps, eps0, n, c, law=law)
    else:
        delta_at = lambda eps: fmt21_clone_delta(eps, eps0, n)
    lo, hi = 0.0, eps0
    if delta_at(lo) <= delta:
        return 0.0
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if delta_at(mid) <= delta else (mid, hi)
    return hi
