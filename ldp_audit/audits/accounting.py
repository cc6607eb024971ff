"""Renyi-DP accounting of the subsampled Gaussian mechanism, three ways, and checks that they agree.

Three independent sources of the per-step RDP curve of DP-SGD (noise multiplier sigma, sampling rate q):

* opacus's RDP analysis (``opacus.accountants.analysis.rdp``, Mironov, Talwar, Zhang 2019), Poisson only;
* Google's ``dp_accounting`` (RDP for Poisson and for sampling without replacement, Wang, Balle,
  Kasiviswanathan 2019; PLD for Poisson);
* a numerical integration with scipy of the Renyi divergence between Gaussian mixtures (this module),
  which for Poisson sampling is the exact quantity the two libraries evaluate in closed form.

For sampling without replacement there is no exact closed form; the paper's Theorem 4 bound (SE-PrivGEmb,
spec M9) is the third source, and the numerical divergences of concrete neighbouring pairs must lie below
every bound. RDP composes linearly over steps (SE-PrivGEmb Theorem 5) and is converted to (eps, delta)-DP
either by the classic Theorem 1 (Mironov 2017, Prop. 3) or by the improved conversion (Balle et al. 2020,
Prop. 12; what opacus and dp_accounting use). The classic conversion is never smaller.

Everything is numpy in, numbers out; torch is not imported.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from scipy import integrate
from scipy.special import logsumexp

from ..papers import se_privgemb as paper
from .result import CheckResult, Status

SAMPLINGS = ("poisson", "without-replacement")
CONVERSIONS = ("improved", "classic")
#: opacus's default orders (also TF-Privacy's and the SE-PrivGEmb authors' code): 1.1..10.9 and 12..63.
DEFAULT_ORDERS_POISSON = tuple([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)))
#: Integer orders 2..512 (Theorem 4 is stated for integer orders only).
DEFAULT_ORDERS_WOR = tuple(range(2, 513))
#: Relative tolerance for accountant agreement, on each RDP value and on eps (plus 1e-12 absolute).
RTOL = 1e-6
ATOL = 1e-12


# ----------------------------------------------------------------------------------------------- validation
def validate(q: float, sigma: float, steps: int | None = None, delta: float | None = None,
             orders=None, sampling: str | None = None) -> np.ndarray | None:
    """Raise ``ValueError`` naming the parameter and its allowed range; return the orders as an array."""
    if not (isinstance(q, (int, float)) and math.isfinite(q) and 0.0 < q <= 1.0):
        raise ValueError(f"q (sampling rate) must lie in (0, 1], got {q!r}")
    if not (isinstance(sigma, (int, float)) and math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma (noise multiplier) must be a finite number > 0, got {sigma!r}")
    if steps is not None and not (isinstance(steps, (int, np.integer)) and steps >= 1):
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    if delta is not None and not (isinstance(delta, (int, float)) and 0.0 < delta < 1.0):
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
    if sampling is not None and sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {', '.join(SAMPLINGS)}; got {sampling!r}")
    if orders is None:
        return None
    arr = np.atleast_1d(np.asarray(orders, dtype=float))
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 1.0):
        raise ValueError(f"orders must be finite numbers > 1, got {orders!r}")
    if sampling == "without-replacement" and np.any(arr != np.round(arr)):
        raise ValueError("orders must be integers >= 2 for sampling without replacement (Theorem 4)")
    return arr


def default_orders(sampling: str) -> np.ndarray:
    return np.asarray(DEFAULT_ORDERS_POISSON if sampling == "poisson" else DEFAULT_ORDERS_WOR, dtype=float)


# ------------------------------------------------------------------------- numerical Renyi divergences
def renyi_divergence_mixtures(alpha: float, sigma: float, p_weights, p_means, q_weights, q_means) -> float:
    """D_alpha(P || Q) for P = sum_i w_i N(m_i, sigma^2) and Q = sum_j v_j N(n_j, sigma^2), by quadrature.

    log E_Q[(P/Q)^alpha] = log int P^alpha Q^(1-alpha) dx. Each pair of components contributes a Gaussian
    bump centred at alpha m_i + (1 - alpha) n_j, so those centres are handed to ``scipy.integrate.quad`` as
    break points and the integrand is scaled by its largest value. When the moment is close to 1 the
    integral of Q (exp(alpha log(P/Q)) - 1) is taken instead so that tiny divergences keep full precision.
    """
    pm = [float(m) for m in p_means]
    qm = [float(m) for m in q_means]
    lpw = [math.log(w) for w in p_weights]
    lqw = [math.log(w) for w in q_weights]
    half_inv_s2 = 1.0 / (2.0 * sigma * sigma)
    norm = -0.5 * math.log(2 * math.pi * sigma * sigma)

    def log_mix(x, log_w, means):  # log of a Gaussian mixture density; scalar math keeps quad fast
        terms = [lw - (x - m) * (x - m) * half_inv_s2 for lw, m in zip(log_w, means)]
        top = max(terms)
        return norm + top + math.log(sum(math.exp(t - top) for t in terms))

    def log_f(x):
        return alpha * log_mix(x, lpw, pm) + (1 - alpha) * log_mix(x, lqw, qm)

    def excess(x):  # Q(x) (exp(alpha log(P/Q)) - 1), without overflow in the tails
        lq = log_mix(x, lqw, qm)
        z = alpha * (log_mix(x, lpw, pm) - lq)
        return math.exp(lq) * math.expm1(z) if z < 1.0 else math.exp(lq + z) - math.exp(lq)

    centres = sorted({alpha * a + (1 - alpha) * b for a in pm for b in qm})
    lo, hi = centres[0] - 40 * sigma, centres[-1] + 40 * sigma
    scan = np.linspace(lo, hi, 81).tolist()
    shift = max(log_f(x) for x in centres + scan)
    opts = dict(points=centres, limit=800)
    with warnings.catch_warnings():  # quad warns when it reaches machine precision before epsrel
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        moment, _ = integrate.quad(lambda x: math.exp(log_f(x) - shift), lo, hi, epsabs=0.0, epsrel=1e-13, **opts)
        log_moment = math.log(moment) + shift
        if log_moment < math.log(2.0):
            extra, _ = integrate.quad(excess, lo, hi, epsabs=1e-300, epsrel=1e-12, **opts)
            log_moment = math.log1p(extra)
    return log_moment / (alpha - 1.0)


def rdp_numeric_poisson(q: float, sigma: float, orders) -> np.ndarray:
    """Per-step RDP of the Poisson-subsampled Gaussian (add/remove, sensitivity 1) by quadrature:
    D_alpha((1 - q) N(0, s^2) + q N(1, s^2) || N(0, s^2)) at each order (Mironov, Talwar, Zhang 2019)."""
    orders = validate(q, sigma, orders=orders)
    if q == 1.0:
        return orders / (2 * sigma ** 2)
    return np.array([renyi_divergence_mixtures(a, sigma, [1 - q, q], [0.0, 1.0], [1.0], [0.0]) for a in orders])


def rdp_numeric_pair(q: float, sigma: float, orders, shift_a: float, shift_b: float) -> np.ndarray:
    """Per-step D_alpha between (1-q)N(0,s^2)+qN(a,s^2) and (1-q)N(0,s^2)+qN(b,s^2): the output laws of one
    coordinate for two neighbouring datasets that differ in one sampled record (replace-one when b != 0)."""
    orders = validate(q, sigma, orders=orders)
    return np.array([renyi_divergence_mixtures(a, sigma, [1 - q, q], [0.0, shift_a], [1 - q, q], [0.0, shift_b])
                     for a in orders])


# --------------------------------------------------------------------------------- library accountants
def rdp_opacus(q: float, sigma: float, orders) -> np.ndarray:
    """Per-step RDP from opacus (Poisson subsampling, add/remove)."""
    from opacus.accountants.analysis.rdp import compute_rdp

    return np.asarray(compute_rdp(q=q, noise_multiplier=sigma, steps=1, orders=list(orders)), dtype=float)


def _dp_event(q: float, sigma: float, sampling: str):
    import dp_accounting

    gaussian = dp_accounting.GaussianDpEvent(sigma)
    if sampling == "poisson":
        return dp_accounting.PoissonSampledDpEvent(q, gaussian), dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    frac = Fraction(q).limit_denominator(10 ** 12)
    event = dp_accounting.SampledWithoutReplacementDpEvent(frac.denominator, frac.numerator, gaussian)
    return event, dp_accounting.NeighboringRelation.REPLACE_ONE


def rdp_dp_accounting(q: float, sigma: float, orders, sampling: str = "poisson", steps: int = 1) -> np.ndarray:
    """RDP after ``steps`` steps from dp_accounting's ``RdpAccountant`` (Poisson: add/remove; without
    replacement: replace-one, Wang-Balle-Kasiviswanathan's strengthened bound)."""
    from dp_accounting import rdp

    event, relation = _dp_event(q, sigma, sampling)
    accountant = rdp.RdpAccountant(list(orders), neighboring_relation=relation)
    accountant.compose(event, steps)
    return np.asarray(accountant.rdp, dtype=float)


