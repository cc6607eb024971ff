"""Write targets (issue 43.4): every place a command writes is proven before the work (names within NAME_MAX and
PATH_MAX, the file size limit, a writable folder), a write that fails anyway is exit 2 naming the path, and the
temporaries of killed writers are removed by the next write in their folder, never those of a live writer.

The ``ulimit -f`` cases run the CLI in child processes under a real RLIMIT_FSIZE (one child per limit, each
running several command lines, so the suite stays fast); SIGKILL cases kill a real writer between its write and
its rename."""
from __future__ import annotations

import errno
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ldp_audit import files
from ldp_audit.cli import main
from ldp_audit.files import OutputError, check_output_file, check_output_folder, write_atomic

ROOT = Path(__file__).resolve().parents[1]
LONG = "n" * 300  # a name longer than any usual NAME_MAX (255 bytes)
VERIFY = ["verify", "grr", "--eps", "1", "--c", "2", "--samples", "1000", "--json"]
COMPARE = ["compare", "--samples", "1000", "--mechanisms", "hds,laplace"]
KARATE = ["train", "lpgnn", "--dataset", "karate", "--features", "ohd", "--epochs", "2", "--json"]
ACCOUNT = ["account", "--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "1e-5"]


def _code(argv) -> int:
    try:
        return main([str(a) for a in argv])
    except SystemExit as exc:
        return exc.code


def _refused(argv, capsys, *words) -> str:
    """Exit 2, ``ldp-audit: error:`` with every word of ``words`` and no traceback."""
    code = _code(argv)
    err = capsys.readouterr().err
    assert code == 2 and "ldp-audit: error:" in err and "Traceback" not in err, err
    assert all(str(word) in err for word in words), err
    return err


@pytest.fixture(autouse=True)
def private_homes(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data-home"))
    monkeypatch.setenv("LDP_AUDIT_CACHE", str(tmp_path / "cache"))


# ------------------------------------------------------------------------------- names, before any work

@pytest.mark.parametrize("argv, option", [
    ([*VERIFY, "--out", "{tmp}/" + LONG + ".json"], "--out"),
    ([*COMPARE, "--plot", "{tmp}/" + LONG + ".png"], "--plot"),
    ([*VERIFY, "--out", "{tmp}/" + LONG + "/report.json"], "--out"),  # a folder to create
    ([*KARATE, "--results", "{tmp}/" + LONG], "--results"),
    ([*KARATE, "--results", "{tmp}/r/" + LONG + "/deeper"], "--results"),
    (["reproduce", "lpgnn", "--max-runs", "0", "--results", "{tmp}/" + LONG], "--results"),
    (["data", "cora", "--cache-dir", "{tmp}/" + LONG], "--cache-dir"),
    ([*ACCOUNT, "--out", "{tmp}/" + LONG + ".md"], "--out"),
], ids=["verify-out", "compare-plot", "out-folder", "train-results", "results-deeper", "reproduce-results",
        "data-cache-dir", "account-out"])
def test_a_name_longer_than_name_max_is_refused_before_any_work(argv, option, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    _refused(argv, capsys, option, "bytes long", "NAME_MAX", LONG)
    assert not list(tmp_path.rglob("*.json")) and not (tmp_path / "data-home").exists()


def test_name_max_counts_bytes_not_characters(tmp_path, capsys):
    name = "é" * 130 + ".json"  # 135 characters, 265 bytes in UTF-8
    _refused([*VERIFY, "--out", tmp_path / name], capsys, "--out", "265 bytes long", "NAME_MAX")


@pytest.mark.parametrize("argv, option", [([*VERIFY, "--out", "{deep}/report.json"], "--out"),
                                          ([*KARATE, "--results", "{deep}"], "--results"),
                                          (["data", "cora", "--cache-dir", "{deep}"], "--cache-dir")])
def test_a_path_longer_than_path_max_is_refused_before_any_work(argv, option, tmp_path, capsys):
    deep = str(tmp_path / "/".join(["d" * 200] * 21))  # every name fits NAME_MAX, the whole path does not
    _refused([a.replace("{deep}", deep) for a in argv], capsys, option, "PATH_MAX")


@pytest.mark.parametrize("argv, option", [([*KARATE, "--results", "/sys/ldp-audit-results"], "--results"),
                                          ([*VERIFY, "--out", "/sys/ldp-audit/report.json"], "--out"),
                                          (["data", "cora", "--cache-dir", "/sys/ldp-audit-cache"], "--cache-dir")])
def test_a_folder_that_refuses_writes_even_to_root_is_refused(argv, option, capsys):
    if not Path("/sys").is_dir():
        pytest.skip("no /sys on this system (sysfs refuses new files to every user, root included)")
    _refused(argv, capsys, option, "/sys", "not writable")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only (0o555) folder anyway; the /sys cases "
                                              "above cover an unwritable folder for root")
def test_a_read_only_folder_is_refused(tmp_path, capsys):
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        _refused([*VERIFY, "--out", folder / "report.json"], capsys, "--out", str(folder), "not writable")
    finally:
        folder.chmod(0o755)


def test_a_name_of_255_bytes_is_written(tmp_path, capsys):
    """The longest name the file system takes still works: the temporary's name is cut to fit."""
    target = tmp_path / ("r" * 250 + ".json")
    assert _code([*VERIFY, "--out", target]) == 0
    assert json.loads(target.read_text())["verdict"] and [p.name for p in tmp_path.iterdir()] == [target.name]


def test_the_folders_a_file_needs_are_returned_outermost_first(tmp_path):
    assert check_output_file("--out", tmp_path / "a" / "b" / "r.json") == [tmp_path / "a", tmp_path / "a" / "b"]
    assert check_output_folder("--results", tmp_path / "x") == [tmp_path / "x"]


# ------------------------------------------------------------------------------------ the Python face

@pytest.mark.parametrize("make_path, code", [
    (lambda tmp: tmp / (LONG + ".json"), errno.ENAMETOOLONG),
    (lambda tmp: tmp / "a-file" / "report.json", errno.ENOTDIR),  # a file where its folder should be
    (lambda tmp: Path("/sys/ldp-audit/report.json"), None),
], ids=["long-name", "under-a-file", "sysfs"])
def test_a_failed_write_is_an_output_error_naming_the_path(make_path, code, tmp_path):
    (tmp_path / "a-file").write_text("x")
    path = make_path(tmp_path)
    with pytest.raises(OutputError, match=re.escape(f"could not write {str(path)!r}")) as caught:
        write_atomic(path, "{}")
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, OSError)
    assert code is None or caught.value.errno in (code, errno.EEXIST)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_an_output_error_from_a_worker_process_keeps_its_message_and_errno():
    import pickle

    error = pickle.loads(pickle.dumps(OutputError("could not write 'x' (File too large)", errno.EFBIG)))
    assert (type(error), str(error), error.errno) == (OutputError, "could not write 'x' (File too large)", errno.EFBIG)


def test_a_name_of_255_bytes_is_written_atomically(tmp_path):
    path = write_atomic(tmp_path / ("x" * 255), b"data")
    assert path.read_bytes() == b"data" and len(list(tmp_path.iterdir())) == 1


# ------------------------------------------------------------------------------------------- ulimit -f

#: Runs ``main`` on each command line of a JSON {case: argv} and prints {case: [exit code, stderr]}; with
#: ``min_room`` the up-front check asks for only that many bytes, so that the run reaches its final write.
CHILD = """
import contextlib, io, json, sys, traceback
from ldp_audit import files
from ldp_audit.cli import main
job = json.loads(sys.argv[1])
if job["min_room"] is not None:
    files.MIN_ROOM_BYTES = job["min_room"]
found = {}
for case, argv in job["cases"].items():
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
        except BaseException:
            code = "raised"
            err.write(traceback.format_exc())
    found[case] = [code, err.getvalue()]
try:
    files.check_output_folder("--results", job["folder"])
    found["api"] = None
except ValueError as exc:
    found["api"] = [type(exc).__name__, exc.errno, str(exc)]
print(json.dumps(found))
"""


def _under_file_size_limit(limit: int, cases: dict, folder: Path, min_room: int | None = None) -> dict:
    """The CLI's outcomes in a child process whose RLIMIT_FSIZE is ``limit`` bytes."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1",
           "XDG_DATA_HOME": str(folder / "data-home"), "LDP_AUDIT_CACHE": str(folder / "cache"),
           "MPLCONFIGDIR": str(folder / "mpl")}
    job = {"cases": {k: [str(a) for a in v] for k, v in cases.items()}, "min_room": min_room,
           "folder": str(folder / "api")}
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(job)], capture_output=True, text=True, env=env,
                          timeout=300, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


LIMITED = {  # case: (argv, the option named)
    "verify --out": ([*VERIFY, "--out", "{tmp}/v.json"], "--out"),
    "compare --plot": ([*COMPARE, "--plot", "{tmp}/p.png"], "--plot"),
    "account --out": ([*ACCOUNT, "--out", "{tmp}/a.md"], "--out"),
    "reproduce --out": (["reproduce", "lpgnn", "--max-runs", "0", "--results", "{tmp}/r", "--out", "{tmp}/rep.json"],
                        "--out"),
    "train --cache-dir": ([*KARATE, "--results", "{tmp}/r", "--cache-dir", "{tmp}/c"], "--cache-dir"),
    "train $LDP_AUDIT_CACHE": ([*KARATE, "--results", "{tmp}/r"], "$LDP_AUDIT_CACHE"),
    "data --cache-dir": (["data", "cora", "--cache-dir", "{tmp}/c"], "--cache-dir"),
}


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    """Outcomes under ``ulimit -f`` 64 KiB: below the 1 MiB a result file may need, refused before any work."""
    tmp = tmp_path_factory.mktemp("limited")
    cases = {case: [a.replace("{tmp}", str(tmp)) for a in argv] for case, (argv, _) in LIMITED.items()}
    return tmp, _under_file_size_limit(64 * 1024, cases, tmp)


@pytest.mark.parametrize("case", LIMITED)
def test_a_file_size_limit_below_a_result_file_is_refused_before_any_work(limited, case):
    tmp, found = limited
    code, err = found[case]
    assert code == 2 and "ldp-audit: error:" in err and "Traceback" not in err, err
    assert LIMITED[case][1] in err and str(tmp) in err and "65536 bytes" in err and "ulimit -f" in err, err
    assert not list(tmp.rglob("*.json")) and not list(tmp.rglob("*.png")) and not (tmp / "r").exists()


def test_the_file_size_limit_is_checked_from_python_too(limited):
    tmp, found = limited
    kind, code, message = found["api"]
    assert kind == "OutputError" and code == errno.EFBIG and "--results" in message and str(tmp / "api") in message


FINAL = {  # case: (argv, the file or folder the failed write names)
    "verify --out": ([*VERIFY, "--out", "{tmp}/new/v.json"], "{tmp}/new/v.json"),
    "verify --out over a file": ([*VERIFY, "--out", "{tmp}/old/v.json"], "{tmp}/old/v.json"),
    "compare --plot": ([*COMPARE, "--plot", "{tmp}/plot/p.png"], "{tmp}/plot/p.png"),
    "train --results": ([*KARATE, "--results", "{tmp}/runs"], "{tmp}/runs/karate/"),
    "data cache": (["data", "cora", "--cache-dir", "{tmp}/cache"], "{tmp}/cache/planetoid/"),
}


@pytest.fixture(scope="module")
def final_writes(tmp_path_factory):
    """Outcomes under ``ulimit -f`` 512 bytes with the up-front check lowered to 1 byte: the work runs, and its
    final write fails for real (EFBIG)."""
    tmp = tmp_path_factory.mktemp("final")
    (tmp / "old").mkdir()
    (tmp / "old" / "v.json").write_text("the previous report")
    cases = {case: [a.replace("{tmp}", str(tmp)) for a in argv] for case, (argv, _) in FINAL.items()}
    return tmp, _under_file_size_limit(512, cases, tmp, min_room=1)


@pytest.mark.parametrize("case", FINAL)
def test_a_final_write_over_the_file_size_limit_exits_2_naming_the_path(final_writes, case):
    tmp, found = final_writes
    code, err = found[case]
    path = FINAL[case][1].replace("{tmp}", str(tmp))
    assert code == 2 and "Traceback" not in err, err
    assert f"ldp-audit: error: could not write '{path}" in err and "(File too large)" in err, err
    assert "the file size limit (ulimit -f) is 512 bytes" in err, err


def test_a_failed_final_write_leaves_old_files_and_no_part_behind(final_writes):
    tmp, _ = final_writes
    assert (tmp / "old" / "v.json").read_text() == "the previous report"
    assert not (tmp / "new" / "v.json").exists() and not list(tmp.rglob("seed*.json"))
    assert not [p for p in tmp.rglob("*") if p.name.endswith(".tmp")]
    assert not list((tmp / "cache" / "planetoid").iterdir())  # no half-built dataset cache


def test_sigxfsz_is_ignored_so_an_oversized_write_raises_efbig():
    """CPython sets SIGXFSZ to SIG_IGN at start-up: past ``ulimit -f`` a write fails with EFBIG (which the
    commands report) instead of killing the process."""
    import signal

    assert signal.getsignal(signal.SIGXFSZ) == signal.SIG_IGN


# ----------------------------------------------------------------------------- temporaries of killed writers

#: A writer that stops between its write and its rename (it prints "ready" there) until it is killed.
STALLED_WRITER = """
import os, sys, time
from ldp_audit import files
def stalled(source, target):
    print("ready", flush=True)
    time.sleep(600)
os.replace = stalled
files.write_atomic(sys.argv[1], "{}")
"""


@pytest.fixture
def stalled_writer(tmp_path):
    """A live writer with its temporary in ``tmp_path``; killed (SIGKILL) and reaped at the end at the latest."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    writer = subprocess.Popen([sys.executable, "-c", STALLED_WRITER, str(tmp_path / "seed0.json")],
                              stdout=subprocess.PIPE, text=True, env=env)
    assert writer.stdout.readline().strip() == "ready"
    yield writer
    writer.kill()
    writer.wait()
    writer.stdout.close()


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_the_temporary_of_a_writer_killed_before_its_rename_is_removed_by_the_next_write(stalled_writer, tmp_path):
    stalled_writer.kill()  # SIGKILL: no clean-up of its own
    stalled_writer.wait()
    left = _temporaries(tmp_path)
    mark = rf"\.seed0\.json\.ldp-audit-[0-9a-f]{{8}}-{stalled_writer.pid}\.\w{{8}}\.tmp"  # host and pid
    assert len(left) == 1 and re.fullmatch(mark, left[0]), left
    write_atomic(tmp_path / "seed1.json", "{}")
    assert _temporaries(tmp_path) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["seed1.json"]


