"""LDP-GE's released protocol (issue 26): each element changes what it claims to change (the released push's
relative threshold, split signs and leftover residue; report units; initial weights; the link graph), the preset
round-trips and leaves stored keys alone, and the attribution recovers a synthetic two-element difference.
CPU only, seconds."""
from __future__ import annotations

from argparse import Namespace
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from ldp_audit.audits.reproduction.ldp_ge import attribution_grids, ldp_ge_attribution_rows
from ldp_audit.commands.reproduce.ldp_ge import plan
from ldp_audit.models import propagation as prop
from ldp_audit.models.synthetic import karate
from ldp_audit.models.training import ldp_ge
from ldp_audit.models.training.ldp_ge_models import link_model, node_model
from ldp_audit.models.training.protocols import Protocol, one_at_a_time, protocol

RELEASED = protocol("ldp-ge", "released")


@pytest.fixture(scope="module")
def club():
    return karate().adjacency


# ------------------------------------------------------------------------------------------------- the push

def test_the_relative_threshold_is_scale_free_and_the_absolute_one_is_not(club):
    x = np.random.default_rng(0).uniform(0, 1, size=(club.shape[0], 3))
    small, large = (prop.released_push(club, s * x, 0.1, 0.5, 1e-3, True, False, False) for s in (1.0, 1000.0))
    assert small.pushes == large.pushes and np.allclose(large.z, 1000.0 * small.z)
    absolute = [prop.released_push(club, s * x, 0.1, 0.5, 1e-3, False, False, False) for s in (1.0, 1000.0)]
    assert absolute[1].pushes > absolute[0].pushes  # the fixed threshold pushes a scaled column further
    # relative: every residue left is below r_max times its column's total residue, far above r_max itself here
    mass = (1000.0 * x * prop.safe_degrees(club)[:, None] ** -0.5).sum(axis=0)
    assert 1e-3 < large.max_residual <= 1e-3 * mass.max()


def test_split_signs_push_each_sign_apart_and_differ_from_the_joint_push(club):
    x = np.random.default_rng(1).uniform(-1, 1, size=(club.shape[0], 4))
    split = prop.released_push(club, x, 0.1, 0.5, 1e-2, True, True, True).z
    positive = prop.released_push(club, np.maximum(x, 0), 0.1, 0.5, 1e-2, True, False, True).z
    negative = prop.released_push(club, np.maximum(-x, 0), 0.1, 0.5, 1e-2, True, False, True).z
    assert np.allclose(split, positive - negative)
    joint = prop.released_push(club, x, 0.1, 0.5, 1e-2, True, False, True).z
    assert not np.allclose(split, joint)
    exact = prop.ppr_exact(club, 0.1, 0.5) @ x  # both still approximate Pi X
    assert np.abs(split - exact).max() < 0.2 and np.abs(joint - exact).max() < 0.2


def test_the_leftover_residue_is_in_the_output(club):
    x = np.random.default_rng(2).uniform(-1, 1, size=(club.shape[0], 2))
    untouched = dict(relative=False, split_signs=False)  # a threshold nothing exceeds: no push at all
    with_leftover = prop.released_push(club, x, 0.2, 0.5, 1e9, residual_correction=True, **untouched)
    without = prop.released_push(club, x, 0.2, 0.5, 1e9, residual_correction=False, **untouched)
    assert with_leftover.pushes == 0 and np.allclose(with_leftover.z, 0.2 * x) and np.allclose(without.z, 0.0)


def test_per_column_thresholds_stop_each_column_at_its_own_limit(club):
    x = np.ones((club.shape[0], 2))
    both = prop.backward_push(club, x, 0.1, 0.5, np.array([1e-6, 1e-1]))
    assert np.allclose(both.z[:, 0], prop.backward_push(club, x[:, :1], 0.1, 0.5, 1e-6).z[:, 0])
    assert np.allclose(both.z[:, 1], prop.backward_push(club, x[:, 1:], 0.1, 0.5, 1e-1).z[:, 0])
    with pytest.raises(ValueError, match="r_max"):
        prop.backward_push(club, x, 0.1, 0.5, np.array([1e-3, 0.0]))


@pytest.mark.parametrize("r_max, message", [(np.array([1e-3, 1e-3, 1e-3]), r"r_max per column.*\(2,\)"),
                                            (np.full((2, 1), 1e-3), r"r_max .*shape \(d,\)"),
                                            ("tight", r"r_max .*shape \(d,\)"), ([1e-3, "x"], "r_max")])
