"""What every ``reproduce`` paper shares (the options it shares with ``train`` live in ``commands.options`` and
``commands._common``): picking ``--datasets`` from a preset module, the plan (``--plan``: runs, tasks, measured
cost, estimate), the progress bar over training runs, naming the devices the stored runs trained on, and the
accuracy-against-eps figure (one panel per dataset)."""
from __future__ import annotations

import heapq
import os
import time
from dataclasses import dataclass, field, replace

from .._common import sweep_engine

#: The protocols each ``--protocol`` value runs, in report order (absent: the spec's alone).
PROTOCOLS_OF_OPTION = {None: ("spec",), "spec": ("spec",), "released": ("released",), "both": ("spec", "released")}

#: The tables and figures whose runs a training preset of ``--protocol`` changes, per paper; the others keep the
#: spec's protocol (LDP-GE's k sweep; LPGNN's and PPGNN's figures sweep settings of their own).
PROTOCOL_TABLES = {"lpgnn": ("table3",), "ppgnn": ("table3",), "ldp-ge": ("table3", "fig2")}


def simulated_wall_s(task_costs: list, workers: int) -> float:
    """Seconds until the last task ends when tasks go, in order, to the first free of ``workers`` workers (the
    sweep driver's policy)."""
    free = [0.0] * max(1, min(workers, len(task_costs)))
    for cost in task_costs:
        heapq.heappush(free, heapq.heappop(free) + cost)
    return max(free, default=0.0)


def estimate(groups, cost_of, workers: int) -> dict:
    """CPU-seconds and wall seconds of the tasks ``groups`` (each a list of configs; ``cost_of(config)``: one
    run's measured CPU-seconds) on ``workers`` workers."""
    costs = [sum(cost_of(config) for config in group) for group in groups]
    cpu = sum(costs)
    return {"cpu_s": cpu, "cpu_hours": cpu / 3600, "wall_s": simulated_wall_s(costs, workers)}


#: The probe trains each shape's representative run twice, this many epochs each: the difference gives the cost of
#: an epoch, the rest the set-up (perturbation, propagation, model), so no probe trains a whole run.
PROBE_EPOCHS = (10, 40)
#: CPU-seconds the probes of one shape should stay within. A shape whose untimed 1-epoch warm-up run, times the
#: epochs of PROBE_EPOCHS, would pass it is timed on SHORT_PROBE_EPOCHS instead, and its early-stopping runs are
#: not trained to their stop when even their shortest possible runs would pass it (they are charged that shortest
#: run, and the estimate says it is a lower bound). One released Facebook link run of LDP-GE (80 CPU-s of set-up,
#: propagation included; 18 CPU-s an epoch) kept the full probe busy for more than 17 minutes.
PROBE_BUDGET_S = 600.0
SHORT_PROBE_EPOCHS = (2, 5)


def propagation_steps(config) -> int:
    """K_x + K_y of a training run (0 for configs without them): within one shape, what a run's cost grows with."""
    return getattr(config, "k_x", 0) + getattr(config, "k_y", 0)


def cost_class(config) -> tuple:
    """What else sets a stacked run's cost: its feature source and mechanism (a dense report's product costs
    n d h per pass, a sparse one's, LPGNN's multi-bit, next to nothing; RND's control runs on CiteSeer cost
    several times the multi-bit runs of the same K)."""
    perturbed = getattr(config, "eps_x", None) is not None
    return getattr(config, "features", None), getattr(config, "mechanism", None) if perturbed else None


