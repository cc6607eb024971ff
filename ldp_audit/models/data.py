"""Graph datasets: one :class:`Graph` value, loaders for the real graphs of the papers, and seeded splits.

Where the files are: :func:`data_dir` resolves, in order, an explicit path (the CLI's ``--data-dir``), the
environment variable ``LDP_AUDIT_DATA``, and a ``shared/datasets`` folder beside the project (found from the
package location or the working directory). The folder layout is the one described in that folder's
``README.md``; the counts it lists are recorded in :data:`DATASETS` and checked by ``ldp-audit data``.

torch-geometric writes a ``processed/`` folder under a dataset root, so Planetoid raw files are copied to a
writable cache first (``cache_dir`` argument, environment variable ``LDP_AUDIT_CACHE``, default
``~/.cache/ldp-audit``). The other formats are read with numpy/json and need no cache.

Edges are stored once per undirected pair (u < v), de-duplicated, without self-loops; the number of
self-loops in the files is kept so that the papers' edge counts can be reproduced (:meth:`Graph.papers_edges`).
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..seeding import rng_for
from .graph import Graph, MissingFeaturesError, canonical_edges  # noqa: F401 (MissingFeaturesError is re-exported)

ENV_DATA = "LDP_AUDIT_DATA"
ENV_CACHE = "LDP_AUDIT_CACHE"


# ----------------------------------------------------------------------------------------------- locations

def data_dir(explicit: str | os.PathLike | None = None) -> Path:
    """The dataset folder: ``explicit``, else ``$LDP_AUDIT_DATA``, else ``shared/datasets`` beside the project."""
    if explicit is not None:
        path = Path(explicit).expanduser()
        if not path.is_dir():
            raise ValueError(f"--data-dir {str(path)!r} is not a directory")
        return path
    if os.environ.get(ENV_DATA):
        path = Path(os.environ[ENV_DATA]).expanduser()
        if not path.is_dir():
            raise ValueError(f"{ENV_DATA}={str(path)!r} is not a directory")
        return path
    project = Path(__file__).resolve().parents[2]
    for base in (project, Path.cwd()):
        for candidate in (base.parent / "shared" / "datasets", base / "shared" / "datasets"):
            if candidate.is_dir():
                return candidate
    raise ValueError(f"no dataset folder found: pass --data-dir or set {ENV_DATA} to the folder that holds "
                     "planetoid/, facebook/, ... (see the datasets README)")


def cache_dir(explicit: str | os.PathLike | None = None) -> Path:
    """A writable folder for torch-geometric's processed files."""
    path = Path(explicit or os.environ.get(ENV_CACHE) or Path.home() / ".cache" / "ldp-audit").expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


# ------------------------------------------------------------------------------------------------- loaders

_PLANETOID = {"cora": "Cora", "citeseer": "CiteSeer", "pubmed": "PubMed"}
#: PubMed's TF-IDF weights have no natural bound. We fix the bound from the dataset's documentation (datasets
#: README: non-zero values range from 0.0012 to 1.26), rounded up; it is a constant, never recomputed.
_PUBMED_RANGE = (0.0, 1.3)


def load_planetoid(name: str, root: Path, cache: Path) -> Graph:
    """Cora, CiteSeer or PubMed from the raw Planetoid files, through torch-geometric's ``Planetoid``."""
    from torch_geometric.datasets import Planetoid  # torch is imported only here

    title = _PLANETOID[name]
    source = root / "planetoid" / title / "raw"
    if not source.is_dir():
        raise ValueError(f"Planetoid raw files for {title} not found in {source}")
    target = cache / "planetoid" / title / "raw"
    target.mkdir(parents=True, exist_ok=True)
    for file in source.iterdir():
        copy = target / file.name
        if not copy.exists() or copy.stat().st_size != file.stat().st_size:
            shutil.copyfile(file, copy)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        data = Planetoid(root=str(cache / "planetoid"), name=title)[0]  # silence "Processing... Done!"
    edges, loops = canonical_edges(data.edge_index.numpy(), data.num_nodes)
    x = sp.csr_matrix(data.x.numpy().astype(np.float64))
    binary = name != "pubmed"
    return Graph(name=name, num_nodes=int(data.num_nodes), edges=edges, x=x,
                 feature_range=(0.0, 1.0) if binary else _PUBMED_RANGE,
                 range_source="binary bag-of-words" if binary else
                 "TF-IDF; bound 1.3 fixed from the dataset documentation (max 1.26)",
                 y=data.y.numpy().astype(np.int64), num_classes=int(data.y.max()) + 1, num_self_loops=loops,
                 source=f"Planetoid raw files ({source})",
                 extra={"planetoid_split": tuple(int(m.sum()) for m in (data.train_mask, data.val_mask,
                                                                          data.test_mask))})


