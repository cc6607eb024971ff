"""Backward push versus power iteration versus torch-geometric's APPNP for Z = Pi X (ldp-ge Eq. 2, r = 1/2).

For each dataset the input is the HDS-perturbed feature matrix (the LDP-GE pipeline's input; eps = 1, k = 1).
The reference is power iteration to 1e-9 (its truncation bound is printed). For each r_max, push's time and
measured max error are reported, then the number of power-iteration steps (and of APPNP steps, which compute
the same operator: gcn_norm without self-loops is D^-1/2 A D^-1/2 = P at r = 1/2) needed to reach the same
max error, and their times, all in the same run (APPNP runs K = L steps of the same recurrence; its error is
printed to show that it matches). Peak memory of the numpy paths comes from tracemalloc.

    python benchmarks/propagation.py [--datasets cora pubmed facebook] [--columns N] [--r-max 1e-3 1e-4 1e-5]
"""
from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np


def timed(fn, *args, **kwargs):
    tracemalloc.start()
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, seconds, peak / 2 ** 20


def steps_to_reach(step, z0, reference, target, limit=1000):
    """Smallest step count whose iterate is within ``target`` of ``reference`` (max abs error)."""
    z = z0
    for count in range(1, limit + 1):
        z = step(z)
        if np.abs(z - reference).max() <= target:
            return count
    return limit


def main() -> None:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    import torch
    from torch_geometric.nn import APPNP

    from ldp_audit.mechanisms import make
    from ldp_audit.models import data, propagation as prop

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["cora", "pubmed", "facebook"])
    parser.add_argument("--columns", type=int, default=0, help="use the first N feature columns (0: all)")
    parser.add_argument("--r-max", nargs="+", type=float, default=[1e-3, 1e-4, 1e-5])
    parser.add_argument("--alpha", type=float, default=0.1)
    args = parser.parse_args()
    alpha, r = args.alpha, 0.5
    table = Table(title=f"Z = Pi X, alpha={alpha}, r={r}, X = HDS(eps=1, k=1) reports; times in seconds")
    for column in ("dataset", "n x d", "r_max", "push s", "push err", "bound", "pushes", "push MiB",
                   "power L", "power s", "power MiB", "APPNP err", "APPNP s", "push/power"):
        table.add_column(column, justify="right")
    torch.set_num_threads(2)
    with Progress(transient=True) as progress:
        task = progress.add_task("benchmark", total=len(args.datasets) * (len(args.r_max) + 1))
        for name in args.datasets:
            graph = data.load(name)
            columns = range(args.columns) if args.columns else None
            x = graph.normalized_features(columns=columns)
            reports = make("hds", eps=1.0, d=x.shape[1], k=1).perturb(x, np.random.default_rng(0))
            del x
            adjacency = graph.adjacency
            progress.update(task, description=f"{name}: reference")
            ref = prop.ppr_power(adjacency, reports, alpha, r, tol=1e-9)
            progress.advance(task)
            p = prop.transition(adjacency, r)
            edge_index = torch.from_numpy(np.concatenate([graph.edges, graph.edges[::-1]], axis=1))
            x_t = torch.from_numpy(reports)
            ref_t = torch.from_numpy(ref.z)
            for r_max in args.r_max:
                progress.update(task, description=f"{name}: r_max={r_max:g}")
                push, push_s, push_mib = timed(prop.backward_push, adjacency, reports, alpha, r, r_max)
                error = float(np.abs(push.z - ref.z).max()) + float(ref.error_bound.max())
                steps = steps_to_reach(lambda z: alpha * reports + (1 - alpha) * (p @ z), alpha * reports, ref.z,
                                       error)
                _, power_s, power_mib = timed(prop.ppr_power, adjacency, reports, alpha, r, steps=steps)
                layer = APPNP(K=steps, alpha=alpha, add_self_loops=False, cached=False)
                with torch.no_grad():  # the same recurrence as power iteration, so K = L reaches the same error
                    start = time.perf_counter()
                    out = layer(x_t, edge_index)
                    appnp_s = time.perf_counter() - start
                appnp_err = float((out - ref_t).abs().max())
                table.add_row(name, f"{graph.num_nodes}x{reports.shape[1]}", f"{r_max:g}", f"{push_s:.2f}",
                              f"{error:.2e}", f"{push.error_bound.max():.1e}", f"{push.pushes:.2e}",
                              f"{push_mib:.0f}", str(steps), f"{power_s:.2f}", f"{power_mib:.0f}",
                              f"{appnp_err:.2e}", f"{appnp_s:.2f}", f"{push_s / power_s:.2f}")
                progress.advance(task)
    Console(width=200).print(table)


if __name__ == "__main__":
    main()
