"""Many runs on an engine: skip the finished ones, send the rest out in tasks of one batch (group) of runs each,
and save each result here, atomically, the moment its task is back.

The sweep is written against the engine protocol of the audits (``ldp_audit.audits.kernel.engines``: ``submit``,
``wait_any``, ``cancel``, ``workers``; local, a process pool or Dask), which the caller chooses and passes in:
the models layer sits below the audits and never imports them. A task is ``run_task(run_batch, group, ...)``:
the worker runs the group through ``run_batch(configs, device, cache) -> results`` (in config order) with its
own :class:`RunCache`, and sends the results back; only the driver writes to the results folder. Results never
depend on the engine, the number of workers or the grouping: every run draws only from its own seeded streams,
so a task lost with its worker and run again (Dask's retries, or a restarted process pool: ``engine.revive``)
gives the same numbers.

Interrupts: the first Ctrl-C (or a failed run) stops sending tasks; the runs in flight finish and are saved, and
the sweep then raises KeyboardInterrupt (or the error). A group trained one run after the other ends after its
run in progress (in this process, and in pool workers, which see the terminal's Ctrl-C too); the runs it did not
start are left to a rerun. A second Ctrl-C abandons the runs in flight at once. Nothing is ever half-written, so
a rerun resumes.
"""
from __future__ import annotations

import os
import signal
import threading
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Callable, Hashable, Iterable

from . import runtime
from .config import RunConfig, batch_key
from .store import RunStore
from .runtime import one_after_another
from .train import RunCache, train_configs

#: ``run(config, device, cache) -> result``: one run of a pipeline (a module-level function, so it pickles).
Runner = Callable[[object, str, RunCache], object]
#: ``run_batch(configs, device, cache) -> results`` (in config order): one task's group of runs.
BatchRunner = Callable[[list, str, RunCache], list]
#: ``batch_key(config)``: runs with equal keys travel (and, with a batched runner, train) together.
BatchKey = Callable[[object], Hashable]


#: Set in a process once a Ctrl-C asked the sweep to stop (see :func:`_listen_for_ctrl_c`).
_STOP_ASKED = threading.Event()


def _one_by_one(run: Runner, configs: list, device: str, cache: RunCache) -> list:
    # Ctrl-C: the group ends after the run in progress; the rest is left to a rerun
    return one_after_another(run, configs, device, cache, _STOP_ASKED)


def one_by_one(run: Runner) -> BatchRunner:
    """A batch runner that trains the group's runs one after the other with ``run`` (picklable). After a
    Ctrl-C it returns the runs finished so far: the sweep saves those, and a rerun does the rest."""
    return partial(_one_by_one, run)


def _note_ctrl_c(signum, frame) -> None:
    _STOP_ASKED.set()


def _listen_for_ctrl_c(driver: int | None) -> None:
    """In a pool worker's main thread: the terminal sends Ctrl-C to the whole process group, so note it (the
    worker's pool ignored it until now) and let a group of runs end after the run in progress. Not in the driver
    (its own handler decides) nor in a Dask worker's task thread (its driver decides alone)."""
    if driver is not None and os.getpid() != driver and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _note_ctrl_c)


def train_any(configs: list, device: str, cache: RunCache) -> list:
    """The core's runner (``train.train_configs``) for a sweep task: a group of runs trained one after the other
    ends after its run in progress once Ctrl-C asked the sweep to stop."""
    return train_configs(configs, device, cache, _STOP_ASKED)


#: The training core's batch runner and grouping (any pipeline; see :func:`train_configs`): inside a task, GNN runs
#: sharing a perturbation sit side by side, so the task's cache draws their reports once (lpgnn C11).
TRAIN_BATCH: BatchRunner = train_any
TRAIN_BATCH_KEY: BatchKey = batch_key
#: Most runs in one task. A first Ctrl-C waits for the tasks in flight, so a task must stay short: a stack of 4
#: keeps most of the batched core's gain on CPU (Cora 4.6x against 5.5x at 16, CiteSeer 8.3x against 8.6x:
#: benchmarks/train.py), while 2 workers with stacks of 15 quick Cora runs took 46 s to stop.
TASK_RUNS = 4

