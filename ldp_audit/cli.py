"""The ``ldp-audit`` command line: argument parsing and rendering only, no mathematics.

Each sub-command lives in ``ldp_audit/commands/<name>.py`` and exposes ``register(subparsers)``, which adds
its parser and sets ``func`` to a callable ``func(args, console) -> int`` returning the exit code.
Exit codes: 0 every check passed, 1 some check failed, 2 usage error or bad input, 4 inconclusive (no check failed
but some could not decide; ``commands._common.VERDICT_EXIT``); ``verify`` adds 3, not reproducible under
--require-seeded.
"""
from __future__ import annotations

import argparse
import errno
import importlib
import os
import signal
import sys

from . import __version__

#: Sub-command modules, in the order ``ldp-audit --help`` lists them.
COMMANDS = ("verify", "list", "compare", "claims", "account", "bounds", "data", "attack", "train", "reproduce")

#: Exit code of usage errors and bad input (0, 1 and 4 come from the report's verdict).
EXIT_USAGE = 2
#: Optional dependencies -> the extra that installs them.
EXTRAS = {"torch": "graph", "torch_geometric": "graph", "opacus": "graph", "dp_accounting": "graph",
          "matplotlib": "plot"}
#: Options naming files that a run writes; they are checked writable before the run starts.
OUTPUT_OPTIONS = ("out", "plot")
#: Narrowest $COLUMNS honoured: below it a table has no room for its cells (COLUMNS=0 printed nothing).
MIN_COLUMNS = 20
EXIT_SIGPIPE = 141  # 128 + SIGPIPE: the verdict was not fully written, so it is not reported as a pass
#: Errors of a write to stdout that end the command with EXIT_USAGE: no room, over ``ulimit -f``, a device error,
#: a descriptor closed under it.
STDOUT_FAILURES = frozenset({errno.ENOSPC, errno.EFBIG, errno.EIO, errno.EDQUOT, errno.EBADF})


