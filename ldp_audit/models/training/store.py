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
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ...files import write_atomic
from .config import RunConfig, TrainingConfig, config_type

SCHEMA = "ldp-audit/training-run"
SCHEMA_VERSION = "1.1"
#: LDP-GE's schema before it joined the core (read only).
LDP_GE_SCHEMA = "ldp-audit/ldp-ge-run"


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
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "pipeline": self.config.PIPELINE,
                "config": self.config.to_dict(), "seed": self.config.seed, "metrics": self.metrics,
                "curves": self.curves, "device": self.device, "device_name": self.device_name,
                "versions": self.versions, "wall_time_s": self.wall_time_s, "extra": self.extra}

    @classmethod
    def from_dict(cls, data: dict) -> "RunResult":
        if data.get("schema") == LDP_GE_SCHEMA:
            return _from_ldp_ge_run(data)
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not a training-run result (schema {data.get('schema')!r})")
        config = config_type(data.get("pipeline", RunConfig.PIPELINE)).from_dict(data["config"])
        return cls(config, data["metrics"], data["curves"], data["device"], data["device_name"], data["versions"],
                   data["wall_time_s"], data.get("extra", {}))


def _from_ldp_ge_run(data: dict) -> RunResult:
    """An LDP-GE run stored in its former schema: ``val``/``test`` become the task's score names, the validation
    curve a curve of that name, and device, versions and wall time leave ``extra`` for their own fields."""
    config = config_type("ldp-ge").from_dict(data["config"])
    old, extra = data["metrics"], dict(data.get("extra", {}))
    metrics = {f"val_{config.metric}": old["val"], f"test_{config.metric}": old["test"], "epoch": old["epoch"],
               "epochs_run": old["epochs_run"]}
    return RunResult(config, metrics, {f"val_{config.metric}": data["val_curve"]}, extra.pop("device", "cpu"),
                     extra.pop("device_name", "unrecorded"), extra.pop("versions", {}), extra.pop("wall_time_s", 0.0),
                     extra)


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
        """The stored result of ``config``, or None when it is absent or unreadable (then it is rerun)."""
        try:
            with open(self.path(config), encoding="utf-8") as handle:
                result = self.result_type.from_dict(json.load(handle))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return result if result.config == config else None

    def done(self, config: TrainingConfig) -> bool:
        return self.load(config) is not None

    def save(self, result: RunResult) -> Path:
        return write_json_atomic(self.path(result.config), result.to_dict())
