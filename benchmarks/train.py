"""Training throughput: runs per CPU-second of batched runs (issue 24), beside one run at a time and plain PyG.

For each dataset and pipeline, runs that differ only in their seed (LPGNN: multi-bit features at eps_x = 1;
PPGNN: PPM at eps = 1 with FlexProp; both with K = ``--k`` propagation steps, so every row does the same work
per run) are trained

- batched: ``train_batch`` on the first B runs, for every B of ``--batches`` (the stacked model of issue 24);
- one at a time: ``batched.train_module``, each run through its own torch module on propagated features, the
  loop every run took before batching (today's ``train_run`` path; GAT still takes it);
- plain PyG: a textbook two-layer torch-geometric GCN loop on the raw features with the same per-epoch
  evaluation, nothing else (a floor for "one small model per process").

``--orders`` adds rows for the stacked first layer pushed into one order (``stacked.features_first``): ``product``
propagates the product C (X' W) for every sparse report (a dense report with steps always goes features first:
its own n x d x h product is paid per pass in either order), ``features`` always propagates the features once,
(C X') W; ``rule`` (default) lets each run's config and dataset decide.

Time is *process* CPU time (``time.process_time``), not wall time: the machine is shared, and CPU seconds are what
a sweep pays. A run's time includes its feature perturbation, propagation, labels and initialisation; the graph
is loaded once before timing. One torch thread.

    python benchmarks/train.py [--datasets cora citeseer pubmed] [--epochs 100] [--k 8] [--batches 1 4 16 64]
                               [--orders rule product features]
"""
from __future__ import annotations

import argparse
import math
import time
from dataclasses import replace

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

from ldp_audit.models.training import RunCache, RunConfig, stacked, train_batch
from ldp_audit.models.training.batched import train_module
from ldp_audit.models.training.lpgnn import HYPERPARAMETERS
from ldp_audit.models.training.ppgnn import ppgnn_config
from ldp_audit.models.training.runtime import limit_threads


def lpgnn_runs(dataset: str, count: int, epochs: int, k: int) -> list[RunConfig]:
    lr, wd, dropout = HYPERPARAMETERS[dataset]
    return [RunConfig(dataset, eps_x=1.0, k_x=k, lr=lr, weight_decay=wd, dropout=dropout, epochs=epochs, seed=s)
            for s in range(count)]


def ppgnn_runs(dataset: str, count: int, epochs: int, k: int) -> list[RunConfig]:
    return [replace(ppgnn_config(dataset, "PPM", 1.0, k, s), epochs=epochs) for s in range(count)]


PIPELINES = {"LPGNN": lpgnn_runs, "PPGNN": ppgnn_runs}
#: SPARSE_COST per first-layer order: the rule's own, sparse reports never first, always features first.
ORDERS = {"rule": stacked.SPARSE_COST, "product": 0.0, "features": math.inf}


def cpu_seconds(work) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def plain_gcn_seconds(graph, epochs: int, lr: float, wd: float) -> float:
    """One textbook torch-geometric GCN run (two GCNConv, SELU, dropout 0) with per-epoch evaluation."""
    from torch_geometric.nn import GCNConv

    from ldp_audit.models.data import node_split

    def run():
        x = torch.as_tensor(graph.normalized_features(clip=True), dtype=torch.float32)
        train, val, test = (torch.as_tensor(a) for a in node_split(graph.num_nodes, 12345))
        y = torch.as_tensor(graph.y)
        edge_index = torch.as_tensor(np.hstack([graph.edges, graph.edges[::-1]]))
        first, second = GCNConv(x.shape[1], 16, cached=True), GCNConv(16, graph.num_classes, cached=True)
        model = torch.nn.ModuleList([first, second])
        optimizer = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=wd)
        forward = lambda: second(torch.selu(first(x, edge_index)), edge_index)  # noqa: E731
        for _ in range(epochs):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(forward()[train], y[train]).backward()
            optimizer.step()
            with torch.no_grad():
                logits = forward()
                pred = logits.argmax(1)
                torch.stack([torch.nn.functional.cross_entropy(logits[val], y[val]),
                             (pred[val] == y[val]).float().mean(), (pred[test] == y[test]).float().mean()]).tolist()

    return cpu_seconds(run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["cora", "citeseer"])
    parser.add_argument("--pipelines", nargs="+", choices=tuple(PIPELINES), default=list(PIPELINES))
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--k", type=int, default=8, help="propagation steps K of every run (default 8)")
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 4, 16, 64])
    parser.add_argument("--one-by-one", type=int, default=4, help="runs timed one at a time (default 4)")
    parser.add_argument("--orders", nargs="+", choices=tuple(ORDERS), default=["rule"],
                        help="first-layer orders of the batched rows (default: rule)")
    args = parser.parse_args()
    limit_threads()
    table = Table(title=f"runs per CPU-second, {args.epochs} epochs and K={args.k} per run, CPU, 1 torch thread "
                        "(process CPU time; ratio = batched / one at a time)")
    for column in ("dataset", "pipeline", "order", "plain PyG GCN", "one at a time", *(f"batch {b}" for b in args.batches),
                   *(f"ratio {b}" for b in args.batches)):
        table.add_column(column, justify="right")
    for name in args.datasets:
        cache = RunCache()
        graph = cache.graph(name)
        lr, wd, _ = HYPERPARAMETERS[name]
        plain = 1 / plain_gcn_seconds(graph, args.epochs, lr, wd)
        for pipeline in args.pipelines:
            runs = PIPELINES[pipeline](name, max(args.batches + [args.one_by_one]), args.epochs, args.k)
            single = args.one_by_one / cpu_seconds(lambda: [train_module(c, "cpu", cache)
                                                            for c in runs[:args.one_by_one]])
            for order in args.orders:
                stacked.SPARSE_COST = ORDERS[order]
                rates = [b / cpu_seconds(lambda: train_batch(runs[:b], "cpu", cache)) for b in args.batches]
                table.add_row(name, pipeline, order, f"{plain:.3f}", f"{single:.3f}", *(f"{r:.3f}" for r in rates),
                              *(f"{r / single:.1f}x" for r in rates))
                print(f"{name} {pipeline} ({order} order): one at a time {single:.3f}, batched "
                      f"{[round(r, 3) for r in rates]} runs/CPU-s", flush=True)
            stacked.SPARSE_COST = ORDERS["rule"]
    Console(width=200).print(table)


if __name__ == "__main__":
    main()
