"""Training sweeps on the audits' engines: the same results on local, a process pool and a Dask LocalCluster;
resume; a failed run and Ctrl-C (first: finish the runs in flight and save them; second: abandon them); a
SIGKILL of the ``reproduce`` driver leaves no worker and no resource tracker."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from functools import partial
from pathlib import Path

import pytest

from ldp_audit.audits.kernel.engines import DaskEngine, LocalEngine, ProcessEngine
from ldp_audit.models.training import RunConfig, RunStore, sweep
from ldp_audit.models.training.store import StoredRunError
from ldp_audit.models.training.train import train_run

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2]),
                                                    os.environ.get("PYTHONPATH", "")])}


def _configs(epochs: int = 3):
    """Four runs on the embedded CSBM graph (every worker can load it), two perturbations of two K each."""
    return [RunConfig("csbm", eps_x=1.0, k_x=k, epochs=epochs, seed=seed) for seed in (0, 1) for k in (1, 2)]


#: The queue tests need several tasks: one per perturbation (two of two runs), not one stack of all four.
TWO_GROUPS = {"batch_key": RunConfig.perturbation_key}


def _numbers(results: dict) -> dict:
    return {config: (result.metrics, result.curves) for config, result in results.items()}


def test_results_are_identical_on_local_processes_and_a_dask_cluster(tmp_path, dask_client):
    configs = _configs()
    runs = {}
    for name, engine in (("local", LocalEngine()), ("processes", ProcessEngine(2, start_method="fork")),
                         ("dask", DaskEngine(client=dask_client))):
        with engine:
            runs[name] = sweep.run_sweep(configs, RunStore(tmp_path / name), engine, "cpu")
    assert set(runs["local"]) == set(configs)
    assert _numbers(runs["processes"]) == _numbers(runs["local"]) == _numbers(runs["dask"])
    stored = RunStore(tmp_path / "dask")
    assert all(stored.load(c).metrics == runs["local"][c].metrics for c in configs)  # the driver saved them


def test_a_task_lost_with_its_dask_worker_is_run_again_with_the_same_seeds(tmp_path):
    distributed = pytest.importorskip("distributed")
    configs = [RunConfig("csbm", eps_x=1.0, k_x=1, epochs=40, seed=seed) for seed in range(6)]
    with LocalEngine() as engine:
        reference = _numbers(sweep.run_sweep(configs, RunStore(tmp_path / "local"), engine, "cpu"))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        lost = []

        def lose_a_busy_worker(result, fresh):
            busy = [address for address, keys in client.processing().items() if keys]
            if busy and not lost:
                lost.append(busy[0])
                client.sync(next(w for w in cluster.workers.values() if w.address == busy[0]).close)

        with DaskEngine(client=client) as engine:
            results = sweep.run_sweep(configs, RunStore(tmp_path / "dask"), engine, "cpu",
                                      on_result=lose_a_busy_worker, task_runs=2)  # three tasks for two workers
        assert lost and len(client.nthreads()) == 1
    assert _numbers(results) == reference


def _dies_once(marker: str, configs, device, cache):
    """Trains the group, except that the worker holding the seed-1 group dies the first time (as if killed)."""
    if configs[0].seed == 1 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return [train_run(c, device, cache) for c in configs]


def test_a_task_lost_with_its_pool_worker_is_run_again_with_the_same_seeds(tmp_path):
    configs = _configs()
    with LocalEngine() as engine:
        reference = _numbers(sweep.run_sweep(configs, RunStore(tmp_path / "local"), engine, "cpu"))
    with ProcessEngine(2, start_method="fork") as engine:
        results = sweep.run_sweep(configs, RunStore(tmp_path / "pool"), engine, "cpu",
                                  run_batch=partial(_dies_once, str(tmp_path / "died")), **TWO_GROUPS)
    assert (tmp_path / "died").exists() and _numbers(results) == reference


def _fail(configs, device, cache):
    pytest.fail("a finished run was retrained")


def test_a_sweep_resumes_and_skips_finished_runs(tmp_path):
    store, configs, fresh = RunStore(tmp_path), _configs(), []
    sweep.run_sweep(configs, store, LocalEngine(), "cpu", on_result=lambda r, new: fresh.append(new), max_new=2)
    assert fresh == [True, True]
    store.path(configs[0]).write_text("{ truncated")  # a damaged file is neither trusted nor trained over
    damaged = re.escape(f"stored run {str(store.path(configs[0]))!r} is not valid JSON")
    with pytest.raises(StoredRunError, match=damaged):
        sweep.run_sweep(configs, store, LocalEngine(), "cpu", run_batch=_fail)
    store.path(configs[0]).unlink()  # moved away: it is trained again
    fresh.clear()
    results = sweep.run_sweep(configs, store, LocalEngine(), "cpu", on_result=lambda r, new: fresh.append(new))
    assert sorted(fresh) == [False, True, True, True] and set(results) == set(configs)
    assert set(sweep.run_sweep(configs, store, LocalEngine(), "cpu", run_batch=_fail)) == set(configs)


def _interrupting(times: int):
    """A batch runner that sends this process ``times`` Ctrl-Cs while its first group trains."""
    sent = []

    def run_batch(configs, device, cache):
        if not sent:
            sent.append(True)
            for _ in range(times):
                os.kill(os.getpid(), signal.SIGINT)
        return [train_run(c, device, cache) for c in configs]
    return run_batch


def test_the_first_ctrl_c_finishes_and_saves_the_runs_in_flight_then_stops(tmp_path):
    store, configs, said = RunStore(tmp_path), _configs(), []
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN where a non-interactive shell started us in the background
    with pytest.raises(KeyboardInterrupt):
        sweep.run_sweep(configs, store, LocalEngine(), "cpu", run_batch=_interrupting(1), say=said.append,
                        **TWO_GROUPS)
    assert said[0] == "stopping: 2 runs in flight; Ctrl-C again to abandon them" and "resume" in said[1]
    assert [store.done(c) for c in configs] == [True, True, False, False]  # the queued group never started
    assert signal.getsignal(signal.SIGINT) is before  # the sweep's handler is gone again


def _interrupting_run(config, device, cache):
    if config.k_x == 1:
        os.kill(os.getpid(), signal.SIGINT)
    return train_run(config, device, cache)


def test_a_group_trained_run_by_run_stops_after_the_run_in_progress(tmp_path):
    store, configs = RunStore(tmp_path), _configs()  # two groups of two runs (k 1 and 2 share a perturbation)
    with pytest.raises(KeyboardInterrupt):
        sweep.run_sweep(configs, store, LocalEngine(), "cpu", run_batch=sweep.one_by_one(_interrupting_run),
                        say=lambda text: None, **TWO_GROUPS)
    assert [store.done(c) for c in configs] == [True, False, False, False]
    assert len(sweep.run_sweep(configs, store, LocalEngine(), "cpu")) == 4  # the next sweep is not stopped


def test_a_second_ctrl_c_abandons_the_runs_in_flight(tmp_path):
    store, configs = RunStore(tmp_path), _configs()
    with pytest.raises(KeyboardInterrupt):
        sweep.run_sweep(configs, store, LocalEngine(), "cpu", run_batch=_interrupting(2), say=lambda text: None)
    assert not any(store.done(c) for c in configs) and not list(tmp_path.rglob("*.tmp"))


def _broken_second_group(configs, device, cache):
    if configs[0].seed == 1:
        raise RuntimeError("diverged")
    return [train_run(c, device, cache) for c in configs]


def test_a_failed_run_stops_the_sweep_after_saving_the_others(tmp_path):
    store, configs = RunStore(tmp_path), _configs()
    with pytest.raises(RuntimeError, match="diverged"):
        sweep.run_sweep(configs, store, LocalEngine(), "cpu", run_batch=_broken_second_group, **TWO_GROUPS)
    assert [store.done(c) for c in configs] == [True, True, False, False]


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (from /proc), children first."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, frontier = [], [pid]
    while frontier:
        frontier = [child for child, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _has_torch(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/maps") as maps:
            return "libtorch_cpu" in maps.read()
    except OSError:
        return False


def _wait_for(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def test_a_killed_reproduce_driver_leaves_no_worker_and_no_resource_tracker(tmp_path, planetoid):
    argv = [sys.executable, "-m", "ldp_audit.cli", "reproduce", "lpgnn", "--quick", "--datasets", "cora",
            "--runs", "1", "--workers", "2", "--results", str(tmp_path / "results"), "--data-dir", str(planetoid),
            "--cache-dir", str(tmp_path / "cache"), "--json"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    try:  # killed once its two workers hold their first task (torch loaded), beside the resource tracker
        assert _wait_for(lambda: sum(map(_has_torch, _descendants(proc.pid))) >= 2, 120), "no worker started"
        below = _descendants(proc.pid)
        assert len(below) >= 3
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert _wait_for(lambda: not any(map(_alive, below)), 5), \
            f"{[p for p in below if _alive(p)]} outlived the killed driver"
    finally:
        if proc.poll() is None:
            proc.kill()


DRIVER = textwrap.dedent("""
    import signal
    import sys
    from ldp_audit.audits.kernel.engines import ProcessEngine
    from ldp_audit.models.training import RunConfig, RunStore, sweep, train  # forked workers start with torch
    configs = [RunConfig("csbm", eps_x=1.0, k_x=1, epochs=20 if seed == 0 else EPOCHS, seed=seed)
               for seed in range(RUNS)]
    def started(result, fresh):
        print("saved", flush=True)
    try:
        with ProcessEngine(2, start_method="fork") as engine:
            sweep.run_sweep(configs, RunStore(sys.argv[1]), engine, "cpu", on_result=started, task_runs=1)
    except KeyboardInterrupt:  # as ldp_audit.cli.main: later Ctrl-Cs must not interrupt the exit handlers
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        sys.exit(130)
""")


#: Epochs of a run that no test could wait for (hours): only abandoning it ends the sweep.
ENDLESS = 10**6


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_of_a_process_pool_sweep(tmp_path, presses):
    """Ctrl-C as a terminal sends it (SIGINT to the whole process group): once, the sweep says what it does,
    saves the runs in flight and exits 130; twice, it abandons them: runs that would train for hours end at once,
    unsaved. No worker survives, nothing half-written. Asserted by what happens, never by seconds. (Forked
    workers, for a quick start; the spawned ones of ``reproduce`` are seen in the SIGKILL test.)"""
    epochs = 800 if presses == 1 else ENDLESS
    driver = DRIVER.replace("EPOCHS", str(epochs)).replace("RUNS", "12")
    proc = subprocess.Popen([sys.executable, "-c", driver, str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "saved"  # seed 0 is saved, the workers are up and training
        below = _descendants(proc.pid)
        for _ in range(presses):
            os.killpg(proc.pid, signal.SIGINT)
            time.sleep(0.3)
        _, err = proc.communicate(timeout=600)  # a guard against a hang, not a measure: endless runs never end
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    # a second Ctrl-C that lands once the stop is over may end the interpreter by SIGINT (-2): a shell shows 130
    assert proc.returncode in ((130,) if presses == 1 else (130, -signal.SIGINT)), err[-2000:]
    assert "Traceback" not in err, err[-2000:]
    assert re.search(r"stopping: [12] runs? in flight; Ctrl-C again to abandon them", err), err
    assert _wait_for(lambda: not any(map(_alive, below)), 5)
    saved = sorted(int(p.stem[4:]) for p in tmp_path.rglob("seed*.json"))
    assert not list(tmp_path.rglob("*.tmp"))
    if presses == 1:
        assert "resume" in err and 1 < len(saved) < 12  # the runs in flight finished and were saved
    else:
        assert saved == [0] and "resume" not in err  # the endless runs in flight were abandoned, unsaved
    store = RunStore(tmp_path)
    assert all(store.load(RunConfig("csbm", eps_x=1.0, k_x=1, epochs=20 if s == 0 else epochs, seed=s))
               for s in saved)


RESUMABLE = textwrap.dedent("""
    import sys
    from ldp_audit.audits.kernel.engines import ProcessEngine
    from ldp_audit.models.training import RunConfig, RunStore, sweep, train  # forked workers start with torch
    configs = [RunConfig("csbm", eps_x=1.0, k_x=k, epochs=60, seed=seed, **extra) for seed in (0, 1)
               for k, extra in ((0, {}), (1, {}), (2, dict(eps_y=2.0)), (4, {}), (8, dict(selection="ccs")))]
    with ProcessEngine(2, start_method="fork") as engine:
        sweep.run_sweep(configs, RunStore(sys.argv[1]), engine, "cpu", task_runs=int(sys.argv[2]),
                        on_result=lambda result, fresh: print("saved", flush=True) if fresh else None)