def eps_pld(q: float, sigma: float, steps: int, delta: float) -> float:
    """eps from dp_accounting's privacy-loss-distribution accountant (Poisson subsampling only)."""
    import dp_accounting
    from dp_accounting import pld

    accountant = pld.PLDAccountant()
    accountant.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps)
    return float(accountant.get_epsilon(delta))


# ------------------------------------------------------------------------------------------- conversion
def eps_from_rdp(orders, rdp, delta: float, conversion: str = "improved") -> tuple[float, float]:
    """(eps, optimal order) from an RDP curve. ``classic`` is Theorem 1 (Mironov 2017, Prop. 3);
    ``improved`` is eps = rdp + log((a-1)/a) - (log delta + log a)/(a - 1) (Balle et al. 2020, Prop. 12)."""
    if conversion not in CONVERSIONS:
        raise ValueError(f"conversion must be one of {', '.join(CONVERSIONS)}; got {conversion!r}")
    orders = np.asarray(orders, dtype=float)
    rdp = np.asarray(rdp, dtype=float)
    if conversion == "classic":
        return paper.theorem1_epsilon(rdp, orders, delta)
    eps = rdp + np.log1p(-1.0 / orders) - (math.log(delta) + np.log(orders)) / (orders - 1.0)
    best = int(np.argmin(eps))
    return max(0.0, float(eps[best])), float(orders[best])


