"""The mechanism registry: ``make(name, **params)`` and ``available()``.

Every mechanism of the five papers is registered here once, with its parameters (defaults and allowed
ranges) and its paper reference. High-dimensional mechanisms are instances of the one sampled composition in
``sampled.py`` over the one-dimensional mechanisms; none is a copy of another.
"""
from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Callable

from .budget_split import resolve_k
from .categorical import ExtendedSquareWaveLevels, RandomizedResponse
from .frequency import ORACLES, Rappor
from .gaussian import Gaussian
from .sampled import SampledMechanism
from .scalar import Duchi, Laplace, OneBit, Piecewise, SquareWave, SquareWaveUnit
from .shuffle import MAX_USERS, MAX_USERS_LAW, ShuffledBinaryRR, ShuffledGRR
from .validation import (EPS_MAX, EPS_MIN, MAX_CATEGORIES, MAX_DIMENSION, check_dimension, check_eps, check_open_unit,
                         check_range)


@dataclass(frozen=True)
class Param:
    name: str
    default: object
    allowed: str
    help: str = ""


@dataclass(frozen=True)
class MechanismInfo:
    """What ``available()`` returns for one mechanism."""

    name: str
    summary: str
    reference: str
    params: tuple[Param, ...]
    high_dimensional: bool

    def __str__(self) -> str:
        args = ", ".join(f"{p.name}={p.default!r}" if p.default is not _REQUIRED else p.name for p in self.params)
        return f"{self.name}({args})  [{self.reference}]"


class _Required:
    def __repr__(self):
        return "<required>"


_REQUIRED = _Required()
_EPS = Param("eps", _REQUIRED, f"[{EPS_MIN:g}, {EPS_MAX:g}]", "total privacy budget of one report")
_D = Param("d", 8, f"integer in [1, {MAX_DIMENSION:.0e}]", "input dimension")
_DELTA = Param("delta", 1e-5, "(0, 1)", "delta of (eps, delta)-LDP")


def _k_param(default) -> Param:
    return Param("k", default, "integer in [1, d], or 'lpgnn', 'ppgnn', 'optimal', 'all'",
                 "coordinates sampled per report (alias: m)")


@dataclass(frozen=True)
class _Entry:
    info: MechanismInfo
    build: Callable[..., object]


_REGISTRY: dict[str, _Entry] = {}


def _register(name: str, summary: str, reference: str, params: tuple[Param, ...], high_dimensional: bool = False):
    def decorator(build):
        _REGISTRY[name] = _Entry(MechanismInfo(name, summary, reference, params, high_dimensional), build)
        return build
    return decorator


# ----- one-dimensional -------------------------------------------------------------------------------------
def _scalar(cls, summary):
    _register(cls.name, summary, cls.reference, (_EPS,))(lambda eps: cls(eps))


_scalar(Laplace, "x + Lap(2/eps) on [-1, 1]")
_scalar(Piecewise, "Piecewise mechanism on [-1, 1], unbiased")
_scalar(SquareWave, "extended Square Wave on [-1, 1], biased (E[y] = C1 x)")
_scalar(SquareWaveUnit, "original Square Wave on [0, 1]")
_scalar(OneBit, "one-bit randomizer, reports +-1, server rectifies with coth(eps/2)")
_scalar(Duchi, "Duchi et al.'s randomizer, reports +-coth(eps/2)")


@_register("gaussian", "x + N(0, sigma^2) on [-1, 1], (eps, delta)-LDP with sensitivity 2", Gaussian.reference,
           (_EPS, _DELTA, Param("calibration", "analytic", "'analytic' or 'classical' (needs eps < 1)")))
def _gaussian(eps, delta=1e-5, calibration="analytic"):
    return Gaussian(eps, delta, calibration)


@_register("grr", "randomized response on categories {0..c-1}", RandomizedResponse.reference,
           (_EPS, Param("c", 2, f"integer in [2, {MAX_CATEGORIES:.0e}]", "number of categories")))
def _grr(eps, c=2):
    return RandomizedResponse(eps, c)


@_register("esw", "Extended Square Wave on levels {1..f}", ExtendedSquareWaveLevels.reference,
           (_EPS, Param("f", 5, f"integer in [2, {MAX_CATEGORIES:.0e}]", "number of levels")))
def _esw(eps, f=5):
    return ExtendedSquareWaveLevels(eps, f)


# ----- the shuffle model: n users' reports, shuffled (the central view) ------------------------------------------
_SHUFFLE_DELTA = Param("delta", 1e-6, "(0, 1)", "delta of the claimed central (eps, delta)")
_EPS0 = Param("eps0", None, f"[{EPS_MIN:g}, {EPS_MAX:g}], or None: eps itself (no amplification claimed)",
              "local budget of each user's randomized response")


@_register("shuffle_grr", "n users' randomized response on c categories at eps0, shuffled: the histogram; "
           "eps = the claimed central (amplified) eps", ShuffledGRR.reference,
           (_EPS, _SHUFFLE_DELTA, Param("n", 10_000, f"integer in [1, {MAX_USERS:.0e}]", "users"), _EPS0,
            Param("c", 2, f"integer in [2, {MAX_CATEGORIES:.0e}]", "number of categories")))
