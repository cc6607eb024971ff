"""``ldp-audit reproduce ldp-ge [--quick|--full]``: LDP-GE's Table III, Fig. 2 and k sweep, paper vs measured.

--quick: Cora, link prediction at eps in {1, 5} with HDS and MB (and MB rescaled), node classification at
eps = 1, 3 runs, push propagation. --full: every Table III dataset whose features are in the datasets folder
(``--datasets`` restricts), 10 runs, the tables of ``--tables`` (default all): table3 (link AUC: LP, PM, MB,
HDS at eps 1, 2, 3, 5 and the non-private row), fig2 (node accuracy: the four mechanisms at eps 0.01 ... 5 and
non-private) and ksweep (HDS at eps = 1, k in {1, 3, 5, 10, 20, 30, 50}, both
tasks). ``--plot`` draws one row of panels per table, one panel per dataset, the printed numbers beside the
measured ones. --full propagates with "auto" (push or power iteration at push's error
bound, whichever is predicted cheaper; each result records which ran). Every run is one JSON under --results;
a rerun resumes, --max-runs stops after a chunk. ``--device cuda`` trains the MLPs on the GPU (propagation stays
on the CPU), ``--workers`` processes sharing it. ``--downstream logreg`` trains the paper's logistic regression
instead of the released MLP (its runs are stored beside, under their own keys). The runs go through the training
core's sweep (``sweep.run_sweep`` with ``sweep.TRAIN_BATCH``) on ``--engine local|processes|dask``.

``--protocol spec|released|both`` (issue 26): the cells under the spec's protocol, the authors' released code's
(``protocols.protocol("ldp-ge", "released")``), or both, released rows suffixed " [released]", followed by an
attribution of the ATTRIBUTED_CELLS cells whose two protocols differ most (one element switched back to the spec
at a time, paired by seed). With --quick the grid is ``ldp_ge.protocol_cells`` (Cora, eps = 1: the four link
mechanisms, the non-private link row, node HDS and MB; 2 runs). With --full the released protocol applies to
the cells of Table III and Fig. 2: the k sweep keeps the spec's protocol.

``--set FIELD=VALUE ...`` changes run-config fields of every cell (after any preset), e.g. the hypotheses about the
authors' unreleased link files (``feature_rows=l1``, ``feature_bounds=columns``, ``link_graph=full``) or
``link_pred.py``'s own hyperparameters; the grid's own axes (:data:`GRID_AXES`) are refused. The runs are stored
under keys of their own and the report's settings name the fields.
"""
from __future__ import annotations

import time
from dataclasses import fields, replace

from .common import (PROTOCOL_TABLES, PROTOCOLS_OF_OPTION, devices_used, panel_grid, panels_png, paper_datasets,
                     planned_runs, run_or_plan, software_used)


#: Config fields that are the grid's own axes (or an option of their own, --downstream): --set refuses them.
GRID_AXES = ("dataset", "task", "mechanism", "eps", "k", "seed", "downstream")


def field_changes(args) -> dict:
    """``{field: value}`` of ``--set FIELD=VALUE ...``, each value read as an int, float, true/false or text; an
    unknown field, a grid axis or a field given twice is refused by name (values are checked by the config)."""
    from ...models.training.ldp_ge import LdpGeConfig
    from .._common import parse_param

    allowed = [f.name for f in fields(LdpGeConfig) if f.name not in GRID_AXES]
    changes = {}
    for text in getattr(args, "set", None) or ():
        name, value = parse_param(text, "--set") if "=" in text else ("", None)
        if not name:
            raise ValueError(f"--set: FIELD=VALUE, got {text!r}")
        if name not in allowed:
            raise ValueError(f"--set: {name!r} is not a field --set changes; one of {', '.join(allowed)}")
        if name in changes:
            raise ValueError(f"--set: {name} given twice")
        changes[name] = value
    return changes


