"""ldp-audit reproduce lpgnn|ppgnn|ldp-ge|se-privgemb [--quick|--full]: fill a
paper's tables and figures cell by cell, then compare with the printed numbers.

Every run is one JSON under --results (default: PAPER-MODE in
$XDG_DATA_HOME/ldp-audit, else ~/.local/share/ldp-audit). A rerun skips
finished runs, and --max-runs stops after a chunk. --plan prints the runs,
tasks and an estimate of CPU-hours and wall time (from a short probe) and
trains nothing. The runs go to --engine (local, processes or dask), one task
per batch of runs; the first Ctrl-C finishes the runs in progress and saves
them, a second abandons them. LPGNN cells take K on validation (lpgnn E14);
the K the paper would have taken on test is shown beside it. The report prints
paper vs measured per cell with gap, tolerance (spec 7.4) and PASS/FAIL; the
exit code is 1 when a cell is out of tolerance. --protocol (ppgnn Table III,
lpgnn Table 3, ldp-ge Table III and Fig. 2) adds the authors' released
protocol beside the spec's and, with both, attributes the gap element by
element (issue 26); for se-privgemb it scores StrucEqu as the released code
does (no attribution: the training is the same). --plot FILE.png draws the
targets asked for: one row of panels per table or figure, one panel per
dataset, the paper's numbers beside the measured ones.

lpgnn figures (--tables fig5 fig6 fig7; the seed prints them without numbers):
fig5 is the MAE of MBM, AGM and 1BM against eps (Fig. 5; no training), fig6
accuracy against K for LPGNN and GCN+Raw with KProp, and with / without self-
loops (Fig. 6, both rows), fig7 accuracy against the label rate (Fig. 7). Each
point is an INFO row; the text's claims are rows with verdicts (paired
bootstrap CIs; the quoted gains within max(1, 3 s_d sqrt(2/R))). --quick:
Cora, 5 runs per point, reduced grids; --full: Cora, Pubmed, Facebook, LastFM,
the paper's grids.

ppgnn: Table III's cells (K chosen on validation per cell), then per dataset
and eps C17 (PPM > MB: percentile bootstrap CI of the paired mean difference)
and E16 (PPM's mean feature budget against MB's), and the C19 trends: accuracy
rises then falls with K (Fig. 6, PPM cells) and rises with eps (per mechanism),
by paired bootstrap CIs. --quick: Cora, 3 runs, eps in {0.01, 1}, K in {2, 8},
MB and PPM, GCN (C17 and C19 then say INCONCLUSIVE: too few runs / K values).
--full: the six datasets (LastFM and Wikipedia lack features: not runnable),
eps in {0.01, 0.1, 1}, K in {0, 2, 4, 8, 16}, 10 runs, all five mechanisms 1B,
LP, GM (corrected sigma, delta 1e-5), MB and PPM; --mechanisms picks columns.

ldp-ge: Table III (link AUC), Fig. 2 (node accuracy) and the k sweep
(--tables table3 fig2 ksweep), with C21-C23 as rows. --quick: Cora link at
eps in {1, 5} with HDS, MB and MB rescaled, node at eps = 1 with HDS and MB,
3 runs.

se-privgemb: Tables II-VI and Figs. 3-4 with C17-C18 as rows. --quick: Power,
3 runs, Table VI and Figs. 3-4 (reduced cells say so); --full: the paper's
grid on the datasets we ship, 10 runs.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from ...audits.reproduction.ppgnn import c19_rows, ppgnn_paper_value, ppgnn_rows
from ...audits.reproduction.protocol_gap import ATTRIBUTED_CELLS
from ...models.training.lpgnn import MAX_SPLITS
from ...models.training.ppgnn_figures import FIGURES as PPGNN_FIGURES
from ...papers import se_privgemb as se_privgemb_paper
from .._common import add_output_options, add_sweep_options, emit
from .common import (PROTOCOL_TABLES, PROTOCOLS_OF_OPTION, add_plan_option, dataset_panels, devices_used, panels_png,
                     planned_runs, run_or_plan, software_used)
from .common import paper_datasets as _datasets
from . import lpgnn as lpgnn_figures
from ..options import (DATA_HOME_HELP, add_data_options, add_device_option, check_paths, folder, integer,
                       user_data_folder)
from ...mechanisms.validation import MAX_RUNS

#: The table ids of each paper's target (``--tables``).
TABLES = {"lpgnn": ("table3", "drop", *lpgnn_figures.FIGURE_TARGETS), "ppgnn": ("table3", *PPGNN_FIGURES),
          "ldp-ge": ("table3", "fig2", "ksweep"), "se-privgemb": se_privgemb_paper.ARTEFACTS}


def register(sub) -> None:
    from ..artefact_listing import help_epilog

    p = sub.add_parser("reproduce", help="reproduce a paper's tables and figures, paper beside measured "
                                         "(reproduce --help lists them)",
                       description=__doc__, epilog=help_epilog(),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paper", choices=("lpgnn", "ppgnn", "ldp-ge", "se-privgemb"), help="which paper's tables")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", dest="mode", action="store_const", const="quick",
                      help="CPU minutes. lpgnn: Cora and CiteSeer, 3 runs, eps in {0.1, 1}, K in {2, 8, 16, 32}; "
                           "ppgnn: Cora, 3 runs, eps in {0.01, 1}, K in {2, 8}, MB and PPM; ldp-ge: Cora, 3 runs, "
                           "link at eps in {1, 5} (HDS, MB, MB rescaled), node at eps = 1 (HDS, MB) (default)")
    mode.add_argument("--full", dest="mode", action="store_const", const="full",
                      help="lpgnn: every Table 3 dataset, eps in {0.1, 0.5, 1, 2}, K in {1..32}, 10 runs, and the "
                           "Drop table; ppgnn: every Table III dataset, eps in {0.01, 0.1, 1}, K in {0..16}, "
                           "10 runs, mechanisms 1B, LP, GM, MB, PPM; ldp-ge: every Table III dataset with features, "
                           "Table III, Fig. 2 and the k sweep, 10 runs (default: --quick)")
    p.set_defaults(mode="quick")
    p.add_argument("--datasets", nargs="+", metavar="NAME", help="restrict to these paper datasets (cora citeseer "
                                                                 "pubmed facebook github lastfm)")
    p.add_argument("--tables", nargs="+", metavar="TABLE",
                   choices=tuple(dict.fromkeys(t for ids in TABLES.values() for t in ids)),
                   help="which tables and figures to fill, by the ids listed below per paper (default: table3 "
                        "with --quick, table3 and drop with --full; ldp-ge --full: table3, fig2 and ksweep)")
    p.add_argument("--runs", type=integer(1, MAX_RUNS),
                   help=f"runs per configuration, at most {MAX_RUNS:,} (default 3 quick, 10 full)")
    add_sweep_options(p, workers=2)
    p.add_argument("--max-runs", type=integer(0),
                   help="start at most this many new runs, then report (resume later)")
    add_plan_option(p)
    p.add_argument("--results", metavar="DIR", type=folder, help=f"folder of run JSONs (default PAPER-MODE in {DATA_HOME_HELP}; "
                                                    "never the working directory)")
    p.add_argument("--mechanisms", nargs="+", metavar="NAME", type=str.upper,
                   help="ppgnn: restrict to these Table III mechanisms (1B LP GM MB PPM; default MB PPM with "
                        "--quick, all five with --full); ldp-ge --full: restrict the private cells of every table to "
                        "these (LP PM MB HDS; the non-private rows stay)")
    p.add_argument("--backbone", choices=("gcn", "sage", "gat"), default=None,
                   help="ppgnn only: two-layer backbone (default gcn)")
    p.add_argument("--k-grid", nargs="+", metavar="K", type=integer(0, MAX_K), default=None,
                   help="ppgnn and lpgnn Table III / Table 3 only: the propagation steps K each cell chooses among "
                        "on validation, instead of the mode's grid (and a --protocol preset's); e.g. --k-grid 0 "
                        "runs every cell without propagation, as the released protocol's baselines match ppgnn's "
                        f"printed rows; 0 to {MAX_K}, each once")
    p.add_argument("--splits", type=integer(1, MAX_SPLITS), default=None,
                   help=f"lpgnn Table 3 only: random 50/25/25 splits per cell, 1 to {MAX_SPLITS} (default 1); with "
                        "several, the tolerance admits the split-to-split spread (the paper's split is unknowable)")
    p.add_argument("--protocol", choices=("spec", "released", "both"), default=None,
                   help="ppgnn and lpgnn Table 3 / Table III, ldp-ge Table III and Fig. 2, se-privgemb's StrucEqu: "
                        "run under the spec's protocol (default), the authors' released code's (ppgnn: SAGE unless "
                        "--backbone, lr 0.01, weight decay 0.01, dropout 0.75, the saturating loss, the all-improve "
                        "checkpoint rule, the released PPM, LPGNN's baselines; lpgnn: the seed-era code's split draw "
                        "and the paper's K grid {1, 2, 4, 8, 16, 32}; ldp-ge: the released push, report units and "
                        "initialisation; se-privgemb: the released StrucEqu evaluation, training unchanged), or both: "
                        f"both columns, then (not for se-privgemb) an attribution of the {ATTRIBUTED_CELLS} cells "
                        "that differ most, one element switched back to the spec at a time; every released GNN cell "
                        "gets a per-K row (the K closest to the paper and the K chosen on test, as the paper did: "
                        "explanatory only); the runs are stored beside the spec's; combines with --splits")
    p.add_argument("--downstream", choices=("mlp", "logreg"), default=None,
                   help="ldp-ge only: the classifier on the embeddings: the released code's mlp (default) or the "
                        "paper's logistic regression (one linear layer)")
    p.add_argument("--set", nargs="+", metavar="FIELD=VALUE", default=None,
                   help="ldp-ge only: change these run-config fields of every cell (after a --protocol preset), "
                        "e.g. feature_rows=l1 feature_bounds=columns link_graph=full (hypotheses about the authors' "
                        "unreleased link files) or lr=0.001; not the grid's axes (dataset, task, mechanism, eps, k, "
                        "seed; --downstream has its own option); the runs are stored under keys of their own")
    p.add_argument("--plot", metavar="FILE.png", help="draw the targets as a PNG: the paper's numbers beside "
                                                       "the measured ones, one panel per dataset")
    add_device_option(p)
    add_data_options(p)
    add_output_options(p)
    p.set_defaults(func=run)


def _cells(args):
    from ...models.training import lpgnn

    quick = args.mode == "quick"
    names = _datasets(args, lpgnn)
    runs = args.runs or (lpgnn.RUNS_QUICK if quick else lpgnn.RUNS_FULL)
    tables = set(args.tables or (("table3",) if quick or args.protocol or args.k_grid else ("table3", "drop")))
    drop_names = [n for n in names if n in lpgnn.DROP_DATASETS] if "drop" in tables else []
    loaders = {lpgnn.TABLE3_DATASETS[n] for n in names} if "table3" in tables else set()
    loaders |= {lpgnn.DROP_DATASETS[n] for n in drop_names}
    has_features = _has_features(loaders, args)
    cells = []
    if "table3" in tables:
        k_grid = lpgnn.K_QUICK if quick else lpgnn.K_FULL
        args.protocol_cells = {name: lpgnn.table3_cells(
            names, lpgnn.EPS_QUICK if quick else lpgnn.EPS_FULL, _k_values(args, preset, k_grid), runs, has_features,
            splits=args.splits or 1, protocol=preset) for name, preset in _protocols(args).items()}
        cells += [c for own in args.protocol_cells.values() for c in own]
    cells += lpgnn.drop_cells(drop_names, runs, has_features=has_features)
    return cells, runs, tables


def _has_features(loaders, args) -> dict:
    """{loader name: whether its feature file is present}, read without parsing the features (Planetoid always
    has them)."""
    from ...models import data

    return {name: name in ("cora", "citeseer", "pubmed") or
            data.load(name, args.data_dir, args.cache_dir, with_features=False).missing_features is None
            for name in sorted(loaders)}


def _ppgnn_cells(args):
    from ...models.training import ppgnn

    quick = args.mode == "quick"
    names = _datasets(args, ppgnn)
    if args.tables and set(args.tables) != {"table3"}:
        raise ValueError("--tables: ppgnn has only table3 (Table III)")
    mechanisms = args.mechanisms or (ppgnn.MECHANISMS_QUICK if quick else tuple(ppgnn.MECHANISMS))
    unknown = [m for m in mechanisms if m not in ppgnn.MECHANISMS]
    if unknown:
        raise ValueError(f"--mechanisms must be among {', '.join(ppgnn.MECHANISMS)}, got {', '.join(unknown)}")
    runs = args.runs or (ppgnn.RUNS_QUICK if quick else ppgnn.RUNS_FULL)
    has_features = _has_features({ppgnn.TABLE3_DATASETS[n] for n in names}, args)
    k_grid = ppgnn.K_QUICK if quick else ppgnn.K_FULL
    args.protocol_cells = {name: ppgnn.table3_cells(
        names, ppgnn.EPS_QUICK if quick else ppgnn.EPS_FULL, tuple(mechanisms), k_grid=_k_values(args, preset, k_grid),
        runs=runs, model=args.backbone, has_features=has_features, protocol=preset)
        for name, preset in _protocols(args).items()}
    return [c for cells in args.protocol_cells.values() for c in cells], runs, {"table3"}


def _k_values(args, preset, default: tuple[int, ...]) -> tuple[int, ...]:
    """The K grid of a Table 3 / Table III cell: --k-grid when given (it wins over a preset's, as --backbone
    does), else the preset's, else the mode's ``default``."""
    return tuple(args.k_grid) if args.k_grid else preset.k_values(default)


def _protocols(args) -> dict:
    """{protocol name: preset} of --protocol, in report order: ``spec`` (the default) and / or ``released``, the
    paper's presets from the registry; for ppgnn an explicit --backbone wins over the released preset's."""
    from dataclasses import replace

    from ...models.training.protocols import protocol

    presets = {name: protocol(args.paper, name) for name in PROTOCOLS_OF_OPTION[args.protocol]}
    if "released" in presets and getattr(args, "backbone_given", False):
        released = presets["released"]
        presets["released"] = replace(released, elements=tuple(e for e in released.elements if e.field != "model"))
    return presets


def results_folder(args) -> Path:
    """--results, else PAPER-MODE in the user's data folder."""
    return Path(args.results) if args.results else user_data_folder() / f"{args.paper}-{args.mode}"


