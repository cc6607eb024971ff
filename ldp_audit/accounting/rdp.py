"""Per-step Renyi-DP curves of the subsampled Gaussian mechanism: numpy in, numbers out.

Three independent sources of the curve of one DP-SGD step (noise multiplier sigma, sampling rate q):

* opacus's RDP analysis (``opacus.accountants.analysis.rdp``; Mironov, Talwar, Zhang 2019), Poisson only;
* Google's ``dp_accounting`` (RDP for Poisson and for sampling without replacement, Wang, Balle,
  Kasiviswanathan 2019; PLD for Poisson);
* a scipy quadrature of the Renyi divergence between Gaussian mixtures, which for Poisson sampling is the
  exact quantity the two libraries evaluate in closed form.

torch is never imported here; opacus and dp_accounting are imported lazily by the functions that use them.
"""
from __future__ import annotations

import functools
import math
import warnings
from fractions import Fraction

import numpy as np
from scipy import integrate

SAMPLINGS = ("poisson", "without-replacement")
#: opacus's default orders (also TF-Privacy's and the SE-PrivGEmb authors' code): 1.1..10.9 and 12..63.
OPACUS_ORDERS = tuple([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)))
#: The Poisson default: opacus's grid widened to dp-accounting's (up to 1024), so that a small sampling rate or a
#: large sigma does not leave the optimal order stuck at the edge of the grid.
DEFAULT_ORDERS_POISSON = OPACUS_ORDERS + (128.0, 256.0, 512.0, 1024.0)
#: Integer orders 2..512 (the without-replacement bounds are stated for integer orders only).
DEFAULT_ORDERS_WOR = tuple(range(2, 513))


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
        raise ValueError("orders must be integers >= 2 for sampling without replacement")
    return arr


def default_orders(sampling: str) -> np.ndarray:
    """opacus's grid for Poisson sampling, the integers 2..512 without replacement."""
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {', '.join(SAMPLINGS)}; got {sampling!r}")
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


#: dp_accounting's PLD accountant defaults: loss grid step and the tail mass its self-composition may cut.
PLD_GRID = 1e-4
PLD_TAIL = 1e-15
#: Bytes per entry of the FFT self-composition (padded input, its transform, the power, the inverse, the real
#: part, and the composed result kept). Measured: q=0.5, sigma=1, 1e5 steps peaks 2.9 GiB above the start for
#: 37.6 M entries (78 bytes each).
PLD_BYTES_PER_ENTRY = 80


@functools.lru_cache(maxsize=4)
def _pld_step(q: float, sigma: float):
    """One step's privacy-loss distribution, exactly as dp_accounting's ``PLDAccountant`` builds it."""
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    return pld_lib.from_gaussian_mechanism(standard_deviation=sigma, value_discretization_interval=PLD_GRID,
                                           sampling_prob=q)


def pld_memory(q: float, sigma: float, steps: int) -> float:
    """Bytes the PLD accountant's FFT self-composition of ``steps`` steps allocates (its largest array set).

    dp_accounting convolves each dense loss pmf with itself by one FFT whose length is the Chernoff range of
    the composed loss; that length is computed here the same way, before anything large is allocated.
    """
    from dp_accounting.pld import common
    from scipy import fft

    need = 0.0
    step = _pld_step(q, sigma)
    for pmf in (step._pmf_remove, step._pmf_add):  # noqa: SLF001 - the sizes are not public
        probs = getattr(pmf, "_probs", None)
        if probs is not None:
            low, high = common.compute_self_convolve_bounds(probs, steps, PLD_TAIL)
            need = max(need, PLD_BYTES_PER_ENTRY * fft.next_fast_len(max(high - low + 1, len(probs))))
    return need


def eps_pld(q: float, sigma: float, steps: int, delta: float) -> float:
    """eps from dp_accounting's privacy-loss-distribution accountant (Poisson subsampling only); the same
    composition ``PLDAccountant`` performs, from the step distribution :func:`pld_memory` sized."""
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    composed = pld_lib.identity(value_discretization_interval=PLD_GRID).compose(
        _pld_step(q, sigma).self_compose(steps))
    return float(composed.get_epsilon_for_delta(delta))


#: dp_accounting's without-replacement bound costs O(order) per order: integers to 64, then every 8th to 512.
WOR_ORDERS_COARSE = tuple(range(2, 65)) + tuple(range(72, 513, 8))

#: Named per-step RDP curves ``(q, sigma, orders) -> rdp``, with the order grid an accountant uses by default.
SOURCES = {
    "opacus": (rdp_opacus, DEFAULT_ORDERS_POISSON),
    "dp-accounting-poisson": (lambda q, s, o: rdp_dp_accounting(q, s, o, "poisson"), DEFAULT_ORDERS_POISSON),
    "dp-accounting-wor": (lambda q, s, o: rdp_dp_accounting(q, s, o, "without-replacement"), WOR_ORDERS_COARSE),
    "numeric-poisson": (rdp_numeric_poisson, DEFAULT_ORDERS_POISSON),
}