#: A task whose worker was lost is run again at most this many times (then its error stops the sweep).
LOST_RETRIES = 3
#: One cache per worker process (per data and cache folder), kept across the tasks it runs.
_CACHES: dict = {}
#: A run seeds torch's process-wide generator, so two tasks never train at once in one process (a Dask worker
#: with several threads, or a lost worker's task still running beside its retry): each waits for the other.
_ONE_TASK_AT_A_TIME = threading.Lock()


def run_task(run_batch: BatchRunner, configs: list, device: str, data_dir=None, cache_dir=None,
             driver: int | None = None) -> list:
    """One task, on a worker: the group through ``run_batch`` with this process's cache (one torch thread);
    ``driver``: the sweep driver's process id."""
    key = (None if data_dir is None else str(data_dir), None if cache_dir is None else str(cache_dir))
    with _ONE_TASK_AT_A_TIME:
        if key not in _CACHES:
            _listen_for_ctrl_c(driver)
            runtime.limit_threads()
            _CACHES.clear()  # one dataset folder at a time: a worker's memory holds one cache
            _CACHES[key] = RunCache(data_dir, cache_dir)
        return run_batch(list(configs), device, _CACHES[key])


def group_for_reuse(configs: Iterable, reuse_key: BatchKey | None) -> list[list]:
    """The configs in groups of equal ``reuse_key`` (each group in first-seen order; groups in the order of their
    first member); ``reuse_key=None`` puts every config in its own group."""
    groups: dict = {}
    for i, config in enumerate(configs):
        groups.setdefault(i if reuse_key is None else reuse_key(config), []).append(config)
    return list(groups.values())


@dataclass(frozen=True)
class SweepPlan:
    """What a sweep will do: ``stored`` runs already in the store, and ``groups`` (one task each) to run."""

    total: int
    stored: int
    groups: tuple

    @property
    def todo(self) -> int:
        return sum(len(group) for group in self.groups)


