"""Graph datasets: one :class:`Graph` value, loaders for the real graphs of the papers, and seeded splits.

Where the files are: :func:`data_dir` resolves, in order, an explicit path (the CLI's ``--data-dir``), the
environment variable ``LDP_AUDIT_DATA``, and a ``shared/datasets`` folder beside the project (found from the
package location or the working directory). The folder layout is the one described in that folder's
``README.md``; the counts it lists are recorded in :data:`DATASETS` and checked by ``ldp-audit data``.

Every file a loader reads is first checked against the folder's ``SHA256SUMS`` (``checksums.check_files``); a
folder without one, or a file without a line, is refused unless the caller chooses to read it unverified:
``verify=False``, or :class:`Unverified` (the folder wrapped with that choice, which travels wherever a dataset
folder goes: a training sweep, a claim check; the CLI's ``--no-verify`` passes it).

torch-geometric writes a ``processed/`` folder under a dataset root, so Planetoid raw files are copied to a
writable cache first (``cache_dir`` argument, environment variable ``LDP_AUDIT_CACHE``, default
``~/.cache/ldp-audit``). The other formats are read with numpy/json and need no cache.

Edges are stored once per undirected pair (u < v), de-duplicated, without self-loops; the number of
self-loops in the files is kept so that the papers' edge counts can be reproduced (:meth:`Graph.papers_edges`).
"""
from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import pickle
import shutil
import tempfile
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..files import OutputError, check_output_folder, remove_stale_temporaries, temporary_prefix, write_failure
from ..mechanisms.validation import check_count, check_flag, check_int, check_seed, check_size
from ..seeding import rng_for
from .checksums import DatasetFileError, check_files, content_key, read_regular
from .graph import Graph, MissingFeaturesError, canonical_edges  # noqa: F401 (MissingFeaturesError is re-exported)

ENV_DATA = "LDP_AUDIT_DATA"
ENV_CACHE = "LDP_AUDIT_CACHE"


# ----------------------------------------------------------------------------------------------- locations

@dataclass(frozen=True)
class Unverified:
    """A dataset folder whose files are read without checking them against its ``SHA256SUMS``: the caller's
    stated choice, passed wherever a dataset folder goes so that it reaches every loader (``folder`` None: the
    folder :func:`data_dir` finds)."""

    folder: str | os.PathLike | None = None

    def __str__(self) -> str:
        return f"{'the default dataset folder' if self.folder is None else self.folder} (unverified)"


def dataset_folder(data=None, verify: bool = True) -> tuple[Path, bool]:
    """The folder ``data`` names (:func:`data_dir`) and whether its files are checked: not when ``verify`` is
    False or ``data`` is :class:`Unverified`."""
    verify = check_flag(verify, "verify")
    if isinstance(data, Unverified):
        return data_dir(data.folder), False
    return data_dir(data), verify


def data_dir(explicit: str | os.PathLike | Unverified | None = None) -> Path:
    """The dataset folder: ``explicit``, else ``$LDP_AUDIT_DATA``, else ``shared/datasets`` beside the project."""
    if isinstance(explicit, Unverified):
        explicit = explicit.folder
    if explicit is not None:
        if not isinstance(explicit, (str, os.PathLike)):
            raise ValueError(f"data must be the path of the dataset folder, got {type(explicit).__name__}")
        if not str(explicit).strip():
            raise ValueError("--data-dir is empty; give the dataset folder")
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


def cache_location(explicit: str | os.PathLike | None = None) -> tuple[Path, str]:
    """Where the cache folder is and what chose it: ``--cache-dir``, ``$LDP_AUDIT_CACHE`` or the default."""
    if explicit is not None:
        if not isinstance(explicit, (str, os.PathLike)):
            raise ValueError(f"cache must be the path of a writable folder, got {type(explicit).__name__}")
        if not str(explicit).strip():
            raise ValueError("--cache-dir is empty; give a writable folder")
        return Path(explicit).expanduser(), "--cache-dir"
    if os.environ.get(ENV_CACHE):
        return Path(os.environ[ENV_CACHE]).expanduser(), f"${ENV_CACHE}"
    return Path.home() / ".cache" / "ldp-audit", "the default cache folder"


