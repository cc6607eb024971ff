"""ldp-ge C13 as a claims row: PASS for the pipeline as built, FAIL for a server that peeks at raw X."""
import pytest

pytest.importorskip("torch")

from ldp_audit.audits.claims import ldp_ge as claims_ldp_ge  # noqa: E402
from ldp_audit.audits.claims.registry import ClaimSettings  # noqa: E402
from ldp_audit.audits.kernel.result import Status  # noqa: E402
from ldp_audit.models.training import ldp_ge  # noqa: E402


def test_the_server_never_reads_raw_features():
    rows = claims_ldp_ge.ldp_ge_pipeline_claims(ClaimSettings(samples=1000))
    assert [r.name for r in rows] == ["C13", "C13"] and all(r.status is Status.PASS for r in rows)


def test_a_server_that_peeks_at_raw_features_fails(monkeypatch):
    honest = ldp_ge.train_on_reports

    def peeking(graph, reports, config):
        graph.x.shape  # the bug: the server looks at the users' raw data
        return honest(graph, reports, config)

    monkeypatch.setattr(ldp_ge, "train_on_reports", peeking)
    rows = claims_ldp_ge.ldp_ge_pipeline_claims(ClaimSettings(samples=1000))
    assert all(r.status is Status.FAIL and "read X" in r.explanation for r in rows)