@dataclass(frozen=True)
class RunCost:
    """Measured CPU-seconds of one run of a shape: ``setup_s + epoch_s * epochs``, plus ``setup_per_step`` and
    ``epoch_per_step`` for each propagation step of the run (:func:`propagation_steps`). A pipeline that stops
    early (LDP-GE: patience on validation) is charged instead of its epoch budget the epochs its cell's stored
    runs ran (``cell_epochs``, by :func:`cell_of`), else ``expected_epochs`` (see :func:`expected_epochs`).
    ``probe_epochs``: the epochs the probes trained; ``lower_bound``: ``expected_epochs`` is the fewest epochs a
    run can train, not a measurement (the stop probe would have passed :data:`PROBE_BUDGET_S`)."""

    setup_s: float
    epoch_s: float
    setup_per_step: float = 0.0
    epoch_per_step: float = 0.0
    expected_epochs: float | None = None
    cell_epochs: dict = field(default_factory=dict)
    probe_epochs: tuple = PROBE_EPOCHS
    lower_bound: bool = False

    def charged(self, epochs: int, cell=None) -> float:
        """The epochs a run with an ``epochs`` budget in ``cell`` is charged."""
        expected = self.cell_epochs.get(cell, self.expected_epochs)
        return epochs if expected is None else min(epochs, expected)

    def split(self, steps: int = 0, of_class=None) -> tuple[float, float]:
        """(set-up, per-epoch) CPU-seconds of a run with ``steps`` propagation steps."""
        return max(0.0, self.setup_s + self.setup_per_step * steps), \
            max(0.0, self.epoch_s + self.epoch_per_step * steps)

    def __call__(self, epochs: int, steps: int = 0, of_class=None) -> float:
        setup, epoch = self.split(steps, of_class)
        return setup + epoch * self.charged(epochs)


@dataclass(frozen=True)
class ClassCosts:
    """A stacked shape's :class:`RunCost` per :func:`cost_class`; a class not probed takes the first one's."""

    by_class: dict
    expected_epochs = None  # stacked shapes train their whole budget

    @staticmethod
    def charged(epochs: int, cell=None) -> int:
        return epochs

    def split(self, steps: int = 0, of_class=None) -> tuple[float, float]:
        return self.by_class.get(of_class, next(iter(self.by_class.values()))).split(steps)

    def __call__(self, epochs: int, steps: int = 0, of_class=None) -> float:
        setup, epoch = self.split(steps, of_class)
        return setup + epoch * self.charged(epochs)


def shape_label(shape) -> str:
    """A model shape as the plan prints it: ``citeseer/link`` for the tuple ("citeseer", "link")."""
    return "/".join(map(str, shape)) if isinstance(shape, tuple) else str(shape)


#: Runs of an early-stopping shape trained to their stop when no stored run tells how long they train, drawn at
#: random (a fixed seed) from the shape's runs: how long a run trains depends on its cell (CiteSeer link: an LP run
#: stopped after 54 epochs, a PM run after 255), and evenly spaced picks fall on one mechanism of a grid.
PROBE_STOP_RUNS = 4


def cell_of(config) -> tuple:
    """A run's cell: its config but the seed (the runs a table averages), as the run store names it."""
    return config.dataset, config.key()


def cell_epochs(shape, shape_of, stored) -> dict:
    """{cell: mean ``epochs_run``} of the ``stored`` runs of ``shape`` (:func:`cell_of`)."""
    ran: dict = {}
    for result in stored:
        if shape_of(result.config) == shape and "epochs_run" in result.metrics:
            ran.setdefault(cell_of(result.config), []).append(result.metrics["epochs_run"])
    return {cell: sum(epochs) / len(epochs) for cell, epochs in ran.items()}


