"""``ldp-audit account``: eps of subsampled-Gaussian DP-SGD from opacus, dp-accounting and scipy, side by side."""
from __future__ import annotations

import argparse

from ._common import add_output_options, emit


def _orders(text: str) -> list[float]:
    try:
        return [float(x) for x in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"orders must be numbers separated by commas, got {text!r}") from None


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "account", help="privacy accounting of subsampled Gaussian steps, three accountants side by side",
        description="eps after T steps of the subsampled Gaussian mechanism from opacus's RDP accountant, Google's "
                    "dp-accounting (RDP and PLD) and a scipy quadrature of the Renyi divergence; disagreement "
                    "beyond a relative 1e-6 is a FAIL (exit 1).")
    p.add_argument("--q", type=float, required=True, help="sampling rate in (0, 1] (B/|E| for fixed batches)")
    p.add_argument("--sigma", type=float, required=True, help="noise multiplier (> 0)")
    p.add_argument("--steps", type=int, required=True, help="number of steps T (>= 1)")
    p.add_argument("--delta", type=float, required=True, help="target delta in (0, 1)")
    p.add_argument("--sampling", choices=("poisson", "without-replacement"), default="poisson")
    p.add_argument("--conversion", choices=("improved", "classic", "both"), default="both",
                   help="RDP -> (eps, delta) conversion: improved (opacus/dp-accounting) or classic (Mironov Prop. 3)")
    p.add_argument("--orders", type=_orders, default=None,
                   help="Renyi orders, e.g. '2,4,8,16,32' (default: opacus's grid for Poisson, 2..512 otherwise)")
    add_output_options(p)
    p.set_defaults(func=run)


def _table(report):
    from rich.table import Table

    subject = report.subject
    table = Table(title=f"eps after T={subject['steps']} steps: q={subject['q']:.6g}, sigma={subject['sigma']:g}, "
                        f"delta={subject['delta']:g}, sampling={subject['sampling']}")
    table.add_column("accountant")
    table.add_column("method")
    for conv in subject["conversions"]:
        table.add_column(f"eps ({conv})", justify="right")
        table.add_column("order", justify="right")
    table.add_column("note")
    for row in subject["accountants"]:
        cells = []
        for conv in subject["conversions"]:
            order = row["order"][conv]
            cells += [f"{row['eps'][conv]:.10g}", "" if order is None else f"{order:g}"]
        table.add_row(row["source"], row["method"], *cells, row["note"])
    return table


def run(args, console) -> int:
    from ..audits.accounting import account_report

    report = account_report(args.q, args.sigma, args.steps, args.delta, args.sampling, args.conversion, args.orders)
    if not (args.json or args.markdown):
        console.print(_table(report))
    return emit(report, args, console)