def test_a_malformed_r_max_is_a_clear_error(club, r_max, message):
    with pytest.raises(ValueError, match=message):
        prop.backward_push(club, np.ones((club.shape[0], 2)), 0.1, 0.5, r_max)


@pytest.mark.parametrize("relative, split, leftover", [(False, False, False), (True, False, False),
                                                       (False, True, False), (True, True, True)])
def test_the_released_push_stays_within_its_error_bound(club, relative, split, leftover):
    x = np.random.default_rng(3).uniform(-1, 1, (club.shape[0], 3))
    exact = prop.ppr_exact(club, 0.1, 0.5) @ x
    out = prop.released_push(club, x, 0.1, 0.5, 1e-2, relative, split, leftover)
    error = np.abs(out.z - exact)
    assert error.max() > 1e-6  # a loose threshold: the bound is exercised, not trivially met
    assert (error <= out.error_bound[:, None] + 1e-12).all()  # one bound per row (node)


def test_the_server_pushes_with_the_released_switches_only_when_asked(club):
    x = np.random.default_rng(3).uniform(-1, 1, size=(club.shape[0], 3))
    spec = ldp_ge.preset("cora", "link", r_max=1e-3)
    released = replace(spec, push_threshold="relative", push_signs="split", push_leftover=True)
    assert np.allclose(ldp_ge.server_embedding(x, club, spec), prop.backward_push(club, x, 0.1, 0.5, 1e-3).z)
    assert np.allclose(ldp_ge.server_embedding(x, club, released),
                       prop.released_push(club, x, 0.1, 0.5, 1e-3).z)
    assert not np.allclose(ldp_ge.server_embedding(x, club, released), ldp_ge.server_embedding(x, club, spec))


# ------------------------------------------------------------------------------------------------- the reports

def test_raw_report_units_map_sampled_coordinates_back_and_leave_the_rest_at_zero():
    estimates = np.array([[3100.0, 0.0, -3100.0], [0.0, 0.0, 0.5]])
    mb = ldp_ge.preset("cora", "link", mechanism="MB", report_units="raw")
    assert np.allclose(ldp_ge.in_report_units(estimates, mb, (0.0, 1.0)), [[1550.5, 0, -1549.5], [0, 0, 0.75]])
    lp = replace(mb, mechanism="LP")  # LP samples no coordinate: every one is mapped, 0 -> (lo + hi) / 2
    assert np.allclose(ldp_ge.in_report_units(estimates, lp, (0.0, 1.0))[1], [0.5, 0.5, 0.75])
    assert np.allclose(ldp_ge.in_report_units(estimates, mb, (2.0, 6.0))[0], [6204.0, 0, -6196.0])
    spec = replace(mb, report_units="unit")
    assert ldp_ge.in_report_units(estimates, spec, (0.0, 1.0)) is estimates


def test_raw_report_units_without_a_mechanism_are_the_raw_features():
    graph = SimpleNamespace(x=np.array([[0.0, 3.0]]), normalized_features=lambda clip: np.array([[-1.0, 1.0]]),
                            feature_range=(0.0, 3.0))
    clear = ldp_ge.preset("cora", "link", eps=None)
    assert np.allclose(ldp_ge.client_reports(graph, clear, None), [[-1.0, 1.0]])
    assert np.allclose(ldp_ge.client_reports(graph, replace(clear, report_units="raw"), None), [[0.0, 3.0]])


def _graph_with(x: np.ndarray):
    from scipy import sparse
    from ldp_audit.models import data as datasets

    graph = datasets.load("csbm")
    return replace(graph, x=sparse.csr_matrix(x[:graph.num_nodes]))


def test_l1_feature_rows_sum_to_one_and_raw_rows_are_untouched():
    x = np.random.default_rng(4).integers(0, 2, size=(1000, 12)).astype(float)
    x[0] = 0.0  # a row of zeros stays zero
    graph = _graph_with(x)
    clear = ldp_ge.preset("csbm", "link", eps=None, raw_clear=True)
    l1 = ldp_ge.client_reports(graph, replace(clear, feature_rows="l1"), None)
    assert np.allclose(l1[1:].sum(axis=1), 1.0) and not l1[0].any()
    assert np.allclose(l1[1:] * x[1:].sum(axis=1, keepdims=True), x[1:])  # each row divided by its own norm
    assert np.array_equal(ldp_ge.client_reports(graph, clear, None), x)


