"""Run results and the folder that keeps them: one JSON per (configuration, seed), written atomically.

Layout: ``ROOT/<dataset>/<config key>/seed<seed>.json``. A rerun of a sweep asks :meth:`RunStore.done` and
skips finished runs, so an interrupted sweep loses at most the runs that were in progress.

One result schema for every pipeline of the training core (``ldp-audit/training-run``, version 1.1): the
``pipeline`` that ran (``gnn``: LPGNN/PPGNN's :class:`RunConfig`; ``ldp-ge``), its config, the metrics at the
epoch chosen on validation named by the run's task (``test_acc``/``val_acc`` for node accuracy,
``test_auc``/``val_auc`` for link ROC-AUC; ``epoch``), per-epoch ``curves`` under the same names, device,
versions and wall time. Files written before (version 1.0 without ``pipeline``: a ``gnn`` run; LDP-GE's own
``ldp-audit/ldp-ge-run`` schema with ``val``/``test``/``val_curve`` and the device inside ``extra``) are read into
the same :class:`RunResult`, with their numbers unchanged.

Stored runs are checked on read (:meth:`RunStore.load`): a missing file is a run not done yet; a file that is
there but is not a valid run of the asked configuration (not a regular file, larger than :data:`MAX_RUN_BYTES`,
not JSON or nested too deeply to parse, another schema, a version this release does not read, a field missing or
of the wrong type, a value that the writer cannot have written (:func:`check_values`), another configuration's
run) is a :class:`StoredRunError` naming the file and the field, never a silent retraining that would overwrite it.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from ...files import write_atomic
from ..checksums import read_regular
from .config import RunConfig, TrainingConfig, config_type

SCHEMA = "ldp-audit/training-run"
SCHEMA_VERSION = "1.1"
#: LDP-GE's schema before it joined the core (read only).
LDP_GE_SCHEMA = "ldp-audit/ldp-ge-run"
#: The schemas and versions a training-run file may have: version 1.0 of the core's schema (no ``pipeline``: a
#: ``gnn`` run) is migrated to 1.1 on read; any other version is refused, never guessed.
READS = {SCHEMA: ("1.0", SCHEMA_VERSION), LDP_GE_SCHEMA: ("1.0",)}


#: Largest run file read back. The largest committed run (benchmarks/results: a PPGNN CiteSeer run) is 25 KB, and a
#: GNN run grows by about 45 bytes per epoch, so 16 MiB holds the curves of some 350,000 epochs; a larger file is no
#: run this package wrote, and parsing it could take gigabytes.
MAX_RUN_BYTES = 16 * 2 ** 20


class StoredRunError(ValueError):
    """A run file that is there but cannot be used as the asked run: the message names the file, what is wrong
    in it (the field) and what to do."""


#: What to do with a stored run file that cannot be used.
MOVE_AWAY = "fix it, or move it away (or delete it) to train this run again"


# ----------------------------------------------------------------------------- checks of a parsed run file

def _kind(value) -> str:
    """What a JSON value is, in words, for messages."""
    if isinstance(value, bool):
        return f"the boolean {json.dumps(value)}"
    return {dict: "an object", list: "a list", str: f"the string {value!r}", type(None): "null"}.get(
        type(value), f"the number {value!r}")


def check_schema(data, reads: dict[str, tuple[str, ...]]) -> tuple[str, str]:
    """``(schema, schema_version)`` of the parsed run file ``data``, both among those ``reads`` lists."""
    if not isinstance(data, dict):
        raise ValueError(f"it holds {_kind(data)}, not a run (a JSON object)")
    schema, version = data.get("schema"), data.get("schema_version")
    if schema not in reads:
        raise ValueError(f"field 'schema' is {schema!r}; a run file here has schema "
                         f"{' or '.join(repr(name) for name in reads)}")
    if version not in reads[schema]:
        raise ValueError(f"field 'schema_version' is {version!r}; this ldp-audit reads {schema} versions "
                         f"{', '.join(reads[schema])} (a file of another version needs the ldp-audit that wrote it)")
    return schema, version


_KINDS = {dict: "an object", list: "a list", str: "a string"}
_REQUIRED = object()


def member(data: dict, name: str, kind: type, default=_REQUIRED):
    """``data[name]``, which must be a ``kind`` (dict, list or str); ``default`` when it is absent and a default
    is given. ``name`` may be dotted (``extra.device``) to name the field in messages."""
    key = name.rsplit(".", 1)[-1]
    if key not in data:
        if default is _REQUIRED:
            raise ValueError(f"field {name!r} is missing")
        return default
    if not isinstance(data[key], kind):
        raise ValueError(f"field {name!r} must be {_KINDS[kind]}, got {_kind(data[key])}")
    return data[key]


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


#: Measured values of a diverged run (a loss gone to NaN or infinity) are stored as JSON null, which has no NaN,
#: and read back as NaN: the run is a result, kept like any other, never an error at the moment it is saved.
DIVERGED = None


def _stored(value):
    """A measured value as JSON can hold it: :data:`DIVERGED` for NaN and infinities."""
    return DIVERGED if isinstance(value, float) and not math.isfinite(value) else value


def _measured(value, name: str) -> float:
    """A measured ``value`` of the field ``name``: a finite number, or :data:`DIVERGED` read back as NaN."""
    if value is DIVERGED:
        return math.nan
    if not _finite(value):
        raise ValueError(f"field {name!r} must be a finite number or null (diverged), got {_kind(value)}")
    return value


def measured(data: dict, name: str, required=(), counts=()) -> dict:
    """``data[name]``: an object of measured values (:func:`_measured`) that holds the keys ``required``; the keys
    ``counts`` (an epoch) must be finite numbers."""
    values = member(data, name, dict)
    for key in required:
        if key not in values:
            raise ValueError(f"field '{name}.{key}' is missing")
    return {key: number(values, f"{name}.{key}") if key in counts else _measured(value, f"{name}.{key}")
            for key, value in values.items()}


def measured_lists(data: dict, name: str) -> dict:
    """``data[name]``: an object of lists of measured values (curves, one per epoch; NaN where the run diverged)."""
    lists = member(data, name, dict)
    return {key: [_measured(v, f"{name}.{key}[{i}]") for i, v in enumerate(member(lists, f"{name}.{key}", list))]
            for key in lists}


def number(data: dict, name: str) -> float:
    """``data[name]``, which must be a finite number (``name`` as in :func:`member`)."""
    key = name.rsplit(".", 1)[-1]
    if key not in data:
        raise ValueError(f"field {name!r} is missing")
    if not _finite(data[key]):
        raise ValueError(f"field {name!r} must be a finite number, got {_kind(data[key])}")
    return data[key]


def numbers(data: dict, name: str, required=()) -> dict:
    """``data[name]``: an object of finite numbers that holds the keys ``required``."""
    values = member(data, name, dict)
    for key in dict.fromkeys([*required, *values]):
        number(values, f"{name}.{key}")
    return values


def number_list(data: dict, name: str) -> list:
    """``data[name]``: a list of finite numbers."""
    values = member(data, name, list)
    for i, value in enumerate(values):
        if not _finite(value):
            raise ValueError(f"field '{name}[{i}]' must be a finite number, got {_kind(value)}")
    return values


def stored_config(config_class: type, data: dict):
    """The config of the run file ``data`` (its ``config`` object, read by ``config_class.from_dict``), with the
    seed recorded beside it the same."""
    body = member(data, "config", dict)
    try:
        config = config_class.from_dict(body)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"field 'config' does not describe a run: {exc}") from None
    if data.get("seed", config.seed) != config.seed:
        raise ValueError(f"field 'seed' is {data['seed']!r} but field 'config.seed' is {config.seed!r}")
    return config


#: Endings of the names of scores (accuracy, micro-F1, ROC-AUC): fractions in [0, 1].
SCORES = ("_acc", "_auc", "_acc_best")


def _whole(value, name: str, low: int, high: int, what: str) -> None:
    """``value`` (a finite number) must be a whole number in [low, high]; ``what`` it is, for the message."""
    if not float(value).is_integer() or not low <= value <= high:
        raise ValueError(f"field {name!r} is {value!r}; {what}, a whole number in [{low}, {high}]")


def check_values(config: TrainingConfig, metrics: dict, curves: dict, wall_time_s: float,
                 names: dict | None = None) -> None:
    """Refuse values the writer cannot have written: a score outside [0, 1]; an ``epoch`` that is not one of the
    epochs trained (counted from 0; a pipeline that stops early trains ``epochs_run`` of them, in [1,
    ``config.epochs``], any other ``config.epochs``); a curve without one value per epoch trained; a
    ``test_acc_best`` (the best of the test curve) below ``test_acc``; a negative wall time. NaN (a diverged run's
    null) passes every range. ``names`` maps a field (``metrics.val_acc``, ``curves.val_acc``, ``wall_time_s``) to
    its name in a file whose schema names it otherwise."""
    names = names or {}

    def field(name: str) -> str:
        return names.get(name, name)

    for key, value in metrics.items():
        if key.endswith(SCORES) and not 0.0 <= value <= 1.0 and not math.isnan(value):
            raise ValueError(f"field {field('metrics.' + key)!r} is {value!r}; a score is a fraction in [0, 1]")
    if config.STOPS_EARLY and "epochs_run" in metrics:
        trained = metrics["epochs_run"]
        _whole(trained, field("metrics.epochs_run"), 1, config.epochs,
               f"the epochs the run trained before it stopped, at most config.epochs = {config.epochs}")
        run = f"a run that trained {trained:g} epoch(s) (metrics.epochs_run)"
    else:
        trained, run = config.epochs, f"a run of config.epochs = {config.epochs} epoch(s)"
    _whole(metrics["epoch"], field("metrics.epoch"), 0, trained - 1,
           f"the epoch chosen on validation, counted from 0 in {run}")
    for key, values in curves.items():
        name = field("curves." + key)
        if len(values) != trained:
            raise ValueError(f"field {name!r} has {len(values)} value(s); {run} has one per epoch, {trained:g}")
        if key.endswith(SCORES):
            for i, value in enumerate(values):
                if not 0.0 <= value <= 1.0 and not math.isnan(value):
                    raise ValueError(f"field '{name}[{i}]' is {value!r}; a score is a fraction in [0, 1]")
    best, chosen = metrics.get("test_acc_best", math.nan), metrics.get("test_acc", math.nan)
    if best < chosen:  # False when either is NaN
        raise ValueError(f"field {field('metrics.test_acc_best')!r} is {best!r}, below field "
                         f"{field('metrics.test_acc')!r} ({chosen!r}): the best test accuracy over all epochs "
                         "cannot be below the chosen epoch's")
    if wall_time_s < 0:
        raise ValueError(f"field {field('wall_time_s')!r} is {wall_time_s!r}; a wall time is >= 0 seconds")


@dataclass(frozen=True)
class RunResult:
    """The outcome of one run.

    ``metrics`` holds the figures at the epoch chosen on validation, named by the task's metric (``test_acc``,
    ``val_acc`` or ``test_auc``, ``val_auc``; ``epoch``) with the pipeline's own additions: the GNN pipeline's
    ``val_loss``, ``train_acc`` and, only for comparison with papers that selected on test, ``test_acc_best``
    (the best test accuracy over all epochs); LDP-GE's ``epochs_run`` (it stops early). ``curves`` has one value
    per epoch (the GNN pipeline: ``train_loss``, ``train_acc``, ``val_loss``, ``val_acc`` and ``test_acc``;
    LDP-GE: the validation score). Scores are fractions in [0, 1] (micro-F1 = accuracy for single-label
    classification).
    """

    config: TrainingConfig
    metrics: dict
    curves: dict
    device: str
    device_name: str
    versions: dict
    wall_time_s: float
    extra: dict = field(default_factory=dict)

    @property
    def device_label(self) -> str:
        return f"{self.device} ({self.device_name})"

    @property
    def test_score(self) -> float:
        """Test accuracy (node) or ROC-AUC (link) at the epoch chosen on validation."""
        return float(self.metrics[f"test_{self.config.metric}"])

    @property
    def val_score(self) -> float:
        return float(self.metrics[f"val_{self.config.metric}"])

    @property
    def test_accuracy(self) -> float:
        return float(self.metrics["test_acc"])

    def to_dict(self) -> dict:
        metrics = {name: _stored(value) for name, value in self.metrics.items()}
        curves = {name: [_stored(v) for v in values] for name, values in self.curves.items()}
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "pipeline": self.config.PIPELINE,
                "config": self.config.to_dict(), "seed": self.config.seed, "metrics": metrics,
                "curves": curves, "device": self.device, "device_name": self.device_name,
                "versions": self.versions, "wall_time_s": self.wall_time_s, "extra": self.extra}

    @classmethod
    def from_dict(cls, data) -> "RunResult":
        """The run a parsed file holds, every field checked (a ValueError naming the field otherwise): the core's
        schema (version 1.0 migrated: a run without ``pipeline`` is a ``gnn`` run) or LDP-GE's former one."""
        schema, version = check_schema(data, READS)
        if schema == LDP_GE_SCHEMA:
            return _from_ldp_ge_run(data)
        if version == "1.0" and "pipeline" in data:
            raise ValueError("field 'pipeline' is not part of schema_version 1.0 (1.0 runs are gnn runs)")
        pipeline = RunConfig.PIPELINE if version == "1.0" else member(data, "pipeline", str)
        try:
            config_class = config_type(pipeline)
        except ValueError as exc:
            raise ValueError(f"field 'pipeline': {exc}") from None
        config = stored_config(config_class, data)
        metrics = measured(data, "metrics", (f"test_{config.metric}", f"val_{config.metric}", "epoch",
                                             *config.STORED_METRICS), counts=("epoch", "epochs_run"))
        curves, wall = measured_lists(data, "curves"), number(data, "wall_time_s")
        check_values(config, metrics, curves, wall)
        return cls(config, metrics, curves, member(data, "device", str), member(data, "device_name", str),
                   member(data, "versions", dict), wall, member(data, "extra", dict, {}))


