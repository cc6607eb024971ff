"""``ldp-audit reproduce ppgnn --tables fig3 ... fig9``: PPGNN's figures, point by point, then each figure's claims
as verdict rows (``audits.ppgnn_figures``), and one PNG per figure (one panel per dataset or sub-figure, measured
mean ± std with the paper's printed points where the seed prints any)."""
from __future__ import annotations

import time
from pathlib import Path

from .._common import emit
from .common import dataset_panels, devices_used, panels_png, run_or_plan, software_used
from .common import paper_datasets as _datasets

#: eps of the attribute-inference rows of Fig. 5 left (Sec. IV-E); the attack trains nothing.
ATTACK_EPS = (0.01, 0.1, 1.0)
#: Figures whose x-axis is eps (log scale).
EPS_AXIS = ("fig3", "fig4", "fig8", "fig9")


def figure_ids(args) -> tuple:
    """The figure ids among --tables (in the seed's order); refuses options the figures do not take."""
    from ...models.training.ppgnn_figures import FIGURES

    chosen = [t for t in FIGURES if t in (args.tables or ())]
    if chosen and "table3" in args.tables:
        raise ValueError("--tables: run table3 and the figures (fig3 ... fig9) as separate commands")
    if chosen and args.mechanisms:
        raise ValueError("--mechanisms: Table III only (each figure has its paper's methods)")
    if chosen and args.backbone is not None:
        raise ValueError("--backbone: Table III only (each figure uses its paper's backbone: GCN for Figs. 3, 4 "
                         "right, 5, 9; GraphSAGE for Figs. 6, 7, 8; all three in Fig. 4 left)")
    return tuple(chosen)


def _attack_rows(args):
    """Fig. 5 left: the neighbour-vote attribute-inference attack on Cora (NonPriv, MB for BASE and LPGNN, PPM for
    PPGNN) at ATTACK_EPS, and the printed NonPriv > 90% as a row."""
    from ...audits.attacks.neighbour_vote import neighbour_vote_attack
    from ...audits.reproduction.ppgnn_figures import nonpriv_attack_row
    from ...mechanisms import make
    from ...mechanisms.personalised import PersonalisedMechanism
    from ...models import data

    graph = data.load("cora", args.data_dir, args.cache_dir)
    d = graph.num_features
    methods = [("raw", None, None)]
    for eps in ATTACK_EPS:
        methods += [("multibit", make("multibit", eps=eps, d=d, alpha=-1.0, beta=1.0), eps),
                    ("ppm", PersonalisedMechanism(eps, d), eps)]
    rows = neighbour_vote_attack(graph, methods)
    return rows + [nonpriv_attack_row(rows[0])]


def run_ppgnn_figures(args, console, root: Path, figures: tuple, features_present) -> int:
    """Train (or plan) the figures' runs, then report; ``features_present(loaders, args)`` says which datasets
    have their feature files (``reproduce._has_features``)."""
    from ...audits.reproduction.ppgnn_figures import figure_report_rows
    from ...audits.kernel.result import AuditReport
    from ...models.training import RunStore, ppgnn_figures, sweep
    from ...models.training.lpgnn import summarise
    from ...models.training.runtime import choose_device

    device = choose_device(args.device)
    quick = args.mode == "quick"
    names = _datasets(args, ppgnn_figures)
    grid = ppgnn_figures.Grid(quick, args.runs or (ppgnn_figures.RUNS_QUICK if quick else ppgnn_figures.RUNS_FULL),
                              names)
    loaders = {ppgnn_figures.TABLE3_DATASETS[n] for n in (*names, "cora")}
    has_features = features_present(loaders, args)
    cells = {figure: ppgnn_figures.figure_cells(figure, grid, has_features) for figure in figures}
    store = RunStore(root)
    configs = list(dict.fromkeys(c for fc in cells.values() for cell in fc if cell.runnable for c in cell.configs()))
    started = time.perf_counter()
    results = run_or_plan(args, console, f"reproduce ppgnn {' '.join(figures)} --{args.mode}", configs, store,
                          device, lambda config: (config.dataset, config.model), sweep.TRAIN_BATCH,
                          sweep.TRAIN_BATCH_KEY, stacked=True)
    if results is None:
        return 0
    rows = []
    for figure, figure_cells in cells.items():
        measured = {cell: summarise(cell, results) for cell in figure_cells if cell.runnable}
        rows += figure_report_rows(figure, figure_cells, measured)
        if figure == "fig5":
            rows += _attack_rows(args)
    settings = {"mode": args.mode, "runs": grid.runs, "device": devices_used(results.values(), device),
                "software": software_used(results.values()),
                "results": str(store.root), "runs finished": f"{len(results)}/{len(configs)}",
                "wall time (s)": round(time.perf_counter() - started, 1)}
    report = AuditReport.of(f"ppgnn figures {', '.join(figures)} ({args.mode})", rows,
                            {"paper": "ppgnn", "tables": " + ".join(figures),
                             "backbones": ", ".join(f"{f}: {ppgnn_figures.BACKBONES[f]}" for f in figures)
                             + (" (fig4 left: gcn, sage, gat)" if "fig4" in figures else "")}, settings)
    if args.plot:
        from ...files import write_atomic

        for figure in figures:
            write_atomic(plot_path(args.plot, figure, len(figures)), figure_plot(report, figure))
    return emit(report, args, console)


