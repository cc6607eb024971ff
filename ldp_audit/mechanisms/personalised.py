"""PPGNN's Personalized Perturbation Mechanism, PPM (ppgnn A4, Algorithm 3), and PPM* (A7), in two modes.

A user holds features x in [-1, 1]^d and a private level tau in {1..h} with budget eps^tau = 2^(tau-1) eps
(ppgnn A8, E7). The level is reported through the Extended Square Wave (A3) on f = h levels at a level budget
eps_1, the features through MLR (A2) -- or PPM*'s Laplace-in-MLR (A7) -- at eps_2 = (1 - gamma) eps^tau.

``mode="paper"`` is Algorithm 3 as written: eps_1 = gamma eps^tau (E4: the ESW law depends on the secret
level, support included), m from eps_2 (Algorithm 2), values rectified on the client, so their magnitude
(d/m) C(eps_2/m) is an injective function of tau (E5).

``mode="corrected"`` (spec C10-C11, E4-E6): eps_1 = gamma eps^1 for every user (a public ESW budget); the number
of sampled coordinates is m' = max(1, min(d, floor((1 - gamma) eps^tau_hat / 2.2))) from the public estimate
tau_hat = clip(tau' - b, 1, h); the user sends the signs x_hat in {-1, 0, 1}^d of Algorithm 1 at the
per-coordinate budget eps_2 / m', and the server rescales them with (d/m') C((1 - gamma) eps^tau_hat / m').
The features stay eps_2-LDP for a fixed level; the joint record (x, tau) is
(gamma eps^1 + (1 - gamma) eps^h)-LDP (C10); the server estimate is unbiased only where tau_hat = tau (C12).
PPM* has no corrected mode: Laplace noise whose scale depends on tau has an unbounded level ratio.

``mode="released"`` is PPM as the authors' code runs it (helongzhu/ID100@05acb7a, mechanisms.py:7-40 and
116-176; :class:`MaxOfAccepted` and :meth:`PersonalisedMechanism.feature_mechanism`). It is NOT LDP, not even for
the features at a fixed level (C10's reading), for three reasons:

* the level report tau' is the largest of tau and the candidates a per-level coin accepts (b = floor(b_SW) f = 0),
  so tau' >= tau: tau' = 1 is possible only at level 1 (an infinite level ratio, as in the paper's E4, but at
  every eps);
* the sampled count is reported the same way, m' >= m(tau), and every user samples M = max over all users of m'
  coordinates, each perturbed at eps_2 / m' of its own m': a user whose m' is below M spends (M / m') eps_2 on its
  features (at eps^1 = 1 on Cora: m' = 1 for most level-1 users and M = 7, so 3.5 where the claim is 0.5);
* the server rescales with the reported level, (d/m') C(eps_2(tau') / m'), which shrinks every report whose
  tau' > tau (a biased estimate, and its magnitude reveals (tau', m')).

The level and count reports each take gamma/2 of eps^tau (mechanisms.py:137-139), the features (1 - gamma) eps^tau.
``verify ldp_audit.mechanisms.personalised:feature_report --eps 1 --param mode=released`` audits a user's feature
report (:func:`feature_report`) and fails; ``mode=paper`` (the spec's fixed-level reading) passes.

With h = 1 every user is at level 1 (budget eps, MB's budget): there is no secret level, the level report is the
constant tau' = 1 (ESW on a single level), and the features keep Algorithm 3's (1 - gamma) eps. A fixed ``m``
replaces the sampled-coordinate rule (ppgnn Fig. 7c), capped at d.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from .budget_split import floor_rule
from .categorical import ExtendedSquareWaveLevels
from .constants import coth_half, sw_half_width
from .laws import Discrete
from .sampled import SampledMechanism
from .scalar import OneBit
from .validation import (as_input_array, as_values, check_choice, check_count, check_dimension, check_eps, check_int,
                         check_open_unit, check_rng)

MODES = ("paper", "corrected", "released")
#: Where the released mode comes from (the authors' code, read and re-expressed).
RELEASED_REFERENCE = "helongzhu/ID100@05acb7a mechanisms.py:7-40, 116-176 (PPM as released)"
FEATURES = ("mlr", "ppm_star")


@lru_cache(maxsize=512)
def _registered(name: str, eps: float, d: int, k):
    """Registry mechanisms are frozen values: the per-level ones are shared between calls."""
    from .registry import make

    return make(name, eps=eps, d=d, k=k)


def released_count(eps: float) -> int:
    """The released code's sampled count max(1, floor(eps / 2.18)), not capped at d (ID100 mechanisms.py:174-176;
    2.18 is LPGNN's constant, Algorithm 2 prints 2.2)."""
    return floor_rule(eps, sys.maxsize, "lpgnn")


