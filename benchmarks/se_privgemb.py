"""SE-PrivGEmb utility benchmark: StrucEqu and link-prediction AUC next to the paper's numbers.

Usage: python benchmarks/se_privgemb.py [--seeds 10] [--datasets chameleon power arxiv] [--workers 2]
                                        [--lp-steps 2000] [--out results.json]

Modes per dataset (B = 128, C = 2, k = 5, r = 128, Adam lr 0.1, DeepWalk proximity, T = 200):
* ``paper``: sigma = 5 with the paper's accountant (Theorem 4 + Theorem 1) as stop rule - the stated
  setting; most eps targets never bind there (claim C14), so the eps columns coincide;
* ``calibrated``: sigma chosen so that the paper's accountant spends exactly eps at T = 200 (spec Table A3),
  so that eps changes the noise; "floor" where Theorem 4 cannot reach eps for any sigma (E12);
* ``naive``: Eq. 6 (noise on every row) at eps = 3.5 (Table VI); ``non-private``: SE-GEmb.
Link prediction trains on the shipped 90% split (train_pos) and scores test_pos against test_neg.
Runs are independent processes (one torch thread each); results are written atomically as JSON.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ldp_audit.audits.privacy.accountants import paper_accountant  # noqa: E402
from ldp_audit.papers import se_privgemb as paper  # noqa: E402

EPS = (0.5, 1.0, 2.0, 3.5)
PAPER_NAME = {"chameleon": "Chameleon", "power": "Power", "arxiv": "Arxiv"}
#: SE-PrivGEmb_DW (non-zero perturbation) as printed in Table VI, read from the one source in ``papers``.
PAPER_DW = {name: {eps: paper.TABLE_VI[(printed, eps)][1][0] for eps in (0.5, 2.0, 3.5)}
            for name, printed in PAPER_NAME.items()}


def calibrated_sigma(q: float, eps: float, steps: int = 200) -> float | None:
    """sigma at which Theorem 4 + Theorem 1 spend exactly ``eps`` after ``steps`` steps (None: below the floor)."""
    from scipy.optimize import brentq

    accountant = paper_accountant()

    def gap(sigma):
        return accountant.epsilon(q, sigma, 1e-5, steps) - eps

    if gap(1e4) >= 0:
        return None
    return float(brentq(gap, 0.05, 1e4, xtol=1e-6))


def one_run(task):
    from ldp_audit.models import data, se_privgemb as model

    name, mode, eps, sigma, seed, task_kind, lp_steps = task
    graph = data.load(name, with_features=False) if name == "chameleon" else data.load(name)
    private = mode != "non-private"
    cfg = model.TrainConfig(sigma=sigma or 5.0, eps=eps if private else None, accountant=paper_accountant(),
                            seed=seed, threads=1,
                            perturbation={"naive": "all", "non-private": "none"}.get(mode, "nonzero"),
                            clipping="per-subgraph" if private else "none",
                            steps=lp_steps if task_kind == "lp" else 200)
    if task_kind == "lp":
        split = data.load_link_split(name)
        edges = split["train_pos"]
        sub = model.build_subgraphs(_adj(edges, graph.num_nodes), edges, "deepwalk", 5, seed=seed)
        res = model.train(sub, cfg)
        return task, model.link_prediction_auc(res.w_in, res.w_out, split), res.steps, res.wall_seconds
    sub = model.build_subgraphs(graph.adjacency, graph.edges, "deepwalk", 5, seed=seed)
    res = model.train(sub, cfg)
    return task, model.struc_equ(graph.adjacency, res.w_in, seed=seed), res.steps, res.wall_seconds


def _adj(edges, n):
    import scipy.sparse as sp

    a = sp.coo_matrix((np.ones(edges.shape[1]), (edges[0], edges[1])), shape=(n, n))
    return (a + a.T).tocsr()


def main(argv=None) -> int:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from ldp_audit.files import write_atomic
    from ldp_audit.models import data

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--datasets", nargs="+", default=["chameleon", "power", "arxiv"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--lp-steps", type=int, default=2000)
    ap.add_argument("--lp-datasets", nargs="*", default=["power", "arxiv"])
    ap.add_argument("--out", default="benchmarks/seprivgemb_results.json")
    args = ap.parse_args(argv)
    tasks, sigmas = [], {}
    for name in args.datasets:
        m = data.load(name, with_features=False).num_edges if name == "chameleon" else data.load(name).num_edges
        for eps in EPS:
            sigmas[(name, eps)] = calibrated_sigma(128 / m, eps)
        for seed in range(args.seeds):
            tasks.append((name, "non-private", None, None, seed, "se", 0))
            tasks.append((name, "naive", 3.5, 5.0, seed, "se", 0))
            for eps in (0.5, 3.5):
                tasks.append((name, "paper", eps, 5.0, seed, "se", 0))
            for eps in EPS:
                if sigmas[(name, eps)] is not None:
                    tasks.append((name, "calibrated", eps, sigmas[(name, eps)], seed, "se", 0))
    for name in args.lp_datasets:
        for seed in range(args.seeds):
            tasks.append((name, "non-private", None, None, seed, "lp", args.lp_steps))
            tasks.append((name, "paper", 3.5, 5.0, seed, "lp", args.lp_steps))
    results: dict = {}
    start = time.perf_counter()
    with Progress() as bar, ProcessPoolExecutor(args.workers) as pool:
        job = bar.add_task("SE-PrivGEmb runs", total=len(tasks))
        for task, value, steps, wall in pool.map(one_run, tasks):
            key = (task[0], task[1], task[2], task[5])
            results.setdefault(key, []).append((value, steps, wall))
            bar.advance(job)
    total = time.perf_counter() - start
    console = Console(width=160)
    table = Table(title=f"SE-PrivGEmb_DW, mean +- sd over {args.seeds} seeds (paper: Tables II-VI)")
    for col in ("dataset", "metric", "mode", "eps", "sigma", "steps", "ours", "paper", "s / 100 steps"):
        table.add_column(col)
    rows = []
    for (name, mode, eps, kind), vals in sorted(results.items(), key=lambda kv: (kv[0][0], kv[0][3], kv[0][1],
                                                                                   kv[0][2] or 0)):
        v = np.array([x[0] for x in vals])
        steps = int(np.mean([x[1] for x in vals]))
        per100 = 100 * np.mean([x[2] for x in vals]) / max(steps, 1)
        sigma = 5.0 if mode in ("paper", "naive") else sigmas.get((name, eps)) if mode == "calibrated" else None
        ref = ""
        if kind == "se" and mode in ("paper", "calibrated") and eps in PAPER_DW.get(name, {}):
            ref = f"{PAPER_DW[name][eps]:.4f}"
        if kind == "se" and mode == "naive":
            ref = f"{paper.TABLE_VI[(PAPER_NAME[name], 3.5)][0][0]:.4f}"
        if kind == "se" and mode == "non-private":
            ref = f"~{paper.FIG3_DW[PAPER_NAME[name]][2]}"
        rows.append({"dataset": name, "metric": "StrucEqu" if kind == "se" else "AUC", "mode": mode, "eps": eps,
                     "sigma": sigma, "steps": steps, "mean": float(v.mean()), "sd": float(v.std()),
                     "values": v.tolist(), "paper": ref, "seconds_per_100_steps": per100})
        table.add_row(name, rows[-1]["metric"], mode, "" if eps is None else f"{eps:g}",
                      "" if sigma is None else f"{sigma:.3f}", str(steps), f"{v.mean():.4f} +- {v.std():.4f}", ref,
                      f"{per100:.2f}")
    console.print(table)
    console.print(f"total wall time {total:.0f} s with {args.workers} workers")
    write_atomic(args.out, json.dumps({"seeds": args.seeds, "rows": rows, "wall_seconds": total}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
