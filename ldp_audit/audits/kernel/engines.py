"""Where the seeded chunks of :mod:`ldp_audit.audits.kernel.sampling` run: in this process (``local``), in a pool of
worker processes (``processes``) or on a Dask cluster (``dask``). Training sweeps use the same engines
(``models.training.sweep.run_sweep`` is handed one by the command; a task there is one batch of runs, and
``wait_any`` hands back whichever task finishes first).

An engine only submits tasks and hands back futures; the caller (``sampling.run_plans``) keeps a bounded window
of them in flight (``window``), generates the tasks lazily (so 1e12 draws cost no memory up front), folds the
results in global chunk order, so the numbers never depend on the engine, the number of workers or how many
chunks go into one task, and cancels what is still outstanding when it stops early, raises or is interrupted
(Ctrl-C): ``cancel`` drops queued futures, and an engine left by an exception (``__exit__``) stops its workers at
once instead of letting running tasks finish.

Process-pool workers ignore SIGINT (the driver decides what Ctrl-C does) and watch the driver: they exit on
their own when it dies, even by SIGKILL, so no orphan holds the terminal's pipes. A Dask engine checks on
connect that every worker runs this driver's ldp-audit and numpy versions, and tasks are submitted with
retries: a lost task runs again with the same seeds, so the same numbers.
"""
from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, nullcontext
from typing import Any, Callable, Iterable

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

    from ... import __version__

    return {"ldp-audit": __version__, "numpy": numpy.__version__}


def _report_versions() -> dict[str, str]:
    """Runs on each Dask worker on connect."""
    return installed_versions()


def _load_on_worker(blob: bytes) -> bool:
    """Runs on each Dask worker: can it import what the tasks will need (e.g. the user's mechanism module)?"""
    import cloudpickle

    cloudpickle.loads(blob)
    return True


