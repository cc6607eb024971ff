"""From a Renyi-DP curve to (eps, delta)-DP: the one conversion routine of the package.

* ``classic``: eps = min_a rdp(a) + log(1/delta) / (a - 1) (Mironov 2017, Prop. 3);
* ``improved``: eps = min_a rdp(a) + log((a - 1)/a) - (log delta + log a) / (a - 1) (Balle et al. 2020,
  Prop. 12; what opacus and dp_accounting use). It is never larger than the classic one.
"""
from __future__ import annotations

import math

import numpy as np

CONVERSIONS = ("improved", "classic")


def eps_at_orders(rdp, orders, delta: float, conversion: str = "improved") -> np.ndarray:
    """eps at every order for RDP values ``rdp`` (the last axis runs over ``orders``); the caller minimises.

    A NaN RDP value gives NaN at that order (never a silent 0): callers decide whether to drop it.
    """
    if conversion not in CONVERSIONS:
        raise ValueError(f"conversion must be one of {', '.join(CONVERSIONS)}; got {conversion!r}")
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
    orders = np.asarray(orders, dtype=float)
    rdp = np.asarray(rdp, dtype=float)
    if conversion == "classic":
        return rdp + math.log(1.0 / delta) / (orders - 1.0)
    return rdp + np.log1p(-1.0 / orders) - (math.log(delta) + np.log(orders)) / (orders - 1.0)


def eps_from_rdp(orders, rdp, delta: float, conversion: str = "improved") -> tuple[float, float]:
    """(eps, optimal order) from one RDP curve; the improved conversion is floored at 0.

    Orders whose RDP is NaN (opacus returns NaN at very large orders) are skipped; a curve with no finite
    order left is an error, never a silent eps of 0.
    """
    eps = eps_at_orders(rdp, orders, delta, conversion)
    if np.all(np.isnan(eps)):
        raise ValueError("the RDP curve is NaN at every order: no eps can be derived from it")
    best = int(np.nanargmin(eps))
    value = float(eps[best])
    return (max(0.0, value) if conversion == "improved" else value), float(np.asarray(orders, dtype=float)[best])


def epsilon_curve(rdp_step, orders, delta: float, steps, conversion: str = "improved") -> np.ndarray:
    """eps after each number of steps in ``steps`` (RDP composes linearly over steps); vectorised over T."""
    steps = np.atleast_1d(np.asarray(steps, dtype=float))
    rdp = steps[:, None] * np.asarray(rdp_step, dtype=float)[None, :]
    eps = eps_at_orders(rdp, orders, delta, conversion).min(axis=1)
    return np.maximum(eps, 0.0) if conversion == "improved" else eps