def test_the_temporary_of_a_live_writer_is_left_alone(stalled_writer, tmp_path):
    left = _temporaries(tmp_path)
    write_atomic(tmp_path / "seed1.json", "{}")
    assert stalled_writer.poll() is None and _temporaries(tmp_path) == left and len(left) == 1


def _temporary(folder: Path, host: str, pid: int, age_s: float = 0.0) -> Path:
    path = folder / f".seed0.json.ldp-audit-{host}-{pid}.abcd1234.tmp"
    path.write_text("{")
    then = time.time() - age_s
    os.utime(path, (then, then))
    return path


def _dead_pid() -> int:
    done = subprocess.Popen(["true"])
    done.wait()  # exited and reaped: no process has this id now (until the system reuses it)
    return done.pid


@pytest.mark.parametrize("host, pid, age_s, removed", [
    (files._HOST, "dead", 0.0, True),                 # this host, process gone
    (files._HOST, os.getpid(), 0.0, False),           # this host, process alive (this one)
    ("0123abcd", "dead", 0.0, False),                 # another host: its process cannot be asked
    ("0123abcd", 12345, 2 * files.STALE_AFTER_S, True),  # another host, older than any write takes
], ids=["this-host-dead", "this-host-alive", "other-host-recent", "other-host-old"])
def test_which_temporaries_count_as_abandoned(tmp_path, host, pid, age_s, removed):
    path = _temporary(tmp_path, host, _dead_pid() if pid == "dead" else pid, age_s)
    assert files.remove_stale_temporaries(tmp_path) == ([path] if removed else [])
    assert path.exists() is not removed


def test_files_not_named_as_our_temporaries_are_never_removed(tmp_path):
    names = [".notes.tmp", ".seed0.json.abcd1234.tmp", "seed0.json", ".seed0.json.ldp-audit-zz-1.abcd1234.tmp"]
    for name in names:
        path = tmp_path / name
        path.write_text("x")
        os.utime(path, (0, 0))  # 1970: old enough for any rule
    write_atomic(tmp_path / "seed1.json", "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names + ["seed1.json"])
