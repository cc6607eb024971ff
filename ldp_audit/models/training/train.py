"""One training run of any pipeline of the core: config -> :class:`RunResult`; and the core's runner of a group of
runs (:func:`train_configs`), which the sweeps send to their workers."""
from __future__ import annotations

from typing import Callable

from .batched import train_batch
from .cache import RunCache, split_nodes
from .config import TrainingConfig
from .runtime import choose_device
from .store import RunResult

__all__ = ["RunCache", "split_nodes", "train_run", "train_configs"]


def one_after_another(run: Callable, configs: list, device: str, cache: RunCache, stop=None) -> list:
    """``run(config, device, cache)`` for each config in order; once ``stop`` (an event) is set, the group ends
    after the run in progress and returns the results so far."""
    results = []
    for config in configs:
        if stop is not None and stop.is_set():
            break
        results.append(run(config, device, cache))
    return results


def train_configs(configs: list, device: str | None = None, cache: RunCache | None = None, stop=None) -> list:
    """The training core's runner of one group of runs, for every pipeline (a sweep task holds one pipeline's
    runs: tasks group by ``batch_key``, which names the pipeline). GNN runs (LPGNN, PPGNN) of one model shape train
    as one stacked model (``batched.train_batch``; a run's result never depends on its batch mates); LDP-GE runs
    one after the other (``ldp_ge.run_with_cache``; they stop early at different epochs; ``stop``: see
    :func:`one_after_another`). Results in config order."""
    pipelines = {config.PIPELINE for config in configs}
    if len(pipelines) > 1:
        raise ValueError(f"one task trains one pipeline's runs, got {', '.join(sorted(pipelines))}")
    cache = cache or RunCache()
    if pipelines == {"ldp-ge"}:
        from .ldp_ge import run_with_cache

        return one_after_another(run_with_cache, configs, choose_device(device), cache, stop)
    return train_batch(configs, device, cache)


def train_run(config: TrainingConfig, device: str | None = None, cache: RunCache | None = None) -> RunResult:
    """Train and evaluate one run; deterministic for a given config on CPU. It is ``train_configs([config])``: for
    the GNN pipeline ``train_batch([config])``, so a run alone and in any batch give the same result."""
    return train_configs([config], device, cache)[0]
