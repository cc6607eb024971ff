"""``ldp-audit reproduce se-privgemb [--quick|--full] [--tables ...]``: SE-PrivGEmb's Tables II-VI and the Fig. 3
and Fig. 4 read-offs, paper vs measured (tolerance rule and accountant: ``audits.reproduction.se_privgemb``).

--quick: Power, 3 runs, Table VI, Fig. 3 (StrucEqu against eps, both proximities, non-private SE-GEmb beside) and
Fig. 4 at eps 0.5 and 3.5 with 500 of 2000 link-prediction steps; every reduced cell says so in its row.
--full: 10 runs; Tables II-VI on Chameleon, Power and Arxiv, Fig. 3 on Chameleon, PPI, Power, Arxiv and
BlogCatalog (DBLP: not shipped), Fig. 4 on Power and Arxiv (Chameleon has no stored split). ``--tables`` picks
among table2 ... table6, fig3, fig4 and ``--datasets`` restricts (paper names, any case). Every run is one JSON
under --results; a rerun resumes, --max-runs stops after a chunk; --plot draws one row of panels per table,
one panel per dataset, the paper's numbers beside the measured ones. Every StrucEqu cell also gets its controls
row (measured / degree-only / permuted). ``--protocol released`` reads StrucEqu as the authors' released code
evaluates it (``both``: spec and released rows; INFO, never a verdict), refused when --tables has no StrucEqu
table; training is the spec's either way.
"""
from __future__ import annotations

import time

from .common import PROTOCOLS_OF_OPTION, devices_used, panel_grid, panels_png, run_or_plan


def _datasets(args) -> tuple:
    from ...audits.reproduction import se_privgemb as repro

    if args.mode == "quick" and not args.datasets:
        return (repro.QUICK_DATASET,)
    names = {n.lower(): n for n in (*repro.DATASETS, *repro.NOT_RUNNABLE)}
    asked = args.datasets or list(repro.DATASETS)
    unknown = [n for n in asked if n.lower() not in names]
    if unknown:
        raise ValueError(f"--datasets must be among {', '.join(names.values())}, got {', '.join(unknown)}")
    return tuple(names[n.lower()] for n in asked if names[n.lower()] in repro.DATASETS)




def _evaluations(args, tables) -> tuple:
    """The StrucEqu evaluations --protocol asks for; a released one with no StrucEqu table among ``tables`` is
    refused (it would change nothing while the settings claimed it: link cells have only the spec's AUC)."""
    from ...audits.reproduction.se_privgemb import LINK_TABLES, TABLES

    protocol = getattr(args, "protocol", None)
    evaluations = PROTOCOLS_OF_OPTION[protocol]
    if "released" in evaluations and all(t in LINK_TABLES for t in tables):
        strucequ = ", ".join(t for t in TABLES if t not in LINK_TABLES)
        raise ValueError(f"--protocol {protocol}: se-privgemb's released protocol is its StrucEqu evaluation, and "
                         f"--tables {' '.join(tables)} has no StrucEqu cell (link AUC has only the spec's "
                         f"evaluation); add a StrucEqu table ({strucequ}) or drop --protocol")
    return evaluations


def edge_counts(datasets, data_dir, cache_dir) -> dict:
    """{(paper dataset, task): edges of the training graph} (gamma = B/|E|, spec U12)."""
    from ...audits.reproduction.se_privgemb import DATASETS, LINK_DATASETS
    from ...models import data

    counts = {}
    for name in datasets:
        counts[(name, "strucequ")] = data.load(DATASETS[name], data_dir, cache_dir, with_features=False).num_edges
        if name in LINK_DATASETS:
            counts[(name, "link")] = int(data.load_link_split(DATASETS[name], 0.9, data_dir)["train_pos"].shape[1])
    return counts


