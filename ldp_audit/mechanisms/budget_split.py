"""How many coordinates a sampled mechanism perturbs: the papers' rules for k (a.k.a. m) and the exact optimum.

* ``"lpgnn"``: m = max(1, min(d, floor(eps / 2.18))) (lpgnn Prop. 3.4, Eq. 6);
* ``"ppgnn"``: m = max(1, min(d, floor(eps / 2.2))) (ppgnn Theorem 1);
* ``"optimal"``: the k in 1..d with the smallest worst-case estimate variance of the mechanism at hand (the
  exact integer minimiser of ppgnn E2 / lpgnn E3; for the one-bit mechanisms it switches from 1 to 2 at
  eps = 3.0571, not at 4.36 or 4.4);
* ``"all"``: k = d, every coordinate at eps/d (ppgnn's 1B, LP and GM baselines of Table III, spec §5.3).

The floors are decimal-exact: eps = 6.6 gives floor(6.6 / 2.2) = 3, whereas float division gives 2.999...
"""
from __future__ import annotations

import math
from decimal import Decimal
from typing import Callable

from .validation import check_int

K_RULES = ("lpgnn", "ppgnn", "optimal", "all")
_RULE_CONSTANTS = {"lpgnn": Decimal("2.18"), "ppgnn": Decimal("2.2")}


def floor_rule(eps: float, d: int, rule: str) -> int:
    """max(1, min(d, floor(eps / c))) with c = 2.18 ("lpgnn") or 2.2 ("ppgnn"), in exact decimal arithmetic."""
    quotient = Decimal(repr(float(eps))) / _RULE_CONSTANTS[rule]
    return max(1, min(d, int(quotient.to_integral_value(rounding="ROUND_FLOOR"))))


def optimal_k(worst_case_variance: Callable[[int], float], eps: float, d: int) -> int:
    """The k minimising ``worst_case_variance(k)``, ties going to the smaller k.

    For every mechanism here the per-coordinate variance grows at least linearly in k once eps/k < 1 (one-bit:
    ~4 d k / eps^2; Laplace: 8 d k / eps^2; Piecewise: ~16 d k / (3 eps^2)), so the minimiser is at most
    2 eps + 2 and the search stops there.
    """
    top = min(d, int(math.ceil(2.0 * eps)) + 2)
    return min(range(1, top + 1), key=lambda k: (worst_case_variance(k), k))


def resolve_k(k, eps: float, d: int, worst_case_variance: Callable[[int], float] | None, name: str = "k") -> int:
    """Turn a user's k (an integer or a rule name) into an integer in [1, d]."""
    if isinstance(k, str):
        if k not in K_RULES:
            raise ValueError(f"{name} must be an integer in [1, {d}] or one of {', '.join(map(repr, K_RULES))}; got {k!r}")
        if k == "optimal":
            if worst_case_variance is None:
                raise ValueError(f"{name}='optimal' is not defined for this mechanism (its estimate is biased); "
                                 f"give an integer in [1, {d}]")
            return optimal_k(worst_case_variance, eps, d)
        if k == "all":
            return d
        return floor_rule(eps, d, k)
    return check_int(k, name, 1, d)
