"""One-dimensional real-valued mechanisms on [-1, 1] (and the original Square Wave on [0, 1]).

* :class:`Laplace` — ldp-ge M3 / ppgnn M1: x + Lap(2/eps).
* :class:`Piecewise` — ldp-ge M4 (Eq. 3).
* :class:`SquareWave` — ldp-ge M1 (Algorithm 1, Eq. 9), the extended Square Wave on [-1, 1], not debiased.
* :class:`SquareWaveUnit` — ldp-ge M8, the original Square Wave of Li et al. on [0, 1].
* :class:`OneBit` — ldp-ge M6 (Eq. 6 with erratum E1 corrected), reports +-1, rectified on the server.
* :class:`Duchi` — ppgnn A1 (Algorithm 1), the same coin but reporting +-C(eps), unbiased as sent.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from .base import ScalarMechanism
from .constants import (coth_half, pm_constants, pm_variance, sw_mean_factor, sw_probabilities,
                        sw_second_moment_offset, sw_window_masses)
from .laws import Discrete, LaplaceLaw, Mixture, PiecewiseUniform


def _window_sample(u, masses, window_lo, width, outer_lo, outer_length):
    """Inverse-cdf sampler shared by the Square Wave and Piecewise mechanisms.

    The law is uniform on the window [window_lo, window_lo + width] with mass ``masses[0]`` and uniform on the
    rest (mass ``masses[1]``, passed separately to avoid computing 1 - masses[0] with cancellation) of [outer_lo, outer_lo + outer_length + width]. One uniform ``u`` per output: below ``window_mass`` it is
    mapped into the window, above it onto the outer part, whose window-sized gap is skipped.
    """
    window_mass, outer_mass = masses
    out = u - window_mass
    out *= outer_length / outer_mass
    out += width * (out >= window_lo - outer_lo)
    out += outer_lo
    inside = u < window_mass
    np.copyto(out, window_lo + u * (width / window_mass), where=inside)
    return out


def _window_law(window_lo, width, window_mass, outer_lo, outer_hi, outer_mass):
    """Uniform window of mass ``window_mass`` inside a uniform outer range (the laws of Square Wave and Piecewise).

    Densities use the exact ``width``, not the difference of the rounded edges (at large eps the window is
    1e-11 wide at position 1, where the edges carry a relative error of 1e-5). A window narrower than one
    floating-point step at its position is an atom at its left end, which is what the sampler produces too; the atom
    keeps its width, so that its density ratio to the outer part stays e^eps (``Law.atom_widths``).
    """
    window_hi = window_lo + width
    outer_length = outer_hi - outer_lo - width
    left, right = (window_lo - outer_lo) / outer_length, (outer_hi - window_hi) / outer_length
    edges = [outer_lo, window_lo, window_hi, outer_hi]
    widths = [window_lo - outer_lo, width, outer_hi - window_hi]
    if window_hi > window_lo:
        return PiecewiseUniform(edges, [outer_mass * left, window_mass, outer_mass * right], widths)
    window = Discrete(np.array([window_lo]), np.array([1.0]), np.array([width]))
    return Mixture((window, PiecewiseUniform(edges, [left, 0.0, right], widths)), (window_mass, outer_mass))


@dataclass(frozen=True)
class Laplace(ScalarMechanism):
    """y = x + Lap(2/eps): sensitivity 2 on [-1, 1]; unbiased with variance 8/eps^2 (ldp-ge M3, ppgnn M1)."""

    name = "laplace"
    reference = "ldp-ge M3 (Sec. III); ppgnn M1 (Sec. II-D1)"

    @property
    def noise_scale(self) -> float:
        return 2.0 / self.eps

    def _sample(self, x, rng):
        return rng.laplace(x, self.noise_scale)

    def _law(self, x):
        return LaplaceLaw(stats.laplace, float(x), self.noise_scale)

    def _report_mean(self, x):
        return np.asarray(x, dtype=np.float64)

    def _report_var(self, x):
        return np.full_like(np.asarray(x, dtype=np.float64), 8.0 / self.eps**2)


@dataclass(frozen=True)
class Piecewise(ScalarMechanism):
    """Piecewise mechanism (ldp-ge Eq. 3): density p on [l(x), r(x)] and p/e^eps on the rest of [-s, s]."""

    name = "piecewise"
    reference = "ldp-ge M4 (Eq. 3)"

    def _pieces(self, x):
        s, w, outer = pm_constants(self.eps)
        width = 2.0 / math.expm1(self.eps / 2.0)  # s - 1 without cancellation
        # clipped to [-s, s - width]: at x = +-1 the rounding of (s + 1) x / 2 could push the window past the
        # outer range by an ulp, leaving a sliver of [-s, s] with no density under one input only
        left = np.clip(0.5 * (s + 1.0) * x - 0.5 * width, -s, s - width)
        return s, (w, outer), left, width

    def _sample(self, x, rng):
        s, masses, left, width = self._pieces(x)
        return _window_sample(rng.random(x.shape), masses, left, width, -s, s + 1.0)

    def _law(self, x):
        s, (w, outer), left, width = self._pieces(float(x))
        return _window_law(left, width, w, -s, s, outer)

    def _report_mean(self, x):
        return np.asarray(x, dtype=np.float64)

    def _report_var(self, x):
        return pm_variance(self.eps, np.asarray(x, dtype=np.float64))


@dataclass(frozen=True)
class SquareWave(ScalarMechanism):
    """Extended Square Wave on [-1, 1] (ldp-ge Algorithm 1, Eq. 9); biased: E[y|x] = C1 x (Eq. 13)."""

    name = "square_wave"
    reference = "ldp-ge M1 (Algorithm 1, Eq. 9; moments Eqs. 13, 16)"

    def _sample(self, x, rng):
        b, _, _ = sw_probabilities(self.eps)
        return _window_sample(rng.random(x.shape), sw_window_masses(self.eps), x - b, 2.0 * b, -1.0 - b, 2.0)

    def _law(self, x):
        b = sw_probabilities(self.eps)[0]
        inside, outside = sw_window_masses(self.eps)
        return _window_law(x - b, 2.0 * b, inside, -1.0 - b, 1.0 + b, outside)

    def _report_mean(self, x):
        return sw_mean_factor(self.eps) * np.asarray(x, dtype=np.float64)

    def _report_var(self, x):
        c1 = sw_mean_factor(self.eps)
        x2 = np.asarray(x, dtype=np.float64) ** 2
        return sw_second_moment_offset(self.eps) + (c1 - c1 * c1) * x2


@dataclass(frozen=True)
class SquareWaveUnit(ScalarMechanism):
    """Original Square Wave of Li et al. (SIGMOD 2020) on [0, 1] (ldp-ge M8): the affine image of M1.

    Half-width b/2, density e^eps/(b e^eps + 1) inside the window; every variance is a quarter of M1's.
    """

    name = "square_wave_unit"
    reference = "ldp-ge M8 (Li et al. 2020; Figure 1 reading, E7)"

    @property
    def domain(self):
        return 0.0, 1.0

    def _sample(self, x, rng):
        half = 0.5 * sw_probabilities(self.eps)[0]
        return _window_sample(rng.random(x.shape), sw_window_masses(self.eps), x - half, 2.0 * half, -half, 1.0)

    def _law(self, x):
        half = 0.5 * sw_probabilities(self.eps)[0]
        inside, outside = sw_window_masses(self.eps)
        return _window_law(x - half, 2.0 * half, inside, -half, 1.0 + half, outside)

    def _report_mean(self, x):
        return 0.5 * (sw_mean_factor(self.eps) * (2.0 * np.asarray(x, dtype=np.float64) - 1.0) + 1.0)

    def _report_var(self, x):
        return 0.25 * SquareWave(self.eps)._report_var(2.0 * x - 1.0)


@dataclass(frozen=True)
class OneBit(ScalarMechanism):
    """One-bit randomizer: +1 with probability 1/2 + (x/2) tanh(eps/2), else -1 (ldp-ge Eq. 6, corrected per E1).

    The server rectifies with C(eps) = coth(eps/2), giving an unbiased estimate with variance C^2 - x^2.
    """

    name = "one_bit"
    reference = "ldp-ge M6 (Eq. 6, erratum E1 corrected); lpgnn M1 with d = m = 1"

    @property
    def output_scale(self) -> float:
        """Magnitude of the report: 1 here, C(eps) for the client-rectified form."""
        return 1.0

    def prob_plus(self, x):
        """Pr[report > 0 | x] = 1/(e^eps + 1) + ((x + 1)/2)(e^eps - 1)/(e^eps + 1), for every entry of ``x``."""
        return self._prob_towards(self.checked_inputs(x))

    def prob_minus(self, x):
        """Pr[report < 0 | x], by the mirrored formula rather than 1 - prob_plus: at large eps the minority value
        has probability about e^-eps (e^-700 at the top of the range), which 1 - prob_plus rounds to 0."""
        return self._prob_towards(-self.checked_inputs(x))

    def _prob_towards(self, x):
        """1/(e^eps + 1) + ((x + 1)/2) tanh(eps/2): exact at x = -1 and accurate to ulp elsewhere."""
        return special.expit(-self.eps) + 0.5 * (x + 1.0) * math.tanh(self.eps / 2.0)

    def _sample(self, x, rng):
        plus = rng.random(x.shape) < self._prob_towards(x)
        return np.where(plus, self.output_scale, -self.output_scale)

    def _law(self, x):
        probabilities = [float(self._prob_towards(-x)), float(self._prob_towards(x))]
        return Discrete([-self.output_scale, self.output_scale], probabilities)

    @property
    def report_values(self):
        """-C and +C (C the output scale): the only reports."""
        return -self.output_scale, self.output_scale

    @property
    def estimate_scale(self):
        return coth_half(self.eps) / self.output_scale

    def _report_mean(self, x):
        return self.output_scale * math.tanh(self.eps / 2.0) * np.asarray(x, dtype=np.float64)

    def _report_var(self, x):
        """C^2 - mean^2 = 4 C^2 Pr[+] Pr[-] (C the output scale), free of the cancellation of 1 - tanh^2 at large
        eps."""
        return 4.0 * self.output_scale**2 * self._prob_towards(x) * self._prob_towards(-x)


@dataclass(frozen=True)
class Duchi(OneBit):
    """Duchi et al.'s local randomizer as in ppgnn Algorithm 1: reports +-C(eps), already unbiased."""

    name = "duchi"
    reference = "ppgnn A1 (Algorithm 1; Duchi et al. 2018)"

    @property
    def output_scale(self) -> float:
        return coth_half(self.eps)