class _Parser(argparse.ArgumentParser):
    """argparse exits with status 2 on usage errors already; keep its message short and clear."""

    def error(self, message):  # pragma: no cover - exercised through the CLI tests
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"ldp-audit: error: {message}\n")

    def _print_message(self, message, file=None):
        """As argparse's, without swallowing a closed pipe: ``--help | head -1`` exits 141 like every output."""
        if message:
            (file or sys.stderr).write(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ldp-audit", description="Audit local differential privacy mechanisms and the claims "
                                                   "of five LDP / DP graph-learning papers.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"ldp_audit.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"ldp_audit.commands.{name}":
                continue  # command not part of this installation
            raise
        module.register(sub)
    return parser


def _console():
    """A console for stdout: the terminal's width, else ``$COLUMNS``, else 160 columns for files and pipes.

    A closed pipe raises ``BrokenPipeError`` out of it (rich would exit 1), so that every output path, rich or
    print, ends in :data:`EXIT_SIGPIPE`."""
    from rich.console import Console

    class PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    console = PipeConsole(highlight=False, emoji=False)
    columns = os.environ.get("COLUMNS")
    usable = columns is not None and columns.strip().isdigit() and int(columns) >= MIN_COLUMNS
    if columns is not None and not usable:  # COLUMNS=0 printed nothing at all; a non-number was ignored
        import shutil

        width = shutil.get_terminal_size((160, 24)).columns if console.is_terminal else 160
        console = PipeConsole(highlight=False, emoji=False, width=max(width, MIN_COLUMNS))
    elif not console.is_terminal and columns is None:
        console = PipeConsole(highlight=False, emoji=False, width=160)
    return console


def _given(argv: list[str], option: str) -> bool:
    """Whether the command line names ``option`` (or an abbreviation argparse accepts), not just its default."""
    return any(word.split("=")[0] == option[:max(len(word.split("=")[0]), 4)] and word.startswith("--")
               for word in argv)


def _check_engine(args, argv: list[str]) -> None:
    """Before any work: --scheduler and --workers only where the chosen engine reads them (every command that
    has them, whether or not this run ends up building an engine: a one-run train or a --plan builds none)."""
    from .audits.kernel.engines import check_engine_options

    check_engine_options(getattr(args, "engine", None), getattr(args, "workers", None),
                         getattr(args, "scheduler", None), workers_given=_given(argv, "--workers"))


def _dataset_folder(args) -> None:
    """``--no-verify``: the dataset folder travels as ``data.Unverified``, so that every loader the command
    reaches (a training sweep's workers included) reads it unchecked, as the user said."""
    if getattr(args, "no_verify", False):
        from .models.data import Unverified

        args.data_dir = Unverified(args.data_dir)


def _check_outputs(args, errors) -> None:
    """Before any work: every output path writable, and a plot only where matplotlib is installed."""
    from importlib.util import find_spec
    from pathlib import Path

    from .files import check_output_file, check_output_folder

    plot = getattr(args, "plot", None)
    if plot is not None and str(plot).strip() and not str(plot).lower().endswith(".png"):
        raise ValueError(f"--plot {str(plot)!r} must end in .png (the plot is written as a PNG image)")
    if plot and find_spec("matplotlib") is None:
        raise ModuleNotFoundError("matplotlib is needed for --plot", name="matplotlib")
    given = {name: getattr(args, name) for name in OUTPUT_OPTIONS if getattr(args, name, None) is not None}
    same = [name for name in given if Path(given[name]).expanduser().resolve() in
            {Path(path).expanduser().resolve() for other, path in given.items() if other < name}]
    if same:
        raise ValueError(f"--{same[0]} and {', '.join(f'--{n}' for n in given if n != same[0])} name the same "
                         f"file {str(given[same[0]])!r}; each output needs a file of its own")
    for name, path in given.items():
        if path is not None:
            for folder in check_output_file(f"--{name}", path):
                errors.print(f"ldp-audit: --{name}: the folder {str(folder)!r} will be created", markup=False, soft_wrap=True)
    if hasattr(args, "cache_dir"):  # --cache-dir, else $LDP_AUDIT_CACHE, else the default: writable or creatable
        from .models.data import cache_location

        check_output_folder(*reversed(cache_location(args.cache_dir)))


def entry() -> int:
    """The ``ldp-audit`` program: :func:`main` with the report on a descriptor of its own.

    Descriptor 1 is pointed at stderr and the report keeps a duplicate of the original stdout, so that whatever
    else writes to descriptor 1 (a user's C extension, a module that prints at import, a worker process that
    inherits it) lands on stderr and ``--json`` stays one parseable document."""
    if sys.stdout is None:  # started with stdout closed (``ldp-audit ... >&-``): nowhere to put a verdict
        if sys.stderr is not None:
            print("ldp-audit: error: standard output is closed; redirect it to a file or to /dev/null",
                  file=sys.stderr)
        return EXIT_USAGE
    _report_on_own_descriptor()
    return main()


def _report_on_own_descriptor() -> None:
    try:
        if sys.stdout.fileno() != 1 or sys.stderr is None or sys.stderr.fileno() != 2:
            return
    except (AttributeError, OSError, ValueError):  # stdout replaced by an object without a descriptor
        return
    sys.stdout.flush()
    report = os.dup(1)  # not inheritable: child processes get descriptor 1, which is now stderr
    os.dup2(2, 1)
    sys.stdout = open(report, "w", buffering=1 if sys.stdout.line_buffering else -1,
                      encoding=sys.stdout.encoding, errors=sys.stdout.errors)


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        sys.stdout.flush()
    except SystemExit as done:  # --help, --version (0) and usage errors (2) return their code too
        return _flushed(int(done.code or 0))
    except BrokenPipeError:  # --help longer than the pipe's buffer
        return _closed_pipe()
    console = _console()
    errors = Console(stderr=True, highlight=False, emoji=False)
    try:
        _check_engine(args, sys.argv[1:] if argv is None else list(argv))
        _check_outputs(args, errors)
        _dataset_folder(args)
        code = int(args.func(args, console))
        sys.stdout.flush()  # a closed pipe shows here, not after main returns
        return code
    except ValueError as exc:
        errors.print(f"ldp-audit: error: {exc}", style="bold red", markup=False, soft_wrap=True)
        return EXIT_USAGE
    except ModuleNotFoundError as exc:
        top = (exc.name or "").split(".")[0]
        if top not in EXTRAS:
            raise
        errors.print(f"ldp-audit: error: {args.command} needs the {EXTRAS[top]} extra ({top} is not installed): "
                     f"pip install 'ldp-audit[{EXTRAS[top]}]'", style="bold red", markup=False, soft_wrap=True)
        return EXIT_USAGE
    except KeyboardInterrupt:  # pragma: no cover
        # the run has stopped; a further Ctrl-C during the interpreter's exit handlers (torch's among them) would
        # only print a traceback from one of them
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return 130
    except BrokenPipeError:  # the reader (e.g. ``head``) closed stdout: exit as a shell does on SIGPIPE
        return _closed_pipe()
    except OSError as exc:
        if exc.errno not in STDOUT_FAILURES:
            raise
        # every file the commands write goes through ldp_audit.files, whose failures are ValueErrors naming the
        # path; an OSError of these kinds reaching here came from printing to stdout (a full disk, ulimit -f)
        errors.print(f"ldp-audit: error: could not write to standard output: {exc.strerror or exc}; the output "
                     f"is incomplete", style="bold red", markup=False, soft_wrap=True)
        _silence_stdout()
        return EXIT_USAGE


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's flush at exit neither fails nor repeats the error."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _closed_pipe() -> int:
    """Stdout's reader is gone: silence stdout (so the exit flush is silent) and exit as on SIGPIPE."""
    _silence_stdout()
    return EXIT_SIGPIPE


def _flushed(code: int) -> int:
    """``code``, or :data:`EXIT_SIGPIPE` when what was printed (help, version) could not reach the reader."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return _closed_pipe()
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(entry())
