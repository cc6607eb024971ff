"""The ``ldp-audit`` command line: argument parsing and rendering only, no mathematics.

Each sub-command lives in ``ldp_audit/commands/<name>.py`` and exposes ``register(subparsers)``, which adds
its parser and sets ``func`` to a callable ``func(args, console) -> int`` returning the exit code.
Exit codes: 0 every check passed, 1 some check failed, 2 usage error or bad input.
"""
from __future__ import annotations

import argparse
import importlib
import sys

#: Sub-command modules, in the order ``ldp-audit --help`` lists them.
COMMANDS = ("verify", "list", "compare", "claims", "account", "bounds", "data")
COMMANDS += ("train", "reproduce")  # private GNN training (issue 13)

#: Exit code of usage errors and bad input (0 and 1 come from the report's verdict).
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse exits with status 2 on usage errors already; keep its message short and clear."""

    def error(self, message):  # pragma: no cover - exercised through the CLI tests
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"ldp-audit: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ldp-audit", description="Audit local differential privacy mechanisms and the claims "
                                                   "of five LDP / DP graph-learning papers.")
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


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console

    parser = build_parser()
    args = parser.parse_args(argv)
    console = Console(highlight=False)
    if not console.is_terminal:  # files and pipes get a wide table instead of rich's 80-column default
        console = Console(highlight=False, width=160)
    try:
        return int(args.func(args, console))
    except ValueError as exc:
        Console(stderr=True, highlight=False).print(f"[bold red]ldp-audit: error:[/] {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:  # pragma: no cover
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