#: Largest K --k-grid takes: twice the papers' largest (LPGNN's 32); past it KProp has long over-smoothed.
MAX_K = 64

#: Papers whose --protocol changes how runs are scored, not how they train (so no training preset): SE-PrivGEmb's
#: StrucEqu under the released code's evaluation.
EVALUATION_PROTOCOLS = {"se-privgemb"}


def check_options(args) -> None:
    """Options the chosen paper does not use are refused, naming them (never silently ignored)."""
    if args.mechanisms and not (args.paper == "ppgnn" or (args.paper == "ldp-ge" and args.mode == "full")):
        raise ValueError("--mechanisms: ppgnn, and ldp-ge with --full (lpgnn's and ldp-ge's quick tables have "
                         "fixed columns)")
    if args.backbone is not None and args.paper != "ppgnn":
        raise ValueError(f"--backbone: ppgnn only ({args.paper} trains its paper's own networks)")
    if args.k_grid is not None:
        if args.paper not in ("ppgnn", "lpgnn"):
            raise ValueError(f"--k-grid: ppgnn and lpgnn only (the propagation steps K of their GNN cells; "
                             f"{args.paper} has none)")
        if len(set(args.k_grid)) != len(args.k_grid):
            raise ValueError(f"--k-grid: each K once, got {' '.join(map(str, args.k_grid))}")
        if args.tables and set(args.tables) != {"table3"}:
            raise ValueError("--k-grid: Table 3 / Table III only (--tables table3); the figures sweep their own K")
    if args.splits is not None and args.paper != "lpgnn":
        raise ValueError(f"--splits: lpgnn's Table 3 only ({args.paper}'s tables use the spec's one split)")
    if args.protocol is not None:
        from ...models.training.protocols import PROTOCOLS

        with_presets = sorted({paper for paper, name in PROTOCOLS if name == "released"} | EVALUATION_PROTOCOLS)
        if args.paper not in with_presets:
            raise ValueError(f"--protocol: {', '.join(with_presets)} only so far ({args.paper} has no "
                             "released-protocol preset yet)")
    if args.protocol is not None and args.paper not in EVALUATION_PROTOCOLS and args.tables \
            and not set(args.tables) <= set(PROTOCOL_TABLES[args.paper]):
        own = " ".join(PROTOCOL_TABLES[args.paper])
        raise ValueError(f"--protocol: {args.paper}'s --tables {own} only; its other tables and figures use the "
                         "spec's protocol")
    if args.set is not None and args.paper != "ldp-ge":
        raise ValueError(f"--set: ldp-ge only so far ({args.paper}'s runs are changed by their own options)")
    if args.downstream is not None and args.paper != "ldp-ge":
        raise ValueError(f"--downstream: ldp-ge only ({args.paper} trains its paper's own networks)")
    if args.plan and args.paper == "se-privgemb":
        raise ValueError("--plan: lpgnn, ppgnn and ldp-ge (se-privgemb's runs have no epoch count to probe yet)")
    unknown = [t for t in args.tables or () if t not in TABLES[args.paper]]
    if unknown:
        raise ValueError(f"--tables: {args.paper} has {', '.join(TABLES[args.paper])}, got {', '.join(unknown)}")


