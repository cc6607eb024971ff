"""The registry behind ``ldp-audit claims PAPER``: every checkable claim of a paper, checked as printed.

A *claim* is a function ``check(settings: ClaimSettings)`` returning a row or a list of rows (:class:`CheckResult`),
registered with ``@claim(paper, *spec_ids)``: the paper it belongs to and the spec ids its rows check (see
:mod:`ldp_audit.papers.claim_catalogue`). Each paper's claims live in one module of this package
(:data:`MODULES`), imported when the paper's claims are first asked for; a claim reports in the order it is
registered, which is the order of its module. A claim's heavy imports (torch, opacus) stay inside the function,
so that every module imports on a core-only install.

A row takes the ids of its claim, unless the claim sets a row's ``spec_ids`` itself (:func:`checks`) because one
computation yields rows of several ids; a row may not name an id its claim does not declare. Errata show as
FAIL with the evidence; correct claims PASS; a row that cannot decide (too few runs, software this project
lacks) is INCONCLUSIVE with the reason. Every row says in its explanation what would make it fail. Errata of
the spec that no row checks are listed as INFO rows quoting the spec, so a report names every E id of its
paper.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, replace
from typing import Callable

from ..kernel.result import AuditReport, CheckResult, Status

#: paper name -> the module of this package that registers its claims.
MODULES: dict[str, str] = {"ldp-ge": "ldp_ge", "lpgnn": "lpgnn", "ppgnn": "ppgnn", "se-privgemb": "se_privgemb"}


@dataclass(frozen=True)
class Claim:
    """One registered claim: ``check`` computes the rows of ``spec_ids`` of ``paper``."""

    paper: str
    spec_ids: tuple[str, ...]
    check: Callable[[ClaimSettings], CheckResult | list[CheckResult]]

    @property
    def name(self) -> str:
        return self.check.__name__

    def rows(self, settings: ClaimSettings) -> list[CheckResult]:
        """The rows of ``check`` (one row or a list), each with its spec ids (the claim's unless the row names a
        subset)."""
        result = self.check(settings)
        rows = []
        for row in [result] if isinstance(result, CheckResult) else result:
            if row.spec_ids is None:
                row = replace(row, spec_ids=self.spec_ids)
            elif not set(row.spec_ids) <= set(self.spec_ids):
                raise ValueError(f"row {row.name!r} of {self.name} checks {row.spec_ids}, but {self.name} is "
                                 f"registered for {self.spec_ids}")
            rows.append(row)
        return rows


#: paper -> its claims in the order they report; filled as the paper modules are imported.
REGISTERED: dict[str, list[Claim]] = {paper: [] for paper in MODULES}


def claim(paper: str, *spec_ids: str):
    """Register the decorated function as a claim of ``paper`` that checks ``spec_ids``."""
    if paper not in MODULES:
        raise ValueError(f"paper must be one of {', '.join(papers())}; got {paper!r}")
    if not spec_ids:
        raise ValueError("a claim checks at least one spec id")

    def register(check):
        if any(c.check.__qualname__ == check.__qualname__ and c.check.__module__ == check.__module__
               for c in REGISTERED[paper]):
            raise ValueError(f"{check.__module__}.{check.__qualname__} is already a claim of {paper}")
        REGISTERED[paper].append(Claim(paper, tuple(spec_ids), check))
        return check
    return register


def checks(rows: list[CheckResult], *spec_ids: str) -> list[CheckResult]:
    """``rows`` marked as checking ``spec_ids`` (none: rows that give context but check no id), for a claim
    whose one computation yields rows of several ids."""
    return [replace(row, spec_ids=tuple(spec_ids)) for row in rows]


def claims_of(paper: str) -> tuple[Claim, ...]:
    """The registered claims of ``paper``, in report order (imports its module on first use)."""
    if paper not in MODULES:
        raise ValueError(f"paper must be one of {', '.join(papers())}; got {paper!r}")
    importlib.import_module(f"{__package__}.{MODULES[paper]}")
    return tuple(REGISTERED[paper])


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
    return sorted(MODULES)


def run_claims(paper: str, settings: ClaimSettings | None = None,
               progress: Callable[[str, list[CheckResult]], None] | None = None) -> AuditReport:
    """Check every registered claim of ``paper`` and return them as one report.

    ``progress(claim, rows)`` is called as each claim finishes (the CLI prints the rows there). Spec errata
    that no row checks are appended as INFO rows quoting the spec (:func:`unchecked_errata`)."""
    settings = settings or ClaimSettings()
    results = []
    for registered in claims_of(paper):
        rows = registered.rows(settings)
        results.extend(rows)
        if progress is not None:
            progress(registered.name, rows)
    errata = unchecked_errata(paper, results)
    if progress is not None and errata:
        progress("errata quoted from the spec", errata)
    return AuditReport.of(f"claims of {paper}", results + errata, subject={"paper": paper},
                          settings={"samples": settings.samples, "seed": settings.seed, "alpha": settings.alpha,
                                    "full": settings.full})


def unchecked_errata(paper: str, rows: list[CheckResult]) -> list[CheckResult]:
    """INFO rows for the spec's errata (E ids) that no row checks: the spec's words, and what they affect."""
    from ...papers.claim_catalogue import NEEDS, SPEC_IDS

    covered = {i for row in rows for i in row.spec_ids or ()}
    return [CheckResult(f"{spec_id} (quoted)", f"{paper} spec {spec_id}", Status.INFO,
                        explanation=f"not checked by a row ({NEEDS.get(paper, {}).get(spec_id, 'text-only erratum')})"
                                    f"; the spec says: {words}", spec_ids=(spec_id,))
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