def test_column_bounds_follow_each_columns_data_and_public_bounds_do_not():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 2, size=(1000, 6)).astype(float)
    x[0], x[1] = 0.0, 1.0  # every column holds a 0 and a 1: both bounds map x alike
    scaled = x * np.array([1.0, 0.5, 0.25, 1.0, 0.1, 1.0])
    mb = ldp_ge.preset("csbm", "link", mechanism="MB", eps=1.0, report_units="raw")
    columns = replace(mb, feature_bounds="columns")
    reports = {name: ldp_ge.client_reports(_graph_with(data), config, np.random.default_rng(6))
               for name, data, config in (("binary", x, columns), ("scaled", scaled, columns),
                                          ("public", x, mb), ("public scaled", scaled, mb))}
    assert np.array_equal(reports["binary"], reports["public"])
    # the same draws, each column's raw report shrunk by its own maximum (its minimum is 0)
    assert np.allclose(reports["scaled"], reports["binary"] * np.array([1.0, 0.5, 0.25, 1.0, 0.1, 1.0]))
    assert not np.allclose(reports["public scaled"], reports["scaled"])
    unit, (lo, hi) = ldp_ge.unit_features(_graph_with(scaled), columns)
    assert np.allclose(hi, [1.0, 0.5, 0.25, 1.0, 0.1, 1.0]) and unit.min() == -1.0 and unit.max() == 1.0


def test_a_constant_column_keeps_its_raw_value_under_column_bounds():
    x = np.random.default_rng(7).integers(0, 2, size=(1000, 3)).astype(float)
    x[:, 1] = 0.5
    columns = ldp_ge.preset("csbm", "link", eps=None, feature_bounds="columns")
    unit, (lo, hi) = ldp_ge.unit_features(_graph_with(x), columns)
    assert np.all(unit[:, 1] == 0.5) and lo[1] == hi[1] == 0.5
    assert np.allclose(ldp_ge.client_reports(_graph_with(x), columns, None)[:, 0], 2 * x[:, 0] - 1)


def test_a_report_warns_of_runs_that_are_not_ldp_or_leak_and_keeps_its_verdict():
    from ldp_audit.audits.kernel.result import Status
    from ldp_audit.audits.reproduction.ldp_ge import ldp_ge_report
    from ldp_audit.models.training.store import RunResult

    def report(**changes):
        cells = [replace(cell, configs=tuple(replace(c, **changes) for c in cell.configs))
                 for cell in ldp_ge.protocol_cells(runs=2)]
        results = {c: RunResult(c, {f"test_{c.metric}": 0.8}, {}, "cpu", "t", {}, 0.0, {"propagation": "push"})
                   for cell in cells for c in cell.configs}
        return ldp_ge_report("", cells, results), cells

    plain, _ = report()
    assert not [r for r in plain.results if r.status == Status.WARN]
    hypothesis, cells = report(feature_bounds="columns", link_graph="full")
    warned = {r.details["setting"]: r for r in hypothesis.results if r.status == Status.WARN}
    private = [c for cell in cells for c in cell.configs if c.eps is not None]
    assert warned["feature_bounds=columns"].details["runs"] == len(private)  # the non-private runs leak nothing
    assert "not LDP" in warned["feature_bounds=columns"].explanation
    assert warned["link_graph=full"].details["runs"] == sum(c.task == "link" for cell in cells for c in cell.configs)
    assert hypothesis.verdict == replace(hypothesis, results=tuple(
        r for r in hypothesis.results if r.status != Status.WARN)).verdict


# ------------------------------------------------------------------------------------------------- the MLPs

def _largest_weight(model) -> float:
    return max(float(m.weight.detach().abs().max()) for m in model.modules() if isinstance(m, torch.nn.Linear))