def epsilon_curve(rdp_step, orders, delta: float, steps, conversion: str = "improved") -> np.ndarray:
    """eps after each number of steps in ``steps`` (RDP composes linearly, Theorem 5); vectorised over T."""
    steps = np.atleast_1d(np.asarray(steps, dtype=float))
    orders = np.asarray(orders, dtype=float)
    rdp = steps[:, None] * np.asarray(rdp_step, dtype=float)[None, :]
    if conversion == "classic":
        eps = rdp + math.log(1.0 / delta) / (orders - 1.0)
        return eps.min(axis=1)
    eps = rdp + np.log1p(-1.0 / orders) - (math.log(delta) + np.log(orders)) / (orders - 1.0)
    return np.maximum(eps.min(axis=1), 0.0)


def rdp_per_step(method: str, q: float, sigma: float, orders) -> np.ndarray:
    """Per-step RDP curve of one accountant: ``opacus`` (Poisson), ``dp-accounting-poisson``,
    ``dp-accounting-wor``, ``numeric-poisson`` or ``paper-literal`` (Theorem 4, integer orders)."""
    if method == "opacus":
        return rdp_opacus(q, sigma, orders)
    if method == "dp-accounting-poisson":
        return rdp_dp_accounting(q, sigma, orders, "poisson")
    if method == "dp-accounting-wor":
        return rdp_dp_accounting(q, sigma, orders, "without-replacement")
    if method == "numeric-poisson":
        return rdp_numeric_poisson(q, sigma, orders)
    if method == "paper-literal":
        return paper.theorem4_subsampled_rdp(q, sigma, orders)
    raise ValueError(f"accountant method must be one of {', '.join(METHODS)}; got {method!r}")