def plan_sweep(configs: Iterable, store: RunStore, max_new: int | None = None,
               batch_key: BatchKey | None = TRAIN_BATCH_KEY, workers: int = 1,
               task_runs: int | None = None) -> tuple[SweepPlan, dict]:
    """``(plan, {config: stored result})``: the stored runs, and the rest in groups of ``batch_key`` cut into
    tasks (the first ``max_new`` runs of them, taken group by group, when ``max_new`` is set). A task holds at most
    ``task_runs`` runs; by default ``TASK_RUNS``, fewer when that leaves some of the ``workers`` without a task."""
    configs = list(dict.fromkeys(configs))
    stored = {}
    for config in configs:
        result = store.load(config)
        if result is not None:
            stored[config] = result
    todo = [c for group in group_for_reuse((c for c in configs if c not in stored), batch_key)
            for c in _by_perturbation(group)]
    if max_new is not None:
        todo = todo[:max(0, int(max_new))]
    if task_runs is None:
        task_runs = max(1, min(TASK_RUNS, -(-len(todo) // max(1, workers))))
    tasks = tuple(tuple(group[i:i + task_runs]) for group in group_for_reuse(todo, batch_key)
                  for i in range(0, len(group), task_runs))
    return SweepPlan(len(configs), len(stored), tasks), stored


def _by_perturbation(group: list) -> list:
    """The group with runs that share a perturbation next to each other (first-seen order otherwise)."""
    if not all(isinstance(config, RunConfig) for config in group):
        return group
    return [c for same in group_for_reuse(group, RunConfig.perturbation_key) for c in same]


def other_torch_notice(stored: Iterable, torch_version: str) -> str | None:
    """What to say before new runs join ``stored`` runs trained under another torch than ``torch_version`` (the
    same config need not give the same numbers under another torch: CiteSeer's LDP-GE Table III was resumed under
    torch 2.14.1 after 92 runs under 2.13.0, unnoticed until the report's software line); None when all agree."""
    from collections import Counter

    others = Counter(f"torch {result.versions['torch']}" if "torch" in (getattr(result, "versions", None) or {})
                     else "an unrecorded torch" for result in stored)
    others.pop(f"torch {torch_version}", None)
    if not others:
        return None
    found = ", ".join(f"{count} under {version}" for version, count in others.most_common())
    return (f"note: this folder holds runs trained under another torch ({found}); new runs train under torch "
            f"{torch_version}, and the report's software line will list both")


class _Stop:
    """The sweep's Ctrl-C: the first asks to stop (and says how many runs are in flight), the second abandons."""

    def __init__(self, say: Callable[[str], None]):
        self.say, self.requested, self.in_flight, self.saved = say, False, 0, 0

    def __call__(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        _STOP_ASKED.set()  # a group running in this process (local engine) ends after its run in progress
        runs = f"{self.in_flight} run{'' if self.in_flight == 1 else 's'}"
        self.say(f"stopping: {runs} in flight; Ctrl-C again to abandon them")


def _to_stderr(text: str) -> None:
    os.write(2, f"ldp-audit: {text}\n".encode())  # a plain write: safe inside a signal handler


@contextmanager
def _ctrl_c(say: Callable[[str], None]):
    stop = _Stop(say)
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = signal.signal(signal.SIGINT, stop)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def run_sweep(configs: Iterable, store: RunStore, engine, device: str | None = None, data_dir=None,
              cache_dir=None, on_result: Callable[[object, bool], None] | None = None, max_new: int | None = None,
              run_batch: BatchRunner = TRAIN_BATCH, batch_key: BatchKey | None = TRAIN_BATCH_KEY,
              say: Callable[[str], None] = _to_stderr, poll_s: float = 0.2, task_runs: int | None = None) -> dict:
    """Run every config not already in ``store`` on ``engine``, one task per group of ``batch_key``; return
    ``{config: result}`` for the finished ones (stored ones included). ``max_new`` caps the runs started by this
    call, so a long sweep can be done in chunks (a rerun resumes where the last chunk stopped).

    ``task_runs`` caps the runs of one task (see :func:`plan_sweep`).
    ``on_result(result, fresh)`` is called once per config: first for the stored ones (``fresh=False``), then for
    each newly finished run, after it is saved. At most ``engine.workers`` tasks are out at a time, so a stop
    waits for those only. Ctrl-C and errors: see the module docstring; ``say`` prints the first Ctrl-C's notice.
    """
    device = runtime.choose_device(device)
    plan, results = plan_sweep(configs, store, max_new, batch_key, engine.workers, task_runs)
    notice = other_torch_notice(results.values(), runtime.versions()["torch"]) if plan.groups else None
    if notice:
        say(notice)
    if on_result:
        for result in results.values():
            on_result(result, False)
    queue, in_flight, failure, lost = deque(plan.groups), {}, None, {}
    _STOP_ASKED.clear()
    with _ctrl_c(say) as stop:
        while in_flight or (queue and not stop.requested and failure is None):
            while queue and len(in_flight) < engine.workers and not stop.requested and failure is None:
                group = queue.popleft()
                stop.in_flight += len(group)  # before submit: a local engine runs the task inside it
                in_flight[engine.submit(run_task, run_batch, group, device, data_dir, cache_dir,
                                        os.getpid())] = group
            done, _ = engine.wait_any(list(in_flight), poll_s)
            for future in done:
                group = in_flight.pop(future)
                stop.in_flight -= len(group)
                try:
                    group_results = future.result()
                except Exception as exc:
                    lost[group] = lost.get(group, 0) + 1
                    if lost[group] <= LOST_RETRIES and engine.revive(exc):
                        queue.appendleft(group)  # its worker was lost: run it again, same seeds
                    else:  # a failed run: the runs in flight still finish and are saved
                        failure = failure or exc
                    continue
                for result in group_results:
                    store.save(result)
                    stop.saved += stop.requested
                    results[result.config] = result
                    if on_result:
                        on_result(result, True)
    if failure is not None:
        raise failure
    if stop.requested:
        say(f"stopped: {stop.saved} run{'' if stop.saved == 1 else 's'} finished and saved since Ctrl-C; run the "
            "same command again to resume")
        raise KeyboardInterrupt
    return results
