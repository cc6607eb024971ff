"""Help that reads well in an 80-column terminal: no RST markup, every option explained with its default."""
from __future__ import annotations

import argparse

import pytest

from ldp_audit.cli import build_parser, main


def _subparsers(parser=None, prefix=()):
    """Every (sub-)command's parser, nested ones included (``attack own-report``), by its words."""
    parser = parser or build_parser()
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found[prefix + (name,)] = child
                found.update(_subparsers(child, prefix + (name,)))
    return found


PARSERS = _subparsers()
COMMANDS = sorted(" ".join(words) for words in PARSERS)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_is_plain_and_fits_80_columns(command, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main([*command.split(), "--help"]) == 0
    text = capsys.readouterr().out
    assert "``" not in text and ":class:" not in text and ":func:" not in text
    assert max(len(line) for line in text.splitlines()) <= 80


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_has_help_and_states_its_default(command):
    for action in PARSERS[tuple(command.split())]._actions:
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)):
            continue
        assert action.help, f"{command} {action.option_strings or action.dest} has no help"
        has_default = action.default not in (None, False, [], argparse.SUPPRESS) and not action.required
        if has_default and action.option_strings:
            assert "default" in action.help.lower(), f"{command} {action.option_strings} does not state its default"


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("ldp-audit ")
