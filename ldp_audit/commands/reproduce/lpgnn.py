"""``reproduce lpgnn --tables fig5 fig6 fig7``: the seed's figures beside its tables.

fig5 (MAE against eps, Fig. 5) is a Monte Carlo study and trains nothing; fig6 (accuracy against K for LPGNN and
GCN+Raw with KProp, Fig. 6 top, and with / without self-loops, Fig. 6 bottom) and fig7 (label rate, Fig. 7) add
training runs to the sweep of the table targets. --quick: Cora only, 5 runs per point, reduced K and label-rate
grids (every row says it is reduced); --full: the figures' four datasets (Cora, Pubmed, Facebook, LastFM; LastFM
has no feature file here) and grids, 10 runs (the paper: 100).
"""
from __future__ import annotations

from pathlib import Path

from ...models.training import lpgnn
from ...papers import lpgnn as paper

FIGURE_TARGETS = ("fig5", "fig6", "fig7")
#: Seed for fig5's perturbations.
FIG5_SEED = 20260425


def figure_datasets(args) -> tuple:
    """--datasets (any Table 3 dataset), else Cora with --quick and the figures' four datasets with --full."""
    names = args.datasets or (lpgnn.FIGURE_DATASETS_QUICK if args.mode == "quick" else paper.FIGURE_DATASETS)
    unknown = [n for n in names if n not in lpgnn.TABLE3_DATASETS]
    if unknown:
        raise ValueError(f"--datasets must be among {', '.join(lpgnn.TABLE3_DATASETS)}, got {', '.join(unknown)}")
    return tuple(names)


def figure_runs(args) -> int:
    """Runs per plotted point: --runs, else 5 with --quick (enough pairs for the trend rows) and 10 with --full."""
    return args.runs or (lpgnn.FIGURE_RUNS_QUICK if args.mode == "quick" else lpgnn.RUNS_FULL)


def figure_settings(args, targets) -> dict:
    """The report settings of the figure targets: runs per trained point, draws per MAE point."""
    from ...audits.reproduction.lpgnn_mae import DRAWS_FULL, DRAWS_QUICK

    settings = {"figure runs": figure_runs(args)} if {"fig6", "fig7"} & set(targets) else {}
    if "fig5" in targets:
        settings["fig5 draws"] = DRAWS_QUICK if args.mode == "quick" else DRAWS_FULL
    return settings


def _grid(values) -> str:
    return "{" + ", ".join(f"{v:g}" for v in values) + "}"


def reduced_note(args, target: str) -> str:
    """What a --quick grid leaves out of the paper's (empty with --full)."""
    if args.mode != "quick":
        return ""
    if target == "fig5":
        from ...audits.reproduction.lpgnn_mae import DRAWS_FULL, DRAWS_QUICK

        return f"--quick: {DRAWS_QUICK} draws per point (--full {DRAWS_FULL})"
    runs = f"{figure_runs(args)} runs per point (paper 100, --full {lpgnn.RUNS_FULL})"
    if target == "fig6":
        return f"--quick: {runs}, K in {_grid(lpgnn.FIG6_K_QUICK)} (paper {_grid(lpgnn.K_FULL)})"
    return (f"--quick: {runs}, rho in {_grid(100 * r for r in lpgnn.LABEL_RATES_QUICK)} % (paper "
            f"{_grid(100 * r for r in lpgnn.LABEL_RATES_FULL)} %), eps in {_grid(lpgnn.FIG7_EPS_QUICK)} (paper "
            f"{_grid(lpgnn.FIG7_EPS_FULL)})")


def figure_cells(args, tables, has_features) -> dict:
    """{target: cells} of the trained figure targets in ``tables``; ``has_features(loaders)`` as in reproduce."""
    wanted = [t for t in ("fig6", "fig7") if t in tables]
    if not wanted:
        return {}
    names, runs, quick = figure_datasets(args), figure_runs(args), args.mode == "quick"
    features = has_features({lpgnn.TABLE3_DATASETS[n] for n in names})
    ks = lpgnn.FIG6_K_QUICK if quick else lpgnn.K_FULL
    cells = {}
    if "fig6" in tables:
        cells["fig6"] = (lpgnn.fig6_cells(names, ks, runs, features)
                         + lpgnn.selfloop_cells(names, ks, runs, features))
    if "fig7" in tables:
        cells["fig7"] = lpgnn.labelrate_cells(
            names, lpgnn.LABEL_RATES_QUICK if quick else lpgnn.LABEL_RATES_FULL,
            lpgnn.FIG7_EPS_QUICK if quick else lpgnn.FIG7_EPS_FULL,
            lpgnn.FIG7_K_QUICK if quick else lpgnn.FIG7_K_FULL, runs, features)
    return cells


