"""Many runs: skip the finished ones, run the rest in worker processes (one torch thread each) or in this
process on a GPU, and save each result the moment it is done.

Results never depend on the number of workers: every run draws only from its own seeded streams.
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Callable, Iterable

from . import runtime
from .config import RunConfig
from .store import RunResult, RunStore
from .train import RunCache, train_run

_WORKER_CACHE: RunCache | None = None


def _init_worker(data_dir, cache_dir) -> None:
    global _WORKER_CACHE
    runtime.limit_threads()
    _WORKER_CACHE = RunCache(data_dir, cache_dir)


def _run_and_save(config: RunConfig, root: str, device: str) -> RunResult:
    result = train_run(config, device, _WORKER_CACHE)
    RunStore(root).save(result)
    return result


def order_for_reuse(configs: Iterable[RunConfig]) -> list[RunConfig]:
    """Runs that share a perturbation next to each other, so a worker's cache serves them (stable order)."""
    configs = list(configs)
    first = {}
    for i, config in enumerate(configs):
        first.setdefault(config.perturbation_key(), i)
    return sorted(configs, key=lambda c: first[c.perturbation_key()])


def run_sweep(configs: Iterable[RunConfig], store: RunStore, workers: int = 1, device: str | None = None,
              data_dir=None, cache_dir=None, on_result: Callable[[RunResult, bool], None] | None = None,
              max_new: int | None = None) -> dict[RunConfig, RunResult]:
    """Run every config not already in ``store``; return ``{config: result}`` for the finished ones (stored
    ones included). ``max_new`` caps the runs started by this call, so a long sweep can be done in chunks (a
    rerun resumes where the last chunk stopped).

    ``on_result(result, fresh)`` is called once per config: first for the stored ones (``fresh=False``), then for
    each newly finished run. ``workers > 1`` uses that many processes on CPU; CUDA runs one at a time here.
    """
    configs = list(dict.fromkeys(configs))
    if not (isinstance(workers, int) and workers >= 1):
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    device = runtime.choose_device(device)
    results: dict[RunConfig, RunResult] = {}
    for config in configs:
        stored = store.load(config)
        if stored is not None:
            results[config] = stored
            if on_result:
                on_result(stored, False)
    todo = order_for_reuse(c for c in configs if c not in results)
    if max_new is not None:
        todo = todo[:max(0, int(max_new))]

    def finished(result: RunResult) -> None:
        results[result.config] = result
        if on_result:
            on_result(result, True)

    if device == "cuda" or workers == 1 or len(todo) <= 1:
        _init_worker(data_dir, cache_dir)
        for config in todo:
            finished(_run_and_save(config, str(store.root), device))
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(workers, len(todo)), context, _init_worker, (data_dir, cache_dir)) as pool:
            pending = {pool.submit(_run_and_save, c, str(store.root), device) for c in todo}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    finished(future.result())
    return results
