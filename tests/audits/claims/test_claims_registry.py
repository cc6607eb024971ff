"""The claims registry: every claim is a callable registered once with its paper and the spec ids it checks;
rows carry those ids (or a subset), and the paper modules import without torch."""
import subprocess
import sys

import pytest

from ldp_audit.audits.claims import registry
from ldp_audit.audits.kernel.result import CheckResult, Status
from ldp_audit.papers.claim_catalogue import NEEDS, SPEC_IDS, ids_of


@pytest.mark.parametrize("paper", registry.papers())
def test_every_claim_declares_ids_its_spec_defines(paper):
    for claim in registry.claims_of(paper):
        assert claim.paper == paper and claim.spec_ids, claim.name
        assert set(claim.spec_ids) <= ids_of(paper), (claim.name, set(claim.spec_ids) - ids_of(paper))


def test_no_claim_is_registered_twice():
    registered = [(c.check.__module__, c.check.__qualname__) for paper in registry.papers()
                  for c in registry.claims_of(paper)]
    assert len(registered) == len(set(registered))
    before = registry.claims_of("lpgnn")
    with pytest.raises(ValueError, match="already a claim of lpgnn"):
        registry.claim("lpgnn", "C1")(before[0].check)
    assert registry.claims_of("lpgnn") == before


def test_a_claim_names_a_known_paper_and_at_least_one_id():
    with pytest.raises(ValueError, match="paper must be one of"):
        registry.claim("lpgnn2", "C1")
    with pytest.raises(ValueError, match="at least one spec id"):
        registry.claim("lpgnn")


@pytest.mark.parametrize("paper", registry.papers())
def test_every_c_id_is_claimed_or_says_what_it_needs(paper):
    """The coverage table has no silent gap: a C id without a claim has a NEEDS entry; an E id without one is
    quoted in the report (INFO row)."""
    claimed = {i for c in registry.claims_of(paper) for i in c.spec_ids}
    unclaimed = {i for i, _ in SPEC_IDS[paper] if i.startswith("C")} - claimed
    assert unclaimed <= set(NEEDS[paper]), sorted(unclaimed - set(NEEDS[paper]))


def _claim(paper, ids, rows):
    return registry.Claim(paper, ids, lambda settings: rows)


def test_rows_take_their_claims_ids_unless_they_name_a_subset():
    plain, narrowed, context = (CheckResult("a", "", Status.PASS), CheckResult("b", "", Status.FAIL, spec_ids=("E3",)),
                                CheckResult("c", "", Status.INFO, spec_ids=()))
    rows = _claim("lpgnn", ("C6", "E3"), [plain, narrowed, context]).rows(registry.ClaimSettings())
    assert [r.spec_ids for r in rows] == [("C6", "E3"), ("E3",), ()]
    assert _claim("lpgnn", ("C1",), plain).rows(registry.ClaimSettings())[0].spec_ids == ("C1",)  # a single row
    with pytest.raises(ValueError, match="registered for"):
        _claim("lpgnn", ("C6",), [narrowed]).rows(registry.ClaimSettings())


def test_the_report_shows_the_registered_rows_in_order_with_the_quoted_errata(monkeypatch):
    registry.claims_of("lpgnn")
    claims = [_claim("lpgnn", ("C1",), [CheckResult("one", "", Status.PASS)]),
              _claim("lpgnn", ("C6", "E3"), [CheckResult("two", "", Status.FAIL), CheckResult("three", "", Status.PASS)])]
    monkeypatch.setitem(registry.REGISTERED, "lpgnn", claims)
    report = registry.run_claims("lpgnn", registry.ClaimSettings())
    quoted = [r for r in report.results if r.name.endswith("(quoted)")]
    assert [r.name for r in report.results if r not in quoted] == ["one", "two", "three"]
    assert [r.spec_ids for r in report.results[:3]] == [("C1",), ("C6", "E3"), ("C6", "E3")]
    errata = {i for i, _ in SPEC_IDS["lpgnn"] if i.startswith("E")}
    assert {r.spec_ids for r in quoted} == {(i,) for i in errata - {"E3"}}
    assert all("spec_ids" not in row for row in report.to_dict()["results"])  # the JSON is unchanged


def test_the_paper_modules_import_without_torch():
    """A core-only install lists and imports every paper's claims; torch is imported only when a claim runs."""
    code = ("import sys; from ldp_audit.audits.claims.registry import claims_of, papers; "
            "assert all(claims_of(p) for p in papers()); assert 'torch' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_stored_results_are_read_from_the_environment_or_the_committed_benchmarks(monkeypatch, tmp_path):
    from pathlib import Path

    from ldp_audit.audits.claims.stored_results import results_folder

    monkeypatch.setenv("LDP_AUDIT_TEST_RESULTS", str(tmp_path))
    assert results_folder("lpgnn", "LDP_AUDIT_TEST_RESULTS") == ("env", tmp_path)
    monkeypatch.delenv("LDP_AUDIT_TEST_RESULTS")
    committed = Path(__file__).resolve().parents[3] / "benchmarks" / "results" / "lpgnn"
    mode, folder = results_folder("lpgnn", "LDP_AUDIT_TEST_RESULTS")
    if (committed / "quick").is_dir() or (committed / "full").is_dir():
        assert mode in ("full", "quick") and folder == committed / mode
    assert results_folder("no-such-paper", "LDP_AUDIT_TEST_RESULTS") == (None, None)
