"""Issue 22's bad inputs and output defects, each a test: size guards that name the option and the largest
allowed value, a domain check, cache-folder and dataset problems as exit 2, Markdown rows on one line, markup
escaped, one float rule, and exit 141 on a closed pipe for every output path."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ldp_audit.cli import main
from ldp_audit.models import data

ROOT = Path(__file__).resolve().parents[2]

SIZE_CASES = [
    (["attack", "own-report", "hds", "--eps", "1", "--samples", "1e12"], ["--samples", "1e+09"]),
    (["attack", "averaging", "hds", "--eps", "1", "--samples", "1e12"], ["--samples", "1e+09"]),
    (["attack", "level-leak", "--samples", "1e12"], ["--samples", "1e+09"]),
    (["attack", "label-plurality", "--samples", "1e12"], ["--samples", "1e+09"]),
    (["attack", "label-plurality", "--c", "1000000"], ["--c", "largest allowed --c"]),
    (["attack", "label-plurality", "--samples", "1e9"], ["--samples", "largest allowed --samples"]),
    (["claims", "lpgnn", "--samples", "1e12"], ["--samples", "1e+09"]),
    (["claims", "lpgnn", "--samples", "1e9"], ["--samples", "largest allowed --samples"]),
    # the PLD accountant is sized before its FFT (the issue's --sigma 0.1 case needs 20 s just to size; same path)
    (["account", "--q", "0.5", "--sigma", "1", "--steps", "1e7", "--delta", "1e-5"], ["--steps", "largest allowed"]),
    (["compare", "--inputs", "5"], ["--inputs", "domain", "[-1, 1]"]),
    # found by the hand-made sweep (other cases than the issue's)
    (["attack", "own-report", "grr", "--eps", "1", "--c", "1000000"], ["--c", "largest allowed --c"]),
    (["attack", "averaging", "hds", "--eps", "1", "--queries", "1000000"], ["--queries", "largest allowed"]),
    (["attack", "level-leak", "--d", "1000000"], ["--d", "largest allowed --d"]),
    (["attack", "level-leak", "--h", "64"], ["--h", "--eps", "largest allowed --h here is 10"]),
    (["attack", "neighbour-vote", "--dataset", "power"], ["--dataset", "no node features"]),
    (["attack", "neighbour-vote", "--dataset", "karate"], ["--dataset", "no node features"]),
    (["attack", "neighbour-vote", "--columns", "100000"], ["--columns", "1,433"]),
    (["claims", "lpgnn", "--confidence", "0.9999999999999999"], ["--confidence", "1 - 1e-12"]),
    (["attack", "label-plurality", "--confidence", "1"], ["--confidence", "1 - 1e-12"]),
    (["claims", "lpgnn", "--json", "--markdown"], ["--markdown", "--json"]),
    (["bounds", "lpgnn", "--dataset", "csbm", "--eps", "1e-300"], ["--eps", "too small"]),
    (["data", ""], ["dataset name is empty"]),
    (["compare", "--mechanisms", "hds,hds"], ["--mechanisms", "more than once"]),
    (["compare", "--sweep", "--eps", "2", "--samples", "1000"], ["--sweep", "--eps", "--samples"]),
    (["claims", "--coverage", "--markdown"], ["--coverage", "--markdown"]),
    (["data", "cora", "--cache-dir", ""], ["--cache-dir: is empty"]),
    (["account", "--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "1e-300"], ["--delta", "1e-12"]),
    (["compare", "--k", "lpgnn", "--mechanisms", "laplace_hd"], ["--k", "applies to none"]),
    (["bounds", "ppgnn", "--dataset", "csbm", "--mechanism", "grr"], ["--mechanism grr", "high-dimensional"]),
    (["bounds", "lpgnn", "--dataset", "csbm", "--features", "100000"], ["--features", "feature columns"]),
    (["data", "cora", "--data-dir", ""], ["--data-dir: is empty"]),
    (["attack", "averaging", "hds", "--eps", "1", "--queries", "1"], ["--queries", "[2, "]),
    (["attack", "neighbour-vote", "--band", "0.5"], ["--band", "0.5)"]),
    (["account", "--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--orders", "1e6"],
     ["--orders", "4096"]),
    (["account", "--q", "1", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--sampling",
      "without-replacement"], ["--q", "without-replacement"]),
    (["account", "--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--json", "--markdown"],
     ["--markdown", "--json"]),
    (["compare", "--inputs", "0.5", "--mechanisms", "grr"], ["--inputs", "domain of grr", "integers"]),
]


@pytest.mark.parametrize("argv, words", SIZE_CASES, ids=[" ".join(c[0])[:60] for c in SIZE_CASES])
def test_sizes_and_domains_are_refused_before_any_work(argv, words, capsys, tmp_path):
    out = tmp_path / "report.json"
    code = main(argv + ["--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and not out.exists()
    for word in words:
        assert word in err, err


@pytest.mark.parametrize("target", ["/dev/null", ""])
def test_a_device_or_an_empty_name_is_never_an_output(target, capsys):
    """The atomic write replaces the target: as root, --out /dev/null would have replaced the device itself."""
    before = os.stat("/dev/null")
    code = main(["account", "--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--out", target])
    err = capsys.readouterr().err
    assert code == 2 and "--out" in err and "Traceback" not in err, err
    assert os.stat("/dev/null").st_rdev == before.st_rdev and not Path("/dev/null").is_file()


def test_the_size_guards_leave_the_defaults_alone_on_a_small_machine(monkeypatch):
    from ldp_audit.commands import attack, options
    from ldp_audit.mechanisms import validation

    monkeypatch.setattr(validation, "available_memory", lambda: 2 * 2 ** 30)  # the one copy the CLI uses too
    bytes_each = attack._PLURALITY_BYTES["class"] * 7 + attack._PLURALITY_BYTES["neighbour"] * 16
    options.check_size("--samples", 100_000, bytes_each, "label-plurality defaults")
    with pytest.raises(ValueError, match=r"largest allowed --samples here is 2,344,414"):
        options.check_size("--samples", 10 ** 7, bytes_each, "label-plurality")


@pytest.mark.parametrize("setup, option", [
    (lambda tmp, env: ["--cache-dir", str(tmp / "file")], "--cache-dir"),
    (lambda tmp, env: ["--cache-dir", str(tmp / "file" / "sub")], "--cache-dir"),
    (lambda tmp, env: ["--cache-dir", "/proc/no-such-folder"], "--cache-dir"),
    (lambda tmp, env: env.setenv(data.ENV_CACHE, str(tmp / "file")) or [], "$LDP_AUDIT_CACHE"),
])
def test_cache_folder_problems_are_exit_2(setup, option, capsys, tmp_path, monkeypatch):
    (tmp_path / "file").write_text("not a folder")
    code = main(["data", "cora"] + setup(tmp_path, monkeypatch))
    err = capsys.readouterr().err
    assert code == 2 and option in err and "Traceback" not in err, err


def test_a_damaged_dataset_is_exit_2_naming_file_and_folder(capsys, tmp_path):
    shared = data.data_dir()
    root = tmp_path / "datasets"
    shutil.copytree(shared / "lastfm_asia", root / "lastfm_asia")
    shutil.copy(shared / "SHA256SUMS", root / "SHA256SUMS")
    path = root / "lastfm_asia" / "edges.csv"
    path.write_bytes(path.read_bytes()[:1000])
    code = main(["data", "lastfm_asia", "--data-dir", str(root), "--cache-dir", str(tmp_path / "cache")])
    err = capsys.readouterr().err
    assert code == 2 and "edges.csv" in err and str(root) in err and "damaged" in err, err


def test_markdown_rows_stay_on_one_line(capsys):
    assert main(["compare", "--samples", "1000", "--mechanisms", "hds,laplace", "--markdown"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("|")]
    assert len(rows) == 2 + 2
    assert all(line.count(" | ") == 7 for line in rows if not line.startswith("|---")), out
    assert "var = " in out


def test_committed_reports_have_one_line_per_row():
    for path in ROOT.glob("benchmarks/results/**/report.md"):
        lines = path.read_text().splitlines()
        header = next(line for line in lines if line.startswith("| status"))
        body = [line for line in lines if line.startswith("| ") and line != header]
        assert body, path
        assert all(line.endswith(" |") for line in body), path
        # a row that was split would leave a continuation line that does not start with "|"
        table = lines[lines.index(header):]
        assert all(line.startswith("|") for line in table if line.strip()), path


def test_list_prints_bracketed_text_as_written(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    assert main(["list"]) == 0
    assert "[alpha, beta]^d" in capsys.readouterr().out


def test_floats_follow_one_significant_digit_rule_and_json_keeps_them(capsys):
    argv = ["compare", "--samples", "1000", "--mechanisms", "hds"]
    for extra in ([], ["--markdown"]):
        assert main(argv + extra) == 0
        out = capsys.readouterr().out
        assert "alpha" in out and "0.0010000000000000009" not in out and "0.001" in out
    assert main(argv + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["alpha"] == 1.0 - 0.999


def test_render_handles_newlines_and_pipes_in_any_cell():
    from ldp_audit.audits.kernel.result import AuditReport, CheckResult, Status
    from ldp_audit.commands.render import report_from_dict, to_markdown

    report = AuditReport.of("two\nlines", [CheckResult("a|b", "claim\nsplit", Status.PASS, 0.1 + 0.2, "s",
                                                       explanation="one\ntwo")], settings={"x": [0.1 + 0.2]})
    text = to_markdown(report)
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert len(rows) == 3 and "a\\|b" in rows[2] and "claim <br> split" in rows[2] and "s = 0.3 " in rows[2]
    assert "- x: `[0.3]`" in text and "## two lines" in text
    assert report_from_dict(report.to_dict()).to_dict() == report.to_dict()


PIPE_CASES = [["list"], ["list", "--json"], ["compare", "--samples", "1000", "--mechanisms", "hds"],
              ["compare", "--samples", "1000", "--mechanisms", "hds", "--markdown"],
              ["compare", "--samples", "1000", "--mechanisms", "hds", "--json"], ["data", "karate"],
              ["attack", "not-covered", "lpgnn"], ["--help"], ["attack", "--help"], ["--version"]]


@pytest.mark.parametrize("argv", PIPE_CASES, ids=[" ".join(a) for a in PIPE_CASES])
def test_a_closed_pipe_exits_141(argv):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte, as after `| head -1` has read its line
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        done = subprocess.run([sys.executable, "-m", "ldp_audit.cli", *argv], stdout=write,
                              stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    finally:
        os.close(write)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr
