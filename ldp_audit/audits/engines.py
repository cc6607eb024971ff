"""Where the seeded chunks of :func:`ldp_audit.audits.sampling.map_reduce` run: in this process (``local``), in a
pool of worker processes (``processes``) or on a Dask cluster (``dask``).

An engine only maps a function over a lazily generated list of tasks and hands the results back *in task
order*; the caller folds them in global chunk order, so the numbers never depend on the engine, the number of
workers or how many chunks go into one task. Futures-based engines keep a bounded window of tasks in flight
(the task list is never materialised, so 1e12 draws cost no memory up front) and cancel what is still
outstanding when the caller stops early, raises or is interrupted (Ctrl-C).

Process-pool workers watch the driver and exit on their own when it dies, even by SIGKILL, so no orphan holds
the terminal's pipes. A Dask engine checks on connect that every worker runs this driver's ldp-audit and numpy
versions, and tasks are submitted with retries: a lost task runs again with the same seeds, so the same numbers.
"""
from __future__ import annotations

import itertools
import os
import threading
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Iterable, Iterator

ENGINES = ("local", "processes", "dask")
#: Tasks in flight per worker: enough to keep every worker busy while the driver folds results in order.
WINDOW_PER_WORKER = 4
#: A Dask task lost with its worker (or failing transiently) is run again this many times, with the same seeds.
DASK_RETRIES = 3


class EngineError(ValueError):
    """The engine cannot run this audit (bad scheduler, version mismatch, missing extra): a usage error."""


def installed_versions() -> dict[str, str]:
    """The versions that must agree between the driver and every worker for results to be identical."""
    import numpy

    from importlib.metadata import PackageNotFoundError, version
    try:
        ours = version("ldp-audit")
    except PackageNotFoundError:  # pragma: no cover - a source tree that is not installed
        ours = "unknown"
    return {"ldp-audit": ours, "numpy": numpy.__version__}


def _report_versions() -> dict[str, str]:
    """Runs on each Dask worker on connect."""
    return installed_versions()


def _load_on_worker(blob: bytes) -> bool:
    """Runs on each Dask worker: can it import what the tasks will need (e.g. the user's mechanism module)?"""
    import cloudpickle

    cloudpickle.loads(blob)
    return True


def _windowed(submit: Callable, tasks: Iterable[tuple], window: int, cancel: Callable) -> Iterator:
    """Results of ``submit(task)`` futures in task order, with at most ``window`` in flight."""
    source = iter(tasks)
    pending = deque(submit(task) for task in itertools.islice(source, window))
    try:
        while pending:
            result = pending.popleft().result()
            for task in itertools.islice(source, 1):
                pending.append(submit(task))
            yield result
    finally:
        for future in pending:
            cancel(future)


