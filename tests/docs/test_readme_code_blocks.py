"""README.md's code blocks run as written: every ```python block executes, and every ``ldp-audit`` command of a
```bash or ```console block runs (as ``python -m ldp_audit.cli``) with the exit code the README gives it (0 unless
its line ends in ``# exit N``). A ```console block's output lines (all but ``...``, which marks a cut) must be
lines of the command's real output, so the README shows what the program prints."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
#: The width the README's tables were captured at (rich reads it from $COLUMNS when piped).
COLUMNS = "100"
TIMEOUT_S = 180
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
NUMBER = re.compile(r"[-+]?\d+\.\d+(?:e[-+]?\d+)?")
#: Decimals past this relative precision are the platform's float rounding, not the program: a PLD accountant's
#: FFT prints 6.768787377 on one CPU and 6.768787374 on another.
REL_TOL = 1e-8


@dataclass(frozen=True)
class Command:
    line: str  # as written, without the prompt
    args: tuple[str, ...]  # after "ldp-audit"
    exit_code: int
    shown: tuple[str, ...]  # the output lines the README shows (console blocks)


def blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(text)]


def command(line: str, shown: list[str]) -> Command:
    """One README command line (prompt already removed): its arguments and documented exit code."""
    code, _, comment = line.partition("#")
    expected = re.match(r"\s*exit (\d+)", comment)
    words = shlex.split(code)
    assert words[0] == "ldp-audit", line
    return Command(line.strip(), tuple(words[1:]), int(expected.group(1)) if expected else 0, tuple(shown))


def commands(text: str) -> list[Command]:
    """Every ldp-audit command of the README's bash and console blocks."""
    found = []
    for language, body in blocks(text):
        lines = body.rstrip("\n").split("\n")
        if language == "bash":
            found += [command(line, []) for line in lines if line.startswith("ldp-audit ")]
        elif language == "console":
            starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
            for i, start in enumerate(starts):
                end = starts[i + 1] if i + 1 < len(starts) else len(lines)
                prompt = lines[start][2:]
                if prompt.startswith("ldp-audit "):
                    found.append(command(prompt, [s for s in lines[start + 1:end] if s.strip() != "..."]))
    return found


def same_line(shown: str, printed: str) -> bool:
    """The same text, with every decimal number equal to within REL_TOL (relative): the digits a README shows
    beyond that are float rounding that differs from one CPU to another."""
    if shown == printed:
        return True
    if NUMBER.split(shown) != NUMBER.split(printed):
        return False
    pairs = zip(NUMBER.findall(shown), NUMBER.findall(printed))
    return all(abs(float(a) - float(b)) <= REL_TOL * max(abs(float(a)), abs(float(b))) for a, b in pairs)


def python_blocks(text: str) -> list[str]:
    return [body for language, body in blocks(text) if language == "python"]


README_TEXT = README.read_text(encoding="utf-8")
COMMANDS = commands(README_TEXT)
PYTHON = python_blocks(README_TEXT)


def _environment(home: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), COLUMNS=COLUMNS,
               LDP_AUDIT_CACHE=str(home / "cache"), XDG_DATA_HOME=str(home / "data"))
    env.pop("NO_COLOR", None)
    return env


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every README command and Python block, two at a time (the commands are independent), in a scratch folder."""
    home = tmp_path_factory.mktemp("readme")
    env = _environment(home)

    def run(job):
        kind, payload = job
        argv = [sys.executable, "-m", "ldp_audit.cli", *payload.args] if kind == "command" else [sys.executable, "-c",
                                                                                                 payload]
        return subprocess.run(argv, cwd=home, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)

    jobs = [("command", c) for c in COMMANDS] + [("python", p) for p in PYTHON]
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(run, jobs))
    return {job: result for job, result in zip(jobs, done)}


def test_the_readme_shows_the_first_commands_and_python():
    """The parser finds what the README promises: five first commands with their output, and Python."""
    shown = [c for c in COMMANDS if c.shown]
    assert [c.args[0] for c in shown] == ["verify", "list", "compare", "claims", "account"]
    assert PYTHON


def test_a_shown_line_matches_up_to_float_rounding_only():
    row = "│ dp-accounting  │ PLD, Poisson   │    6.768787377 │"
    assert same_line(row, row.replace("6.768787377", "6.768787374"))
    assert not same_line(row, row.replace("6.768787377", "6.768797377"))  # a real change, 1.5e-6 relative
    assert not same_line(row, row.replace("PLD", "RDP"))
    assert not same_line("eps 1.0 2.0", "eps 1.0")


def test_the_parser_reads_exit_codes_and_cuts():
    text = "```console\n$ ldp-audit claims x   # exit 1: errata\nrow\n...\nlast\n$ ls\n```\n"
    assert commands(text) == [Command("ldp-audit claims x   # exit 1: errata", ("claims", "x"), 1, ("row", "last"))]
    assert commands("```bash\nldp-audit list\npip install x && ldp-audit list\n```\n")[0].args == ("list",)


@pytest.mark.parametrize("cmd", COMMANDS, ids=lambda c: " ".join(c.args)[:60])
def test_readme_command(cmd, runs):
    result = runs[("command", cmd)]
    assert result.returncode == cmd.exit_code, f"{cmd.line}: exit {result.returncode}\n{result.stderr[-2000:]}"
    printed = {line.rstrip() for line in result.stdout.split("\n")}
    missing = [line for line in cmd.shown if not any(same_line(line.rstrip(), p) for p in printed)]
    assert not missing, f"{cmd.line}: README shows lines the command does not print: {missing[:5]}"


@pytest.mark.parametrize("index", range(len(PYTHON)))
def test_readme_python_block(index, runs):
    result = runs[("python", PYTHON[index])]
    assert result.returncode == 0, result.stderr[-2000:]
