"""LDP-GE as a pipeline of the one training core: its stored runs (the former ``ldp-ge-run`` schema) still load
under their folders, a new run round-trips through the one run store and the one sweep (same numbers on local and
a process pool), the logistic-regression downstream model, the shared client-side perturbation, bad options."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from ldp_audit.audits.kernel.engines import DaskEngine, LocalEngine, ProcessEngine
from ldp_audit.cli import main
from ldp_audit.mechanisms import make
from ldp_audit.models.perturbation import as_dense, server_estimates
from ldp_audit.models.training import RunConfig, RunResult, RunStore, ldp_ge, sweep
from ldp_audit.models.training.config import config_type
from ldp_audit.models.training.ldp_ge_models import link_model, node_model
from ldp_audit.models.training.train import train_configs, train_run

torch.set_num_threads(1)

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "ldp_ge"
OLD_RUNS = sorted(p for p in RESULTS.rglob("seed*.json")
                  if json.loads(p.read_text())["schema"] == "ldp-audit/ldp-ge-run")


def _config(**changes):
    """A short LDP-GE run on the embedded CSBM dataset (every worker process can load it)."""
    return ldp_ge.preset("csbm", changes.pop("task", "link"), epochs=5, patience=3, **changes)


# ----------------------------------------------------------------------------------------- stored runs

def test_there_are_old_schema_runs_to_read():
    assert len(OLD_RUNS) > 150


def test_every_old_schema_run_loads_under_its_folder_with_its_numbers():
    for path in OLD_RUNS:
        old = json.loads(path.read_text())
        result = RunResult.from_dict(old)
        assert isinstance(result.config, ldp_ge.LdpGeConfig) and path.parent.name == result.config.key()
        assert result.test_score == old["metrics"]["test"] and result.val_score == old["metrics"]["val"]
        assert result.curves == {f"val_{result.config.metric}": old["val_curve"]}
        assert result.device == old["extra"]["device"] and "device" not in result.extra
        assert result.extra["propagation"] == old["extra"]["propagation"]
    store = RunStore(OLD_RUNS[0].parents[2])  # ROOT/<dataset>/<key>/seedS.json
    result = RunResult.from_dict(json.loads(OLD_RUNS[0].read_text()))
    assert store.load(result.config) == result


def test_old_keys_are_kept_and_downstream_enters_the_key_only_when_set():
    config = ldp_ge.preset("cora", "link", eps=1.0, method="auto")
    assert replace(config, downstream="mlp").key() == config.key()
    assert replace(config, downstream="logreg").key() != config.key()
    assert "downstream" not in config.keyed_fields() and "rescale" not in config.keyed_fields()
    assert replace(config, rescale=True).key() != config.key()


# ----------------------------------------------------------------------------------- one store, one sweep

@pytest.mark.parametrize("task, metric", [("link", "auc"), ("node", "acc")])
def test_a_new_run_round_trips_through_the_one_store_in_the_one_schema(tmp_path, task, metric):
    config = _config(task=task, eps=1.0)
    result = train_run(config, "cpu")
    data = json.loads(json.dumps(result.to_dict()))
    assert data["schema"] == "ldp-audit/training-run" and data["pipeline"] == "ldp-ge"
    assert set(data["metrics"]) == {f"val_{metric}", f"test_{metric}", "epoch", "epochs_run"}
    assert data["curves"].keys() == {f"val_{metric}"} and data["device"] == "cpu"
    store = RunStore(tmp_path)
    store.save(result)
    assert store.load(config) == result and store.path(config).parent.name == config.key()
    assert store.load(replace(config, seed=1)) is None
    gnn = RunConfig("csbm", eps_x=1.0, k_x=1, epochs=2)
    assert RunResult.from_dict(json.loads(json.dumps(train_run(gnn, "cpu").to_dict()))).config == gnn
    assert config_type("gnn") is RunConfig and config_type("ldp-ge") is ldp_ge.LdpGeConfig


def test_ldp_ge_runs_give_the_same_numbers_on_local_a_process_pool_and_dask(tmp_path, dask_client):
    configs = [_config(eps=1.0, seed=0), _config(task="node", eps=1.0, mechanism="MB", seed=1)]
    runs = {}
    for name, engine in (("local", LocalEngine()), ("processes", ProcessEngine(2, start_method="fork")),
                         ("dask", DaskEngine(client=dask_client))):
        with engine:
            runs[name] = sweep.run_sweep(configs, RunStore(tmp_path / name), engine, "cpu")
    numbers = {name: {c: (r.metrics, r.curves) for c, r in results.items()} for name, results in runs.items()}
    assert set(numbers["local"]) == set(configs) and numbers["local"] == numbers["processes"] == numbers["dask"]
    assert RunStore(tmp_path / "processes").load(configs[1]).metrics == runs["local"][configs[1]].metrics


def test_one_task_trains_one_pipeline():
    with pytest.raises(ValueError, match="one pipeline"):
        train_configs([_config(), RunConfig("csbm")], "cpu")


# ------------------------------------------------------------------------------------ downstream model

def test_logistic_regression_is_one_linear_layer_with_a_bias():
    node = node_model(24, 3, "logreg", layers=3, hidden=64, dropout=0.5)
    assert isinstance(node, torch.nn.Linear) and node.bias is not None
    assert sum(p.numel() for p in node.parameters()) == 24 * 3 + 3
    link = link_model(24, "logreg", layers=3, hidden=64, dropout=0.5)
    linears = [m for m in link.modules() if isinstance(m, torch.nn.Linear)]
    assert len(linears) == 1 and linears[0].out_features == 1 and isinstance(link[-1], torch.nn.Sigmoid)
    mlp = node_model(24, 3, "mlp", layers=3, hidden=64, dropout=0.5)
    assert len([m for m in mlp.modules() if isinstance(m, torch.nn.Linear)]) == 3  # the mutant: not logistic


@pytest.mark.parametrize("task", ["node", "link"])
def test_the_logistic_downstream_changes_the_run(task):
    graph = ldp_ge.datasets.load("csbm")
    mlp = ldp_ge.run_ldp_ge(_config(task=task, eps=2.0), graph)
    logreg = ldp_ge.run_ldp_ge(_config(task=task, eps=2.0, downstream="logreg"), graph)
    assert logreg.config.key() != mlp.config.key() and logreg.curves != mlp.curves
    assert 0.0 <= logreg.test_score <= 1.0


# ------------------------------------------------------------------------------ client-side perturbation

def test_one_perturbation_face_maps_a_box_and_reports_sparsely_with_the_same_draws():
    x = np.random.default_rng(1).random((50, 8))
    laplace = make("laplace_hd", eps=1.0, d=8)  # works on [-1, 1]
    lo, hi = laplace.domain
    old = (laplace.estimate(laplace.perturb(lo + (hi - lo) * x, np.random.default_rng(2))) - lo) / (hi - lo)
    assert np.array_equal(server_estimates(laplace, x, np.random.default_rng(2), box=(0.0, 1.0)), old)
    multibit = make("multibit", eps=1.0, d=8, k=2, alpha=0.0, beta=1.0)
    dense = multibit.estimate(multibit.perturb(x, np.random.default_rng(3)))
    assert np.array_equal(as_dense(server_estimates(multibit, x, np.random.default_rng(3), box=(0.0, 1.0))), dense)


# ------------------------------------------------------------------------------------------- bad input

def test_a_bad_downstream_names_the_parameter():
    with pytest.raises(ValueError, match="^downstream must be mlp or logreg, got 'svm'"):
        ldp_ge.LdpGeConfig("cora", downstream="svm")


@pytest.mark.parametrize("argv, text", [
    (["train", "ldp-ge", "--downstream", "svm"], "--downstream"),
    (["train", "lpgnn", "--downstream", "logreg"], "--downstream: not an option of train lpgnn"),
    (["reproduce", "lpgnn", "--downstream", "logreg", "--plan"], "--downstream: ldp-ge only")])
def test_cli_refuses_a_bad_or_foreign_downstream_with_exit_2(argv, text, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    assert code == 2 and text in capsys.readouterr().err