def cache_dir(explicit: str | os.PathLike | None = None) -> Path:
    """A writable folder for torch-geometric's processed files (created when missing).

    A path that is a file, lies under a file, cannot be written or has no room (``files.check_output_folder``) is
    a ``ValueError`` naming where it came from.
    """
    path, source = cache_location(explicit)
    remedy = f"; pass --cache-dir or set ${ENV_CACHE} to a writable folder"
    try:
        check_output_folder(source, path)
        path.mkdir(parents=True, exist_ok=True)
    except OutputError as exc:
        raise OutputError(f"{exc}{remedy}", exc.errno) from None
    except OSError as exc:
        raise OutputError(f"{source} {str(path)!r} is not a writable folder ({exc.strerror or exc}){remedy}",
                          exc.errno) from None
    return path


# ------------------------------------------------------------------------------------------------- loaders

_PLANETOID = {"cora": "Cora", "citeseer": "CiteSeer", "pubmed": "PubMed"}
#: PubMed's TF-IDF weights have no natural bound. We fix the bound from the dataset's documentation (datasets
#: README: non-zero values range from 0.0012 to 1.26), rounded up; it is a constant, never recomputed.
_PUBMED_RANGE = (0.0, 1.3)


#: The raw files torch-geometric's Planetoid reader needs: ``ind.<name>.<suffix>``.
PLANETOID_SUFFIXES = ("x", "tx", "allx", "y", "ty", "ally", "graph", "test.index")


def planetoid_files(name: str, root: Path) -> list[Path]:
    """The eight raw files of a Planetoid dataset under ``root``."""
    folder = root / "planetoid" / _PLANETOID[name] / "raw"
    return [folder / f"ind.{name}.{suffix}" for suffix in PLANETOID_SUFFIXES]


def load_planetoid(name: str, root: Path, cache: Path, verify: bool = True) -> Graph:
    """Cora, CiteSeer or PubMed from the raw Planetoid files, through torch-geometric's ``Planetoid``.

    The raw files are checked first (present and, with ``verify``, equal to ``SHA256SUMS``), then processed in a
    cache folder keyed by their contents (:func:`planetoid_cache`), so that torch-geometric's processed files are
    rebuilt whenever a raw file changes and torch-geometric never finds a reason to download.
    """
    title = _PLANETOID[name]
    files = planetoid_files(name, root)
    source = files[0].parent
    if not source.is_dir():
        raise DatasetFileError(f"Planetoid raw files for {title} not found: no folder {source} (nothing is "
                               "downloaded at run time; see the datasets README)")
    check_files(root, files, name, verify)
    keyed = planetoid_cache(name, files, cache)
    try:
        data = _planetoid(keyed, title)
    except (pickle.UnpicklingError, EOFError, RuntimeError, ValueError, IndexError, TypeError, AttributeError,
            UnicodeDecodeError, OSError) as exc:
        raise DatasetFileError(f"dataset {name}: the cache folder {str(keyed)!r} is damaged ({type(exc).__name__}: "
                               f"{exc}); delete that folder and the next load builds it again") from None
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


def _planetoid(root: Path, title: str):
    """torch-geometric's ``Planetoid(root, title)[0]``, processing the raw copies under ``root`` when nothing is
    processed there yet, with its "Processing... Done!" silenced."""
    from torch_geometric.datasets import Planetoid  # torch is imported only here

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return Planetoid(root=str(root), name=title)[0]


def planetoid_cache(name: str, files: list[Path], cache: Path) -> Path:
    """The cache folder of the raw Planetoid ``files`` (keyed by their contents) holding copies of them and
    torch-geometric's processed files, built when missing: in a temporary folder beside it, then renamed into
    place, so that a failed or killed build (disk full, ``ulimit -f``, SIGKILL) leaves no half-written cache (a
    killed build's temporary folder is removed by the next build there, ``files.remove_stale_temporaries``). A
    write that fails is an ``OutputError`` naming the folder; a raw file that does not parse, a
    ``DatasetFileError`` naming it."""
    title = _PLANETOID[name]
    keyed = cache / "planetoid" / content_key(files)
    if (keyed / title / "processed").is_dir():
        return keyed
    try:
        keyed.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(keyed.parent)
        build = Path(tempfile.mkdtemp(prefix=temporary_prefix(keyed.name), suffix=".tmp", dir=keyed.parent))
    except OSError as exc:
        raise write_failure(keyed, exc) from exc
    try:
        _process_planetoid(name, files, build, keyed)
        _rename_into_place(build, keyed, title)
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return keyed


