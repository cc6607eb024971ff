"""Many runs: skip the finished ones, run the rest in worker processes (one torch thread each, on CPU or sharing
one GPU) or in this process, and save each result the moment it is done.

Runs that share a perturbation travel to a worker together, so its :class:`RunCache` draws the reports once and
serves every K and objective from them (lpgnn C11). Results never depend on the number of workers or on the
grouping: every run draws only from its own seeded streams.
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Callable, Hashable, Iterable

from . import runtime
from .config import RunConfig
from .store import RunStore
from .train import RunCache, train_run

#: ``run(config, device, cache) -> result``: one run of a pipeline (a module-level function, so it pickles).
Runner = Callable[[object, str, RunCache], object]

_WORKER_CACHE: RunCache | None = None


def _init_worker(data_dir, cache_dir) -> None:
    global _WORKER_CACHE
    runtime.limit_threads()
    _WORKER_CACHE = RunCache(data_dir, cache_dir)


def _run_group(run: Runner, group: list, root: str, device: str) -> list:
    results = []
    for config in group:
        result = run(config, device, _WORKER_CACHE)
        RunStore(root).save(result)
        results.append(result)
    return results


def group_for_reuse(configs: Iterable, reuse_key: Callable[[object], Hashable] | None) -> list[list]:
    """The configs in groups of equal ``reuse_key`` (each group in first-seen order; groups in the order of their
    first member); ``reuse_key=None`` puts every config in its own group."""
    groups: dict = {}
    for i, config in enumerate(configs):
        groups.setdefault(i if reuse_key is None else reuse_key(config), []).append(config)
    return list(groups.values())


def run_sweep(configs: Iterable, store: RunStore, workers: int = 1, device: str | None = None,
              data_dir=None, cache_dir=None, on_result: Callable[[object, bool], None] | None = None,
              max_new: int | None = None, run: Runner = train_run,
              reuse_key: Callable[[object], Hashable] | None = RunConfig.perturbation_key) -> dict:
    """Run every config not already in ``store`` through ``run``; return ``{config: result}`` for the finished
    ones (stored ones included). ``max_new`` caps the runs started by this call, so a long sweep can be done in
    chunks (a rerun resumes where the last chunk stopped).

    ``on_result(result, fresh)`` is called once per config: first for the stored ones (``fresh=False``), then for
    each newly finished run. ``workers > 1`` uses that many processes; on CUDA they share the one GPU (the
    models here are far too small to fill it from one process). An interrupt (or a failed run) cancels the
    queued runs; the ones in progress finish and are saved, so a rerun resumes.
    """
    configs = list(dict.fromkeys(configs))
    if not (isinstance(workers, int) and workers >= 1):
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    device = runtime.choose_device(device)
    results: dict = {}
    for config in configs:
        stored = store.load(config)
        if stored is not None:
            results[config] = stored
            if on_result:
                on_result(stored, False)
    todo = [c for group in group_for_reuse((c for c in configs if c not in results), reuse_key) for c in group]
    if max_new is not None:
        todo = todo[:max(0, int(max_new))]
    groups = group_for_reuse(todo, reuse_key)

    def finished(group_results: list) -> None:
        for result in group_results:
            results[result.config] = result
            if on_result:
                on_result(result, True)

    if workers == 1 or len(groups) <= 1:
        _init_worker(data_dir, cache_dir)
        for group in groups:
            finished(_run_group(run, group, str(store.root), device))
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(workers, len(groups)), context, _init_worker, (data_dir, cache_dir)) as pool:
            pending = {pool.submit(_run_group, run, group, str(store.root), device) for group in groups}
            try:
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        finished(future.result())
            except BaseException:  # Ctrl-C or a failed run: drop the queue, let the running groups finish and save
                for future in pending:
                    future.cancel()
                raise
    return results