def fig5_rows(args) -> list:
    """Fig. 5 per dataset (no training): the MAE sweep over the figure's eps, or INCONCLUSIVE rows where the
    dataset has no feature file."""
    from ...audits.reproduction.lpgnn_mae import FIG5_EPS, fig5_rows as rows_of, mae_sweep
    from ...audits.kernel.result import CheckResult, Status
    from ...models import data
    from ..options import check_memory

    rows = []
    for name in figure_datasets(args):
        graph = data.load(lpgnn.TABLE3_DATASETS[name], args.data_dir, args.cache_dir)
        if graph.missing_features is not None:
            rows.append(CheckResult(f"{name} fig5", "lpgnn seed Fig. 5: MAE against eps", Status.INCONCLUSIVE,
                                    explanation="not runnable: features missing", details={"table": "fig5"}))
            continue
        # x, both exact aggregations, a dense draw and its perturbation's temporaries: Pubmed peaked at 14 n x d
        # float64 with the interpreter and torch, so about 10 for the arrays
        check_memory("--datasets", 10 * 8.0 * graph.num_nodes * graph.num_features,
                     f"Fig. 5's MAE on {name} ({graph.num_nodes:,} x {graph.num_features:,} dense features)")
        sweep = mae_sweep(graph.adjacency, graph.normalized_features(clip=True), FIG5_EPS,
                          figure_settings(args, ["fig5"])["fig5 draws"], FIG5_SEED)
        rows += rows_of(name, sweep, reduced_note(args, "fig5"))
    return rows


def figure_rows(args, cells: dict, measured: dict) -> list:
    from ...audits.reproduction.lpgnn_figures import fig6_rows, labelrate_rows, selfloop_rows

    rows = []
    if "fig6" in cells:
        top = [c for c in cells["fig6"] if c.table == "fig6"]
        bottom = [c for c in cells["fig6"] if c.table == "selfloops"]
        note = reduced_note(args, "fig6")
        rows += fig6_rows(top, measured, note) + selfloop_rows(bottom, measured, note)
    if "fig7" in cells:
        rows += labelrate_rows(cells["fig7"], measured, reduced_note(args, "fig7"))
    return rows


TITLES = {"fig5": "Fig. 5 (MAE against eps)", "fig6": "Fig. 6 (K, self-loops)", "fig7": "Fig. 7 (label rate)"}


def plot_paths(plot: str, targets: list) -> dict:
    """{target: PNG path}: --plot itself for one target, FILE-<target>.png for each of several."""
    if len(targets) == 1:
        return {targets[0]: plot}
    path = Path(plot)
    return {t: str(path.with_name(f"{path.stem}-{t}{path.suffix or '.png'}")) for t in targets}


def _rows(report, table: str, kind: str = "point") -> list:
    return [r for r in report.results if r.details.get("table") == table and r.details.get("kind") == kind
            and r.status.value == "info"]


def _series(rows, prefix: str) -> tuple:
    """(x, mean, std) of the point rows whose column starts with ``prefix`` (x: K)."""
    picked = sorted(((int(r.name.split(" K=")[1].split()[0]), r) for r in rows
                     if r.name.split(" ", 2)[2].startswith(prefix + " K=")), key=lambda p: p[0])
    return ([k for k, _ in picked], [r.details["measured_mean"] for _, r in picked],
            [r.details["measured_std"] for _, r in picked])


def fig5_plot(report) -> bytes:
    """MAE against eps per dataset: each mechanism with the GCN (solid) and mean (dashed) aggregator; the seed
    prints no values to plot beside them."""
    from .common import dataset_panels, panels_png

    rows = _rows(report, "fig5")
    fig, panels = dataset_panels(list(dict.fromkeys(r.name.split(" ")[0] for r in rows)))
    for ax, name in panels:
        for label, colour in (("MBM", "tab:blue"), ("AGM", "tab:purple"), ("1BM", "tab:grey")):
            own = sorted((r.details["eps"], r) for r in rows if r.name.startswith(f"{name} fig5 {label} eps="))
            eps = [e for e, _ in own]
            for agg, style in (("gcn", "o-"), ("mean", "s--")):
                ax.plot(eps, [sum(r.details[f"mae_{agg}"]) / len(r.details[f"mae_{agg}"]) for _, r in own], style,
                        color=colour, label=f"{label} ({agg})")
        ax.set_yscale("log")
        ax.set_title(f"{name} (paper: figure only)")
    return panels_png(fig, "MAE (features in [-1, 1])")