def _read_pairs(path: Path) -> np.ndarray:
    """A (2, m) int64 array from a CSV with a header line or a whitespace-separated file without one."""
    with open(path) as handle:
        first = handle.readline()
    if "," in first:
        rows = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    else:
        rows = np.loadtxt(path, dtype=np.int64, ndmin=2)
    return rows[:, :2].T


def _read_target(path: Path, column: int = 1) -> np.ndarray:
    rows = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64, usecols=(0, column), ndmin=2)
    target = np.empty(rows.shape[0], dtype=np.int64)
    target[rows[:, 0]] = rows[:, 1]
    return target


def _read_feature_file(path: Path, num_nodes: int, dim: int | None) -> sp.csr_matrix:
    """MUSAE/FEATHER features: JSON ``{"node": [feature ids]}`` or karateclub CSV ``node_id,feature_id,value``."""
    if path.suffix == ".json":
        with open(path) as handle:
            lists = json.load(handle)
        rows = np.concatenate([np.full(len(ids), int(node), dtype=np.int64) for node, ids in lists.items()])
        cols = np.concatenate([np.asarray(ids, dtype=np.int64) for ids in lists.values()])
        vals = np.ones(rows.size)
    else:
        table = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
        rows, cols, vals = table[:, 0].astype(np.int64), table[:, 1].astype(np.int64), table[:, 2]
    width = dim if dim is not None else int(cols.max()) + 1
    x = sp.csr_matrix((vals, (rows, cols)), shape=(num_nodes, width))
    x.sum_duplicates()
    return x


@dataclass(frozen=True)
class _Musae:
    folder: str
    edges: str
    target: str | None
    feature_files: tuple[str, ...]
    feature_dim: int | None
    blobs: str = ""  # where to obtain missing features


_MUSAE = {
    "facebook": _Musae("facebook", "edges.csv", "target.csv", ("features.json", "features.csv"), 4714),
    "chameleon": _Musae("chameleon", "chameleon_edges.csv", None, ("chameleon_features.json",), 3132),
    "lastfm_asia": _Musae("lastfm_asia", "edges.csv", "target.csv",
                          ("features.csv", "lastfm_asia_features.json", "features.json"), 7842,
                          "karateclub dataset/node_level/lastfm/features.csv (git blob b59801fa) or FEATHER "
                          "lastfm_asia_features.json (blob e8606ab4)"),
    "wikipedia_crocodile": _Musae("wikipedia_crocodile", "edges.csv", "target.csv",
                                  ("features.csv", "crocodile.json", "features.json"), 13183,
                                  "karateclub dataset/node_level/wikipedia/features.csv (blob ddcd520a) or "
                                  "MUSAE input/features/crocodile.json (blob 0c68f0cf)"),
    "github": _Musae("github", "edges.csv", "target.csv", ("features.csv", "git.json", "features.json"), 4005,
                     "karateclub dataset/node_level/github/features.csv (blob 0041a04c) or MUSAE "
                     "input/features/git.json (blob 33a611fd)"),
}


