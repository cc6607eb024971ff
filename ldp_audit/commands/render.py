"""Views of an :class:`AuditReport`: a rich table, JSON, Markdown, and atomic file output."""
from __future__ import annotations

import math
import os
from pathlib import Path

from rich.markup import escape

from ..audits.kernel.result import AuditReport, CheckResult, Status
from ..files import write_atomic

_STYLE = {Status.PASS: "green", Status.FAIL: "bold red", Status.INCONCLUSIVE: "yellow", Status.INFO: "cyan",
          Status.WARN: "bold yellow"}


def _fmt(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e5):
            return f"{value:.3e}"
        return f"{value:.4g}"
    return str(value)


def _show(value) -> str:
    """A setting or subject value for a caption or Markdown: every float (also inside lists and dicts) by
    :func:`_fmt`'s significant-digit rule, so 1 - 0.999 prints as 0.001, never 0.0010000000000000009."""
    if isinstance(value, float):
        return _fmt(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_show(v)}" for k, v in value.items()) + "}"
    return str(value)


def _cell(text: str) -> str:
    """A Markdown table cell: pipes escaped, line breaks as ``<br>`` (a raw newline would end the row)."""
    return " <br> ".join(line.strip() for line in str(text).replace("|", "\\|").splitlines()) if text else ""


def _interval_or_p(result: CheckResult) -> str:
    parts = []
    if result.interval is not None:
        parts.append(f"[{_fmt(float(result.interval[0]))}, {_fmt(float(result.interval[1]))}]")
    if result.p_value is not None:
        parts.append(f"p={_fmt(float(result.p_value))}")
    return " ".join(parts)


def _statistic(result: CheckResult) -> str:
    """The headline number on its own line under its name, so that a narrow column never splits the number."""
    if result.statistic is None:
        return ""
    text = _fmt(float(result.statistic))
    return f"{result.statistic_name}\n{text}" if result.statistic_name else text


#: Optional columns of the terminal table, dropped in this order when the terminal is narrow.
_OPTIONAL = (("interval / p", 120), ("n", 100), ("threshold", 90))


def to_table(report: AuditReport, width: int | None = None):
    """A ``rich.table.Table`` with one row per check (the claim text is in JSON and Markdown; the caption names
    what was audited and how). Below 120, 100 and 90 columns of ``width`` the interval, n and threshold columns
    are dropped in that order; status and numbers are never cropped or split. Every text is escaped, so a
    user's string is printed as written, never read as rich markup."""
    from rich.table import Table

    width = width or 160
    shown = {name for name, needs in _OPTIONAL if width >= needs}
    verdict = report.verdict
    table = Table(title=f"{escape(report.title)} — verdict: [{_STYLE[verdict]}]{verdict.value.upper()}[/]"
                        + _warned(report),
                  show_lines=False, expand=False)
    table.add_column("status", no_wrap=True)
    table.add_column("check", overflow="fold", max_width=28)
    numbers = [max((len(_fmt(float(r.statistic))) for r in report.results if r.statistic is not None), default=4)]
    table.add_column("statistic", overflow="fold", min_width=max(numbers), max_width=18)
    for column in ("interval / p", "threshold", "n"):
        if column in shown:
            table.add_column(column, overflow="fold", max_width=16, no_wrap=column != "interval / p")
    table.add_column("finding", overflow="fold", ratio=1, min_width=20)
    for r in report.results:
        cells = {"interval / p": _interval_or_p(r), "threshold": _fmt(r.threshold), "n": _fmt(r.n) if r.n else ""}
        table.add_row(f"[{_STYLE[r.status]}]{r.status.value.upper()}[/]", escape(r.name), escape(_statistic(r)),
                      *(escape(cells[c]) for c in ("interval / p", "threshold", "n") if c in shown),
                      escape(r.explanation))
    if report.subject or report.settings:
        table.caption = escape(", ".join(f"{k}={_show(v)}" for k, v in {**report.subject, **report.settings}.items()
                                         if _short(v)))
    return table


def _warned(report: AuditReport) -> str:
    """" (N warning(s))" after a verdict when WARN rows exist (they never change the verdict itself)."""
    count = len(report.warnings())
    return f" ({count} warning{'s' if count > 1 else ''})" if count else ""


def _short(value) -> bool:
    """Scalars and short lists go into a table's caption; nested data stays in JSON and Markdown."""
    if isinstance(value, (list, tuple)):
        return len(value) <= 8 and all(isinstance(v, (str, int, float, bool)) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


def to_markdown(report: AuditReport) -> str:
    """A Markdown rendering: a heading with the verdict, the settings, and a table of checks."""
    title = " ".join(report.title.split())
    lines = [f"## {title}", "", f"**Verdict: {report.verdict.value.upper()}**{_warned(report)}", ""]
    if report.subject or report.settings:
        for key, value in {**report.subject, **report.settings}.items():
            lines.append(f"- {key}: `{_show(value).replace('`', chr(39))}`")
        lines.append("")
    lines.append("| status | check | claim | statistic | interval / p | threshold | n | finding |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for r in report.results:
        statistic = _statistic(r).replace("\n", " = ")  # the table's two lines become one "name = value"
        cells = [r.status.value.upper(), r.name, r.claim, statistic, _interval_or_p(r), _fmt(r.threshold),
                 _fmt(r.n) if r.n else "", r.explanation]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def report_from_dict(data: dict) -> AuditReport:
    """The report a ``to_dict``/JSON file holds, for rendering it again (a null interval end is unbounded)."""
    def interval(value):
        if value is None:
            return None
        low, high = value
        return (-math.inf if low is None else low, math.inf if high is None else high)

    fields = set(CheckResult.__dataclass_fields__)
    results = [CheckResult(**{**{k: v for k, v in row.items() if k in fields}, "status": Status(row["status"]),
                              "interval": interval(row.get("interval"))}) for row in data["results"]]
    return AuditReport.of(data["title"], results, data.get("subject"), data.get("settings"))


def write_report(report: AuditReport, path: str | os.PathLike) -> Path:
    """Write a report atomically; the format follows the suffix (``.md`` Markdown, anything else JSON)."""
    text = to_markdown(report) if str(path).endswith(".md") else report.to_json() + "\n"
    return write_atomic(path, text)
