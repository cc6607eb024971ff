"""Feature propagation on sparse graphs: personalised PageRank (exact, power iteration, backward push), KProp
and FlexProp, behind one face.

Every scheme is a linear map X -> W X of the (perturbed) feature matrix, so the audits only need two things
from it: ``apply(adjacency, x)`` (fast, sparse, vectorised over feature columns) and
``rows(adjacency, nodes)``, the exact weights W[v, :] of a few nodes (for variance and error bounds). Small
graphs can also ask for the whole ``dense(adjacency)`` operator; nothing else densifies an n x n matrix.

Conventions: ``adjacency`` is a symmetric scipy sparse 0/1 matrix without self-loops (``Graph.adjacency``);
isolated nodes get d_v^{+-r} := 1 and a zero row of the transition matrix (ldp-ge E12), so
Pi(v, .) = alpha e_v; KProp gives them the zero vector (lpgnn U6).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
import scipy.sparse as sp

#: Largest graph for which any n x n matrix is formed (the package's one limit: 6000^2 float64 = 288 MB).
DENSE_LIMIT = 6000


def _csr(adjacency) -> sp.csr_matrix:
    adjacency = getattr(adjacency, "adjacency", adjacency)  # a Graph is accepted too
    if not sp.issparse(adjacency) or adjacency.shape[0] != adjacency.shape[1]:
        raise ValueError("adjacency must be a square scipy sparse matrix (or a Graph)")
    return sp.csr_matrix(adjacency, dtype=np.float64)


def _features(x, n: int) -> np.ndarray:
    x = x.toarray() if sp.issparse(x) else np.asarray(x, dtype=np.float64)
    x = x.reshape(n, -1) if x.ndim == 1 else x
    if x.shape[0] != n:
        raise ValueError(f"x must have one row per node ({n}), got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("x must be finite (no NaN or inf)")
    return x.astype(np.float64, copy=False)


def _check_unit(name: str, value: float, low_open: bool, high_open: bool) -> float:
    ok = (value > 0 if low_open else value >= 0) and (value < 1 if high_open else value <= 1)
    if not (isinstance(value, (int, float, np.floating)) and np.isfinite(value) and ok):
        interval = f"{'(' if low_open else '['}0, 1{')' if high_open else ']'}"
        raise ValueError(f"{name} must lie in {interval}, got {value!r}")
    return float(value)


def safe_degrees(adjacency) -> np.ndarray:
    """Degrees with isolated nodes set to 1, so that d^r, d^-r and 1/d are defined (ldp-ge E12)."""
    degrees = np.asarray(_csr(adjacency).sum(axis=1)).ravel()
    return np.where(degrees > 0, degrees, 1.0)


def _steps_from_tolerance(alpha: float, tol: float, growth: float, scale: float) -> int:
    """Smallest L with (1 - alpha)^(L + 1) * growth * scale <= tol (the tail of the PPR series)."""
    if scale == 0:
        return 0
    return max(0, int(np.ceil(np.log(tol / (growth * scale)) / np.log1p(-alpha) - 1)))


class Propagation(ABC):
    """A linear propagation W: ``apply`` computes W X, ``rows`` the exact rows W[nodes, :]."""

    @abstractmethod
    def apply(self, adjacency, x) -> np.ndarray:
        """W X for a feature matrix X."""

    @abstractmethod
    def rows(self, adjacency, nodes) -> np.ndarray:
        """The exact rows W[nodes, :]."""

    def dense(self, adjacency) -> np.ndarray:
        """The whole operator as a dense matrix; small graphs only (n <= DENSE_LIMIT)."""
        n = _csr(adjacency).shape[0]
        if n > DENSE_LIMIT:
            raise ValueError(f"dense operators are for graphs with at most {DENSE_LIMIT} nodes, got {n}")
        return self.rows(adjacency, np.arange(n))


# ------------------------------------------------------------------------------------------ step operators

@dataclass(frozen=True)
class StepPropagation(Propagation):
    """K applications of one sparse step matrix: H^K = S^K X. KProp and FlexProp are of this kind."""

    steps: int = 1

    def __post_init__(self):
        if not (isinstance(self.steps, (int, np.integer)) and self.steps >= 0):
            raise ValueError(f"steps (K) must be an integer >= 0, got {self.steps!r}")

    @abstractmethod
    def step_matrix(self, adjacency) -> sp.csr_matrix:
        """The sparse one-step matrix S of this propagation."""

    def apply(self, adjacency, x) -> np.ndarray:
        step = self.step_matrix(adjacency)
        h = _features(x, step.shape[0])
        for _ in range(self.steps):
            h = step @ h
        return h

    def rows(self, adjacency, nodes) -> np.ndarray:
        step = self.step_matrix(adjacency)
        nodes = np.atleast_1d(np.asarray(nodes, dtype=np.int64))
        w = sp.csr_matrix((np.ones(nodes.size), (np.arange(nodes.size), nodes)), shape=(nodes.size,
                                                                                         step.shape[0]))
        for _ in range(self.steps):
            w = w @ step
        return w.toarray()


@dataclass(frozen=True)
class KProp(StepPropagation):
    """KProp (lpgnn A1, Algorithm 2): K steps of a linear aggregator, no non-linearity in between.

    ``aggregator="mean"`` uses D^-1 A, ``"gcn"`` uses D^-1/2 A D^-1/2 (lpgnn M6). Self-loops are off by
    default (KProp aggregates over N(v) \\ {v}); ``self_loops=True`` uses A + I and degrees + 1, the one-step
    aggregator of the Fig. 5 MAE study (lpgnn U7). Isolated nodes get zero rows without self-loops.
    """

    aggregator: Literal["mean", "gcn"] = "mean"
    self_loops: bool = False

    def __post_init__(self):
        super().__post_init__()
        if self.aggregator not in ("mean", "gcn"):
            raise ValueError(f"aggregator must be 'mean' or 'gcn', got {self.aggregator!r}")

    def step_matrix(self, adjacency) -> sp.csr_matrix:
        a = _csr(adjacency)
        if self.self_loops:
            a = a + sp.identity(a.shape[0], format="csr")
        degrees = np.asarray(a.sum(axis=1)).ravel()
        inverse = np.divide(1.0, degrees, out=np.zeros_like(degrees), where=degrees > 0)
        if self.aggregator == "mean":
            return sp.diags(inverse) @ a
        root = np.sqrt(inverse)
        return (sp.diags(root) @ a @ sp.diags(root)).tocsr()


def flexprop_weights(policy: str, *, tau_prime=None, tau=None, variances=None, num_nodes: int | None = None
                     ) -> np.ndarray:
    """Per-node weights w for FlexProp (ppgnn A5, Eq. 12): Pi_ij is proportional to w_j on N(i) with i.

    - ``"tau_prime"``: the perturbed level tau' (the paper's proxy);
    - ``"true_tau"``: the true level tau (an oracle, for audits only);
    - ``"inv_var"``: 1 / sigma_j^2, the minimiser of Eq. 10 under sum w = 1 (Eq. 11), from variances the
      server can compute from public quantities (ppgnn E10);
    - ``"uniform"``: plain mean over N(i) with i.
    """
    if policy == "tau_prime":
        w = tau_prime
    elif policy == "true_tau":
        w = tau
    elif policy == "inv_var":
        w = None if variances is None else 1.0 / np.asarray(variances, dtype=np.float64)
    elif policy == "uniform":
        if num_nodes is None:
            raise ValueError("num_nodes is needed for the 'uniform' policy")
        w = np.ones(num_nodes)
    else:
        raise ValueError(f"policy must be 'tau_prime', 'true_tau', 'inv_var' or 'uniform', got {policy!r}")
    if w is None:
        needs = {"tau_prime": "tau_prime", "true_tau": "tau", "inv_var": "variances"}[policy]
        raise ValueError(f"policy {policy!r} needs {needs}")
    w = np.asarray(w, dtype=np.float64)
    if not (np.isfinite(w).all() and (w > 0).all()):
        raise ValueError("FlexProp weights must be finite and positive")
    return w


@dataclass(frozen=True)
class FlexProp(StepPropagation):
    """FlexProp (ppgnn A5, Algorithm 4): H^K = Pi^K X' with Pi_ij = w_j / sum_{k in N(i)} w_k on A + I.

    N(i) includes i (ppgnn Table I), Pi is row-stochastic, and the aggregation is the Pi-weighted sum (not a
    mean of weighted messages, ppgnn E15). ``weights`` come from :func:`flexprop_weights`.
    """

    weights: np.ndarray = field(default=None, compare=False)

    def __post_init__(self):
        super().__post_init__()
        if self.weights is None:
            raise ValueError("weights must be given (see flexprop_weights)")

    def step_matrix(self, adjacency) -> sp.csr_matrix:
        a = _csr(adjacency)
        w = np.asarray(self.weights, dtype=np.float64)
        if w.shape != (a.shape[0],):
            raise ValueError(f"weights must have one entry per node ({a.shape[0]}), got shape {w.shape}")
        support = a + sp.identity(a.shape[0], format="csr")
        weighted = support @ sp.diags(w)
        return (sp.diags(1.0 / np.asarray(weighted.sum(axis=1)).ravel()) @ weighted).tocsr()


# ------------------------------------------------------------------------------------ personalised PageRank

@dataclass(frozen=True)
class PushResult:
    """Output of :func:`backward_push`.

    ``z`` approximates Pi X. ``max_residual`` is max |R| at termination (<= r_max), and ``error_bound[v]``
    bounds |z[v, j] - (Pi X)[v, j]| for every column j: d_v^r * max_residual, or (1 - alpha) times that with
    the residual correction (ldp-ge A3, C12). ``pushes`` counts push operations, ``sparse_updates`` the
    neighbour residual updates made entry by entry (narrow frontier) and ``dense_work`` the multiply-adds of the wide-frontier rounds (nnz(A) times the block width
    each), the two costs :func:`ppr_matched` weighs.
    """

    z: np.ndarray
    max_residual: float
    error_bound: np.ndarray
    pushes: int
    sparse_updates: int = 0
    dense_work: int = 0


@dataclass(frozen=True)
class PowerResult:
    """Output of :func:`ppr_power`: ``z`` and the bound ``error_bound[v]`` on |z - Pi X| in row v."""

    z: np.ndarray
    steps: int
    error_bound: np.ndarray


def transition(adjacency, r: float) -> sp.csr_matrix:
    """P = D^(r-1) A D^(-r) of ldp-ge Eq. 2/17 (isolated nodes: zero rows)."""
    a = _csr(adjacency)
    degrees = safe_degrees(a)
    return (sp.diags(degrees ** (r - 1.0)) @ a @ sp.diags(degrees ** (-r))).tocsr()


def ppr_exact(adjacency, alpha: float, r: float) -> np.ndarray:
    """Pi = alpha (I - (1 - alpha) P)^-1 by a dense solve (ldp-ge Eq. 17); at most DENSE_LIMIT nodes."""
    alpha = _check_unit("alpha", alpha, True, True)
    r = _check_unit("r", r, False, False)
    p = transition(adjacency, r)
    n = p.shape[0]
    if n > DENSE_LIMIT:
        raise ValueError(f"ppr_exact is for graphs with at most {DENSE_LIMIT} nodes, got {n}; use ppr_power")
    return alpha * np.linalg.solve(np.eye(n) - (1.0 - alpha) * p.toarray(), np.eye(n))


def ppr_power(adjacency, x, alpha: float, r: float, tol: float = 1e-10, steps: int | None = None
              ) -> PowerResult:
    """Pi X by power iteration Z_0 = alpha X, Z_{t+1} = alpha X + (1 - alpha) P Z_t (ldp-ge A2).

    After L steps Z_L = sum_{l <= L} alpha (1 - alpha)^l P^l X. Since P^l = D^r (D^-1 A)^l D^-r, the tail
    is at most (1 - alpha)^(L+1) (d_v / d_min)^r max|X| in row v; L is the smallest count that makes this
    <= tol everywhere, unless ``steps`` fixes it.
    """
    alpha = _check_unit("alpha", alpha, True, True)
    r = _check_unit("r", r, False, False)
    p = transition(adjacency, r)
    x = _features(x, p.shape[0])
    degrees = safe_degrees(adjacency)
    growth = (degrees / degrees.min()) ** r
    scale = float(np.abs(x).max(initial=0.0))
    if steps is None:
        if not tol > 0:
            raise ValueError(f"tol must be > 0, got {tol!r}")
        steps = _steps_from_tolerance(alpha, tol, float(growth.max()), scale)
    z = alpha * x
    for _ in range(steps):
        z = alpha * x + (1.0 - alpha) * (p @ z)
    return PowerResult(z, steps, (1.0 - alpha) ** (steps + 1) * growth * scale)


def backward_push(adjacency, x, alpha: float, r: float, r_max: float, residual_correction: bool = False,
                  divide_by: Literal["receiver", "pusher"] = "receiver", block: int = 512,
                  dense_fraction: float = 0.05) -> PushResult:
    """Backward push for Z = Pi X (ldp-ge Algorithm 3, corrected per errata E2 and E3).

    R <- D^-r X, Q <- 0; while some |R(v, j)| > r_max: Q(v, j) += alpha R(v, j), and every neighbour u of v
    receives (1 - alpha) R(v, j) / |N(u)| (the *receiver's* degree, E2); R(v, j) <- 0. Finally
    Z = D^r Q, or D^r (Q + alpha R) with ``residual_correction`` (the released code).

    Each push keeps the invariant D^-r Pi X = Q + F R with F = alpha (I - (1 - alpha) D^-1 A)^-1, whose rows
    sum to at most 1; at termination |R| <= r_max, hence |Z(v, j) - (Pi X)(v, j)| <= d_v^r r_max for any
    push order ((1 - alpha) d_v^r r_max with the correction). Pushes are done in rounds over a block of
    columns at once: every (node, column) entry above the threshold is pushed together as one sparse matrix
    product A @ M, and only the entries that just received residue are examined in the next round, so the
    work follows the residue instead of sweeping all n x d entries. While more than ``dense_fraction`` of a
    block's entries are above the threshold, a round is a masked sparse-dense product instead (cheaper when
    the frontier covers most of the graph); the result is the same push sequence either way.

    ``divide_by="pusher"`` is Algorithm 3 as printed (dividing by |N(v)|); it converges to Eq. 2 with r + 1
    in place of r and is kept to demonstrate erratum E2.

    ``r_max`` may also be one threshold per column (shape (d,)), as :func:`released_push` needs; the bound then
    uses the largest residue left, whatever its column's threshold.
    """
    alpha = _check_unit("alpha", alpha, True, True)
    r = _check_unit("r", r, False, False)
    try:
        limits = np.asarray(r_max, dtype=np.float64)
    except (TypeError, ValueError):
        limits = np.empty(0)
    if not (limits.size and limits.ndim <= 1 and (limits > 0).all() and np.isfinite(limits).all()):
        raise ValueError(f"r_max must be a positive number (or one per column, shape (d,)), got {r_max!r}")
    if divide_by not in ("receiver", "pusher"):
        raise ValueError(f"divide_by must be 'receiver' or 'pusher', got {divide_by!r}")
    if not 0.0 <= dense_fraction <= 1.0:
        raise ValueError(f"dense_fraction must lie in [0, 1], got {dense_fraction!r}")
    if not (isinstance(block, (int, np.integer)) and block >= 1):
        raise ValueError(f"block must be an integer >= 1, got {block!r}")
    a = _csr(adjacency)
    n = a.shape[0]
    x = _features(x, n)
    if limits.ndim and limits.shape != (x.shape[1],):
        raise ValueError(f"r_max per column must have shape ({x.shape[1]},) for {x.shape[1]} columns, "
                         f"got shape {limits.shape}")
    limits = limits if limits.ndim else np.full(x.shape[1], float(limits))
    degrees = safe_degrees(a)
    z = np.empty_like(x)
    pushes = sparse_updates = dense_work = 0
    max_residual = 0.0
    for start in range(0, x.shape[1], block):
        cols = slice(start, min(start + block, x.shape[1]))
        width = cols.stop - cols.start
        residual = x[:, cols] * degrees[:, None] ** (-r)
        reserve = np.zeros_like(residual)
        flat_r, flat_q = residual.reshape(-1), reserve.reshape(-1)  # views: entry (v, j) is v * width + j
        limit = limits[cols]
        hot = np.abs(residual) > limit
        while hot.mean() > dense_fraction:  # wide frontier: push every hot entry with one sparse-dense product
            mass = residual * hot
            residual -= mass
            reserve += alpha * mass
            if divide_by == "pusher":
                mass /= degrees[:, None]
            share = a @ mass
            if divide_by == "receiver":
                share /= degrees[:, None]
            residual += (1.0 - alpha) * share
            pushes += int(np.count_nonzero(hot))
            dense_work += a.nnz * width
            hot = np.abs(residual) > limit
        active = np.flatnonzero(hot.reshape(-1))
        while active.size:  # narrow frontier: work on the hot entries and the entries they touch only
            mass = flat_r[active]
            flat_q[active] += alpha * mass
            flat_r[active] = 0.0
            rows, columns = np.divmod(active, width)
            if divide_by == "pusher":
                mass = mass / degrees[rows]
            pushed = sp.csr_matrix((mass, (rows, columns)), shape=(n, width))
            share = (a @ pushed).tocoo()  # every (receiver, column) pair that gets residue, once
            sparse_updates += int(share.nnz)
            pushes += int(active.size)
            if divide_by == "receiver":
                share.data /= degrees[share.row]
            touched = share.row * width + share.col
            flat_r[touched] += (1.0 - alpha) * share.data
            active = touched[np.abs(flat_r[touched]) > limit[touched % width]]
        max_residual = max(max_residual, float(np.abs(flat_r).max(initial=0.0)))
        if residual_correction:
            reserve += alpha * residual
        z[:, cols] = reserve * degrees[:, None] ** r
    factor = (1.0 - alpha) if residual_correction else 1.0
    return PushResult(z, max_residual, factor * degrees ** r * max_residual, pushes, sparse_updates, dense_work)


def released_push(adjacency, x, alpha: float, r: float, r_max: float, relative: bool = True,
                  split_signs: bool = True, residual_correction: bool = True) -> PushResult:
    """The backward push of LDP-GE's released code (Zening-Li/PrivGE@9ac59a9 precompute/base.h:73-97, 119-172),
    built on :func:`backward_push`; each switch can be turned off on its own (spec: all three off).

    * ``split_signs``: the residue R = D^-r X is split into its positive part and its negated negative part,
      pushed as two separate non-negative residues (so a positive and a negative residue never cancel on a node),
      and the result is the difference of the two (base.h:79-86, 136-163).
    * ``relative``: an entry is pushed while it exceeds ``r_max`` times its column's total residue (per part
      when split; a column with no mass gets 1, base.h:90-97, 128-131), not ``r_max`` itself.
    * ``residual_correction``: the output is D^r (Q + alpha R) with the leftover residue R (base.h:163-165).

    Push is linear in X, so only the stopping rule and the leftover term separate this from :func:`backward_push`.
    ``error_bound`` adds the two parts' bounds when split. The order of pushes is the vectorised rounds', not the
    released per-column queue; the invariant (and so the bound) holds for any order."""
    a = _csr(adjacency)
    x = _features(x, a.shape[0])
    d = x.shape[1]
    residue = np.hstack([np.maximum(x, 0.0), np.maximum(-x, 0.0)]) if split_signs else x
    if relative:
        mass = np.abs(residue * safe_degrees(a)[:, None] ** (-_check_unit("r", r, False, False))).sum(axis=0)
        limits = float(r_max) * np.where(mass > 0, mass, 1.0)
    else:
        limits = r_max
    out = backward_push(a, residue, alpha, r, limits, residual_correction)
    if not split_signs:
        return out
    return replace(out, z=out.z[:, :d] - out.z[:, d:], error_bound=2.0 * out.error_bound)


@dataclass(frozen=True)
class ChebyshevResult:
    """Output of :func:`ppr_chebyshev`: ``z``, the steps run and ``error_bound[v]`` on |z - Pi X| in row v."""

    z: np.ndarray
    steps: int
    error_bound: np.ndarray


def _chebyshev_setup(adjacency, x, alpha: float, r: float):
    """S = D^-1/2 A D^-1/2, W = D^(1/2 - r) X, the degrees, and max_j ||W_j||_2 (see :func:`ppr_chebyshev`)."""
    a = _csr(adjacency)
    x = _features(x, a.shape[0])
    degrees = safe_degrees(a)
    root = degrees ** -0.5
    s = (sp.diags(root) @ a @ sp.diags(root)).tocsr()
    w = x * degrees[:, None] ** (0.5 - r)
    return s, w, degrees, float(np.sqrt((w * w).sum(axis=0)).max(initial=0.0))


def chebyshev_steps_matching_push(adjacency, x, alpha: float, r: float, r_max: float) -> int:
    """Chebyshev steps L whose row bound d_v^(r - 1/2) max_j ||W_j|| / T_L(1 / (1 - alpha)) is within push's
    d_v^r r_max in every row: T_L(1 / (1 - alpha)) >= max_j ||W_j|| / (d_min^(1/2) r_max)."""
    _, _, degrees, norm = _chebyshev_setup(adjacency, x, alpha, r)
    target = norm / (np.sqrt(degrees.min()) * r_max)
    return 0 if target <= 1.0 else int(np.ceil(np.arccosh(target) / np.arccosh(1.0 / (1.0 - alpha))))


def ppr_chebyshev(adjacency, x, alpha: float, r: float, steps: int, block: int = 128) -> ChebyshevResult:
    """Pi X by Chebyshev iteration, power iteration's accelerated twin (A2; Saad, Iterative Methods, Alg. 12.1).

    Pi X = D^(r - 1/2) Y with M Y = alpha W, M = I - (1 - alpha) S, S = D^-1/2 A D^-1/2 symmetric, W =
    D^(1/2 - r) X. M's spectrum lies in [alpha, 2 - alpha], so ``steps`` = L Chebyshev steps from Y_0 = 0 leave
    ||Y_j - Y_L,j||_2 <= ||Y_j||_2 / T_L(1 / (1 - alpha)) <= ||W_j||_2 / T_L(1 / (1 - alpha)) per column, and
    |error(v, j)| <= d_v^(r - 1/2) max_j ||W_j||_2 / T_L. T_L grows like ((1 + sqrt(alpha (2 - alpha))) /
    (1 - alpha))^L, so L is about sqrt(alpha / 2) times power iteration's for the same error. Columns run in
    blocks of ``block``: on Facebook (node settings, 4,714 columns) all columns at once took 330 CPU-s, blocks of
    128 took 124 CPU-s (the whole-width arrays do not stay in cache)."""
    alpha = _check_unit("alpha", alpha, True, True)
    r = _check_unit("r", r, False, False)
    if not (isinstance(steps, (int, np.integer)) and steps >= 0):
        raise ValueError(f"steps must be an integer >= 0, got {steps!r}")
    if not (isinstance(block, (int, np.integer)) and block >= 1):
        raise ValueError(f"block must be an integer >= 1, got {block!r}")
    s, w, degrees, norm = _chebyshev_setup(adjacency, x, alpha, r)
    delta, sigma = 1.0 - alpha, 1.0 / (1.0 - alpha)  # centre theta = 1, half-width delta of M's spectrum
    y = np.zeros_like(w)
    for start in range(0, w.shape[1], block):  # columns are independent; a block's arrays stay in cache
        cols = slice(start, min(start + block, w.shape[1]))
        residual = alpha * w[:, cols]
        rho = 1.0 / sigma
        direction = residual.copy()  # d_0 = r_0 / theta
        out = y[:, cols]
        for _ in range(steps):
            out += direction
            residual -= direction - delta * (s @ direction)  # r -= M d
            rho_next = 1.0 / (2.0 * sigma - rho)
            direction *= rho_next * rho
            direction += (2.0 * rho_next / delta) * residual
            rho = rho_next
    t_l = np.cosh(steps * np.arccosh(sigma))
    return ChebyshevResult(y * degrees[:, None] ** (r - 0.5), int(steps), degrees ** (r - 0.5) * norm / t_l)


#: Cost of one entry-by-entry neighbour update of :func:`backward_push` in multiply-adds of a sparse-dense
#: product. Measured on Facebook with the link settings, single core: push made 3.1e8 such updates in 86 CPU-s
#: (about 280 ns each), Chebyshev iteration about 1.1 ns per multiply-add (benchmarks/ldp_ge_propagation.py).
PUSH_UPDATE_COST = 250.0
#: Feature columns :func:`ppr_matched` pushes to estimate the cost of pushing all of them.
PROBE_COLUMNS = 16


def power_steps_matching_push(adjacency, x, alpha: float, r: float, r_max: float) -> int:
    """Power-iteration steps L whose row bound is within push's: (1 - alpha)^(L+1) (d_v / d_min)^r max|X| <=
    d_v^r r_max in every row v, i.e. (1 - alpha)^(L+1) max|X| <= d_min^r r_max (A2, A3; d_v^r cancels)."""
    degrees = safe_degrees(adjacency)
    scale = float(np.abs(_features(x, degrees.size)).max(initial=0.0))
    return _steps_from_tolerance(alpha, r_max * float(degrees.min()) ** r, 1.0, scale)


@dataclass(frozen=True)
class MatchedResult:
    """Output of :func:`ppr_matched`: ``z``, the ``method`` that ran (push, power or chebyshev), its pushes or
    steps (``work``), ``error_bound[v]`` (at most d_v^r r_max whichever ran) and the predicted ``costs``."""

    z: np.ndarray
    method: str
    error_bound: np.ndarray
    work: int
    costs: dict


def ppr_matched(adjacency, x, alpha: float, r: float, r_max: float) -> MatchedResult:
    """Pi X to push's accuracy (|error| <= d_v^r r_max in row v) by whichever of backward push, power iteration
    and Chebyshev iteration is predicted cheapest. Push's cost is measured by pushing PROBE_COLUMNS evenly
    spaced columns (entry-by-entry updates weighted by PUSH_UPDATE_COST, plus the wide rounds' multiply-adds),
    scaled to all columns; power's is L nnz(A) d and Chebyshev's L (nnz(A) + 4 n) d, with L from
    :func:`power_steps_matching_push` and :func:`chebyshev_steps_matching_push`. The prediction counts
    operations, never clocks, so the choice is deterministic. Push wins on sparse reports on small graphs,
    Chebyshev on dense reports (LP, eps = inf) and on large graphs."""
    alpha = _check_unit("alpha", alpha, True, True)
    r = _check_unit("r", r, False, False)
    a = _csr(adjacency)
    x = _features(x, a.shape[0])
    n, d = x.shape
    power_steps = power_steps_matching_push(a, x, alpha, r, r_max)
    chebyshev_steps = chebyshev_steps_matching_push(a, x, alpha, r, r_max)
    probe = np.unique(np.linspace(0, d - 1, min(d, PROBE_COLUMNS)).round().astype(int)) if d else np.arange(0)
    sample = backward_push(a, x[:, probe], alpha, r, r_max) if probe.size else None
    costs = {"push": 0.0 if sample is None else
             (PUSH_UPDATE_COST * sample.sparse_updates + sample.dense_work) * d / probe.size,
             "power": float(power_steps) * a.nnz * d, "chebyshev": float(chebyshev_steps) * (a.nnz + 4 * n) * d}
    method = min(costs, key=costs.get)
    if method == "push":
        out = backward_push(a, x, alpha, r, r_max)
        return MatchedResult(out.z, method, out.error_bound, out.pushes, costs)
    if method == "power":
        out = ppr_power(a, x, alpha, r, steps=power_steps)
    else:
        out = ppr_chebyshev(a, x, alpha, r, chebyshev_steps)
    return MatchedResult(out.z, method, out.error_bound, out.steps, costs)


def ppr_rows(adjacency, nodes, alpha: float, r: float, tol: float = 1e-12) -> np.ndarray:
    """Exact-to-``tol`` rows Pi[nodes, :] by power iteration on P^T, without forming Pi.

    Row v of Pi is alpha sum_l (1 - alpha)^l e_v^T P^l; the L1 norm of the dropped tail is at most
    (1 - alpha)^(L+1) (d_v / d_min)^r.
    """
    alpha = _check_unit("alpha", alpha, True, True)
    r = _check_unit("r", r, False, False)
    p_t = transition(adjacency, r).T.tocsr()
    n = p_t.shape[0]
    nodes = np.atleast_1d(np.asarray(nodes, dtype=np.int64))
    degrees = safe_degrees(adjacency)
    steps = _steps_from_tolerance(alpha, tol, float(((degrees[nodes] / degrees.min()) ** r).max()), 1.0)
    walk = np.zeros((n, nodes.size))
    walk[nodes, np.arange(nodes.size)] = 1.0
    total = alpha * walk
    for _ in range(steps):
        walk = (1.0 - alpha) * (p_t @ walk)
        total += alpha * walk
    return total.T


@dataclass(frozen=True)
class PPR(Propagation):
    """Personalised PageRank propagation Z = Pi X (ldp-ge A2/A3) with ``method`` push, power or exact."""

    alpha: float = 0.1
    r: float = 0.5
    method: Literal["push", "power", "exact"] = "push"
    r_max: float = 1e-4
    tol: float = 1e-10
    residual_correction: bool = False

    def __post_init__(self):
        _check_unit("alpha", self.alpha, True, True)
        _check_unit("r", self.r, False, False)
        if self.method not in ("push", "power", "exact"):
            raise ValueError(f"method must be 'push', 'power' or 'exact', got {self.method!r}")

    def apply(self, adjacency, x) -> np.ndarray:
        if self.method == "push":
            return backward_push(adjacency, x, self.alpha, self.r, self.r_max, self.residual_correction).z
        if self.method == "power":
            return ppr_power(adjacency, x, self.alpha, self.r, self.tol).z
        pi = ppr_exact(adjacency, self.alpha, self.r)
        return pi @ _features(x, pi.shape[0])

    def rows(self, adjacency, nodes) -> np.ndarray:
        if self.method == "exact":
            return ppr_exact(adjacency, self.alpha, self.r)[np.atleast_1d(nodes)]
        return ppr_rows(adjacency, nodes, self.alpha, self.r, min(self.tol, 1e-12))