def run(args, console) -> int:
    check_options(args)
    root = results_folder(args)
    check_paths(args, root)
    if args.paper == "ldp-ge":
        from .ldp_ge import run_ldp_ge

        return run_ldp_ge(args, console, root)
    if args.paper == "se-privgemb":
        from .se_privgemb import run_se_privgemb

        return run_se_privgemb(args, console, root)
    if args.paper == "ppgnn":
        from .ppgnn_figures import figure_ids, run_ppgnn_figures

        figures = figure_ids(args)
        if figures:
            return run_ppgnn_figures(args, console, root, figures, _has_features)
    from ...audits.reproduction.lpgnn import reproduction_report
    from ...models.training import RunStore, sweep
    from ...models.training.lpgnn import summarise
    from ...models.training.runtime import choose_device

    device = args.device_chosen = choose_device(args.device)
    args.backbone_given, args.backbone = args.backbone is not None, args.backbone or "gcn"
    cells, runs, tables = _ppgnn_cells(args) if args.paper == "ppgnn" else _cells(args)
    figures = {} if args.paper == "ppgnn" else lpgnn_figures.figure_cells(
        args, tables, lambda loaders: _has_features(loaders, args))
    store = RunStore(root)
    configs = list(dict.fromkeys(c for cell in cells + sum(figures.values(), []) if cell.runnable
                                 for c in cell.configs()))
    started = time.perf_counter()
    results = run_or_plan(args, console, f"reproduce {args.paper} --{args.mode}",
                          planned_runs(args, configs, store, _attributed_on_stored(args, cells)) if args.plan
                          else configs, store, device,
                          lambda config: (config.dataset, config.model), sweep.TRAIN_BATCH, sweep.TRAIN_BATCH_KEY,
                          stacked=True)
    if results is None:
        return 0
    measured = {cell: summarise(cell, results) for cell in cells + sum(figures.values(), []) if cell.runnable}
    settings = {"mode": args.mode, "runs": runs,
                **({"k grid": " ".join(map(str, args.k_grid))} if args.k_grid else {}),
                "device": devices_used(results.values(), device), "software": software_used(results.values()),
                "results": str(store.root),
                "runs finished": f"{len(results)}/{len(configs)}",
                "wall time (s)": round(time.perf_counter() - started, 1)}
    if args.paper == "ppgnn":
        return _ppgnn_report(args, console, cells, measured, results, settings)
    if args.protocol is not None:
        return _lpgnn_protocol_report(args, console, measured, results, settings)
    report = reproduction_report(
        f"lpgnn reproduction ({args.mode})", cells, measured,
        subject={"paper": "lpgnn", "tables": " + ".join(t for t, on in (("seed Table 3", "table3" in tables),
                                                                        ("Drop (B6.3)", "drop" in tables)) if on)},
        settings=settings)
    targets = [t for t in lpgnn_figures.FIGURE_TARGETS if t in tables]
    if targets:
        report = _with_figures(args, report, targets, figures, measured)
    if args.plot:
        from ...files import write_atomic

        plots = {"table3": plot, **lpgnn_figures.PLOTS}
        drawn = [t for t in ("table3", *targets) if t in tables]
        for target, path in lpgnn_figures.plot_paths(args.plot, drawn).items():
            write_atomic(path, plots[target](report))
    return emit(report, args, console)