def _with_changes(cells: list, changes: dict) -> list:
    """``cells`` with ``changes`` on every config (a config's own check names a bad value: "--set: ...")."""
    if not changes:
        return cells
    try:
        return [replace(cell, configs=tuple(replace(c, **changes) for c in cell.configs)) for cell in cells]
    except ValueError as error:
        raise ValueError(f"--set: {error}") from None


def _mechanisms(args) -> tuple:
    """The private mechanisms of ``--mechanisms`` (default all four), each one LDP-GE knows."""
    from ...models.training.ldp_ge import TABLE3_MECHANISMS

    chosen = tuple(args.mechanisms or TABLE3_MECHANISMS)
    unknown = [m for m in chosen if m not in TABLE3_MECHANISMS]
    if unknown:
        raise ValueError(f"--mechanisms must be among {', '.join(TABLE3_MECHANISMS)} for ldp-ge, got "
                         f"{', '.join(unknown)}")
    return chosen


def _tables(args) -> tuple:
    from ...models.training.ldp_ge import TABLES

    return tuple(args.tables or TABLES)  # ids checked by reproduce.check_options


def plan(args):
    """(cells, runs, datasets without features, subject) of the mode and options in ``args``."""
    from ...models import data
    from ...models.training import ldp_ge

    if args.mode == "quick":
        if args.protocol is not None:  # the protocol grid (eps = 1, every Table III row) on any dataset
            if args.tables:
                raise ValueError("--tables: reproduce ldp-ge --quick --protocol runs its fixed grid; use --full")
            names, runs = paper_datasets(args, ldp_ge), args.runs or ldp_ge.PROTOCOL_RUNS
            missing = [n for n in (args.datasets or ()) if data.load(
                ldp_ge.TABLE3_DATASETS[n], args.data_dir, args.cache_dir, with_features=False).missing_features]
            if missing:
                raise ValueError(f"--datasets: {', '.join(missing)} ha{'s' if len(missing) == 1 else 've'} no "
                                 "feature file, so no LDP-GE run (see `ldp-audit data`)")
            cells = [c for name in names for c in
                     ldp_ge.protocol_cells(runs, ldp_ge.TABLE3_DATASETS[name], downstream=args.downstream)]
            return (_under_protocols(args, cells), runs, (),
                    {"paper": "ldp-ge", "tables": f"Table III ({', '.join(names)}, eps 1, all rows) + Fig. 2 "
                                                  "(HDS/MB, eps 1)", "protocol": args.protocol})
        if args.tables or args.datasets not in (None, ["cora"], ("cora",)):
            raise ValueError("--tables / --datasets: reproduce ldp-ge --quick is Cora's fixed grid; use --full")
        runs = args.runs or ldp_ge.QUICK_RUNS
        return (_with_changes(ldp_ge.quick_cells(runs, downstream=args.downstream), field_changes(args)), runs, (),
                {"paper": "ldp-ge", "tables": "Table III (Cora, HDS/MB, eps 1 and 5) + Fig. 2 point (eps 1)"})
    names, tables = paper_datasets(args, ldp_ge), _tables(args)
    missing = tuple(n for n in names if data.load(ldp_ge.TABLE3_DATASETS[n], args.data_dir, args.cache_dir,
                                                  with_features=False).missing_features is not None)
    runs = args.runs or ldp_ge.FULL_RUNS
    cells = [cell for cell in ldp_ge.full_cells(tuple(n for n in names if n not in missing), runs, tables,
                                                downstream=args.downstream)
             if cell.eps is None or cell.mechanism in _mechanisms(args)]
    protocol = {} if args.protocol is None else {"protocol": args.protocol}
    return _under_protocols(args, cells), runs, missing, {"paper": "ldp-ge", "tables": " + ".join(tables), **protocol}