def run_se_privgemb(args, console, root) -> int:
    """Plan the cells, fill them (resuming from the results folder ``root``), report paper vs measured."""
    from ...audits.reproduction import se_privgemb as repro
    from ...models.se_privgemb_runs import SePrivGEmbStore, run_with_cache
    from ...models.training.runtime import choose_device
    from ...models.training.sweep import one_by_one
    from ...papers import se_privgemb as paper
    from .._common import emit

    tables = repro.check_tables(args.tables) or (repro.QUICK_TABLES if args.mode == "quick" else repro.TABLES)
    evaluations = _evaluations(args, tables)
    datasets = _datasets(args)
    runs = args.runs or (repro.QUICK_RUNS if args.mode == "quick" else paper.RUNS_PRINTED)
    device = choose_device(args.device)
    cells = repro.plan_cells(tables, datasets, runs, edge_counts(datasets, args.data_dir, args.cache_dir),
                             quick=args.mode == "quick")
    store = SePrivGEmbStore(root)
    configs = list(dict.fromkeys(c for cell in cells for c in cell.configs))
    started = time.perf_counter()
    results = run_or_plan(args, console, f"reproduce se-privgemb --{args.mode}", configs, store, device,
                          lambda config: (config.dataset, config.task), one_by_one(run_with_cache), None)
    report = repro.se_privgemb_report(
        f"se-privgemb reproduction ({args.mode})", cells, results, tables, datasets,
        subject={"paper": "se-privgemb", "tables": " + ".join(tables), "datasets": ", ".join(datasets),
                 "baselines not reproduced": ", ".join(paper.BASELINES)},
        settings={"mode": args.mode, "runs": runs, "device": devices_used(results.values(), device),
                  "results": str(store.root), "runs finished": f"{len(results)}/{len(configs)}",
                  "accountant": "claimed: Theorem 4 + Theorem 1 (stop rule, checked before the update); "
                                "per-subgraph: dp-accounting WOR, sigma/(2 sqrt 2); node level: none",
                  "tolerance": f"|m - m_p| <= {repro.Z:g} sqrt(s_p^2/10 + s^2/n) + {repro.FLOOR:g}",
                  **({} if evaluations == ("spec",) else {"strucequ evaluation": " + ".join(evaluations)}),
                  "wall time (s)": round(time.perf_counter() - started, 1)},
        evaluations=evaluations)
    if args.plot:
        from ...files import write_atomic

        write_atomic(args.plot, se_privgemb_plot(report))
    return emit(report, args, console)


#: Line colour per method in every SE-PrivGEmb panel (a private method shares its non-private twin's colour).
COLOURS = {"SE-PrivGEmb_DW": "tab:blue", "SE-PrivGEmb_Deg": "tab:orange", "SE-PrivGEmb_DW naive": "tab:cyan",
           "SE-PrivGEmb_Deg naive": "tab:red", "SE-GEmb_DW": "tab:blue", "SE-GEmb_Deg": "tab:orange",
           "noise-only control_DW": "tab:grey", "noise-only control_Deg": "black"}
#: The rows of the figure: (title, which report rows, x axis: "eps" or a swept parameter).
_GROUPS = (("Fig. 3 + Table VI: StrucEqu", ("fig3", "table6"), "eps"),
           ("Table II: StrucEqu vs B", ("table2",), "B"), ("Table III: StrucEqu vs eta", ("table3",), "eta"),
           ("Table IV: StrucEqu vs C", ("table4",), "C"), ("Table V: StrucEqu vs k", ("table5",), "k"),
           ("Fig. 4: link AUC", ("fig4",), "eps"))