def _process_planetoid(name: str, files: list[Path], build: Path, keyed: Path) -> None:
    """Copy the raw ``files`` into the folder ``build`` and let torch-geometric process them there (``keyed``, the
    folder ``build`` will become, names it in the errors)."""
    title = _PLANETOID[name]
    try:
        (build / title / "raw").mkdir(parents=True)
        for file in files:
            shutil.copyfile(file, build / title / "raw" / file.name)
        _planetoid(build, title)
    except OSError as exc:
        raise write_failure(keyed, exc) from exc
    except (pickle.UnpicklingError, EOFError, ValueError, IndexError, TypeError, AttributeError,
            UnicodeDecodeError) as exc:
        raise DatasetFileError(f"dataset {name}: {_unreadable_planetoid(files)} could not be read in "
                               f"{files[0].parent} ({type(exc).__name__}: {exc}); restore it from the source the "
                               "datasets README names") from None


def _rename_into_place(build: Path, keyed: Path, title: str) -> None:
    """Rename the finished cache ``build`` to ``keyed``; a process that finished the same cache first wins (its
    folder is as good), and an unfinished folder there (left by an earlier version) is named for removal."""
    try:
        os.rename(build, keyed)
    except OSError as exc:
        if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
            raise write_failure(keyed, exc) from exc
        if not (keyed / title / "processed").is_dir():
            raise DatasetFileError(f"the cache folder {str(keyed)!r} holds an unfinished build; delete that folder "
                                   "and the next load builds it again") from None


def _unreadable_planetoid(files: list[Path]) -> str:
    """The first raw Planetoid file that does not unpickle (or parse), named for an error message."""
    for path in files:
        try:
            if path.name.endswith(".test.index"):
                np.loadtxt(path, dtype=np.int64, ndmin=1)
            else:
                with open(path, "rb") as handle:
                    pickle.load(handle, encoding="latin1")
        except Exception:  # noqa: BLE001 - any failure marks the culprit; the caller reports the original error
            return f"the file {path.name}"
    return "a raw file"


