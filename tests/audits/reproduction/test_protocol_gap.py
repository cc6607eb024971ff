"""The one attribution of ``reproduce --protocol both`` (issue 26), shared by the GNN papers and LDP-GE: which cells
it attributes, how its grids are named, its rows (INCONCLUSIVE while unfinished, compound switches after the
others), the CI on the attribution's own stream, and --plan counting the attribution runs the report trains.
Measurements are fabricated (no training)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import bootstrap

from ldp_audit import streams
from ldp_audit.audits.kernel.result import Status
from ldp_audit.audits.reproduction.protocol_gap import (ATTRIBUTION_SEED, attributed_cells, attribution_configs,
                                                        attribution_rows, cell_attribution_rows, switch_grid)
from ldp_audit.cli import main
from ldp_audit.models.training import RunConfig
from ldp_audit.models.training.protocols import protocol
from ldp_audit.seeding import rng_for

PPGNN = protocol("ppgnn", "released")


def _config(seed, eps=1.0):
    return RunConfig("cora", mechanism="mb", eps_x=eps, k_x=2, seed=seed)


def test_the_cells_whose_protocols_differ_most_are_attributed_and_planning_adds_the_unfinished():
    scores = {"s1": [50, 52], "r1": [51, 53], "s2": [50, 50], "r2": [80, 82], "s3": [60, 60], "r3": None,
              "s4": [40, 40], "r4": [30, 30]}
    pairs = [("s1", "r1"), ("s2", "r2"), ("s3", "r3"), ("s4", "r4")]
    runs = lambda spec, released: [_config(0), _config(1)]  # noqa: E731
    chosen = attributed_cells(pairs, scores.get, runs, PPGNN, count=2)
    assert [(c.spec, c.released) for c in chosen] == [("s2", "r2"), ("s4", "r4")]  # gaps 31 and 10; r3 unfinished
    assert [c.spec for c in attributed_cells(pairs, scores.get, runs, PPGNN, count=4)] == ["s2", "s4", "s1"]
    planned = attributed_cells(pairs, scores.get, runs, PPGNN, planning=True, count=4)
    assert [c.spec for c in planned] == ["s2", "s4", "s1", "s3"]  # the unfinished pair after the finished
    assert all(len(c.grid) == 2 and c.grid[0]["released"] == PPGNN.apply(_config(0)) for c in planned)
    configs = attribution_configs(planned)
    assert len(configs) == len(set(configs)) == len({c for cell in planned for g in cell.grid for c in g.values()})


def test_a_switch_that_takes_other_elements_along_is_named_after_them():
    from ldp_audit.models.training import ldp_ge

    released = protocol("ldp-ge", "released")
    grid = switch_grid(ldp_ge.preset("cora", "link", mechanism="LP", method="auto", seed=0), released)
    assert "method -> spec (push_threshold, push_signs, push_leftover with it)" in grid
    assert all(name == "released" or name.endswith(" -> spec") for name in switch_grid(_config(0), PPGNN))


def _grid(n):
    return [{"released": ("released", i), "a -> spec": ("a", i), "b -> spec (a with it)": ("ab", i)}
            for i in range(n)]


def test_cell_rows_are_inconclusive_while_a_switched_run_is_missing():
    scores = {("released", 0): 1.0, ("a", 0): 2.0, ("ab", 0): 3.0, ("released", 1): 1.0, ("a", 1): 2.0}
    [row] = cell_attribution_rows("cora MB eps=1", [0, 0], [1, 1], _grid(2), scores.get, {"table": "t", "k": 2})
    assert row.status is Status.INCONCLUSIVE and row.name == "cora MB eps=1 attribution"
    assert row.details == {"table": "t", "k": 2, "kind": "attribution"}


def test_cell_rows_put_compound_switches_after_the_others_and_count_them_once():
    released, spec = np.array([50.0, 51, 52]), np.array([70.0, 71, 72])
    scores = {("a", i): released[i] + 15 for i in range(3)} | {("ab", i): released[i] + 15 for i in range(3)}
    extra = {"k_grid -> spec": list(released + 5)}
    rows = cell_attribution_rows("c", spec, released, _grid(3), scores.get, {}, extra)
    assert [r.details["element"] for r in rows] == ["a -> spec", "k_grid -> spec", "b -> spec (a with it)",
                                                    "whole gap"]
    assert rows[-1].details["explained"] == pytest.approx(20.0) and rows[-1].details["unexplained"] == \
        pytest.approx(0.0)


def test_attribution_cis_draw_from_the_attributions_own_registered_stream():
    diff = np.random.default_rng(0).normal(3.0, 2.0, 20)  # continuous: two streams give two different CIs
    [row, _] = attribution_rows("c", diff, np.zeros(20), {"x -> spec": diff}, {})
    expected = bootstrap((diff,), np.mean, confidence_level=0.95, n_resamples=1000, method="percentile",
                         random_state=rng_for(ATTRIBUTION_SEED, *streams.REPRODUCTION_ATTRIBUTION.key()))
    assert row.interval == (expected.confidence_interval.low, expected.confidence_interval.high)
    assert row.seed == ATTRIBUTION_SEED
    from ldp_audit.audits.reproduction.ppgnn import C17_SEED, paired_ci

    assert ATTRIBUTION_SEED != C17_SEED and row.interval != paired_ci(diff, 0.05)  # not C17's stream
    assert streams.REPRODUCTION_ATTRIBUTION in streams.FAMILIES


def test_c17s_paired_ci_is_the_kernels_on_c17s_stream():
    from ldp_audit.audits.kernel.stats import paired_mean_ci
    from ldp_audit.audits.reproduction.ppgnn import C17_SEED, paired_ci

    diff = np.array([1.0, 4.0, 2.0, 8.0, 3.0])
    ci = bootstrap((diff,), np.mean, confidence_level=0.95, n_resamples=1000, method="percentile",
                   random_state=np.random.default_rng(C17_SEED)).confidence_interval
    assert paired_ci(diff, 0.05) == paired_mean_ci(diff, 0.05, C17_SEED) == (ci.low, ci.high)
    assert paired_mean_ci(np.full(4, 2.0), 0.05, 1) == (2.0, 2.0)


# ----- --plan counts the attribution runs the report trains ------------------------------------------------------

def _run(argv):
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def _fake_results(configs, score):
    from ldp_audit.models.training import RunResult

    return {c: RunResult(c, {"val_acc": score(c), "test_acc": score(c), "test_auc": score(c)}, {}, "cpu", "cpu",
                         {}, 0.0, {"num_nodes": 2708, "in_features": 1433, "propagation": "push", "k": None})
            for c in configs}


def _gnn_score(config):
    return 0.5 + 0.2 * (config.objective == "saturating") + 0.01 * config.seed + 0.001 * (config.k_x or 0)


def _ldp_ge_score(config):
    return 0.6 + 0.1 * (config.report_units == "raw") + 0.01 * config.seed


@pytest.mark.parametrize("paper, extra, score, new_runs", [
    ("ppgnn", ["--mechanisms", "MB", "PPM"], _gnn_score, True),
    ("lpgnn", ["--datasets", "cora"], _gnn_score, False),  # at a K of both grids its switches are the spec's runs
    ("ldp-ge", [], _ldp_ge_score, True),
])
def test_the_plan_counts_every_run_the_report_trains_attribution_included(paper, extra, score, new_runs,
                                                                          monkeypatch, tmp_path, capsys):
    from ldp_audit.commands.reproduce import common
    from ldp_audit.models.training import sweep

    trained = []

    def fake_sweep(configs, *args, **kwargs):
        trained.extend(configs)
        return _fake_results(configs, score)

    monkeypatch.setattr(sweep, "run_sweep", fake_sweep)
    monkeypatch.setattr(common, "probe_costs", lambda groups, shape_of, *a, **k: {
        shape_of(c): common.RunCost(0.0, 0.0) for g in groups for c in g})
    argv = ["reproduce", paper, "--quick", "--runs", "2", "--protocol", "both", "--results", str(tmp_path),
            "--json", "--device", "cpu", "--data-dir", str(tmp_path / "none"), *extra]
    assert _run([*argv, "--plan"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert _run(argv) in (0, 1, 4)  # a verdict (4: inconclusive)
    report = json.loads(capsys.readouterr().out)
    assert any(r["name"].endswith("attribution: whole gap") for r in report["results"])
    assert plan["runs"] == len(set(trained))
    tables = int(report["settings"]["runs finished"].split("/")[1])
    assert (plan["runs"] > tables) == new_runs  # the attribution's switched runs are counted, not only the tables'
