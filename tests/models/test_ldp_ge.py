"""LDP-GE pipeline on a small CSBM graph: no leakage, AUC, eps -> inf limit, determinism, C13, bad input, report."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from ldp_audit.audits.reproduction.ldp_ge import cell_row, ldp_ge_report, ordering_rows
from ldp_audit.audits.kernel.result import Status
from ldp_audit.cli import main
from ldp_audit.models import data, synthetic
from ldp_audit.models.training import RunResult, ldp_ge

torch.set_num_threads(1)


def _graph():
    return synthetic.csbm(n=300, classes=3, avg_degree=6.0, homophily=0.85, d=24, signal=0.3, seed=5)


def _config(**changes):
    return ldp_ge.preset("csbm", changes.pop("task", "link"), epochs=6, patience=3, **changes)


def test_link_propagation_never_sees_held_out_edges(monkeypatch):
    graph, seen = _graph(), {}
    original = ldp_ge.server_embedding

    def spy(reports, adjacency, config, info=None):
        seen["adjacency"] = adjacency
        return original(reports, adjacency, config, info)

    monkeypatch.setattr(ldp_ge, "server_embedding", spy)
    config = _config()
    ldp_ge.run_ldp_ge(config, graph)
    split = data.edge_split(graph, config.split_seed)
    used = seen["adjacency"].tocsr()
    for held in (split.val_pos, split.test_pos):
        assert np.all(np.asarray(used[held[0], held[1]]).ravel() == 0)
    assert np.all(np.asarray(used[split.train_pos[0], split.train_pos[1]]).ravel() == 1)
    assert used.nnz == 2 * split.train_pos.shape[1]


def test_auc_matches_a_brute_force_pair_count_with_ties():
    pos, neg = np.array([0.9, 0.5, 0.5, 0.1]), np.array([0.5, 0.2, 0.9])
    pairs = [(p > n) + 0.5 * (p == n) for p in pos for n in neg]
    assert ldp_ge.auc(pos, neg) == pytest.approx(np.mean(pairs), abs=1e-12)
    assert ldp_ge.auc([1.0, 2.0], [0.0]) == 1.0 and ldp_ge.auc([0.0], [1.0, 2.0]) == 0.0


def test_auc_of_a_random_scorer_is_near_one_half():
    rng = np.random.default_rng(7)
    value = ldp_ge.auc(rng.random(20000), rng.random(20000))
    assert abs(value - 0.5) < 0.01  # sd ~ 0.0029 at this size: a 3.4 sigma band


def test_negatives_are_non_edges_of_the_training_graph():
    graph = _graph()
    keys = np.sort(graph.edges[0] * graph.num_nodes + graph.edges[1])
    pairs = ldp_ge.sample_non_edges(graph.num_nodes, keys, 5000, np.random.default_rng(0))
    assert pairs.shape == (2, 5000) and np.all(pairs[0] < pairs[1])
    assert not np.isin(pairs[0] * graph.num_nodes + pairs[1], keys).any()


def test_hds_approaches_the_non_private_embedding_as_eps_grows():
    """With k = d every coordinate is reported with eps/d; the window holds the output with probability
    b e^eps'/(b e^eps' + 1) ~ 1 - 1/eps' and narrows like eps' e^-eps', so Z~ -> Z slowly (like 1/eps')."""
    graph = _graph()
    d = graph.num_features
    clear = _config(eps=None)
    z_clear = ldp_ge.server_embedding(ldp_ge.client_reports(graph, clear, None), graph.adjacency, clear)
    errors = []
    for eps in (10.0, 100.0, 700.0):  # 700: the registry's largest budget (eps' ~ 29 per coordinate)
        config = _config(eps=eps, k=d)
        reports = ldp_ge.client_reports(graph, config, np.random.default_rng(0))
        errors.append(np.abs(ldp_ge.server_embedding(reports, graph.adjacency, config) - z_clear).mean())
    assert errors[0] > errors[1] > errors[2]
    assert errors[0] > 0.5 * np.abs(z_clear).mean()  # far at small eps: the check can fail
    assert errors[2] < 0.06 * np.abs(z_clear).mean()


@pytest.mark.parametrize("task", ["link", "node"])
def test_runs_are_deterministic_per_seed(task):
    graph = _graph()
    config = _config(task=task, eps=1.0)
    first, second = ldp_ge.run_ldp_ge(config, graph), ldp_ge.run_ldp_ge(config, graph)
    assert first.metrics == second.metrics and first.curves == second.curves
    assert first.extra["propagation"] == "push" and first.extra["private"]
    other = ldp_ge.run_ldp_ge(replace(config, seed=1), graph)
    assert other.curves != first.curves


class RawSentinel:
    """Stands in for the raw feature matrix on the server's side: any use raises (ldp-ge C13)."""

    def __getattr__(self, name):
        raise AssertionError(f"the server read raw features (.{name})")

    def __array__(self, *args, **kwargs):
        raise AssertionError("the server read raw features (as an array)")

    def __getitem__(self, item):
        raise AssertionError("the server read raw features (indexing)")


@pytest.mark.parametrize("task", ["link", "node"])
def test_c13_server_never_reads_raw_features(task):
    graph = _graph()
    config = _config(task=task, eps=1.0)
    reports = ldp_ge.client_reports(graph, config, np.random.default_rng(0))
    metrics, _ = ldp_ge.train_on_reports(replace(graph, x=RawSentinel()), reports, config)
    assert 0.0 <= metrics[f"test_{config.metric}"] <= 1.0
    with pytest.raises(AssertionError, match="raw features"):  # the sentinel has teeth: the client side trips it
        ldp_ge.client_reports(replace(graph, x=RawSentinel()), config, np.random.default_rng(0))