def test_released_init_draws_kaiming_weights_over_the_released_widths():
    torch.manual_seed(0)
    spec_link, released_link = link_model(500, "mlp", 2, 64, 0.0), link_model(500, "mlp", 2, 64, 0.0, "released")
    first = released_link[0].weight
    assert float(first.detach().abs().max()) > np.sqrt(6 / 500) and float(first.detach().abs().max()) <= np.sqrt(6 / 64)
    assert _largest_weight(spec_link) <= 1 / np.sqrt(64) + 1e-6  # torch's default: 1/sqrt(fan_in)
    released_node, spec_node = node_model(500, 7, "mlp", 2, 64, 0.0, "released"), node_model(500, 7, "mlp", 2, 64, 0.0)
    assert float(released_node.linears[0].weight.detach().abs().max()) <= np.sqrt(6 / 500)  # over the input width
    assert float(spec_node.linears[0].weight.detach().abs().max()) > np.sqrt(6 / 500)  # spec: over the output width


#: (sum, sum of squares) of every tensor of the spec's MLPs drawn under torch.manual_seed(0): node (20 -> 16 -> 7,
#: bias-free) and link (20 -> 16 -> 1 with biases). Measured once; a refactor of the init must not move them.
SPEC_INIT_FINGERPRINTS = {
    "node": ([-0.6289551387, 3.435208433], [43.095455819, 28.4640555377]),
    "link": ([-3.2470821495, 0.3221073989, 1.4054021537, -0.0449851453],
             [5.0281868681, 0.3105856235, 0.4379838285, 0.0020236633]),
}


@pytest.mark.parametrize("task", ["node", "link"])
def test_the_spec_init_draws_the_same_weights_as_before(task):
    torch.manual_seed(0)
    model = node_model(20, 7, "mlp", 2, 16, 0.5) if task == "node" else link_model(20, "mlp", 2, 16, 0.5)
    tensors = [t.double() for t in model.state_dict().values()]
    sums, squares = SPEC_INIT_FINGERPRINTS[task]
    assert [float(t.sum()) for t in tensors] == pytest.approx(sums, rel=1e-6)
    assert [float((t ** 2).sum()) for t in tensors] == pytest.approx(squares, rel=1e-6)


def test_the_link_graph_field_propagates_over_every_edge_when_full():
    from ldp_audit.models.training.ldp_ge import train_on_reports
    from ldp_audit.models import data as datasets

    graph = datasets.load("csbm")
    seen = []
    original = ldp_ge.server_embedding
    try:
        ldp_ge.server_embedding = lambda reports, adjacency, *_: seen.append(adjacency.nnz) or reports
        for link_graph in ("train", "full"):
            config = ldp_ge.preset("csbm", "link", eps=None, epochs=1, patience=1, link_graph=link_graph)
            train_on_reports(replace(graph, x=None), graph.normalized_features(clip=True), config)
    finally:
        ldp_ge.server_embedding = original
    assert seen[1] == graph.adjacency.nnz and seen[0] < seen[1]


# ------------------------------------------------------------------------------------------------- the preset

def test_the_released_preset_round_trips_and_sets_ldp_ge_fields_away_from_the_spec():
    assert Protocol.from_dict(RELEASED.to_dict()) == RELEASED
    spec = ldp_ge.preset("cora", "link", mechanism="MB", method="auto")
    released = RELEASED.apply(spec)
    assert released.key() != spec.key() and released.dataset == "cora"
    grid = one_at_a_time(spec, RELEASED)
    assert set(grid) == {"released"} | {f"{e.field} -> spec" for e in RELEASED.elements}
    assert all("PrivGE@9ac59a9" in e.source for e in RELEASED.elements)
    # switching the method back to auto takes the released push with it: the row runs (and is keyed as) the spec's
    # push, and its name says so
    method_row = grid["method -> spec"]
    assert (method_row.push_threshold, method_row.push_signs, method_row.push_leftover) == ("absolute", "joint", False)
    assert method_row == replace(spec, report_units="raw", init="released")
    labels = {name for _, _, seeds in attribution_grids([_Cell(spec)], [_Cell(RELEASED.apply(spec))],
                                                        {spec: _score(0.5), RELEASED.apply(spec): _score(0.6)},
                                                        RELEASED) for name in seeds[0]}
    assert "method -> spec (push_threshold, push_signs, push_leftover with it)" in labels


def _score(value):
    return SimpleNamespace(test_score=value)


def _Cell(config):
    return ldp_ge.LdpGeCell(config.dataset, config.task, config.mechanism, config.eps, (config,), "table3")


