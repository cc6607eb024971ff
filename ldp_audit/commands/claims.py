"""``ldp-audit claims PAPER``: every checkable claim of a paper, checked as printed.

Errata show as FAIL with their evidence; claims that hold show as PASS. The exit code is 1 when any claim
fails, as for ``verify`` -- for a paper with errata that is the expected outcome.
"""
from __future__ import annotations

import argparse

from ._common import add_output_options, emit, spinner
from ..audits.claims import ClaimSettings, papers, run_claims


def register(sub) -> None:
    p = sub.add_parser("claims", help="check every claim of a paper (errata show as FAIL)", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paper", choices=papers(), help="which paper")
    p.add_argument("--samples", type=int, default=ClaimSettings.samples, help="Monte Carlo draws per input")
    p.add_argument("--seed", type=int, default=ClaimSettings.seed)
    p.add_argument("--confidence", type=float, default=1.0 - ClaimSettings.alpha)
    add_output_options(p)
    p.set_defaults(func=run)


def run(args, console) -> int:
    settings = ClaimSettings(args.samples, args.seed, round(1.0 - args.confidence, 12))
    with spinner(console, f"checking the claims of {args.paper}", enabled=not (args.json or args.markdown)):
        report = run_claims(args.paper, settings)
    return emit(report, args, console)
