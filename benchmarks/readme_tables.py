"""The documentation's measured tables, generated from the committed result files.

Each generated block sits between ``<!-- table:NAME -->`` and ``<!-- /table:NAME -->`` in one page of ``docs/``
(the paper pages); a figure inside a sentence sits between ``<!-- figure:NAME -->`` and ``<!-- /figure:NAME -->``.
``python benchmarks/readme_tables.py`` rewrites every block from ``benchmarks/results``; ``--check`` only compares
and exits 1 when a page and the results disagree (the test suite runs the same comparison).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from pathlib import Path

from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
DOCS = ROOT / "docs"

_NAMES = {"cora": "Cora", "citeseer": "CiteSeer", "pubmed": "PubMed", "facebook": "Facebook"}


def _report(path: Path) -> dict[str, dict]:
    """The rows of a stored report, by name."""
    return {row["name"]: row for row in json.loads(path.read_text())["results"]}


def _measured(rows: dict[str, dict], name: str) -> dict | None:
    """Row ``name`` if its cell has been measured (a cell not filled yet has a row without a mean), else None."""
    row = rows.get(name)
    return row if row is not None and "measured_mean" in row["details"] else None


def _cell(row: dict, digits: int = 1) -> str:
    """``mean ± sd``: a measured cell's mean and spread over its runs, as its report stores them."""
    d = row["details"]
    return f"{d['measured_mean']:.{digits}f} ± {d['measured_std']:.{digits}f}"


def _judged(row: dict) -> str:
    """``mean ± sd (paper) VERDICT``: a measured cell beside the paper's mean."""
    return f"{_cell(row)} ({row['details']['paper_mean']:.2f}) {row['status'].upper()}"


def ppgnn_full_table3() -> str:
    """ppgnn Table III, MB and PPM columns, from ``ppgnn/full-h100/report.json`` (with C17 per cell)."""
    rows = _report(RESULTS / "ppgnn" / "full-h100" / "report.json")
    lines = ["| dataset | eps | MB paper | MB measured (K) | PPM paper | PPM measured (K) | C17: PPM - MB [95% CI] |",
             "|---|---|---|---|---|---|---|"]
    for key, title in _NAMES.items():
        for eps in ("0.01", "0.1", "1"):
            cells = [title, eps]
            for mechanism in ("MB", "PPM"):
                row = rows[f"{key} {mechanism} eps={eps}"]
                d = row["details"]
                cells += [f"{d['paper_mean']:.1f} ± {d['paper_spread']:.1f}",
                          f"{_cell(row)} ({d['choice']}) {row['status'].upper()}"]
            c17 = rows[f"{key} C17 PPM-MB eps={eps}"]
            low, high = c17["interval"]
            cells.append(f"{c17['statistic']:+.1f} [{low:+.1f}, {high:+.1f}] {c17['status'].upper()}")
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: The non-private cells of an LDP-GE report: the plain row and the one on raw features.
_CLEAR_CELLS = ("non-private", "non-private raw")


def _clear_rows(rows: dict[str, dict], dataset: str, task: str) -> list[tuple[str, dict | None]]:
    """(label, row or None) of the non-private rows of ``dataset``'s ``task``, each labelled by the features it
    read (a report's row details say; a row from before they did is named after its cell), one row per kind: a
    preset whose plain row reads the raw features runs no second row (an older report's second is the same run)."""
    found = {}
    for cell in _CLEAR_CELLS:
        row = rows.get(f"{dataset} {task} {cell} eps=inf")
        measured = _measured(rows, f"{dataset} {task} {cell} eps=inf")
        features = (measured or {}).get("details", {}).get("features", "raw" if cell.endswith("raw") else "[-1, 1]")
        if row is not None and features not in found:
            found[features] = measured
    return [(f"non-private, {features} features", row) for features, row in found.items()]