class Engine:
    """Maps ``fn(*task)`` over tasks, results in task order. Use as a context manager (closes its workers)."""

    name = "local"
    workers = 1
    #: Chunks per task (None: chosen from the number of chunks and workers; never changes the results).
    block: int | None = None

    def imap(self, fn: Callable, shared: Any, tasks: Iterable[tuple]) -> Iterator:
        """``fn(shared, *task)`` for every task, in task order (``shared``: what every task needs, sent once
        where the engine can)."""
        return (fn(shared, *task) for task in tasks)

    def block_for(self, n_chunks: int) -> int:
        """Chunks per task: the fixed ``block``, else about 4 tasks per worker, at most 64 chunks (8.4 M draws)."""
        if self.block:
            return self.block
        return max(1, min(64, -(-n_chunks // (WINDOW_PER_WORKER * self.workers))))

    def settings(self) -> dict[str, Any]:
        """What goes into a report's settings (never into its numbers)."""
        return {"engine": self.name, "workers": self.workers}

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class LocalEngine(Engine):
    """Every chunk in this process, one after the other."""

    def __init__(self, block: int | None = None):
        self.block = block


def _watch_driver(driver: int, interval: float = 0.2) -> None:
    """Process-pool initializer: exit as soon as the driver process is gone (re-parented or no longer alive)."""
    def watch():
        while True:
            time.sleep(interval)
            try:
                os.kill(driver, 0)
                alive = os.getppid() == driver
            except OSError:
                alive = False
            if not alive:
                os._exit(1)

    threading.Thread(target=watch, name="ldp-audit-watch-driver", daemon=True).start()


class ProcessEngine(Engine):
    """A local pool of worker processes (``reduce_chunk`` must be picklable)."""

    name = "processes"

    def __init__(self, workers: int, block: int | None = None):
        if not (isinstance(workers, int) and workers >= 1):
            raise EngineError(f"--workers must be an integer >= 1, got {workers!r}")
        self.workers, self.block = workers, block
        self._pool = ProcessPoolExecutor(workers, initializer=_watch_driver, initargs=(os.getpid(),))

    def imap(self, fn, shared, tasks):
        return _windowed(lambda task: self._pool.submit(fn, shared, *task), tasks, WINDOW_PER_WORKER * self.workers,
                         lambda future: future.cancel())

    def close(self):
        self._pool.shutdown(wait=True, cancel_futures=True)


def scheduler_address(scheduler: str | None) -> str | None:
    """``--scheduler``, else ``DASK_SCHEDULER_ADDRESS``, else None (start a LocalCluster)."""
    return scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS") or None


class DaskEngine(Engine):
    """Tasks on a Dask cluster: ``scheduler`` (tcp://HOST:PORT), a given ``client``, or a LocalCluster of
    ``workers`` single-threaded worker processes started here (and closed with the engine)."""

    name = "dask"

    def __init__(self, scheduler: str | None = None, workers: int = 1, block: int | None = None,
                 client=None, connect_timeout: float = 10.0):
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:
            raise EngineError("--engine dask needs the dask extra: pip install 'ldp-audit[dask]'") from exc
        self.block, self._cluster, self._own_client = block, None, client is None
        self.address = scheduler_address(scheduler) if client is None else client.scheduler_info()["address"]
        if client is None:
            if self.address:
                try:
                    client = Client(self.address, timeout=connect_timeout)
                except (OSError, TimeoutError) as exc:
                    raise EngineError(f"--scheduler: cannot reach the Dask scheduler at {self.address}: "
                                      f"{exc}") from exc
            else:
                self._cluster = LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=":0")
                client = Client(self._cluster)
        self.client = client
        try:
            self._check_versions()
        except BaseException:
            self.close()
            raise

    def _check_versions(self) -> None:
        reported = self.client.run(_report_versions)
        if not reported:
            raise EngineError(f"--scheduler: the Dask cluster at {self.address} has no workers")
        ours = installed_versions()
        for worker, theirs in sorted(reported.items()):
            if theirs != ours:
                raise EngineError(f"--engine dask: worker {worker} runs "
                                  f"{', '.join(f'{k} {v}' for k, v in sorted(theirs.items()))}, this driver runs "
                                  f"{', '.join(f'{k} {v}' for k, v in sorted(ours.items()))}; install the same "
                                  "versions on every worker")
        self.workers = sum(self.client.nthreads().values())

    def require(self, obj) -> None:
        """Check that every worker can load ``obj`` (e.g. import the user's mechanism module)."""
        import cloudpickle

        blob = cloudpickle.dumps(obj)
        try:
            self.client.run(_load_on_worker, blob)
        except Exception as exc:
            raise EngineError(f"--engine dask: a worker cannot load {type(obj).__name__} "
                              f"(is its module installed on every worker?): {exc!r}") from exc

    def imap(self, fn, shared, tasks):
        [sent] = self.client.scatter([shared], broadcast=True, hash=False)  # on every worker, once per call
        try:
            yield from _windowed(lambda task: self.client.submit(fn, sent, *task, pure=False, retries=DASK_RETRIES),
                                 tasks, WINDOW_PER_WORKER * self.workers, lambda future: future.cancel())
        finally:
            sent.release()

    def settings(self):
        return {**super().settings(), "scheduler": self.address or "LocalCluster"}

    def close(self):
        if self._own_client:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()


def make_engine(name: str | None, workers: int = 1, scheduler: str | None = None,
                block: int | None = None) -> Engine:
    """The engine for ``--engine NAME`` (None: ``processes`` for more than one worker, else ``local``)."""
    name = name or ("processes" if workers > 1 else "local")
    if name not in ENGINES:
        raise EngineError(f"--engine must be one of {', '.join(ENGINES)}, got {name!r}")
    if scheduler and name != "dask":
        raise EngineError(f"--scheduler needs --engine dask (got --engine {name})")
    if name == "dask":
        return DaskEngine(scheduler, workers, block)
    if name == "processes":
        return ProcessEngine(workers, block)
    return LocalEngine(block)
