"""--plan on a grid whose runs differ in K (issue 24: estimates within 30 % of the measured time): a stacked shape
is probed on its cheapest and its dearest task, and each run is charged for its own propagation steps."""
from __future__ import annotations

import time

import pytest

from ldp_audit.commands.reproduce import common
from ldp_audit.models.training import RunConfig

#: CPU-seconds per run, per epoch and per propagation step, of the fake stacked runner below.
PER_STEP_EPOCH = 2e-4


def _busy_stack(probed: list):
    def stack(batch, device, cache):  # a run costs PER_STEP_EPOCH * K * epochs, nothing else
        probed.append(sorted({c.k_x for c in batch}))
        started, seconds = time.process_time(), PER_STEP_EPOCH * sum(c.k_x * c.epochs for c in batch)
        while time.process_time() - started < seconds:
            pass
        return []
    return stack


def _grid():
    runs = lambda k: [RunConfig("csbm", eps_x=1.0, k_x=k, epochs=500, seed=s) for s in range(2)]  # noqa: E731
    return [runs(1), runs(4), runs(32)]


def test_a_stacked_probe_times_the_cheapest_and_dearest_tasks_and_charges_each_run_its_steps():
    probed, said = [], []
    costs = common.probe_costs(_grid(), lambda c: c.dataset, _busy_stack(probed), "cpu", None, None, True,
                               say=said.append)
    assert probed == [[1]] * 3 + [[32]] * 3  # warm-up and two timed runs of each, never the middle task
    assert said == ["plan: timing csbm (raw, multibit): 2 probe tasks trained for 10 and 40 epochs, or 2 and 5 if "
                    "its 1-epoch warm-up says that takes over 600 CPU-s (not stored)"]
    cost = costs["csbm"]
    for k in (1, 4, 32):
        assert cost(500, k) == pytest.approx(PER_STEP_EPOCH * k * 500, rel=0.3)


def test_charging_every_run_the_first_tasks_cost_would_miss_the_grid_by_far():
    """Power: the estimate of the old probe (first task only, K = 1) is off by more than the 30 % the issue allows."""
    costs = common.probe_costs(_grid(), lambda c: c.dataset, _busy_stack([]), "cpu", None, None, True)
    measured = PER_STEP_EPOCH * 500 * 2 * (1 + 4 + 32)
    planned = common.estimate(_grid(), lambda c: costs["csbm"](c.epochs, common.propagation_steps(c)), 1)["cpu_s"]
    first_task_only = common.estimate(_grid(), lambda c: costs["csbm"](c.epochs, 1), 1)["cpu_s"]
    assert planned == pytest.approx(measured, rel=0.3)
    assert first_task_only < 0.5 * measured


def test_runs_without_steps_and_unstacked_probes_keep_one_cost():
    probed = []
    configs = [RunConfig("csbm", eps_x=1.0, k_x=k, epochs=50, seed=0) for k in (1, 1)]
    costs = common.probe_costs([configs], lambda c: c.dataset, _busy_stack(probed), "cpu", None, None, False)
    assert probed == [[1]] * 3 and costs["csbm"].epoch_per_step == 0.0
    assert common.propagation_steps(object()) == 0  # configs without K_x / K_y (ldp-ge)


def test_feature_sources_are_probed_apart():
    """Dense RND reports cost more per pass than sparse multi-bit ones at the same K: each source its own probe."""
    probed = []
    configs = [[RunConfig("csbm", eps_x=1.0, k_x=2, epochs=50, seed=s) for s in range(2)],
               [RunConfig("csbm", features="rnd", k_x=2, epochs=50, seed=s) for s in range(2)]]
    costs = common.probe_costs(configs, lambda c: c.dataset, _busy_stack(probed), "cpu", None, None, True)
    assert len(probed) == 6 and set(costs["csbm"].by_class) == {("raw", "multibit"), ("rnd", None)}
