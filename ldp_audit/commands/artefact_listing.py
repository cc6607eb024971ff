"""Views of the artefact registry (papers/artefacts.py): the listing at the end of ``reproduce --help`` and the
per-paper table of ``claims --coverage`` (rich, or JSON). One source, so the two never disagree."""
from __future__ import annotations

import textwrap

from ..papers import artefacts

_STYLE = {artefacts.TARGET: "green", artefacts.ELSEWHERE: "cyan", artefacts.NOT_RUNNABLE: "yellow"}


def _count_text(paper: str) -> str:
    c = artefacts.counts(paper)
    return (f"{c[artefacts.TARGET]}/{c['artefacts']} targets, {c[artefacts.ELSEWHERE]} checked "
            f"elsewhere, {c[artefacts.NOT_RUNNABLE]} not runnable")


def _short(entry: artefacts.Artefact) -> str:
    """What runs ``entry``, as the help says it: the --tables ids, the other command, or why nothing does."""
    if entry.status == artefacts.TARGET:
        return entry.arguments + ("" if entry.in_seed else " (not in the seed)")
    if entry.status == artefacts.ELSEWHERE:
        return entry.command
    return "none: " + entry.note


def help_epilog(width: int = 79) -> str:
    """Every table and figure id of every paper with what runs it, wrapped to ``width`` columns."""
    lines = ["Tables and figures of the four papers (ID, as printed: what runs it; a target",
             "runs with reproduce PAPER [--full] --tables ID):"]
    for paper, seed in artefacts.PAPERS.items():
        lines += textwrap.wrap(f"{paper} ({seed}): {_count_text(paper)}", width, subsequent_indent="  ")
        for entry in artefacts.of(paper):
            head = f"  {entry.id:<9} {entry.printed:<10} "
            lines += textwrap.wrap(_short(entry), width, initial_indent=head, subsequent_indent=" " * len(head))
    return "\n".join(lines)


def coverage_json(papers) -> dict:
    """{paper: {"counts": ..., "artefacts": [entry dicts]}} for ``papers``."""
    return {paper: {"counts": artefacts.counts(paper), "artefacts": [a.to_dict() for a in artefacts.of(paper)]}
            for paper in papers}


def coverage_table(paper: str):
    """A rich table of ``paper``'s artefacts: id, as printed, status, what runs it, caption, and the note (what
    the targets leave out, or why nothing runs it)."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"{paper} tables and figures: {_count_text(paper)}")
    for column, options in (("id", {"no_wrap": True}), ("printed", {"no_wrap": True}),
                            ("status", {"no_wrap": True}), ("what runs it", {}), ("caption", {}),
                            ("left out / why not", {"style": "dim"})):
        table.add_column(column, **options)
    for entry in artefacts.of(paper):
        status = entry.status + ("" if entry.in_seed else " (not in the seed)")
        table.add_row(entry.id, escape(entry.printed), f"[{_STYLE[entry.status]}]{status}[/]",
                      escape(entry.command or "-"), escape(entry.caption), escape(entry.note))
    return table
