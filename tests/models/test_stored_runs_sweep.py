"""Stored runs from the bad-input sweep: a run file that is not a regular file (a FIFO, a link to /dev/zero), too
large, or nested too deeply to parse is refused naming the file, and the file is left as it was."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ldp_audit.cli import main
from ldp_audit.models.training import RunStore
from ldp_audit.models.training.store import MAX_RUN_BYTES, StoredRunError

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
TRAIN = ["train", "lpgnn", "--dataset", "csbm", "--epochs", "2"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A results folder holding one finished 2-epoch csbm run (as the sweep made it)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        root = tmp_path_factory.mktemp("trained") / "runs"
        assert main([*TRAIN, "--results", str(root)]) == 0
    finally:
        torch.set_num_threads(threads)
    return root


@pytest.fixture
def stored(trained, tmp_path, capsys):
    """(store, config, run file): a copy of ``trained`` under ``tmp_path``."""
    capsys.readouterr()
    root = tmp_path / "runs"
    shutil.copytree(trained, root)
    path = next(root.rglob("seed0.json"))
    store = RunStore(root)
    return store, store.read(path).config, path


def _refused(store, config, path, *words) -> str:
    """The StoredRunError of loading ``config``; it names the file and ``words``."""
    with pytest.raises(StoredRunError) as caught:
        store.load(config)
    message = str(caught.value)
    assert message.startswith(f"stored run {str(path)!r} "), message
    assert all(word in message for word in words), message
    return message


# ------------------------------------------------------------------------------------ what the file is

def test_a_fifo_is_refused_without_being_opened(stored):
    store, config, path = stored
    path.unlink()
    os.mkfifo(path)
    _refused(store, config, path, "named pipe (FIFO)", "not a regular file")  # a read would wait for ever
    assert path.is_fifo()


def test_a_link_to_dev_zero_is_refused_without_being_read(stored):
    store, config, path = stored
    path.unlink()
    path.symlink_to("/dev/zero")
    _refused(store, config, path, "character device", "/dev/zero")
    assert os.readlink(path) == "/dev/zero"


def test_a_file_over_the_size_cap_is_refused_before_it_is_parsed(stored):
    store, config, path = stored
    data = json.loads(path.read_text())
    data["extra"]["padding"] = "x" * MAX_RUN_BYTES
    path.write_text(json.dumps(data))
    before = path.read_bytes()
    _refused(store, config, path, f"more than the {MAX_RUN_BYTES:,} bytes")
    assert path.read_bytes() == before


def test_the_size_cap_is_far_above_every_committed_run():
    largest = max(p.stat().st_size for p in RESULTS.rglob("seed*.json"))
    assert 100 * largest < MAX_RUN_BYTES


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000],
                         ids=["lists", "objects"])
def test_json_nested_too_deeply_is_refused(stored, text):
    store, config, path = stored
    path.write_text(text)
    _refused(store, config, path, "nested too deeply")
    assert path.read_text() == text


# ------------------------------------------------------------------------------------- the command line

def test_train_on_a_fifo_exits_2_without_hanging(stored):
    store, _, path = stored
    path.unlink()
    os.mkfifo(path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "ldp_audit.cli", *TRAIN, "--results", str(store.root)],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "seed0.json" in done.stderr and "named pipe (FIFO)" in done.stderr and path.is_fifo()
