"""LDP-GE propagation on a paper dataset: backward push against power and Chebyshev iteration at push's error
bound, and the method ``auto`` (ldp_audit.models.propagation.ppr_matched) picks, per report kind.

For each (task preset, report kind) the server's input is built as the pipeline builds it (HDS with the
preset's k, LP, or the non-private features) on the first ``--columns`` feature columns; the reference is power
iteration to 1e-9 (its own truncation error is below 1e-9). Push runs only when its predicted cost is at most
``--push-limit`` times the cheaper iteration's (push on dense reports costs far more). CPU seconds are for those
columns; "auto full s" scales auto's time to all d columns (its 16-column push probe counted once).

    python benchmarks/ldp_ge_propagation.py [--dataset facebook] [--columns 256] [--push-limit 20] [--tasks link node]
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def cpu(fn, *args, **kwargs):
    start = time.process_time()
    out = fn(*args, **kwargs)
    return out, time.process_time() - start


def main() -> None:
    from rich.console import Console
    from rich.table import Table

    from ldp_audit import streams
    from ldp_audit.models import data, propagation as prop
    from ldp_audit.models.training import ldp_ge
    from ldp_audit.seeding import rng_for

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="facebook")
    parser.add_argument("--columns", type=int, default=256, help="first N feature columns (0: all)")
    parser.add_argument("--push-limit", type=float, default=20.0)
    parser.add_argument("--tasks", nargs="+", choices=("link", "node"), default=["link", "node"])
    args = parser.parse_args()
    graph = data.load(ldp_ge.TABLE3_DATASETS.get(args.dataset, args.dataset))
    table = Table(title=f"LDP-GE propagation on {args.dataset} ({graph.num_nodes} nodes): CPU seconds, max error "
                        "against power iteration to 1e-9")
    for column in ("task", "reports", "alpha", "r", "r_max", "bound", "push s", "push err", "power L", "power s",
                   "power err", "cheb L", "cheb s", "cheb err", "auto picks", "auto full s"):
        table.add_column(column, justify="right")
    for task in args.tasks:
        for mechanism, eps in (("HDS", 1.0), ("LP", 1.0), ("HDS", None)):
            config = ldp_ge.preset(args.dataset, task, mechanism=mechanism, eps=eps)
            reports = ldp_ge.client_reports(graph, config, rng_for(0, *streams.FEATURES.key()))
            d = reports.shape[1]
            x = reports[:, :args.columns].copy() if args.columns else reports
            del reports
            adjacency = (data.edge_split(graph, config.split_seed).train_graph if task == "link" else graph).adjacency
            a, r, r_max = config.alpha, config.r, config.r_max
            reference = prop.ppr_power(adjacency, x, a, r, tol=1e-9).z
            steps = prop.power_steps_matching_push(adjacency, x, a, r, r_max)
            power, power_s = cpu(prop.ppr_power, adjacency, x, a, r, steps=steps)
            cheb_steps = prop.chebyshev_steps_matching_push(adjacency, x, a, r, r_max)
            cheb, cheb_s = cpu(prop.ppr_chebyshev, adjacency, x, a, r, cheb_steps)
            auto, auto_s = cpu(prop.ppr_matched, adjacency, x, a, r, r_max)
            probe = np.unique(np.linspace(0, x.shape[1] - 1, min(x.shape[1], prop.PROBE_COLUMNS)).round().astype(int))
            _, probe_s = cpu(prop.backward_push, adjacency, x[:, probe], a, r, r_max)
            full_s = max(0.0, auto_s - probe_s) * d / x.shape[1] + probe_s  # the probe does not grow with d
            push_cell, push_err = "skipped", "-"
            if auto.costs["push"] <= args.push_limit * min(auto.costs["power"], auto.costs["chebyshev"]):
                push, push_s = cpu(prop.backward_push, adjacency, x, a, r, r_max)
                push_cell, push_err = f"{push_s:.2f}", f"{np.abs(push.z - reference).max():.1e}"
            label = "non-private" if eps is None else f"{mechanism} eps={eps:g} k={config.sampled(d)}"
            row = (task, label, f"{a:g}", f"{r:g}", f"{r_max:g}", f"{auto.error_bound.max():.1e}", push_cell,
                   push_err, str(steps), f"{power_s:.2f}", f"{np.abs(power.z - reference).max():.1e}",
                   str(cheb_steps), f"{cheb_s:.2f}", f"{np.abs(cheb.z - reference).max():.1e}", auto.method,
                   f"{full_s:.0f}")
            table.add_row(*row)
            print(" | ".join(row), flush=True)  # as it goes: the whole table comes at the end
    Console(width=200).print(table)


if __name__ == "__main__":
    main()
