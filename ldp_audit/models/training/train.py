"""One training run: config -> :class:`RunResult`, through the stages of ``stages.py``, as a batch of one."""
from __future__ import annotations

from .batched import train_batch
from .cache import RunCache, split_nodes
from .config import RunConfig
from .store import RunResult

__all__ = ["RunCache", "split_nodes", "train_run"]


def train_run(config: RunConfig, device: str | None = None, cache: RunCache | None = None) -> RunResult:
    """Train and evaluate one run; deterministic for a given config on CPU. It is ``train_batch([config])``, so
    a run alone and in any batch give the same result."""
    return train_batch([config], device, cache)[0]
