"""The artefact registry (papers/artefacts.py): every table and figure the seeds caption has an entry, every
target id runs under ``reproduce``, every id ``reproduce`` runs has an entry."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ldp_audit.commands.reproduce.command import TABLES
from ldp_audit.papers import artefacts


SEEDS = Path(__file__).resolve().parents[2].parent / "shared" / "seeds"
SEED_FILES = {"ldp-ge": "000_", "se-privgemb": "002_", "lpgnn": "003_", "ppgnn": "004_"}
#: A caption line: "TABLE III:", "TABLE II" alone on its line (PPGNN), "Table 3:", "Fig. 2:", "Fig. 3.", "Figure 6:".
CAPTION = re.compile(r"^(?:(TABLE) ([IVX]+)(?::|\s*$)|(Table) (\d+):|(Fig)\. (\d+)[.:]|(Figure) (\d+):)")
ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9, "X": 10}


def _seed_ids(paper: str) -> set[str]:
    [path] = SEEDS.glob(SEED_FILES[paper] + "*.txt")
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        match = CAPTION.match(line)
        if match:
            kind, number = [g for g in match.groups() if g is not None]
            found.add(("table" if kind.lower() == "table" else "fig") + str(ROMAN.get(number) or int(number)))
    return found


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed papers are not beside the project")
@pytest.mark.parametrize("paper", list(artefacts.PAPERS))
def test_every_captioned_table_and_figure_of_the_seed_has_exactly_one_entry(paper):
    entries = [a.id for a in artefacts.of(paper) if a.in_seed]
    assert len(entries) == len(set(entries))
    assert set(entries) == _seed_ids(paper)


@pytest.mark.parametrize("paper", list(artefacts.PAPERS))
def test_targets_are_runnable_and_every_runnable_id_is_listed(paper):
    runnable = set(TABLES[paper])
    listed = set(artefacts.target_ids(paper))
    assert listed <= runnable, "a registry target that reproduce cannot run"
    assert runnable <= listed, "a reproduce id without a registry entry"


def test_every_entry_says_what_runs_it_or_why_nothing_does():
    for entry in artefacts.ARTEFACTS:
        assert entry.caption and entry.printed
        if entry.status == artefacts.TARGET:
            assert entry.command == f"ldp-audit reproduce {entry.paper} {entry.arguments}"
            assert entry.arguments.endswith("--tables " + " ".join(entry.targets))
        elif entry.status == artefacts.ELSEWHERE:
            assert entry.command.startswith("ldp-audit ") and entry.note
        else:
            assert entry.command == "" and entry.note, entry.id
        assert entry.to_dict()["status"] == entry.status


def test_counts_leave_out_what_the_seed_does_not_print():
    lpgnn = artefacts.counts("lpgnn")
    assert lpgnn["artefacts"] == 11 == lpgnn["target"] + lpgnn["elsewhere"] + lpgnn["not runnable"]
    assert lpgnn["target"] == 4  # Figures 5-7 and Table 3; the Drop table is a target but not in the seed
    assert artefacts.counts("se-privgemb")["target"] == 7
    with pytest.raises(ValueError, match="^paper must be one of"):
        artefacts.of("privge")


def test_every_merged_target_command_parses_and_passes_the_option_checks():
    from ldp_audit.cli import build_parser
    from ldp_audit.commands.reproduce.command import check_options

    parser = build_parser()
    for entry in artefacts.ARTEFACTS:
        if entry.status != artefacts.TARGET:
            continue
        args = parser.parse_args(entry.command.split()[1:])
        check_options(args)
        assert args.tables == list(entry.targets)
        if entry.paper == "ldp-ge":  # its --quick is a fixed grid that refuses --tables
            assert args.mode == "full"
