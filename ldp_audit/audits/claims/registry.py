"""The registry behind ``ldp-audit claims PAPER``: every checkable claim of a paper, checked as printed.

A *provider* is a function ``provider(settings: ClaimSettings) -> list[CheckResult]``. Each paper lists the
providers that check its claims, as ``"module:function"`` strings imported on demand, so that a paper's
graph-level claims (which need torch) do not slow down or break its mechanism-level claims.
Errata show as FAIL with the evidence; correct claims PASS; a row that cannot decide (too few runs, software
this project lacks) is INCONCLUSIVE with the reason. Every row says in its explanation what would make it
fail. Row names start with the spec ids they check (see :mod:`.claim_catalogue`); errata of the spec that no
row checks are listed as INFO rows quoting the spec, so a report names every E id of its paper.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from ..kernel.result import AuditReport, CheckResult, Status

#: paper name -> providers of its claims, in the order they are reported.
PROVIDERS: dict[str, tuple[str, ...]] = {
    "ldp-ge": ("ldp_audit.audits.claims.ldp_ge:ldp_ge_claims", "ldp_audit.audits.claims.ldp_ge:ldp_ge_graph_claims",
               "ldp_audit.audits.claims.ldp_ge:ldp_ge_pipeline_claims",
               "ldp_audit.audits.claims.ldp_ge:ldp_ge_dataset_claims"),
    "lpgnn": ("ldp_audit.audits.claims.lpgnn:lpgnn_claims", "ldp_audit.audits.claims.lpgnn:lpgnn_graph_claims",
              "ldp_audit.audits.claims.lpgnn:lpgnn_attack_claims", "ldp_audit.audits.claims.lpgnn:lpgnn_training_claims"),
    "ppgnn": ("ldp_audit.audits.claims.ppgnn:ppgnn_claims", "ldp_audit.audits.claims.ppgnn:ppgnn_graph_claims",
              "ldp_audit.audits.claims.ppgnn:ppgnn_attack_claims", "ldp_audit.audits.claims.ppgnn:ppgnn_pipeline_claims"),
    "se-privgemb": tuple(f"ldp_audit.audits.claims.se_privgemb:{name}" for name in (
        "gradient_claims", "noise_claims", "theorem3_exact_claims", "theorem3_stochastic_claims", "algorithm1_claims",
        "accounting_claims", "budget_claims", "node_level_claims", "stop_rule_claims", "membership_claims",
        "nonzero_vs_naive_claims", "private_vs_nonprivate_claims", "metric_claims")),
}


@dataclass(frozen=True)
class ClaimSettings:
    """How hard the claim checks work: Monte Carlo sample size per statistic, seed, family-wise alpha, and
    ``full``: the spec's full-size training runs where the default reduces them (SE-PrivGEmb)."""

    samples: int = 200_000
    seed: int = 20240601
    alpha: float = 1e-3
    full: bool = False

    def __post_init__(self):
        if not (isinstance(self.samples, int) and self.samples >= 1000):
            raise ValueError(f"samples must be an integer >= 1000, got {self.samples!r}")
        if not (0.0 < self.alpha < 1.0):
            raise ValueError(f"alpha must lie in (0, 1), got {self.alpha!r}")
        if not isinstance(self.full, bool):
            raise ValueError(f"full must be True or False, got {self.full!r}")


def papers() -> list[str]:
    return sorted(PROVIDERS)


def run_claims(paper: str, settings: ClaimSettings | None = None,
               progress: Callable[[str, list[CheckResult]], None] | None = None) -> AuditReport:
    """Check every registered claim of ``paper`` and return them as one report.

    ``progress(provider, rows)`` is called as each provider finishes (the CLI prints the rows there). Spec
    errata that no row checks are appended as INFO rows quoting the spec (:func:`unchecked_errata`)."""
    if paper not in PROVIDERS:
        raise ValueError(f"paper must be one of {', '.join(papers())}; got {paper!r}")
    settings = settings or ClaimSettings()
    results = []
    for spec in PROVIDERS[paper]:
        module_name, function_name = spec.split(":")
        provider = getattr(importlib.import_module(module_name), function_name)
        rows = provider(settings)
        results.extend(rows)
        if progress is not None:
            progress(function_name, rows)
    errata = unchecked_errata(paper, results)
    if progress is not None and errata:
        progress("errata quoted from the spec", errata)
    return AuditReport.of(f"claims of {paper}", results + errata, subject={"paper": paper},
                          settings={"samples": settings.samples, "seed": settings.seed, "alpha": settings.alpha,
                                    "full": settings.full})


def unchecked_errata(paper: str, rows: list[CheckResult]) -> list[CheckResult]:
    """INFO rows for the spec's errata (E ids) that no row checks: the spec's words, and what they affect."""
    from ...papers.claim_catalogue import NEEDS, SPEC_IDS, row_ids

    covered = {i for row in rows for i in row_ids(row.name, row.claim)}
    return [CheckResult(f"{spec_id} (quoted)", f"{paper} spec {spec_id}", Status.INFO,
                        explanation=f"not checked by a row ({NEEDS.get(paper, {}).get(spec_id, 'text-only erratum')})"
                                    f"; the spec says: {words}")
            for spec_id, words in SPEC_IDS[paper] if spec_id.startswith("E") and spec_id not in covered]


def claim_row(claim_id: str, claim: str, holds: bool, statistic: float | None, statistic_name: str,
              explanation: str, threshold: float | None = None, fails_if: str = "", **details) -> CheckResult:
    """An exact (non-random) claim check: PASS when the printed claim holds, FAIL (an erratum) when it does not.
    ``fails_if`` says what would make it fail; it ends the explanation."""
    return CheckResult(claim_id, claim, Status.PASS if holds else Status.FAIL,
                       None if statistic is None else float(statistic), statistic_name,
                       threshold=threshold, explanation=explanation + (f"; fails if {fails_if}" if fails_if else ""),
                       details=details)


def audited_row(claim_id: str, claim: str, mechanism, settings: ClaimSettings, share: int) -> CheckResult:
    """A claim about a mechanism's behaviour, checked by the whole ``verify`` audit at ``alpha / share``."""
    from ..verify.orchestrator import AuditSettings, verify

    report = verify(mechanism, AuditSettings(settings.samples, settings.seed, settings.alpha / share))
    failed = [r.name for r in report.failures()]
    blackbox = next((r for r in report.results if r.name == "privacy.blackbox"), None)
    return CheckResult(claim_id, claim, report.verdict, blackbox.statistic if blackbox else None,
                       "eps_lower" if blackbox else "", threshold=mechanism.eps, n=settings.samples,
                       seed=settings.seed, alpha=settings.alpha / share,
                       explanation=(f"verify {mechanism.name} {mechanism.params()}: "
                                    + (f"FAILED {', '.join(failed)}" if failed else
                                       f"all {len(report.results)} checks pass")
                                    + "; fails if any check of verify fails (privacy, law, moments)"),
                       details={"checks": {r.name: r.status.value for r in report.results}})