def _under_protocols(args, cells: list) -> list:
    """The cells of every protocol ``--protocol`` names (kept in ``args.protocol_cells``, name -> cells), all
    together; the spec's cells unchanged without --protocol. A preset other than the spec's changes the cells
    :func:`_takes_protocol` accepts; with ``both`` its list holds only those (the others would repeat the spec's
    rows), alone it keeps the others under the spec's protocol. Where a protocol's non-private row reads the raw
    features already, its "non-private raw" cell is left out (the same run twice)."""
    from ...models.training import ldp_ge
    from ...models.training.protocols import protocol

    chosen = PROTOCOLS_OF_OPTION[args.protocol] if args.protocol else ()
    changes = field_changes(args)
    args.protocol_cells = {}
    for name in chosen:
        preset = protocol("ldp-ge", name)
        args.protocol_cells[name] = ldp_ge.without_repeated_clear(_with_changes(cells if name == "spec" else [
            ldp_ge.under_protocol([c], preset)[0] if _takes_protocol(args, c) else c
            for c in cells if len(chosen) == 1 or _takes_protocol(args, c)], changes))
    return [c for own in args.protocol_cells.values() for c in own] if chosen else \
        ldp_ge.without_repeated_clear(_with_changes(cells, changes))


def _takes_protocol(args, cell) -> bool:
    """Whether ``--protocol`` applies to ``cell``: every cell of the quick protocol grid, with --full the cells of
    Table III and Fig. 2 (``PROTOCOL_TABLES``; the k sweep keeps the spec's protocol)."""
    return args.mode == "quick" or cell.table in PROTOCOL_TABLES["ldp-ge"]


def run_ldp_ge(args, console, root) -> int:
    """Fill the cells (resuming from the results folder ``root``), then report paper vs measured (spec
    C21-C23); with --plan print the plan instead."""
    from ...audits.reproduction.ldp_ge import ldp_ge_report
    from ...models.training import RunStore, sweep
    from ...models.training.runtime import choose_device
    from .._common import emit

    device = choose_device(args.device)
    args.downstream = args.downstream or "mlp"
    cells, runs, missing, subject = plan(args)
    store = RunStore(root)
    configs = list(dict.fromkeys(c for cell in cells for c in cell.configs))
    started = time.perf_counter()
    results = run_or_plan(args, console, f"reproduce ldp-ge --{args.mode}",
                          planned_runs(args, configs, store, lambda stored: _attributed(args, stored, True))
                          if args.plan else configs, store, device,
                          lambda config: (config.dataset, config.task), sweep.TRAIN_BATCH, sweep.TRAIN_BATCH_KEY)
    if results is None:
        return 0
    downstream = {} if args.downstream == "mlp" else {"downstream": f"{args.downstream} (the paper's logistic "
                                                                     "regression, not the released MLP)"}
    changed = {"set": " ".join(args.set)} if getattr(args, "set", None) else {}
    settings = {"mode": args.mode, "runs": runs, **downstream, **changed,
                "device": devices_used(results.values(), device), "software": software_used(results.values()),
                "results": str(store.root),
                "runs finished": f"{len(results)}/{len(configs)}",
                "wall time (s)": round(time.perf_counter() - started, 1)}
    if args.protocol is None:
        report = ldp_ge_report(f"ldp-ge reproduction ({args.mode})", cells, results, subject=subject,
                               missing=missing, settings=settings)
    else:
        report = _protocol_report(args, console, store, device, results, subject, missing, settings)
    if args.plot:
        from ...files import write_atomic

        write_atomic(args.plot, ldp_ge_plot(report))
    return emit(report, args, console)


