"""ldp-audit compare: empirical against theoretical variance for several
mechanisms side by side.

--sweep reproduces ldp-ge Figure 1 (claim C10): the worst-case one-dimensional
variance over eps for LP, PM, MB and four readings of the Square Wave curve,
with the budgets where the curves cross.
"""
from __future__ import annotations

import argparse

import numpy as np

from ..audits.verify.compare import figure1_curves, figure1_report, variance_report
from ..files import write_atomic
from ..mechanisms import make
from ._common import add_output_options, emit
from .options import check_memory, confidence, eps_budget, integer, real, seed

_DEFAULT = "laplace_hd,piecewise_hd,multibit,hds"
#: Defaults of the options that --sweep does not use (its grid, mechanisms and inputs are Figure 1's).
_NOT_IN_SWEEP = {"eps": 1.0, "d": 8, "k": None, "mechanisms": _DEFAULT, "inputs": "", "samples": 200_000,
                 "seed": 20240601, "confidence": 0.999}


def register(sub) -> None:
    p = sub.add_parser("compare", help="empirical vs theoretical variance of several mechanisms; ldp-ge Figure 1",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--eps", type=eps_budget, default=_NOT_IN_SWEEP["eps"], help="privacy budget > 0 (default %(default)s)")
    p.add_argument("--d", type=integer(1, 10 ** 6), default=_NOT_IN_SWEEP["d"],
                   help="dimension of high-dimensional mechanisms (default %(default)s)")
    p.add_argument("--k", default=None, help="sampled coordinates: an integer in [1, d] or lpgnn/ppgnn/optimal "
                                             "(default: each mechanism's own)")
    p.add_argument("--mechanisms", default=_NOT_IN_SWEEP["mechanisms"], help="comma-separated names (default %(default)s)")
    p.add_argument("--inputs", default="", help="comma-separated inputs to compare at, besides the worst case "
                                                "(default: none)")
    p.add_argument("--samples", type=integer(100), default=_NOT_IN_SWEEP["samples"], help="draws per input (default %(default)s)")
    p.add_argument("--seed", type=seed, default=_NOT_IN_SWEEP["seed"], help="seed of all sampling (default %(default)s)")
    p.add_argument("--confidence", type=confidence, default=_NOT_IN_SWEEP["confidence"],
                   help="level of the variance intervals, in (0, 1 - 1e-12] (default %(default)s)")
    p.add_argument("--sweep", action="store_true", help="ldp-ge Figure 1: curves over eps in [0.5, 8]")
    p.add_argument("--plot", metavar="FILE.png", help="write a PNG plot")
    add_output_options(p)
    p.set_defaults(func=run)


def _build(name, args):
    from ..mechanisms.registry import available

    info = next((i for i in available() if i.name == name), None)
    params = {"eps": args.eps}
    if info is not None and info.high_dimensional:
        params["d"] = args.d
        if args.k is not None and any(p.name == "k" for p in info.params):
            params["k"] = int(args.k) if str(args.k).isdigit() else args.k
    return make(name, **params)


def run(args, console) -> int:
    if args.sweep:
        ignored = [f"--{name}" for name, default in _NOT_IN_SWEEP.items() if getattr(args, name) != default]
        if ignored:
            raise ValueError(f"--sweep draws Figure 1's fixed curves (eps 0.5..8, exact variances); it does not use "
                             f"{', '.join(ignored)}")
        return _sweep(args, console)
    names = [name.strip() for name in args.mechanisms.split(",") if name.strip()]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"--mechanisms names {', '.join(twice)} more than once; each mechanism is compared once")
    mechanisms = [_build(name, args) for name in names]
    if args.d != _NOT_IN_SWEEP["d"] and not any(getattr(m, "d", 1) > 1 for m in mechanisms):
        raise ValueError(f"--d {args.d} applies to none of --mechanisms {','.join(names)} (none is "
                         "high-dimensional)")
    if args.k is not None and not any("k" in m.params() for m in mechanisms):
        raise ValueError(f"--k {args.k} applies to none of --mechanisms {','.join(names)} (none samples coordinates)")
    if not mechanisms:
        raise ValueError(f"--mechanisms must name at least one mechanism, got {args.mechanisms!r}")
    finite = real()
    try:
        inputs = [finite(v) for v in args.inputs.split(",") if v.strip()]
    except argparse.ArgumentTypeError:
        raise ValueError(f"--inputs must be comma-separated finite numbers, got {args.inputs!r}") from None
    for mechanism in mechanisms:
        low, high = mechanism.domain
        outside = [x for x in inputs if not low <= x <= high
                   or (getattr(mechanism, "discrete_input", False) and x != int(x))]
        if outside:
            kind = "integers in" if getattr(mechanism, "discrete_input", False) else "the interval"
            raise ValueError(f"--inputs {outside[0]:g} lies outside the domain of {mechanism.name}: {kind} "
                             f"[{low:g}, {high:g}]")
    # one chunk of reports (dense, CHUNK draws x d) per mechanism is held at a time
    check_memory("--d", 8.0 * 3 * min(args.samples, 1 << 17) * max(getattr(m, "d", 1) for m in mechanisms),
                 f"chunks of {min(args.samples, 1 << 17)} reports of dimension {args.d}")
    report = variance_report(mechanisms, inputs, args.samples, args.seed, 1.0 - args.confidence)
    code = emit(report, args, console)
    if args.plot:
        _plot_bars(report, args.plot)
    return code


def _sweep(args, console) -> int:
    report = figure1_report(np.round(np.arange(0.5, 8.01, 0.5), 2))
    if not (args.json or args.markdown):
        from rich.table import Table

        curves = report.subject["curves"]
        table = Table(title="ldp-ge Figure 1: worst-case 1-D variance")
        table.add_column("eps")
        for name in curves:
            table.add_column(name)
        for i, eps in enumerate(report.subject["eps"]):
            table.add_row(f"{eps:g}", *(f"{curves[name][i]:.4f}" for name in curves))
        console.print(table)
    code = emit(report, args, console)
    if args.plot:
        _plot_sweep(args.plot)
    return code


def _plot_sweep(path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grid = np.linspace(0.1, 8.0, 200)
    curves = figure1_curves(grid)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, values in curves.items():
        ax.plot(grid, values, label=name, linestyle="--" if name.startswith("SW") and name != "SW raw" else "-")
    ax.set_yscale("log")
    ax.set_xlabel("eps")
    ax.set_ylabel("worst-case variance")
    ax.set_title("ldp-ge Figure 1 with four readings of the Square Wave curve")
    ax.legend(fontsize=8)
    _save(fig, path)


def _plot_bars(report, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = report.results
    fig, ax = plt.subplots(figsize=(7, 4))
    labels = [r.name.removeprefix("variance.").replace("@", "\n") for r in rows]
    ax.bar(np.arange(len(rows)) - 0.2, [r.threshold for r in rows], 0.4, label="theory")
    ax.bar(np.arange(len(rows)) + 0.2, [r.statistic for r in rows], 0.4, label="empirical",
           yerr=[[r.statistic - r.interval[0] for r in rows], [r.interval[1] - r.statistic for r in rows]])
    ax.set_xticks(np.arange(len(rows)), labels, fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("variance of the estimate")
    ax.legend()
    _save(fig, path)


def _save(fig, path):
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=120, bbox_inches="tight")
    write_atomic(path, buffer.getvalue())
