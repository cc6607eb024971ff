"""Stored runs checked on read (issue 43.5): schema and version (1.0 migrated to 1.1, any other refused), the type
of every field, metric and curve value, the config and seed; every error a ``StoredRunError`` (a ValueError)
naming the file and the field, and the file never overwritten in silence. Absent files are runs not done yet,
and every kind of committed run file still loads, with the numbers it holds."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from ldp_audit.cli import main
from ldp_audit.models.se_privgemb_runs import SePrivGEmbStore
from ldp_audit.models.training import RunStore, sweep
from ldp_audit.models.training.store import StoredRunError

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
#: Each kind of committed run file, by a piece of its first bytes.
SIGNS = {"gnn-1.1": b'"1.1","pipeline":"gnn"', "gnn-1.0": b'training-run","schema_version":"1.0"',
         "ldp-ge-1.1": b'"pipeline":"ldp-ge"', "ldp-ge-run": b"ldp-audit/ldp-ge-run",
         "se": b'"ldp-audit/se-privgemb-run","schema_version":"1.0","config":{"dataset":"power","task":"strucequ"'}


def _committed() -> dict[str, Path]:
    """One committed run file of each kind in :data:`SIGNS`."""
    found = {}
    for path in sorted(RESULTS.rglob("seed*.json")):
        head = path.read_bytes()[:200]
        found.update({kind: path for kind, sign in SIGNS.items() if sign in head and kind not in found})
        if len(found) == len(SIGNS):
            return found
    raise AssertionError(f"no committed run file of kinds {set(SIGNS) - set(found)}")


COMMITTED = _committed()


def _store(kind: str, root: Path):
    return (SePrivGEmbStore if kind == "se" else RunStore)(root)


def _copy(kind: str, tmp_path: Path):
    """(path, store, config): a copy of the committed ``kind`` file at its place in a store under ``tmp_path``."""
    source = COMMITTED[kind]
    path = tmp_path / source.relative_to(source.parents[3])
    path.parent.mkdir(parents=True)
    shutil.copyfile(source, path)
    store = _store(kind, path.parents[2])
    return path, store, store.read(path).config


def _set(dotted: str, value):
    """A change of the parsed file: the field ``dotted`` (``metrics.test_acc``, ``curves.val_acc.3``) set to
    ``value`` (deleted when ``value`` is ``DELETE``)."""
    def change(data):
        *parents, last = dotted.split(".")
        for name in parents:
            data = data[int(name)] if isinstance(data, list) else data[name]
        if value is DELETE:
            del data[last]
        elif isinstance(data, list):
            data[int(last)] = value
        else:
            data[last] = value
    return change


DELETE = object()


def _whole(text: bytes):
    """A change that replaces the whole file by ``text``."""
    return lambda data: text


CASES = [  # (kind, change, words the message must hold)
    ("gnn-1.1", _set("schema_version", "0.1"), ["field 'schema_version' is '0.1'", "versions 1.0, 1.1"]),
    ("gnn-1.1", _set("schema_version", "9.9"), ["field 'schema_version' is '9.9'",
                                                "needs the ldp-audit that wrote it"]),
    ("gnn-1.1", _set("schema_version", DELETE), ["field 'schema_version' is None"]),
    ("gnn-1.1", _set("schema_version", 1.1), ["field 'schema_version' is 1.1;"]),
    ("gnn-1.1", _set("schema", "ldp-audit/training-run-v2"), ["field 'schema' is 'ldp-audit/training-run-v2'",
                                                              "'ldp-audit/training-run' or 'ldp-audit/ldp-ge-run'"]),
    ("gnn-1.1", _set("schema", DELETE), ["field 'schema' is None"]),
    ("gnn-1.1", _whole(b"[1, 2]"), ["holds a list, not a run (a JSON object)"]),
    ("gnn-1.1", _whole(b'"a run"'), ["holds the string 'a run', not a run"]),
    ("gnn-1.1", _whole(b"null"), ["holds null, not a run"]),
    ("gnn-1.1", _set("metrics.test_acc", "abc"), ["field 'metrics.test_acc' must be a finite number or null "
                                                  "(diverged), got the string 'abc'"]),
    ("gnn-1.1", _set("metrics.epoch", None), ["field 'metrics.epoch' must be a finite number, got null"]),
    ("gnn-1.1", _set("metrics.epoch", True), ["field 'metrics.epoch' must be a finite number, got the boolean true"]),
    ("gnn-1.1", _set("metrics.val_loss", math.nan), ["field 'metrics.val_loss' must be a finite number or null "
                                                     "(diverged), got the number nan"]),
    ("gnn-1.1", _set("metrics.test_acc", math.inf), ["field 'metrics.test_acc'", "got the number inf"]),
    ("gnn-1.1", _set("metrics.test_acc", DELETE), ["field 'metrics.test_acc' is missing"]),
    ("gnn-1.1", _set("metrics.test_acc_best", DELETE), ["field 'metrics.test_acc_best' is missing"]),
    ("gnn-1.1", _set("metrics", [0.5]), ["field 'metrics' must be an object, got a list"]),
    ("gnn-1.1", _set("curves.val_acc.3", "x"), ["field 'curves.val_acc[3]' must be a finite number or null",
                                                "got the string"]),
    ("gnn-1.1", _set("curves.val_acc.0", math.nan), ["field 'curves.val_acc[0]' must be a finite number"]),
    ("gnn-1.1", _set("curves.train_loss", None), ["field 'curves.train_loss' must be a list, got null"]),
    ("gnn-1.1", _set("curves", []), ["field 'curves' must be an object, got a list"]),
    ("gnn-1.1", _set("device", 5), ["field 'device' must be a string, got the number 5"]),
    ("gnn-1.1", _set("device_name", DELETE), ["field 'device_name' is missing"]),
    ("gnn-1.1", _set("versions", "2.13"), ["field 'versions' must be an object, got the string '2.13'"]),
    ("gnn-1.1", _set("wall_time_s", "slow"), ["field 'wall_time_s' must be a finite number, got the string 'slow'"]),
    ("gnn-1.1", _set("extra", []), ["field 'extra' must be an object, got a list"]),
    ("gnn-1.1", _set("config", []), ["field 'config' must be an object, got a list"]),
    ("gnn-1.1", _set("config.dataset", DELETE), ["field 'config' does not describe a run", "'dataset'"]),
    ("gnn-1.1", _set("config.features", "nope"), ["field 'config' does not describe a run", "'nope'"]),
    ("gnn-1.1", _set("seed", 99), ["field 'seed' is 99 but field 'config.seed' is 0"]),
    ("gnn-1.1", _set("pipeline", "xyz"), ["field 'pipeline'", "'xyz'", "gnn, ldp-ge"]),
    ("gnn-1.1", _set("pipeline", DELETE), ["field 'pipeline' is missing"]),
    ("gnn-1.1", _set("config.lr", 0.5), ["holds the run of another configuration", "config.lr is 0.5 there"]),
    ("gnn-1.1", _whole(b'{"schema": "ldp-audit/training-run", "schema_ver'), ["is not valid JSON"]),
    ("gnn-1.1", _whole(b""), ["is not valid JSON"]),
    ("gnn-1.1", _whole(b"\xff\xfe{}"), ["is not valid JSON"]),
    ("gnn-1.0", _set("pipeline", "gnn"), ["field 'pipeline' is not part of schema_version 1.0"]),
    ("gnn-1.0", _set("metrics.val_acc", "0.5"), ["field 'metrics.val_acc' must be a finite number or null "
                                                 "(diverged), got the string '0.5'"]),
    ("gnn-1.0", _set("schema_version", "1.2"), ["field 'schema_version' is '1.2'"]),
    ("ldp-ge-1.1", _set("metrics.epochs_run", DELETE), ["field 'metrics.epochs_run' is missing"]),
    ("ldp-ge-1.1", _set("curves.val_auc.0", [0.5]), ["field 'curves.val_auc[0]' must be a finite number or null "
                                                     "(diverged), got a list"]),
    ("ldp-ge-run", _set("metrics.val", "x"), ["field 'metrics.val' must be a finite number"]),
    ("ldp-ge-run", _set("val_curve.0", None), ["field 'val_curve[0]' must be a finite number, got null"]),
    ("ldp-ge-run", _set("val_curve", DELETE), ["field 'val_curve' is missing"]),
    ("ldp-ge-run", _set("extra.wall_time_s", "x"), ["field 'extra.wall_time_s' must be a finite number"]),
    ("ldp-ge-run", _set("extra.device", 3), ["field 'extra.device' must be a string, got the number 3"]),
    ("ldp-ge-run", _set("schema_version", "2.0"), ["field 'schema_version' is '2.0'", "ldp-audit/ldp-ge-run "
                                                   "versions 1.0"]),
    ("se", _set("metrics.strucequ", "x"), ["field 'metrics.strucequ' must be a finite number"]),
    ("se", _set("metrics.strucequ", DELETE), ["field 'metrics.strucequ' is missing"]),
    ("se", _set("schema_version", "1.1"), ["field 'schema_version' is '1.1'", "se-privgemb-run versions 1.0"]),
    ("se", _set("schema", "ldp-audit/training-run"), ["field 'schema' is 'ldp-audit/training-run'; a run file "
                                                      "here has schema 'ldp-audit/se-privgemb-run'"]),
    ("se", _whole(b"[]"), ["holds a list, not a run"]),
    ("se", _set("extra", "x"), ["field 'extra' must be an object, got the string 'x'"]),
    ("se", _set("config.sigma", "5"), ["field 'config' does not describe a run"]),
]


def _damage(path: Path, change) -> bytes:
    """Apply ``change`` to the file at ``path``; return its new bytes."""
    data = json.loads(path.read_text())
    replaced = change(data)
    text = replaced if isinstance(replaced, bytes) else json.dumps(data).encode()
    path.write_bytes(text)
    return text


@pytest.mark.parametrize("kind, change, words", CASES,
                         ids=[f"{kind}-{i}" for i, (kind, *_) in enumerate(CASES)])
def test_a_damaged_stored_run_is_refused_naming_the_file_and_the_field(kind, change, words, tmp_path):
    path, store, config = _copy(kind, tmp_path)
    text = _damage(path, change)
    with pytest.raises(StoredRunError) as caught:
        store.load(config)
    message = str(caught.value)
    assert isinstance(caught.value, ValueError)
    assert message.startswith(f"stored run {str(path)!r} ") and all(word in message for word in words), message
    assert "move it away (or delete it) to train this run again" in message
    assert path.read_bytes() == text  # nothing rewritten


def test_a_folder_where_a_run_file_belongs_is_refused(tmp_path):
    path, store, config = _copy("gnn-1.1", tmp_path)
    path.unlink()
    path.mkdir()
    with pytest.raises(StoredRunError, match="cannot be read"):
        store.load(config)


# ------------------------------------------------------------------------------------------ valid files

@pytest.mark.parametrize("kind", SIGNS)
def test_every_kind_of_committed_run_loads_with_its_numbers(kind, tmp_path):
    path, store, config = _copy(kind, tmp_path)
    result, data = store.load(config), json.loads(path.read_text())
    assert result.config == config and store.path(config) == path
    metrics = data["metrics"]
    if kind == "ldp-ge-run":  # the former LDP-GE schema: val/test become the task's score names
        assert (result.val_score, result.test_score) == (metrics["val"], metrics["test"])
    elif kind == "se":
        assert result.metrics == metrics and result.value == metrics["strucequ"]
    else:
        assert result.metrics == metrics and result.curves == data["curves"]


@pytest.mark.parametrize("kind", SIGNS)
def test_an_absent_run_is_not_done_yet(kind, tmp_path):
    path, store, config = _copy(kind, tmp_path)
    path.unlink()
    assert store.load(config) is None and not store.done(config)


def test_a_version_1_0_run_is_migrated_to_1_1(tmp_path):
    path, store, config = _copy("gnn-1.0", tmp_path)
    written, stored = store.load(config).to_dict(), json.loads(path.read_text())
    assert (written["schema_version"], written["pipeline"]) == ("1.1", "gnn")
    same = set(stored) - {"schema_version", "config"}  # config: fields added since 1.0 hold their defaults
    assert {k: written[k] for k in same} == {k: stored[k] for k in same}
    assert {k: written["config"][k] for k in stored["config"]} == stored["config"]


def test_every_committed_run_file_loads_through_its_store():
    """Every committed run file of each schema (9,164 of them), read and checked as a sweep reads it, value checks
    included: one refused file would stop a sweep over its folder. Every 20th is also loaded by its config."""
    paths = sorted(RESULTS.rglob("seed*.json"))
    for i, path in enumerate(paths):
        kind = "se" if b"se-privgemb-run" in path.read_bytes()[:60] else "core"
        store = _store(kind, path.parents[2])
        result = store.read(path)
        assert store.path(result.config) == path
        assert i % 20 or store.load(result.config) == result
    assert len(paths) > 9000


# ------------------------------------------------------------------------------------- the command line

KARATE = ["train", "lpgnn", "--dataset", "karate", "--features", "ohd", "--epochs", "2", "--json"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A results folder holding one finished karate run."""
    root = tmp_path_factory.mktemp("trained") / "runs"
    assert main([*KARATE, "--results", str(root)]) == 0
    return root


