"""Error rates of the graph papers as printed, with their theorem numbers (the audits measure them).

Each printed O(.) statement is written as the function it claims the error scales like, without its hidden
constant, together with the exponent of the quantity the audits vary (eps or the neighbourhood size N).
``ldp_audit.audits.graph.aggregation`` and ``graph_bounds`` fit log-log slopes and compare them with these exponents; the
explicit, checkable replacements (Bernstein inequalities) live there too.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PrintedRate:
    """One printed O(.) rate: where it is, what it says, and the exponent it implies for ``variable``."""

    paper: str
    reference: str
    statement: str
    variable: str
    exponent: float

    def ratio(self, low: float, high: float) -> float:
        """How much the error should grow when ``variable`` goes from ``high`` down to ``low``."""
        return (low / high) ** self.exponent


#: LDP-GE Theorem 2: HDS, max_j |z~ - z| = O(log(d / delta)): no eps at all.
LDP_GE_HDS = PrintedRate("ldp-ge", "Thm 2 (Eqs. 18-23)", "O(log(d/delta))", "eps", 0.0)
#: LDP-GE Theorems 3-4: Laplace, Piecewise and Multi-bit, O(d log(d / delta) / eps).
LDP_GE_UNBIASED = PrintedRate("ldp-ge", "Thms 3-4 (Eqs. 26-32)", "O(d log(d/delta)/eps)", "eps", -1.0)
#: LPGNN Proposition 3.6 (Eq. 9): mean aggregator, O(sqrt(d log(d/delta)) / (eps sqrt(|N(v)|))).
LPGNN_PROP36 = PrintedRate("lpgnn", "Prop. 3.6 (Eq. 9), C8 (E4)", "O(sqrt(d log(d/delta))/(eps sqrt(N)))", "N", -0.5)
#: PPGNN Theorem 4: O(sqrt(d log(d/delta)) / ((1 - gamma) eps sqrt(|N(v)|))) + O(1 / (gamma eps)).
PPGNN_THM4 = PrintedRate("ppgnn", "Thm 4, C15 (E8)", "O(sqrt(d log(d/delta))/((1-gamma) eps sqrt(N))) + O(1/(gamma eps))",
                         "N", -0.5)


def ldp_ge_rate(mechanism: str) -> PrintedRate:
    """The printed eps-rate of LDP-GE for a mechanism name (HDS: Theorem 2; the others: Theorems 3-4)."""
    return LDP_GE_HDS if mechanism == "hds" else LDP_GE_UNBIASED


def ldp_ge_laplace_tau(d: int, eps: float, delta: float, row_l2: float, row_max: float) -> float:
    """The explicit threshold of LDP-GE Theorem 3 for Laplace noise Lap(2d/eps) propagated by one row of Pi.

    delta_0 = 2d exp(-||Pi_v||_2^2 / (2 ||Pi_v||_inf^2)); for delta >= delta_0 Eq. 27 gives
    tau = (4d/eps) sqrt(2 ln(2d/delta)) ||Pi_v||_2, otherwise Eq. 28 gives tau = (8d/eps) ln(2d/delta) ||Pi_v||_inf.
    Re-derived and correct (ldp-ge spec C16).
    """
    log_term = np.log(2 * d / delta)
    delta_0 = 2 * d * np.exp(-row_l2 ** 2 / (2 * row_max ** 2))
    if delta >= delta_0:
        return float(4 * d / eps * np.sqrt(2 * log_term) * row_l2)
    return float(8 * d / eps * log_term * row_max)