@pytest.mark.parametrize("change, name", [({"eps": -1.0}, "eps"), ({"task": "edge"}, "task"),
                                          ({"mechanism": "SW"}, "mechanism"), ({"k": 0}, "k"),
                                          ({"r_max": 0.0}, "r_max"), ({"method": "exact"}, "method")])
def test_bad_config_names_the_parameter(change, name):
    with pytest.raises(ValueError, match=rf"^{name} must be"):
        ldp_ge.LdpGeConfig("cora", **change)


@pytest.mark.parametrize("argv, flag", [(["train", "ldp-ge", "--task", "edges"], "--task"),
                                        (["train", "ldp-ge", "--sampled", "0"], "--sampled"),
                                        (["train", "ldp-ge", "--eps-x", "0"], "--eps-x"),
                                        (["reproduce", "ldp-ge", "--full", "--datasets", "twitch"], "--datasets"),
                                        (["reproduce", "ldp-ge", "--full", "--tables", "drop"], "--tables"),
                                        (["reproduce", "ldp-ge", "--tables", "fig2"], "--tables")])
def test_cli_bad_input_exits_2_naming_the_parameter(argv, flag, capsys):
    assert _exit_code(argv) == 2
    assert flag in capsys.readouterr().err


def _exit_code(argv) -> int:
    """main's return value, or argparse's exit status for usage errors."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def fake_result(config, test_score: float, propagation: str = "push") -> RunResult:
    """A stored-looking LDP-GE result with only a test score (for the report rows)."""
    return RunResult(config, {f"test_{config.metric}": test_score}, {}, "cpu", "test", {}, 0.0,
                     {"propagation": propagation, "k": 1})


def _fake_results(cell, scores, propagation="push"):
    return {c: fake_result(c, s / 100, propagation) for c, s in zip(cell.configs, scores)}


def test_report_passes_paper_like_cells_and_fails_far_ones():
    cells = ldp_ge.quick_cells(runs=3)
    hds1 = next(c for c in cells if c.task == "link" and c.mechanism == "HDS" and c.eps == 1.0)
    near, far = _fake_results(hds1, [82.0, 83.0, 82.5]), _fake_results(hds1, [70.0, 71.0, 72.0])
    assert cell_row(hds1, near).status is Status.PASS  # paper 82.43 ± 1.47: tolerance max(3, 4.41)
    assert cell_row(hds1, far).status is Status.FAIL
    assert cell_row(hds1, {}).status is Status.INCONCLUSIVE
    mb_node = next(c for c in cells if c.task == "node" and c.mechanism == "MB")
    assert cell_row(mb_node, _fake_results(mb_node, [80.0, 81.0, 82.0])).status is Status.INFO


def test_c21_ordering_row_fails_when_hds_is_not_best():
    cells = ldp_ge.quick_cells(runs=2)
    link1 = [c for c in cells if c.task == "link" and c.eps == 1.0]
    hds = next(c for c in link1 if c.mechanism == "HDS")
    mb = next(c for c in link1 if c.mechanism == "MB")
    good = {**_fake_results(hds, [82.0, 83.0]), **_fake_results(mb, [76.0, 75.0])}
    bad = {**_fake_results(hds, [74.0, 73.0]), **_fake_results(mb, [76.0, 75.0])}
    assert [r.status for r in ordering_rows(link1, bad)] == [Status.FAIL]
    report = ldp_ge_report("t", link1, bad)
    assert not report.passed
    # the quick grid runs MB only: HDS ahead of it is not "best" among LP, PM and MB
    ahead = ordering_rows(link1, good)
    assert [r.status for r in ahead] == [Status.INCONCLUSIVE] and "LP, PM not measured" in ahead[0].explanation
    full = [c for c in ldp_ge.full_cells(("cora",), runs=2, tables=("table3",)) if c.eps == 1.0]
    scores = {"HDS": [82.0, 83.0], "LP": [70.0, 71.0], "PM": [60.0, 61.0], "MB": [76.0, 75.0]}
    every = {k: v for c in full for k, v in _fake_results(c, scores[c.mechanism]).items()}
    assert [r.status for r in ordering_rows(full, every)] == [Status.PASS]
    without_lp = {k: v for c in full if c.mechanism != "LP" for k, v in _fake_results(c, scores[c.mechanism]).items()}
    assert [r.status for r in ordering_rows(full, without_lp)] == [Status.INCONCLUSIVE]


def test_rescale_divides_mb_reports_by_their_public_bound_only():
    graph = _graph()
    d = graph.num_features
    config = _config(mechanism="MB", eps=1.0, rescale=True)
    k = config.sampled(d)
    reports = ldp_ge.client_reports(graph, config, np.random.default_rng(0))
    bound = ldp_ge.public_scale("MB", 1.0, d, k)
    assert np.abs(reports).max() == pytest.approx(bound)  # MB estimates are exactly +-bound on sampled coords
    assert np.allclose(ldp_ge.conditioned(reports, config) * bound, reports)
    assert ldp_ge.conditioned(reports, replace(config, rescale=False)) is reports
    assert replace(config, rescale=False).key() != config.key()
