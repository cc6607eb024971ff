"""Claims rows that check a printed formula against an independent computation, with their failing twins."""
import pytest

from ldp_audit.audits.claims import ldp_ge as claims_ldp_ge, se_privgemb as se_privgemb_claims
from ldp_audit.audits.claims.registry import ClaimSettings
from ldp_audit.audits.kernel.result import Status
from ldp_audit.papers import ldp_ge as ldp_ge_paper


def test_theorem5_step_erratum_fails_at_the_papers_sensitivity_and_holds_at_one():
    assert se_privgemb_claims.check_theorem5_step().status is Status.FAIL  # E7: S = C = 2
    assert se_privgemb_claims.check_theorem5_step(sensitivity=1.0).status is Status.PASS


@pytest.fixture(scope="module")
def settings():
    return ClaimSettings(samples=20_000)


def test_laplace_variance_row_passes_and_a_wrong_printed_constant_fails(settings, monkeypatch):
    assert claims_ldp_ge.c7_laplace_variance(settings).status is Status.PASS
    monkeypatch.setattr(ldp_ge_paper, "laplace_variance", lambda eps, d=1: 4.0 * d * d / eps ** 2)
    assert claims_ldp_ge.c7_laplace_variance(settings).status is Status.FAIL
