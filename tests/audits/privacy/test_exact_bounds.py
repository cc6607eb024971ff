"""The exact bounds behind the moment rows at degenerate settings (issue 22), checked by simulation against the
normal approximation they replace, and the law primitives that keep rare masses (sf, interval mass, sub-float
windows)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from ldp_audit.audits.kernel.stats import bennett_p_value, cantelli_p_value, equivalent_z, normal_approximation_holds
from ldp_audit.mechanisms import make
from ldp_audit.mechanisms.laws import Discrete, Mixture, PiecewiseUniform

ALPHA = 0.01
REPLICATES = 20_000


def _rejection_rate(p_values) -> float:
    return float(np.mean(np.asarray(p_values) < ALPHA))


def _within_rate(rate: float) -> bool:
    """At most ALPHA up to what REPLICATES draws of a rate-ALPHA coin exceed with probability 1e-6."""
    return rate * REPLICATES <= stats.binom.ppf(1 - 1e-6, REPLICATES, ALPHA)


def test_bennett_keeps_the_rate_where_the_z_test_does_not():
    """A mean of n = 1000 draws of a rare atom (p = 1e-3, as the one-bit minority value at eps ~ 14): the
    studentised z-test rejects a correct law in ~37 % of samples (whenever the atom is missed, the sample variance
    is 0); Bennett's bound keeps the stated rate and still rejects a law whose atom has 20 times the mass."""
    rng = np.random.default_rng(5)
    n, p = 1000, 1e-3
    assert not normal_approximation_holds(n, (1 - 2 * p) / math.sqrt(p * (1 - p)))
    counts = rng.binomial(n, p, REPLICATES)
    means, variances = counts / n, counts / n * (1 - counts / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (means - p) / np.sqrt(np.maximum(variances, 1e-300) / n)
    assert _rejection_rate(2 * stats.norm.sf(np.abs(z))) > 0.3
    exact = [bennett_p_value(m - p, n, p * (1 - p), 1 - p, p) for m in means]
    assert _within_rate(_rejection_rate(exact))
    wrong = [bennett_p_value(c / n - 20 * p, n, 20 * p * (1 - 20 * p), 1 - 20 * p, 20 * p)
             for c in counts[:200]]
    assert _rejection_rate(wrong) > 0.9


def test_cantelli_keeps_the_rate_for_the_square_of_a_laplace_deviation():
    rng = np.random.default_rng(6)
    n = 1000
    squares = rng.laplace(0.0, 1.0, (REPLICATES // 10, n)) ** 2  # Y = X^2: mean 2, variance 20
    p_values = [cantelli_p_value(m - 2.0, n, 20.0) for m in squares.mean(1)]
    assert _rejection_rate(p_values) <= ALPHA
    # weak but not blind: a claimed variance of 4 (Laplace scale sqrt 2, Var[Y] = 80) against draws of variance 2
    # is rejected from 20,000 draws, still below the 28,000 where a sampled Laplace gets its z-test back
    assert cantelli_p_value(2.0 - 4.0, 20_000, 80.0) < ALPHA


def test_bounds_refuse_what_the_law_forbids_and_ignore_rounding():
    assert bennett_p_value(0.1, 100, 0.0, 1.0, 1.0) == 0.0       # a point mass that moved
    assert bennett_p_value(0.1, 100, 0.5, 0.0, 1.0) == 0.0       # above the top of the support
    assert bennett_p_value(1e-17, 10**6, 1e-300, 1.0, 1.0, tolerance=1e-14) == 1.0
    assert equivalent_z(0.05, -1.0) == pytest.approx(-1.959964, abs=1e-6)


def test_interval_masses_keep_a_window_far_below_the_resolution_of_the_cdf():
    """Square Wave at eps = 50: under x = -1 the window of x = 0, width 1.9e-20, has mass density * width ~ 2e-22
    next to a cdf of 0.99 there; a cdf difference gives 0, the piece's height times the overlap does not."""
    law0 = make("square_wave", eps=50.0).law(0.0)
    law1 = make("square_wave", eps=50.0).law(-1.0)
    (lo, hi) = law0.edges[1], law0.edges[2]
    density = float(law1.density(0.0))
    assert float(law1.prob(lo, hi)) == pytest.approx(density * (hi - lo), rel=1e-9)
    assert float(law1.cdf(hi) - law1.cdf(lo)) == 0.0
    assert float(law1.sf(0.5)) == pytest.approx(density * (law0.edges[-1] - 0.5), rel=1e-12)


def test_a_sub_float_window_keeps_its_width_through_affine_maps_and_mixtures():
    spike = Discrete(np.array([1.0]), np.array([1.0]), np.array([1e-20]))
    assert spike.affine(-3.0, 1.0).atom_widths[0] == pytest.approx(3e-20)
    outer = PiecewiseUniform([-1.0, 1.0], [1.0])
    mixed = Mixture((spike, outer), (0.5, 0.5))
    assert mixed.atoms[0].tolist() == [1.0] and mixed.atom_widths.tolist() == [1e-20]
    assert mixed.total_mass() == pytest.approx(1.0)