@pytest.fixture
def stored(trained, tmp_path, monkeypatch, capsys):
    """(results folder, run file) copied from ``trained``; any training fails the test."""
    capsys.readouterr()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data-home"))
    monkeypatch.setenv("LDP_AUDIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(sweep, "run_sweep", lambda *a, **k: pytest.fail("trained over a stored run"))
    root = tmp_path / "runs"
    shutil.copytree(trained, root)
    return root, next(root.rglob("seed0.json"))


@pytest.mark.parametrize("change, words", [
    (_set("schema_version", "9.9"), ["field 'schema_version' is '9.9'"]),
    (_set("schema", "ldp-audit/training-run-v0"), ["field 'schema' is 'ldp-audit/training-run-v0'"]),
    (_whole(b"[]"), ["holds a list"]),
    (_set("metrics.test_acc", "abc"), ["field 'metrics.test_acc' must be a finite number"]),
    (_set("config.lr", 0.123), ["another configuration", "config.lr is 0.123 there"]),
], ids=["version", "schema", "list", "metric", "config"])
def test_train_refuses_a_damaged_stored_run_and_leaves_it_as_it_is(stored, change, words, capsys):
    root, path = stored
    text = _damage(path, change)
    assert main([*KARATE, "--results", str(root)]) == 2
    err = capsys.readouterr().err
    assert f"ldp-audit: error: stored run {str(path)!r}" in err and "Traceback" not in err, err
    assert all(word in err for word in words), err
    assert path.read_bytes() == text


def test_train_serves_a_valid_stored_run_without_training(stored, capsys):
    root, path = stored
    before = path.read_bytes()
    assert main([*KARATE, "--results", str(root)]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(before) and path.read_bytes() == before


def test_a_diverged_run_is_saved_with_null_for_its_nan_values_and_read_back_as_nan(tmp_path, capsys):
    """A loss gone to NaN (lr 1e30) used to make the save fail with 'Out of range float values are not JSON
    compliant', naming neither the run nor the file: the run is a result, stored like any other (issue 43)."""
    import json

    argv = ["train", "lpgnn", "--dataset", "csbm", "--epochs", "4", "--lr", "1e30", "--results", str(tmp_path),
            "--json"]
    assert main(argv) == 0
    trained = json.loads(capsys.readouterr().out)
    path = next(tmp_path.rglob("seed0.json"))
    text = path.read_text()
    assert "NaN" not in text and "Infinity" not in text and None in trained["curves"]["train_loss"]
    assert main(argv) == 0  # served from the store, not trained again
    served = json.loads(capsys.readouterr().out)
    assert served == trained and path.read_text() == text
    result = RunStore(tmp_path).read(path)
    assert any(math.isnan(v) for v in result.curves["train_loss"]) and math.isnan(result.metrics["val_loss"])
