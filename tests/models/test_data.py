"""Dataset loaders against the counts of the shared datasets README; splits; the synthetic generators."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from ldp_audit.models import data
from ldp_audit.models.synthetic import csbm, karate

pytestmark = pytest.mark.graph

# Counts copied from ../shared/datasets/README.md ("Statistics as loaded"), independent of data.DATASETS:
# name: (nodes, unique edges without self-loops, self-loops, edges as the papers count, features, classes)
README = {
    "cora": (2708, 5278, 0, 5278, 1433, 7),
    "citeseer": (3327, 4552, 0, 4552, 3703, 6),
    "pubmed": (19717, 44324, 0, 44324, 500, 3),
    "facebook": (22470, 170823, 179, 170912, 4714, 4),
    "lastfm_asia": (7624, 27806, 0, 27806, None, 18),
    "lastfm_asia_top10": (7083, 25814, 0, 25814, None, 10),
    "wikipedia_crocodile": (11631, 170773, 145, 170845, None, 2),
    "github": (37700, 289003, 0, 289003, None, 2),
    "chameleon": (2277, 31371, 50, 31421, 3132, None),
    "arxiv": (5241, 14484, 0, None, None, None),
    "blogcatalog": (10312, 333983, 0, None, None, None),
    "ppi": (3860, 37845, 0, None, None, None),
    "power": (4941, 6594, 0, None, None, None),
}


@pytest.fixture(scope="session")
def shared():
    """The real datasets are part of the test environment (CI clones the project beside ../shared): a missing
    folder is a failure with data_dir()'s message, never a silent skip."""
    return data.data_dir()


@pytest.fixture(scope="session")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("tg-cache")


def test_registry_matches_readme():
    assert set(README) == set(data.DATASETS)
    for name, (nodes, edges, loops, papers, features, classes) in README.items():
        info = data.DATASETS[name]
        assert (info.nodes, info.edges, info.self_loops, info.papers_edges) == (nodes, edges, loops, papers)
        assert info.classes == classes
        assert info.features_missing == (features is None and info.features is not None)


@pytest.mark.parametrize("name", list(README))
def test_loader_counts_equal_readme(name, shared, cache):
    graph = data.load(name, shared, cache)
    nodes, edges, loops, papers, features, classes = README[name]
    assert (graph.num_nodes, graph.num_edges, graph.num_self_loops) == (nodes, edges, loops)
    if papers is not None:
        assert graph.papers_edges(data.DATASETS[name].papers_rule) == papers
    if features is not None:
        assert graph.num_features == features
    if classes is not None:
        assert graph.num_classes == classes and graph.y.shape == (nodes,)
    assert all(ok for _, _, ok in data.verify_counts(graph, data.DATASETS[name]).values())
    u, v = graph.edges
    assert (u < v).all() and np.unique(u * graph.num_nodes + v).size == graph.num_edges


def test_planetoid_writes_only_into_the_cache(shared, cache):
    graph = data.load("cora", shared, cache)
    assert graph.extra["planetoid_split"] == (140, 500, 1000)
    assert [p for p in (cache / "planetoid").glob("*/Cora/processed") if p.is_dir()]  # keyed by the raw hashes
    assert not (shared / "planetoid" / "Cora" / "processed").exists()


def test_missing_features_name_the_file_and_folder(shared):
    graph = data.load("lastfm", shared)
    assert graph.name == "lastfm_asia_top10" and graph.x is None
    with pytest.raises(data.MissingFeaturesError) as info:
        graph.features()
    message = str(info.value)
    assert "features.csv" in message and "lastfm_asia_features.json" in message and "lastfm_asia" in message
    assert isinstance(info.value, ValueError)  # the CLI turns it into exit 2


def test_feature_file_completes_a_dataset(shared, tmp_path):
    folder = tmp_path / "lastfm_asia"
    folder.mkdir()
    for file in ("edges.csv", "target.csv"):
        shutil.copy(shared / "lastfm_asia" / file, folder / file)
    (folder / "lastfm_asia_features.json").write_text(json.dumps({"0": [3, 7841], "5": [3]}))
    graph = data.load("lastfm_asia", tmp_path, verify=False)  # a user's own folder, without SHA256SUMS
    assert graph.features().shape == (7624, 7842) and graph.features().nnz == 3
    x = graph.normalized_features(columns=[3, 4])
    assert x[0, 0] == 1.0 and x[5, 0] == 1.0 and x[1, 0] == -1.0 and (x[:, 1] == -1.0).all()