def _bad_line(path: Path, header: bool, columns: tuple[int, ...], kind: type, delimiter: str | None) -> str:
    """Where ``path`` stops being a table: ``line N: 'text'`` of the first row whose ``columns`` do not parse."""
    with open(path, errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            if (header and number == 1) or not line.strip():
                continue
            fields = line.strip().split(delimiter)
            try:
                for column in columns:
                    kind(fields[column].strip())
            except (IndexError, ValueError):
                return f"line {number}: {line.strip()[:80]!r}"
    return "somewhere"


def _read_table(path: Path, dataset: str, header: bool, columns: tuple[int, ...], kind: type = int,
                delimiter: str | None = ",") -> np.ndarray:
    """The ``columns`` of a CSV (or whitespace-separated) file as a 2-D array; a malformed row is a
    :class:`DatasetFileError` naming the file, the line and what was expected."""
    dtype = np.int64 if kind is int else np.float64
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "input contained no data": reported below
            rows = np.loadtxt(path, delimiter=delimiter, skiprows=int(header), dtype=dtype, usecols=columns,
                              ndmin=2)
    except ValueError:
        raise DatasetFileError(f"dataset {dataset}: {path}, {_bad_line(path, header, columns, kind, delimiter)}: "
                               f"expected {len(columns)} {'integer' if kind is int else 'numeric'} column(s) "
                               f"{', '.join(str(c + 1) for c in columns)}") from None
    except UnicodeDecodeError:
        raise DatasetFileError(f"dataset {dataset}: {path} is not a text table") from None
    if rows.shape[0] == 0:
        raise DatasetFileError(f"dataset {dataset}: {path} has no data rows")
    return rows


def _check_ids(values: np.ndarray, path: Path, dataset: str, what: str, header: bool,
               high: int | None = None) -> None:
    """Node or feature ids must be >= 0 (and < ``high``): a negative id would silently wrap around."""
    table = values.reshape(len(values), -1)
    wrong = (table < 0) | (table >= high if high is not None else False)
    if wrong.any():
        row = int(np.flatnonzero(wrong.any(axis=1))[0])
        allowed = f"in [0, {high - 1}]" if high is not None else ">= 0"
        raise DatasetFileError(f"dataset {dataset}: {path}, data row {row + 1} (line {row + 1 + int(header)}): "
                               f"{what} {int(table[row][wrong[row]][0])} is out of range (allowed {allowed})")


def _read_pairs(path: Path, dataset: str) -> np.ndarray:
    """A (2, m) int64 array from a CSV with a header line or a whitespace-separated file without one."""
    with open(path, errors="replace") as handle:
        first = handle.readline()
    header = "," in first
    rows = _read_table(path, dataset, header, (0, 1), int, "," if header else None)
    for column in (0, 1):
        _check_ids(rows[:, column], path, dataset, "node id", header)
    return rows.T


def _read_target(path: Path, dataset: str) -> np.ndarray:
    """A ``node,target`` CSV as a vector indexed by node: node ids must be 0..n-1, each once."""
    rows = _read_table(path, dataset, True, (0, 1))
    _check_ids(rows[:, 0], path, dataset, "node id", True, rows.shape[0])
    counts = np.bincount(rows[:, 0], minlength=rows.shape[0])
    if (counts != 1).any():
        node = int(np.flatnonzero(counts != 1)[0])
        raise DatasetFileError(f"dataset {dataset}: {path}: node {node} appears {int(counts[node])} times; every "
                               f"node 0..{rows.shape[0] - 1} must have exactly one target row")
    target = np.empty(rows.shape[0], dtype=np.int64)
    target[rows[:, 0]] = rows[:, 1]
    return target


def _read_feature_file(path: Path, num_nodes: int, dim: int | None, dataset: str) -> sp.csr_matrix:
    """MUSAE/FEATHER features: JSON ``{"node": [feature ids]}`` or karateclub CSV ``node_id,feature_id,value``."""
    if path.suffix == ".json":
        try:
            text = read_regular(path, _MAX_JSON_BYTES)
        except (OSError, ValueError) as exc:
            raise DatasetFileError(f"dataset {dataset}: {path} cannot be read: "
                                   f"{exc.strerror if isinstance(exc, OSError) else exc}") from None
        try:
            lists = json.loads(text)
            rows = np.concatenate([np.full(len(ids), int(node), dtype=np.int64) for node, ids in lists.items()])
            cols = np.concatenate([np.asarray(ids, dtype=np.int64) for ids in lists.values()])
        except RecursionError:
            raise DatasetFileError(f"dataset {dataset}: {path} is not a JSON object of node -> feature id lists "
                                   "(it is nested too deeply to parse; such a file nests two levels)") from None
        except (ValueError, TypeError, AttributeError) as exc:
            raise DatasetFileError(f"dataset {dataset}: {path} is not a JSON object of node -> feature id lists "
                                   f"({type(exc).__name__}: {exc})") from None
        vals = np.ones(rows.size)
        header = False
    else:
        table = _read_table(path, dataset, True, (0, 1, 2), float)
        rows, cols, vals = table[:, 0].astype(np.int64), table[:, 1].astype(np.int64), table[:, 2]
        header = True
    _check_ids(rows, path, dataset, "node id", header, num_nodes)
    _check_ids(cols, path, dataset, "feature id", header, dim)
    width = dim if dim is not None else int(cols.max()) + 1
    x = sp.csr_matrix((vals, (rows, cols)), shape=(num_nodes, width))
    x.sum_duplicates()
    return x


#: Largest feature JSON read: 500 times the largest shipped one (Facebook's, 2.1 MB); parsing takes about ten
#: times a file's size in memory, so a larger file is refused before it is read.
_MAX_JSON_BYTES = 2 ** 30


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


def load_musae(name: str, root: Path, with_features: bool = True, verify: bool = True) -> Graph:
    """A MUSAE/FEATHER graph: edges CSV, target CSV, features JSON/CSV when present.

    Chameleon's target is integer traffic, not a class, so it is kept in ``extra["traffic"]``.
    """
    spec = _MUSAE[name]
    folder = root / spec.folder
    if not folder.is_dir():
        raise DatasetFileError(f"dataset {name}: the folder {folder} is missing (nothing is downloaded at run "
                               "time; see the datasets README)")
    target_file = folder / (spec.target or "chameleon_target.csv")
    present = [folder / f for f in spec.feature_files if (folder / f).is_file()]
    check_files(root, [folder / spec.edges, target_file] + present[:1], name, verify)
    pairs = _read_pairs(folder / spec.edges, name)
    target = _read_target(target_file, name)
    _check_ids(pairs.T, folder / spec.edges, name, "node id", True, target.size)
    extra = {}
    num_nodes = target.size
    if spec.target is not None:
        _check_ids(target, target_file, name, "class label", True)
        y, num_classes = target, int(target.max()) + 1
    else:
        y, num_classes = None, 0
        extra["traffic"] = target
    edges, loops = canonical_edges(pairs, num_nodes)
    x, missing = None, None
    if present and with_features:
        x = _read_feature_file(present[0], num_nodes, spec.feature_dim, name)
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
    if not isinstance(graph, Graph):
        raise TypeError(f"graph must be a Graph (ldp_audit.models.data.load returns one; load(name) for a dataset "
                        f"name), got {type(graph).__name__} {graph!r}")
    count = check_int(count, "count", 1)
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


def edge_file(name: str, root: Path) -> Path:
    """The file under ``root`` that lists the edges of ``name``: ``se_privgemb/<Name>/train_1`` for SE-PrivGEmb's
    edge lists, the MUSAE folder's edge CSV otherwise."""
    if name in _EDGE_LISTS:
        return root / "se_privgemb" / _EDGE_LISTS[name] / "train_1"
    if name in _MUSAE:
        return root / _MUSAE[name].folder / _MUSAE[name].edges
    raise ValueError(f"name must be one of {', '.join([*_EDGE_LISTS, *_MUSAE])} (datasets with an edge file), "
                     f"got {name!r}")


def listed_edges(name: str, data: str | os.PathLike | Unverified | None = None, verify: bool = True) -> np.ndarray:
    """The (2, m) node pairs of ``name``'s edge file (:func:`edge_file`) in the order the file lists them, as
    listed: no canonical order, duplicates or self-loops removed (:func:`load` canonicalises them). The file is
    checked like :func:`load`'s."""
    root, verify = dataset_folder(data, verify)
    path = edge_file(name, root)
    check_files(root, [path], name, verify)
    return _read_pairs(path, name)


def load_edge_list(name: str, root: Path, verify: bool = True) -> Graph:
    """An SE-PrivGEmb graph: ``se_privgemb/<Name>/train_1``, one whitespace-separated pair per line."""
    path = edge_file(name, root)
    check_files(root, [path], name, verify)
    pairs = _read_pairs(path, name)
    edges, loops = canonical_edges(pairs, int(pairs.max()) + 1)
    return Graph(name=name, num_nodes=int(pairs.max()) + 1, edges=edges, num_self_loops=loops,
                 source=f"SE-PrivGEmb edge list ({path})")


def load_link_split(name: str, train_fraction: float = 0.9, data: str | os.PathLike | Unverified | None = None,
                    verify: bool = True) -> dict:
    """SE-PrivGEmb's stored link-prediction split: ``train_pos``, ``train_neg``, ``test_pos``, ``test_neg`` (the
    file checked like :func:`load`'s)."""
    if name not in _EDGE_LISTS:
        raise ValueError(f"name must be one of {', '.join(_EDGE_LISTS)}, got {name!r}")
    tags = {0.9: "train0.9_test0.1", 0.5: "train0.5_test0.5"}
    if train_fraction not in tags:
        raise ValueError(f"train_fraction must be 0.9 or 0.5, got {train_fraction!r}")
    root, verify = dataset_folder(data, verify)
    path = root / "se_privgemb" / _EDGE_LISTS[name] / f"lp_split_{tags[train_fraction]}.npz"
    check_files(root, [path], name, verify)
    try:
        with np.load(path) as npz:
            return {key: npz[key] for key in ("train_pos", "train_neg", "test_pos", "test_neg")}
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise DatasetFileError(f"dataset {name}: {path} is not a readable link split with train_pos, "
                               f"train_neg, test_pos and test_neg ({type(exc).__name__}: {exc})") from None


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


def load(name: str, data: str | os.PathLike | Unverified | None = None, cache: str | os.PathLike | None = None,
         with_features: bool = True, verify: bool = True, **synthetic) -> Graph:
    """Load a dataset by name (see :func:`names`; paper aliases such as ``lastfm`` are accepted).

    ``data`` is the dataset folder (:func:`data_dir`), ``cache`` the writable folder for torch-geometric
    (:func:`cache_dir`). Every file read is checked against the folder's ``SHA256SUMS`` first; ``verify=False``
    (or ``data`` given as :class:`Unverified`) reads a folder without one, or a file without a line, unchecked.
    ``karate`` and ``csbm`` are embedded; ``synthetic`` keywords go to :func:`csbm` and are refused for any
    other dataset (a TypeError naming them, as Python's own for an unknown keyword).
    """
    from . import synthetic as embedded

    if not isinstance(name, str):
        raise ValueError(f"name must be a dataset name (one of {', '.join(names())}), got {name!r}")
    key = ALIASES.get(name.lower(), name.lower())
    if synthetic and key != "csbm":
        raise TypeError(f"load() got unexpected keyword argument(s) {', '.join(map(repr, synthetic))}: dataset "
                        f"{name!r} takes data, cache, with_features and verify; keywords of the synthetic "
                        "generator are for 'csbm' only")
    with_features = check_flag(with_features, "with_features")
    if key == "karate":
        return embedded.karate()
    if key == "csbm":
        return embedded.csbm(**synthetic)
    if key not in DATASETS:
        raise ValueError(f"dataset must be one of {', '.join(names())} (aliases {', '.join(ALIASES)}); "
                         f"got {name!r}")
    root, verify = dataset_folder(data, verify)
    if key in _PLANETOID:
        return load_planetoid(key, root, cache_dir(cache), verify)
    if key == "lastfm_asia_top10":
        return top_classes(load_musae("lastfm_asia", root, with_features, verify), 10, name=key)
    if key in _MUSAE:
        return load_musae(key, root, with_features, verify)
    return load_edge_list(key, root, verify)


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

#: Bytes a node split needs per node: the permutation (int64) and the sorted parts.
_SPLIT_BYTES_PER_NODE = 16


def node_split(num_nodes: int, seed: int, fractions=(0.5, 0.25, 0.25)) -> tuple[np.ndarray, ...]:
    """A seeded random split of the nodes into train / validation / test (50/25/25 by default, ldp-ge §8.1)."""
    num_nodes = check_count(num_nodes, "num_nodes")
    check_size("num_nodes", num_nodes, _SPLIT_BYTES_PER_NODE, "a random split of the nodes")
    fractions = _check_fractions(fractions)
    order = rng_for(check_seed(seed)).permutation(num_nodes)
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
    if not isinstance(graph, Graph):
        raise ValueError(f"graph must be a Graph (ldp_audit.models.data.load returns one), got {type(graph).__name__}")
    fractions = _check_fractions(fractions)
    rng = rng_for(check_seed(seed))
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
    """Three finite non-negative numbers summing to 1 (train, validation, test)."""
    try:
        values = np.asarray(fractions, dtype=float)
    except (TypeError, ValueError):
        values = np.full(0, np.nan)
    if values.shape != (3,) or not np.all(np.isfinite(values)) or (values < 0).any() or abs(values.sum() - 1.0) > 1e-9:
        raise ValueError(f"fractions must be three non-negative numbers summing to 1, got {fractions!r}")
    return values