def _with_figures(args, report, targets, figures, measured):
    """The report with the figure targets' rows after the tables' (fig5 is computed here; it trains nothing)."""
    from ...audits.kernel.result import AuditReport

    rows = list(report.results) + (lpgnn_figures.fig5_rows(args) if "fig5" in targets else []) \
        + lpgnn_figures.figure_rows(args, figures, measured)
    tables = " + ".join([report.subject["tables"]] * bool(report.subject["tables"])
                        + [lpgnn_figures.TITLES[t] for t in targets])
    tabled = {k: v for k, v in report.settings.items() if k != "runs" or report.subject["tables"]}  # tables' runs
    settings = {**tabled, **lpgnn_figures.figure_settings(args, targets)}
    return AuditReport.of(report.title, rows, {**report.subject, "tables": tables}, settings)


def _ppgnn_report(args, console, cells, measured, results, settings) -> int:
    from ...audits.kernel.result import AuditReport
    from ...models.training.ppgnn import TABLE3_DATASETS

    loaders = {loader: name for name, loader in TABLE3_DATASETS.items()}
    num_nodes = {loaders[r.config.dataset]: r.extra["num_nodes"] for r in results.values()}
    widths = {loaders[r.config.dataset]: r.extra.get("in_features") for r in results.values()}
    rows = _protocol_rows(args, console, measured, results, _paper_value("ppgnn"),
                          lambda own: ppgnn_rows(own, measured, num_nodes, widths) + c19_rows(own, measured, results))
    columns = ", ".join(dict.fromkeys(c.column.split(" eps=")[0] for c in cells))
    models = sorted({c.model for cell in cells for c in cell.configs()})
    protocol = {"protocol": args.protocol} if args.protocol not in (None, "spec") else {}
    attributed = " + attribution" if args.protocol == "both" else ""
    report = AuditReport.of(f"ppgnn reproduction ({args.mode})", rows,
                            {"paper": "ppgnn", "tables": f"Table III ({columns}) + C17 + E16 + C19{attributed}",
                             "backbone": ", ".join(models) or args.backbone, **protocol}, settings)
    if args.plot:
        from ...files import write_atomic

        write_atomic(args.plot, ppgnn_plot(report))
    return emit(report, args, console)


