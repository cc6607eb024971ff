"""One training run of any pipeline of the core: config -> :class:`RunResult`; and the core's runner of a group of
runs (:func:`train_configs`), which the sweeps send to their workers."""
from __future__ import annotations

from .cache import RunCache, split_nodes
from .config import TrainingConfig, runner_of
from .store import RunResult

__all__ = ["RunCache", "split_nodes", "train_run", "train_configs"]


def train_configs(configs: list, device: str | None = None, cache: RunCache | None = None, stop=None) -> list:
    """The training core's runner of one group of runs (a sweep task holds one pipeline's runs: tasks group by
    ``batch_key``, which names the pipeline): the pipeline's own runner (``config.runner_of``), which returns the
    results in config order. ``stop`` (an event) asks a runner that trains its runs one after the other to end
    after the run in progress."""
    pipelines = {config.PIPELINE for config in configs}
    if len(pipelines) > 1:
        raise ValueError(f"one task trains one pipeline's runs, got {', '.join(sorted(pipelines))}")
    if not pipelines:
        return []
    return runner_of(pipelines.pop())(configs, device, cache or RunCache(), stop)


def train_run(config: TrainingConfig, device: str | None = None, cache: RunCache | None = None) -> RunResult:
    """Train and evaluate one run; deterministic for a given config on CPU. It is ``train_configs([config])``: for
    the GNN pipeline ``batched.train_batch([config])``, so a run alone and in any batch give the same result."""
    return train_configs([config], device, cache)[0]