@dataclass(frozen=True)
class MaxOfAccepted:
    """The released "Square Wave" report on {1..f} (ID100 mechanisms.py:7-40): every candidate j in {1..f} is
    accepted by its own coin, with probability p = e^eps / (e^eps + f - 1) when j = v and q = 1 / (e^eps + f - 1)
    otherwise, and the report is the largest of v and the accepted candidates.

    The window half-width is b = floor(b_SW(eps)) f (mechanisms.py:11) with b_SW(eps) = sw_half_width(eps) / 2 < 1/2
    for every eps > 0, so b = 0 and the domain stays {1..f}. The report is never below v: P(report <= t) = 0 for
    t < v and (1 - q)^(f - t) for t >= v (the candidate v itself cannot move the maximum). Not LDP at any eps:
    the report 1 is possible only when v = 1.
    """

    eps: float
    f: int

    def __post_init__(self):
        if self.half_width != 0:
            raise ValueError(f"the released window half-width is {self.half_width} at eps={self.eps!r}; only b = 0 "
                             "is modelled (it holds for every eps > 0)")

    @property
    def half_width(self) -> int:
        """b = floor(b_SW(eps)) f as released (mechanisms.py:11), b_SW = sw_half_width / 2 on [0, 1]: 0."""
        return math.floor(0.5 * sw_half_width(self.eps)) * self.f

    @property
    def reject(self) -> float:
        """1 - q: the probability that a candidate other than v is not accepted."""
        return 1.0 - 1.0 / (math.exp(min(self.eps, 700.0)) + self.f - 1)

    def perturb(self, v, rng) -> np.ndarray:
        """The report of every value in ``v`` (any shape, integers in [1, f])."""
        v, rng = as_values(v, 1.0, float(self.f), "v", integer=True).astype(np.int64), check_rng(rng)
        accepted = rng.random(v.shape + (self.f,)) >= self.reject
        top = np.max(np.where(accepted, np.arange(1, self.f + 1), 0), axis=-1)
        return np.maximum(v, top)

    def law(self, v) -> Discrete:
        """Exact law of the report of v: P(t) = (1-q)^(f-t) - [t > v] (1-q)^(f-t+1) on t in {v..f}."""
        t = np.arange(check_int(v, "v", 1, self.f), self.f + 1)
        below = np.where(t > int(v), self.reject ** (self.f - t + 1.0), 0.0)
        return Discrete(t.astype(np.float64), self.reject ** (self.f - t.astype(np.float64)) - below)


@dataclass(frozen=True)
class ServerRescaled(SampledMechanism):
    """Signs of Algorithm 1 on m' sampled coordinates, rescaled by the server with a public factor
    (d/m') C(a_server) instead of the user's own (d/m') C(a) (ppgnn A4 ``rectify="server"``): the estimate
    is biased by C(a_server)/C(a) whenever tau_hat != tau. ``estimate_*`` moments follow from that factor."""

    server_scale: float = 1.0

    @property
    def estimate_scale(self) -> float:
        return self.server_scale


@dataclass(frozen=True)
class PersonalisedReports:
    """What the server receives from n users: feature reports (n, d), perturbed levels tau' (n,) and, in the
    released mode, the reported sampled counts m' (n,) (the server reads them off the report's magnitude)."""

    features: np.ndarray
    levels: np.ndarray
    counts: np.ndarray | None = None


@dataclass(frozen=True)
class PersonalisedUsers:
    """A draw of n users' levels, perturbed levels and per-user feature mechanisms (what FlexProp needs).

    ``variances`` is each user's worst-case (x = 0) estimate variance as the server computes it: from tau in the
    paper mode, from the public tau_hat in the corrected mode.
    """

    tau: np.ndarray
    tau_prime: np.ndarray
    mechanisms: list
    variances: np.ndarray