def load_musae(name: str, root: Path, with_features: bool = True) -> Graph:
    """A MUSAE/FEATHER graph: edges CSV, target CSV, features JSON/CSV when present.

    Chameleon's target is integer traffic, not a class, so it is kept in ``extra["traffic"]``.
    """
    spec = _MUSAE[name]
    folder = root / spec.folder
    if not folder.is_dir():
        raise ValueError(f"dataset folder {folder} not found")
    pairs = _read_pairs(folder / spec.edges)
    extra = {}
    if spec.target is not None:
        y = _read_target(folder / spec.target)
        num_nodes = max(int(pairs.max()) + 1, y.size)
        num_classes = int(y.max()) + 1
    else:
        traffic = _read_target(folder / "chameleon_target.csv")
        num_nodes, y, num_classes = max(int(pairs.max()) + 1, traffic.size), None, 0
        extra["traffic"] = traffic
    edges, loops = canonical_edges(pairs, num_nodes)
    present = [folder / f for f in spec.feature_files if (folder / f).is_file()]
    x, missing = None, None
    if present and with_features:
        x = _read_feature_file(present[0], num_nodes, spec.feature_dim)
    elif not present:
        missing = (f"node features of {name} are missing: put {' or '.join(spec.feature_files[:2])} "
                   f"({spec.feature_dim}-dim; {spec.blobs}) into {folder}")
    return Graph(name=name, num_nodes=num_nodes, edges=edges, x=x,
                 feature_range=(0.0, 1.0) if present else None,
                 range_source="binary feature indicators" if present else "", y=y, num_classes=num_classes,
                 num_self_loops=loops, missing_features=missing, source=f"MUSAE/FEATHER files ({folder})",
                 extra=extra)


def top_classes(graph: Graph, count: int = 10, name: str | None = None) -> Graph:
    """The node-induced subgraph on the ``count`` most frequent classes, labels re-indexed by frequency.

    LastFM Asia restricted to its 10 largest classes is LDP-GE's and PrivGE's "LastFM" (7,083 nodes).
    """
    if graph.y is None:
        raise ValueError(f"{graph.name} has no labels to restrict")
    sizes = np.bincount(graph.y, minlength=graph.num_classes)
    order = np.argsort(-sizes, kind="stable")[:count]
    nodes = np.flatnonzero(np.isin(graph.y, order))
    sub = graph.subgraph(nodes, name=name or f"{graph.name}_top{count}")
    relabel = np.empty(graph.num_classes, dtype=np.int64)
    relabel[order] = np.arange(order.size)
    return replace(sub, y=relabel[sub.y], num_classes=int(order.size))


_EDGE_LISTS = {"arxiv": "Arxiv", "blogcatalog": "Blogcatalog", "ppi": "PPI", "power": "Power"}


def load_edge_list(name: str, root: Path) -> Graph:
    """An SE-PrivGEmb graph: ``se_privgemb/<Name>/train_1``, one whitespace-separated pair per line."""
    path = root / "se_privgemb" / _EDGE_LISTS[name] / "train_1"
    if not path.is_file():
        raise ValueError(f"edge list {path} not found")
    pairs = _read_pairs(path)
    edges, loops = canonical_edges(pairs, int(pairs.max()) + 1)
    return Graph(name=name, num_nodes=int(pairs.max()) + 1, edges=edges, num_self_loops=loops,
                 source=f"SE-PrivGEmb edge list ({path})")


def load_link_split(name: str, train_fraction: float = 0.9, data: str | os.PathLike | None = None) -> dict:
    """SE-PrivGEmb's stored link-prediction split: ``train_pos``, ``train_neg``, ``test_pos``, ``test_neg``."""
    if name not in _EDGE_LISTS:
        raise ValueError(f"name must be one of {', '.join(_EDGE_LISTS)}, got {name!r}")
    tags = {0.9: "train0.9_test0.1", 0.5: "train0.5_test0.5"}
    if train_fraction not in tags:
        raise ValueError(f"train_fraction must be 0.9 or 0.5, got {train_fraction!r}")
    path = data_dir(data) / "se_privgemb" / _EDGE_LISTS[name] / f"lp_split_{tags[train_fraction]}.npz"
    with np.load(path) as npz:
        return {key: npz[key] for key in ("train_pos", "train_neg", "test_pos", "test_neg")}