def expected_epochs(configs: list, shape, known: dict, run_batch, device: str, cache, say=None,
                    cost: RunCost | None = None) -> tuple[float | None, bool]:
    """(epochs, lower bound?): the epochs an early-stopping run of ``shape`` whose cell has no stored run is
    expected to train: the mean ``epochs_run`` of :data:`PROBE_STOP_RUNS` of those ``configs`` (drawn at random,
    fixed seed) trained here to their early stop (nothing is stored; ``say`` is told first, since that takes as
    long as those runs); None when every config's cell is in ``known`` (:func:`cell_epochs`). Stored runs of other
    cells are no guide: on PubMed link an LP run stopped after 51-110 epochs, a PM run after 361-391. When the
    shape's measured ``cost`` says that those runs, each stopping as early as it can (``patience + 1`` epochs),
    would take more than :data:`PROBE_BUDGET_S`, nothing is trained and that shortest run is returned as a lower
    bound (``say`` is told why)."""
    unknown = [config for config in configs if cell_of(config) not in known]
    if not unknown:
        return None, False
    import numpy as np

    picks = np.random.default_rng(0).choice(len(unknown), min(PROBE_STOP_RUNS, len(unknown)), replace=False)
    shortest = min(unknown[0].epochs, unknown[0].patience + 1)
    at_least = 0.0 if cost is None else len(picks) * (cost.setup_s + cost.epoch_s * shortest)
    if at_least > PROBE_BUDGET_S:
        if say is not None:
            say(f"plan: {len(unknown)} {shape_label(shape)} runs are in cells with no stored run to tell how long "
                f"they train, and training {len(picks)} of them to their early stop would take at least "
                f"{at_least:.0f} CPU-s (the probe budget is {PROBE_BUDGET_S:.0f}): each is charged the fewest "
                f"epochs it can run ({shortest}), so the estimate is a lower bound")
        return float(shortest), True
    if say is not None:
        say(f"plan: {len(unknown)} {shape_label(shape)} runs are in cells with no stored run to tell how long "
            f"they train: training {len(picks)} of them to their early stop (as long as {len(picks)} real runs; "
            "not stored)")
    ran = [r.metrics["epochs_run"] for r in run_batch([unknown[i] for i in sorted(picks)], device, cache)]
    return sum(ran) / len(ran), False


def _probe_members(groups, shape_of, stacked: bool) -> dict:
    """{(shape, class): [[runs to time together], ...]}: the shape's first run (class None), or (``stacked``) per
    :func:`cost_class` its task with the fewest mean propagation steps and its task with the most."""
    key_of = (lambda c: (shape_of(c), cost_class(c))) if stacked else (lambda c: (shape_of(c), None))  # noqa: E731
    tasks: dict = {}
    for group in groups:
        parts: dict = {}
        for config in group:
            parts.setdefault(key_of(config), []).append(config)
        for key, members in parts.items():
            if stacked or key not in tasks:
                tasks.setdefault(key, []).append(members if stacked else [members[0]])
    mean_steps = lambda members: sum(map(propagation_steps, members)) / len(members)  # noqa: E731
    probes = {}
    for key, found in tasks.items():
        fewest, most = min(found, key=mean_steps), max(found, key=mean_steps)
        probes[key] = [fewest] if mean_steps(most) == mean_steps(fewest) else [fewest, most]
    return probes


def _timed_cost(probes: list, run_batch, device: str, data_dir, cache_dir, graphs) -> RunCost:
    """A :class:`RunCost` from the probe tasks (each trained for the :data:`PROBE_EPOCHS`, or for the
    :data:`SHORT_PROBE_EPOCHS` when its warm-up run says those would pass :data:`PROBE_BUDGET_S`), linear in the
    steps."""
    from ...models.training.train import RunCache

    def timed(members, count: int) -> float:
        cache = RunCache(data_dir, cache_dir, graphs={members[0].dataset: graphs.graph(members[0].dataset)})
        started = time.process_time()
        run_batch([replace(config, epochs=count) for config in members], device, cache)
        return (time.process_time() - started) / len(members)

    points, used = [], PROBE_EPOCHS  # (mean steps, set-up s, epoch s) per probed task
    for members in probes:
        warm_up = timed(members, 1)  # untimed in the estimate: torch's one-off start-up is no run's cost
        if warm_up * sum(PROBE_EPOCHS) > PROBE_BUDGET_S:
            used = SHORT_PROBE_EPOCHS
        epochs = sorted({min(e, members[0].epochs) for e in used})
        seconds = [timed(members, count) for count in epochs]
        epoch_s = max(0.0, (seconds[-1] - seconds[0]) / (epochs[-1] - epochs[0])) if len(epochs) > 1 else 0.0
        points.append((sum(map(propagation_steps, members)) / len(members),
                       max(0.0, seconds[0] - epoch_s * epochs[0]), epoch_s))
    (k0, setup0, epoch0), (k1, setup1, epoch1) = points[0], points[-1]
    if k1 == k0:
        return RunCost(setup0, epoch0, probe_epochs=used)
    setup_slope, epoch_slope = (setup1 - setup0) / (k1 - k0), (epoch1 - epoch0) / (k1 - k0)
    return RunCost(setup0 - setup_slope * k0, epoch0 - epoch_slope * k0, setup_slope, epoch_slope, probe_epochs=used)


