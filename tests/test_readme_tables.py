"""README's measured tables and counts agree with the committed result files (benchmarks/readme_tables.py)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tables():
    spec = importlib.util.spec_from_file_location("readme_tables", ROOT / "benchmarks" / "readme_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_agrees_with_the_stored_results(tables):
    stale = tables.stale_blocks((ROOT / "README.md").read_text())
    assert not stale, f"run python benchmarks/readme_tables.py: {stale} differ from benchmarks/results"


def test_a_drifted_figure_or_cell_is_caught(tables):
    text = (ROOT / "README.md").read_text()
    drifted = text.replace("<!-- figure:lpgnn-quick-runs -->117<", "<!-- figure:lpgnn-quick-runs -->66<")
    assert tables.stale_blocks(drifted) == ["figure:lpgnn-quick-runs"]
    row = "| Cora | 0.01 | 55.1 ± 2.2 | 77.7 ± 1.4 (2) FAIL"
    assert row in text
    assert tables.stale_blocks(text.replace(row, row.replace("77.7", "77.8"))) == ["table:ppgnn-full-table3"]
    assert tables.render(drifted) == text


def test_a_missing_marker_is_an_error(tables):
    with pytest.raises(ValueError, match="table:ppgnn-full-table3"):
        tables.render("no markers here")