def _lpgnn_protocol_report(args, console, measured, results, settings) -> int:
    """LPGNN's Table 3 under --protocol: the cells of each protocol, then (``both``) the per-K rows and the
    attribution."""
    from ...audits.kernel.result import AuditReport

    rows = _protocol_rows(args, console, measured, results, _paper_value("lpgnn"), lambda own: [])
    attributed = " + attribution" if args.protocol == "both" else ""
    report = AuditReport.of(f"lpgnn reproduction ({args.mode})", rows,
                            {"paper": "lpgnn", "tables": f"seed Table 3{attributed}", "protocol": args.protocol},
                            settings)
    if args.plot:
        from ...files import write_atomic

        write_atomic(args.plot, plot(report))
    return emit(report, args, console)


def _protocol_rows(args, console, measured, results, lookup, paper_rows) -> list:
    """The table rows of every chosen protocol (its cells, then ``paper_rows(cells)``), suffixed ``[spec]`` /
    ``[released]`` when both run; per-K rows for every released cell with a printed number; with ``both``, the
    attribution."""
    from dataclasses import replace

    from ...audits.reproduction.lpgnn import reproduction_report

    rows = []
    for name, own in args.protocol_cells.items():
        named = list(reproduction_report("", own, measured, lookup=lookup).results) + paper_rows(own)
        rows += named if len(args.protocol_cells) == 1 else [replace(r, name=f"{r.name} [{name}]") for r in named]
    if "released" in args.protocol_cells:
        rows += _k_matches(args, measured, results, lookup)
    if args.protocol == "both":
        rows += _attribution(args, console, measured, results, lookup)
    return rows