def _protocol_report(args, console, store, device, results, subject, missing, settings):
    """The report of ``--protocol``: every chosen protocol's rows (suffixed " [name]" when both), then with both
    the attribution of the ATTRIBUTED_CELLS cells whose protocols differ most; trains the attribution runs that
    are missing (resumable, --max-runs applies)."""
    from dataclasses import replace

    from ...audits.kernel.result import AuditReport
    from ...audits.reproduction.ldp_ge import ldp_ge_attribution_rows, ldp_ge_report
    from ...audits.reproduction.protocol_gap import attribution_configs
    from ...models.training import sweep

    rows = []
    for name, own in args.protocol_cells.items():
        table = ldp_ge_report("", own, results, missing=missing)
        rows += table.results if len(args.protocol_cells) == 1 else \
            [replace(r, name=f"{r.name} [{name}]") for r in table.results]
    if args.protocol == "both":
        attributed = _attributed(args, results)
        configs = attribution_configs(attributed)
        switched = run_or_plan(args, console, "attribution", configs, store, device,
                               lambda config: (config.dataset, config.task), sweep.TRAIN_BATCH,
                               sweep.TRAIN_BATCH_KEY) if configs else {}
        rows += ldp_ge_attribution_rows(attributed, {**results, **(switched or {})})
    return AuditReport.of(f"ldp-ge reproduction ({args.mode}, protocol {args.protocol})", rows, subject, settings)


def _attributed(args, results: dict, planning: bool = False) -> list:
    """The cells ``--protocol both`` attributes (``ldp_ge.attribution_grids`` of the cells the released protocol
    applies to, from ``results``; ``planning``: unfinished cells follow, for --plan): the one list of attribution
    runs that --plan counts and the report trains."""
    from ...audits.reproduction.ldp_ge import attribution_grids
    from ...models.training.protocols import protocol

    spec = [c for c in args.protocol_cells["spec"] if _takes_protocol(args, c)]
    return attribution_grids(spec, args.protocol_cells["released"], results, protocol("ldp-ge", "released"),
                             planning=planning)


#: Line colour per mechanism in every LDP-GE panel.
COLOURS = {"LP": "tab:green", "PM": "tab:red", "MB": "tab:blue", "HDS": "tab:orange"}


#: Line style of each protocol's series with ``--protocol both`` (unsuffixed rows are the spec's).
PROTOCOL_STYLES = {"spec": "-", "released": ":"}


def ldp_ge_plot(report) -> bytes:
    """PNG, one row per target in the report and one panel per dataset: Table III (link AUC against eps, each
    mechanism measured as mean ± std beside the printed mean ± std as open squares, the non-private AUC as a
    line, solid measured and dashed printed), Fig. 2 (node accuracy against eps, with the quoted HDS point and
    the quoted gap to non-private, C22; the paper prints no other number) and the k sweep (HDS's score against
    k per task, measured only: Figs. 3-4 print no numbers). With ``--protocol both`` each protocol is its own
    series (:func:`protocol_series`): the spec's solid, the released code's dotted, labelled with the protocol;
    the printed numbers are drawn once."""
    rows = [r for r in report.results if "measured_mean" in r.details]
    groups = [(title, [r for r in rows if keep(r)]) for title, keep in (
        ("Table III", lambda r: r.details["task"] == "link" and " k=" not in r.name),
        ("Fig. 2", lambda r: r.details["task"] == "node" and " k=" not in r.name),
        ("Figs. 3-4, k sweep", lambda r: " k=" in r.name))]
    groups = [(title, own) for title, own in groups if own]
    names = [list(dict.fromkeys(r.name.split(" ")[0] for r in own)) for _, own in groups]
    fig, grid = panel_grid([[f"{name}: {title}" for name in row] for (title, _), row in zip(groups, names)])
    for (title, own), panels, row_names in zip(groups, grid, names):
        for (ax, _), name in zip(panels, row_names):
            series = protocol_series([r for r in own if r.name.startswith(name + " ")])
            for first, (protocol, mine) in zip((True, False), series.items()):
                label = "" if len(series) == 1 else f" [{protocol}]"
                style = PROTOCOL_STYLES[protocol]
                if title.startswith("Figs."):
                    _k_panel(ax, mine, style, label)
                    continue
                link = title == "Table III"
                _eps_panel(ax, mine, "AUC (%)" if link else "test accuracy (%)", style, label,
                           with_paper=link and first)
                if title == "Fig. 2" and first:
                    _figure2_quotes(ax, name, mine)
    return panels_png(fig, "score (%)")