def test_fields_that_do_not_act_go_back_to_the_spec_and_leave_no_attribution_row():
    auto = ldp_ge.preset("cora", "link", mechanism="MB", method="auto")
    released_push = dict(push_threshold="relative", push_signs="split", push_leftover=True)
    assert replace(auto, **released_push) == auto and replace(auto, **released_push).key() == auto.key()
    pushed = replace(auto, method="push", **released_push)
    assert (pushed.push_threshold, pushed.push_signs, pushed.push_leftover) == ("relative", "split", True)
    # a preset of the push switches alone (no method element) moves nothing on an auto config: no rows
    switches_only = Protocol("ldp-ge", "switches", tuple(e for e in RELEASED.elements if e.field.startswith("push_")),
                             pipeline="ldp-ge")
    assert set(one_at_a_time(auto, switches_only)) == {"released"}
    # init does nothing to logistic regression: no "init -> spec" row to retrain
    logreg = replace(auto, downstream="logreg")
    assert replace(logreg, init="released") == logreg
    assert "init -> spec" not in one_at_a_time(logreg, RELEASED)
    assert "init -> spec" in one_at_a_time(auto, RELEASED)


def test_new_fields_enter_the_key_only_when_set():
    spec = ldp_ge.preset("cora", "link", mechanism="MB")
    assert spec.key() == ldp_ge.LdpGeConfig(**{f: getattr(spec, f) for f in (
        "dataset", "task", "mechanism", "eps", "lr", "batch", "layers", "hidden", "dropout", "weight_decay",
        "alpha", "r_max", "r")}).key()
    for field in ldp_ge.PROTOCOL_CHOICES:
        assert f"{field}=" not in spec.key()
        changed = replace(spec, **{field: ldp_ge.PROTOCOL_CHOICES[field][1]})
        assert changed.key() != spec.key()
    with pytest.raises(ValueError, match="push_threshold"):
        replace(spec, push_threshold="loose")


# ------------------------------------------------------------------------------------------------- the reports

def test_protocol_both_plans_the_spec_and_the_released_grid():
    args = Namespace(mode="quick", tables=None, datasets=None, protocol="both", runs=2, downstream="mlp")
    cells, runs, _, subject = plan(args)
    spec, released = args.protocol_cells["spec"], args.protocol_cells["released"]
    assert runs == 2 and subject["protocol"] == "both" and cells == spec + released
    assert [c.name for c in spec] == [c.name for c in released] and len(spec) == 7
    assert all(c.push_threshold == "relative" for cell in released for c in cell.configs)
    assert all(c.push_threshold == "absolute" for cell in spec for c in cell.configs)
    args.protocol = None
    assert plan(args)[0] == ldp_ge.quick_cells(2)


def test_full_protocol_takes_table3_and_fig2_but_refuses_the_k_sweep():
    from ldp_audit.cli import build_parser
    from ldp_audit.commands.reproduce.command import check_options

    def options(*tables):
        return build_parser().parse_args(["reproduce", "ldp-ge", "--full", "--protocol", "released", "--tables",
                                          *tables])

    check_options(options("table3", "fig2"))
    with pytest.raises(ValueError, match="--protocol: ldp-ge's --tables table3 fig2 only"):
        check_options(options("ksweep"))


@pytest.mark.parametrize("chosen", ["both", "released"])
def test_full_protocol_changes_table3_and_fig2_only(chosen):
    from ldp_audit.commands.reproduce.ldp_ge import _under_protocols

    cells = ldp_ge.full_cells(("cora",), runs=1)
    args = Namespace(mode="full", protocol=chosen)
    _under_protocols(args, cells)
    released = args.protocol_cells["released"]
    assert {c.table for c in cells} == {"table3", "fig2", "ksweep"}
    assert all(c.configs[0].report_units == ("unit" if c.table == "ksweep" else "raw") for c in released)
    assert {c.configs[0].init for c in released if c.table == "fig2"} == {"released"}
    changed = [c for c in cells if c.table != "ksweep"]
    # both: the released list is Table III's and Fig. 2's (the k sweep would repeat the spec's rows); alone: all;
    # never the "non-private raw" rows: the released non-private rows read the raw features themselves
    assert [c.name for c in released] == [c.name for c in (changed if chosen == "both" else cells)
                                          if not c.raw_clear]
    assert [c.name for c in args.protocol_cells.get("spec", [])] == ([c.name for c in cells] if chosen == "both"
                                                                      else [])