def _k_matches(args, measured, results, lookup) -> list:
    """Per released cell with a K grid of two or more K and a printed number: its test accuracy at every K, the K
    closest to the paper and the K chosen on test (``k_match_row``, explanatory only)."""
    from dataclasses import replace

    from ...audits.reproduction.lpgnn import cell_tolerance
    from ...audits.reproduction.protocol_gap import k_match_row

    rows = []
    for cell in args.protocol_cells["released"]:
        filled, printed = measured.get(cell), lookup(cell)
        if filled is None or printed is None or None in cell.candidates or len(cell.candidates) < 2:
            continue  # a per-K row compares K values: a cell of one K (--k-grid 0) has none to compare
        test_by_k = {k: [100 * results[c].test_accuracy for c in configs] for k, configs in cell.candidates.items()}
        tolerance_by_k = {k: cell_tolerance(replace(filled, choice=k, values=tuple(values)))
                          for k, values in test_by_k.items()}
        rows.append(k_match_row(f"{cell.dataset} {cell.column} [released]", printed[0], test_by_k,
                                tolerance_by_k, {"table": cell.table}, K_ON_TEST[args.paper]))
    return rows


#: How each paper's printed K relates to choosing K on test, for the per-K rows.
K_ON_TEST = {"lpgnn": "the paper's way, lpgnn E14",
             "ppgnn": "LPGNN's notebook rule; PPGNN does not say how it chose K"}


