"""Run results and the folder that keeps them: one JSON per (configuration, seed), written atomically.

Layout: ``ROOT/<dataset>/<config key>/seed<seed>.json``. A rerun of a sweep asks :meth:`RunStore.done` and
skips finished runs, so an interrupted sweep loses at most the runs that were in progress.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ...files import write_atomic
from .config import RunConfig

SCHEMA = "ldp-audit/training-run"
SCHEMA_VERSION = "1.0"


@dataclass(frozen=True)
class RunResult:
    """The outcome of one run.

    ``metrics`` holds the figures at the epoch chosen on validation (``test_acc``, ``val_acc``, ``val_loss``,
    ``train_acc``, ``epoch``) and, only for comparison with papers that selected on test, ``test_acc_best``
    (the best test accuracy over all epochs). ``curves`` has one value per epoch for ``train_loss``,
    ``train_acc``, ``val_loss``, ``val_acc`` and ``test_acc``. Accuracies are fractions in [0, 1]
    (micro-F1 = accuracy for single-label classification).
    """

    config: RunConfig
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
    def test_accuracy(self) -> float:
        return float(self.metrics["test_acc"])

    def to_dict(self) -> dict:
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "config": self.config.to_dict(),
                "seed": self.config.seed, "metrics": self.metrics, "curves": self.curves, "device": self.device,
                "device_name": self.device_name, "versions": self.versions, "wall_time_s": self.wall_time_s,
                "extra": self.extra}

    @classmethod
    def from_dict(cls, data: dict) -> "RunResult":
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not a training-run result (schema {data.get('schema')!r})")
        return cls(RunConfig.from_dict(data["config"]), data["metrics"], data["curves"], data["device"],
                   data["device_name"], data["versions"], data["wall_time_s"], data.get("extra", {}))


def write_json_atomic(path: Path, payload: dict) -> Path:
    """Write ``payload`` as compact JSON, atomically (:func:`ldp_audit.files.write_atomic`)."""
    return write_atomic(path, json.dumps(payload, allow_nan=False, separators=(",", ":")))


class RunStore:
    """A results folder with one JSON per (configuration, seed): ``ROOT/<dataset>/<config key>/seed<seed>.json``.

    ``result_type`` reads a stored file back; a pipeline with its own result type subclasses and sets it."""

    result_type = RunResult

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    def path(self, config: RunConfig) -> Path:
        return self.root / config.dataset / config.key() / f"seed{config.seed}.json"

    def load(self, config: RunConfig) -> RunResult | None:
        """The stored result of ``config``, or None when it is absent or unreadable (then it is rerun)."""
        try:
            with open(self.path(config), encoding="utf-8") as handle:
                result = self.result_type.from_dict(json.load(handle))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return result if result.config == config else None

    def done(self, config: RunConfig) -> bool:
        return self.load(config) is not None

    def save(self, result: RunResult) -> Path:
        return write_json_atomic(self.path(result.config), result.to_dict())