def _shuffle_grr(eps, delta=1e-6, n=10_000, eps0=None, c=2):
    return ShuffledGRR(eps, delta, n, eps0, c)


@_register("shuffle_rr", "n users' binary randomized response at eps0, shuffled: the count of ones; "
           "eps = the claimed central (amplified) eps", ShuffledBinaryRR.reference,
           (_EPS, _SHUFFLE_DELTA, Param("n", 10_000, f"integer in [1, {MAX_USERS_LAW:.0e}]", "users"), _EPS0))
def _shuffle_rr(eps, delta=1e-6, n=10_000, eps0=None):
    return ShuffledBinaryRR(eps, delta, n, eps0)


# ----- frequency oracles over k categories -----------------------------------------------------------------------
_K = Param("k", 8, "integer in [2, 65536]", "number of categories {0..k-1}")
_ORACLE_SUMMARIES = {
    "sue": "symmetric unary encoding (basic one-time RAPPOR): k bits, each kept w.p. e^(eps/2)/(e^(eps/2)+1)",
    "oue": "optimised unary encoding: k bits, x's bit 1 w.p. 1/2, others 1 w.p. 1/(e^eps+1)",
    "she": "summation with histogram encoding: e_x + Lap(2/eps)^k",
    "the": "thresholding with histogram encoding: bits 1[e_x + Lap(2/eps) > theta], optimal theta",
    "olh": "optimised local hashing: (seed, bucket), g = round(e^eps)+1, seeds from 2^63",
    "blh": "binary local hashing: (seed, bucket), g = 2, seeds from 2^63",
    "hr": "Hadamard response: one output in {0..K-1}, K = 2^ceil(log2(k+1))",
    "ss": "subset selection: a d-subset of the k items, d = k/(e^eps+1)",
}


def _oracle(cls):
    _register(cls.name, _ORACLE_SUMMARIES[cls.name], cls.reference, (_EPS, _K))(lambda eps, k=8: cls(eps, k))


for _cls in ORACLES:
    if _cls is not Rappor:
        _oracle(_cls)


@_register("rappor", "RAPPOR with cohorts: (cohort, h k bits), permanent + instantaneous randomized response",
           Rappor.reference,
           (_EPS, _K, Param("h", 2, "integer in [1, 64]", "Bloom bits per item"),
            Param("cohorts", 8, "integer in [1, 4096]", "cohorts (each with its own public Bloom map)"),
            Param("prr", None, "real in [0, 2/(1+e^(eps/(2h)))], or None: half of that",
                  "RAPPOR's f: probability that the permanent response replaces a Bloom bit by a fair coin")))
def _rappor(eps, k=8, h=2, cohorts=8, prr=None):
    return Rappor(eps, k, h, cohorts, prr)


# ----- high-dimensional: instances of the sampled composition ------------------------------------------------
def _sampled(name: str, coordinate, eps, d, k, unbiased: bool = True, scaled_by_client: bool = False, **options):
    """The registered ``name``: ``coordinate(eps / k)`` on k of d coordinates (``SampledMechanism``), k an integer
    or a rule resolved with the worst-case variance of the mechanism each k would build (``resolve_k``; a biased
    mechanism's rules go without it). ``scaled_by_client``: the client multiplies each report by d/k (MLR, PPM*)."""
    eps, d = check_eps(eps), check_dimension(d)
    reference = _REGISTRY[name].info.reference

    def build(kk):
        scale = {"client_scale": d / kk} if scaled_by_client else {}
        return SampledMechanism(name, reference, eps, d, kk, coordinate(eps / kk), **scale, **options)

    variance = (lambda kk: build(kk).worst_case_variance()) if unbiased else None
    return build(resolve_k(k, eps, d, variance))


@_register("hds", "HDS: Square Wave at eps/k on k of d coordinates, not debiased", "ldp-ge M2 (Algorithm 2, Lemma 1)",
           (_EPS, _D, _k_param(2)), high_dimensional=True)
def _hds(eps, d=8, k=2):
    return _sampled("hds", SquareWave, eps, d, k, unbiased=False, rescale=False)


@_register("piecewise_hd", "Piecewise at eps/k on k of d coordinates, rescaled by d/k", "ldp-ge M5 (Eqs. 4-5)",
           (_EPS, _D, _k_param("optimal")), high_dimensional=True)
def _piecewise_hd(eps, d=8, k="optimal"):
    return _sampled("piecewise_hd", Piecewise, eps, d, k)


@_register("laplace_hd", "Laplace at eps/d on every coordinate", "ldp-ge M3; ppgnn M1 (d-dimensional)",
           (_EPS, _D), high_dimensional=True)
def _laplace_hd(eps, d=8):
    eps, d = check_eps(eps), check_dimension(d)
    return SampledMechanism("laplace_hd", "ldp-ge M3; ppgnn M1 (d-dimensional)", eps, d, d, Laplace(eps / d),
                            fixed_k=True)


