"""Output options shared by the sub-commands that print an audit report."""
from __future__ import annotations

import argparse
from contextlib import contextmanager

from .render import to_markdown, to_table, write_report
from ..audits.result import AuditReport


def add_output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout instead of a table")
    parser.add_argument("--markdown", action="store_true", help="print the report as Markdown instead of a table")
    parser.add_argument("--out", metavar="FILE", help="also write the report to FILE, atomically "
                                                      "(Markdown if FILE ends in .md, JSON otherwise)")


def emit(report: AuditReport, args: argparse.Namespace, console) -> int:
    """Print ``report`` the way ``args`` asks, write ``--out``, and return the exit code of its verdict."""
    if getattr(args, "json", False):
        print(report.to_json())
    elif getattr(args, "markdown", False):
        print(to_markdown(report))
    else:
        console.print(to_table(report, console.width))
    if getattr(args, "out", None):
        write_report(report, args.out)
    return 0 if report.passed else 1


def parse_param(text: str) -> tuple[str, object]:
    """``key=value`` with the value read as int, float, bool or left as text."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--param expects KEY=VALUE, got {text!r}")
    key, value = text.split("=", 1)
    for cast in (int, float):
        try:
            return key, cast(value)
        except ValueError:
            pass
    if value.lower() in ("true", "false"):
        return key, value.lower() == "true"
    return key, value


@contextmanager
def progress_bar(console, total: int | None = None, enabled: bool = True, description: str = "sampling"):
    """A rich progress bar over draws; yields ``advance(draws)`` (a no-op when disabled or not a terminal)."""
    if not enabled or not console.is_terminal:
        yield lambda draws: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        task = progress.add_task(description, total=total)
        yield lambda draws: progress.advance(task, draws)


class _Quiet:
    """Stands in for a rich status spinner when output is not for a terminal."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, _text):
        pass


def spinner(console, text: str, enabled: bool = True):
    """A rich status spinner with ``update(text)``, or a silent stand-in (JSON/Markdown output, no terminal)."""
    if enabled and console.is_terminal:
        return console.status(text, spinner="dots")
    return _Quiet()
