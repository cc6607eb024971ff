"""--plan for a pipeline that stops early (LDP-GE): a run is charged the epochs it is expected to train (its cell's
stored runs' mean ``epochs_run``, else that of a few probe runs of the cells with none, trained to their early stop),
not its 1000-epoch budget."""
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


def _stored(config, epochs_run):
    return RunResult(config, {"epochs_run": epochs_run}, {}, "cpu", "x", {}, 0.0)


def test_a_cells_stored_runs_give_its_expected_epochs_and_no_run_is_trained_to_its_end():
    configs = [ldp_ge.preset("csbm", "node", eps=1.0, seed=s) for s in range(2, 4)]
    stored = [_stored(ldp_ge.preset("csbm", "node", eps=1.0, seed=s), e) for s, e in enumerate((70, 90))]
    stored.append(_stored(ldp_ge.preset("csbm", "link", eps=1.0), 400))  # another shape
    trained, said = [], []
    costs = common.probe_costs([configs], _shape, _fake_runner(trained), "cpu", None, None, stored=stored,
                               say=said.append)
    assert len(said) == 1 and "early stop" not in said[0]  # nothing long to announce
    cost = costs[("csbm", "node")]
    assert trained == [1, *common.PROBE_EPOCHS] and cost.expected_epochs is None
    assert cost.charged(1000, common.cell_of(configs[0])) == 80  # the cell's own runs: 70 and 90


def test_stored_runs_of_other_cells_do_not_stand_for_a_cell_without_any():
    """PubMed link: 10 stored LP runs (51-110 epochs) charged every PM run as long, 4x short of its 361-391."""
    lp = [ldp_ge.preset("csbm", "link", mechanism="LP", eps=1.0, seed=s) for s in range(3)]
    pm = [ldp_ge.preset("csbm", "link", mechanism="PM", eps=1.0, seed=s) for s in range(3)]
    stored = [_stored(config, 60) for config in lp[:2]]
    trained = []

    def run_batch(batch, device, cache):
        trained.extend((c.epochs, c) for c in batch)
        return [RunResult(c, {"epochs_run": min(c.epochs, 240 if c.mechanism == "PM" else 60)}, {}, "cpu", "x", {},
                          0.0) for c in batch]

    costs = common.probe_costs([[c] for c in lp[2:] + pm], _shape, run_batch, "cpu", None, None, stored=stored)
    cost = costs[("csbm", "link")]
    assert sorted(c.mechanism for e, c in trained if e == 1000) == ["PM"] * 3  # only cells with no stored run
    assert cost.charged(1000, common.cell_of(lp[2])) == 60 and cost.charged(1000, common.cell_of(pm[0])) == 240
    assert cost(1000) == pytest.approx(cost.setup_s + 240 * cost.epoch_s)


def test_a_pipeline_without_early_stopping_is_charged_its_epoch_budget():
    configs = [RunConfig("csbm", eps_x=1.0, k_x=1, epochs=500)]
    trained = []
    costs = common.probe_costs([configs], lambda c: c.dataset, _fake_runner(trained), "cpu", None, None)
    assert trained == [1, *common.PROBE_EPOCHS] and costs["csbm"].expected_epochs is None
    assert costs["csbm"](500) == pytest.approx(costs["csbm"].setup_s + 500 * costs["csbm"].epoch_s)


def test_a_shape_over_the_probe_budget_is_timed_on_short_probes_and_charged_a_lower_bound(monkeypatch):
    """Facebook's released link runs (80 CPU-s of set-up and propagation, 18 an epoch): the 10- and 40-epoch
    probes and four runs to their early stop kept --plan busy for more than 17 minutes. Past the budget the probes are short and
    no run is trained to its stop; the plan says its estimate is a lower bound."""
    monkeypatch.setattr(common, "PROBE_BUDGET_S", -1.0)  # every probe is over it
    configs = [ldp_ge.preset("csbm", "link", eps=eps, seed=s) for eps in (1.0, 2.0) for s in range(3)]
    trained, said = [], []
    costs = common.probe_costs([[c] for c in configs], _shape, _fake_runner(trained), "cpu", None, None,
                               say=said.append)
    cost = costs[("csbm", "link")]
    assert trained == [1, *common.SHORT_PROBE_EPOCHS]  # warm-up and two short probes, no run to its stop
    assert cost.probe_epochs == common.SHORT_PROBE_EPOCHS and cost.lower_bound
    assert cost.expected_epochs == configs[0].patience + 1 == cost.charged(1000)
    assert "each is charged the fewest epochs it can run (51), so the estimate is a lower bound" in said[-1]


def test_the_plan_prints_which_probes_ran_and_that_its_estimate_is_a_lower_bound(tmp_path, capsys):
    from rich.console import Console

    from ldp_audit.models.training import RunStore, sweep

    configs = [ldp_ge.preset("csbm", "link", eps=1.0, seed=s) for s in range(2)]
    plan, _ = sweep.plan_sweep(configs, RunStore(tmp_path), None, lambda c: c.dataset, 1)
    costs = {("csbm", "link"): common.RunCost(10.0, 2.0, expected_epochs=51.0, probe_epochs=(2, 5),
                                              lower_bound=True)}
    common.print_plan(Console(width=400), "t", plan, costs, _shape, "local", 1, json_out=False)
    text = capsys.readouterr().out
    assert "(a 2- and a 5-epoch run of a shape's first run" in text
    assert "lower bound for csbm/link" in text and "estimate: at least " in text
    common.print_plan(Console(), "t", plan, costs, _shape, "local", 1, json_out=True)
    assert '"lower_bound_for": ["csbm/link"]' in capsys.readouterr().out
    exact = {("csbm", "link"): common.RunCost(10.0, 2.0, expected_epochs=60.0)}
    common.print_plan(Console(width=400), "t", plan, exact, _shape, "local", 1, json_out=False)
    text = capsys.readouterr().out
    assert "lower bound" not in text and "at least" not in text and "(a 10- and a 40-epoch run" in text

