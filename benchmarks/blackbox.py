"""Black-box-only benchmark (issue 10): how tight the privacy search is from samples alone, next to its ceiling.

Every mechanism is handed in as a user would with nothing but ``sample(x, n, rng)``, its claimed eps and input
domain (no law), and audited with ``checks="privacy"`` at eps = 1 and 1e6 samples per input, confidence 0.999.
Two ceilings: "any mech." is the best lower bound this sample size and confidence could certify for ANY mechanism
exactly at its claim (randomized response's event, counts at their expectations), the row's ceiling when no law
is declared; "law" is the best this mechanism allows, exactly at its claim (its law's best event for the same
input pairs, n and per-event confidence; the row's ceiling when the law is declared). ``lower / eps`` is the
tightness. Goal: >= 0.95 eps for every pure-eps mechanism with k <= 5, and within 0.01 of the ceiling for the
scalar ones.

The first table measures memory: the peak resident set size of the process after one search at
``--memory-samples`` draws per input, run first so that nothing else has raised the peak (the search keeps a
bounded pilot and counts chunk by chunk, so memory does not grow with n).

Usage: python benchmarks/blackbox.py [--samples N] [--memory-samples N] [--workers W]
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from ldp_audit.audits.privacy.black_box import law_ceiling  # noqa: E402
from ldp_audit.audits.verify.orchestrator import AuditSettings, verify  # noqa: E402
from ldp_audit.external import adapted  # noqa: E402
from ldp_audit.mechanisms import make  # noqa: E402
from mutants import sampler_only  # noqa: E402  (tests/mutants.py: a built-in's sampler alone)
from user_mechanisms import unary_encoding  # noqa: E402  (tests/user_mechanisms.py: third-party style UE)

EPS = 1.0


def cases():
    """(label, sampler-only mechanism, the built-in whose law gives the law ceiling, or None)."""
    yield "unary encoding (OUE), k=2", unary_encoding(EPS, 2, declare_law=False), None
    yield "unary encoding (OUE), k=25", unary_encoding(EPS, 25, declare_law=False), None
    builtins = [(f"GRR, c={c}", make("grr", eps=EPS, c=c)) for c in (2, 25, 200)]
    builtins += [("Laplace", make("laplace", eps=EPS)), ("Piecewise", make("piecewise", eps=EPS))]
    builtins += [(f"HDS, d=10, k={k}", make("hds", eps=EPS, d=10, k=k)) for k in (1, 2, 5, 10)]
    for label, m in builtins:
        yield label, sampler_only(m), m


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--memory-samples", type=int, default=100_000_000)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    console = Console(width=180)
    settings = AuditSettings(samples=args.samples, seed=11, alpha=1e-3, workers=args.workers)

    n = args.memory_samples
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    report = verify(adapted(sampler_only(make("laplace", eps=EPS))), AuditSettings(samples=n, seed=12,
                                                                                    workers=args.workers),
                    checks="privacy")
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    row = next(r for r in report.results if r.name == "privacy.blackbox")
    table = Table(title="memory of one black-box search (Laplace, 3 inputs, sampler only)")
    for column in ("samples/input", "eps_lower", "peak RSS MiB (whole process)", "RSS before MiB", "wall s"):
        table.add_column(column)
    table.add_row(f"{n:,}", f"{row.statistic:.4f}", f"{peak:.0f}", f"{before / 1024.0:.0f}", f"{wall:.0f}")
    console.print(table)

    table = Table(title=f"black-box search only (no law), eps = {EPS:g}, {args.samples:,} samples per input, "
                        f"confidence 0.999")
    for column in ("mechanism", "eps_lower", "ceiling (any mech.)", "ceiling (law)", "lower / eps",
                   "ceiling - lower", "family", "wall s", ">= 0.95 eps", "<= 0.01 below ceiling"):
        table.add_column(column)
    for label, mech, builtin in cases():
        start = time.perf_counter()
        report = verify(adapted(mech), settings, checks="privacy")
        wall = time.perf_counter() - start
        row = next(r for r in report.results if r.name == "privacy.blackbox")
        lower, top = row.statistic, row.details["ceiling"]
        if builtin is not None:
            top = min(top, law_ceiling(builtin, row.details["final_draws"], row.details["alpha_each"]))
        k = int(label.rsplit("k=", 1)[1]) if "HDS" in label else 1
        high = "" if k > 5 else ("yes" if lower >= 0.95 * EPS else "no")
        table.add_row(label, f"{lower:.4f}", f"{row.details['ceiling']:.4f}", f"{top:.4f}" if builtin else "",
                      f"{lower / EPS:.3f}", f"{top - lower:+.4f}", row.details["family"], f"{wall:.1f}", high,
                      "yes" if top - lower <= 0.01 else "no")
    console.print(table)

if __name__ == "__main__":
    main()