def probe_costs(groups, shape_of, run_batch, device: str, data_dir, cache_dir, stacked: bool = False,
                stored=(), say=None) -> dict:
    """{shape: cost} per run (``cost(epochs, steps, cost_class)``): the shape's probe runs trained for the two
    :data:`PROBE_EPOCHS` (fewer past :data:`PROBE_BUDGET_S`, see :func:`_timed_cost`) in this process with one torch
    thread, each from a fresh cache (dataset loading and an untimed 1-epoch warm-up not counted), timed with process
    CPU time; nothing is stored. ``groups`` are the plan's tasks. A runner that trains a task as one stacked model
    (``stacked``) is probed on whole tasks and their time shared by the runs (a run in a stack costs a fraction of a
    run alone): per :func:`cost_class` of the shape, its task with the fewest propagation steps per run and the one
    with the most, and a run's cost is interpolated in its steps (a :class:`ClassCosts`). The first task alone
    (CiteSeer's GCN+Raw at K = 1) said half of what CiteSeer's grid took. Otherwise the shape's first run is probed
    (a :class:`RunCost`). Pipelines that stop early (``config.STOPS_EARLY``) are charged the epochs they are
    expected to run (:func:`expected_epochs`, from the ``stored`` results of the plan or a few probe runs to their
    early stop). ``say`` (if given) is told what is probed as it starts."""
    from ...models.training.runtime import limit_threads
    from ...models.training.train import RunCache

    limit_threads()
    graphs, costs, by_shape = RunCache(data_dir, cache_dir), {}, {}
    for config in (c for group in groups for c in group):
        by_shape.setdefault(shape_of(config), []).append(config)
    for (shape, of_class), probes in _probe_members(groups, shape_of, stacked).items():
        if say is not None:
            named = ", ".join(str(part) for part in of_class or () if part is not None)
            say(f"plan: timing {shape_label(shape)}{f' ({named})' if named else ''}: "
                f"{len(probes)} probe task{'s' if len(probes) != 1 else ''} trained for "
                f"{' and '.join(map(str, PROBE_EPOCHS))} epochs, or {' and '.join(map(str, SHORT_PROBE_EPOCHS))} "
                f"if its 1-epoch warm-up says that takes over {PROBE_BUDGET_S:.0f} CPU-s (not stored)")
        cost = _timed_cost(probes, run_batch, device, data_dir, cache_dir, graphs)
        first = probes[0][0]
        if getattr(first, "STOPS_EARLY", False):
            cache = RunCache(data_dir, cache_dir, graphs={first.dataset: graphs.graph(first.dataset)})
            known = cell_epochs(shape, shape_of, stored)
            epochs, lower_bound = expected_epochs(by_shape[shape], shape, known, run_batch, device, cache, say,
                                                  cost)
            cost = replace(cost, cell_epochs=known, expected_epochs=epochs, lower_bound=lower_bound)
        if stacked:
            costs.setdefault(shape, ClassCosts({})).by_class[of_class] = cost
        else:
            costs[shape] = cost
    return costs


