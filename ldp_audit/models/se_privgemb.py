"""SE-PrivGEmb (Zhang, Ye, Hu 2025): structure-preference skip-gram embeddings trained with DP-SGD.

Pipeline (spec ``se-privgemb.md``):

* proximities P (Section II-D; adjacency, common neighbours, DeepWalk (P~ + P~^2)/2 with P~ = D^-1 A, node
  degree, personalised PageRank, Katz), computed on sparse matrices, per edge where the graph is large;
* the subgraph set of Algorithm 1 (one subgraph per edge with k frozen negatives; negatives uniform with
  rejection (M7b), proportional to 1/d^P (authors' code, M7c) or to d^P (M7d));
* the weighted skip-gram loss of Eq. 5 and its closed-form per-subgraph gradients (Eqs. 7-8);
* training per Algorithm 2: per-subgraph clipping (Eq. 3), Gaussian noise on the touched rows only (Eq. 9,
  ``perturbation="nonzero"``) or on every row (Eq. 6, ``"all"``), Poisson or without-replacement batches,
  and a stop rule driven by the :class:`ldp_audit.accounting.RdpAccountant` the caller hands in;
* metrics: StrucEqu (Pearson correlation of pairwise distances; the spec's evaluation and the released code's
  row pairing) with a degree-only and a permuted control, and link-prediction ROC-AUC.

torch is imported inside the functions that need it; training runs on CUDA when available.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..accounting import RdpAccountant
from .. import streams
from ..seeding import rng_for
from .propagation import DENSE_LIMIT, ppr_exact

PROXIMITIES = ("adjacency", "common-neighbours", "deepwalk", "degree", "ppr", "katz")
NEGATIVES = ("uniform", "inverse-proximity", "degree")
PERTURBATIONS = ("nonzero", "all", "none")
CLIPPINGS = ("per-subgraph", "joint", "batch", "none")
SAMPLINGS = ("without-replacement", "poisson")


# ------------------------------------------------------------------------------------------ proximities
def _adjacency(adj) -> sp.csr_matrix:
    a = sp.csr_matrix(adj, dtype=np.float64)
    a.setdiag(0)
    a.eliminate_zeros()
    a.data[:] = 1.0
    return a


def proximity_matrix(adj, kind: str, restart: float = 0.15, beta: float | None = None) -> np.ndarray:
    """The full |V| x |V| proximity matrix as a dense array (small graphs: Theorem 3 checks, PPR, Katz).

    deepwalk: P = (P~ + P~^2)/2, P~ = D^-1 A (TADW); degree: d_i d_j / max_{(u,v) in E} d_u d_v (spec U1);
    ppr: a (I - (1-a) P~)^-1; katz: (I - beta A)^-1 - I with beta < 1/lambda_max (default 0.5/lambda_max).
    """
    a = _adjacency(adj)
    n = a.shape[0]
    if n > DENSE_LIMIT:
        raise ValueError(f"proximity_matrix densifies |V| x |V|; |V| must be <= {DENSE_LIMIT}, got {n}")
    if kind in ("adjacency", "common-neighbours", "deepwalk", "degree"):
        return _sparse_proximity(a, kind).toarray()
    if kind == "ppr":
        if not 0.0 < restart < 1.0:
            raise ValueError(f"restart must lie in (0, 1), got {restart!r}")
        return ppr_exact(a, restart, 0.0)  # r = 0: the walk D^-1 A
    if kind == "katz":
        dense = a.toarray()
        lam = float(np.max(np.abs(np.linalg.eigvalsh(dense))))
        beta = 0.5 / lam if beta is None else beta
        if not 0.0 < beta < 1.0 / lam:
            raise ValueError(f"beta must lie in (0, 1/lambda_max = {1 / lam:.4g}), got {beta!r}")
        return np.linalg.inv(np.eye(n) - beta * dense) - np.eye(n)
    raise ValueError(f"proximity must be one of {', '.join(PROXIMITIES)}; got {kind!r}")


def _sparse_proximity(a: sp.csr_matrix, kind: str) -> sp.csr_matrix:
    d = np.asarray(a.sum(axis=1)).ravel()
    inv_d = sp.diags(np.where(d > 0, 1.0 / np.maximum(d, 1.0), 0.0))
    if kind == "adjacency":
        return a.copy()
    if kind == "common-neighbours":
        return (a @ a).tocsr()
    if kind == "deepwalk":
        walk = inv_d @ a
        return ((walk + walk @ walk) / 2.0).tocsr()
    if kind == "degree":
        u, v = sp.triu(a).nonzero()
        scale = float(np.max(d[u] * d[v]))
        return sp.csr_matrix(np.outer(d, d) / scale)
    raise ValueError(f"sparse proximity must be adjacency, common-neighbours, deepwalk or degree; got {kind!r}")


def edge_proximity(adj, kind: str, src: np.ndarray, dst: np.ndarray, **options) -> np.ndarray:
    """p_ij for the given (i, j) pairs only, without forming P (spec U11).

    DeepWalk per pair: p_ij = (A_ij + sum_{m in N(i) & N(j)} 1/d_m) / (2 d_i).
    """
    a = _adjacency(adj)
    d = np.asarray(a.sum(axis=1)).ravel()
    src, dst = np.asarray(src), np.asarray(dst)
    if kind == "adjacency":
        return np.asarray(a[src, dst]).ravel()
    if kind in ("common-neighbours", "deepwalk"):
        scaled = a @ sp.diags(np.where(d > 0, 1.0 / np.maximum(d, 1.0), 0.0)) if kind == "deepwalk" else a
        common = np.asarray(a[src].multiply(scaled[dst]).sum(axis=1)).ravel()
        if kind == "common-neighbours":
            return common
        return (np.asarray(a[src, dst]).ravel() + common) / (2.0 * np.maximum(d[src], 1.0))
    if kind == "degree":
        u, v = sp.triu(a).nonzero()
        return d[src] * d[dst] / float(np.max(d[u] * d[v]))
    return proximity_matrix(a, kind, **options)[src, dst]


def proximity_row_sums(adj, kind: str, **options) -> np.ndarray:
    """d^P_i = sum_j p_ij (closed forms; 0 for isolated nodes)."""
    a = _adjacency(adj)
    d = np.asarray(a.sum(axis=1)).ravel()
    if kind == "adjacency":
        return d
    if kind == "common-neighbours":
        return a @ d
    if kind == "deepwalk":
        return (d > 0).astype(float)
    if kind == "degree":
        u, v = sp.triu(a).nonzero()
        return d * d.sum() / float(np.max(d[u] * d[v]))
    return proximity_matrix(a, kind, **options).sum(axis=1)


# ------------------------------------------------------------------------------------- Algorithm 1
@dataclass(frozen=True)
class Subgraphs:
    """G_S of Algorithm 1 as arrays: subgraph s = (centre[s], context[s], negatives[s, :], weight[s])."""

    centre: np.ndarray
    context: np.ndarray
    negatives: np.ndarray
    weight: np.ndarray
    num_nodes: int
    c: float  # smallest positive proximity over the pairs used (spec U11)

    def __len__(self) -> int:
        return int(self.centre.size)

    @property
    def k(self) -> int:
        return int(self.negatives.shape[1])


def _edge_keys(a: sp.csr_matrix) -> np.ndarray:
    coo = a.tocoo()
    return np.sort(coo.row.astype(np.int64) * a.shape[0] + coo.col)


def build_subgraphs(adj, edges: np.ndarray, proximity: str = "deepwalk", k: int = 5, negatives: str = "uniform",
                    orientation: str = "listed", seed: int = 0) -> Subgraphs:
    """Algorithm 1: one subgraph per undirected edge, its k negatives drawn once and frozen.

    ``negatives``: "uniform" (Alg. 1 line 6, M7b), "inverse-proximity" (authors' code, M7c: proportional to
    1/d^P_n) or "degree" (M7d: proportional to d^P_n). In every case a candidate n with (i, n) in E is
    rejected and redrawn (the centre itself may be drawn). ``orientation``: "listed" (paper) or "random"
    (a public coin per edge, spec U2).
    """
    if not (isinstance(k, int) and k >= 1):
        raise ValueError(f"k (negatives per subgraph) must be an integer >= 1, got {k!r}")
    if negatives not in NEGATIVES:
        raise ValueError(f"negatives must be one of {', '.join(NEGATIVES)}; got {negatives!r}")
    if orientation not in ("listed", "random"):
        raise ValueError(f"orientation must be 'listed' or 'random'; got {orientation!r}")
    a = _adjacency(adj)
    n = a.shape[0]
    edges = np.asarray(edges, dtype=np.int64)
    if edges.ndim != 2 or edges.shape[0] != 2 or edges.shape[1] == 0:
        raise ValueError(f"edges must be a non-empty (2, m) integer array, got shape {edges.shape}")
    rng = rng_for(seed)
    src, dst = edges
    if orientation == "random":
        flip = rng.random(src.size) < 0.5
        src, dst = np.where(flip, dst, src), np.where(flip, src, dst)
    weight = edge_proximity(a, proximity, src, dst)
    row_sums = proximity_row_sums(a, proximity)
    if negatives == "uniform":
        probs = None
    else:
        mass = np.where(row_sums > 0, 1.0 / np.where(row_sums > 0, row_sums, 1.0), 0.0) \
            if negatives == "inverse-proximity" else row_sums
        probs = mass / mass.sum()
    keys = _edge_keys(a)
    neg = rng.choice(n, size=(src.size, k), p=probs)
    while True:  # redraw rejected candidates, all at once per round
        cand = src[:, None] * n + neg
        pos = np.minimum(np.searchsorted(keys, cand), keys.size - 1)
        bad = keys[pos] == cand
        if not bad.any():
            break
        neg[bad] = rng.choice(n, size=int(bad.sum()), p=probs)
    positive = weight[weight > 0]
    return Subgraphs(src, dst, neg, weight, n, float(positive.min()) if positive.size else 0.0)


# ----------------------------------------------------------------------------- loss and gradients
def subgraph_loss(w_in, w_out, centre, context, negatives, weight):
    """Eq. 5 in sampled form, per subgraph: -p_ij [log s(x_ij) + sum_l log s(-x_{i n_l})] (torch)."""
    import torch.nn.functional as F

    vi = w_in[centre]
    logits = (w_out[_targets(context, negatives)] * vi[:, None, :]).sum(-1)
    return -weight * (F.logsigmoid(logits[:, 0]) + F.logsigmoid(-logits[:, 1:]).sum(-1))


def _targets(context, negatives):
    import torch

    return torch.cat([context[:, None], negatives], dim=1)


def subgraph_gradients(w_in, w_out, centre, context, negatives, weight):
    """Closed-form per-subgraph gradients, Eqs. 7-8, batched.

    Returns g_in [b, r] (row ``centre``) and g_out [b, k+1, r] (rows ``context, negatives``):
    g_in = p sum_n (s(v^n . v_i) - 1[n=0]) v^n (Eq. 7); g_out[n] = p (s(v^n . v_i) - 1[n=0]) v_i (Eq. 8).
    """
    import torch

    vi = w_in[centre]
    vo = w_out[_targets(context, negatives)]
    coef = torch.sigmoid(torch.einsum("br,bnr->bn", vi, vo))
    coef[:, 0] -= 1.0
    coef = coef * weight[:, None]
    return torch.einsum("bn,bnr->br", coef, vo), coef[:, :, None] * vi[:, None, :]


def clip_rows(g, C: float, norms=None):
    """Eq. 3 on each subgraph's gradient: g / max(1, ||g|| / C), the norm over all trailing dimensions
    (Frobenius for a block) unless ``norms`` are given."""
    norms = g.flatten(1).norm(dim=1) if norms is None else norms
    return g / (norms / C).clamp(min=1.0).view(-1, *([1] * (g.dim() - 1)))


def merged_block_norms(g_out, targets):
    """Frobenius norm of each subgraph's W_out gradient AFTER rows with the same index are summed (Eq. 8: a
    node drawn twice as a negative receives the sum). Clipping the unmerged block would let a subgraph with a
    repeated negative move the summed gradient by up to sqrt(2) C."""
    same = (targets[:, :, None] == targets[:, None, :]).to(g_out.dtype)
    gram = g_out @ g_out.transpose(1, 2)
    return (gram * same).sum((1, 2)).clamp(min=0).sqrt()


def aggregate(w_in, w_out, centre, context, negatives, weight, C: float, clipping: str):
    """Sum of (clipped) per-subgraph gradients as |V| x r matrices for W_in and W_out.

    ``per-subgraph``: each subgraph's W_in vector and W_out block (duplicate rows merged) clipped to C
    separately (Alg. 2, spec U4);
    ``joint``: the concatenation clipped to C; ``batch``: the summed gradient clipped as a whole (what the
    authors' code does; a mutant whose add/remove sensitivity is 2C); ``none``: no clipping.
    """
    import torch

    g_in, g_out = subgraph_gradients(w_in, w_out, centre, context, negatives, weight)
    targets = _targets(context, negatives)
    if clipping == "per-subgraph":
        g_in, g_out = clip_rows(g_in, C), clip_rows(g_out, C, merged_block_norms(g_out, targets))
    elif clipping == "joint":
        norms = torch.sqrt(g_in.pow(2).sum(1) + merged_block_norms(g_out, targets).pow(2))
        g_in, g_out = clip_rows(g_in, C, norms), clip_rows(g_out, C, norms)
    sum_in = torch.zeros_like(w_in).index_add_(0, centre, g_in)
    sum_out = torch.zeros_like(w_out).index_add_(0, targets.reshape(-1), g_out.reshape(-1, g_out.shape[-1]))
    if clipping == "batch":
        sum_in = sum_in / (sum_in.norm() / C).clamp(min=1.0)
        sum_out = sum_out / (sum_out.norm() / C).clamp(min=1.0)
    return sum_in, sum_out, centre, targets.reshape(-1)


def add_noise(total, rows, std: float, perturbation: str, generator):
    """Eq. 9 (``nonzero``): N(0, std^2) on the rows indexed by ``rows`` only (an index set, never "value != 0",
    spec U5); Eq. 6 (``all``): on every row; ``none``: unchanged."""
    import torch

    if perturbation == "none":
        return total
    if perturbation == "all":
        return total + std * torch.randn(total.shape, generator=generator, dtype=total.dtype).to(total.device)
    touched = torch.unique(rows)
    noise = std * torch.randn((touched.numel(), total.shape[1]), generator=generator, dtype=total.dtype)
    return total.index_add(0, touched, noise.to(total.device))


# ----------------------------------------------------------------------------------------- training
@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters of Algorithm 2 (defaults: the paper's final values, Section V).

    ``eps=None`` trains ``steps`` steps with no budget; otherwise training stops when ``accountant``'s eps
    would exceed ``eps`` (``stop_rule="before"``, correct) or after the step that exceeded it
    (``"paper"``, Algorithm 2 line 10 taken literally, erratum E15). ``sensitivity`` (S in Eqs. 6/9)
    defaults to C (spec U5); the naive Eq. 6 of the paper uses B C.
    """

    r: int = 128
    batch_size: int = 128
    lr: float = 0.1
    clip: float = 2.0
    sigma: float = 5.0
    steps: int = 200
    eps: float | None = None
    delta: float = 1e-5
    perturbation: str = "nonzero"
    clipping: str = "per-subgraph"
    sampling: str = "without-replacement"
    accountant: RdpAccountant | None = None
    stop_rule: str = "before"
    sensitivity: float | None = None
    optimizer: str = "adam"
    dtype: str = "float32"
    device: str | None = None
    threads: int | None = None  # torch CPU threads during training (None: leave torch's setting)
    seed: int = 0

    def __post_init__(self):
        for name, low in (("r", 1), ("batch_size", 1), ("steps", 1)):
            value = getattr(self, name)
            if not (isinstance(value, int) and value >= low):
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        for name in ("lr", "clip", "sigma"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
        if self.eps is not None and not (self.eps > 0):
            raise ValueError(f"eps must be > 0 or None, got {self.eps!r}")
        if self.eps is not None and self.perturbation != "none" and not isinstance(self.accountant, RdpAccountant):
            raise ValueError("accountant must be an ldp_audit.accounting.RdpAccountant when eps is set, got "
                             f"{self.accountant!r}")
        if not 0.0 < self.delta < 1.0:
            raise ValueError(f"delta must lie in (0, 1), got {self.delta!r}")
        for name, allowed in (("perturbation", PERTURBATIONS), ("clipping", CLIPPINGS), ("sampling", SAMPLINGS),
                              ("stop_rule", ("before", "paper")), ("optimizer", ("adam", "sgd")),
                              ("dtype", ("float32", "float64"))):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {getattr(self, name)!r}")


@dataclass
class TrainResult:
    w_in: np.ndarray
    w_out: np.ndarray
    init_in: np.ndarray
    steps: int
    eps_spent: float | None
    wall_seconds: float
    device: str
    touched_in: np.ndarray = field(repr=False)  # rows of W_in that were a centre at least once


def steps_allowed(config: TrainConfig, num_subgraphs: int) -> tuple[int, float | None]:
    """Number of steps Algorithm 2 runs under ``config`` and the eps spent by then (None without a budget)."""
    if config.eps is None or config.perturbation == "none":
        return config.steps, None
    q = min(1.0, config.batch_size / num_subgraphs)
    curve = config.accountant.epsilon_curve(q, config.sigma, config.delta, np.arange(1, config.steps + 1))
    within = int(np.sum(curve <= config.eps))  # curve is increasing in T
    run = min(config.steps, within + (1 if config.stop_rule == "paper" else 0))
    return run, (float(curve[run - 1]) if run > 0 else 0.0)


def train(subgraphs: Subgraphs, config: TrainConfig, progress: bool = False) -> TrainResult:
    """Algorithm 2 (SE-PrivGEmb) or, with ``perturbation="none"`` and ``clipping="none"``, SE-GEmb."""
    import torch

    threads = torch.get_num_threads()
    if config.threads is not None:
        torch.set_num_threads(config.threads)
    try:
        return _train(subgraphs, config, progress)
    finally:
        torch.set_num_threads(threads)


def _train(subgraphs: Subgraphs, config: TrainConfig, progress: bool) -> TrainResult:
    import torch

    device = torch.device(config.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    dtype = getattr(torch, config.dtype)
    gen = torch.Generator().manual_seed(config.seed)
    n, m = subgraphs.num_nodes, len(subgraphs)
    w_in = (torch.rand((n, config.r), generator=gen, dtype=dtype) * 2 - 1).to(device)
    w_out = (torch.rand((n, config.r), generator=gen, dtype=dtype) * 2 - 1).to(device)
    init_in = w_in.detach().cpu().numpy().copy()
    w_in.requires_grad_(True)
    w_out.requires_grad_(True)
    opt = (torch.optim.Adam if config.optimizer == "adam" else torch.optim.SGD)([w_in, w_out], lr=config.lr)
    centre = torch.as_tensor(subgraphs.centre, device=device)
    context = torch.as_tensor(subgraphs.context, device=device)
    negatives = torch.as_tensor(subgraphs.negatives, device=device)
    weight = torch.as_tensor(subgraphs.weight, dtype=dtype, device=device)
    steps, eps_spent = steps_allowed(config, m)
    q = min(1.0, config.batch_size / m)
    std = (config.sensitivity if config.sensitivity is not None else config.clip) * config.sigma
    touched = torch.zeros(n, dtype=torch.bool, device=device)
    start = time.perf_counter()
    bar = _progress(progress, steps)
    for _ in range(steps):
        if config.sampling == "poisson":
            batch = torch.nonzero(torch.rand(m, generator=gen) < q).ravel().to(device)
        else:
            batch = torch.randperm(m, generator=gen)[: config.batch_size].to(device)
        with torch.no_grad():
            sum_in, sum_out, rows_in, rows_out = aggregate(
                w_in, w_out, centre[batch], context[batch], negatives[batch], weight[batch], config.clip,
                config.clipping)
            touched[rows_in] = True
            w_in.grad = add_noise(sum_in, rows_in, std, config.perturbation, gen) / config.batch_size
            w_out.grad = add_noise(sum_out, rows_out, std, config.perturbation, gen) / config.batch_size
        opt.step()
        if bar is not None:
            bar[0].advance(bar[1])
    if bar is not None:
        bar[0].stop()
    if device.type == "cuda":
        torch.cuda.synchronize()
    wall = time.perf_counter() - start
    return TrainResult(w_in.detach().cpu().numpy(), w_out.detach().cpu().numpy(), init_in, steps, eps_spent, wall,
                       str(device), touched.cpu().numpy())


def _progress(enabled: bool, total: int):
    if not enabled:
        return None
    from rich.progress import Progress

    bar = Progress(transient=True)
    bar.start()
    return bar, bar.add_task("training", total=total)


# ------------------------------------------------------------------------------------------- metrics
#: StrucEqu evaluations: the spec's (M10 + U10) and the authors' released code's (see :func:`struc_equ`).
EVALUATIONS = ("spec", "released")
#: The released StrucEqu keeps every node up to 2000 nodes and a 10% node sample above (functions.py:70-78).
RELEASED_ALL_NODES_UP_TO = 2000
RELEASED_SAMPLE_FRACTION = 0.1


def struc_equ(adj, embedding: np.ndarray, max_nodes: int = 2000, seed: int = 0, evaluation: str = "spec",
              adjacency_order: np.ndarray | None = None) -> float:
    """StrucEqu (Section V): Pearson correlation between Euclidean distances of adjacency rows and of
    embedding rows over all node pairs i < j. Adjacency-row distances come from the sparse Gram matrix:
    |A_i - A_j|^2 = d_i + d_j - 2 (A A^T)_ij.

    ``evaluation="spec"``: embedding row i beside adjacency row i; above ``max_nodes`` nodes a seeded uniform
    sample of ``max_nodes`` nodes (spec U10).
    ``evaluation="released"``: what sunnerzs/SEPrivGEmb@c60e412 does. SEPrivGEmb.py:96 builds the adjacency with
    ``nx.to_numpy_matrix(trainGraph)``, whose rows follow networkx's node insertion order (``adjacency_order``,
    see :func:`networkx_node_order`), while the embedding's row i is node id i (SEPrivGEmb.py:36 indexes
    ``one_hot(u_i)`` by the id); functions.py:69-99 then pairs row w of each, so embedding row i meets the
    adjacency row of node ``adjacency_order[i]``. Above 2000 nodes it keeps a uniform 10% node sample
    (functions.py:70-74; seeded here). ``adjacency_order=None`` pairs the same node (insertion order = ids).
    """
    from scipy.spatial.distance import pdist

    if evaluation not in EVALUATIONS:
        raise ValueError(f"evaluation must be one of {', '.join(EVALUATIONS)}; got {evaluation!r}")
    a = _adjacency(adj)
    n = a.shape[0]
    y = np.asarray(embedding, dtype=np.float64)
    if y.shape[0] != n:
        raise ValueError(f"embedding must have one row per node ({n}), got {y.shape[0]}")
    order = np.arange(n) if adjacency_order is None else np.asarray(adjacency_order, dtype=np.int64)
    if evaluation == "spec" and adjacency_order is not None:
        raise ValueError("adjacency_order is the released evaluation's row pairing; the spec pairs the same node")
    if order.shape != (n,) or not np.array_equal(np.sort(order), np.arange(n)):
        raise ValueError(f"adjacency_order must be a permutation of the {n} node ids")
    size = max_nodes if evaluation == "spec" else int(n * RELEASED_SAMPLE_FRACTION)
    limit = max_nodes if evaluation == "spec" else RELEASED_ALL_NODES_UP_TO
    rows = np.arange(n) if n <= limit else np.sort(rng_for(seed).choice(n, size, False))
    sub = a[order[rows]]
    gram = (sub @ sub.T).toarray()
    sq = np.diag(gram)
    iu = np.triu_indices(rows.size, 1)
    dist_a = np.sqrt(np.maximum(sq[iu[0]] + sq[iu[1]] - 2 * gram[iu], 0.0))
    dist_y = pdist(y[rows])
    return float(np.corrcoef(dist_a, dist_y)[0, 1])


def networkx_node_order(pairs: np.ndarray) -> np.ndarray:
    """Node ids in the order a networkx graph built by adding the listed pairs one by one holds them (first
    appearance, the first endpoint before the second): the row order of ``nx.to_numpy_matrix`` on the graph the
    released code loads (SEPrivGEmb.py:122-135, ``add_edge`` per line of the edge list)."""
    flat = np.asarray(pairs, dtype=np.int64).reshape(2, -1).T.ravel()
    _, first = np.unique(flat, return_index=True)
    return flat[np.sort(first)]


# ------------------------------------------------------------------------------------- StrucEqu controls
def degree_only_embedding(adj, r: int, seed: int = 0) -> np.ndarray:
    """A control with no structure beyond the degree: row i ~ N(0, d_i / r I_r), independent across nodes.

    Its expected squared distance d_i + d_j equals the adjacency rows' |A_i - A_j|^2 whenever i and j share no
    neighbour, so it is the StrucEqu that degrees alone buy on a sparse graph; two nodes of equal degree are
    indistinguishable to it."""
    d = np.asarray(_adjacency(adj).sum(axis=1)).ravel()
    return np.sqrt(d / r)[:, None] * rng_for(seed, *streams.SE_PRIVGEMB_DEGREE_ONLY.key()).standard_normal((d.size, r))


def permuted_embedding(embedding: np.ndarray, seed: int = 0) -> np.ndarray:
    """A control: the embedding's rows shuffled among the nodes (seeded), which keeps the set of vectors and
    destroys which node holds which."""
    y = np.asarray(embedding)
    return y[rng_for(seed, *streams.SE_PRIVGEMB_PERMUTED.key()).permutation(y.shape[0])]


def struc_equ_with_controls(adj, embedding: np.ndarray, seed: int = 0, evaluation: str = "spec",
                            adjacency_order: np.ndarray | None = None) -> dict:
    """StrucEqu of ``embedding``, of a degree-only embedding of the same dimension and of the permuted
    embedding, under one evaluation: {"measured", "degree_only", "permuted"}."""
    embedding = np.asarray(embedding)
    controls = {"measured": embedding, "degree_only": degree_only_embedding(adj, embedding.shape[1], seed),
                "permuted": permuted_embedding(embedding, seed)}
    return {name: struc_equ(adj, y, seed=seed, evaluation=evaluation, adjacency_order=adjacency_order)
            for name, y in controls.items()}


def roc_auc(scores_pos: np.ndarray, scores_neg: np.ndarray) -> float:
    """ROC-AUC = Mann-Whitney U / (n+ n-) with ties counted 1/2 (average ranks)."""
    from scipy.stats import rankdata

    pos, neg = np.asarray(scores_pos, float), np.asarray(scores_neg, float)
    ranks = rankdata(np.concatenate([pos, neg]))
    u = ranks[: pos.size].sum() - pos.size * (pos.size + 1) / 2.0
    return float(u / (pos.size * neg.size))


def link_scores(w_in: np.ndarray, w_out: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Spec U9: s(i, j) = (x_ij + x_ji) / 2 with x_ij = W_in[i] . W_out[j]."""
    i, j = np.asarray(pairs)
    return 0.5 * ((w_in[i] * w_out[j]).sum(1) + (w_in[j] * w_out[i]).sum(1))


def link_prediction_auc(w_in: np.ndarray, w_out: np.ndarray, split: dict) -> float:
    """AUC on a stored split (``test_pos`` against ``test_neg``, each a (2, m) array)."""
    return roc_auc(link_scores(w_in, w_out, split["test_pos"]), link_scores(w_in, w_out, split["test_neg"]))