def protocol_series(rows) -> dict:
    """``rows`` by protocol, the spec's first: a row suffixed " [released]" is the released protocol's, any other
    row (" [spec]" or no suffix) the spec's; each series keeps the rows' order, with names stripped of the
    suffix."""
    from dataclasses import replace

    series = {}
    for r in rows:
        protocol = next((p for p in PROTOCOL_STYLES if r.name.endswith(f" [{p}]")), "spec")
        series.setdefault(protocol, []).append(replace(r, name=r.name.removesuffix(f" [{protocol}]")))
    return dict(sorted(series.items(), key=lambda item: item[0] != "spec"))


def _eps_panel(ax, own, ylabel: str, style: str = "-", label: str = "", with_paper: bool = True) -> None:
    """One line per mechanism against eps (mean ± std; rescaled cells left out) in line ``style`` with ``label``
    after each name, with ``with_paper`` the printed mean ± std as open squares, the non-private scores as
    horizontal lines."""
    for mechanism, colour in COLOURS.items():
        line = sorted((r for r in own if r.details["mechanism"] == mechanism and r.details["eps"] is not None
                       and "rescaled" not in r.name), key=lambda r: r.details["eps"])
        if not line:
            continue
        eps = [r.details["eps"] for r in line]
        ax.errorbar(eps, [r.details["measured_mean"] for r in line], [r.details["measured_std"] for r in line],
                    fmt="o", linestyle=style, capsize=3, color=colour, label=mechanism + label)
        printed = [r for r in line if "paper_mean" in r.details] if with_paper else []
        if printed:
            ax.errorbar([r.details["eps"] for r in printed], [r.details["paper_mean"] for r in printed],
                        [r.details["paper_spread"] for r in printed], fmt="s--", mfc="none", capsize=2,
                        color=colour, alpha=0.7, label=f"{mechanism} paper")
    for r in own:
        if r.details["eps"] is None:
            raw = " raw" in r.name
            ax.axhline(r.details["measured_mean"], color="black" if raw else "grey", linestyle=style,
                       label=("non-private (raw features)" if raw else "non-private") + label)
            if "paper_mean" in r.details and not raw and with_paper:
                ax.axhline(r.details["paper_mean"], color="grey", linestyle="--", label="non-private paper")
    ax.set_ylabel(ylabel)


def _figure2_quotes(ax, name: str, own) -> None:
    """The Fig. 2 numbers the text quotes (C22): HDS's accuracy at small eps, and its gap to non-private applied
    to our non-private accuracy."""
    from ...papers import ldp_ge as paper

    clear = next((r.details["measured_mean"] for r in own if r.details["eps"] is None), None)
    quoted = paper.FIG2_HDS_QUOTED.get(name)
    if quoted is not None:
        ax.plot([paper.FIG2_SMALL_EPS], [quoted], "k*", markersize=10, label="paper (quoted HDS)")
    gap = paper.FIG2_GAPS.get((name, None))
    if clear is not None and gap is not None and gap[1] == "gap":
        ax.plot([paper.FIG2_SMALL_EPS], [clear + gap[0]], "kx", markersize=9,
                label="paper gap to non-private, applied to ours")


def _k_panel(ax, own, style: str = "-", label: str = "") -> None:
    """HDS's score against k, one line per task (mean ± std) in line ``style``, ``label`` after each name."""
    for task, colour in (("node", "tab:orange"), ("link", "tab:purple")):
        line = sorted(((int(r.name.split(" k=")[1].split(" ")[0]), r) for r in own if r.details["task"] == task),
                      key=lambda pair: pair[0])
        if line:
            ax.errorbar([k for k, _ in line], [r.details["measured_mean"] for _, r in line],
                        [r.details["measured_std"] for _, r in line], fmt="o", linestyle=style, capsize=3,
                        color=colour, label=f"HDS {task} (eps = {line[0][1].details['eps']:g}){label}")
    ax.set_xscale("log")
    ax.set_xlabel("k (sampled dimensions)")
    ax.set_ylabel("score (%)")