def ldp_ge_table3(report: Path, dataset: str) -> str:
    """ldp-ge Table III on ``dataset`` (link AUC, mean ± sd over the runs, the paper's mean, the verdict), from a
    stored ``reproduce ldp-ge`` report, with C21(a) per eps, then the non-private rows (:func:`_clear_rows`); a
    cell not filled yet reads "-" (an eps with none is left out), as does a missing C21(a) row; a non-private row
    not filled yet is left out."""
    rows = _report(report)
    lines = ["| eps | LP (paper) | PM (paper) | MB (paper) | HDS (paper) | C21(a) HDS best |",
             "|---|---|---|---|---|---|"]
    for eps in ("1", "2", "3", "5"):
        named = [_measured(rows, f"{dataset} link {mechanism} eps={eps}") for mechanism in ("LP", "PM", "MB", "HDS")]
        if not any(named):
            continue
        cells = [eps] + ["-" if row is None else _judged(row) for row in named]
        c21 = rows.get(f"C21a {dataset} eps={eps}")
        cells.append("-" if c21 is None else c21["status"].upper())
        lines.append("| " + " | ".join(cells) + " |")
    for label, row in _clear_rows(rows, dataset, "link"):
        if row is not None:
            lines.append(f"| {label} | {_judged(row)} | | | | |")
    return "\n".join(lines)


def ldp_ge_fig2(report: Path, dataset: str) -> str:
    """ldp-ge Fig. 2 on ``dataset`` (node accuracy, mean ± sd over the runs per mechanism and eps, and the
    non-private rows, :func:`_clear_rows`), from a stored ``reproduce ldp-ge --tables fig2`` report; a
    cell with a printed value (C22's quoted numbers) also shows the paper's and the verdict, a cell not filled
    yet reads "-"."""
    rows = _report(report)

    def shown(row):
        if row is None:
            return "-"
        paper = row["details"].get("paper_mean")
        return _cell(row) + ("" if paper is None else f" ({paper:.2f}) {row['status'].upper()}")

    lines = ["| eps | LP | PM | MB | HDS |", "|---|---|---|---|---|"]
    for eps in ("0.01", "0.1", "1", "2", "3", "5"):
        lines.append("| " + " | ".join([eps] + [shown(_measured(rows, f"{dataset} node {mechanism} eps={eps}"))
                                                for mechanism in ("LP", "PM", "MB", "HDS")]) + " |")
    for label, row in _clear_rows(rows, dataset, "node"):
        lines.append(f"| {label} | | | | {shown(row)} |")
    return "\n".join(lines)


def ldp_ge_control(report: Path, control: Path, dataset: str, task: str,
                   heading: str = "data / control (added [95% CI])", suffix: str = "") -> str:
    """ldp-ge Table III (``task`` "link") or Fig. 2 ("node") on ``dataset`` beside its structure-only control
    (``--set structure_only=true``): per eps and mechanism, the mean score on the users' features and on random
    ones, and their difference (what the features add, with Welch's 95 % interval); from two stored ``reproduce
    ldp-ge`` reports. Columns: the mechanisms the control measured; a cell missing in either report reads "-".
    Any second report of the same cells compares the same way (``heading`` names the two, e.g. the released
    protocol's report beside the spec's); ``suffix`` follows the mechanism in the second report's row names
    (" rescaled" for ``--set rescale=true``)."""
    rows, controls = _report(report), _report(control)
    grid = ("1", "2", "3", "5") if task == "link" else ("0.01", "0.1", "1", "2", "3", "5")
    mechanisms = [m for m in ("LP", "PM", "MB", "HDS")
                  if any(_measured(controls, f"{dataset} {task} {m}{suffix} eps={eps}") for eps in grid)]
    lines = ["| eps | " + " | ".join(f"{m}: {heading}" for m in mechanisms) + " |",
             "|---|" + "---|" * len(mechanisms)]
    for eps in grid:
        cells = [eps]
        for mechanism in mechanisms:
            data = _measured(rows, f"{dataset} {task} {mechanism} eps={eps}")
            noise = _measured(controls, f"{dataset} {task} {mechanism}{suffix} eps={eps}")
            if data is None or noise is None:
                cells.append("-")
                continue
            with warnings.catch_warnings():  # three equal control runs (65.99 % each, LP eps 1) are no error
                warnings.filterwarnings("ignore", "Precision loss", RuntimeWarning)
                low, high = stats.ttest_ind(data["details"]["values"], noise["details"]["values"],
                                            equal_var=False).confidence_interval(0.95)
            cells.append(f"{data['details']['measured_mean']:.1f} / {noise['details']['measured_mean']:.1f} "
                         f"({(low + high) / 2:+.1f} [{low:+.1f}, {high:+.1f}])")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _count_runs(folder: Path, runs: str = "*") -> str:
    """How many run JSONs lie in the run folders under ``folder`` whose names match ``runs``."""
    return f"{sum(1 for _ in folder.rglob(f'{runs}/seed*.json')):,}"


