"""The curve check (``privacy.curve.*``) against its goals: how close the certified numbers come to the truth, and
the CPU time they cost (time.process_time of this process, workers=1; draws included).

    python benchmarks/curves.py                  # Gaussian at 10^6 and 10^7 draws per input, Laplace at 10^6
    python benchmarks/curves.py --sizes 1e8      # add sizes (10^8: about ten times the 10^7 time)
    python benchmarks/curves.py --blackbox       # also privacy.blackbox (today's eps bound) at the same sizes

Goals (issue "Beyond pure eps", item 1): Gaussian eps = 1, delta = 1e-5: mu_lb >= 0.95 mu at 10^7 in <= 10 CPU-s;
the eps bound read from the curve >= 0.9 at 10^8; the whole hockey-stick curve of Laplace eps = 1 at 10^6 in
<= 5 CPU-s. The false-alarm rate is alpha = 2.5e-4 per family (verify's default 1e-3 shared by the four
families a Gaussian runs).
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
from rich.console import Console
from rich.table import Table

from ldp_audit.audits.privacy.black_box import blackbox_privacy
from ldp_audit.audits.privacy.curves import curve_privacy
from ldp_audit.mechanisms import make
from ldp_audit.mechanisms.gaussian import gdp_curve

ALPHA = 1e-3 / 4
SEED = 20240601


def laplace_curve(eps_prime: float, eps: float) -> float:
    """Hockey-stick divergence of Laplace(-1, 2/eps) vs Laplace(1, 2/eps): 1 - exp((eps' - eps) / 2) below eps."""
    return max(0.0, -math.expm1((eps_prime - eps) / 2.0))


def timed(fn):
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="*", type=float, default=[], help="extra Gaussian sample sizes")
    parser.add_argument("--blackbox", action="store_true", help="also time privacy.blackbox at each size")
    args = parser.parse_args()
    console = Console(width=170)
    gaussian = make("gaussian", eps=1.0)
    mu = gaussian.gdp_mu
    table = Table(title=f"Gaussian eps=1, delta=1e-5 (mu = {mu:.4f}): curve rows, alpha = {ALPHA:g}")
    for col in ("n per input", "mu_lb / mu", "ceiling / mu", "eps at 1e-5", "its ceiling", "worst: delta_lb / claim",
                "CPU-s", "blackbox eps", "CPU-s "):
        table.add_column(col, justify="right")
    for n in [1e6, 1e7] + list(args.sizes):
        rows, cpu = timed(lambda: {r.name: r for r in curve_privacy(gaussian, int(n), SEED, ALPHA)})
        mu_row, eps_row, worst = rows["privacy.curve.mu"], rows["privacy.curve.eps_at_delta"], rows["privacy.curve.worst"]
        box, box_cpu = ("", "")
        if args.blackbox:
            found, seconds = timed(lambda: blackbox_privacy(gaussian, int(n), SEED, ALPHA)[0])
            box, box_cpu = f"{found.statistic:.4f}", f"{seconds:.1f}"
        table.add_row(f"{int(n):,}", f"{mu_row.statistic / mu:.4f}", f"{mu_row.details['ceiling'] / mu:.4f}",
                      f"{eps_row.statistic:.4f}", f"{eps_row.details['ceiling']:.4f}",
                      f"{worst.details['tightness']:.4f} at eps'={worst.details['eps_prime']:.3g}", f"{cpu:.1f}",
                      box, box_cpu)
        console.print(f"  gaussian n={int(n):,}: done in {cpu:.1f} CPU-s")
    console.print(table)

    laplace = make("laplace", eps=1.0)
    rows, cpu = timed(lambda: {r.name: r for r in curve_privacy(laplace, 1_000_000, SEED, ALPHA)})
    curve = rows["privacy.curve.worst"].details["curve"]
    lap = Table(title=f"Laplace eps=1 at 10^6 draws per input: certified hockey-stick curve in {cpu:.1f} CPU-s")
    for col in ("eps'", "certified delta >=", "true delta", "certified / true", "bar ((1, 0)-DP)"):
        lap.add_column(col, justify="right")
    for eps_prime, certified, bar in curve:
        true = laplace_curve(eps_prime, 1.0)
        lap.add_row(f"{eps_prime:.2f}", f"{certified:.4g}", f"{true:.4g}",
                    f"{certified / true:.3f}" if true > 0 else "-", f"{bar:.4g}")
    console.print(lap)
    console.print(f"Laplace: eps bound at delta=0 {rows['privacy.curve.eps_at_delta'].statistic:.4f}; "
                  f"mu_lb {rows['privacy.curve.mu'].statistic:.4f} (informational)")
    gauss_check = [gdp_curve(e, mu) for e in np.linspace(0, 2, 3)]
    console.print(f"true Gaussian curve at eps' = 0, 1, 2: {', '.join(f'{v:.4g}' for v in gauss_check)}")


if __name__ == "__main__":
    main()
