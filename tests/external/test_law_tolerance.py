"""White-box ratios of a user's law are compared with a tolerance fitted to the law's float type (issue 21 item 5):
a float32 law exactly at its claim passes (its log ratio is off by rounding only), a float32 law above its claim by
far more than rounding still fails, and float64 laws keep 16 ulp of float64 (3.6e-15: their own rounding)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ldp_audit.audits.privacy.white_box import ratio_tolerance
from ldp_audit.testing import audit


def binary_rr(claim: float, law_eps: float, dtype):
    """Binary randomized response whose pmf table is computed in ``dtype`` at ``law_eps``."""
    e = dtype(math.exp(law_eps))
    p, q = e / (e + dtype(1)), dtype(1) / (e + dtype(1))

    def pmf(y, x):
        return np.where(np.asarray(y) == x, p, q).astype(dtype)

    def sample(x, n, rng):
        return np.where(rng.random(n) < float(p), x, 1 - x)

    return {"sample": sample, "pmf": pmf, "support": [0, 1], "domain": [0, 1], "eps": claim}


def _whitebox(mech):
    return next(r for r in audit(mech, checks="privacy", samples=20_000).results if r.name == "privacy.whitebox")


def test_a_float32_law_exactly_at_its_claim_passes_with_the_tolerance_stated():
    row = _whitebox(binary_rr(2.0, 2.0, np.float32))
    assert row.statistic > 2.0 * (1 + 1e-9)  # float32 rounding: 2.0000000343, which a float64 comparison fails
    assert row.status.value == "pass" and row.details["tolerance"] == pytest.approx(16 * np.finfo(np.float32).eps)
    assert "tolerance 1.9e-06" in row.explanation and "resolution 1.2e-07" in row.explanation


def test_a_float32_law_above_its_claim_still_fails():
    row = _whitebox(binary_rr(2.0, 2.001, np.float32))
    assert row.status.value == "fail" and "above the claimed eps=2" in row.explanation


def test_float64_laws_keep_the_strict_comparison():
    assert ratio_tolerance(np.finfo(np.float64).eps) == pytest.approx(16 * np.finfo(np.float64).eps)
    assert ratio_tolerance(np.finfo(np.float32).eps, copies=3) == pytest.approx(48 * np.finfo(np.float32).eps)
    row = _whitebox(binary_rr(2.0, 2.0, np.float64))
    assert row.status.value == "pass" and row.details["tolerance"] == pytest.approx(16 * np.finfo(np.float64).eps)
    assert "tolerance" not in row.explanation  # 16 ulp of float64: far below anything a user would read
