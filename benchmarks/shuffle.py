"""Shuffle-model benchmark: what ``verify`` certifies for shuffled randomized response against the accountants.

Setting (the issue's): n = 10,000 users, local eps0 = 4, delta = 1e-6, two categories. The claim audited is the
FMT 2021 numeric bound (what a deployment would state); the exact-pair divergence is the truth for the audited
dataset pair and so the most any audit of that pair can certify.

1. The accountants: FMT 2021 closed form (where its range allows), FMT 2021 numeric, exact pair.
2. ``verify --checks privacy`` of ``shuffle_rr`` (the count view, exact law) and ``shuffle_grr --c 2`` (the
   histogram, declared likelihood) at each sample size: the certified lower bound, its ratio to the exact pair's
   eps, the ceiling the row reports, wall time.
3. Why there is a gap: the expected bound of the best likelihood-ratio cut of the exact law at N draws per input
   (counts at their expectations, the level verify gives a planned event), for N up to 1e10.

Usage: python benchmarks/shuffle.py [--samples 1e6,1e7] [--large]   (--large adds 1e8 draws per input)
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
from rich.console import Console
from rich.table import Table

from ldp_audit.accounting.shuffle import amplified_eps, fmt21_closed_form_range
from ldp_audit.audits.kernel.stats import expected_ratio_lower_bound
from ldp_audit.audits.verify.orchestrator import DEFAULT_ALPHA, AuditSettings, verify
from ldp_audit.mechanisms import make

N_USERS, EPS0, DELTA = 10_000, 4.0, 1e-6


def accountants() -> dict[str, float | None]:
    closed = (amplified_eps(EPS0, N_USERS, DELTA, "fmt21-closed-form")
              if EPS0 <= fmt21_closed_form_range(N_USERS, DELTA) else None)
    return {"fmt21-closed-form": closed, "fmt21-numeric": amplified_eps(EPS0, N_USERS, DELTA, "fmt21-numeric"),
            "exact-pair": amplified_eps(EPS0, N_USERS, DELTA, "exact-pair")}


def audit(name: str, params: dict, claim: float, samples: int) -> tuple[float, float, float]:
    mechanism = make(name, eps=claim, delta=DELTA, n=N_USERS, eps0=EPS0, **params)
    start = time.perf_counter()
    report = verify(mechanism, AuditSettings(samples=samples), checks="privacy")
    row = next(r for r in report.results if r.name == "privacy.blackbox")
    return float(row.statistic), float(row.details["ceiling"]), time.perf_counter() - start


def best_cut_bound(draws: int, alpha: float) -> float:
    """The best expected lower bound over likelihood-ratio cuts of the exact count law, both orders of the pair."""
    m = make("shuffle_rr", eps=1.0, delta=DELTA, n=N_USERS, eps0=EPS0)
    best = -math.inf
    for x1, x0 in ((1.0, 0.0), (0.0, 1.0)):
        p1, p0 = m.law(x1).atoms[1], m.law(x0).atoms[1]
        with np.errstate(divide="ignore", invalid="ignore"):
            order = np.argsort(-(p1 / p0))
        bounds = expected_ratio_lower_bound(np.cumsum(p1[order]), np.cumsum(p0[order]), draws, alpha, DELTA)
        best = max(best, float(np.nanmax(bounds)))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", default="1e6,1e7", help="comma-separated draws per input")
    parser.add_argument("--large", action="store_true", help="add 1e8 draws per input")
    args = parser.parse_args()
    sizes = [int(float(s)) for s in args.samples.split(",")] + ([10 ** 8] if args.large else [])
    console = Console(width=130)

    bounds = accountants()
    table = Table(title=f"amplified eps at delta={DELTA:g}: n={N_USERS:,}, eps0={EPS0:g}, c=2")
    for column in ("accountant", "eps", "note"):
        table.add_column(column)
    notes = {"fmt21-closed-form": f"needs eps0 <= {fmt21_closed_form_range(N_USERS, DELTA):.3f}",
             "fmt21-numeric": "generic upper bound (the claim audited below)",
             "exact-pair": "exact for the audited pair: the most an audit of it can certify"}
    for name, value in bounds.items():
        table.add_row(name, "n/a" if value is None else f"{value:.4f}", notes[name])
    console.print(table)

    claim, exact = bounds["fmt21-numeric"], bounds["exact-pair"]
    table = Table(title=f"verify --checks privacy at the claim eps={claim:.4f}, delta={DELTA:g}")
    for column in ("mechanism", "draws/input", "eps_lower", "/ exact pair", "/ claim", "row ceiling", "wall s"):
        table.add_column(column)
    for name, params, label in (("shuffle_rr", {}, "shuffle_rr (count, law)"),
                                ("shuffle_grr", {"c": 2}, "shuffle_grr c=2 (histogram)")):
        for samples in sizes:
            lower, ceiling, wall = audit(name, params, claim, samples)
            table.add_row(label, f"{samples:.0e}", f"{lower:.4f}", f"{lower / exact:.3f}", f"{lower / claim:.3f}",
                          f"{ceiling:.4f}", f"{wall:.1f}")
    console.print(table)

    table = Table(title="expected bound of the exact law's best likelihood-ratio cut (no search, one planned event)")
    for column in ("draws/input", "eps_lower", "/ exact pair"):
        table.add_column(column)
    for draws in (10 ** 6, 10 ** 7, 10 ** 8, 10 ** 9, 10 ** 10):
        value = best_cut_bound(draws, DEFAULT_ALPHA / 4)
        table.add_row(f"{draws:.0e}", f"{value:.4f}", f"{value / exact:.3f}")
    console.print(table)


if __name__ == "__main__":
    main()
