"""FlexProp against plain KProp on real graphs (ppgnn C16: FlexProp costs O(K |E| d), like KProp).

For each dataset the input is what PPGNN's server holds: every user's PPM report (base eps = 1, h = 5,
gamma = 0.5) and its reported level tau'. FlexProp is the pipeline's own propagation (``LevelFlexProp``:
Pi_ij proportional to tau'_j on A + I, sparse, ppgnn A5); plain KProp is LPGNN's (mean over N(v) without v,
lpgnn A1). Both run K = 16 steps of ``H <- S H`` with scipy's sparse product; the time after steps 1, 2, 4, 8
and 16 is read from the same pass (best of --repeats passes). Per dataset the table gives: the time to build S,
the cumulative propagation times and their ratio, nnz(S) (the multiply-adds per step and column), the
least-squares slope of time against K with its R^2 (C16's audit: R^2 > 0.95 means linear in K), and the memory
a dense n x n Pi would take (the authors' code builds one in a Python double loop).

    python benchmarks/flexprop.py [--datasets pubmed facebook] [--columns N] [--repeats 3]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

STEPS = (1, 2, 4, 8, 16)


def cumulative_times(step, x, repeats: int) -> tuple[np.ndarray, float]:
    """Seconds after each of max(STEPS) products H <- step @ H (best of ``repeats`` passes), and the check sum
    of the result (so that no pass can be skipped)."""
    best = np.full(max(STEPS), np.inf)
    for _ in range(repeats):
        h, elapsed = x, []
        start = time.perf_counter()
        for _ in range(max(STEPS)):
            h = step @ h
            elapsed.append(time.perf_counter() - start)
        best = np.minimum(best, elapsed)
    return best, float(np.abs(h).sum())


def linear_fit(ks, seconds) -> tuple[float, float]:
    """(slope in seconds per step, R^2) of the least-squares line of time against K."""
    ks, seconds = np.asarray(ks, dtype=float), np.asarray(seconds, dtype=float)
    slope, intercept = np.polyfit(ks, seconds, 1)
    residual = seconds - (slope * ks + intercept)
    return float(slope), float(1.0 - residual @ residual / ((seconds - seconds.mean()) @ (seconds - seconds.mean())))


def main() -> None:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from ldp_audit.models import data
    from ldp_audit.models.propagation import KProp
    from ldp_audit.models.training import ppgnn, stages

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["pubmed", "facebook"])
    parser.add_argument("--columns", type=int, default=0, help="keep the first N feature columns (0: all)")
    parser.add_argument("--repeats", type=int, default=3, help="passes per propagation; the best is kept")
    args = parser.parse_args()
    if args.columns < 0 or args.repeats < 1:
        parser.error("--columns must be >= 0 and --repeats >= 1")
    table = Table(title="H = S^K X' on PPM reports (eps = 1): FlexProp (tau' weights, A + I) vs plain KProp "
                        "(mean, no self-loops); scipy sparse, one thread; times in seconds")
    for column in ("dataset", "n x d", "|E|", "K", "KProp s", "FlexProp s", "Flex/KProp", "build K / F s",
                   "nnz S K / F", "slope K / F s/step", "R^2 K / F", "dense Pi GiB"):
        table.add_column(column, justify="right")
    with Progress(transient=True) as progress:
        task = progress.add_task("benchmark", total=2 * len(args.datasets))
        for name in args.datasets:
            graph = data.load(name)
            config = ppgnn.ppgnn_config(graph.name, "PPM", 1.0, max(STEPS), 0)
            progress.update(task, description=f"{name}: PPM reports")
            x = stages.PersonalisedFeatures().node_features(graph, config, np.random.default_rng(0))
            if args.columns:
                x = np.ascontiguousarray(x[:, :args.columns])
            times, builds, nnz, fits = {}, {}, {}, {}
            for label, propagation in (("KProp", KProp(max(STEPS), aggregator="mean")),
                                       ("FlexProp", stages.feature_propagation(config))):
                progress.update(task, description=f"{name}: {label}")
                start = time.perf_counter()
                step = propagation.step_matrix(graph.adjacency)
                builds[label] = time.perf_counter() - start
                nnz[label] = step.nnz
                elapsed, _ = cumulative_times(step, x, args.repeats)
                times[label] = elapsed[[k - 1 for k in STEPS]]
                fits[label] = linear_fit(STEPS, times[label])
                progress.advance(task)
            edges = graph.edges.shape[1]
            for i, k in enumerate(STEPS):
                first = i == 0
                table.add_row(name if first else "", f"{graph.num_nodes}x{x.shape[1]}" if first else "",
                              str(edges) if first else "", str(k), f"{times['KProp'][i]:.3f}",
                              f"{times['FlexProp'][i]:.3f}", f"{times['FlexProp'][i] / times['KProp'][i]:.2f}",
                              f"{builds['KProp']:.3f} / {builds['FlexProp']:.3f}" if first else "",
                              f"{nnz['KProp']} / {nnz['FlexProp']}" if first else "",
                              f"{fits['KProp'][0]:.3f} / {fits['FlexProp'][0]:.3f}" if first else "",
                              f"{fits['KProp'][1]:.4f} / {fits['FlexProp'][1]:.4f}" if first else "",
                              f"{graph.num_nodes ** 2 * 8 / 2 ** 30:.1f}" if first else "")
            del x
    Console(width=200).print(table)


if __name__ == "__main__":
    main()