def _spec_runs_at(cell, k) -> list:
    """The spec cell's runs (one config per seed) at ``k``, also when ``k`` lies outside the spec's K grid (the
    released grid may be wider): the same runs with ``k_x`` set to ``k``."""
    from dataclasses import replace

    if k in cell.candidates:
        return cell.candidates[k]
    return [replace(c, k_x=k) for c in next(iter(cell.candidates.values()))]


def _k_grid_switch(spec_cell, released_cell, results):
    """The released cell with its K chosen on validation within the spec's K grid only (the ``k_grid`` element
    switched back), or None when the grids agree or share no K."""
    from dataclasses import replace

    from ...models.training.lpgnn import summarise

    shared = {k: v for k, v in released_cell.candidates.items() if k in spec_cell.candidates}
    if not shared or len(shared) == len(released_cell.candidates):
        return None
    return summarise(replace(released_cell, candidates=shared), results)


def _attributed(args, measured, lookup, planning: bool = False) -> list:
    """The cells ``--protocol both`` attributes (``protocol_gap.attributed_cells``): among the cells with a printed
    number, the ATTRIBUTED_CELLS whose spec and released means (K chosen on validation) differ most; a cell's grid
    switches the spec runs at the released cell's K (``planning``, for --plan: unfinished cells follow, at the
    first K of their grid that the spec's grid has too, else their first: where the switched runs coincide with the
    tables' runs as much as at the K validation picks). The one list of attribution runs that --plan counts and the
    report trains."""
    from ...audits.reproduction.protocol_gap import attributed_cells

    def spec_runs(spec, released):
        filled = measured.get(released)
        if filled is not None:
            return _spec_runs_at(spec, filled.choice)
        shared = [k for k in released.candidates if k in spec.candidates]
        return _spec_runs_at(spec, (shared or list(released.candidates))[0])

    pairs = [(s, r) for s, r in zip(args.protocol_cells["spec"], args.protocol_cells["released"])
             if lookup(r) is not None]
    return attributed_cells(pairs, lambda cell: None if measured.get(cell) is None else measured[cell].values,
                            spec_runs, _protocols(args)["released"], planning)


def _attribution(args, console, measured, results, lookup) -> list:
    """Attribution rows (issue 26) of the :func:`_attributed` cells: at the released cell's K, every seed's released
    run with one element switched back to the spec's value, and (when the released preset has its own K grid) the
    released runs with K chosen on validation within the spec's grid. Trains what is missing (resumable, --max-runs
    applies), so an unfinished grid gives INCONCLUSIVE rows."""
    from ...audits.reproduction.protocol_gap import attribution_configs, cell_attribution_rows
    from ...models.training import RunStore, sweep

    cells = _attributed(args, measured, lookup)
    configs = attribution_configs(cells)
    store = RunStore(results_folder(args))
    switched_runs = run_or_plan(args, console, "attribution", configs, store, args.device_chosen,
                                lambda config: (config.dataset, config.model), sweep.TRAIN_BATCH,
                                sweep.TRAIN_BATCH_KEY, stacked=True) if configs else {}
    rows = []
    for s, r, grid in cells:
        narrower = _k_grid_switch(s, r, results)
        rows += cell_attribution_rows(
            f"{r.dataset} {r.column}", measured[s].values, measured[r].values, grid,
            lambda config: 100 * switched_runs[config].test_accuracy if config in switched_runs else None,
            {"table": r.table, "k": measured[r].choice},
            None if narrower is None else {"k_grid -> spec": list(narrower.values)})
    return rows


def _attributed_on_stored(args, cells):
    """``attributed_of`` of :func:`planned_runs` for lpgnn and ppgnn: the cells summarised on the stored runs."""
    from ...models.training.lpgnn import summarise

    return lambda stored: _attributed(args, {cell: summarise(cell, stored) for cell in cells if cell.runnable},
                                      _paper_value(args.paper), planning=True)


