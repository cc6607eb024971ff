"""The graph datasets as loaded, checked against the counts in the datasets README (``ldp-audit data``)."""
from __future__ import annotations

import time
from typing import Callable

import numpy as np

from ...models import data as datasets
from ..kernel.result import AuditReport, CheckResult, Status


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


def dataset_report(names, data_dir=None, cache_dir=None, progress: Callable[[str], None] = lambda _: None
                   ) -> AuditReport:
    """One row per dataset: PASS when every count matches the README, FAIL on a mismatch or a damaged or missing
    file (the row's ``error`` names it), INFO for graphs the README does not list (the embedded ones); the
    statistics are the row's details."""
    results = []
    for name in names:
        try:
            row = statistics(name, data_dir, cache_dir)
        except datasets.DatasetFileError as exc:  # a damaged or missing dataset is one failing row of many
            progress(name)
            results.append(CheckResult(f"data.{name}", "datasets README counts", Status.FAIL, None, "nodes",
                                       explanation=str(exc), details={"name": name, "error": str(exc)}))
            continue
        progress(name)
        status = {True: Status.PASS, False: Status.FAIL, None: Status.INFO}[row["verified"]]
        wrong = [k for k, c in row.get("checks", {}).items() if not c["ok"]]
        results.append(CheckResult(
            f"data.{name}", "datasets README counts", status, float(row["nodes"]), "nodes",
            explanation=(f"{row['nodes']} nodes, {row['edges']} edges" + (f"; differs from the README in "
                         f"{', '.join(wrong)}" if wrong else "") + (f"; {row['missing_features']}"
                                                                   if row["missing_features"] else "")),
            details=row))
    return AuditReport.of("graph datasets", results, settings={"data_dir": None if data_dir is None else str(data_dir)})
