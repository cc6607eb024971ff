"""The three-way cross-check of privacy accounting: do opacus, dp_accounting and a scipy quadrature agree?

The curves themselves are mechanism-side mathematics in :mod:`ldp_audit.accounting`; this module judges them.
For Poisson sampling the three sources must agree order by order and in eps; dp_accounting's PLD must not
exceed the RDP eps. For sampling without replacement there is no exact closed form: SE-PrivGEmb's printed
Theorem 4 bound (spec M9, from :mod:`ldp_audit.papers.se_privgemb`) is the third source, and the numerical
divergences of concrete neighbouring pairs must lie below every bound. The classic conversion is never
smaller than the improved one.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from ...accounting import (CONVERSIONS, RdpAccountant, default_orders, eps_from_rdp, eps_pld, rdp_dp_accounting,
                           rdp_numeric_pair, rdp_numeric_poisson, rdp_opacus, validate)
from ...accounting.rdp import DEFAULT_ORDERS_WOR, PLD_GRID, SOURCES
from ...papers import se_privgemb as paper
from ..kernel.result import AuditReport, CheckResult, Status

#: Noise multipliers the three-way check supports, and the most steps the PLD accountant composes.
SIGMA_RANGE = (0.1, 1e6)
PLD_MAX_STEPS = 10 ** 7
#: Relative tolerance for accountant agreement, on each RDP value and on eps (plus 1e-12 absolute).
RTOL = 1e-6
ATOL = 1e-12
#: Float resolution of one step's RDP times (order - 1): every source computes log E[(P/Q)^alpha] as the log of a
#: sum near 1 (opacus's fractional series also stops at terms below e^-30), so it is known to about 1e-12 in
#: absolute terms, whatever its size. Measured worst 5.6e-13 (q in 1e-4..0.5, sigma in 1..1e6); 1e-11 keeps a
#: 20x margin. T steps multiply the error by T, so the agreement tolerance at order a is
#: RTOL * value + ATOL + T * STEP_FLOAT_ATOL / (a - 1).
STEP_FLOAT_ATOL = 1e-11
#: Below this per-step divergence at order 2 (q^2 (e^(1/sigma^2) - 1), Poisson) the float term above is more
#: than 1 % of the value: the sources cannot be compared any more, and the setting is refused.
MIN_STEP_RDP = 1e-9
#: Every per-step curve an audit can ask for: the library and numerical sources, and the paper's Theorem 4.
METHODS = tuple(SOURCES) + ("paper-literal",)


def paper_accountant(conversion: str = "classic") -> RdpAccountant:
    """SE-PrivGEmb's own accountant as printed: Theorem 4 per step (integer orders 2..512) and Theorem 1."""
    return RdpAccountant("paper-literal", paper.theorem4_subsampled_rdp, DEFAULT_ORDERS_WOR, conversion)


def rdp_per_step(method: str, q: float, sigma: float, orders) -> np.ndarray:
    """Per-step RDP curve of one source in :data:`METHODS` (``paper-literal``: Theorem 4, integer orders)."""
    if method == "paper-literal":
        return paper.theorem4_subsampled_rdp(q, sigma, orders)
    if method not in SOURCES:
        raise ValueError(f"accountant method must be one of {', '.join(METHODS)}; got {method!r}")
    return SOURCES[method][0](q, sigma, np.asarray(orders, dtype=float))


