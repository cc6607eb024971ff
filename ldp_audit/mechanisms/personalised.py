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

With h = 1 every user is at level 1 (budget eps, MB's budget): there is no secret level, the level report is the
constant tau' = 1 (ESW on a single level), and the features keep Algorithm 3's (1 - gamma) eps. A fixed ``m``
replaces the sampled-coordinate rule (ppgnn Fig. 7c), capped at d.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .budget_split import floor_rule
from .categorical import ExtendedSquareWaveLevels
from .constants import coth_half
from .laws import Discrete
from .sampled import SampledMechanism
from .scalar import OneBit
from .validation import as_input_array, check_choice, check_eps, check_int, check_open_unit, check_rng

MODES = ("paper", "corrected")
FEATURES = ("mlr", "ppm_star")


@lru_cache(maxsize=512)
def _registered(name: str, eps: float, d: int, k):
    """Registry mechanisms are frozen values: the per-level ones are shared between calls."""
    from .registry import make

    return make(name, eps=eps, d=d, k=k)


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
    """What the server receives from n users: feature reports (n, d) and perturbed levels tau' (n,)."""

    features: np.ndarray
    levels: np.ndarray


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
        object.__setattr__(self, "d", check_int(self.d, "d", 1))
        object.__setattr__(self, "h", check_int(self.h, "h", 1))
        object.__setattr__(self, "gamma", check_open_unit(self.gamma, "gamma"))
        object.__setattr__(self, "mode", check_choice(self.mode, "mode", MODES))
        object.__setattr__(self, "feature", check_choice(self.feature, "feature", FEATURES))
        if self.mode == "corrected" and self.feature != "mlr":
            raise ValueError("mode='corrected' needs feature='mlr': PPM*'s Laplace scale depends on the level "
                             "and no server-side rescaling hides it (unbounded level ratio)")
        check_eps(self.budget(self.h), "eps * 2^(h-1)")
        if self.m is not None:
            object.__setattr__(self, "m", check_int(self.m, "m", 1))

    # ----- budgets (ppgnn A8) ------------------------------------------------------------------------------
    @property
    def levels(self) -> np.ndarray:
        return np.arange(1, self.h + 1)

    def budget(self, tau):
        """eps^tau = 2^(tau - 1) eps (ppgnn A8, recommended ladder of E7)."""
        return self.eps * 2.0 ** (np.asarray(tau, dtype=np.float64) - 1.0)

    def level_budget(self, tau) -> float:
        """eps_1: gamma eps^tau in the paper (secret-dependent, E4), gamma eps^1 in the corrected mode."""
        return float(self.gamma * self.budget(tau if self.mode == "paper" else 1))

    def feature_budget(self, tau) -> float:
        """eps_2 = (1 - gamma) eps^tau (Algorithm 3, step 2)."""
        return float((1.0 - self.gamma) * self.budget(tau))

    def joint_eps(self) -> float:
        """The budget that bounds the joint record (x, tau): gamma eps^1 + (1 - gamma) eps^h in the corrected mode
        (spec C10). The paper mode has none (support mismatch of ESW, deterministic scale): inf."""
        return self.level_budget(1) + self.feature_budget(self.h) if self.mode == "corrected" else float("inf")

    # ----- level report (ESW, A3) ----------------------------------------------------------------------------
    def level_mechanism(self, tau: int) -> ExtendedSquareWaveLevels:
        if self.h == 1:
            raise ValueError("h = 1 has a single level: nothing to report through ESW (tau' = 1)")
        return ExtendedSquareWaveLevels(self.level_budget(tau), self.h)

    def level_law(self, tau: int) -> Discrete:
        """Exact law of tau' for level tau (the point mass at 1 when h = 1)."""
        if self.h == 1:
            return Discrete(np.ones(1), np.ones(1))
        return self.level_mechanism(tau).law(float(tau))

    def estimated_level(self, tau_prime) -> np.ndarray:
        """tau_hat = clip(tau' - b, 1, h) with the public ESW half-width b (ppgnn A3, E6; corrected mode)."""
        b = self.level_mechanism(1).half_width if self.h > 1 else 0
        return np.clip(np.asarray(tau_prime, dtype=np.int64) - b, 1, self.h)

    # ----- feature report (MLR A2 / PPM* A7) -----------------------------------------------------------------
    def sampled_count(self, tau: int, tau_prime: int | None = None) -> int:
        """m: Theorem 1's rule on eps_2 of tau (paper, Algorithm 2) or of tau_hat (corrected, E6); PPM* uses its
        registry rule (the worst-case optimum, spec 7.9)."""
        if self.mode == "corrected":
            if tau_prime is None:
                raise ValueError("the corrected mode takes m from the reported level: give tau_prime")
            tau = int(self.estimated_level(tau_prime))
        if self.m is not None:
            return min(self.m, self.d)
        if self.feature == "ppm_star":
            return _registered("ppm_star", self.feature_budget(tau), self.d, "optimal").k
        return floor_rule(self.feature_budget(tau), self.d, "ppgnn")

    def _server_factor(self, tau_hat: int) -> float:
        """(d/m') C((1 - gamma) eps^tau_hat / m'): the corrected mode's public rescaling for estimated level tau_hat."""
        m = min(self.m, self.d) if self.m is not None else floor_rule(self.feature_budget(tau_hat), self.d, "ppgnn")
        return (self.d / m) * coth_half(self.feature_budget(tau_hat) / m)

    def feature_mechanism(self, tau: int, tau_prime: int | None = None) -> SampledMechanism:
        """The client-side feature mechanism of a user at level tau (and, in the corrected mode, with report tau').

        Paper: the registered MLR (or PPM*) at eps_2, client-rectified. Corrected: signs at eps_2 / m' on m'
        coordinates, whose ``estimate`` is the server's public rescaling.
        """
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
        tau = np.asarray(tau, dtype=np.int64)
        if self.h == 1:
            return np.ones(tau.shape, dtype=np.int64)
        tau_prime = np.empty(tau.shape)
        for level in (np.unique(tau) if self.mode == "paper" else [None]):
            idx = np.flatnonzero(tau == level) if level is not None else np.arange(tau.size)
            tau_prime[idx] = self.level_mechanism(1 if level is None else level).perturb(tau[idx], rng)
        return tau_prime.astype(np.int64)

    def _groups(self, tau, tau_prime):
        """(user indices, feature mechanism) for every distinct (tau, m) -- (tau, tau_hat) in the corrected mode."""
        key = tau if self.mode == "paper" else tau * (self.h + 1) + self.estimated_level(tau_prime)
        for value in np.unique(key):
            idx = np.flatnonzero(key == value)
            yield idx, self.feature_mechanism(int(tau[idx[0]]), int(tau_prime[idx[0]]))

    def perturb(self, x, tau, rng, *, clip: bool = False) -> PersonalisedReports:
        """Algorithm 3 for n users: x of shape (n, d) in [-1, 1]^d, tau of shape (n,); independent ESW and MLR
        randomness, both from ``rng``."""
        x = as_input_array(x, -1.0, 1.0, self.d, clip=clip).reshape(-1, self.d)
        rng = check_rng(rng)
        tau = self._check_levels(tau, x.shape[0])
        tau_prime = self.perturb_levels(tau, rng)
        features = np.zeros_like(x)
        for idx, mechanism in self._groups(tau, tau_prime):
            features[idx] = mechanism.perturb(x[idx], rng)
        return PersonalisedReports(features, tau_prime)

    def server_scale(self, tau_prime) -> np.ndarray:
        """Per-user factor the server applies to the feature report: 1 (client-rectified) or (d/m') C(a_server)."""
        tau_prime = np.asarray(tau_prime, dtype=np.int64)
        if self.mode == "paper":
            return np.ones(tau_prime.shape)
        factors = np.array([self._server_factor(int(t)) for t in self.levels])
        return factors[self.estimated_level(tau_prime) - 1]

    def estimate(self, reports: PersonalisedReports) -> np.ndarray:
        """Server estimate of every user's features (public inputs only: the reports)."""
        return reports.features * self.server_scale(reports.levels)[:, None]

    def draw(self, n: int, rng, tau=None) -> PersonalisedUsers:
        """Levels (uniform on {1..h}, or ``tau``), their ESW reports and each user's feature mechanism, drawn from
        ``rng`` (a Generator or an integer seed): the levels first, then tau' level by level in increasing order."""
        rng = check_rng(rng)
        tau = rng.integers(1, self.h + 1, size=n) if tau is None else self._check_levels(tau, n)
        tau_prime = self.perturb_levels(tau, rng)
        mechanisms = [None] * n
        for idx, mechanism in self._groups(np.asarray(tau, dtype=np.int64), tau_prime):
            for i in idx:
                mechanisms[i] = mechanism
        variances = np.array([float(m.estimate_var(np.zeros(1))[0]) for m in mechanisms])
        return PersonalisedUsers(np.asarray(tau), tau_prime, mechanisms, variances)

    def params(self) -> dict:
        return {"eps": self.eps, "d": self.d, "h": self.h, "gamma": self.gamma, "mode": self.mode,
                "feature": self.feature, **({} if self.m is None else {"m": self.m})}