def test_normalisation_uses_public_bounds_and_rejects_values_outside(shared, cache):
    graph = data.load("cora", shared, cache)
    x = graph.normalized_features(columns=range(10))
    assert set(np.unique(x)) <= {-1.0, 1.0}
    pubmed = data.load("pubmed", shared, cache)
    assert pubmed.feature_range == (0.0, 1.3)
    z = pubmed.normalized_features(columns=range(5))
    assert z.min() >= -1 and z.max() <= 1
    narrow = data.Graph(**{**{k: getattr(graph, k) for k in ("name", "num_nodes", "edges", "x", "y")},
                           "feature_range": (0.0, 0.5)})
    with pytest.raises(ValueError, match="public range"):
        narrow.normalized_features(columns=range(50))
    assert narrow.normalized_features(columns=range(50), clip=True).max() == 1.0


def test_data_dir_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv(data.ENV_DATA, str(tmp_path))
    assert data.data_dir() == tmp_path
    assert data.data_dir(tmp_path) == tmp_path
    with pytest.raises(ValueError, match="--data-dir"):
        data.data_dir(tmp_path / "absent")
    monkeypatch.setenv(data.ENV_DATA, str(tmp_path / "absent"))
    with pytest.raises(ValueError, match=data.ENV_DATA):
        data.data_dir()
    with pytest.raises(ValueError, match="dataset must be one of"):
        data.load("no-such-graph")


def test_top_classes_relabels_by_frequency():
    graph = csbm(n=400, classes=4, seed=3)
    sub = data.top_classes(graph, 2)
    sizes = np.bincount(graph.y)
    assert sub.num_nodes == np.sort(sizes)[-2:].sum() and sub.num_classes == 2
    assert np.bincount(sub.y)[0] >= np.bincount(sub.y)[1]


def test_node_split_is_seeded_disjoint_and_50_25_25():
    train, val, test = data.node_split(1000, seed=7)
    assert (train.size, val.size, test.size) == (500, 250, 250)
    assert np.unique(np.concatenate([train, val, test])).size == 1000
    again = data.node_split(1000, seed=7)
    assert all((a == b).all() for a, b in zip((train, val, test), again))
    with pytest.raises(ValueError, match="fractions"):
        data.node_split(10, 0, (0.5, 0.5, 0.5))


def test_edge_split_negatives_are_non_edges():
    graph = csbm(n=500, avg_degree=6, seed=1)
    split = data.edge_split(graph, seed=2)
    m = graph.num_edges
    assert split.train_pos.shape[1] + split.val_pos.shape[1] + split.test_pos.shape[1] == m
    assert split.val_neg.shape == split.val_pos.shape and split.test_neg.shape == split.test_pos.shape
    assert abs(split.test_pos.shape[1] - 0.10 * m) <= 1 and abs(split.val_pos.shape[1] - 0.05 * m) <= 1
    n = graph.num_nodes
    edge_keys = set((graph.edges[0] * n + graph.edges[1]).tolist())
    neg = np.concatenate([split.val_neg, split.test_neg], axis=1)
    neg_keys = (np.minimum(*neg) * n + np.maximum(*neg)).tolist()
    assert not edge_keys & set(neg_keys) and len(set(neg_keys)) == len(neg_keys) and (neg[0] != neg[1]).all()
    assert split.train_graph.num_edges == split.train_pos.shape[1]
    assert split.train_graph.adjacency.nnz == 2 * split.train_pos.shape[1]


def test_karate_and_csbm():
    graph = karate()
    assert (graph.num_nodes, graph.num_edges, graph.degrees[0], graph.degrees[33], graph.degrees[11]) == \
        (34, 78, 16, 17, 1)
    g = csbm(n=2000, classes=4, avg_degree=4, homophily=0.8, d=40, seed=5)
    same = (g.y[g.edges[0]] == g.y[g.edges[1]]).mean()
    assert abs(same - 0.8) < 0.03 and abs(2 * g.num_edges / g.num_nodes - 4) < 0.1
    x = g.features().toarray()
    own = x[:, :4][np.arange(2000), g.y]  # column c belongs to class c
    assert own.mean() > x.mean() + 0.05
    assert (csbm(n=50, seed=1).edges == csbm(n=50, seed=1).edges).all()
    for bad in ({"homophily": 1.5}, {"n": 1}, {"base_rate": 0.95, "signal": 0.1}, {"avg_degree": -1}):
        with pytest.raises(ValueError):
            csbm(**bad)


def test_cli_data_lists_and_verifies(shared, cache, capsys):
    from ldp_audit.cli import main

    assert main(["data", "power", "--data-dir", str(shared), "--cache-dir", str(cache)]) == 0
    out = capsys.readouterr().out
    assert "power" in out and "6594" in out and "ok" in out
    assert main(["data", "karate", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    row = report["results"][0]
    assert row["status"] == "info" and row["details"]["nodes"] == 34 and row["details"]["verified"] is None
    assert main(["data", "nope"]) == 2