def print_plan(console, title: str, plan, costs: dict, shape_of, engine: str, workers: int, json_out: bool) -> int:
    """The plan of a sweep (``--plan``): runs, tasks, the measured cost per run and the estimate; trains nothing."""
    import json

    split = lambda c: costs[shape_of(c)].split(propagation_steps(c), cost_class(c))  # noqa: E731
    charged = lambda c: costs[shape_of(c)].charged(c.epochs, cell_of(c))  # noqa: E731
    cost_of = lambda c: split(c)[0] + split(c)[1] * charged(c)  # noqa: E731
    numbers = estimate(plan.groups, cost_of, workers)
    runs: dict = {}
    for config in (c for group in plan.groups for c in group):
        runs.setdefault(shape_of(config), []).append(config)
    mean = lambda values: sum(values) / len(values)  # noqa: E731
    stopping = [shape for shape, cost in costs.items() if shape in runs and
                (cost.expected_epochs is not None or getattr(cost, "cell_epochs", None))]
    bounded = [shape_label(shape) for shape in stopping if costs[shape].lower_bound]
    probed = sorted({part.probe_epochs for cost in costs.values()
                     for part in getattr(cost, "by_class", {None: cost}).values()})
    summary = {"plan": title, "runs": plan.total, "stored": plan.stored, "to_train": plan.todo,
               "tasks": len(plan.groups), "largest_task": max((len(g) for g in plan.groups), default=0),
               "cpu_s_per_run": {shape_label(shape): round(mean([cost_of(c) for c in runs[shape]]), 3)
                                 for shape in costs},
               "cpu_s_setup_and_per_epoch": {shape_label(shape): [
                   round(mean([split(c)[i] for c in runs[shape]]), 4 + i) for i in (0, 1)] for shape in costs},
               **({"expected_epochs": {shape_label(shape): round(mean([charged(c) for c in runs[shape]]), 1)
                                       for shape in stopping}} if stopping else {}),
               **({"lower_bound_for": bounded} if bounded else {}),
               "engine": engine, "workers": workers, **{k: round(v, 3) for k, v in numbers.items()}}
    if json_out:
        print(json.dumps(summary))
        return 0
    lines = [f"plan: {title}",
             f"  runs: {plan.total} ({plan.stored} stored, {plan.todo} to train) in {len(plan.groups)} tasks of at "
             f"most {summary['largest_task']} runs",
             f"  CPU seconds per run (mean), measured here "
             f"({' or '.join(f'a {a}- and a {b}-epoch run' for a, b in probed) or 'no probe'} "
             "of a shape's first run, or of its stacks with the fewest and most propagation steps per feature "
             "source; one torch "
             "thread): " +
             (", ".join(f"{k} {v:.2f}" for k, v in summary["cpu_s_per_run"].items()) or "nothing to probe"),
             *([f"  runs stop early: charged the epochs they are expected to run (their cell's stored runs' mean, "
                f"else that of {PROBE_STOP_RUNS} probe runs of the cells with none, not stored), mean: " +
                ", ".join(f"{k} {v:g}" for k, v in summary["expected_epochs"].items())]
               if "expected_epochs" in summary else []),
             *([f"  lower bound for {', '.join(bounded)}: training probe runs to their early stop would have passed "
                f"the probe budget ({PROBE_BUDGET_S:.0f} CPU-s), so each of their runs is charged the fewest epochs "
                "it can run; a first chunk (--max-runs) stores runs whose epochs a later --plan uses"]
               if bounded else []),
             f"  estimate: {'at least ' if bounded else ''}{numbers['cpu_hours']:.3g} CPU-hours; "
             f"wall {numbers['wall_s'] / 3600:.3g} h "
             f"({numbers['wall_s']:.0f} s) on {engine} with {workers} worker{'s' if workers != 1 else ''}",
             "  nothing was trained or stored; drop --plan to run it"]
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    return 0


def paper_datasets(args, preset) -> tuple:
    """The datasets of ``--datasets`` (default: the preset's quick or full list), each one the preset knows."""
    names = args.datasets or (preset.QUICK_DATASETS if args.mode == "quick" else tuple(preset.TABLE3_DATASETS))
    unknown = [n for n in names if n not in preset.TABLE3_DATASETS]
    if unknown:
        raise ValueError(f"--datasets must be among {', '.join(preset.TABLE3_DATASETS)}, got {', '.join(unknown)}")
    return tuple(names)


