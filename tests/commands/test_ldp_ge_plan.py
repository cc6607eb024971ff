"""--plan for a pipeline that stops early (LDP-GE): a run is charged the epochs it is expected to train (stored runs'
mean ``epochs_run``, else one probe run to its early stop), not its 1000-epoch budget."""
from __future__ import annotations

import pytest

from ldp_audit.commands.reproduce import common
from ldp_audit.models.training import RunConfig, RunResult, ldp_ge


def _fake_runner(trained: list, stops_at: int = 60):
    """A run_batch that records the epoch budgets it was given and stops every full run at ``stops_at``."""
    def run_batch(configs, device, cache):
        trained.extend(c.epochs for c in configs)
        return [RunResult(c, {"epochs_run": min(c.epochs, stops_at)}, {}, "cpu", "test", {}, 0.0) for c in configs]
    return run_batch


def _shape(config):
    return config.dataset, config.task


def test_without_stored_runs_a_few_random_probe_runs_of_the_shape_go_to_their_early_stop():
    configs = [ldp_ge.preset("csbm", "link", eps=eps, seed=s) for eps in (1.0, 2.0, 3.0) for s in range(4)]
    trained, stops = [], {1.0: 60, 2.0: 90, 3.0: 150}

    def run_batch(batch, device, cache):
        trained.extend((c.epochs, c) for c in batch)
        return [RunResult(c, {"epochs_run": min(c.epochs, stops[c.eps])}, {}, "cpu", "x", {}, 0.0) for c in batch]

    said = []
    costs = common.probe_costs([[c] for c in configs], _shape, run_batch, "cpu", None, None, say=said.append)
    to_stop = [c for e, c in trained if e == 1000]
    assert len(said) == 2 and said[0].startswith("plan: timing csbm/link: 1 probe task trained for 10 and 40")
    assert f"training {common.PROBE_STOP_RUNS} of them to their early stop" in said[1]  # the long part is named
    assert [e for e, _ in trained[:3]] == [1, *common.PROBE_EPOCHS]  # warm-up and two timed probes
    assert len(to_stop) == len(set(to_stop)) == common.PROBE_STOP_RUNS == len(trained) - 3
    cost = costs[("csbm", "link")]
    assert cost.expected_epochs == pytest.approx(sum(stops[c.eps] for c in to_stop) / len(to_stop))
    assert cost(1000) == pytest.approx(cost.setup_s + cost.expected_epochs * cost.epoch_s)


def test_stored_runs_give_the_expected_epochs_and_no_run_is_trained_to_its_end():
    configs = [ldp_ge.preset("csbm", "node", eps=1.0, seed=s) for s in range(2)]
    stored = [RunResult(ldp_ge.preset("csbm", "node", eps=5.0, seed=s), {"epochs_run": e}, {}, "cpu", "x", {}, 0.0)
              for s, e in enumerate((70, 90))]
    stored.append(RunResult(ldp_ge.preset("csbm", "link", eps=1.0), {"epochs_run": 400}, {}, "cpu", "x", {}, 0.0))
    trained, said = [], []
    costs = common.probe_costs([configs], _shape, _fake_runner(trained), "cpu", None, None, stored=stored,
                               say=said.append)
    assert len(said) == 1 and "early stop" not in said[0]  # nothing long to announce
    assert trained == [1, *common.PROBE_EPOCHS] and costs[("csbm", "node")].expected_epochs == 80  # node runs only


def test_a_pipeline_without_early_stopping_is_charged_its_epoch_budget():
    configs = [RunConfig("csbm", eps_x=1.0, k_x=1, epochs=500)]
    trained = []
    costs = common.probe_costs([configs], lambda c: c.dataset, _fake_runner(trained), "cpu", None, None)
    assert trained == [1, *common.PROBE_EPOCHS] and costs["csbm"].expected_epochs is None
    assert costs["csbm"](500) == pytest.approx(costs["csbm"].setup_s + 500 * costs["csbm"].epoch_s)
