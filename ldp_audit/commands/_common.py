"""Output options shared by the sub-commands that print an audit report."""
from __future__ import annotations

import argparse

from ..audits.render import to_markdown, to_table, write_report
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
        console.print(to_table(report))
    if getattr(args, "out", None):
        write_report(report, args.out)
    return 0 if report.passed else 1