def test_the_attribution_recovers_a_synthetic_two_element_difference():
    spec_cells = ldp_ge.protocol_cells(runs=3)[:2]
    released_cells = ldp_ge.under_protocol(spec_cells, RELEASED)
    moves = {"report_units -> spec": -20.0, "push_threshold -> spec": -10.0}  # the two elements that matter
    results = {}
    for spec, released in zip(spec_cells, released_cells):
        for seed, (s, r) in enumerate(zip(spec.configs, released.configs)):
            big = spec.mechanism == "LP"  # LP's cell differs by 30 points, PM's by 1
            results[s] = SimpleNamespace(test_score=(0.5 + 0.01 * seed))
            results[r] = SimpleNamespace(test_score=(0.8 if big else 0.51) + 0.01 * seed)
    grids = attribution_grids(spec_cells, released_cells, results, RELEASED, count=1)
    assert [g[0].mechanism for g in grids] == ["LP"]
    for seed_grid in grids[0][2]:
        for name, config in seed_grid.items():
            base = results[config].test_score if config in results else 0.8 + 0.01 * config.seed
            results[config] = SimpleNamespace(test_score=base + moves.get(name, 0.0) / 100)
    rows = {r.details["element"]: r for r in ldp_ge_attribution_rows(grids, results)}
    assert rows["report_units -> spec"].statistic == pytest.approx(-20.0)
    assert rows["push_threshold -> spec"].statistic == pytest.approx(-10.0)
    assert rows["init -> spec"].statistic == pytest.approx(0.0)
    assert rows["whole gap"].statistic == pytest.approx(-30.0) and rows["whole gap"].details["unexplained"] == \
        pytest.approx(0.0)


def test_a_both_protocol_report_plots_one_series_per_protocol():
    from ldp_audit.audits.kernel.result import AuditReport
    from ldp_audit.audits.reproduction.ldp_ge import ldp_ge_report
    from ldp_audit.commands.reproduce.ldp_ge import ldp_ge_plot, protocol_series
    from ldp_audit.models.training.store import RunResult

    spec = ldp_ge.protocol_cells(runs=2)
    cells = {"spec": spec, "released": ldp_ge.under_protocol(spec, RELEASED)}
    rows = []
    for name, own in cells.items():
        score = 0.8 if name == "spec" else 0.6
        results = {c: RunResult(c, {f"test_{c.metric}": score}, {}, "cpu", "test", {}, 0.0, {"propagation": "push"})
                   for cell in own for c in cell.configs}
        rows += [replace(r, name=f"{r.name} [{name}]") for r in ldp_ge_report("", own, results).results]
    report = AuditReport.of("both", rows, {}, {})
    assert ldp_ge_plot(report).startswith(b"\x89PNG")
    cora = [r for r in report.results if "measured_mean" in r.details and r.details["task"] == "link"]
    series = protocol_series(cora)
    assert list(series) == ["spec", "released"]
    assert {r.details["measured_mean"] for r in series["spec"]} == {80.0}
    assert {r.details["measured_mean"] for r in series["released"]} == {60.0}
    assert [r.name for r in series["spec"]] == [r.name for r in series["released"]]
    assert sum(r.details["eps"] is None for r in series["spec"]) == 1  # one non-private line per protocol


def test_the_compound_method_row_is_shown_but_not_counted_twice():
    spec = ldp_ge.preset("cora", "link", mechanism="LP", method="auto", seed=0)
    released = RELEASED.apply(spec)
    results = {spec: _score(0.5), released: _score(0.8)}
    grids = attribution_grids([_Cell(spec)], [_Cell(released)], results, RELEASED)
    moves = {"push_threshold -> spec": -10.0, "report_units -> spec": -20.0}
    for name, config in grids[0][2][0].items():
        # the method row takes the push switches with it: it moves what push_threshold moves
        move = -10.0 if name.startswith("method -> spec") else moves.get(name, 0.0)
        results.setdefault(config, _score(0.8 + move / 100))
    rows = {r.details["element"]: r for r in ldp_ge_attribution_rows(grids, results)}
    compound = "method -> spec (push_threshold, push_signs, push_leftover with it)"
    assert rows[compound].statistic == pytest.approx(-10.0)
    assert rows["whole gap"].details["explained"] == pytest.approx(-30.0)
    assert rows["whole gap"].details["unexplained"] == pytest.approx(0.0)
    assert list(rows)[-1] == "whole gap"

