"""``ldp-audit data [NAME]``: the datasets found in the data folder, with their counts checked against the README."""
from __future__ import annotations

from ..audits.graph.datasets import dataset_report
from .render import write_report
from ..models import data as datasets
from ._common import VERDICT_EXIT, add_output_options, emit
from .options import add_data_options


def register(subparsers) -> None:
    parser = subparsers.add_parser("data", help="list the graph datasets and verify their counts",
                                   description="Load every dataset (or NAME) from the data folder and compare "
                                               "nodes, edges, self-loops, features and classes with the counts "
                                               "of the datasets README. A damaged or missing dataset is a row of its own "
                                               "(the message names the file) and the others are still checked. "
                                               "Exit 1 when a count differs or a dataset cannot be read; exit 2 "
                                               "when the one NAME asked for cannot be read.")
    parser.add_argument("name", nargs="?", help=f"one dataset: {', '.join(datasets.names())}")
    add_data_options(parser)
    add_output_options(parser)
    parser.set_defaults(func=run)


def run(args, console) -> int:
    if args.name is not None and not args.name.strip():
        raise ValueError(f"dataset name is empty; give one of {', '.join(datasets.names())}, or none for all")
    names = [args.name.lower()] if args.name else datasets.names()
    if args.name and datasets.ALIASES.get(names[0], names[0]) not in datasets.names():
        raise ValueError(f"dataset must be one of {', '.join(datasets.names())}; got {args.name!r}")
    names = [datasets.ALIASES.get(n, n) for n in names]
    from rich.progress import Progress

    with Progress(transient=True, console=console, disable=args.json or args.markdown) as progress:
        task = progress.add_task("loading datasets", total=len(names))

        def advance(name):
            progress.update(task, description=f"loading {name}")
            progress.advance(task)

        report = dataset_report(names, args.data_dir, args.cache_dir, advance)
    errors = [(r.details["name"], r.details["error"]) for r in report.results if "error" in r.details]
    if args.name and errors:  # the one dataset asked for cannot be read: a usage error naming the file
        raise ValueError(errors[0][1])
    if args.json or args.markdown:
        return emit(report, args, console)
    rows = [r.details for r in report.results]
    console.print(_table(rows))
    from rich.markup import escape

    for name, message in errors:
        console.print(f"[bold red]{name}: cannot read:[/] {escape(message)}")
    for row in rows:
        if "error" in row:
            continue
        if row["missing_features"]:
            console.print(f"[yellow]{row['name']}:[/] {row['missing_features']}")
        if args.name:
            _details(row, console)
    if args.out:
        write_report(report, args.out)
    return VERDICT_EXIT[report.verdict]


def _table(rows):
    from rich import box
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, padding=(0, 1),
                  title="graph datasets (counts checked against the datasets README)",
                  caption="edges: unique undirected, no self-loops; paper E: as the papers count them; d: "
                          "features; cls: classes; deg: average degree; check: counts against the README")
    table.add_column("dataset", no_wrap=True)
    for column in ("nodes", "edges", "loops", "paper E", "d", "cls", "deg"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("check", no_wrap=True)
    for row in rows:
        if "error" in row:  # damaged or missing files: the message follows the table
            table.add_row(row["name"], *[""] * 7, "[bold red]CANNOT READ[/] (below)")
            continue
        verdict = {True: "[green]ok[/]", False: "[bold red]MISMATCH[/]", None: "n/a"}[row["verified"]]
        if row["verified"] is False:
            verdict += " " + ", ".join(k for k, c in row["checks"].items() if not c["ok"])
        features = "absent" if row["missing_features"] else ("" if row["features"] is None else
                                                               str(row["features"]))
        table.add_row(row["name"], str(row["nodes"]), str(row["edges"]), str(row["self_loops"]),
                      "" if row.get("papers_edges") is None else str(row["papers_edges"]), features,
                      "" if row["classes"] is None else str(row["classes"]), f"{row['avg_degree']:.2f}",
                      verdict)
    return table


def _details(row, console) -> None:
    for key in ("description", "source", "feature_range", "range_source", "max_degree", "isolated",
                "class_sizes", "planetoid_split"):
        if row.get(key) not in (None, ""):
            console.print(f"  {key}: {row[key]}")
    for key, check in row.get("checks", {}).items():
        mark = "[green]ok[/]" if check["ok"] else "[bold red]differs[/]"
        console.print(f"  {key}: loaded {check['loaded']:,}, README {check['readme']:,} {mark}")