""")


def _stored_numbers(folder: Path) -> dict:
    import json

    return {p.relative_to(folder): (lambda d: (d["metrics"], d["curves"]))(json.loads(p.read_text()))
            for p in folder.rglob("seed*.json")}


def test_a_sweep_killed_with_sigkill_and_resumed_equals_the_uninterrupted_sweep_run_for_run(tmp_path):
    """SIGKILL of the driver and its workers mid-sweep, then a rerun with other stacks (tasks of 3 runs instead of
    4): every run equals the uninterrupted sweep's, bit for bit, whatever stack it trained in (issue 43)."""
    whole, resumed = tmp_path / "whole", tmp_path / "resumed"
    done = subprocess.run([sys.executable, "-c", RESUMABLE, str(whole), "4"], env=ENV, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    proc = subprocess.Popen([sys.executable, "-c", RESUMABLE, str(resumed), "4"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=ENV, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "saved"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = set(_stored_numbers(resumed))
    assert 0 < len(before) < 10
    done = subprocess.run([sys.executable, "-c", RESUMABLE, str(resumed), "3"], env=ENV, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("saved") == 10 - len(before)  # the stored runs were kept, the rest trained now
    expected = _stored_numbers(whole)
    assert len(expected) == 10 and _stored_numbers(resumed) == expected


def test_a_resume_under_another_torch_says_so_before_training(tmp_path):
    store, configs, said = RunStore(tmp_path), _configs(), []
    sweep.run_sweep(configs, store, LocalEngine(), "cpu", max_new=2, say=said.append)
    assert said == []  # a fresh folder: nothing to say
    stored = next(p for p in tmp_path.rglob("*.json"))
    stored.write_text(stored.read_text().replace('"torch":"', '"torch":"0.0.1-other+'))
    sweep.run_sweep(configs, store, LocalEngine(), "cpu", say=said.append)
    assert len(said) == 1 and "1 under torch 0.0.1-other+" in said[0] and "software line" in said[0]
    sweep.run_sweep(configs, store, LocalEngine(), "cpu", run_batch=_fail, say=said.append)
    assert len(said) == 1  # nothing left to train: nothing to warn about


def test_the_other_torch_notice_counts_each_version_and_unrecorded_runs():
    from types import SimpleNamespace as Run

    runs = [Run(versions={"torch": "2.13.0+cpu"}), Run(versions={"torch": "2.14.1"}), Run(versions={"torch": "2.14.1"}),
            Run(versions={})]
    notice = sweep.other_torch_notice(runs, "2.13.0+cpu")
    assert "2 under torch 2.14.1, 1 under an unrecorded torch" in notice and "2.13.0+cpu, and" in notice
    assert sweep.other_torch_notice(runs[:1], "2.13.0+cpu") is None
