"""Every audit has power: each realistic bug in tests/mutants.py makes ``verify`` fail, naming the check."""
import pytest

from ldp_audit.audits.verify import AuditSettings, verify

from mutants import MUTANTS

SETTINGS = AuditSettings(samples=200_000, seed=7)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_verify_fails_every_mutant_with_the_expected_checks(name):
    factory, expected = MUTANTS[name]
    report = verify(factory(), SETTINGS)
    failed = {r.name for r in report.failures()}
    assert report.verdict.value == "fail"
    assert expected <= failed, f"{name}: expected {sorted(expected)} to fail, failed {sorted(failed)}"