class Engine:
    """Runs ``fn(*args)`` tasks and hands back futures. Use as a context manager (closes its workers; stops them
    at once when the block is left by an exception, e.g. KeyboardInterrupt)."""

    name = "local"
    workers = 1
    #: Chunks per task (None: chosen from the number of chunks and workers; never changes the results).
    block: int | None = None

    @property
    def window(self) -> int:
        """Tasks to keep in flight: enough to keep every worker busy while the driver folds results in order."""
        return WINDOW_PER_WORKER * self.workers

    def submit(self, fn: Callable, *args) -> Future:
        """Run ``fn(*args)``; here, at once (a local engine has nothing to overlap)."""
        future = Future()
        future.set_result(fn(*args))
        return future

    def cancel(self, futures: Iterable) -> None:
        """Drop submitted tasks that have not finished (their results are no longer wanted)."""
        for future in futures:
            future.cancel()

    def wait_any(self, futures: Iterable, timeout: float | None = None) -> tuple[set, set]:
        """``(done, pending)`` once at least one of ``futures`` is done, or after ``timeout`` seconds."""
        done, pending = wait_futures(list(futures), timeout, FIRST_COMPLETED)
        return done, pending

    def share(self, obj: Any) -> Any:
        """A handle to pass in place of ``obj`` to many tasks (sent to the workers once where the engine can)."""
        return obj

    def revive(self, error: BaseException) -> bool:
        """Whether ``error`` (raised by a task's future) means that its worker was lost, and the engine is ready
        to take the task again (same arguments, so the same seeds and numbers). Dask retries lost tasks on its
        own; a process pool is restarted here."""
        return False

    def release(self, handle: Any) -> None:
        """The tasks using ``handle`` are done."""

    def block_for(self, n_chunks: int) -> int:
        """Chunks per task: the fixed ``block``, else about 4 tasks per worker, at most 64 chunks (8.4 M draws)."""
        if self.block:
            return self.block
        return max(1, min(64, -(-n_chunks // (WINDOW_PER_WORKER * self.workers))))

    def settings(self) -> dict[str, Any]:
        """What goes into a report's settings (never into its numbers)."""
        return {"engine": self.name, "workers": self.workers}

    def close(self, abort: bool = False) -> None:
        """Release the workers; ``abort``: without waiting for running tasks."""

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        self.close(abort=kind is not None)
        return False


class LocalEngine(Engine):
    """Every chunk in this process, one after the other."""

    window = 1

    def __init__(self, block: int | None = None):
        self.block = block


def _watch_driver(driver: int, interval: float = 0.2) -> None:
    """Process-pool initializer: ignore Ctrl-C (the terminal sends it to the whole process group; the driver
    cancels and stops the pool), and exit as soon as the driver process is gone (re-parented or no longer alive)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

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


class _CloudPickled:
    """A callable shared with a process pool's tasks that the pool's pickle refuses (a closure, a lambda): sent as
    cloudpickle bytes and loaded once per task on the worker."""

    def __init__(self, blob: bytes):
        self.blob, self._loaded = blob, None

    def __getstate__(self):
        return self.blob

    def __setstate__(self, blob):
        self.blob, self._loaded = blob, None

    def __call__(self, *args):
        if self._loaded is None:
            self._loaded = pickle.loads(self.blob)
        return self._loaded(*args)


class ProcessEngine(Engine):
    """A local pool of worker processes (``reduce_chunk`` must be picklable). ``start_method``: how the workers
    start (None: the platform's default; ``"spawn"`` where the driver may have started CUDA or torch's threads,
    which a forked worker cannot use)."""

    name = "processes"

    def __init__(self, workers: int, block: int | None = None, start_method: str | None = None):
        if not (isinstance(workers, int) and workers >= 1):
            raise EngineError(f"--workers must be an integer >= 1, got {workers!r}")
        self.workers, self.block, self._start_method = workers, block, start_method
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context(self._start_method) if self._start_method else None
        return ProcessPoolExecutor(self.workers, context, initializer=_watch_driver, initargs=(os.getpid(),))

    def submit(self, fn, *args):
        return self._pool.submit(fn, *args)

    def share(self, obj):
        """``obj`` itself when pickle takes it; else (a closure, a lambda) its cloudpickle bytes, where cloudpickle
        is installed (the dask extra), so the claims' attack reducers run on a pool as they do on Dask."""
        try:
            pickle.dumps(obj)
            return obj
        except (pickle.PicklingError, AttributeError, TypeError):
            try:
                import cloudpickle
            except ImportError:
                return obj  # the pool's own error names what cannot be pickled
            return _CloudPickled(cloudpickle.dumps(obj))

    def revive(self, error):
        """A worker that died (killed, out of memory) breaks the whole pool: start a fresh one."""
        if not isinstance(error, BrokenProcessPool):
            return False
        if getattr(self._pool, "_broken", False):  # not yet replaced (every future of the old pool reports it)
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new_pool()
        return True

    def close(self, abort=False):
        workers = list(getattr(self._pool, "_processes", {}).values())  # before shutdown forgets them
        self._pool.shutdown(wait=not abort, cancel_futures=True)
        if abort:  # running tasks are not waited for: the pool's workers are stopped now
            for process in workers:
                process.terminate()
            for process in workers:
                process.join(5.0)
            # let the pool's manager thread finish closing its wake-up pipe now: at interpreter exit
            # concurrent.futures wakes every manager whose pipe is not yet marked closed, and a pipe closed between
            # that check and the write printed "OSError: Bad file descriptor" after a second Ctrl-C (CPython 3.11)
            manager = getattr(self._pool, "_executor_manager_thread", None)
            if manager is not None:
                manager.join(5.0)


def scheduler_address(scheduler: str | None) -> str | None:
    """``--scheduler``, else ``DASK_SCHEDULER_ADDRESS``, else None (start a LocalCluster)."""
    return scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS") or None


def _local_cluster(workers: int):
    """A LocalCluster of ``workers`` single-threaded worker processes, started like a process pool's (Ctrl-C is
    the driver's alone, see :func:`_sigint_deferred`).

    On Linux its workers are forked from this driver, as a process pool's are: they start with ldp-audit and the
    mechanism's module already imported (a spawned worker imports numpy, scipy and ldp-audit first: seconds, a
    large share of a 2e8-draw audit) and close at once. Dask also starts its workers with
    MALLOC_TRIM_THRESHOLD_=65536, which turns off glibc's adaptive mmap threshold, so that every chunk-sized array
    is mmapped and page-faulted anew (about 25 % more CPU per task than in a pool worker); a cluster started here
    keeps glibc's default. Its workers log only CRITICAL records: a task's error reaches the driver through its
    future anyway, and a worker still sending a heartbeat while a Ctrl-C closes the scheduler printed a traceback
    per worker. A user's cluster (``--scheduler``) is configured by its owner."""
    import dask
    from distributed import LocalCluster

    settings = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
    if sys.platform.startswith("linux"):
        settings["distributed.worker.multiprocessing-method"] = "fork"
    cluster = None
    worker_log = logging.getLogger("distributed.worker")
    level = worker_log.level
    worker_log.setLevel(logging.CRITICAL)  # inherited by the forked workers only (see the docstring)
    try:
        with dask.config.set(settings), _sigint_deferred():
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=":0")
    except KeyboardInterrupt:  # Ctrl-C while the workers started: honoured now, with the workers closed
        if cluster is not None:
            cluster.close()
        raise
    finally:
        worker_log.setLevel(level)
    return cluster


@contextmanager
def _sigint_deferred():
    """Ctrl-C held back while worker processes are started, so that the workers forked meanwhile inherit a handler
    that only takes note (as process-pool workers ignore it): the terminal sends SIGINT to the whole process group,
    and only the driver should act on it (cancel, close the cluster), with one message instead of one traceback
    per worker. A Ctrl-C that arrived meanwhile is raised in the driver on leaving the block, never lost."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    interrupted = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: interrupted.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if interrupted:
        raise KeyboardInterrupt


class DaskEngine(Engine):
    """Tasks on a Dask cluster: ``scheduler`` (tcp://HOST:PORT), a given ``client``, or a LocalCluster of
    ``workers`` single-threaded worker processes started here (and closed with the engine)."""

    name = "dask"

    def __init__(self, scheduler: str | None = None, workers: int = 1, block: int | None = None,
                 client=None, connect_timeout: float = 10.0):
        try:
            from distributed import Client
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
                self._cluster = _local_cluster(workers)
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

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False, retries=DASK_RETRIES)

    def cancel(self, futures):
        futures = list(futures)
        if futures:
            self.client.cancel(futures)  # one message to the scheduler for all of them

    def wait_any(self, futures, timeout=None):
        from distributed import wait

        futures = list(futures)
        try:
            done, pending = wait(futures, timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return set(), set(futures)
        return set(done), set(pending)

    def share(self, obj):
        [sent] = self.client.scatter([obj], broadcast=True, hash=False)  # on every worker, once
        return sent

    def release(self, handle):
        handle.release()

    def settings(self):
        return {**super().settings(), "scheduler": self.address or "LocalCluster"}

    def close(self, abort=False):
        if self._own_client:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()


#: URL schemes of a Dask scheduler address.
SCHEDULER_SCHEMES = ("tcp", "tls", "ucx", "inproc")


def check_scheduler(address, name: str = "scheduler") -> str:
    """A Dask scheduler address ``tcp://HOST:PORT`` (or tls://, ucx://, inproc://); an :class:`EngineError` naming
    ``name`` (the Python parameter, or the option that gave it) otherwise."""
    scheme, sep, rest = str(address).partition("://")
    host, colon, port = rest.rpartition(":")
    if not isinstance(address, str) or not sep or scheme not in SCHEDULER_SCHEMES or (scheme != "inproc" and not (
            colon and host and port.isdigit() and 0 < int(port) < 65536)):
        raise EngineError(f"{name} must be a Dask scheduler address tcp://HOST:PORT (port 1-65535; or tls://, "
                          f"ucx://, inproc://), got {address!r}")
    return address


def check_engine_options(name: str | None, workers: int | None = 1, scheduler: str | None = None,
                         workers_given: bool = False, flags: bool = True) -> None:
    """The rules of ``--engine``, ``--workers`` and ``--scheduler``, checked before anything starts (an
    :class:`EngineError` naming the option, spelled as a command-line flag or, with ``flags=False``, as the Python
    keyword): a known engine (None: chosen from ``workers``), a scheduler only for ``dask``, and, when the caller
    asked for them (``workers_given``), more than one worker only where there are workers."""
    engine, scheduler_, workers_ = (("--engine", "--scheduler", "--workers") if flags else
                                    ("engine=", "scheduler=", "workers="))
    if name is not None and name not in ENGINES:
        raise EngineError(f"engine must be one of {', '.join(ENGINES)} (or an Engine, or None), got {name!r}")
    if scheduler is not None:
        check_scheduler(scheduler)
    if scheduler and name != "dask":
        chosen = f"{engine} {name}" if flags else f"{engine}{name!r}"
        raise EngineError(f"{scheduler_.rstrip('=')} needs {engine}{' dask' if flags else repr('dask')} (got "
                          f"{chosen if name else engine.rstrip('=') + ' left out'})")
    if name == "local" and workers_given and workers is not None and workers > 1:
        where = "--engine processes or dask" if flags else "engine='processes' or 'dask'"
        raise EngineError(f"{workers_}{'' if not flags else ' '}{workers} needs {where}: "
                          f"{engine}{' local' if flags else repr('local')} runs every chunk in this process")


def engine_name(name: str | None, workers: int = 1) -> str:
    """The engine ``--engine NAME`` runs on: NAME, or, left out, ``processes`` for more than one worker, else
    ``local``."""
    return name or ("processes" if workers > 1 else "local")


def make_engine(name: str | None, workers: int = 1, scheduler: str | None = None,
                block: int | None = None, start_method: str | None = None) -> Engine:
    """The engine for ``--engine NAME`` (:func:`engine_name`); ``start_method`` goes to a process pool
    (:class:`ProcessEngine`)."""
    check_engine_options(name, workers, scheduler)
    name = engine_name(name, workers)
    if name == "dask":
        return DaskEngine(scheduler, workers, block)
    if name == "processes":
        return ProcessEngine(workers, block, start_method)
    return LocalEngine(block)


@contextmanager
def open_engine(engine: "Engine | str | None", workers: int = 1, scheduler: str | None = None, subject: Any = None,
                start_method: str | None = None):
    """The one set-up of an engine for a block of work: ``engine`` itself when it is an :class:`Engine` (the
    caller's, left open), else :func:`make_engine` of that name, ``workers`` and ``scheduler``, closed with its
    workers on the way out (at once when the block is left by an exception, Ctrl-C included). A Dask engine first
    checks that its workers can load ``subject`` (a mechanism, say)."""
    with (nullcontext(engine) if isinstance(engine, Engine)
          else make_engine(engine, workers, scheduler, start_method=start_method)) as running:
        if subject is not None and hasattr(running, "require"):
            running.require(subject)
        yield running
