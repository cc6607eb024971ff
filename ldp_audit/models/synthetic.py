"""Embedded graphs that need no data files: Zachary's karate club and a contextual stochastic block model.

Both return a :class:`ldp_audit.models.data.Graph`, so every pipeline stage can run (and be tested) without
the real datasets. The contextual SBM follows the recommendation of ppgnn spec §7 item 14 and lpgnn spec
§7.4: classes, a homophily level, sparse binary features whose rates depend on the class.
"""
from __future__ import annotations

from numbers import Real

import numpy as np
import scipy.sparse as sp

from ..mechanisms.validation import (available_memory, check_count, check_dimension, check_int, check_memory,
                                     check_seed, check_size)
from ..seeding import rng_for
from .graph import Graph, canonical_edges

#: Zachary (1977), "An information flow model for conflict and fission in small groups": 34 members, 78 ties.
#: The same list ships with networkx (``karate_club_graph``) and torch-geometric (``KarateClub``).
_KARATE_EDGES = (
    (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (0, 7), (0, 8), (0, 10), (0, 11), (0, 12), (0, 13),
    (0, 17), (0, 19), (0, 21), (0, 31), (1, 2), (1, 3), (1, 7), (1, 13), (1, 17), (1, 19), (1, 21), (1, 30),
    (2, 3), (2, 7), (2, 8), (2, 9), (2, 13), (2, 27), (2, 28), (2, 32), (3, 7), (3, 12), (3, 13), (4, 6),
    (4, 10), (5, 6), (5, 10), (5, 16), (6, 16), (8, 30), (8, 32), (8, 33), (9, 33), (13, 33), (14, 32),
    (14, 33), (15, 32), (15, 33), (18, 32), (18, 33), (19, 33), (20, 32), (20, 33), (22, 32), (22, 33),
    (23, 25), (23, 27), (23, 29), (23, 32), (23, 33), (24, 25), (24, 27), (24, 31), (25, 31), (26, 29),
    (26, 33), (27, 33), (28, 31), (28, 33), (29, 32), (29, 33), (30, 32), (30, 33), (31, 32), (31, 33),
    (32, 33),
)
#: The club each member joined after the split (0 = Mr. Hi, 1 = Officer).
_KARATE_CLUB = (0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                1, 1, 1, 1)


def karate() -> Graph:
    """Zachary's karate club (34 nodes, 78 edges, 2 classes, no features); the reference graph of ldp-ge C11."""
    edges = np.asarray(_KARATE_EDGES, dtype=np.int64).T
    return Graph(name="karate", num_nodes=34, edges=edges, y=np.asarray(_KARATE_CLUB, dtype=np.int64),
                 num_classes=2, source="embedded (Zachary 1977)")


#: Peak bytes of :func:`csbm`, measured with tracemalloc and rounded up: per node (labels, class members), per
#: feature cell (the n x d rates, uniform draws, mask and float copy) and per edge draw (endpoints, partner
#: classes, the pairs and their de-duplication).
_BYTES_PER_NODE, _BYTES_PER_FEATURE, _BYTES_PER_DRAW = 24, 26, 110
#: Share of this machine's memory one graph may take (as the command line's checks allow a run).
_MEMORY_FRACTION = 0.75


def csbm(n: int = 1000, classes: int = 4, avg_degree: float = 4.0, homophily: float = 0.8, d: int = 200,
         base_rate: float = 0.02, signal: float = 0.1, seed: int = 0) -> Graph:
    """A contextual stochastic block model with sparse binary features.

    Nodes get uniform random classes. ``round(n * avg_degree / 2)`` edge draws each pick a uniform endpoint u
    and, with probability ``homophily``, a partner of u's class, otherwise one of another class; duplicates
    and self-loops are dropped (so the realised average degree is slightly below ``avg_degree``). Feature
    column j belongs to class ``j % classes``; a node has feature j with probability ``base_rate + signal``
    when j belongs to its class and ``base_rate`` otherwise. Features are binary, so their public range is
    [0, 1] (ldp-ge A1).
    """
    n = check_count(n, "n", 2)
    classes = check_int(classes, "classes", 1, n)
    d = check_dimension(d, "d")
    seed = check_seed(seed)
    for name, value in (("avg_degree", avg_degree), ("homophily", homophily), ("base_rate", base_rate),
                        ("signal", signal)):
        _check_real(name, value)
    if not 0.0 < avg_degree <= n - 1:
        raise ValueError(f"avg_degree must lie in (0, n - 1] = (0, {n - 1}] (no node of a simple graph on n = {n} "
                         f"nodes has more neighbours), got {avg_degree!r}")
    if not 0.0 <= homophily <= 1.0:
        raise ValueError(f"homophily must lie in [0, 1], got {homophily!r}")
    if classes == 1 and homophily < 1.0:
        raise ValueError("homophily must be 1 when classes == 1 (there is no other class to link to)")
    if not (0.0 <= base_rate and 0.0 <= signal and base_rate + signal <= 1.0):
        raise ValueError(f"base_rate and signal must be >= 0 with base_rate + signal <= 1, "
                         f"got {base_rate!r} and {signal!r}")
    _check_memory(n, d, avg_degree)
    rng = rng_for(seed)
    y = rng.integers(0, classes, size=n)
    members = [np.flatnonzero(y == c) for c in range(classes)]
    draws = int(round(n * avg_degree / 2))
    u = rng.integers(0, n, size=draws)
    same = rng.random(draws) < homophily
    target = np.where(same, y[u], (y[u] + rng.integers(1, max(classes, 2), size=draws)) % classes)
    v = np.empty(draws, dtype=np.int64)
    for c in range(classes):  # loop over classes only; every draw is vectorised
        pick = target == c
        if members[c].size == 0:
            v[pick] = u[pick]  # no partner available: becomes a self-loop and is dropped
        else:
            v[pick] = members[c][rng.integers(0, members[c].size, size=int(pick.sum()))]
    edges, _ = canonical_edges(np.stack([u, v]), n)
    rates = np.where((np.arange(d)[None, :] % classes) == y[:, None], base_rate + signal, base_rate)
    x = sp.csr_matrix((rng.random((n, d)) < rates).astype(np.float64))
    return Graph(name="csbm", num_nodes=n, edges=edges,
                 x=x, feature_range=(0.0, 1.0), range_source="binary features", y=y.astype(np.int64),
                 num_classes=classes,
                 source=f"embedded contextual SBM (n={n}, classes={classes}, avg_degree={avg_degree}, "
                        f"homophily={homophily}, d={d}, base_rate={base_rate}, signal={signal}, seed={seed})")


def _check_memory(n: int, d: int, avg_degree: float) -> None:
    """Refuse a graph whose arrays would not fit in memory (``validation.check_memory``, the CLI's check), naming
    ``avg_degree`` when its edge draws take most of it, else ``n``, with the largest value that fits."""
    nodes = n * (_BYTES_PER_NODE + _BYTES_PER_FEATURE * d)
    draws = _BYTES_PER_DRAW * n * avg_degree / 2
    what = f"a contextual SBM of n = {n:,} nodes, d = {d} features and avg_degree = {avg_degree:g}"
    if draws > nodes:
        largest = max(0.0, (_MEMORY_FRACTION * available_memory() - nodes) / (_BYTES_PER_DRAW * n / 2))
        check_memory("avg_degree", nodes + draws, what, _MEMORY_FRACTION, f"{largest:.4g}")
    else:
        check_size("n", n, (nodes + draws) / n, what, fraction=_MEMORY_FRACTION)


def _check_real(name: str, value) -> None:
    """``value`` must be a finite real number: a string or a bool is a TypeError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    if not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
