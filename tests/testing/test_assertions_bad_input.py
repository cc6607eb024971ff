"""Bad arguments to ``assert_ldp``, ``assert_moments`` and ``audit`` (issue 43, item 3): a ValueError naming the
parameter before any draw, with the caps of ``ldp-audit verify`` (``assert_ldp(m, eps='1')`` used to pass)."""
from __future__ import annotations

import pytest

from ldp_audit.mechanisms import make
from ldp_audit.testing import assert_ldp, assert_moments, audit

M = make("laplace", eps=1.0)

CASES = [
    ("assert_ldp(eps='1')", lambda: assert_ldp(M, eps="1"), r"eps must be a real number in \(0, 700\], got '1'"),
    ("assert_ldp(eps=0)", lambda: assert_ldp(M, eps=0), r"eps must be a real number in \(0, 700\]"),
    ("assert_ldp(eps=nan)", lambda: assert_ldp(M, eps=float("nan")), r"eps must be a real number"),
    ("audit(eps='1')", lambda: audit(M, eps="1"), r"eps must be a real number in \(0, 700\], got '1'"),
    ("assert_ldp(samples=1e15)", lambda: assert_ldp(M, 1.0, samples=10 ** 15),
     r"samples must be an integer \[1000, 1000000000000\]"),
    ("assert_ldp(seed=-1)", lambda: assert_ldp(M, 1.0, samples=1000, seed=-1), r"seed must be an integer \[0, "),
    ("assert_ldp(workers=65)", lambda: assert_ldp(M, 1.0, samples=1000, workers=65),
     r"workers must be an integer \[1, 64\]"),
    ("assert_ldp(scheduler='tcp://bad')",
     lambda: assert_ldp(M, 1.0, samples=1000, engine="dask", scheduler="tcp://bad"),
     r"scheduler must be a Dask scheduler address tcp://HOST:PORT .* got 'tcp://bad'"),
    ("assert_ldp(require_seeded='yes')", lambda: assert_ldp(M, 1.0, samples=1000, require_seeded="yes"),
     r"require_seeded must be True or False"),
    ("assert_moments(alpha=2)", lambda: assert_moments(M, samples=1000, alpha=2.0),
     r"alpha \(1 - confidence\) must be a real number in \(0, 1\)"),
    ("audit(checks='bogus')", lambda: audit(M, samples=1000, checks="bogus"),
     r"checks must be 'all' or a subset of privacy, curve, moments, distribution, float"),
]


@pytest.mark.parametrize("call,pattern", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_argument_is_refused_naming_it(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()
