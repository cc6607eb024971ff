"""The documentation's measured tables and counts agree with the committed result files
(benchmarks/readme_tables.py); the tables live in the paper pages of docs/, the README links to them."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import benchmark_script

ROOT = Path(__file__).resolve().parents[1]
PPGNN_PAGE = ROOT / "docs" / "papers" / "ppgnn.md"
LPGNN_PAGE = ROOT / "docs" / "papers" / "lpgnn.md"
#: Every generated block: tables, and counts inside sentences. A block dropped from the docs, or one added to them
#: without a generator, changes this list and fails the count test below.
BLOCKS = ["figure:ldp-ge-citeseer-link-runs", "figure:ldp-ge-citeseer-node-runs", "figure:ldp-ge-full-runs",
          "figure:ldp-ge-pubmed-link-runs", "figure:ldp-ge-pubmed-node-runs", "figure:lpgnn-quick-runs",
          "figure:ppgnn-quick-runs", "table:ldp-ge-citeseer-fig2", "table:ldp-ge-citeseer-fig2-control",
          "table:ldp-ge-citeseer-fig2-released", "table:ldp-ge-citeseer-table3",
          "table:ldp-ge-citeseer-table3-control", "table:ldp-ge-citeseer-table3-released",
          "table:ldp-ge-cora-table3-control", "table:ldp-ge-cora-table3-released",
          "table:ldp-ge-facebook-table3-released", "table:ldp-ge-full-table3",
          "table:ldp-ge-pubmed-fig2", "table:ldp-ge-pubmed-fig2-layers",
          "table:ldp-ge-pubmed-fig2-rescale", "table:ldp-ge-pubmed-table3",
          "table:ldp-ge-pubmed-table3-control", "table:ldp-ge-pubmed-table3-released", "table:ppgnn-full-table3"]


@pytest.fixture(scope="module")
def tables():
    return benchmark_script("readme_tables")


@pytest.fixture
def pages(tables):
    return tables.pages()


def test_every_block_is_in_the_docs_once(tables, pages):
    assert sorted(tables.markers(pages)) == BLOCKS
    known = [f"{kind}:{name}" for kind, name, _, _ in tables.blocks()]
    assert sorted(known) == BLOCKS
    assert {tables.holder(pages, *block.split(":")) for block in BLOCKS} == {
        ROOT / "docs" / "papers" / page for page in ("ldp-ge.md", "lpgnn.md", "ppgnn.md")}


def test_the_docs_agree_with_the_stored_results(tables, pages):
    stale = tables.stale_blocks(pages)
    assert not stale, f"run python benchmarks/readme_tables.py: {stale} differ from benchmarks/results"


def test_a_drifted_figure_or_cell_is_caught(tables, pages):
    drifted = dict(pages)
    drifted[LPGNN_PAGE] = pages[LPGNN_PAGE].replace("<!-- figure:lpgnn-quick-runs -->117<",
                                                    "<!-- figure:lpgnn-quick-runs -->66<")
    assert tables.stale_blocks(drifted) == ["figure:lpgnn-quick-runs"]
    assert tables.render(drifted) == pages
    row = "| Cora | 0.01 | 55.1 ± 2.2 | 77.7 ± 1.4 (2) FAIL"
    assert row in pages[PPGNN_PAGE]
    drifted = dict(pages)
    drifted[PPGNN_PAGE] = pages[PPGNN_PAGE].replace(row, row.replace("77.7", "77.8"))
    assert tables.stale_blocks(drifted) == ["table:ppgnn-full-table3"]


def test_a_missing_or_doubled_marker_is_an_error(tables, pages):
    with pytest.raises(ValueError, match="table:ppgnn-full-table3 --> is in 0 docs pages"):
        tables.render({Path("empty.md"): "no markers here"})
    doubled = dict(pages)
    doubled[Path("copy.md")] = pages[PPGNN_PAGE]
    with pytest.raises(ValueError, match="is in 2 docs pages"):
        tables.render(doubled)


def test_non_private_rows_are_labelled_by_the_features_they_read(tables):
    def row(features=None):
        return {"details": {"measured_mean": 90.0, **({} if features is None else {"features": features})}}

    name = "cora link {} eps=inf"
    spec = {name.format("non-private"): row("[-1, 1]"), name.format("non-private raw"): row("raw")}
    assert [label for label, _ in tables._clear_rows(spec, "cora", "link")] == \
        ["non-private, [-1, 1] features", "non-private, raw features"]
    released = {name.format("non-private"): row("raw")}  # the released preset's plain row reads raw features
    assert [label for label, _ in tables._clear_rows(released, "cora", "link")] == ["non-private, raw features"]
    older = {name.format("non-private"): row(), name.format("non-private raw"): row()}  # a report before the field
    assert [label for label, _ in tables._clear_rows(older, "cora", "link")] == \
        ["non-private, [-1, 1] features", "non-private, raw features"]
    both = {name.format("non-private"): row("raw"), name.format("non-private raw"): row("raw")}
    assert len(tables._clear_rows(both, "cora", "link")) == 1  # the same run twice is one row
