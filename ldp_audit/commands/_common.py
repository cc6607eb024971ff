"""Output options shared by the sub-commands that print an audit report."""
from __future__ import annotations

import argparse
from contextlib import contextmanager

from .render import to_markdown, to_table, write_report
from ..mechanisms.validation import MAX_WORKERS
from ..audits.kernel.result import AuditReport, Status

#: Exit code of a report whose verdict is INCONCLUSIVE: no check failed, but some could not decide (a report the
#: search cannot see into, too few samples for a claim): "could not see", which a CI gate must tell from 1,
#: "violated". 0 (pass) and 1 (a check failed) are the other verdicts; 2 (usage error, bad input) comes from
#: ``ldp_audit.cli``; 3 is verify's "not reproducible under --require-seeded".
EXIT_INCONCLUSIVE = 4
#: The exit code of each verdict.
VERDICT_EXIT = {Status.PASS: 0, Status.FAIL: 1, Status.INCONCLUSIVE: EXIT_INCONCLUSIVE}


def add_output_options(parser: argparse.ArgumentParser) -> None:
    formats = parser.add_mutually_exclusive_group()  # both at once would silently print only one of them
    formats.add_argument("--json", action="store_true", help="print the report as JSON on stdout instead of a table")
    formats.add_argument("--markdown", action="store_true", help="print the report as Markdown instead of a table")
    parser.add_argument("--out", metavar="FILE", help="also write the report to FILE, atomically "
                                                      "(Markdown if FILE ends in .md, JSON otherwise)")


def add_engine_options(parser: argparse.ArgumentParser, tasks: str = "the seeded chunks", workers: int = 1,
                       max_workers: int = MAX_WORKERS, workers_help: str = "worker processes") -> None:
    """--workers, --engine and --scheduler of a command whose ``tasks`` run on an engine (``engine_for``, or a
    training sweep's ``sweep_engine``); none of them changes any number."""
    from ..audits.kernel.engines import ENGINES
    from .options import integer, scheduler

    parser.add_argument("--workers", type=integer(1, max_workers), default=workers,
                        help=f"{workers_help}; results do not depend on it (default %(default)s)")
    parser.add_argument("--engine", choices=ENGINES, default=None,
                        help=f"where {tasks} run: local, processes (default with --workers > 1) or dask (a "
                             "LocalCluster of --workers workers, or --scheduler); results do not depend on it")
    parser.add_argument("--scheduler", type=scheduler, default=None, metavar="tcp://HOST:PORT",
                        help="Dask scheduler for --engine dask (default: $DASK_SCHEDULER_ADDRESS, else a "
                             "LocalCluster)")


@contextmanager
def engine_for(args: argparse.Namespace, subject=None):
    """The engine chosen by --engine/--scheduler/--workers (``engines.open_engine``), active for every map_reduce
    in the block."""
    from ..audits.kernel.engines import open_engine
    from ..audits.kernel.sampling import using

    with open_engine(args.engine, args.workers, args.scheduler, subject) as engine, using(engine):
        yield engine


def emit(report: AuditReport, args: argparse.Namespace, console) -> int:
    """Write ``--out``, print ``report`` the way ``args`` asks, and return the exit code of its verdict (the file
    first: a stdout that fails or closes must not lose the saved report)."""
    if getattr(args, "out", None):
        write_report(report, args.out)
    if getattr(args, "json", False):
        print(report.to_json())
    elif getattr(args, "markdown", False):
        print(to_markdown(report))
    else:
        console.print(to_table(report, console.width))
    return VERDICT_EXIT[report.verdict]


def parse_param(text: str, option: str = "--param") -> tuple[str, object]:
    """``key=value`` (of ``option``) with the value read as int, float, bool or left as text."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"{option} expects KEY=VALUE, got {text!r}")
    key, value = text.split("=", 1)
    for cast in (int, float):
        try:
            return key, cast(value)
        except ValueError:
            pass
    if value.lower() in ("true", "false"):
        return key, value.lower() == "true"
    return key, value


class _Advance:
    """What :func:`progress_bar` yields: ``advance(draws)``, and ``advance.plan(total)`` to set the total once the
    plan knows it (both no-ops without a bar)."""

    def __init__(self, progress=None, task=None):
        self.progress, self.task = progress, task

    def __call__(self, draws: int) -> None:
        if self.progress is not None:
            self.progress.advance(self.task, draws)

    def plan(self, total: int) -> None:
        if self.progress is not None:
            self.progress.update(self.task, total=total)


@contextmanager
def progress_bar(console, total: int | None = None, enabled: bool = True, description: str = "sampling"):
    """A rich progress bar over draws; yields ``advance(draws)`` (a no-op when disabled or not a terminal), whose
    ``advance.plan(total)`` sets a total not known when the bar starts."""
    if not enabled or not console.is_terminal:
        yield _Advance()
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TimeElapsedColumn, \
        TimeRemainingColumn
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task):
            return Text(f"{task.speed:.3g} draws/s" if task.speed else "", style="progress.data.speed")

    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(), Rate(),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=True) as progress:
        yield _Advance(progress, progress.add_task(description, total=total))


class _Quiet:
    """Stands in for a rich status spinner when output is not for a terminal."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, _text):
        pass


def spinner(console, text: str, enabled: bool = True):
    """A rich status spinner with ``update(text)``, or a silent stand-in (JSON/Markdown output, no terminal)."""
    if enabled and console.is_terminal:
        return console.status(text, spinner="dots")
    return _Quiet()


def add_sweep_options(parser, workers: int) -> None:
    """--engine, --scheduler and --workers of a training sweep (the audits' engines; no number depends on them)."""
    add_engine_options(parser, "the training tasks (one batch of runs each)", workers, 1024,
                       "training processes, one torch thread each; on CUDA they share the GPU")


def sweep_engine(args):
    """The engine of --engine/--scheduler/--workers (``engines.open_engine``); a process pool's workers are spawned
    (the driver may have started CUDA or torch's threads, which a forked worker cannot use)."""
    from ..audits.kernel.engines import open_engine

    return open_engine(args.engine, args.workers, args.scheduler, start_method="spawn")
