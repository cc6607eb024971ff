"""Scale-out benchmark (issue 17): the privacy-only audit's certified bound and wall time against the number of
samples, on each engine.

Two mechanisms with ``checks="privacy"`` at confidence 0.9: Laplace at eps = 0.1 and HDS at eps = 1 with k = 10
of d = 20. For every sample size: the certified lower bound (the same on every engine, which is checked: the
report's numbers must be identical) and the wall time on ``local`` (1 worker), ``processes`` with 1 and
``--workers`` workers (speed-up = time at 1 / time at W) and ``dask`` with W single-threaded workers on a
LocalCluster started for the run (its start-up is timed apart). The per-task overhead of Dask over the process
pool is (dask time - processes time) / tasks.

Then the goal lines of issue 17: the command ``ldp-audit verify laplace --eps 0.1 --checks privacy --samples 2e8
--confidence 0.9`` run as a user runs it (a fresh process: imports, pool or cluster start-up included) on
``--engine processes`` and ``--engine dask`` with W workers: wall time, certified bound (goal: >= 0.0996 in
< 20 s on an idle 2-core machine) and the overhead of Dask over the process pool (goal: <= 10 %).

Usage: python benchmarks/scale.py [--samples 1e7,1e8] [--workers 2] [--goal-samples 2e8] [--only-goal]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from rich.console import Console
from rich.table import Table

from ldp_audit.audits.kernel.engines import DaskEngine, LocalEngine, ProcessEngine
from ldp_audit.audits.kernel.sampling import using
from ldp_audit.audits.verify.orchestrator import AuditSettings, verify
from ldp_audit.mechanisms import make

CONFIDENCE = 0.9
SUBJECTS = {"laplace eps=0.1": lambda: make("laplace", eps=0.1),
            "hds eps=1 k=10 d=20": lambda: make("hds", eps=1.0, k=10, d=20)}


def _counted(engine):
    """Count the tasks an engine runs (for the per-task overhead)."""
    submit, engine.tasks = engine.submit, 0

    def counting(fn, *args):
        engine.tasks += 1
        return submit(fn, *args)

    engine.submit = counting
    return engine


def _audit(mechanism, samples: int, engine):
    """(bound, seconds, tasks, rows) of one privacy-only verify on ``engine``."""
    _counted(engine)
    start = time.perf_counter()
    with using(engine):
        report = verify(mechanism, AuditSettings(samples, alpha=round(1 - CONFIDENCE, 12)), checks="privacy")
    seconds = time.perf_counter() - start
    row = next(r for r in report.results if r.name == "privacy.blackbox")
    return row.statistic, seconds, engine.tasks, [r.to_dict() for r in report.results]


GOAL_BOUND = 0.0996


def _goal_run(engine: str, samples: int, workers: int) -> tuple[float, float]:
    """(wall seconds, certified bound) of the goal command in a fresh process on ``engine``."""
    command = [sys.executable, "-m", "ldp_audit.cli", "verify", "laplace", "--eps", "0.1", "--checks", "privacy",
               "--samples", str(samples), "--confidence", str(CONFIDENCE), "--engine", engine,
               "--workers", str(workers), "--json"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=os.environ)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-2000:]}")
    row = next(r for r in json.loads(done.stdout)["results"] if r["name"] == "privacy.blackbox")
    return seconds, row["statistic"]


def goal_table(samples: int, workers: int) -> Table:
    table = Table(title=f"goal: verify laplace --eps 0.1 --checks privacy --samples {samples:.0e} --confidence "
                        f"{CONFIDENCE} (fresh process, {workers} workers, start-up included; load before: "
                        f"{os.getloadavg()[0]:.2f})")
    for column in ("engine", "wall s", "eps_lower", f">= {GOAL_BOUND}", "vs processes"):
        table.add_column(column, justify="right")
    runs = {engine: _goal_run(engine, samples, workers) for engine in ("processes", "dask")}
    base = runs["processes"][0]
    for engine, (seconds, bound) in runs.items():
        table.add_row(engine, f"{seconds:.1f}", f"{bound:.5f}", "yes" if bound >= GOAL_BOUND else "NO",
                      f"{100.0 * (seconds / base - 1.0):+.1f} %")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", default="1e7,1e8", help="comma-separated draws per input (default %(default)s)")
    parser.add_argument("--workers", type=int, default=2, help="workers of the parallel engines (default 2)")
    parser.add_argument("--goal-samples", type=float, default=2e8, help="samples of the goal lines (default 2e8)")
    parser.add_argument("--only-goal", action="store_true", help="print the goal lines only")
    args = parser.parse_args()
    sizes = [int(float(s)) for s in args.samples.split(",")]
    w = args.workers
    console = Console()
    if not args.only_goal:
        console.print(scale_table(sizes, w, console))
    console.print(goal_table(int(args.goal_samples), w))


def scale_table(sizes: list[int], w: int, console) -> Table:
    """Bound and time by engine for every subject and sample size (the numbers checked equal on every engine)."""
    start = time.perf_counter()
    dask = DaskEngine(workers=w)
    dask_start = time.perf_counter() - start
    table = Table(title=f"privacy-only verify, confidence {CONFIDENCE}: bound and wall time by engine "
                        f"(this machine, {w} workers)")
    for column in ("mechanism", "samples", "eps_lower", "lower/eps", "local s", "proc 1 s", f"proc {w} s",
                   "speed-up", f"dask {w} s", "tasks", "dask-proc ms/task"):
        table.add_column(column, justify="right")
    try:
        for label, build in SUBJECTS.items():
            mechanism = build()
            for n in sizes:
                bound, t_local, _, rows = _audit(mechanism, n, LocalEngine())
                timings = {}
                for name, engine in (("proc1", ProcessEngine(1)), ("procw", ProcessEngine(w))):
                    with engine:
                        b, timings[name], tasks, other = _audit(mechanism, n, engine)
                    assert other == rows, f"{name} changed the numbers"
                b, t_dask, dask_tasks, other = _audit(mechanism, n, dask)
                assert other == rows, "dask changed the numbers"
                table.add_row(label, f"{n:.0e}", f"{bound:.5f}", f"{bound / mechanism.eps:.4f}", f"{t_local:.1f}",
                              f"{timings['proc1']:.1f}", f"{timings['procw']:.1f}",
                              f"{timings['proc1'] / timings['procw']:.2f}", f"{t_dask:.1f}", str(dask_tasks),
                              f"{1e3 * (t_dask - timings['procw']) / dask_tasks:.1f}")
                console.print(f"done {label} n={n:.0e}", style="dim")
    finally:
        dask.close()
    table.caption = f"Dask LocalCluster start-up ({w} workers): {dask_start:.1f} s (once per run, not in the times)"
    return table


if __name__ == "__main__":
    main()
