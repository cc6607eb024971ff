"""Every audit has power: each realistic bug of the catalogue (tests/mutants.py) makes ``verify`` fail, naming
the checks, with its claims declared; and each privacy bug fails the black-box search from its sampler alone."""
import pytest

from ldp_audit.audits.verify.orchestrator import AuditSettings, verify
from ldp_audit.external import adapted

from mutants import MUTANTS

SETTINGS = AuditSettings(samples=200_000, seed=7)
SEARCH_SETTINGS = AuditSettings(samples=100_000, seed=8)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_verify_fails_every_mutant_with_the_expected_checks(name):
    mutant = MUTANTS[name]
    report = verify(adapted(mutant.build(True)), SETTINGS)
    failed = {r.name for r in report.failures()}
    assert report.verdict.value == "fail"
    assert mutant.fails <= failed, f"{name}: expected {sorted(mutant.fails)} to fail, failed {sorted(failed)}"


@pytest.mark.parametrize("name", sorted(n for n, m in MUTANTS.items() if m.fails_blackbox))
def test_the_search_alone_fails_every_privacy_mutant(name):
    mutant = MUTANTS[name]
    report = verify(adapted(mutant.build(False)), SEARCH_SETTINGS, checks="privacy")
    failed = {r.name for r in report.failures()}
    assert mutant.fails_blackbox <= failed, f"{name}: failed only {sorted(failed)}"