# ----------------------------------------------------------------------------------------- the table
@dataclass(frozen=True)
class AccountantRow:
    """One accountant's answer: eps (and optimal order) under each requested conversion."""

    source: str
    method: str
    eps: dict[str, float]
    order: dict[str, float | None]
    note: str = ""
    rdp: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: The step below which the eps carries no information (the PLD's loss grid: digits past it are the FFT's
    #: rounding and change with the CPU); None: exact to float precision.
    resolution: float | None = None


@dataclass(frozen=True)
class AccountingResult:
    q: float
    sigma: float
    steps: int
    delta: float
    sampling: str
    conversions: tuple[str, ...]
    orders: np.ndarray
    rows: tuple[AccountantRow, ...]
    checks: tuple[CheckResult, ...]


def _row(source: str, method: str, orders, rdp_total, delta, conversions, note="") -> AccountantRow:
    """One accountant's eps; orders where its RDP is NaN are left out of the minimum and counted in the note."""
    rdp_total = np.asarray(rdp_total, dtype=float)
    dropped = np.asarray(orders)[np.isnan(rdp_total)]
    if dropped.size:
        note = "; ".join(filter(None, [note, f"RDP is NaN at {dropped.size} order(s) "
                                             f"({', '.join(f'{a:g}' for a in dropped[:4])}{'...' if dropped.size > 4 else ''}), "
                                             "left out"]))
    eps, order = {}, {}
    for conv in conversions:
        eps[conv], order[conv] = eps_from_rdp(orders, rdp_total, delta, conv)
    if len(orders) > 1 and any(o is not None and o == max(orders) for o in order.values()):
        note = "; ".join(filter(None, [note, f"optimal order is the largest given ({max(orders):g}): larger "
                                             "--orders may give a smaller eps"]))
    return AccountantRow(source, method, eps, order, note, rdp_total)


def _float_atol(orders, steps: int) -> np.ndarray:
    """What float arithmetic leaves unknown of a T-step RDP curve at each order (see STEP_FLOAT_ATOL)."""
    return ATOL + steps * STEP_FLOAT_ATOL / (np.asarray(orders, float) - 1.0)


def _close(a, b, atol=ATOL) -> np.ndarray:
    """Agreement to RTOL plus ``atol``; an order where either curve is NaN is not compared (the row's note says)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return (np.abs(a - b) <= RTOL * np.maximum(np.abs(a), np.abs(b)) + atol) | np.isnan(a) | np.isnan(b)


def check_resolvable(q: float, sigma: float) -> None:
    """Refuse a setting whose per-step divergence is below what the sources resolve (the Poisson order-2
    divergence; replace-one without replacement is of the same order, about 4 times larger)."""
    step = q * q * math.expm1(1.0 / (sigma * sigma))
    if step < MIN_STEP_RDP:
        raise ValueError(
            f"q={q:g} with sigma={sigma:g} is too little privacy loss per step for the three-way check: the "
            f"per-step Renyi divergence at order 2 is about q^2 (e^(1/sigma^2) - 1) = {step:.3g}, below "
            f"{MIN_STEP_RDP:g}; every accountant knows one step's value only to about {STEP_FLOAT_ATOL:g} "
            "(a log of a sum near 1), so their disagreement would be float noise. Use a smaller --sigma or a "
            f"larger --q (q/sigma of at least about {math.sqrt(MIN_STEP_RDP):.2g})")


def account(q: float, sigma: float, steps: int, delta: float, sampling: str = "poisson",
            conversion: str = "both", orders=None) -> AccountingResult:
    """eps of ``steps`` subsampled-Gaussian steps from every accountant, side by side, plus agreement checks.

    Poisson: opacus RDP, dp_accounting RDP and scipy quadrature must agree order by order and in eps to
    ``RTOL``; dp_accounting's PLD is reported as the tighter reference and must not exceed the RDP eps.
    Without replacement: dp_accounting's RDP must lie below Theorem 4 (equal at order 2), and the numerical
    divergences of the neighbouring pairs (1, 0) and (0.5, -0.5) must lie below dp_accounting's curve.
    In both cases the classic conversion must give an eps no smaller than the improved one.
    """
    orders = validate(q, sigma, steps, delta, orders, sampling)
    if not SIGMA_RANGE[0] <= sigma <= SIGMA_RANGE[1]:
        raise ValueError(f"sigma must lie in [{SIGMA_RANGE[0]:g}, {SIGMA_RANGE[1]:g}] for the three-way check, got "
                         f"{sigma!r}: below, the quadrature and the PLD grid break down (tens of GB); above, every "
                         "eps is 0 to machine precision")
    if orders is None:
        orders = default_orders(sampling)
    if conversion not in CONVERSIONS + ("both",):
        raise ValueError(f"conversion must be improved, classic or both; got {conversion!r}")
    check_resolvable(q, sigma)
    conversions = CONVERSIONS if conversion == "both" else (conversion,)
    all_conv = CONVERSIONS  # the classic >= improved check always needs both
    rows: list[AccountantRow] = []
    checks: list[CheckResult] = []
    claim = "RDP accounting (Mironov 2017; SE-PrivGEmb Thm 4-5)"
    if sampling == "poisson":
        from opacus.accountants.analysis.rdp import get_privacy_spent

        op = rdp_opacus(q, sigma, orders) * steps
        dpa = rdp_dp_accounting(q, sigma, orders, "poisson", steps)
        num = rdp_numeric_poisson(q, sigma, orders) * steps
        rows.append(_row("opacus", "RDP, Poisson", orders, op, delta, all_conv))
        rows.append(_row("dp-accounting", "RDP, Poisson", orders, dpa, delta, all_conv))
        rows.append(_row("scipy quadrature", "RDP, Poisson (numerical)", orders, num, delta, all_conv))
        pld_eps = eps_pld(q, sigma, steps, delta) if steps <= PLD_MAX_STEPS else None
        if pld_eps is not None:
            rows.append(AccountantRow("dp-accounting", "PLD, Poisson", {c: pld_eps for c in all_conv},
                                      {c: None for c in all_conv}, "tighter than RDP; no order", resolution=PLD_GRID))
        with warnings.catch_warnings():  # "optimal order is the largest alpha": each row's note says so instead
            warnings.simplefilter("ignore", UserWarning)
            lib_eps, _ = get_privacy_spent(orders=list(orders), rdp=list(op), delta=delta)
        integer = orders == np.round(orders)
        # opacus and quadrature are exact at every order; dp-accounting is exact at integer orders and, in
        # version 0.6, conservative (larger) at fractional ones, which is sound but not equal.
        atol = _float_atol(orders, steps)
        exact = bool(np.all(_close(op, num, atol)) and np.all(_close(dpa[integer], op[integer], atol[integer])))
        conservative = bool(np.all(dpa >= num * (1 - RTOL) - atol))
        # the statistic: the largest disagreement beyond the float term, relative to the value
        rel = np.maximum(np.abs(np.stack([num, dpa]) - op) - atol + ATOL, 0.0) / np.maximum(np.abs(op), ATOL)
        frac_excess = float(np.nanmax(rel[1][~integer], initial=0.0)) if np.any(~integer) else 0.0
        checks.append(CheckResult(
            "account.rdp-agreement", claim, Status.PASS if exact and conservative else Status.FAIL,
            float(max(np.nanmax(rel[0], initial=0.0), np.nanmax(rel[1][integer], initial=0.0))), "max_rel_diff",
            threshold=RTOL,
            n=len(orders),
            explanation=("opacus = quadrature at every order, = dp-accounting at integer orders" if exact
                         else "the RDP curves disagree beyond the tolerance")
            + ("" if conservative else "; dp-accounting lies BELOW the exact divergence"),
            details={"dp_accounting_fractional_max_rel_excess": frac_excess}))
        exact_eps = [rows[0].eps["improved"], rows[2].eps["improved"], float(lib_eps)]
        eps_int = [eps_from_rdp(orders[integer], r[integer], delta)[0] for r in (op, dpa, num)] \
            if np.any(integer) else exact_eps
        # eps inherits the float term of the curve at its optimal order (the smallest such order is the worst)
        best = min((r.order["improved"] for r in rows[:3] if r.order["improved"] is not None), default=2.0)
        eps_atol = float(_float_atol([best], steps)[0]) - ATOL
        spread = max(max(max(v) - min(v) - eps_atol, 0.0) / max(max(v), ATOL) for v in (exact_eps, eps_int))
        ok = bool(spread <= RTOL and rows[1].eps["improved"] >= min(exact_eps) * (1 - RTOL) - eps_atol)
        checks.append(CheckResult(
            "account.eps-agreement", claim, Status.PASS if ok else Status.FAIL, float(spread), "rel_spread",
            threshold=RTOL, explanation=f"improved-conversion eps {min(exact_eps):.10g}..{max(exact_eps):.10g} "
                                        f"(dp-accounting {rows[1].eps['improved']:.10g})",
            details={"opacus_get_privacy_spent": float(lib_eps), "eps_integer_orders": eps_int}))
        if pld_eps is None:
            checks.append(CheckResult(
                "account.pld-below-rdp", claim, Status.INFO, None, "eps_pld",
                explanation=f"not run: the PLD accountant composes at most {PLD_MAX_STEPS:.0e} steps in memory"))
        else:
            ok = pld_eps <= rows[1].eps["improved"] * (1 + RTOL) + ATOL
            checks.append(CheckResult(
                "account.pld-below-rdp", claim, Status.PASS if ok else Status.FAIL, pld_eps, "eps_pld",
                threshold=rows[1].eps["improved"],
                explanation="PLD (exact up to discretisation) is no larger than the RDP bound" if ok
                else "PLD eps exceeds the RDP eps: one of them is wrong"))
    else:
        integer = orders[orders == np.round(orders)]
        dpa = rdp_dp_accounting(q, sigma, orders, "without-replacement", steps)
        lit = paper.theorem4_subsampled_rdp(q, sigma, orders) * steps
        rows.append(_row("dp-accounting", "RDP, without replacement (replace-one)", orders, dpa, delta, all_conv))
        rows.append(_row("paper Theorem 4", "RDP bound, without replacement", orders, lit, delta, all_conv,
                         "literal; looser than dp-accounting"))
        rows.append(_row("opacus", "RDP, Poisson formula (not valid here)", orders,
                         rdp_opacus(q, sigma, orders) * steps, delta, all_conv,
                         "what the authors' code reports for this sampler"))
        at2 = orders == 2
        atol = _float_atol(orders, steps)
        ok = bool(np.all(dpa <= lit * (1 + RTOL) + atol) and np.all(_close(dpa[at2], lit[at2], atol[at2])))
        checks.append(CheckResult(
            "account.wor-bound-order", claim, Status.PASS if ok else Status.FAIL,
            float(np.max(dpa - lit)), "max(dpacc - thm4)", threshold=0.0, n=len(orders),
            explanation="dp-accounting's WOR curve lies below Theorem 4 and equals it at order 2" if ok
            else "dp-accounting's WOR curve and Theorem 4 are inconsistent"))
        sub = integer[np.unique(np.linspace(0, len(integer) - 1, min(len(integer), 24)).astype(int))]
        bound = rdp_dp_accounting(q, sigma, sub, "without-replacement", 1)
        worst = -np.inf
        for a, b in ((1.0, 0.0), (0.5, -0.5)):
            numeric = rdp_numeric_pair(q, sigma, sub, a, b)
            worst = max(worst, float(np.max(numeric - bound)))
        ok = worst <= ATOL
        checks.append(CheckResult(
            "account.wor-sound", claim, Status.PASS if ok else Status.FAIL, worst, "max(numeric - bound)",
            threshold=0.0, n=len(sub),
            explanation="quadrature of neighbouring pairs (1,0), (0.5,-0.5) stays below dp-accounting's WOR "
                        "bound" if ok else "a neighbouring pair exceeds the WOR bound",
            details={"orders_checked": sub.tolist()}))
    worst_gap = min(r.eps["classic"] - r.eps["improved"] for r in rows if r.order["classic"] is not None)
    ok = worst_gap >= -ATOL
    checks.append(CheckResult(
        "account.classic-vs-improved", "Thm 1 vs improved conversion", Status.PASS if ok else Status.FAIL,
        float(worst_gap), "min(classic - improved)", threshold=0.0,
        explanation="the classic conversion never gives the smaller eps" if ok
        else "classic conversion gave a smaller eps than the improved one"))
    return AccountingResult(q, sigma, int(steps), delta, sampling, conversions, orders, tuple(rows), tuple(checks))


def account_report(q: float, sigma: float, steps: int, delta: float, sampling: str = "poisson",
                   conversion: str = "both", orders=None) -> AuditReport:
    """:func:`account` as a report: the agreement checks are the rows, every accountant's eps is in the subject."""
    result = account(q, sigma, steps, delta, sampling, conversion, orders)
    subject = {"q": result.q, "sigma": result.sigma, "steps": result.steps, "delta": result.delta,
               "sampling": result.sampling, "conversions": list(result.conversions),
               "accountants": [{"source": r.source, "method": r.method, "eps": r.eps, "order": r.order,
                                "note": r.note, "resolution": r.resolution} for r in result.rows]}
    return AuditReport.of("accountant agreement", result.checks, subject=subject,
                          settings={"orders": len(result.orders), "rtol": RTOL})