def _paper_value(paper: str):
    """The printed number of a cell of ``paper`` (lpgnn or ppgnn): (mean, spread, citation) or None."""
    from ...audits.reproduction.lpgnn import lpgnn_paper_value

    return ppgnn_paper_value if paper == "ppgnn" else lpgnn_paper_value


def ppgnn_plot(report) -> bytes:
    """PNG: Table III accuracy against eps per dataset, each mechanism measured (mean ± std) with the paper's
    points in the same colour; with ``--protocol both`` the released protocol's runs are drawn dotted beside the
    spec's."""
    from ...models.training.ppgnn import MECHANISMS as TABLE3_MECHANISMS

    rows = [r for r in report.results if r.details.get("table") == "ppgnn_table3" and "measured_mean" in r.details]
    fig, panels = dataset_panels(list(dict.fromkeys(r.name.split(" ")[0] for r in rows)))
    protocols = sorted({_protocol_of(r.name) for r in rows}, key=lambda p: p != "spec")
    for ax, name in panels:
        for mechanism, colour in zip(TABLE3_MECHANISMS, ("tab:grey", "tab:green", "tab:purple", "tab:blue",
                                                          "tab:orange")):
            for protocol in protocols:
                own = [r for r in rows if r.name.startswith(f"{name} {mechanism} eps=")
                       and _protocol_of(r.name) == protocol]
                if not own:
                    continue
                eps = [float(r.name.split("eps=")[1].split()[0]) for r in own]
                label = mechanism if len(protocols) == 1 else f"{mechanism} {protocol}"
                ax.errorbar(eps, [r.details["measured_mean"] for r in own], [r.details["measured_std"] for r in own],
                            fmt="o-" if protocol == "spec" else "o:", color=colour, capsize=3,
                            label=f"{label} measured")
                if protocol == protocols[0]:
                    ax.plot(eps, [r.details["paper_mean"] for r in own], "s--", color=colour,
                            label=f"{mechanism} paper")
    return panels_png(fig, "test accuracy (%)")


def _protocol_of(row_name: str) -> str:
    """``spec`` or ``released`` from a row name's ``[protocol]`` suffix (``--protocol both``); no suffix: spec."""
    return row_name.rsplit("[", 1)[1].rstrip("]") if row_name.endswith("]") else "spec"


def plot(report) -> bytes:
    """PNG: LPGNN test accuracy against eps per dataset (measured: mean ± std, K on validation), with the
    paper's points; GCN+Raw measured / printed and the structure-only control as horizontal lines. With
    ``--protocol both`` the released protocol's LPGNN runs are drawn dotted beside the spec's."""
    rows = [r for r in report.results if r.details.get("table") == "table3" and "measured_mean" in r.details]
    fig, panels = dataset_panels(list(dict.fromkeys(r.name.split(" ")[0] for r in rows)))
    protocols = sorted({_protocol_of(r.name) for r in rows}, key=lambda p: p != "spec")
    for ax, name in panels:
        for protocol in protocols:
            own = [r for r in rows if _protocol_of(r.name) == protocol]
            suffix = "" if len(protocols) == 1 else f" [{protocol}]"
            first = protocol == protocols[0]
            lpgnn = [r for r in own if r.name.startswith(name + " LPGNN")]
            eps = [float(r.name.split("eps=")[1].split()[0]) for r in lpgnn]
            ax.errorbar(eps, [r.details["measured_mean"] for r in lpgnn], [r.details["measured_std"] for r in lpgnn],
                        fmt="o-" if first else "o:", capsize=3, label=f"LPGNN measured (K on val){suffix}")
            ax.plot(eps, [r.details["test_selected_mean"] for r in lpgnn], "x:", label=f"LPGNN, K on test{suffix}")
            if first:
                ax.plot(eps, [r.details["paper_mean"] for r in lpgnn], "s--", label="LPGNN paper")
            for r in own:
                if r.name.startswith(f"{name} KProp+RND") and first:
                    ax.axhline(r.details["measured_mean"], color="tab:red", linestyle=":", label="KProp+RND (E15)")
                if r.name == f"{name} GCN+Raw{suffix}":
                    ax.axhline(r.details["measured_mean"], color="grey", linestyle="-" if first else ":",
                               label=f"GCN+Raw measured{suffix}")
                    if first:
                        ax.axhline(r.details["paper_mean"], color="grey", linestyle="--", label="GCN+Raw paper")
    return panels_png(fig, "micro-F1 (%)")
