"""Training speed: seconds per 100 epochs per dataset and model, next to a plain torch-geometric GCN.

Each row trains for ``--epochs`` epochs with one evaluation pass per epoch (what our loop does to select the
checkpoint on validation) and reports seconds per 100 epochs, best of ``--repeat`` interleaved repeats. Ours is
the whole ``train_run`` with perturbation and propagation memoised (their one-off cost is the "setup" column). The plain baseline is the same network
written directly with two ``GCNConv`` layers, BatchNorm, SELU, the same per-epoch evaluation and nothing else;
"ratio" is our GCN+Raw time over it (target <= 1.2). One torch thread, on CPU, and on CUDA when present.

    python benchmarks/train.py [--datasets cora citeseer pubmed] [--epochs 100] [--repeat 3] [--device cpu]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

from ldp_audit.models.training import RunCache, RunConfig, train_run
from ldp_audit.models.training.lpgnn import HYPERPARAMETERS
from ldp_audit.models.training.runtime import choose_device, limit_threads


def plain_gcn_seconds(graph, x, device, epochs: int, lr: float, wd: float) -> float:
    """The reference: a textbook torch-geometric GCN loop with per-epoch evaluation."""
    from torch_geometric.nn import GCNConv

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.norm = GCNConv(x.shape[1], 16, cached=True), torch.nn.BatchNorm1d(16)
            self.conv2 = GCNConv(16, graph.num_classes, cached=True)

        def forward(self, h, edge_index):
            return self.conv2(torch.selu(self.norm(self.conv1(h, edge_index))), edge_index)

    from ldp_audit.models.data import node_split

    train, val, test = (torch.as_tensor(a, device=device) for a in node_split(graph.num_nodes, 12345))
    y = torch.as_tensor(graph.y, device=device)
    edge_index = torch.as_tensor(np.hstack([graph.edges, graph.edges[::-1]]), device=device)
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=wd)
    _sync(device)
    start = time.perf_counter()
    for _ in range(epochs):
        model.train()
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x, edge_index)[train], y[train])
        loss.backward()
        optimizer.step()
        model.eval()
        with torch.no_grad():
            logits = model(x, edge_index)
            val_loss = torch.nn.functional.cross_entropy(logits[val], y[val])
            pred = logits.argmax(1)
            torch.stack([val_loss, (pred[val] == y[val]).float().mean(), (pred[test] == y[test]).float().mean()]
                        ).tolist()
    _sync(device)
    return time.perf_counter() - start


def _sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def ours_seconds(config: RunConfig, device, cache: RunCache) -> tuple[float, float]:
    """(epoch-loop seconds, setup seconds) of one run; setup = perturbation + propagation, memoised."""
    graph = cache.graph(config.dataset)
    start = time.perf_counter()
    cache.propagated_features(config, graph, device)
    setup = time.perf_counter() - start
    result = train_run(config, device, cache)
    return result.wall_time_s, setup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["cora", "citeseer"])
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--device", choices=("cpu", "cuda"))
    args = parser.parse_args()
    limit_threads()
    device = choose_device(args.device)
    table = Table(title=f"seconds per 100 epochs on {device} (1 thread; best of {args.repeat})")
    for column in ("dataset", "model", "s / 100 epochs", "setup s", "plain PyG GCN s / 100", "ratio"):
        table.add_column(column, justify="right")
    scale = 100 / args.epochs
    for name in args.datasets:
        cache = RunCache()
        graph = cache.graph(name)
        lr, wd, dropout = HYPERPARAMETERS[name]
        common = dict(lr=lr, weight_decay=wd, dropout=dropout, epochs=args.epochs)
        rows = {"GCN+Raw (ours)": RunConfig(name, k_x=1, self_loops=True, **common),
                "LPGNN eps=1 K=16": RunConfig(name, eps_x=1.0, k_x=16, **common),
                "SAGE + Drop eps_y=1": RunConfig(name, eps_x=1.0, eps_y=1.0, k_x=2, k_y=4, model="sage",
                                                 objective="drop", selection="ccs", **common)}
        x = torch.as_tensor(cache.node_features(rows["GCN+Raw (ours)"], graph), dtype=torch.float32, device=device)
        plain, timings = [], {label: [] for label in rows}
        for _ in range(args.repeat):  # interleaved, so that load from other processes hits every row alike
            plain.append(plain_gcn_seconds(graph, x, device, args.epochs, lr, wd))
            for label, config in rows.items():
                timings[label].append(ours_seconds(config, device, cache))
        for label in rows:
            loop = min(t for t, _ in timings[label])
            setup = max(s for _, s in timings[label])
            ratio = f"{loop / min(plain):.2f}" if label == "GCN+Raw (ours)" else ""
            table.add_row(name, label, f"{loop * scale:.2f}", f"{setup:.2f}", f"{min(plain) * scale:.2f}", ratio)
    Console(width=140).print(table)


if __name__ == "__main__":
    main()
