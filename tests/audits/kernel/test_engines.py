"""Engines of map_reduce: the numbers are the same byte for byte on every engine, worker count and block size;
a Dask cluster with other versions is refused (exit 2); process-pool workers die with their driver."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from ldp_audit.audits.kernel import engines
from ldp_audit.audits.kernel.engines import DaskEngine, EngineError, LocalEngine, ProcessEngine
from ldp_audit.audits.kernel.sampling import CHUNK, Announce, Draws, map_reduce, map_reduce_many, run_plans, using
from ldp_audit.audits.verify.orchestrator import AuditSettings, verify
from ldp_audit.cli import main
from ldp_audit.external import as_mechanism
from ldp_audit.mechanisms import make
from user_mechanisms import unary_encoding

N = 7 * CHUNK + 5


class _PowerSums:
    """Floating-point partial sums: their total depends on the order of addition, so it shows any reordering."""

    def __call__(self, size, rng):
        x = rng.standard_normal(size) * 1e3
        return np.array([size, x.sum(), (x ** 2).sum(), np.exp(x / 1e3).sum()])


def _sum(engine=None, workers=1):
    if engine is None:
        return map_reduce(_PowerSums(), N, 11, 3, workers).tobytes()
    with engine, using(engine):
        return map_reduce(_PowerSums(), N, 11, 3).tobytes()


def test_every_engine_worker_count_and_block_size_gives_the_same_bytes(dask_client):
    reference = _sum()
    drawn = []
    assert _sum(LocalEngine(block=3)) == reference
    assert _sum(workers=2) == reference
    assert _sum(ProcessEngine(2, block=5)) == reference
    for block in (1, 4, 100):
        assert _sum(DaskEngine(client=dask_client, block=block)) == reference
    engine = DaskEngine(client=dask_client)
    with using(engine):
        assert map_reduce(_PowerSums(), N, 11, 3, progress=drawn.append).tobytes() == reference
    assert sum(drawn) == N and len(drawn) >= 2  # one progress step per finished task
    assert engine.settings() == {"engine": "dask", "workers": 2, "scheduler": dask_client.scheduler_info()["address"]}


def _many(engine=None, workers=1):
    """Two streams of different lengths (one shorter than a chunk) submitted together."""
    streams = [Draws(_PowerSums(), N, 11, 3), Draws(_PowerSums(), CHUNK // 3, 11, 4)]
    if engine is None:
        return [t.tobytes() for t in map_reduce_many(streams, workers)]
    with engine, using(engine):
        return [t.tobytes() for t in map_reduce_many(streams)]


def test_streams_submitted_together_sum_as_they_do_alone(dask_client):
    alone = [_sum(), map_reduce(_PowerSums(), CHUNK // 3, 11, 4).tobytes()]
    assert _many() == alone
    assert _many(LocalEngine(block=2)) == alone
    assert _many(workers=2) == alone
    assert _many(ProcessEngine(2, block=3)) == alone
    for block in (1, 5):
        assert _many(DaskEngine(client=dask_client, block=block)) == alone


def _two_rounds(order: list):
    """A plan of two rounds (the second depends on the first), logging when it runs."""
    first = yield [Draws(_PowerSums(), 3 * CHUNK, 11, 5)]
    order.append("two-rounds resumed")
    second = yield [Draws(_PowerSums(), CHUNK, 11, 6 + int(first[0][0] > 0))]
    return first[0] + second[0]


def _exact_work(order: list):
    yield []
    order.append("exact")
    return "exact"


def test_plans_run_together_without_a_barrier_between_them():
    order, drawn = [], []
    engine = LocalEngine(block=1)
    with using(engine):
        results = run_plans([_two_rounds(order), _exact_work(order), _many_plan(order)], progress=drawn.append)
    assert results[0].tobytes() == (map_reduce(_PowerSums(), 3 * CHUNK, 11, 5)
                                    + map_reduce(_PowerSums(), CHUNK, 11, 7)).tobytes()
    assert results[1] == "exact" and [r.tobytes() for r in results[2]] == _many()
    # the exact work runs once tasks are out; the two-round plan resumes as soon as its own stream is summed,
    # while the third plan's streams are still out (no barrier between plans)
    assert order == ["exact", "two-rounds resumed", "third done"]
    assert sum(drawn) == 4 * CHUNK + N + CHUNK // 3 and len(drawn) == 4 + 8 + 1


def _many_plan(order: list):
    totals = yield [Draws(_PowerSums(), N, 11, 3), Draws(_PowerSums(), CHUNK // 3, 11, 4)]
    order.append("third done")
    return totals


def _report(mechanism, engine=None):
    settings = AuditSettings(samples=20_000, seed=5)
    if engine is None:
        return verify(mechanism, settings, checks="all").to_dict()["results"]
    with using(engine):
        return verify(mechanism, settings, checks="all").to_dict()["results"]


@pytest.mark.parametrize("build", [lambda: make("laplace", eps=1.0),
                                   lambda: as_mechanism(unary_encoding(1.0, 4))], ids=["builtin", "user"])
def test_dask_reports_equal_local_reports(dask_client, build):
    mechanism = build()
    engine = DaskEngine(client=dask_client, block=1)
    engine.require(mechanism)
    assert _report(mechanism, engine) == _report(mechanism)


def test_a_cluster_with_other_versions_is_refused_with_exit_2(dask_client, monkeypatch, capsys):
    monkeypatch.setattr(engines, "_report_versions", lambda: {**engines.installed_versions(), "numpy": "0.0.1"})
    with pytest.raises(EngineError, match="numpy 0.0.1"):
        DaskEngine(client=dask_client)
    address = dask_client.scheduler_info()["address"]
    code = main(["verify", "laplace", "--eps", "1", "--samples", "2000", "--checks", "privacy",
                 "--engine", "dask", "--scheduler", address])
    assert code == 2 and "numpy 0.0.1" in capsys.readouterr().err


@pytest.mark.parametrize("args, option", [(["--engine", "spark"], "--engine"),
                                          (["--engine", "dask", "--scheduler", "localhost"], "--scheduler"),
                                          (["--scheduler", "tcp://h:1"], "--scheduler")])
def test_bad_engine_options_exit_2_naming_the_option(args, option, capsys):
    assert main(["verify", "laplace", "--eps", "1", "--samples", "2000", *args]) == 2
    assert option in capsys.readouterr().err


def test_engine_and_workers_go_into_settings_not_numbers(capsys):
    import json

    assert main(["verify", "laplace", "--eps", "1", "--samples", "2000", "--checks", "privacy", "--json",
                 "--engine", "processes", "--workers", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    assert main(["verify", "laplace", "--eps", "1", "--samples", "2000", "--checks", "privacy", "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert two["settings"]["engine"] == "processes" and two["settings"]["workers"] == 2
    assert one["settings"]["engine"] == "local" and two["results"] == one["results"]


def test_pool_workers_exit_when_the_driver_is_killed(tmp_path):
    driver = textwrap.dedent("""
        import os, sys, time
        from ldp_audit.audits.kernel.engines import ProcessEngine
        def pid(_):
            return os.getpid()
        engine = ProcessEngine(2)
        pids = {engine.submit(pid, None).result() for _ in range(8)}
        print(" ".join(map(str, pids)), flush=True)
        time.sleep(60)
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-c", driver], stdout=subprocess.PIPE, text=True, env=env)
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert pids and proc.pid not in pids
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 5.0
    alive = pids
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = [pid for pid in pids if _alive(pid)]
    assert not alive, f"worker processes {alive} outlived their driver"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_worker_lost_mid_run_changes_nothing():
    distributed = pytest.importorskip("distributed")
    reference = _sum()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        lost = next(iter(cluster.workers.values()))

        def lose_a_worker_after_the_first_task(draws):
            if lost.status.name == "running":
                client.sync(lost.close)

        with using(DaskEngine(client=client, block=1)):
            total = map_reduce(_PowerSums(), N, 11, 3, progress=lose_a_worker_after_the_first_task)
        assert len(client.nthreads()) == 1
    assert total.tobytes() == reference