METHODS = ("opacus", "dp-accounting-poisson", "dp-accounting-wor", "numeric-poisson", "paper-literal")


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
    eps, order = {}, {}
    for conv in conversions:
        eps[conv], order[conv] = eps_from_rdp(orders, rdp_total, delta, conv)
    return AccountantRow(source, method, eps, order, note, np.asarray(rdp_total))


def _close(a, b) -> np.ndarray:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.abs(a - b) <= RTOL * np.maximum(np.abs(a), np.abs(b)) + ATOL


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
    if orders is None:
        orders = default_orders(sampling)
    if conversion not in CONVERSIONS + ("both",):
        raise ValueError(f"conversion must be improved, classic or both; got {conversion!r}")
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
        pld_eps = eps_pld(q, sigma, steps, delta)
        rows.append(AccountantRow("dp-accounting", "PLD, Poisson", {c: pld_eps for c in all_conv},
                                  {c: None for c in all_conv}, "tighter than RDP; no order"))
        lib_eps, _ = get_privacy_spent(orders=list(orders), rdp=list(op), delta=delta)
        integer = orders == np.round(orders)
        # opacus and quadrature are exact at every order; dp-accounting is exact at integer orders and, in
        # version 0.6, conservative (larger) at fractional ones, which is sound but not equal.
        exact = bool(np.all(_close(op, num)) and np.all(_close(dpa[integer], op[integer])))
        conservative = bool(np.all(dpa >= num * (1 - RTOL) - ATOL))
        rel = np.abs(np.stack([num, dpa]) - op) / np.maximum(np.abs(op), ATOL)
        frac_excess = float(np.max(rel[1][~integer])) if np.any(~integer) else 0.0
        checks.append(CheckResult(
            "account.rdp-agreement", claim, Status.PASS if exact and conservative else Status.FAIL,
            float(max(rel[0].max(), rel[1][integer].max(initial=0.0))), "max_rel_diff", threshold=RTOL,
            n=len(orders),
            explanation=("opacus = quadrature at every order, = dp-accounting at integer orders" if exact
                         else "the RDP curves disagree beyond the tolerance")
            + ("" if conservative else "; dp-accounting lies BELOW the exact divergence"),
            details={"dp_accounting_fractional_max_rel_excess": frac_excess}))
        exact_eps = [rows[0].eps["improved"], rows[2].eps["improved"], float(lib_eps)]
        eps_int = [eps_from_rdp(orders[integer], r[integer], delta)[0] for r in (op, dpa, num)] \
            if np.any(integer) else exact_eps
        spread = max((max(v) - min(v)) / max(max(v), ATOL) for v in (exact_eps, eps_int))
        ok = bool(spread <= RTOL and rows[1].eps["improved"] >= min(exact_eps) * (1 - RTOL))
        checks.append(CheckResult(
            "account.eps-agreement", claim, Status.PASS if ok else Status.FAIL, float(spread), "rel_spread",
            threshold=RTOL, explanation=f"improved-conversion eps {min(exact_eps):.10g}..{max(exact_eps):.10g} "
                                        f"(dp-accounting {rows[1].eps['improved']:.10g})",
            details={"opacus_get_privacy_spent": float(lib_eps), "eps_integer_orders": eps_int}))
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
        ok = bool(np.all(dpa <= lit * (1 + RTOL) + ATOL) and np.all(_close(dpa[at2], lit[at2])))
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