def plot_path(plot: str, figure: str, count: int) -> str:
    """--plot as given for one figure; FILE-figN.png beside it for several."""
    if count == 1:
        return plot
    path = Path(plot)
    return str(path.with_name(f"{path.stem}-{figure}{path.suffix or '.png'}"))


def figure_plot(report, figure: str) -> bytes:
    """PNG of one figure: a panel per dataset (or sub-figure), each series measured (mean ± std over runs) in one
    colour on every panel; the paper's printed points beside them (Fig. 3(a): BASE + the printed gains; Fig. 5
    left: NonPriv's > 90%); one legend beside the panels."""
    points = [r for r in report.results if r.details.get("table") == f"ppgnn_{figure}"
              and r.details.get("kind") == "point"]
    panels = list(dict.fromkeys(r.details["panel"] for r in points))
    colours = {series: f"C{i}" for i, series in enumerate(dict.fromkeys(r.details["series"] for r in points))}
    attack = [r for r in report.results if r.name.startswith("attack.neighbour-vote.")] if figure == "fig5" else []
    fig, axes = dataset_panels(panels + (["cora attack (left)"] if attack else []))
    readoffs = {r.name: r for r in report.results if r.details.get("kind") == "readoff"}
    for ax, panel in axes:
        if panel == "cora attack (left)":
            _attack_panel(ax, attack)
            continue
        own = [r for r in points if r.details["panel"] == panel]
        for series in dict.fromkeys(r.details["series"] for r in own):
            line = [r for r in own if r.details["series"] == series]
            if line[0].details["x"] is None:  # NonPriv: no eps
                ax.axhline(line[0].details["measured_mean"], color="grey", label=f"{series} measured")
                continue
            xs = [r.details["x"] for r in line]
            ax.errorbar(xs, [r.details["measured_mean"] for r in line], [r.details["measured_std"] for r in line],
                        fmt="o-", capsize=3, color=colours[series], label=f"{series} measured")
            _paper_points(ax, figure, panel, series, line, readoffs, colours[series])
        if figure in EPS_AXIS:
            ax.set_xscale("log")
        ax.set_xlabel(_x_label(figure, panel))
        ax.set_ylabel("test accuracy (%)")
        if not (figure == "fig3" and any(name.startswith(f"{panel} fig3(a)") for name in readoffs)):
            ax.set_title(f"{panel}\n(the paper prints no values here: trend only)", fontsize=9)
    return panels_png(fig, "test accuracy (%)")


def _x_label(figure: str, panel: str) -> str:
    if figure == "fig5":
        return "level distribution"
    if figure == "fig6":
        return "K"
    if figure == "fig7":
        return panel.split()[-1]
    return "eps"


def _paper_points(ax, figure, panel, series, line, readoffs, colour) -> None:
    """Fig. 3(a): the paper's LPGNN and PPGNN at eps = 0.01 drawn as measured BASE + the printed gain."""
    from ...papers import ppgnn as paper

    if figure != "fig3" or series not in paper.FIG3A_GAINS_OVER_BASE:
        return
    row = readoffs.get(f"{panel} fig3(a) {series} - BASE eps={paper.FIG3A_EPS:g}")
    base = [r for r in line if r.details["x"] == paper.FIG3A_EPS]
    if row is None or not base:
        return
    base_mean = base[0].details["measured_mean"] - row.statistic  # the method's mean minus its gain = BASE's
    ax.plot([paper.FIG3A_EPS], [base_mean + row.details["paper_mean"]], "s", color=colour, markerfacecolor="none",
            markersize=9, label=f"{series} paper (BASE + {row.details['paper_mean']:g})")


def _attack_panel(ax, rows) -> None:
    rows = [r for r in rows if "accuracy" in r.details]
    labels = [r.name.removeprefix("attack.neighbour-vote.") for r in rows]
    values = [100 * r.details["accuracy"] for r in rows]
    ax.bar(range(len(values)), values, color="tab:blue", label="attack accuracy measured")
    ax.axhline(90, color="tab:red", linestyle="--", label="paper: NonPriv > 90%")
    ax.set_xticks(range(len(values)), labels, rotation=60, fontsize=6)
    ax.set_xlabel("features the attacker sees")
    ax.set_ylabel("attack accuracy (%)")