LDP_GE_CPU = RESULTS / "ldp_ge" / "full-cpu"
LDP_GE_CONTROLS = RESULTS / "ldp_ge" / "controls-cpu"
LDP_GE_PROTOCOL = RESULTS / "ldp_ge" / "protocol-cpu"
TABLES = {"ppgnn-full-table3": ppgnn_full_table3,
          "ldp-ge-full-table3": lambda: ldp_ge_table3(RESULTS / "ldp_ge" / "full-h100" / "report.json", "cora"),
          "ldp-ge-citeseer-table3": lambda: ldp_ge_table3(LDP_GE_CPU / "citeseer-report.json", "citeseer"),
          "ldp-ge-citeseer-fig2": lambda: ldp_ge_fig2(LDP_GE_CPU / "citeseer-fig2-report.json", "citeseer"),
          "ldp-ge-pubmed-table3": lambda: ldp_ge_table3(LDP_GE_CPU / "pubmed-report.json", "pubmed"),
          "ldp-ge-pubmed-fig2": lambda: ldp_ge_fig2(LDP_GE_CPU / "pubmed-fig2-report.json", "pubmed"),
          "ldp-ge-pubmed-table3-control": lambda: ldp_ge_control(
              LDP_GE_CPU / "pubmed-report.json", LDP_GE_CONTROLS / "pubmed-table3-report.json", "pubmed", "link"),
          "ldp-ge-citeseer-fig2-control": lambda: ldp_ge_control(
              LDP_GE_CPU / "citeseer-fig2-report.json", LDP_GE_CONTROLS / "citeseer-fig2-report.json", "citeseer",
              "node"),
          "ldp-ge-citeseer-fig2-released": lambda: ldp_ge_control(
              LDP_GE_CPU / "citeseer-fig2-report.json", LDP_GE_PROTOCOL / "citeseer-fig2-released-report.json",
              "citeseer", "node", heading="spec / released (spec - released [95% CI])"),
          "ldp-ge-pubmed-fig2-layers": lambda: ldp_ge_control(
              LDP_GE_CPU / "pubmed-fig2-report.json", LDP_GE_PROTOCOL / "pubmed-fig2-layers2-report.json", "pubmed",
              "node", heading="3 layers / 2 layers (3 - 2 [95% CI])"),
          "ldp-ge-pubmed-fig2-rescale": lambda: ldp_ge_control(
              LDP_GE_CPU / "pubmed-fig2-report.json", LDP_GE_PROTOCOL / "pubmed-fig2-rescale-report.json", "pubmed",
              "node", heading="as sent / rescaled (difference [95% CI])", suffix=" rescaled"),
          "ldp-ge-cora-table3-released": lambda: ldp_ge_table3(LDP_GE_PROTOCOL / "table3-released-report.json",
                                                               "cora"),
          "ldp-ge-citeseer-table3-released": lambda: ldp_ge_table3(LDP_GE_PROTOCOL / "table3-released-report.json",
                                                                   "citeseer"),
          "ldp-ge-pubmed-table3-released": lambda: ldp_ge_table3(
              LDP_GE_PROTOCOL / "pubmed-table3-released-report.json", "pubmed"),
          "ldp-ge-facebook-table3-released": lambda: ldp_ge_table3(
              LDP_GE_PROTOCOL / "facebook-table3-released-report.json", "facebook"),
          "ldp-ge-cora-table3-control": lambda: ldp_ge_control(
              RESULTS / "ldp_ge" / "full-h100" / "report.json", LDP_GE_CONTROLS / "cora-table3-report.json", "cora",
              "link"),
          "ldp-ge-citeseer-table3-control": lambda: ldp_ge_control(
              LDP_GE_CPU / "citeseer-report.json", LDP_GE_CONTROLS / "citeseer-table3-report.json", "citeseer",
              "link")}