@dataclass(frozen=True)
class PersonalisedMechanism:
    """PPM / PPM* with h levels, base budget ``eps`` (= eps^1), split ``gamma``, on d features."""

    eps: float
    d: int
    h: int = 5
    gamma: float = 0.5
    mode: str = "paper"
    feature: str = "mlr"
    m: int | None = None

    name = "ppm"
    reference = "ppgnn A4 (Algorithm 3), A7; corrected mode per C10-C11, E4-E6"

    def __post_init__(self):
        object.__setattr__(self, "eps", check_eps(self.eps))
        object.__setattr__(self, "d", check_dimension(self.d))
        object.__setattr__(self, "h", check_int(self.h, "h", 1))
        object.__setattr__(self, "gamma", check_open_unit(self.gamma, "gamma"))
        object.__setattr__(self, "mode", check_choice(self.mode, "mode", MODES))
        object.__setattr__(self, "feature", check_choice(self.feature, "feature", FEATURES))
        if self.mode == "corrected" and self.feature != "mlr":
            raise ValueError("mode='corrected' needs feature='mlr': PPM*'s Laplace scale depends on the level "
                             "and no server-side rescaling hides it (unbounded level ratio)")
        if self.mode == "released" and self.feature != "mlr":
            raise ValueError("mode='released' needs feature='mlr': the released code has no PPM*")
        check_eps(self.budget(self.h), "eps * 2^(h-1)")
        if self.m is not None:
            object.__setattr__(self, "m", check_int(self.m, "m", 1))

    # ----- budgets (ppgnn A8) ------------------------------------------------------------------------------
    @property
    def levels(self) -> np.ndarray:
        return np.arange(1, self.h + 1)

    def budget(self, tau):
        """eps^tau = 2^(tau - 1) eps (ppgnn A8, recommended ladder of E7), for every level in ``tau`` (any shape)."""
        return self.eps * 2.0 ** (self.checked_levels(tau) - 1.0)

    def checked_levels(self, tau, name: str = "tau", top: int | None = None) -> np.ndarray:
        """``tau`` (any shape) as float64 levels, each an integer in [1, top] (default h)."""
        return as_values(tau, 1.0, float(self.h if top is None else top), name, integer=True)

    def level_budget(self, tau) -> float:
        """eps_1: gamma eps^tau in the paper (secret-dependent, E4), gamma eps^1 in the corrected mode; the released
        code gives gamma/2 eps^tau to the level report and as much to the count report (ID100 mechanisms.py:137-139)."""
        if self.mode == "released":
            return float(0.5 * self.gamma * self.budget(tau))
        return float(self.gamma * self.budget(tau if self.mode == "paper" else 1))

    def feature_budget(self, tau) -> float:
        """eps_2 = (1 - gamma) eps^tau (Algorithm 3, step 2)."""
        return float((1.0 - self.gamma) * self.budget(tau))

    def joint_eps(self) -> float:
        """The budget that bounds the joint record (x, tau): gamma eps^1 + (1 - gamma) eps^h in the corrected mode
        (spec C10). The paper and released modes have none (support mismatch of the level report): inf."""
        return self.level_budget(1) + self.feature_budget(self.h) if self.mode == "corrected" else float("inf")

    # ----- level report (ESW, A3) ----------------------------------------------------------------------------
    def level_mechanism(self, tau: int) -> ExtendedSquareWaveLevels | MaxOfAccepted:
        """ESW on the h levels (A3); the released mode's :class:`MaxOfAccepted` (ID100 mechanisms.py:142-144)."""
        if self.h == 1:
            raise ValueError("h = 1 has a single level: nothing to report through ESW (tau' = 1)")
        if self.mode == "released":
            return MaxOfAccepted(self.level_budget(tau), self.h)
        return ExtendedSquareWaveLevels(self.level_budget(tau), self.h)

    def level_law(self, tau: int) -> Discrete:
        """Exact law of tau' for level tau (the point mass at 1 when h = 1)."""
        tau = self.checked_levels(tau)
        if self.h == 1:
            return Discrete(np.ones(1), np.ones(1))
        return self.level_mechanism(tau).law(float(tau))

    @property
    def level_half_width(self) -> int:
        """b, the public ESW half-width of the level report (0 with a single level, and in the released mode)."""
        return self.level_mechanism(1).half_width if self.h > 1 else 0

    def checked_reported_levels(self, tau_prime) -> np.ndarray:
        """``tau_prime`` (any shape) as int64 reported levels, each an integer in [1, h + 2b] (the ESW outputs)."""
        return self.checked_levels(tau_prime, "tau_prime", self.h + 2 * self.level_half_width).astype(np.int64)

    def estimated_level(self, tau_prime) -> np.ndarray:
        """tau_hat = clip(tau' - b, 1, h) with the public ESW half-width b (ppgnn A3, E6; corrected mode)."""
        return np.clip(self.checked_reported_levels(tau_prime) - self.level_half_width, 1, self.h)

    # ----- feature report (MLR A2 / PPM* A7) -----------------------------------------------------------------
    def sampled_count(self, tau: int, tau_prime: int | None = None) -> int:
        """m: Theorem 1's rule on eps_2 of tau (paper, Algorithm 2) or of tau_hat (corrected, E6); PPM* uses its
        registry rule (the worst-case optimum, spec 7.9)."""
        tau = int(self.checked_levels(tau))
        if self.mode == "corrected":
            if tau_prime is None:
                raise ValueError("the corrected mode takes m from the reported level: give tau_prime")
            tau = int(self.estimated_level(tau_prime))
        if self.m is not None:
            return min(self.m, self.d)
        if self.mode == "released":
            return released_count(self.feature_budget(tau))
        if self.feature == "ppm_star":
            return _registered("ppm_star", self.feature_budget(tau), self.d, "optimal").k
        return floor_rule(self.feature_budget(tau), self.d, "ppgnn")

    # ----- the released count report (ID100 mechanisms.py:147-156) ---------------------------------------------
    @property
    def count_domain(self) -> int:
        """The reported counts' domain {1..H}, H = max(1, floor(eps^h / 2.18)) (mechanisms.py:149)."""
        return released_count(float(self.budget(self.h)))

    def count_mechanism(self, tau: int) -> MaxOfAccepted:
        """How a released user at level tau reports its count m(tau): the level report's scheme on {1..H}."""
        return MaxOfAccepted(self.level_budget(tau), self.count_domain)

    def perturb_counts(self, tau, rng) -> np.ndarray:
        """m' >= m(tau) for every released user, level by level in increasing order (mechanisms.py:150-155)."""
        tau, rng = self.checked_levels(tau).astype(np.int64), check_rng(rng)
        counts = np.empty(tau.shape, dtype=np.int64)
        for level in np.unique(tau):
            idx = np.flatnonzero(tau == level)
            counts[idx] = self.count_mechanism(int(level)).perturb(np.full(idx.size, self.sampled_count(level)), rng)
        return counts

    def _released_factor(self, tau_prime: int, m_reported: int) -> float:
        """(d/m') C(eps_2(tau') / m'): the released rescaling with the reported level and count (mechanisms.py:167-168)."""
        return (self.d / m_reported) * coth_half(self.feature_budget(tau_prime) / m_reported)

    def _server_factor(self, tau_hat: int) -> float:
        """(d/m') C((1 - gamma) eps^tau_hat / m'): the corrected mode's public rescaling for estimated level tau_hat."""
        m = min(self.m, self.d) if self.m is not None else floor_rule(self.feature_budget(tau_hat), self.d, "ppgnn")
        return (self.d / m) * coth_half(self.feature_budget(tau_hat) / m)

    def feature_mechanism(self, tau: int, tau_prime: int | None = None, m_reported: int | None = None,
                          sampled: int | None = None) -> SampledMechanism:
        """The client-side feature mechanism of a user at level tau (and, in the corrected mode, with report tau').

        Paper: the registered MLR (or PPM*) at eps_2, client-rectified. Corrected: signs at eps_2 / m' on m'
        coordinates, whose ``estimate`` is the server's public rescaling. Released (ID100 mechanisms.py:156-169):
        signs at eps_2 / m' (the user's reported count) on min(d, ``sampled``) coordinates, ``sampled`` being the
        largest m' over all users, rescaled by (d/m') C(eps_2(tau') / m'). Its ``eps`` is the claimed eps_2; the
        report spends min(d, sampled) eps_2 / m'.
        """
        if self.mode == "released":
            return ServerRescaled("ppm_released", RELEASED_REFERENCE, self.feature_budget(tau), self.d,
                                  min(self.d, sampled), OneBit(self.feature_budget(tau) / m_reported),
                                  server_scale=self._released_factor(tau_prime, m_reported))
        m = self.sampled_count(tau, tau_prime)
        if self.mode == "paper":
            return _registered(self.feature, self.feature_budget(tau), self.d, m)
        return ServerRescaled("ppm_corrected", self.reference, self.feature_budget(tau), self.d, m,
                              OneBit(self.feature_budget(tau) / m),
                              server_scale=self._server_factor(int(self.estimated_level(tau_prime))))

    def magnitude(self, tau: int) -> float:
        """|non-zero report value| of an MLR user at level tau: (d/m) C(eps_2/m) in the paper mode (E5), 1 in the
        corrected mode (signs only)."""
        if self.feature != "mlr":
            raise ValueError("magnitude() is defined for feature='mlr' (PPM*'s values are continuous)")
        if self.mode == "released":
            raise ValueError("a released report's magnitude depends on its reported (tau', m'), not on tau alone")
        if self.mode == "corrected":
            return 1.0
        m = self.sampled_count(tau)
        return (self.d / m) * coth_half(self.feature_budget(tau) / m)

    # ----- client and server --------------------------------------------------------------------------------
    def _check_levels(self, tau, n: int) -> np.ndarray:
        tau = np.asarray(tau)
        if tau.shape != (n,) or not np.all(np.isin(tau, self.levels)):
            raise ValueError(f"tau must hold n = {n} integer levels in [1, {self.h}]")
        return tau.astype(np.int64)

    def perturb_levels(self, tau, rng) -> np.ndarray:
        """tau' for every user, one ESW call per distinct level budget (levels in increasing order)."""
        tau, rng = self.checked_levels(tau).astype(np.int64), check_rng(rng)
        if self.h == 1:
            return np.ones(tau.shape, dtype=np.int64)
        tau_prime = np.empty(tau.shape)
        for level in (np.unique(tau) if self.mode != "corrected" else [None]):
            idx = np.flatnonzero(tau == level) if level is not None else np.arange(tau.size)
            tau_prime[idx] = self.level_mechanism(1 if level is None else level).perturb(tau[idx], rng)
        return tau_prime.astype(np.int64)

    def _groups(self, tau, tau_prime, counts=None):
        """(user indices, feature mechanism) for every distinct (tau, m) -- (tau, tau_hat) in the corrected mode,
        (tau, tau', m') in the released mode, where every user samples max(m') coordinates."""
        if self.mode == "released":
            yield from self.report_groups(tau, tau_prime, counts)
            return
        key = tau if self.mode == "paper" else tau * (self.h + 1) + self.estimated_level(tau_prime)
        for value in np.unique(key):
            idx = np.flatnonzero(key == value)
            yield idx, self.feature_mechanism(int(tau[idx[0]]), int(tau_prime[idx[0]]))

    def report_groups(self, tau, tau_prime, counts=None):
        """(user indices, feature mechanism) for every distinct (tau, tau', m') of the users, in increasing key
        order: the released mode's grouping, where every user samples max(m') coordinates (ID100 mechanisms.py:
        156-169). Without ``counts`` (the other modes) the groups are the distinct (tau, tau'), finer than
        :meth:`perturb`'s own; the training stage draws its reports in that order."""
        keys = np.stack([tau, tau_prime, *([] if counts is None else [counts])], axis=1)
        sampled = None if counts is None else int(np.max(counts))
        for key in np.unique(keys, axis=0):
            idx = np.flatnonzero(np.all(keys == key, axis=1))
            yield idx, self.feature_mechanism(*(int(v) for v in key), sampled=sampled)

    def perturb(self, x, tau, rng, *, clip: bool = False) -> PersonalisedReports:
        """Algorithm 3 for n users: x of shape (n, d) in [-1, 1]^d, tau of shape (n,); independent ESW and MLR
        randomness, both from ``rng``."""
        x = as_input_array(x, -1.0, 1.0, self.d, clip=clip).reshape(-1, self.d)
        rng = check_rng(rng)
        tau = self._check_levels(tau, x.shape[0])
        tau_prime = self.perturb_levels(tau, rng)
        counts = self.perturb_counts(tau, rng) if self.mode == "released" else None
        features = np.zeros_like(x)
        for idx, mechanism in self._groups(tau, tau_prime, counts):
            features[idx] = mechanism.perturb(x[idx], rng)
        return PersonalisedReports(features, tau_prime, counts)

    def server_scale(self, tau_prime, counts=None) -> np.ndarray:
        """Per-user factor the server applies to the feature report: 1 (client-rectified) or (d/m') C(a_server)
        (released: from the reported level and count)."""
        tau_prime = self.checked_reported_levels(tau_prime)
        if self.mode == "released":
            return np.array([self._released_factor(int(t), int(m)) for t, m in zip(tau_prime, counts)])
        if self.mode == "paper":
            return np.ones(tau_prime.shape)
        factors = np.array([self._server_factor(int(t)) for t in self.levels])
        return factors[self.estimated_level(tau_prime) - 1]

    def estimate(self, reports: PersonalisedReports) -> np.ndarray:
        """Server estimate of every user's features (public inputs only: the reports)."""
        if not isinstance(reports, PersonalisedReports):
            raise ValueError(f"reports must be the PersonalisedReports that perturb returns, got "
                             f"{type(reports).__name__}")
        return reports.features * self.server_scale(reports.levels, reports.counts)[:, None]

    def draw(self, n: int, rng, tau=None) -> PersonalisedUsers:
        """Levels (uniform on {1..h}, or ``tau``), their ESW reports and each user's feature mechanism, drawn from
        ``rng`` (a Generator or an integer seed): the levels first, then tau' level by level in increasing order."""
        rng, n = check_rng(rng), check_count(n, "n")
        tau = rng.integers(1, self.h + 1, size=n) if tau is None else self._check_levels(tau, n)
        tau_prime = self.perturb_levels(tau, rng)
        counts = self.perturb_counts(tau, rng) if self.mode == "released" else None
        mechanisms = [None] * n
        for idx, mechanism in self._groups(np.asarray(tau, dtype=np.int64), tau_prime, counts):
            for i in idx:
                mechanisms[i] = mechanism
        variances = np.array([float(m.estimate_var(np.zeros(1))[0]) for m in mechanisms])
        return PersonalisedUsers(np.asarray(tau), tau_prime, mechanisms, variances)

    def params(self) -> dict:
        return {"eps": self.eps, "d": self.d, "h": self.h, "gamma": self.gamma, "mode": self.mode,
                "feature": self.feature, **({} if self.m is None else {"m": self.m})}


