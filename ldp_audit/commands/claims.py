"""ldp-audit claims PAPER: every checkable claim of a paper, checked as printed.

Errata show as FAIL with their evidence; claims that hold show as PASS; a claim
the run cannot decide (too few training runs, software this project lacks) is
INCONCLUSIVE with the reason. Each row says what would make it fail. The exit
code is 1 when any claim fails, as for verify; for a paper with errata that is
the expected outcome.

SE-PrivGEmb trains models for some claims: the default run is reduced (fewer,
shorter trainings; those rows say so) and --full runs the spec's sizes.
--coverage lists every spec id of the paper (or of all four papers) with the
claims registered to check it, or what the id still needs, in seconds
(--coverage --run runs the claims first and shows each id's rows and their
worst status); then every table and figure of the paper with the command that
reproduces or checks it, or why nothing can, and the count of reproduce targets.
"""
from __future__ import annotations

import argparse
import json

from ..audits.claims.registry import ClaimSettings, claims_of, papers, run_claims
from ._common import add_engine_options, add_output_options, emit, engine_for
from .options import MAX_DRAWS, check_size, confidence, integer, seed

_STYLE = {"pass": "green", "fail": "red", "inconclusive": "yellow", "info": "cyan", "needs": "magenta",
          "registered": "blue"}


#: Peak memory of a claims run, measured (peak RSS at 200,000 and 800,000 draws): about 0.7 GiB whatever the
#: size, plus 2.0 kB per draw for lpgnn (verify holds its reports); ldp-ge and ppgnn sample in chunks.
_BASE_BYTES = 1.0 * 2 ** 30
_BYTES_PER_SAMPLE = {"lpgnn": 2500}


def register(sub) -> None:
    p = sub.add_parser("claims", help="check every claim of a paper (errata show as FAIL)", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paper", nargs="?", choices=papers(), help="which paper (optional with --coverage: all four)")
    p.add_argument("--samples", type=integer(1000, MAX_DRAWS), default=ClaimSettings.samples,
                   help=f"Monte Carlo draws per input, in [1000, {MAX_DRAWS:.0e}] (default {ClaimSettings.samples})")
    p.add_argument("--seed", type=seed, default=ClaimSettings.seed, help=f"seed (default {ClaimSettings.seed})")
    p.add_argument("--confidence", type=confidence, default=1.0 - ClaimSettings.alpha,
                   help=f"1 - family-wise false-alarm rate (default {1.0 - ClaimSettings.alpha:g})")
    p.add_argument("--full", action="store_true",
                   help="run the spec's full-size trainings (SE-PrivGEmb: about 4 minutes instead of 2)")
    p.add_argument("--coverage", action="store_true",
                   help="print every spec id with the claims that check it (from the registry, in seconds), then "
                        "every table and figure with what runs it")
    p.add_argument("--run", action="store_true",
                   help="with --coverage: run the claims first and show each id's rows and their worst status")
    add_engine_options(p)
    add_output_options(p)
    p.set_defaults(func=run)


def run(args, console) -> int:
    if args.coverage and (args.markdown or args.out):
        raise ValueError("--coverage prints a table, or JSON with --json; it has no "
                         + ("--markdown" if args.markdown else "--out") + " output")
    if args.paper is None and not args.coverage:
        raise ValueError("paper is required (one of " + ", ".join(papers()) + ") unless --coverage is given")
    if args.full and args.paper is not None and args.paper != "se-privgemb":
        raise ValueError(f"--full sets the size of SE-PrivGEmb's trainings; the claims of {args.paper} train "
                         "nothing, so it would change nothing (drop it, or use claims se-privgemb --full)")
    if args.run and not args.coverage:
        raise ValueError("--run goes with --coverage (without it the claims of a paper always run)")
    chosen = [args.paper] if args.paper else papers()
    if args.coverage and not args.run:
        return _emit_coverage({paper: None for paper in chosen}, args, console)
    check_size("--samples", args.samples, max(_BYTES_PER_SAMPLE.get(p, 0) for p in chosen) or 1,
               f"the claims of {', '.join(chosen)} at {args.samples:,} draws", fixed=_BASE_BYTES)
    settings = ClaimSettings(args.samples, args.seed, round(1.0 - args.confidence, 12), args.full)
    quiet = args.json or args.markdown
    with engine_for(args):
        reports = {paper: _run_with_progress(paper, settings, console, enabled=not quiet) for paper in chosen}
    if args.coverage:
        return _emit_coverage(reports, args, console)
    return emit(reports[args.paper], args, console)


def _run_with_progress(paper: str, settings: ClaimSettings, console, enabled: bool):
    """Run the claims of ``paper``, printing each claim's rows as it finishes under a rich progress bar."""
    if not (enabled and console.is_terminal):
        return run_claims(paper, settings)
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn, TimeRemainingColumn

    columns = ("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(f"claims of {paper}", total=len(claims_of(paper)) + 1)

        def report(group: str, rows) -> None:
            for row in rows:
                status = row.status.value
                progress.console.print(f"[{_STYLE[status]}]{status.upper():>12}[/] {escape(row.name)}  "
                                       f"[dim]{escape(row.explanation)}[/]", no_wrap=True, overflow="ellipsis")
            progress.update(task, advance=1, description=f"claims of {paper}: {escape(group)} done")

        return run_claims(paper, settings, progress=report)


def _emit_coverage(reports: dict, args, console) -> int:
    """The coverage table (or JSON) of the papers in ``reports`` (a paper's report when its claims ran, else None:
    the registered claims stand for its rows); exit 0 (coverage is not a verdict)."""
    from ..papers.claim_catalogue import coverage
    from .artefact_listing import coverage_json, coverage_table

    tables = {paper: coverage(paper, report.results) if report is not None else
              coverage(paper, registered={c.name: c.spec_ids for c in claims_of(paper)})
              for paper, report in reports.items()}
    if args.json:
        print(json.dumps({"schema": "ldp-audit/claims-coverage", "papers": tables,
                          "artefacts": coverage_json(tables)}, indent=2, ensure_ascii=False))
        return 0
    from rich.markup import escape
    from rich.table import Table

    for paper, entries in tables.items():
        counts = {}
        for entry in entries:
            counts[entry["status"]] = counts.get(entry["status"], 0) + 1
        table = Table(title=f"{paper}: {len(entries)} ids, " + ", ".join(f"{n} {s}" for s, n in counts.items()))
        for column, options in (("id", {"no_wrap": True}), ("status", {"no_wrap": True}), ("rows", {}),
                                ("needs", {})):
            table.add_column(column, **options)
        for entry in entries:
            status = entry["status"]
            table.add_row(entry["id"], f"[{_STYLE[status]}]{status}[/]", escape(", ".join(entry["rows"]) or "-"),
                          escape(entry["needs"] or ""))
        console.print(table)
        console.print(coverage_table(paper))
    return 0