def notice(text: str) -> None:
    """``ldp-audit: text`` on stderr (stdout stays the report's; a plain write: safe inside a signal handler)."""
    os.write(2, f"ldp-audit: {text}\n".encode())


class RunProgress:
    """A rich progress bar over runs (done / total, ETA) with the count of completed cells in its label; ``say``
    prints a notice above it (or on stderr when there is no bar)."""

    def __init__(self, console, total: int, enabled: bool):
        self.console, self.total, self.enabled = console, total, enabled and console.is_terminal

    def __enter__(self):
        if not self.enabled:
            return lambda config: None
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn,
                                   TimeRemainingColumn)

        self.bar = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), TimeRemainingColumn(), console=self.console, transient=True)
        self.bar.__enter__()
        task = self.bar.add_task("training runs", total=self.total)
        return lambda config: self.bar.advance(task, 1)

    def say(self, text: str) -> None:
        if self.enabled:
            self.bar.console.print(f"ldp-audit: {text}", markup=False, highlight=False)
        else:
            notice(text)

    def __exit__(self, *exc):
        if self.enabled:
            self.bar.__exit__(*exc)
        return False


def devices_used(results, fallback: str) -> str:
    """Where the results were trained, e.g. ``cuda (NVIDIA H100 80GB HBM3): 1049 runs``, one entry per device
    (stored runs may come from another machine than this one); ``fallback`` (this process's device) when none."""
    from collections import Counter

    from ...models.training.runtime import device_name

    counts = Counter(result.device_label for result in results)
    if not counts:
        return f"{fallback} ({device_name(fallback)}): no runs"
    return "; ".join(f"{label}: {count} runs" for label, count in counts.most_common())


def software_used(results) -> str:
    """The torch versions the results were trained under, e.g. ``torch 2.13.0+cpu: 92 runs; torch 2.14.1: 88
    runs``: a folder resumed under another torch holds runs of both, which the same config need not reproduce
    bit for bit; "unrecorded" for runs that store no versions."""
    from collections import Counter

    counts = Counter(f"torch {result.versions.get('torch', 'unrecorded')}" if getattr(result, "versions", None)
                     else "unrecorded" for result in results)
    return "; ".join(f"{label}: {count} runs" for label, count in counts.most_common()) or "no runs"


def dataset_panels(names: list, rows: int = 1):
    """A figure with one titled panel per dataset in each of ``rows`` rows (matplotlib's Agg backend):
    ``(figure, [(axis, name), ...])``, row after row."""
    fig, grid = panel_grid([names] * rows)
    return fig, [panel for row in grid for panel in row]