def _from_ldp_ge_run(data: dict) -> RunResult:
    """An LDP-GE run stored in its former schema: ``val``/``test`` become the task's score names, the validation
    curve a curve of that name, and device, versions and wall time leave ``extra`` for their own fields."""
    config = stored_config(config_type("ldp-ge"), data)
    old = numbers(data, "metrics", ("val", "test", "epoch", "epochs_run"))
    extra = dict(member(data, "extra", dict, {}))
    metrics = {f"val_{config.metric}": old["val"], f"test_{config.metric}": old["test"], "epoch": old["epoch"],
               "epochs_run": old["epochs_run"]}
    device = member(extra, "extra.device", str, "cpu")
    name = member(extra, "extra.device_name", str, "unrecorded")
    versions = member(extra, "extra.versions", dict, {})
    wall = number(extra, "extra.wall_time_s") if "wall_time_s" in extra else 0.0
    for key in ("device", "device_name", "versions", "wall_time_s"):
        extra.pop(key, None)
    curves = {f"val_{config.metric}": number_list(data, "val_curve")}
    check_values(config, metrics, curves, wall, {
        f"metrics.val_{config.metric}": "metrics.val", f"metrics.test_{config.metric}": "metrics.test",
        f"curves.val_{config.metric}": "val_curve", "wall_time_s": "extra.wall_time_s"})
    return RunResult(config, metrics, curves, device, name, versions, wall, extra)