# ------------------------------------------------------------------------------------------------ registry

@dataclass(frozen=True)
class DatasetInfo:
    """A dataset's loader and the counts the datasets README gives for it (None: not applicable)."""

    name: str
    description: str
    nodes: int
    edges: int
    self_loops: int
    features: int | None
    classes: int | None
    papers_edges: int | None = None
    papers_rule: str = "pyg"
    features_missing: bool = False


DATASETS: dict[str, DatasetInfo] = {d.name: d for d in (
    DatasetInfo("cora", "Planetoid citation graph", 2708, 5278, 0, 1433, 7, 5278),
    DatasetInfo("citeseer", "Planetoid citation graph", 3327, 4552, 0, 3703, 6, 4552),
    DatasetInfo("pubmed", "Planetoid citation graph (allx derived)", 19717, 44324, 0, 500, 3, 44324),
    DatasetInfo("facebook", "MUSAE Facebook page-page", 22470, 170823, 179, 4714, 4, 170912),
    DatasetInfo("lastfm_asia", "FEATHER LastFM Asia, 18 countries", 7624, 27806, 0, 7842, 18, 27806,
                features_missing=True),
    DatasetInfo("lastfm_asia_top10", "LastFM Asia, 10 largest classes (LDP-GE, PrivGE)", 7083, 25814, 0, 7842,
                10, 25814, features_missing=True),
    DatasetInfo("wikipedia_crocodile", "MUSAE Wikipedia crocodile, binary traffic label", 11631, 170773, 145,
                13183, 2, 170845, features_missing=True),
    DatasetInfo("github", "MUSAE GitHub developers", 37700, 289003, 0, 4005, 2, 289003, features_missing=True),
    DatasetInfo("chameleon", "MUSAE Wikipedia chameleon (structure for SE-PrivGEmb)", 2277, 31371, 50, 3132,
                None, 31421, "snap"),
    DatasetInfo("arxiv", "SE-PrivGEmb ca-GrQc edge list", 5241, 14484, 0, None, None),
    DatasetInfo("blogcatalog", "SE-PrivGEmb BlogCatalog edge list", 10312, 333983, 0, None, None),
    DatasetInfo("ppi", "SE-PrivGEmb PPI edge list", 3860, 37845, 0, None, None),
    DatasetInfo("power", "SE-PrivGEmb power grid edge list", 4941, 6594, 0, None, None),
)}
#: Names used in the papers that map onto a dataset here.
ALIASES = {"lastfm": "lastfm_asia_top10", "wikipedia": "wikipedia_crocodile", "git": "github"}
EMBEDDED = ("karate", "csbm")


def names() -> list[str]:
    return list(DATASETS) + list(EMBEDDED)


def load(name: str, data: str | os.PathLike | None = None, cache: str | os.PathLike | None = None,
         with_features: bool = True, **synthetic) -> Graph:
    """Load a dataset by name (see :func:`names`; paper aliases such as ``lastfm`` are accepted).

    ``data`` is the dataset folder (:func:`data_dir`), ``cache`` the writable folder for torch-geometric
    (:func:`cache_dir`). ``karate`` and ``csbm`` are embedded; ``synthetic`` keywords go to :func:`csbm`.
    """
    from . import synthetic as embedded

    key = ALIASES.get(name.lower(), name.lower())
    if key == "karate":
        return embedded.karate()
    if key == "csbm":
        return embedded.csbm(**synthetic)
    if key not in DATASETS:
        raise ValueError(f"dataset must be one of {', '.join(names())} (aliases {', '.join(ALIASES)}); "
                         f"got {name!r}")
    root = data_dir(data)
    if key in _PLANETOID:
        return load_planetoid(key, root, cache_dir(cache))
    if key == "lastfm_asia_top10":
        return top_classes(load_musae("lastfm_asia", root, with_features), 10, name=key)
    if key in _MUSAE:
        return load_musae(key, root, with_features)
    return load_edge_list(key, root)


