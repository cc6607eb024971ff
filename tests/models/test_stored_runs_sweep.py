"""Stored runs from the bad-input sweep: a run file that is not a regular file (a FIFO, a link to /dev/zero), too
large, or nested too deeply to parse, and values the writer cannot have written (a score outside [0, 1], an epoch
that was not trained, a curve without one value per epoch, a best test accuracy below the chosen one, a negative
wall time) are refused naming the file and the field, and the file is left as it was. That every committed run
still loads is tested in ``test_stored_runs.py``."""
from __future__ import annotations

import json
import math
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


# ------------------------------------------------------------------------------------- what it holds

def _edit(path: Path, change) -> bytes:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    return path.read_bytes()


VALUES = [  # (name, change, words the message holds)
    ("acc-above-1", lambda d: d["metrics"].update(test_acc=1.7), ["field 'metrics.test_acc' is 1.7", "[0, 1]"]),
    ("acc-negative", lambda d: d["metrics"].update(val_acc=-0.3), ["field 'metrics.val_acc' is -0.3"]),
    ("best-above-1", lambda d: d["metrics"].update(test_acc_best=1.5), ["field 'metrics.test_acc_best' is 1.5"]),
    ("curve-acc", lambda d: d["curves"]["val_acc"].__setitem__(1, 2.0), ["field 'curves.val_acc[1]' is 2.0"]),
    ("epoch-beyond", lambda d: d["metrics"].update(epoch=7), ["field 'metrics.epoch' is 7", "counted from 0",
                                                              "[0, 1]"]),
    ("epoch-last+1", lambda d: d["metrics"].update(epoch=2), ["field 'metrics.epoch' is 2"]),
    ("epoch-fraction", lambda d: d["metrics"].update(epoch=0.5), ["field 'metrics.epoch' is 0.5", "whole number"]),
    ("epoch-negative", lambda d: d["metrics"].update(epoch=-1), ["field 'metrics.epoch' is -1"]),
    ("curve-short", lambda d: d["curves"].update(val_loss=[0.9]), ["field 'curves.val_loss' has 1 value(s)",
                                                                   "config.epochs = 2"]),
    ("curve-long", lambda d: d["curves"]["test_acc"].append(0.5), ["field 'curves.test_acc' has 3 value(s)"]),
    ("best-below-chosen", lambda d: d["metrics"].update(test_acc_best=0.1),
     ["field 'metrics.test_acc_best' is 0.1", "below field 'metrics.test_acc'"]),
    ("wall-negative", lambda d: d.update(wall_time_s=-5.0), ["field 'wall_time_s' is -5.0"]),
]


@pytest.mark.parametrize("change, words", [case[1:] for case in VALUES], ids=[case[0] for case in VALUES])
def test_a_value_the_writer_cannot_have_written_is_refused(stored, change, words):
    store, config, path = stored
    text = _edit(path, change)
    _refused(store, config, path, *words)
    assert path.read_bytes() == text


def test_null_is_still_a_diverged_value_read_as_nan(stored):
    store, config, path = stored
    _edit(path, lambda d: (d["metrics"].update(val_loss=None, test_acc=None),
                           d["curves"]["val_acc"].__setitem__(0, None)))
    result = store.load(config)
    assert math.isnan(result.metrics["val_loss"]) and math.isnan(result.metrics["test_acc"])
    assert math.isnan(result.curves["val_acc"][0])


def test_the_edges_of_every_range_load(stored):
    store, config, path = stored
    _edit(path, lambda d: (d["metrics"].update(epoch=0, test_acc=1.0, test_acc_best=1.0, val_acc=0.0),
                           d.update(wall_time_s=0.0)))
    assert store.load(config).metrics["epoch"] == 0


# ---------------------------------------------------------------- a pipeline that stops early (LDP-GE)

def _committed(sign: bytes) -> Path:
    return next(p for p in sorted(RESULTS.rglob("seed*.json")) if sign in p.read_bytes()[:200])


EARLY = [  # (sign of the committed file, change, words)
    (b'"pipeline":"ldp-ge"', lambda d: d["metrics"].update(epochs_run=d["config"]["epochs"] + 1),
     ["field 'metrics.epochs_run'", "at most config.epochs"]),
    (b'"pipeline":"ldp-ge"', lambda d: d["metrics"].update(epoch=d["metrics"]["epochs_run"]),
     ["field 'metrics.epoch'", "(metrics.epochs_run)"]),
    (b'"pipeline":"ldp-ge"', lambda d: d["curves"].update({k: v[:-1] for k, v in d["curves"].items()}),
     ["value(s); a run that trained", "epoch(s) (metrics.epochs_run) has one per epoch"]),
    (b"ldp-audit/ldp-ge-run", lambda d: d["val_curve"].append(0.5), ["field 'val_curve' has"]),
    (b"ldp-audit/ldp-ge-run", lambda d: d["metrics"].update(test=1.2), ["field 'metrics.test' is 1.2"]),
    (b"ldp-audit/ldp-ge-run", lambda d: d["extra"].update(wall_time_s=-1), ["field 'extra.wall_time_s' is -1"]),
]


@pytest.mark.parametrize("sign, change, words", EARLY, ids=["epochs_run", "epoch", "curve", "old-curve",
                                                             "old-score", "old-wall"])
def test_a_run_that_stopped_early_is_checked_against_the_epochs_it_ran(sign, change, words, tmp_path):
    source = _committed(sign)
    path = tmp_path / source.relative_to(source.parents[3])
    path.parent.mkdir(parents=True)
    shutil.copyfile(source, path)
    store = RunStore(path.parents[2])
    config = store.read(path).config
    text = _edit(path, change)
    _refused(store, config, path, *words)
    assert path.read_bytes() == text


# ------------------------------------------------------------------------------------- the command line

def test_train_refuses_a_damaged_run_cleanly(stored, capsys):
    store, _, path = stored
    text = _edit(path, lambda d: d["metrics"].update(test_acc=1.7))
    assert main([*TRAIN, "--results", str(store.root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ldp-audit: error: stored run {str(path)!r}") and "metrics.test_acc" in err, err
    assert "Traceback" not in err and path.read_bytes() == text


def test_train_on_a_fifo_exits_2_without_hanging(stored):
    store, _, path = stored
    path.unlink()
    os.mkfifo(path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "ldp_audit.cli", *TRAIN, "--results", str(store.root)],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "seed0.json" in done.stderr and "named pipe (FIFO)" in done.stderr and path.is_fifo()