def write_json_atomic(path: Path, payload: dict) -> Path:
    """Write ``payload`` as compact JSON, atomically (:func:`ldp_audit.files.write_atomic`)."""
    return write_atomic(path, json.dumps(payload, allow_nan=False, separators=(",", ":")))


class RunStore:
    """A results folder with one JSON per (configuration, seed): ``ROOT/<dataset>/<config key>/seed<seed>.json``,
    for every pipeline of the training core.

    ``result_type`` reads a stored file back; a pipeline outside the core (SE-PrivGEmb) subclasses and sets it."""

    result_type = RunResult

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    def path(self, config: TrainingConfig) -> Path:
        return self.root / config.dataset / config.key() / f"seed{config.seed}.json"

    def load(self, config: TrainingConfig) -> RunResult | None:
        """The stored result of ``config``, or None when its file is absent (the run is not done yet). A file
        that is there but does not hold a valid run of ``config`` is a :class:`StoredRunError` naming it: it is
        never retrained over in silence."""
        path = self.path(config)
        if not path.exists():
            return None
        result = self.read(path)
        if result.config != config:
            raise StoredRunError(f"stored run {str(path)!r} holds the run of another configuration "
                                 f"({_differences(result.config, config)}); {MOVE_AWAY}")
        return result

    def read(self, path: str | os.PathLike) -> RunResult:
        """The run the file ``path`` holds, checked (:meth:`RunResult.from_dict` or the ``result_type``'s); any
        problem is a :class:`StoredRunError` naming the file."""
        try:
            data = json.loads(read_regular(Path(path), MAX_RUN_BYTES).decode("utf-8"))
        except OSError as exc:
            raise StoredRunError(f"stored run {str(path)!r} cannot be read ({exc.strerror or exc}); "
                                 f"{MOVE_AWAY}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise StoredRunError(f"stored run {str(path)!r} is not valid JSON ({exc}); {MOVE_AWAY}") from None
        except RecursionError:
            raise StoredRunError(f"stored run {str(path)!r} is not a run: its JSON is nested too deeply to parse "
                                 f"(a run file nests a few levels); {MOVE_AWAY}") from None
        except ValueError as exc:  # not a regular file, or too large (read_regular)
            raise StoredRunError(f"stored run {str(path)!r} cannot be read: {exc}; {MOVE_AWAY}") from None
        try:
            return self.result_type.from_dict(data)
        except ValueError as exc:
            raise StoredRunError(f"stored run {str(path)!r} is not a valid run: {exc}; {MOVE_AWAY}") from None

    def done(self, config: TrainingConfig) -> bool:
        return self.load(config) is not None

    def save(self, result: RunResult) -> Path:
        return write_json_atomic(self.path(result.config), result.to_dict())


def _differences(stored, asked) -> str:
    """The fields in which the config ``stored`` in a file differs from the ``asked`` one, for a message."""
    theirs, ours = stored.to_dict(), asked.to_dict()
    return "; ".join(f"config.{name} is {theirs.get(name)!r} there, {ours.get(name)!r} asked"
                     for name in dict.fromkeys([*ours, *theirs]) if theirs.get(name) != ours.get(name)) or \
        f"a {type(stored).__name__}, not a {type(asked).__name__}"