def se_privgemb_plot(report) -> bytes:
    """PNG, one row per target in the report and one panel per dataset. Against eps (Fig. 3 with Table VI, and
    Fig. 4): each method measured (mean ± sd), the non-private SE-GEmb as a horizontal line, the paper's points
    (Table VI values, figure read-offs) as open squares in the same colour, its non-private read-off dotted.
    Tables II-V: StrucEqu at eps = 3.5 against the swept parameter, measured beside the printed mean ± sd. With
    both StrucEqu evaluations in the report the spec's rows are drawn (link rows have one evaluation, the spec's,
    and are always drawn); a StrucEqu panel also draws the degree-only control (its mean over the dataset's cells)
    as a dashed grey line."""
    rows = [r for r in report.results if "measured_mean" in r.details]
    shown = _shown_evaluation(rows)
    rows = [r for r in rows if r.details["task"] != "strucequ" or r.details.get("evaluation", "spec") == shown]
    degree_only = _degree_only_means(report, shown)
    groups = [(title, [r for r in rows if r.details.get("table") in tables], axis) for title, tables, axis in _GROUPS]
    groups = [group for group in groups if group[1]]
    names = [list(dict.fromkeys(r.details["dataset"] for r in own)) for _, own, _ in groups]
    fig, grid = panel_grid([[f"{name}: {title}" for name in row] for (title, _, _), row in zip(groups, names)])
    fig.set_size_inches(6.5 * max(1, *(len(row) for row in grid)), 5.0 * len(grid))
    for (title, own, axis), panels, row_names in zip(groups, grid, names):
        for (ax, _), name in zip(panels, row_names):
            mine = [r for r in own if r.details["dataset"] == name]
            if axis == "eps":
                _eps_panel(ax, mine)
            else:
                _sweep_panel(ax, mine, axis)
            ax.set_ylabel("AUC" if title.startswith("Fig. 4") else "StrucEqu")
            if not title.startswith("Fig. 4") and name in degree_only:
                ax.axhline(degree_only[name], color="grey", linestyle="--", label="degree-only control")
    return panels_png(fig, "StrucEqu")


def _shown_evaluation(rows) -> str:
    """The StrucEqu evaluation the plot draws: the spec's when the report has StrucEqu rows under it, else the
    released one (link rows carry no evaluation and do not count)."""
    strucequ = [r for r in rows if r.details["task"] == "strucequ"]
    return "released" if strucequ and all("evaluation" in r.details for r in strucequ) else "spec"


def _degree_only_means(report, evaluation: str) -> dict:
    """{dataset: mean degree-only StrucEqu over its ``controls:`` rows under ``evaluation``}."""
    found = {}
    for row in report.results:
        if row.name.startswith("controls: ") and row.details.get("evaluation") == evaluation:
            found.setdefault(row.details["dataset"], []).append(row.details["means"]["degree_only"])
    return {name: sum(values) / len(values) for name, values in found.items()}


def _eps_panel(ax, own) -> None:
    paper_label = iter(["paper (open squares; non-private dotted)"])
    for method, colour in COLOURS.items():
        line = {r.details["eps"]: r for r in own if r.details["method"] == method}
        if None in line:
            ax.axhline(line[None].details["measured_mean"], color=colour, linestyle="-", alpha=0.5,
                       label=f"{method} measured")
            if "paper_mean" in line[None].details:
                ax.axhline(line[None].details["paper_mean"], color=colour, linestyle=":")
            continue
        eps = sorted(line)
        if not eps:
            continue
        ax.errorbar(eps, [line[e].details["measured_mean"] for e in eps],
                    [line[e].details["measured_std"] for e in eps], fmt="o-", capsize=3, color=colour,
                    label=f"{method} measured")
        printed = [(r.details["eps"], r.details["paper_mean"]) for r in own
                   if r.details["method"] == method and "paper_mean" in r.details]
        if printed:
            ax.plot(*zip(*printed), "s", mfc="none", color=colour, label=next(paper_label, None))


#: Parameters swept on a log axis (B doubles, eta spans 0.01 ... 0.3).
_LOG_PARAMS = ("B", "eta")


def _sweep_panel(ax, own, param: str) -> None:
    for method in ("SE-PrivGEmb_DW", "SE-PrivGEmb_Deg"):
        line = sorted((r for r in own if r.details["method"] == method), key=lambda r: r.details["value"])
        if not line:
            continue
        x = [r.details["value"] for r in line]
        ax.errorbar(x, [r.details["measured_mean"] for r in line], [r.details["measured_std"] for r in line],
                    fmt="o-", capsize=3, color=COLOURS[method], label=f"{method} measured")
        printed = [r for r in line if "paper_mean" in r.details]
        if printed:
            ax.errorbar([r.details["value"] for r in printed], [r.details["paper_mean"] for r in printed],
                        [r.details["paper_std"] for r in printed], fmt="s--", mfc="none", capsize=2,
                        color=COLOURS[method], alpha=0.7, label=f"{method} paper")
    if param in _LOG_PARAMS:
        ax.set_xscale("log")
    ax.set_xlabel(param)
