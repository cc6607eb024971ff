"""The one Clopper-Pearson helper (kernel.stats) for scalar counts (membership audit, attack rows) and arrays of
counts (the black-box search, detection power)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import beta

from ldp_audit.audits.kernel.stats import clopper_pearson, one_sided_bounds


def test_scalar_counts_give_floats():
    low, high = clopper_pearson(3, 20, 0.05)
    assert type(low) is float and type(high) is float
    assert low == pytest.approx(beta.ppf(0.025, 3, 18), rel=1e-12)
    assert high == pytest.approx(beta.isf(0.025, 4, 17), rel=1e-12)


def test_numpy_scalar_counts_give_floats():
    low, high = one_sided_bounds(np.int64(0), np.int64(1000), 1e-3)
    assert type(low) is float and low == 0.0
    assert high == pytest.approx(1 - 1e-3 ** (1 / 1000), rel=1e-9)  # (1 - p)^n = alpha at count 0


def test_array_counts_match_the_scalar_answers_elementwise():
    counts = np.arange(11)
    low, high = one_sided_bounds(counts, 10, 0.01)
    assert isinstance(low, np.ndarray) and low.shape == (11,) and low.dtype == float
    for c in counts:
        assert (low[c], high[c]) == one_sided_bounds(int(c), 10, 0.01)


def test_interval_ends_are_closed_at_zero_and_all_successes():
    low, high = clopper_pearson(np.array([0, 5, 5]), np.array([5, 5, 10]), 0.05)
    assert low[0] == 0.0 and high[1] == 1.0
    assert 0.0 < low[2] < 0.5 < high[2] < 1.0
    assert clopper_pearson(0, 7, 0.05)[0] == 0.0 and clopper_pearson(7, 7, 0.05)[1] == 1.0


def test_one_sided_is_the_two_sided_interval_at_twice_alpha():
    assert one_sided_bounds(4, 30, 0.01) == clopper_pearson(4, 30, 0.02)
