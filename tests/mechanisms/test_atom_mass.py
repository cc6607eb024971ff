"""``Law.atom_mass``: the one point-mass lookup of the white-box ratio, the black-box planned events, the own-report
attack and the exact tables (it replaced three copies)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ldp_audit.mechanisms import make
from ldp_audit.mechanisms.laws import Discrete, LaplaceLaw, Mixture, PiecewiseUniform, point_mass, window_widths


def test_atoms_are_found_exactly_and_everything_else_is_zero():
    law = Discrete(np.array([1.0, -1.0, 0.5]), np.array([0.2, 0.5, 0.3]))
    assert law.atom_mass(np.array([-1.0, 0.5, 1.0, 0.0, 2.0, -3.0])).tolist() == [0.5, 0.3, 0.2, 0.0, 0.0, 0.0]
    assert float(law.atom_mass(0.5)) == 0.3  # a scalar in, a 0-d array out
    assert law.atom_mass(np.nextafter(1.0, 2.0)) == 0.0


def test_rtol_matches_a_report_computed_along_another_float_path():
    law = Discrete(np.array([0.1, 0.7]), np.array([0.4, 0.6]))
    off = np.array([0.1 * (1 + 1e-14), 0.7 * (1 - 1e-14), 0.7 * (1 + 1e-6)])
    assert law.atom_mass(off).tolist() == [0.0, 0.0, 0.0]
    assert law.atom_mass(off, rtol=1e-12).tolist() == [0.4, 0.6, 0.0]


def test_a_law_without_atoms_has_none():
    assert LaplaceLaw(stats.laplace, 0.0, 1.0).atom_mass(np.array([0.0, 1.0])).tolist() == [0.0, 0.0]


def test_a_sub_float_window_at_the_support_edge_takes_the_density_just_inside():
    # the top input's window of a Square Wave at large eps sits at the right end of the other law's support,
    # where a right-continuous density is already 0: its left limit there is what the window holds
    other = PiecewiseUniform(np.array([0.0, 1.0, 2.0]), np.array([0.25, 0.75]))
    window = Discrete(np.array([2.0]), np.array([1.0]), widths=np.array([1e-20]))
    widths = window_widths([other, window], np.array([2.0]))
    assert widths.tolist() == [1e-20]
    assert other.atom_mass(np.array([2.0]), widths)[0] == pytest.approx(0.75 * 1e-20, rel=1e-12)
    assert window.atom_mass(np.array([2.0]), widths)[0] == 1.0  # its own atom, not its density
    assert other.atom_mass(np.array([2.0]))[0] == 0.0  # without widths: no atom, no mass


def test_mixture_atoms_add_up():
    law = Mixture((point_mass(0.0), Discrete(np.array([0.0, 1.0]), np.array([0.5, 0.5]))), (0.25, 0.75))
    assert law.atom_mass(np.array([0.0, 1.0])).tolist() == [0.25 + 0.375, 0.375]


def test_atom_mass_between_counts_each_atom_in_its_half_open_interval():
    law = Discrete(np.array([0.0, 1.0, 2.0]), np.array([0.2, 0.3, 0.5]))
    assert law.atom_mass_between(np.array([-1.0, 0.0, 1.0, 3.0])).tolist() == [0.2, 0.3, 0.5]
    assert LaplaceLaw(stats.laplace, 0.0, 1.0).atom_mass_between(np.array([0.0, 1.0, 2.0])).tolist() == [0.0, 0.0]


def test_randomized_response_pmf_from_atom_mass():
    law = make("grr", eps=1.0, c=4).law(0.0)
    values, probs = law.atoms
    assert np.array_equal(law.atom_mass(values), probs)
