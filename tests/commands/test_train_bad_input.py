"""Bad input of ``train`` and ``reproduce`` (issue 22.2) and their ``--plan`` (issue 24.4): every path they will
write is probed before any work, options of another pipeline or table are refused naming them, sizes are guarded,
ppgnn's one budget is ``--eps``, results never default into the working directory, and --plan trains nothing."""
from __future__ import annotations

import json
import os
import time
from collections import namedtuple

import pytest

from ldp_audit.cli import main
from ldp_audit.commands.reproduce import common
from ldp_audit.models.training import RunConfig, RunStore, sweep
from ldp_audit.models.training.train import train_run

KARATE = ["train", "lpgnn", "--dataset", "karate", "--features", "ohd", "--epochs", "2", "--json"]


def _code(argv) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's usage errors
        return exc.code


@pytest.fixture
def no_training(monkeypatch):
    """Any training run fails the test: the bad input must be refused before."""
    monkeypatch.setattr(sweep, "run_sweep", lambda *a, **k: pytest.fail("trained before refusing bad input"))


@pytest.fixture(autouse=True)
def private_homes(tmp_path, monkeypatch):
    """The user data and cache folders inside the test's own folder."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data-home"))
    monkeypatch.setenv("LDP_AUDIT_CACHE", str(tmp_path / "cache"))


def _refused(argv, capsys, *names) -> str:
    assert _code(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and all(name in err for name in names), err
    return err


@pytest.mark.parametrize("command", [KARATE, ["reproduce", "lpgnn", "--datasets", "cora", "--max-runs", "0"]])
@pytest.mark.parametrize("results, words", [
    ("/proc/ldp-audit-results", ("not writable",)),  # unwritable, even for root
    ("/proc/missing/parent/results", ("not writable",)),  # a missing parent under an unwritable folder
])
def test_an_unwritable_results_folder_is_refused_before_any_work(command, results, words, capsys, no_training):
    _refused([*command, "--results", results], capsys, "--results", results, *words)


def test_a_file_given_as_results_folder_is_refused(tmp_path, capsys, no_training):
    path = tmp_path / "a-file"
    path.write_text("x")
    _refused([*KARATE, "--results", str(path)], capsys, "--results", str(path), "is a file")


def test_a_full_disk_is_refused_before_any_work(tmp_path, capsys, monkeypatch, no_training):
    Status = namedtuple("Status", "f_bavail f_frsize")
    full = tmp_path / "full-disk"
    full.mkdir()
    monkeypatch.setattr(os, "statvfs", lambda path: Status(3 if str(path).startswith(str(full)) else 10 ** 9, 4096))
    _refused([*KARATE, "--results", str(full / "r")], capsys, "--results", "full")
    for option in ("--out", "--plot"):
        _refused(["reproduce", "lpgnn", "--results", str(tmp_path / "r"), option, str(full / "f.png")], capsys,
                 option, "full")


def test_bad_cache_folders_are_refused_naming_the_option_or_variable(tmp_path, capsys, monkeypatch, no_training):
    path = tmp_path / "a-file"
    path.write_text("x")
    _refused([*KARATE, "--results", str(tmp_path / "r"), "--cache-dir", str(path)], capsys, "--cache-dir", str(path))
    monkeypatch.setenv("LDP_AUDIT_CACHE", str(path))
    _refused([*KARATE, "--results", str(tmp_path / "r")], capsys, "$LDP_AUDIT_CACHE", str(path))


@pytest.mark.parametrize("option, path", [("--out", "/proc/x/report.json"), ("--plot", "/proc/x/fig.png")])
def test_unwritable_report_and_plot_files_are_refused(tmp_path, option, path, capsys, no_training):
    _refused(["reproduce", "lpgnn", "--results", str(tmp_path), option, path], capsys, option, path)


@pytest.mark.parametrize("argv, names", [
    (["train", "lpgnn", "--mechanism", "hds"], ["--mechanism"]),
    (["train", "ldp-ge", "--k", "3", "--model", "sage"], ["--k", "--model"]),
    (["train", "ldp-ge", "--features", "rnd"], ["--features"]),
    (["train", "ppgnn", "--eps-y", "1"], ["--eps-y"]),
    (["train", "ppgnn", "--task", "node"], ["--task"]),
    (["train", "lpgnn", "--sampled", "2", "--rescale"], ["--sampled", "--rescale"]),
    (["train", "lpgnn", "--eps", "1"], ["--eps", "two budgets"]),
    (["train", "ppgnn", "--eps", "1", "--eps-x", "2"], ["--eps", "--eps-x"]),
    (["reproduce", "lpgnn", "--tables", "fig2"], ["--tables", "table3, drop", "fig2"]),
    (["reproduce", "ppgnn", "--tables", "ksweep"], ["--tables", "table3", "ksweep"]),
    (["reproduce", "ldp-ge", "--tables", "drop"], ["--tables", "table3, fig2, ksweep"]),
    (["reproduce", "lpgnn", "--backbone", "sage"], ["--backbone"]),
    (["train", "lpgnn", "--k", "100000"], ["--k", "1000"]),
    (["train", "lpgnn", "--k-y", "100000"], ["--k-y", "1000"]),
    (["train", "lpgnn", "--epochs", "1e9"], ["--epochs"]),
    (["train", "lpgnn", "--workers", "0"], ["--workers"]),
    (["train", "lpgnn", "--engine", "local", "--scheduler", "tcp://localhost:8786"], ["--scheduler"]),
])
def test_options_of_another_pipeline_or_table_and_oversized_ones_are_refused(argv, names, tmp_path, capsys,
                                                                             no_training):
    _refused([*argv, "--results", str(tmp_path)], capsys, *names)


@pytest.mark.parametrize("pipeline, extra, field", [("ppgnn", ["--k", "1"], "eps_x"),
                                                     ("ldp-ge", ["--task", "node"], "eps")])
def test_a_pipeline_with_one_budget_takes_it_as_eps(pipeline, extra, field, tmp_path, capsys):
    argv = ["train", pipeline, "--dataset", "csbm", "--eps", "2", *extra, "--epochs", "2", "--results",
            str(tmp_path), "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["config"][field] == 2.0


def test_results_default_to_the_user_data_folder_never_the_working_directory(tmp_path, capsys, monkeypatch):
    work = tmp_path / "checkout"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(KARATE) == 0
    assert list(work.iterdir()) == []
    assert len(list((tmp_path / "data-home" / "ldp-audit" / "train").rglob("seed0.json"))) == 1


# ------------------------------------------------------------------------------------------------ --plan

def test_the_wall_time_follows_the_drivers_first_free_worker_policy():
    assert common.simulated_wall_s([3.0, 1.0, 1.0, 1.0], 2) == 3.0  # 3 on one worker, 1 + 1 + 1 on the other
    assert common.simulated_wall_s([1.0, 1.0, 1.0, 3.0], 2) == 4.0  # the long task comes last
    assert common.simulated_wall_s([2.0] * 5, 1) == 10.0
    assert common.simulated_wall_s([2.0] * 5, 64) == 2.0 and common.simulated_wall_s([], 4) == 0.0
    numbers = common.estimate([["a", "b"], ["c"]], {"a": 1.0, "b": 2.0, "c": 4.0}.get, 2)
    assert numbers == {"cpu_s": 7.0, "cpu_hours": 7.0 / 3600, "wall_s": 4.0}


def test_plan_prints_the_grid_and_trains_nothing(tmp_path, capsys, monkeypatch):
    probed = []

    def probe(groups, shape_of, run_batch, device, data_dir, cache_dir, stacked, stored=(), say=None):
        configs = [c for group in groups for c in group]
        probed.extend(configs)
        return {shape_of(c): common.RunCost(0.5, 2.0 / c.epochs) for c in configs}  # 2.5 CPU-s a run

    monkeypatch.setattr(common, "probe_costs", probe)
    monkeypatch.setattr(sweep, "run_sweep", lambda *a, **k: pytest.fail("--plan trained"))
    results = tmp_path / "results"
    argv = ["reproduce", "lpgnn", "--quick", "--datasets", "cora", "--runs", "2", "--workers", "3",
            "--results", str(results), "--plan", "--json"]
    assert main(argv) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["runs"] == plan["to_train"] == len(probed) and plan["stored"] == 0
    assert plan["cpu_s"] == pytest.approx(2.5 * plan["runs"]) and plan["engine"] == "processes"
    assert plan["tasks"] < plan["runs"]  # runs of one model shape train together, as one stacked model
    assert plan["cpu_s"] / 3 <= plan["wall_s"] <= plan["cpu_s"]
    assert not results.exists() or not any(results.rglob("*.json"))
    assert main([*argv, "--engine", "local"]) == 2  # --workers 3 would be ignored there: refused (i22c)
    assert "--workers 3 needs --engine processes or dask" in capsys.readouterr().err
    assert main([*argv[:argv.index("--workers")], *argv[argv.index("--workers") + 2:], "--engine", "local"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert local["workers"] == 1 and local["wall_s"] == pytest.approx(local["cpu_s"])
    probed.clear()
    assert main(["reproduce", "ldp-ge", "--quick", "--results", str(results), "--plan", "--json"]) == 0
    ldp_ge = json.loads(capsys.readouterr().out)  # one task per run; its shapes are (dataset, task)
    assert ldp_ge["tasks"] == ldp_ge["runs"] == len(probed) and set(ldp_ge["cpu_s_per_run"]) == {"cora/link",
                                                                                                   "cora/node"}


def test_a_stacked_probe_trains_the_shapes_first_task_and_shares_its_time():
    configs = [RunConfig("csbm", eps_x=1.0, k_x=1, epochs=500, seed=s) for s in range(4)]
    sizes = []

    def stack(batch, device, cache):  # 0.05 CPU-s whatever the stack's size and epochs: a run's share is 1/3
        sizes.append(len(batch))
        started = time.process_time()
        while time.process_time() - started < 0.05:
            pass
        return []

    costs = common.probe_costs([configs[:3], configs[3:]], lambda c: c.dataset, stack, "cpu", None, None, True)
    assert sizes == [3, 3, 3]  # warm-up and two timed runs of the first task, whole
    assert costs["csbm"](500) == pytest.approx(0.05 / 3, rel=0.5)


def test_the_probe_times_two_short_real_runs_and_stores_nothing(tmp_path):
    configs = [RunConfig("csbm", eps_x=1.0, k_x=k, epochs=500, seed=s) for k in (1, 2) for s in (0, 1)]
    trained = []
    recorded = sweep.one_by_one(lambda c, *a: trained.append(c) or train_run(c, *a))
    costs = common.probe_costs([configs], lambda c: (c.dataset, c.model), recorded, "cpu", None, None)
    assert [c.epochs for c in trained] == [1, *common.PROBE_EPOCHS] and trained[0].k_x == 1  # warm-up, 2 timed
    cost = costs[("csbm", "lpgnn")]
    assert list(costs) == [("csbm", "lpgnn")] and cost.epoch_s > 0 and cost(500) > cost(40)
    assert not any(RunStore(tmp_path).done(c) for c in configs)
