"""THE mutant catalogue: deliberately broken mechanisms, realistic bugs that ``verify`` must catch.

Each mutant keeps the law and moment formulas of the correct mechanism (what its author claims) and breaks
only the code that runs: the sampler or the server estimate. ``MUTANTS`` maps a name to a :class:`Mutant`:
how to build it with its claims declared or with the sampler alone, and the checks that must fail in each
case. ``fails_blackbox`` is empty exactly when the bug is not a privacy violation (the black-box search then
has nothing to find: it measures privacy, not accuracy).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from ldp_audit.mechanisms import make
from ldp_audit.mechanisms.categorical import ExtendedSquareWaveLevels
from ldp_audit.mechanisms.constants import sw_probabilities, sw_window_masses
from ldp_audit.mechanisms.sampled import SampledMechanism
from ldp_audit.mechanisms.scalar import Laplace, OneBit, Piecewise, SquareWave, _window_sample

from user_mechanisms import (grr_against_its_law, grr_leaking_one_category, laplace_leaking_input, local_hashing,
                             unary_encoding)


@dataclass(frozen=True)
class LaplaceUnitSensitivity(Laplace):
    """Scale 1/eps instead of 2/eps: forgets that [-1, 1] has sensitivity 2."""

    def _sample(self, x, rng):
        return rng.laplace(x, 1.0 / self.eps)


@dataclass(frozen=True)
class SquareWaveWindowOf(SquareWave):
    """Square Wave whose window half-width comes from another budget (b(eps) instead of b(eps/k))."""

    width_eps: float = 1.0

    def _sample(self, x, rng):
        b = sw_probabilities(self.width_eps)[0]
        tail = math.exp(-self.eps)
        masses = (b / (b + tail), tail / (b + tail))
        return _window_sample(rng.random(x.shape), masses, x - b, 2.0 * b, -1.0 - b, 2.0)


@dataclass(frozen=True)
class SquareWaveSpendingAll(SquareWave):
    """Runs every sampled coordinate at the total budget instead of eps/k (claims eps/k)."""

    total_eps: float = 1.0

    def _sample(self, x, rng):
        return SquareWave(self.total_eps)._sample(x, rng)


@dataclass(frozen=True)
class SquareWaveOverwritingInput(SquareWave):
    """Public-code bug: the input is overwritten while sampling, so the window is U[-b, b] and the right band
    U[b, 1 + b] whatever x is."""

    def _sample(self, x, rng):
        b, _, _ = sw_probabilities(self.eps)
        inside, outside = sw_window_masses(self.eps)
        u = rng.random(x.shape)
        window = -b + u * (2.0 * b / inside)
        outer = (u - inside) * (2.0 / outside)
        left = -1.0 - b + outer
        right = b + (outer - (x + 1.0)) / np.maximum(1.0 - x, 1e-12)
        return np.where(u < inside, window, np.where(outer < x + 1.0, left, right))


@dataclass(frozen=True)
class OneBitLiteralEq6(OneBit):
    """ldp-ge Eq. 6 as printed: -1 with probability (e^eps - 1)/(e^eps + 1) - ((x + 1)/2)(e^eps - 1)/(e^eps + 1)."""

    def _sample(self, x, rng):
        factor = math.tanh(self.eps / 2.0)
        minus = factor - 0.5 * (x + 1.0) * factor
        return np.where(rng.random(x.shape) < minus, -1.0, 1.0)


@dataclass(frozen=True)
class PiecewiseSwapped(Piecewise):
    """Piecewise mechanism with p and p/e^eps swapped: the centre piece gets the small probability."""

    def _sample(self, x, rng):
        s, (w, outer), left, _ = self._pieces(x)
        return _window_sample(rng.random(x.shape), (outer, w), left, s - 1.0, -s, s + 1.0)


@dataclass(frozen=True)
class EswPrintedWindow(ExtendedSquareWaveLevels):
    """ppgnn Eq. 6 as printed: high probability on |g - g'| <= b over {1..f+2b}, renormalised."""

    def _sample(self, x, rng):
        p, q = self.probabilities()
        outputs = np.arange(1, self.f + 2 * self.half_width + 1, dtype=float)
        weights = np.where(np.abs(outputs[None, :] - x[:, None]) <= self.half_width, p, q)
        cum = np.cumsum(weights, axis=1)
        u = rng.random(x.shape) * cum[:, -1]
        return outputs[(cum < u[:, None]).sum(axis=1)]


@dataclass(frozen=True)
class MultibitZeroingUnsampled(SampledMechanism):
    """Public-code bug: the rectifier maps back to [alpha, beta] and then zeroes unsampled coordinates."""

    def estimate(self, reports):
        reports = np.asarray(reports, dtype=float)
        return np.where(reports != 0, super().estimate(reports), 0.0)


@dataclass(frozen=True)
class MultibitIndependentCoins(SampledMechanism):
    """Samples each coordinate with an independent coin of probability k/d instead of exactly k of them."""

    def perturb(self, x, rng, *, return_mask=False, clip=False):
        x = np.atleast_2d(np.asarray(x, dtype=float))
        values = self.coordinate._sample(self.to_coordinate(x).ravel(), rng).reshape(x.shape) * self.client_scale
        coins = rng.random(x.shape) < self.k / self.d
        reports = np.where(coins, values, 0.0)
        return (reports, coins) if return_mask else reports


def _hds_with(coordinate_factory, eps=1.0, d=8, k=2):
    good = make("hds", eps=eps, d=d, k=k)
    return replace(good, coordinate=coordinate_factory(good))


