"""Float check benchmark (``--checks float``): the certified eps lower bound and the CPU time of ``float.bits``.

1. Textbook samplers on doubles (``x + Laplace(1/eps)``, ``x + N(0, sigma^2)`` on [0, 1], eps = 1) and samplers on a
   lattice that does not depend on x (the noisy value rounded to multiples of 2^-20; exact discrete Laplace) at
   1e5 and 1e6 draws per input, alpha = 1e-3: verdict, certified eps lower bound, CPU seconds (this process, the
   local engine).
2. False alarms: the lattice samplers over many seeds at a large alpha, where the Bonferroni bound says at most
   alpha of the runs may fail.

Usage: python benchmarks/float_check.py [--seeds 100] [--alpha 0.05]
"""
from __future__ import annotations

import argparse
import time

from rich.console import Console
from rich.table import Table

from ldp_audit.audits.privacy.float_bits import float_bits_privacy
from ldp_audit.external import as_mechanism
from ldp_audit.testing.float_samplers import (DELTA, EPS, discrete_laplace, snapped_laplace,
                                              textbook_gaussian, textbook_laplace)

CASES = {
    "textbook Laplace": (textbook_laplace, (0.0, 1.0), 0.0),
    "textbook Gaussian": (textbook_gaussian, (0.0, 1.0), DELTA),
    "Laplace snapped to 2^-20": (snapped_laplace, (0.0, 1.0), 0.0),
    "discrete Laplace on {0, 1}": (discrete_laplace, [0, 1], 0.0),
}


def _mechanism(name):
    sample, domain, delta = CASES[name]
    return as_mechanism({"name": name, "sample": sample, "eps": EPS, "delta": delta, "domain": domain})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--alpha", type=float, default=0.05)
    args = parser.parse_args()
    console = Console()

    table = Table(title=f"float.bits at eps = {EPS:g}, alpha = 1e-3 (one process)")
    for column in ("sampler", "draws/input", "verdict", "eps_lower", "CPU s", "witness"):
        table.add_column(column)
    for name in CASES:
        for n in (100_000, 1_000_000):
            start = time.process_time()
            row = float_bits_privacy(_mechanism(name), n, seed=20240601, alpha=1e-3)[0]
            cpu = time.process_time() - start
            table.add_row(name, f"{n:,}", row.status.value.upper(), f"{row.statistic:.3f}", f"{cpu:.2f}",
                          row.details["event"] + f" {row.details['counts']} of {row.details['in_range']}")
    console.print(table)

    table = Table(title=f"false alarms: {args.seeds} seeds at alpha = {args.alpha:g}, 1e5 draws per input")
    for column in ("sampler", "FAIL", "runs", "Bonferroni bound (expected at most)", "largest eps_lower"):
        table.add_column(column)
    for name in ("Laplace snapped to 2^-20", "discrete Laplace on {0, 1}"):
        rows = [float_bits_privacy(_mechanism(name), 100_000, seed=s, alpha=args.alpha)[0] for s in range(args.seeds)]
        fails = sum(r.status.value == "fail" for r in rows)
        table.add_row(name, str(fails), str(args.seeds), f"{args.alpha * args.seeds:.1f}",
                      f"{max(r.statistic for r in rows):.3f}")
    console.print(table)


if __name__ == "__main__":
    main()
