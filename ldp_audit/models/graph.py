"""The one graph type of the package: an undirected graph with optional features and labels.

Loaders (:mod:`.data`), generators (:mod:`.synthetic`) and every pipeline share it, so it lives on its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp


class MissingFeaturesError(FileNotFoundError, ValueError):
    """Features were requested for a dataset whose feature file is not in the data folder.

    It is a ``ValueError`` too, so the CLI reports it as a usage problem (exit 2) with its message.
    """


def canonical_edges(pairs: np.ndarray, num_nodes: int) -> tuple[np.ndarray, int]:
    """Unique undirected pairs (u < v, sorted) from a (2, m) array of pairs; returns them and the self-loop count.

    The self-loop count is the number of distinct nodes with a loop, as torch-geometric's ``coalesce`` keeps it.
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(2, -1)
    if pairs.size and (pairs.min() < 0 or pairs.max() >= num_nodes):
        raise ValueError(f"edge endpoints must lie in [0, {num_nodes - 1}], got range "
                         f"[{pairs.min()}, {pairs.max()}]")
    loops = pairs[0] == pairs[1]
    num_loops = int(np.unique(pairs[0, loops]).size)
    lo = np.minimum(pairs[0, ~loops], pairs[1, ~loops])
    hi = np.maximum(pairs[0, ~loops], pairs[1, ~loops])
    keys = np.unique(lo * num_nodes + hi)
    return np.stack([keys // num_nodes, keys % num_nodes]), num_loops


@dataclass(frozen=True, eq=False)
class Graph:
    """An undirected graph with optional node features and labels.

    Attributes:
        name: dataset name.
        num_nodes: n; nodes are 0..n-1.
        edges: (2, E) int64, each undirected edge once with u < v, no self-loops.
        x: raw features, an (n, d) scipy CSR matrix, or ``None`` when absent (see ``missing_features``).
        feature_range: public bounds (lo, hi) of the raw features, used by :meth:`normalized_features`.
        range_source: why those bounds are public (ldp-ge A1 forbids bounds computed from the data).
        y: integer labels or ``None``; num_classes: number of classes (0 without labels).
        num_self_loops: self-loops present in the files (dropped from ``edges``).
        missing_features: message naming the missing feature file and where to put it, when absent.
        source: where the data came from.
    """

    name: str
    num_nodes: int
    edges: np.ndarray
    x: sp.csr_matrix | None = None
    feature_range: tuple[float, float] | None = None
    range_source: str = ""
    y: np.ndarray | None = None
    num_classes: int = 0
    num_self_loops: int = 0
    missing_features: str | None = None
    source: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def num_edges(self) -> int:
        """Unique undirected edges without self-loops."""
        return int(self.edges.shape[1])

    def papers_edges(self, rule: str = "pyg") -> int:
        """The edge count as the papers give it.

        ``"pyg"``: torch-geometric's ``num_edges // 2`` after ``to_undirected`` with loops kept, i.e. unique
        edges + floor(self-loops / 2) (LPGNN, PPGNN, LDP-GE); ``"snap"``: unique edges + self-loops (SNAP,
        SE-PrivGEmb's Chameleon).
        """
        if rule == "pyg":
            return self.num_edges + self.num_self_loops // 2
        if rule == "snap":
            return self.num_edges + self.num_self_loops
        raise ValueError(f"rule must be 'pyg' or 'snap', got {rule!r}")

    @property
    def num_features(self) -> int:
        return 0 if self.x is None else int(self.x.shape[1])

    @cached_property
    def adjacency(self) -> sp.csr_matrix:
        """Symmetric 0/1 adjacency A (n x n CSR, float64, no self-loops)."""
        u, v = self.edges
        data = np.ones(2 * u.size)
        return sp.csr_matrix((data, (np.concatenate([u, v]), np.concatenate([v, u]))),
                             shape=(self.num_nodes, self.num_nodes))

    @cached_property
    def degrees(self) -> np.ndarray:
        return np.bincount(self.edges.ravel(), minlength=self.num_nodes).astype(np.int64)

    def features(self) -> sp.csr_matrix:
        """The raw feature matrix; raises :class:`MissingFeaturesError` with instructions when absent."""
        if self.x is None:
            raise MissingFeaturesError(self.missing_features or f"dataset {self.name!r} has no node features")
        return self.x

    def normalized_features(self, columns=None, clip: bool = False) -> np.ndarray:
        """Features mapped into [-1, 1] with the public bounds: x -> 2 (x - lo) / (hi - lo) - 1 (ldp-ge A1).

        Binary features become 2x - 1. The bounds are fixed per dataset (``range_source`` says why) and never
        computed from the loaded values (ldp-ge E13, lpgnn E10). A value outside them raises ``ValueError``
        unless ``clip`` is set (LPGNN §5: users clip into [alpha, beta]). ``columns`` selects a subset of
        feature columns, which keeps the dense result small on wide datasets. Returns a dense float64 array.
        """
        x = self.features()
        if columns is not None:
            x = x[:, np.asarray(columns)]
        lo, hi = self.feature_range
        dense = x.toarray().astype(np.float64)
        if not clip and (dense.min(initial=lo) < lo or dense.max(initial=hi) > hi):
            raise ValueError(f"features of {self.name} leave the public range [{lo}, {hi}] "
                             f"(min {dense.min()}, max {dense.max()}); pass clip=True to clip them")
        return 2.0 * (np.clip(dense, lo, hi) - lo) / (hi - lo) - 1.0

    def subgraph(self, nodes: np.ndarray, name: str | None = None) -> "Graph":
        """The node-induced subgraph on ``nodes`` (relabelled 0..len-1 in the given order)."""
        nodes = np.asarray(nodes, dtype=np.int64)
        new_id = np.full(self.num_nodes, -1, dtype=np.int64)
        new_id[nodes] = np.arange(nodes.size)
        u, v = new_id[self.edges]
        keep = (u >= 0) & (v >= 0)
        edges, _ = canonical_edges(np.stack([u[keep], v[keep]]), nodes.size)
        y = None if self.y is None else self.y[nodes]
        return Graph(name=name or f"{self.name}[{nodes.size} nodes]", num_nodes=int(nodes.size), edges=edges,
                     x=None if self.x is None else self.x[nodes], feature_range=self.feature_range,
                     range_source=self.range_source, y=y, num_classes=self.num_classes,
                     missing_features=self.missing_features, source=self.source)
