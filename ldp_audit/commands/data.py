"""``ldp-audit data [NAME]``: the datasets found in the data folder, with their counts checked against the README."""
from __future__ import annotations

import json
import time

import numpy as np

from ..models import data as datasets


def register(subparsers) -> None:
    parser = subparsers.add_parser("data", help="list the graph datasets and verify their counts",
                                   description="Load every dataset (or NAME) from the data folder and compare "
                                               "nodes, edges, self-loops, features and classes with the counts "
                                               "of the datasets README. Exit 1 when a count differs.")
    parser.add_argument("name", nargs="?", help=f"one dataset: {', '.join(datasets.names())}")
    add_data_options(parser)
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON")
    parser.set_defaults(func=run)


def add_data_options(parser) -> None:
    """``--data-dir`` and ``--cache-dir``, shared with ``ldp-audit bounds``."""
    parser.add_argument("--data-dir", metavar="DIR", help=f"dataset folder (default: ${datasets.ENV_DATA}, "
                                                          "else ../shared/datasets beside the project)")
    parser.add_argument("--cache-dir", metavar="DIR", help=f"writable folder for torch-geometric's processed "
                                                           f"files (default: ${datasets.ENV_CACHE} or "
                                                           "~/.cache/ldp-audit)")


def statistics(name: str, data_dir=None, cache_dir=None) -> dict:
    """Counts of one dataset as loaded, the README's counts, and whether they agree."""
    start = time.perf_counter()
    graph = datasets.load(name, data_dir, cache_dir)
    seconds = time.perf_counter() - start
    degrees = graph.degrees
    row = {"name": graph.name, "nodes": graph.num_nodes, "edges": graph.num_edges,
           "self_loops": graph.num_self_loops, "features": graph.num_features if graph.x is not None else None,
           "classes": graph.num_classes or None, "avg_degree": 2 * graph.num_edges / graph.num_nodes,
           "max_degree": int(degrees.max()), "isolated": int((degrees == 0).sum()),
           "feature_range": graph.feature_range, "range_source": graph.range_source,
           "missing_features": graph.missing_features, "source": graph.source, "load_seconds": seconds}
    info = datasets.DATASETS.get(name)
    if info is not None:
        row["description"] = info.description
        row["papers_edges"] = graph.papers_edges(info.papers_rule) if info.papers_edges is not None else None
        row["checks"] = {key: {"loaded": got, "readme": want, "ok": ok}
                         for key, (got, want, ok) in datasets.verify_counts(graph, info).items()}
        row["verified"] = all(c["ok"] for c in row["checks"].values())
    else:
        row["description"] = graph.source
        row["verified"] = None
    if graph.y is not None:
        row["class_sizes"] = np.bincount(graph.y, minlength=graph.num_classes).tolist()
    if "planetoid_split" in graph.extra:
        row["planetoid_split"] = graph.extra["planetoid_split"]
    return row


def run(args, console) -> int:
    names = [args.name.lower()] if args.name else datasets.names()
    if args.name and datasets.ALIASES.get(names[0], names[0]) not in datasets.names():
        raise ValueError(f"dataset must be one of {', '.join(datasets.names())}; got {args.name!r}")
    names = [datasets.ALIASES.get(n, n) for n in names]
    rows = []
    from rich.progress import Progress

    with Progress(transient=True, console=console, disable=args.json) as progress:
        task = progress.add_task("loading datasets", total=len(names))
        for name in names:
            progress.update(task, description=f"loading {name}")
            rows.append(statistics(name, args.data_dir, args.cache_dir))
            progress.advance(task)
    if args.json:
        print(json.dumps(rows, indent=2, default=str))
    else:
        console.print(_table(rows))
        for row in rows:
            if row["missing_features"]:
                console.print(f"[yellow]{row['name']}:[/] {row['missing_features']}")
            if args.name:
                _details(row, console)
    return 1 if any(row["verified"] is False for row in rows) else 0


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
