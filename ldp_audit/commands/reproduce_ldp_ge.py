"""``ldp-audit reproduce ldp-ge [--quick|--full]``: LDP-GE's Table III, Fig. 2 and k sweep, paper vs measured.

--quick: Cora, link prediction at eps in {1, 5} with HDS and MB (and MB rescaled), node classification at
eps = 1, 3 runs, push propagation. --full: every Table III dataset whose features are in the datasets folder
(``--datasets`` restricts), 10 runs, the tables of ``--tables`` (default all): table3 (link AUC: LP, PM, MB,
HDS at eps 1, 2, 3, 5 and the non-private row), fig2 (node accuracy: the four mechanisms at eps 0.01 ... 5 and
non-private; ``--plot`` draws it with the paper's quoted points) and ksweep (HDS at eps = 1, k in
{1, 3, 5, 10, 20, 30, 50}, both tasks). --full propagates with "auto" (push or power iteration at push's error
bound, whichever is predicted cheaper; each result records which ran). Every run is one JSON under --results;
a rerun resumes, --max-runs stops after a chunk. ``--device cuda`` trains the MLPs on the GPU (propagation stays
on the CPU), ``--workers`` processes sharing it. ``--downstream logreg`` trains the paper's logistic regression
instead of the released MLP (its runs are stored beside, under their own keys). The runs go through the training
core's sweep (``sweep.run_sweep`` with ``sweep.TRAIN_BATCH``) on ``--engine local|processes|dask``.
"""
from __future__ import annotations

import time

from ._reproduce_common import dataset_panels, devices_used, panels_png, paper_datasets, run_or_plan


def _tables(args) -> tuple:
    from ..models.training.ldp_ge import TABLES

    return tuple(args.tables or TABLES)  # ids checked by reproduce.check_options


def plan(args):
    """(cells, runs, datasets without features, subject) of the mode and options in ``args``."""
    from ..models import data
    from ..models.training import ldp_ge

    if args.mode == "quick":
        if args.tables or args.datasets not in (None, ["cora"], ("cora",)):
            raise ValueError("--tables / --datasets: reproduce ldp-ge --quick is Cora's fixed grid; use --full")
        runs = args.runs or ldp_ge.QUICK_RUNS
        return (ldp_ge.quick_cells(runs, downstream=args.downstream), runs, (),
                {"paper": "ldp-ge", "tables": "Table III (Cora, HDS/MB, eps 1 and 5) + Fig. 2 point (eps 1)"})
    names, tables = paper_datasets(args, ldp_ge), _tables(args)
    missing = tuple(n for n in names if data.load(ldp_ge.TABLE3_DATASETS[n], args.data_dir, args.cache_dir,
                                                  with_features=False).missing_features is not None)
    runs = args.runs or ldp_ge.FULL_RUNS
    cells = ldp_ge.full_cells(tuple(n for n in names if n not in missing), runs, tables,
                              downstream=args.downstream)
    return cells, runs, missing, {"paper": "ldp-ge", "tables": " + ".join(tables)}


def run_ldp_ge(args, console, root) -> int:
    """Fill the cells (resuming from the results folder ``root``), then report paper vs measured (spec
    C21-C23); with --plan print the plan instead."""
    from ..audits.ldp_ge_reproduction import ldp_ge_report
    from ..models.training import RunStore, sweep
    from ..models.training.runtime import choose_device
    from ._common import emit

    device = choose_device(args.device)
    args.downstream = args.downstream or "mlp"
    cells, runs, missing, subject = plan(args)
    store = RunStore(root)
    configs = list(dict.fromkeys(c for cell in cells for c in cell.configs))
    started = time.perf_counter()
    results = run_or_plan(args, console, f"reproduce ldp-ge --{args.mode}", configs, store, device,
                          lambda config: (config.dataset, config.task), sweep.TRAIN_BATCH, sweep.TRAIN_BATCH_KEY)
    if results is None:
        return 0
    downstream = {} if args.downstream == "mlp" else {"downstream": f"{args.downstream} (the paper's logistic "
                                                                     "regression, not the released MLP)"}
    report = ldp_ge_report(
        f"ldp-ge reproduction ({args.mode})", cells, results, subject=subject, missing=missing,
        settings={"mode": args.mode, "runs": runs, **downstream, "device": devices_used(results.values(), device),
                  "results": str(store.root), "runs finished": f"{len(results)}/{len(configs)}",
                  "wall time (s)": round(time.perf_counter() - started, 1)})
    if args.plot:
        from ..files import write_atomic

        write_atomic(args.plot, figure2_plot(report))
    return emit(report, args, console)


def figure2_plot(report) -> bytes:
    """PNG: node-classification accuracy against eps per dataset, one line per mechanism (mean ± std; the
    non-private accuracy as a horizontal line), with the paper's quoted HDS points (C22)."""
    from ..papers import ldp_ge as paper

    rows = [r for r in report.results if r.details.get("task") == "node" and "measured_mean" in r.details
            and " k=" not in r.name]
    fig, panels = dataset_panels(list(dict.fromkeys(r.name.split(" ")[0] for r in rows)))
    for ax, name in panels:
        own = [r for r in rows if r.name.startswith(name + " ")]
        for mechanism, colour in (("LP", "tab:green"), ("PM", "tab:red"), ("MB", "tab:blue"), ("HDS", "tab:orange")):
            line = sorted((r for r in own if r.details["mechanism"] == mechanism and r.details["eps"] is not None
                           and "rescaled" not in r.name), key=lambda r: r.details["eps"])
            if line:
                ax.errorbar([r.details["eps"] for r in line], [r.details["measured_mean"] for r in line],
                            [r.details["measured_std"] for r in line], fmt="o-", capsize=3, color=colour,
                            label=mechanism)
        for r in own:
            if r.details["eps"] is None:
                ax.axhline(r.details["measured_mean"], color="grey", label="non-private")
        clear = next((r.details["measured_mean"] for r in own if r.details["eps"] is None), None)
        quoted = paper.FIG2_HDS_QUOTED.get(name)
        if quoted is not None:
            ax.plot([paper.FIG2_SMALL_EPS], [quoted], "k*", markersize=10, label="paper (quoted HDS)")
        gap = paper.FIG2_GAPS.get((name, None))
        if clear is not None and gap is not None and gap[1] == "gap":
            ax.plot([paper.FIG2_SMALL_EPS], [clear + gap[0]], "kx", markersize=9,
                    label="paper gap to non-private, applied to ours")
    return panels_png(fig, "test accuracy (%)")
