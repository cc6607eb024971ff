"""Check results and audit reports: the data every audit returns (DESIGN.md, "Audit checks and reports").

A check never prints. It returns a :class:`CheckResult`; an :class:`AuditReport` is an ordered list of them
with a verdict. Renderers (``ldp_audit.commands.render``, the face) turn a report into a terminal table, JSON or Markdown.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any, Iterable

#: Version of the JSON schema written by :meth:`AuditReport.to_dict`. Bump on any incompatible change.
#: 2.0: numbers JSON cannot hold (inf, -inf, nan) are written as null, never as strings such as "inf"; an
#: interval's missing end is therefore null (e.g. ``[0.98, null]`` for a one-sided lower bound).
#: 2.1: a row's status may also be "warn" (a note that never changes the verdict; see :class:`Status`).
SCHEMA_VERSION = "2.1"


class Status(str, Enum):
    """Outcome of one check."""

    PASS = "pass"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"
    INFO = "info"  # informational rows (e.g. a measured figure with no pass/fail meaning)
    #: a caveat the reader must see (e.g. a sampler that cannot be reproduced from its seed); never fails a verdict
    WARN = "warn"


def _json_number(value: Any) -> Any:
    """Floats that JSON cannot hold (inf, nan) become null (schema 2.0); numpy scalars become Python numbers."""
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        try:
            value = value.item()
        except (TypeError, ValueError):
            pass
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (list, tuple)):
        return [_json_number(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_number(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one statistical or exact check.

    Attributes:
        name: short identifier of the check, e.g. ``"privacy.blackbox"``.
        claim: what is being checked, with its source (paper, equation or theorem), e.g. ``"ldp-ge Thm 1"``.
        status: pass / fail / inconclusive / info.
        statistic: the headline number (an epsilon lower bound, a z-score, a max ratio...).
        statistic_name: what ``statistic`` is, e.g. ``"eps_lower"`` or ``"z"``.
        interval: a confidence interval ``(low, high)`` when the check has one.
        p_value: the p-value when the check is a hypothesis test.
        threshold: the value the statistic is compared with (claimed eps, critical z...).
        n: number of Monte Carlo samples behind the statistic (0 for exact checks).
        seed: the seed that reproduces the samples (``None`` for exact checks).
        alpha: false-alarm rate allotted to this check.
        explanation: one human sentence saying what was found.
        details: anything else worth keeping (per-input numbers, evidence of an erratum...).
        spec_ids: the spec ids a paper-claim row checks (``claims --coverage`` reads them); ``None`` outside the
            claims, and for a claims row that takes the ids its registered claim declares. Not part of the JSON.
    """

    name: str
    claim: str
    status: Status
    statistic: float | None = None
    statistic_name: str = ""
    interval: tuple[float, float] | None = None
    p_value: float | None = None
    threshold: float | None = None
    n: int = 0
    seed: int | None = None
    alpha: float | None = None
    explanation: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    spec_ids: tuple[str, ...] | None = None

    @property
    def passed(self) -> bool:
        return self.status in (Status.PASS, Status.INFO, Status.WARN)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["spec_ids"]
        data["status"] = self.status.value
        return _json_number(data)


@dataclass(frozen=True)
class AuditReport:
    """A titled list of check results with a verdict.

    The verdict is ``fail`` when any check failed, ``inconclusive`` when none failed but some were
    inconclusive, and ``pass`` otherwise: ``info`` and ``warn`` rows never change it (:meth:`warnings` lists
    the latter, so a renderer or a CI gate can show them).
    """

    title: str
    results: tuple[CheckResult, ...]
    subject: dict[str, Any] = field(default_factory=dict)  # what was audited: mechanism name, parameters...
    settings: dict[str, Any] = field(default_factory=dict)  # how: samples, seed, confidence, alpha...

    @classmethod
    def of(cls, title: str, results: Iterable[CheckResult], subject: dict | None = None,
           settings: dict | None = None) -> "AuditReport":
        return cls(title, tuple(results), dict(subject or {}), dict(settings or {}))

    @property
    def verdict(self) -> Status:
        statuses = {r.status for r in self.results}
        if Status.FAIL in statuses:
            return Status.FAIL
        if Status.INCONCLUSIVE in statuses:
            return Status.INCONCLUSIVE
        return Status.PASS

    @property
    def passed(self) -> bool:
        return self.verdict == Status.PASS

    def failures(self) -> list[CheckResult]:
        return [r for r in self.results if r.status == Status.FAIL]

    def warnings(self) -> list[CheckResult]:
        return [r for r in self.results if r.status == Status.WARN]

    def merged(self, other: "AuditReport", title: str | None = None) -> "AuditReport":
        return AuditReport(title or self.title, self.results + other.results,
                           {**self.subject, **other.subject}, {**self.settings, **other.settings})

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": "ldp-audit/report",
            "schema_version": SCHEMA_VERSION,
            "title": self.title,
            "verdict": self.verdict.value,
            "subject": _json_number(self.subject),
            "settings": _json_number(self.settings),
            "results": [r.to_dict() for r in self.results],
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)