def feature_report(eps: float, d: int = 8, level: int = 1, mode: str = "paper", h: int = 5, gamma: float = 0.5,
                   reported: int | None = None, m_reported: int | None = None, sampled: int | None = None):
    """One user's feature report at a fixed ``level`` as an auditable mechanism, claimed ``eps``-LDP with ``eps``
    the user's feature budget eps_2 = (1 - gamma) eps^level (C10's fixed-level reading of Theorem 5), for
    ``ldp-audit verify ldp_audit.mechanisms.personalised:feature_report --eps E --param mode=...``.

    ``paper``: MLR at eps_2 (passes). ``corrected``: signs at eps_2 / m' given the reported level ``reported``
    (passes). ``released``: given the reported level (``reported``, default ``level``), the reported count
    (``m_reported``, default m(level), the smallest value it takes, with positive probability) and the population's
    largest count (``sampled``, default the top H of the count domain, which the largest of a graph's thousands of
    counts reaches almost surely). Those reports are drawn independently of x and the server reads them off the
    report (tau' is sent, m' sets the magnitude), so the report's privacy loss is the largest of these conditional
    ones: min(d, H) eps_2 / m(level), above eps whenever two or more coordinates are sampled -- not LDP.
    """
    eps, gamma = check_eps(eps), check_open_unit(gamma, "gamma")
    level = check_int(level, "level", 1, check_int(h, "h", 1))
    mechanism = PersonalisedMechanism(eps / ((1.0 - gamma) * 2.0 ** (level - 1)), d, h, gamma, mode)
    top = mechanism.h + 2 * mechanism.level_half_width
    reported = level if reported is None else check_int(reported, "reported", 1, top)
    if mode == "released":
        m_reported = mechanism.sampled_count(level) if m_reported is None else check_int(m_reported, "m_reported", 1)
        sampled = mechanism.count_domain if sampled is None else check_int(sampled, "sampled", 1)
        user = mechanism.feature_mechanism(level, reported, m_reported, sampled)
    else:
        user = mechanism.feature_mechanism(level, reported)
    return replace(user, eps=float(eps))  # the claim as given (the budget ladder may round it by an ulp)