def verify_counts(graph: Graph, info: DatasetInfo) -> dict[str, tuple[object, object, bool]]:
    """Loaded versus README counts: ``{quantity: (loaded, expected, equal)}``."""
    rows = {"nodes": (graph.num_nodes, info.nodes), "edges": (graph.num_edges, info.edges),
            "self-loops": (graph.num_self_loops, info.self_loops)}
    if info.papers_edges is not None:
        rows["papers' edges"] = (graph.papers_edges(info.papers_rule), info.papers_edges)
    if info.features is not None and not info.features_missing:
        rows["features"] = (graph.num_features, info.features)
    if info.classes is not None:
        rows["classes"] = (graph.num_classes, info.classes)
    return {key: (got, want, got == want) for key, (got, want) in rows.items()}


# -------------------------------------------------------------------------------------------------- splits

def node_split(num_nodes: int, seed: int, fractions=(0.5, 0.25, 0.25)) -> tuple[np.ndarray, ...]:
    """A seeded random split of the nodes into train / validation / test (50/25/25 by default, ldp-ge §8.1)."""
    fractions = _check_fractions(fractions)
    order = rng_for(seed).permutation(num_nodes)
    cuts = np.floor(np.cumsum(fractions)[:-1] * num_nodes).astype(int)
    return tuple(np.sort(part) for part in np.split(order, cuts))


@dataclass(frozen=True)
class EdgeSplit:
    """Positive edges per part and as many sampled non-edges; ``train_graph`` keeps only training edges."""

    train_pos: np.ndarray
    val_pos: np.ndarray
    val_neg: np.ndarray
    test_pos: np.ndarray
    test_neg: np.ndarray
    train_graph: Graph


def edge_split(graph: Graph, seed: int, fractions=(0.85, 0.05, 0.10)) -> EdgeSplit:
    """Seeded link-prediction split (85/5/10 by default, ldp-ge §8.1) with uniform negative pairs.

    Negatives are distinct unordered non-adjacent pairs (u != v), disjoint from every edge of the graph and
    from each other; the validation and test parts get as many negatives as positives. Propagation for link
    prediction should use ``train_graph`` (ldp-ge §9: no leakage of held-out edges).
    """
    fractions = _check_fractions(fractions)
    rng = rng_for(seed)
    order = rng.permutation(graph.num_edges)
    cuts = np.floor(np.cumsum(fractions)[:-1] * graph.num_edges).astype(int)
    train, val, test = (graph.edges[:, np.sort(part)] for part in np.split(order, cuts))
    n = graph.num_nodes
    need = val.shape[1] + test.shape[1]
    max_pairs = n * (n - 1) // 2 - graph.num_edges
    if need > max_pairs:
        raise ValueError(f"graph {graph.name} has only {max_pairs} non-adjacent pairs, {need} negatives needed")
    existing = graph.edges[0] * n + graph.edges[1]
    chosen = np.empty(0, dtype=np.int64)
    while chosen.size < need:  # rejection sampling in vectorised batches; a few passes on sparse graphs
        u, v = rng.integers(0, n, size=(2, 2 * (need - chosen.size) + 16))
        keys = (np.minimum(u, v) * n + np.maximum(u, v))[u != v]
        keys = keys[~np.isin(keys, existing) & ~np.isin(keys, chosen)]
        _, first = np.unique(keys, return_index=True)
        chosen = np.concatenate([chosen, keys[np.sort(first)][:need - chosen.size]])
    neg = np.stack([chosen // n, chosen % n])
    train_graph = replace(graph, edges=train, name=f"{graph.name} (train edges)")
    return EdgeSplit(train, val, neg[:, :val.shape[1]], test, neg[:, val.shape[1]:], train_graph)


def _check_fractions(fractions) -> np.ndarray:
    fractions = np.asarray(fractions, dtype=float)
    if fractions.shape != (3,) or (fractions < 0).any() or abs(fractions.sum() - 1.0) > 1e-9:
        raise ValueError(f"fractions must be three non-negative numbers summing to 1, got {tuple(fractions)}")
    return fractions
