"""Training sweeps on the process pool against Dask (issue 24: Dask overhead over processes <= 10 % on the quick
grid).

Runs ``ldp-audit reproduce lpgnn --quick [ARGS]`` as a user runs it (a fresh process: imports, the pool or the
LocalCluster started and stopped included) into a fresh temporary results folder, once per engine and repeat,
alternating the engines so a change in the machine's load hits both alike. Prints the wall time and the CPU time
of the command and its workers (user + sys of the process tree, from ``os.wait4``), the two reports' tables must be
identical (results do not depend on the engine), and the overhead of Dask: (dask - processes) / processes.

Usage: python benchmarks/sweep_engines.py [--workers 2] [--repeat 1] [-- extra reproduce args, e.g. --datasets cora]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ENGINES = ("processes", "dask")


def timed_sweep(engine: str, workers: int, extra: list) -> tuple[float, float, list]:
    """(wall s, CPU s of the whole process tree, the report's rows) of one quick sweep into a fresh folder."""
    with tempfile.TemporaryDirectory(prefix="ldp-audit-sweep-") as folder:
        command = [sys.executable, "-m", "ldp_audit.cli", "reproduce", "lpgnn", "--quick", *extra, "--engine",
                   engine, "--workers", str(workers), "--results", folder, "--json"]
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        out = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status) not in (0, 1):  # 1: a cell out of tolerance, still a full report
            raise SystemExit(f"{' '.join(command)} exited {status}")
        rows = [(r["name"], r["statistic"]) for r in json.loads(out)["results"]]
        return wall, usage.ru_utime + usage.ru_stime, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("extra", nargs="*", help="more reproduce arguments (after --), e.g. --datasets cora")
    args = parser.parse_args()
    walls = {engine: [] for engine in ENGINES}
    tables = {}
    for repeat in range(args.repeat):
        for engine in (ENGINES if repeat % 2 == 0 else ENGINES[::-1]):
            wall, cpu, rows = timed_sweep(engine, args.workers, args.extra)
            walls[engine].append(wall)
            tables.setdefault(engine, rows)
            print(f"{engine}: wall {wall:.1f} s, CPU {cpu:.1f} s (process tree), {len(rows)} report rows",
                  flush=True)
    assert tables["processes"] == tables["dask"], "the engines' reports differ"
    best = {engine: min(values) for engine, values in walls.items()}
    print(f"best wall: processes {best['processes']:.1f} s, dask {best['dask']:.1f} s; dask overhead "
          f"{100 * (best['dask'] - best['processes']) / best['processes']:+.1f} %; reports identical")


if __name__ == "__main__":
    main()