def sampler_only(mechanism) -> dict:
    """A built-in handed in as a user would with nothing but its sampler, claimed eps and input domain."""
    lo, hi = mechanism.domain
    if mechanism.sampling is not None:
        domain = (np.full(mechanism.d, lo), np.full(mechanism.d, hi))
    elif mechanism.discrete_input:
        domain = list(range(int(lo), int(hi) + 1))
    else:
        domain = (lo, hi)
    return {"sample": mechanism.sample, "eps": mechanism.eps, "delta": mechanism.delta, "domain": domain,
            "name": f"{mechanism.name} (sampler only)"}


@dataclass(frozen=True)
class Mutant:
    """``build(declare_law)``: the mechanism with every claim declared, or with its sampler alone;
    ``fails``: checks that must fail in the first case; ``fails_blackbox``: in the second (privacy only)."""

    build: Callable[[bool], object]
    fails: frozenset
    fails_blackbox: frozenset = frozenset()


def _builtin(factory, fails, fails_blackbox=()) -> Mutant:
    return Mutant(lambda declare: factory() if declare else sampler_only(factory()), frozenset(fails),
                  frozenset(fails_blackbox))


def _user(builder, fails, fails_blackbox) -> Mutant:
    return Mutant(lambda declare: builder(declare), frozenset(fails), frozenset(fails_blackbox))


PRIVACY = {"privacy.blackbox"}

MUTANTS = {
    "laplace_scale_1_over_eps": _builtin(lambda: LaplaceUnitSensitivity(1.0),
                                         {"privacy.blackbox", "moments.variance", "distribution.fit"}, PRIVACY),
    "hds_b_of_eps": _builtin(lambda: _hds_with(lambda g: SquareWaveWindowOf(g.coordinate.eps, width_eps=g.eps)),
                             {"distribution.fit", "moments.variance"}),
    "hds_eps_not_split": _builtin(lambda: _hds_with(lambda g: SquareWaveSpendingAll(g.coordinate.eps,
                                                                                     total_eps=g.eps)),
                                  {"privacy.blackbox", "distribution.fit"}, PRIVACY),
    "one_bit_literal_eq6": _builtin(lambda: OneBitLiteralEq6(1.0), {"privacy.blackbox", "distribution.fit"},
                                    PRIVACY),
    # the search on real samples shows three bugs once filed under accuracy to be privacy violations too: the
    # overwritten input moves the support with x (infinite loss), independent coins sometimes sample more than k
    # coordinates, and the printed ESW window has a ratio above e^eps
    "square_wave_overwrites_input": _builtin(lambda: SquareWaveOverwritingInput(1.0),
                                             {"distribution.fit", "moments.mean", "privacy.blackbox"}, PRIVACY),
    "multibit_zeroes_unsampled": _builtin(lambda: MultibitZeroingUnsampled(**_fields(make("multibit", eps=1.0, d=8))),
                                          {"moments.mean"}),
    "multibit_independent_coins": _builtin(
        lambda: MultibitIndependentCoins(**_fields(make("multibit", eps=1.0, d=8))),
        {"structure.sampling", "privacy.blackbox"}, PRIVACY),
    "piecewise_p_q_swapped": _builtin(lambda: PiecewiseSwapped(1.0), {"distribution.fit", "moments.mean"}),
    "esw_printed_window": _builtin(lambda: EswPrintedWindow(1.0, f=5), {"distribution.fit", "privacy.blackbox"},
                                   PRIVACY),
    # vector and tuple reports, handed in as third-party code (tests/user_mechanisms.py)
    "ue_true_bit_not_reset": _user(lambda law: unary_encoding(1.0, 8, declare_law=law, bug="true_bit_not_reset"),
                                   {"privacy.blackbox", "moments.mean"}, PRIVACY),
    # OUE with p and q swapped is still exactly eps-LDP (the mirror image of OUE): only its estimator is wrong
    "oue_p_q_swapped": _user(lambda law: unary_encoding(1.0, 8, declare_law=law, bug="p_q_swapped"),
                             {"moments.mean"}, ()),
    "olh_seed_reused": _user(lambda law: local_hashing(1.0, 8, declare_law=law, bug="seed_reused"), PRIVACY,
                             PRIVACY),
    "grr_sampler_disagrees_with_law": _user(lambda law: grr_against_its_law(1.0, 4, declare_law=law),
                                            {"privacy.blackbox", "distribution.fit"}, PRIVACY),
    "laplace_leaks_input": _user(lambda law: laplace_leaking_input(1.0, declare_law=law), PRIVACY, PRIVACY),
    # category 13 of 30 lies outside the fixed contrast set {0, 10, 19, 29} and the distribution probes
    # {0, 7, 14, 22, 29}: only a pair chosen by the search's short pilot run finds it
    "grr_leaks_one_category": _user(lambda law: grr_leaking_one_category(1.0, 30, 13, declare_law=law), PRIVACY,
                                    PRIVACY),
}


def _fields(mechanism) -> dict:
    from dataclasses import fields
    return {f.name: getattr(mechanism, f.name) for f in fields(mechanism)}


# ----- graph-pipeline mutants (wrappers of a correct mechanism), used by tests/audits/graph/test_graph_bounds.py -----

class WrongRectifier:
    """A mechanism whose server-side rectifier uses the wrong scale (a common implementation bug)."""

    def __init__(self, base, factor):
        self.base, self.factor = base, factor

    def __getattr__(self, name):
        return getattr(self.base, name)

    def estimate(self, reports):
        return self.base.estimate(reports) * self.factor


class WrongBudget:
    """Perturbs with a smaller budget than the one its moments and laws describe (e.g. eps/k applied twice)."""

    def __init__(self, claimed, actual):
        self.base, self.actual = claimed, actual

    def __getattr__(self, name):
        return getattr(self.base, name)

    def perturb_sparse(self, x, rng):
        return self.actual.perturb_sparse(x, rng)

    def perturb(self, x, rng):
        return self.actual.perturb(x, rng)