FIGURES = {"lpgnn-quick-runs": lambda: _count_runs(RESULTS / "lpgnn" / "quick"),
           "ppgnn-quick-runs": lambda: _count_runs(RESULTS / "ppgnn" / "quick"),
           "ldp-ge-full-runs": lambda: _count_runs(RESULTS / "ldp_ge" / "full-h100" / "runs"),
           "ldp-ge-citeseer-link-runs": lambda: _count_runs(LDP_GE_CPU / "citeseer", "link-*"),
           "ldp-ge-citeseer-node-runs": lambda: _count_runs(LDP_GE_CPU / "citeseer", "node-*"),
           "ldp-ge-pubmed-link-runs": lambda: _count_runs(LDP_GE_CPU / "pubmed", "link-*"),
           "ldp-ge-pubmed-node-runs": lambda: _count_runs(LDP_GE_CPU / "pubmed", "node-*")}


def _pattern(kind: str, name: str) -> re.Pattern:
    return re.compile(rf"(<!-- {kind}:{re.escape(name)} -->)(.*?)(<!-- /{kind}:{re.escape(name)} -->)", re.S)


def blocks():
    """(kind, name, maker, wrap) of every generated block."""
    for name, make in TABLES.items():
        yield "table", name, make, "\n{}\n"
    for name, make in FIGURES.items():
        yield "figure", name, make, "{}"


def pages() -> dict[Path, str]:
    """Every Markdown page of the documentation, by path."""
    return {path: path.read_text() for path in sorted(DOCS.rglob("*.md"))}


def markers(pages: dict[Path, str]) -> list[str]:
    """Every ``kind:NAME`` block marker the pages hold, in page order (a block found twice is listed twice)."""
    return [f"{m.group(1)}:{m.group(2)}" for text in pages.values()
            for m in re.finditer(r"<!-- (table|figure):([\w-]+) -->", text)]


def holder(pages: dict[Path, str], kind: str, name: str) -> Path:
    """The one page that holds block ``kind:name``; a block in no page, or in two, is an error."""
    found = [path for path, text in pages.items() if _pattern(kind, name).search(text)]
    if len(found) != 1:
        raise ValueError(f"<!-- {kind}:{name} --> is in {len(found)} docs pages ({', '.join(map(str, found))}); "
                         "expected exactly one")
    return found[0]


def render(pages: dict[Path, str]) -> dict[Path, str]:
    """``pages`` with every known block regenerated in the page that holds it."""
    fresh = dict(pages)
    for kind, name, make, wrap in blocks():
        path = holder(fresh, kind, name)
        body = wrap.format(make())
        fresh[path] = _pattern(kind, name).sub(lambda m: m.group(1) + body + m.group(3), fresh[path])
    return fresh


def stale_blocks(pages: dict[Path, str]) -> list[str]:
    """Names of the blocks whose page text differs from what the results give."""
    fresh = render(pages)
    stale = []
    for kind, name, _, _ in blocks():
        path = holder(pages, kind, name)
        if _pattern(kind, name).search(pages[path]).group(2) != _pattern(kind, name).search(fresh[path]).group(2):
            stale.append(f"{kind}:{name}")
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when a block is stale")
    args = parser.parse_args(argv)
    current = pages()
    stale = stale_blocks(current)
    if args.check:
        for name in stale:
            print(f"docs block {name} differs from benchmarks/results", file=sys.stderr)
        return 1 if stale else 0
    for path, text in render(current).items():
        if text != current[path]:
            path.write_text(text)
    print(f"rewrote {len(stale)} block(s): {', '.join(stale) or 'none changed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