def panel_grid(rows: list):
    """A figure with one row of titled panels per list of titles in ``rows`` (a table or figure of the paper per
    row, a dataset per panel; the unused places of short rows removed): ``(figure, [[(axis, title), ...], ...])``.
    With no title at all, one empty panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [list(r) for r in rows] or [[]]
    width = max(1, *(len(r) for r in rows))
    fig, axes = plt.subplots(len(rows), width, figsize=(4.2 * width, 3.4 * len(rows)), squeeze=False)
    keep_one = not any(rows)
    for axes_row, titles in zip(axes, rows):
        for ax in axes_row[max(len(titles), int(keep_one)):]:
            ax.remove()
        for ax, title in zip(axes_row, titles):
            ax.set_title(title)
    return fig, [list(zip(axes_row, titles)) for axes_row, titles in zip(axes, rows)]


#: Inches added to a figure's width for the legends drawn beside its rows of panels.
LEGEND_WIDTH = 2.2


def legend_beside_rows(fig) -> None:
    """One legend per row of panels, beside the row's last panel (off the data): every distinct label drawn in the
    row, the first handle of each; the figure widened by :data:`LEGEND_WIDTH` for them."""
    rows: dict = {}
    for ax in fig.axes:
        rows.setdefault(ax.get_subplotspec().rowspan.start, []).append(ax)
    for row in rows.values():
        handles: dict = {}
        for ax in row:
            for handle, label in zip(*ax.get_legend_handles_labels()):
                handles.setdefault(label, handle)
        if handles:
            last = max(row, key=lambda ax: ax.get_subplotspec().colspan.start)
            last.legend(list(handles.values()), list(handles), fontsize=7, loc="upper left",
                        bbox_to_anchor=(1.02, 1.0))
    fig.set_size_inches(fig.get_figwidth() + LEGEND_WIDTH, fig.get_figheight())


def panels_png(fig, ylabel: str, xlabel: str = "eps", xscale: str = "log") -> bytes:
    """Every panel without an x label on an ``xscale`` ``xlabel`` axis (log eps by default), every panel without
    a y label with ``ylabel``, a legend beside each row of panels (:func:`legend_beside_rows`), and the figure as
    PNG bytes, cropped to what is drawn."""
    import io

    import matplotlib.pyplot as plt

    for ax in fig.axes:
        if not ax.get_xlabel():
            ax.set_xscale(xscale)
            ax.set_xlabel(xlabel)
        if not ax.get_ylabel():
            ax.set_ylabel(ylabel)
    legend_beside_rows(fig)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=120, bbox_inches="tight")  # the legends beside the panels stay in
    plt.close(fig)
    return buffer.getvalue()


def add_plan_option(parser) -> None:
    parser.add_argument("--plan", action="store_true",
                        help="print the grid before anything trains: runs (stored and to train), tasks, the CPU "
                             "seconds per run measured here by a short probe (two short real runs per dataset and "
                             "model shape, not stored), and the CPU-hours and wall time estimated for --engine "
                             "and --workers; then exit without training")


def run_or_plan(args, console, title: str, configs: list, store, device: str, shape_of, run_batch, batch_key,
                stacked: bool = False):
    """Train the configs on the chosen engine (resuming from ``store``) and return ``{config: result}``; with
    --plan print the plan instead and return None (nothing is stored). ``stacked``: ``run_batch`` trains a task
    as one stacked model (see :func:`probe_costs`)."""
    from ...audits.kernel.engines import engine_name
    from ...models.training import sweep

    if args.plan:
        engine = engine_name(args.engine, args.workers)
        workers = 1 if engine == "local" else args.workers
        plan, stored = sweep.plan_sweep(configs, store, args.max_runs, batch_key, workers)
        costs = probe_costs(plan.groups, shape_of, run_batch, device, args.data_dir, args.cache_dir, stacked,
                            stored.values(), say=notice)
        print_plan(console, title, plan, costs, shape_of, engine, workers, args.json)
        return None
    progress = RunProgress(console, len(configs), enabled=not (args.json or getattr(args, "markdown", False)))
    with progress as advance, sweep_engine(args) as engine:
        return sweep.run_sweep(configs, store, engine, device, args.data_dir, args.cache_dir,
                               on_result=lambda result, fresh: advance(result.config), max_new=args.max_runs,
                               run_batch=run_batch, batch_key=batch_key, say=progress.say)


def planned_runs(args, configs: list, store, attributed_of) -> list:
    """The runs --plan counts: the tables' ``configs`` and, with --protocol both, the attribution's, of the cells
    ``attributed_of(stored)`` gives (planning) on the runs stored so far (every paper with an attribution calls
    this). Once the tables are stored this is the list the report trains; before, the attributed cells and their K
    are a guess (the unfinished cells in table order, a K of both grids), so the count can be off by one cell's
    switched runs (e.g. a released PPM cell has one switch more than an MB cell)."""
    if args.protocol != "both":
        return configs
    from ...audits.reproduction.protocol_gap import attribution_configs

    stored = {c: r for c in configs if (r := store.load(c)) is not None}
    return list(dict.fromkeys(configs + attribution_configs(attributed_of(stored))))