@_register("gaussian_hd", "Gaussian at (eps/d, delta/d) on every coordinate", "ppgnn M2 (corrected per E1)",
           (_EPS, _DELTA, _D, Param("calibration", "analytic", "'analytic' or 'classical' (needs eps/d < 1)")),
           high_dimensional=True)
def _gaussian_hd(eps, delta=1e-5, d=8, calibration="analytic"):
    eps, d = check_eps(eps), check_dimension(d)
    delta = check_open_unit(delta, "delta")
    coordinate = Gaussian(eps / d, delta / d, calibration)
    return SampledMechanism("gaussian_hd", "ppgnn M2 (corrected per E1)", eps, d, d, coordinate, delta=delta,
                            extra_params=(("delta", delta), ("calibration", calibration)), fixed_k=True)


@_register("analytic_gaussian", "analytic Gaussian on [alpha, beta]^d, L2 sensitivity (beta - alpha) sqrt(d)",
           "lpgnn M5 (Balle & Wang 2018)",
           (_EPS, Param("delta", 1e-4, "(0, 1)"), _D, Param("alpha", 0.0, "finite, < beta"),
            Param("beta", 1.0, "finite, > alpha")), high_dimensional=True)
def _analytic_gaussian(eps, delta=1e-4, d=8, alpha=0.0, beta=1.0):
    eps, d = check_eps(eps), check_dimension(d)
    delta = check_open_unit(delta, "delta")
    alpha, beta = check_range(alpha, beta)
    # one sigma for the whole vector, calibrated in the coordinate domain [-1, 1] where the L2 sensitivity is 2 sqrt(d)
    coordinate = Gaussian(eps, delta, "analytic", sensitivity=2.0 * math.sqrt(d))
    return SampledMechanism("analytic_gaussian", "lpgnn M5 (Balle & Wang 2018)", eps, d, d, coordinate,
                            alpha=alpha, beta=beta, delta=delta, extra_params=(("delta", delta),), fixed_k=True)


@_register("multibit", "multi-bit encoder + rectifier on [alpha, beta]^d", "lpgnn M1-M2 (Algorithm 1, Eq. 4); ldp-ge M7",
           (_EPS, _D, _k_param("lpgnn"), Param("alpha", 0.0, "finite, < beta"), Param("beta", 1.0, "finite, > alpha")),
           high_dimensional=True)
def _multibit(eps, d=8, k="lpgnn", alpha=0.0, beta=1.0):
    eps, d = check_eps(eps), check_dimension(d)  # in the order the parameters are listed
    alpha, beta = check_range(alpha, beta)
    return _sampled("multibit", OneBit, eps, d, k, alpha=alpha, beta=beta)


@_register("mlr", "MLR: Duchi at eps/m on m of d coordinates, scaled by d/m on the client", "ppgnn A2 (Algorithm 2)",
           (_EPS, _D, _k_param("ppgnn")), high_dimensional=True)
def _mlr(eps, d=8, k="ppgnn"):
    return _sampled("mlr", Duchi, eps, d, k, scaled_by_client=True)


@_register("ppm_star", "PPM*: Laplace at eps/m on m of d coordinates, scaled by d/m", "ppgnn A7 (Fig. 4 right)",
           (_EPS, _D, _k_param("optimal")), high_dimensional=True)
def _ppm_star(eps, d=8, k="optimal"):
    return _sampled("ppm_star", Laplace, eps, d, k, scaled_by_client=True)


# ----- public face -------------------------------------------------------------------------------------------
def available() -> list[MechanismInfo]:
    """Every registered mechanism with its parameters (defaults, allowed ranges) and paper reference."""
    return [entry.info for entry in _REGISTRY.values()]


def names() -> list[str]:
    return list(_REGISTRY)


def _suggest(word: str, options) -> str:
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""


def make(name: str, **params):
    """Build mechanism ``name`` with ``params``; ``ValueError`` names any bad parameter and its allowed range."""
    if not isinstance(name, str):
        raise ValueError(f"name must be a mechanism name (a string), got {name!r}. Available: {', '.join(_REGISTRY)}")
    if name not in _REGISTRY:
        raise ValueError(f"unknown mechanism {name!r}.{_suggest(name, _REGISTRY)} "
                         f"Available: {', '.join(_REGISTRY)}")
    entry = _REGISTRY[name]
    accepted = [p.name for p in entry.info.params]
    if "m" in params and "k" in accepted:
        if "k" in params:
            raise ValueError("give either k or its alias m, not both")
        params["k"] = params.pop("m")
    for key in params:
        if key not in accepted:
            raise ValueError(f"mechanism {name!r} has no parameter {key!r}.{_suggest(key, accepted)} "
                             f"Its parameters: {', '.join(accepted)}")
    if "eps" not in params:
        raise ValueError(f"mechanism {name!r} needs eps, a real number in [{EPS_MIN:g}, {EPS_MAX:g}]")
    params["eps"] = check_eps(params["eps"], lower=EPS_MIN)
    return entry.build(**params)