def fig6_plot(report) -> bytes:
    """Top row: accuracy against K, LPGNN (eps = 1) and GCN+Raw with KProp, with the text's quoted gain drawn
    from the measured K = 1 point; bottom row: LPGNN without and with self-loops."""
    from .common import dataset_panels, panels_png

    top, bottom = _rows(report, "fig6"), _rows(report, "selfloops")
    names = list(dict.fromkeys(r.name.split(" ")[0] for r in top + bottom))
    fig, panels = dataset_panels(names, rows=2)
    for i, (ax, name) in enumerate(panels):
        rows = [r for r in (top if i < len(names) else bottom) if r.name.startswith(name + " ")]
        series = (("LPGNN", "LPGNN eps=1"), ("GCN+Raw+KProp", "GCN+Raw + KProp")) if i < len(names) else \
            (("LPGNN", "LPGNN without self-loops"), ("LPGNN self-loops", "LPGNN with self-loops"))
        for prefix, label in series:
            ks, means, stds = _series(rows, prefix)
            ax.errorbar(ks, means, stds, fmt="o-", capsize=3, label=label)
            if i < len(names) and prefix == "LPGNN" and name in paper.FIG6_GAIN_OVER_K1 and 1 in ks:
                k, gain = paper.FIG6_GAIN_OVER_K1[name]
                ax.plot([1, k], [means[0], means[0] + gain], "s--", color="tab:red", label="paper (text): gain")
        ax.set_title(f"{name}: Fig. 6 {'top' if i < len(names) else 'bottom'} (eps={lpgnn.FIGURE_EPS:g})")
    return panels_png(fig, "micro-F1 (%)", xlabel="K", xscale="log")


def fig7_plot(report) -> bytes:
    """Accuracy against the label rate: top row per eps at K = 4, bottom row per K at eps = 1, with the text's
    quoted K = 8 gain at rho = 10 % drawn from the measured K = 1 point."""
    from .common import dataset_panels, panels_png

    rows = _rows(report, "labelrate")
    names = list(dict.fromkeys(r.name.split(" ")[0] for r in rows))
    fig, panels = dataset_panels(names, rows=2)

    def curve(name, eps, k):
        own = sorted((float(r.name.split("rho=")[1].rstrip("%")), r) for r in rows
                     if r.name.startswith(f"{name} labelrate LPGNN eps={eps:g} K={k} "))
        return [p for p, _ in own], [r.details["measured_mean"] for _, r in own], \
            [r.details["measured_std"] for _, r in own]

    for i, (ax, name) in enumerate(panels):
        columns = {r.name.split("labelrate ")[1].rsplit(" rho=", 1)[0] for r in rows if r.name.startswith(name + " ")}
        grid = sorted((float(c.split("eps=")[1].split()[0]), int(c.split("K=")[1])) for c in columns)
        lines = [(e, k) for e, k in grid if k == lpgnn.FIG7_TOP_K] if i < len(names) else \
            [(e, k) for e, k in grid if e == lpgnn.FIGURE_EPS]
        for eps, k in lines:
            rates, means, stds = curve(name, eps, k)
            ax.errorbar(rates, means, stds, fmt="o-", capsize=3, label=f"eps={eps:g}, K={k}")
        if i >= len(names) and name in paper.FIG7_GAIN_OVER_K1:
            rates, means, _ = curve(name, lpgnn.FIGURE_EPS, 1)
            if rates and rates[0] == 100 * paper.FIG7_RATE:
                ax.plot([rates[0]], [means[0] + paper.FIG7_GAIN_OVER_K1[name]], "s", color="tab:red",
                        label=f"paper (text): K={paper.FIG7_K_GAIN} at rho=10%")
        ax.set_title(f"{name}: Fig. 7 {'top' if i < len(names) else 'bottom'}")
    return panels_png(fig, "micro-F1 (%)", xlabel="label rate rho (%)", xscale="linear")


PLOTS = {"fig5": fig5_plot, "fig6": fig6_plot, "fig7": fig7_plot}
