"""Averaging/differencing (lpgnn C11) and the label plurality (lpgnn C16): memoisation off and RR at 2 eps
are the leaking mutants that must FAIL; the spec's exact numbers are reproduced."""
import numpy as np
import pytest

from ldp_audit.audits.attacks.averaging import averaging_attack
from ldp_audit.audits.attacks.label_plurality import label_plurality_attack, plurality_accuracy
from ldp_audit.audits.kernel.result import Status
from ldp_audit.mechanisms import make
from ldp_audit.models.reports import query_reports


def _by_name(rows):
    return {r.name: r for r in rows}


def test_memoised_reports_repeat_and_fresh_ones_do_not():
    mech = make("duchi", eps=1.0)
    x = np.zeros((50, 1))
    same = query_reports(mech, x, 4, np.random.default_rng(1), memoise=True)
    fresh = query_reports(mech, x, 4, np.random.default_rng(1), memoise=False)
    assert np.array_equal(same[0], same[3]) and not np.array_equal(fresh[0], fresh[3])
    with pytest.raises(ValueError, match="queries"):
        query_reports(mech, x, 0, np.random.default_rng(1))


@pytest.mark.parametrize("mech", [make("multibit", eps=1.0, d=8, k=1, alpha=-1.0, beta=1.0), make("duchi", eps=1.0)],
                         ids=["multibit", "duchi"])
def test_averaging_passes_memoised_and_fails_without(mech):
    kept = _by_name(averaging_attack(mech, queries=16, memoise=True, samples=20_000, seed=4))
    assert kept["attack.averaging"].status is Status.PASS
    assert kept["attack.averaging.variance"].statistic == pytest.approx(1.0)
    assert kept["attack.differencing"].status is Status.PASS
    leaked = _by_name(averaging_attack(mech, queries=16, memoise=False, samples=20_000, seed=4))
    assert leaked["attack.averaging"].status is Status.FAIL
    assert leaked["attack.averaging.variance"].statistic == pytest.approx(1 / 16, rel=0.1)


def test_plurality_exact_values_C16():
    assert [round(plurality_accuracy(7, 1.0, n), 6) for n in (1, 4, 16)] == [0.311791, 0.402590, 0.686885]
    # N = 1 is randomized response itself; averaged over the true class's position the tie rules agree
    p, _ = make("grr", eps=1.0, c=7).probabilities()
    assert plurality_accuracy(7, 1.0, 1) == pytest.approx(p)
    c, eps, n = 3, 0.5, 6
    first, last = plurality_accuracy(c, eps, n, "lowest", 0), plurality_accuracy(c, eps, n, "lowest", c - 1)
    assert first > plurality_accuracy(c, eps, n) > last


def test_plurality_passes_rr_and_fails_a_2eps_mutant():
    rows = label_plurality_attack(samples=30_000, seed=5)
    assert all(r.passed for r in rows)
    mutant = label_plurality_attack(samples=30_000, seed=5, mechanism=make("grr", eps=2.0, c=7))
    assert any(r.status is Status.FAIL for r in mutant)
