"""``ldp-audit account``: eps of subsampled-Gaussian DP-SGD from opacus, dp-accounting and scipy, side by side."""
from __future__ import annotations

import argparse
import math

from ._common import add_output_options, emit
from .options import check_memory, integer, real


#: The smallest delta accepted (dp-accounting's PLD gives eps = inf at delta = 1e-300, a false FAIL).
MIN_DELTA = 1e-12
#: The largest Renyi order accepted: the defaults stop at 1024, opacus's curve turns NaN above about 1000 (those
#: orders are left out) and the quadrature at an order of 1e6 runs for hours; 4096 answers in seconds.
MAX_ORDER = 4096


def _orders(text: str) -> list[float]:
    order = real(1.0, MAX_ORDER, low_open=True)
    if any(not part.strip() for part in text.split(",")) and text.strip():
        raise argparse.ArgumentTypeError(f"an order is missing between commas in {text!r}")
    values = [order(x) for x in text.replace(",", " ").split()]
    if not values:
        raise argparse.ArgumentTypeError(f"expected Renyi orders > 1 separated by commas, got {text!r}")
    return values


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "account", help="privacy accounting of subsampled Gaussian steps, three accountants side by side",
        description="eps after T steps of the subsampled Gaussian mechanism from opacus's RDP accountant, Google's "
                    "dp-accounting (RDP and PLD) and a scipy quadrature of the Renyi divergence; disagreement "
                    "beyond a relative 1e-6 is a FAIL (exit 1).")
    p.add_argument("--q", type=real(0.0, 1.0, low_open=True), required=True,
                   help="sampling rate in (0, 1] (B/|E| for fixed batches)")
    p.add_argument("--sigma", type=real(0.1, 1e6), required=True, help="noise multiplier in [0.1, 1e6]")
    p.add_argument("--steps", type=integer(1), required=True, help="number of steps T (>= 1)")
    p.add_argument("--delta", type=real(MIN_DELTA, 1.0, high_open=True), required=True,
                   help=f"target delta in [{MIN_DELTA:g}, 1): the PLD accountant truncates tails of mass 1e-15, so "
                        "below that it reports eps = inf and the three-way check would fail for no fault")
    p.add_argument("--sampling", choices=("poisson", "without-replacement"), default="poisson",
                   help="how batches are drawn (default %(default)s)")
    p.add_argument("--conversion", choices=("improved", "classic", "both"), default="both",
                   help="RDP -> (eps, delta) conversion: improved (opacus/dp-accounting) or classic (Mironov "
                        "Prop. 3) (default %(default)s)")
    p.add_argument("--orders", type=_orders, default=None,
                   help=f"Renyi orders in (1, {MAX_ORDER}], e.g. '2,4,8,16,32' (default: 1.1..63 and 128..1024 for "
                        "Poisson, 2..512 without replacement)")
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
            cells += [_eps_text(row["eps"][conv], row.get("resolution")), "" if order is None else f"{order:g}"]
        table.add_row(row["source"], row["method"], *cells, row["note"])
    return table


def _eps_text(eps: float, resolution: float | None) -> str:
    """eps to 10 significant digits, or to the decimals of its ``resolution`` (a PLD's loss grid: the digits past
    it differ from CPU to CPU, 6.768787377 on one and 6.768787374 on another)."""
    if resolution is None:
        return f"{eps:.10g}"
    return f"{eps:.{max(0, -math.floor(math.log10(resolution)))}f}"


def _check_pld_memory(args) -> None:
    """The PLD accountant's composition grows with --steps (and explodes at small --sigma): size it first."""
    from ..accounting import pld_memory
    from ..audits.privacy.accountants import PLD_MAX_STEPS, SIGMA_RANGE
    from .options import available_memory

    if args.sampling != "poisson" or args.steps > PLD_MAX_STEPS or not SIGMA_RANGE[0] <= args.sigma <= SIGMA_RANGE[1]:
        return
    need = pld_memory(args.q, args.sigma, args.steps)
    largest = max(1, int(args.steps * 0.75 * available_memory() / max(need, 1.0)))
    check_memory("--steps", need, f"dp-accounting's PLD composition of {args.steps:,} steps at q={args.q:g}, "
                 f"sigma={args.sigma:g}", largest=f"about {largest:,} (or a larger --sigma)")


def run(args, console) -> int:
    from ..audits.privacy.accountants import account_report, check_resolvable

    check_resolvable(args.q, args.sigma)  # first: a loss too small to resolve would make the PLD's size meaningless
    if args.sampling == "without-replacement" and args.q >= 1.0:
        raise ValueError("--q 1 with --sampling without-replacement: every step uses the whole data set, so there "
                         "is nothing to sample; give --q < 1 (or --sampling poisson)")
    _check_pld_memory(args)

    report = account_report(args.q, args.sigma, args.steps, args.delta, args.sampling, args.conversion, args.orders)
    if not (args.json or args.markdown):
        console.print(_table(report))
    return emit(report, args, console)