class _Slow(_PowerSums):
    def __call__(self, size, rng):
        time.sleep(0.2)
        return super().__call__(size, rng)


def test_ctrl_c_cancels_the_outstanding_dask_tasks(dask_client):
    def interrupt(draws):
        raise KeyboardInterrupt

    engine, submitted = DaskEngine(client=dask_client, block=1), []
    submit = engine.submit
    engine.submit = lambda *args: submitted.append(submit(*args)) or submitted[-1]  # held: only cancel stops them
    with pytest.raises(KeyboardInterrupt), using(engine):
        map_reduce(_Slow(), 60 * CHUNK, 11, 3, progress=interrupt)
    assert len(submitted) == engine.window  # tasks are submitted lazily: a window, not all 60
    time.sleep(0.5)
    statuses = [future.status for future in submitted]
    assert "pending" not in statuses and statuses.count("cancelled") >= engine.window - 3, statuses
    assert not any(dask_client.processing().values())
    del submitted[:]
    deadline = time.monotonic() + 5.0
    while dask_client.run_on_scheduler(_tasks_known) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert dask_client.run_on_scheduler(_tasks_known) == 0, "tasks outlived the interrupted run"


def _tasks_known(dask_scheduler) -> int:
    return len(dask_scheduler.tasks)


def test_ctrl_c_stops_the_process_pool_at_once_and_leaves_no_worker():
    driver = textwrap.dedent("""
        import os, time
        import numpy as np
        from ldp_audit.audits.kernel.engines import ProcessEngine
        from ldp_audit.audits.kernel.sampling import CHUNK, map_reduce, using

        class Slow:
            def __call__(self, size, rng):
                time.sleep(60)
                return np.zeros(1)

        engine = ProcessEngine(2, block=1)
        with engine, using(engine):
            engine.submit(os.getpid).result()  # the pool's workers are up
            print(" ".join(map(str, engine._pool._processes)), flush=True)
            map_reduce(Slow(), 100 * CHUNK, 1, 1)
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")])}
    # a session of its own: Ctrl-C in a terminal sends SIGINT to the whole foreground process group
    proc = subprocess.Popen([sys.executable, "-c", driver], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, start_new_session=True)
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert len(pids) == 2
    time.sleep(0.5)  # the slow tasks are running
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=20)  # far less than the 60 s a running task would take
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError("the driver waited for its running tasks after Ctrl-C")
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    assert err.count("Traceback") == 1, "a worker printed its own traceback"
    assert not [pid for pid in pids if _alive(pid)]


def randomized_response(x, n, rng):
    """Binary randomized response at eps = 1, at module level so that a process pool can pickle it."""
    return np.where(rng.random(n) < np.e / (np.e + 1), x, 1 - x)


def test_the_helpers_run_on_any_engine_with_the_same_numbers(dask_client):
    from ldp_audit.audits.kernel.engines import DaskEngine
    from ldp_audit.testing import assert_ldp, audit

    mechanism, options = randomized_response, dict(eps=1.0, domain=[0, 1], samples=20_000, seed=3)
    local = audit(mechanism, **options)
    pool = audit(mechanism, engine="processes", workers=2, **options)
    dask = audit(mechanism, engine=DaskEngine(client=dask_client), **options)
    assert local.settings["engine"] == "local" and pool.settings["engine"] == "processes"
    assert dask.settings["engine"] == "dask" and dask.settings["workers"] == 2
    assert pool.to_dict()["results"] == local.to_dict()["results"] == dask.to_dict()["results"]
    assert assert_ldp(mechanism, 1.0, domain=[0, 1], samples=20_000, engine="processes", workers=2).passed
    with pytest.raises(ValueError, match="engine must be one of local, processes, dask"):
        audit(mechanism, eps=1.0, domain=[0, 1], engine="spark", samples=20_000)


def test_a_local_cluster_started_by_the_engine_gives_the_same_bytes():
    pytest.importorskip("distributed")
    reference = _sum()
    engine = DaskEngine(workers=1)  # worker processes started here (forked on Linux, like a process pool's)
    assert engine.settings()["scheduler"] == "LocalCluster"
    assert _sum(engine) == reference


def test_ctrl_c_on_a_dask_local_cluster_leaves_no_worker_and_one_message():
    pytest.importorskip("distributed")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "ldp_audit.cli", "verify", "laplace", "--eps", "0.1", "--checks", "privacy",
               "--samples", "1e10", "--engine", "dask", "--workers", "2"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)  # a terminal's process group: Ctrl-C reaches every process
    deadline = time.monotonic() + 60.0
    while len(_session(proc.pid)) < 3 and time.monotonic() < deadline:  # the driver and its two workers
        time.sleep(0.2)
    time.sleep(1.0)  # start-up forks more than the two workers for a moment (one CI run saw three processes)
    workers = [pid for pid in _session(proc.pid) if pid != proc.pid]
    assert len(workers) >= 2  # every one of them must be gone after the Ctrl-C
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError("the driver did not stop on Ctrl-C")
    # 130, or killed by the SIGINT itself (-2) when it lands during interpreter shutdown: a shell shows 130 for both
    assert proc.returncode in (130, -signal.SIGINT) and "Traceback" not in err, err[-2000:]
    deadline = time.monotonic() + 5.0
    while [pid for pid in workers if _alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if _alive(pid)]


def _session(sid: int) -> list[int]:
    """The live processes of session ``sid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().split(")")[-1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                found.append(int(entry))
    return found


def test_ctrl_c_while_workers_start_is_held_then_raised():
    from ldp_audit.audits.kernel.engines import _sigint_deferred

    reached_end = False
    with pytest.raises(KeyboardInterrupt):
        with _sigint_deferred():
            os.kill(os.getpid(), signal.SIGINT)  # would interrupt a cluster start half-way
            time.sleep(0.05)
            reached_end = True
    assert reached_end and signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.parametrize("paper", ["lpgnn", "ppgnn", "ldp-ge"])
def test_bounds_gives_the_same_bytes_on_every_engine(paper, dask_client, capsys):
    def bounds(*engine) -> str:
        main(["bounds", paper, "--dataset", "csbm", "--reps", "50", "--json", *engine])
        return capsys.readouterr().out

    reference = bounds()
    assert '"results"' in reference
    assert bounds("--engine", "processes", "--workers", "2") == reference
    assert bounds("--engine", "dask", "--scheduler", dask_client.scheduler_info()["address"]) == reference


class _CountingEngine(LocalEngine):
    """One chunk per task; counts what is shared with the tasks and how many tasks run."""

    def __init__(self):
        super().__init__(block=1)
        self.shared, self.tasks = [], 0

    def share(self, obj):
        self.shared.append(obj)
        return obj

    def submit(self, fn, *args):
        self.tasks += 1
        return super().submit(fn, *args)


def test_graph_replicates_keep_their_streams_and_send_the_graph_once_per_stream():
    """Replicates are chunks of whole replicates, chunk i from rng_for(seed, i), whatever the engine; the reducer
    (weights and features of the used nodes) is shared once per stream, not once per chunk."""
    from ldp_audit.audits.graph import replicates
    from ldp_audit.models.perturbation import as_dense, server_estimates
    from ldp_audit.seeding import rng_for

    x = np.random.default_rng(0).uniform(-1, 1, (30, 4))
    weights = np.random.default_rng(1).uniform(0, 1, (2, 30))
    weights[:, 5] = 0.0  # node 5 is never perturbed
    mechanism = make("multibit", eps=1.0, d=4, alpha=-1.0, beta=1.0)
    per_chunk = replicates.replicates_per_chunk(29 * 4)
    reps = 3 * per_chunk + 2
    used = np.flatnonzero(weights.sum(axis=0))
    expected = np.concatenate([
        np.einsum("su,cud->csd", weights[:, used], as_dense(server_estimates(
            mechanism, np.tile(x[used], (min(per_chunk, reps - start), 1)), rng_for(7, i))).reshape(-1, used.size, 4))
        for i, start in enumerate(range(0, reps, per_chunk))])
    engine = _CountingEngine()
    with using(engine):
        samples = replicates.propagated_samples(weights, x, mechanism, reps, 7)
    assert np.array_equal(samples, expected)
    assert engine.tasks == 4 and len(engine.shared) == 1


def test_claims_runs_its_providers_on_the_chosen_engine(monkeypatch, capsys):
    from ldp_audit.audits.kernel import sampling
    from ldp_audit.audits.kernel.result import AuditReport
    from ldp_audit.commands import claims

    seen = []

    def run_claims(paper, settings, progress=None):
        seen.append(sampling._ENGINE.get())
        return AuditReport.of(f"claims of {paper}", [])

    monkeypatch.setattr(claims, "run_claims", run_claims)
    assert main(["claims", "ppgnn", "--engine", "processes", "--workers", "2", "--json"]) == 0
    [engine] = seen
    assert isinstance(engine, ProcessEngine) and engine.workers == 2


def test_a_process_pool_runs_a_closure_reducer_with_the_same_numbers():
    """A reducer built inside a function (the attacks' tallies) is refused by a pool's pickle; the engine sends it
    as cloudpickle bytes instead, and the totals are those of this process."""
    pytest.importorskip("cloudpickle")
    scale = 1e3

    def reducer(size, rng):
        return np.array([size, (rng.standard_normal(size) * scale).sum()])

    reference = map_reduce(reducer, 3 * CHUNK + 7, 11, (5, 1)).tobytes()
    with ProcessEngine(2, block=1) as engine, using(engine):
        assert map_reduce(reducer, 3 * CHUNK + 7, 11, (5, 1)).tobytes() == reference


def _announcing(order: list):
    yield Announce(3 * CHUNK)
    order.append("started")
    return (yield [Draws(_PowerSums(), 3 * CHUNK, 11, 5)])


def test_plans_announce_their_draws_before_the_first_task():
    events = []
    run_plans([_announcing(events), _exact_work(events)], progress=lambda draws: events.append(("drawn", draws)),
              planned=lambda total: events.append(("planned", total)))
    assert events.index(("planned", 3 * CHUNK)) < events.index(next(e for e in events if e[0] == "drawn"))
    assert sum(e[1] for e in events if isinstance(e, tuple) and e[0] == "drawn") == 3 * CHUNK
