"""Perturb-then-propagate: users perturb their features once, the server rectifies and propagates.

The pieces every graph pipeline and every graph-bound audit share: the server's estimates of one draw of
reports (sparse when the mechanism can report sparsely), mechanisms assigned per node (e.g. the personalised
budgets of :class:`ldp_audit.mechanisms.personalised.PersonalisedMechanism`), their exact per-node moments, and replicated draws of W @ estimate(perturb(X)) for Monte Carlo
audits. Replicates are drawn in chunks of whole replicates with their own stream ``rng_for(seed, chunk)``,
so results depend on the seed and the chunk size only, never on cores or order.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..mechanisms import make
from ..seeding import rng_for


def server_estimates(mechanism, x: np.ndarray, rng, box: tuple[float, float] | None = None):
    """What the server holds after every user (row of ``x``) reports once through ``mechanism``: the estimate
    (rectifier) of each report, e.g. x' = c + C_m x* for the multi-bit encoder (lpgnn Eq. 4). Sparse when the
    mechanism can report sparsely and needs no shift (the same draws as its dense reports).

    The one client-side face of every training pipeline (LPGNN, PPGNN, LDP-GE) and of the graph audits.
    ``box=(a, b)``: ``x`` lies in [a, b]^d while the mechanism works on its own domain [lo, hi]^d; each user maps
    its row affinely onto the domain, and the server maps the estimate back (post-processing; dense)."""
    if box is not None and tuple(box) != tuple(mechanism.domain):
        (a, b), (lo, hi) = box, mechanism.domain
        inner = as_dense(server_estimates(mechanism, lo + (hi - lo) * ((x - a) / (b - a)), rng))
        return a + (b - a) * ((inner - lo) / (hi - lo))
    if mechanism.sampling is not None and mechanism.estimate_shift == 0.0:  # k of d coordinates, zeros elsewhere
        return mechanism.estimate(mechanism.perturb_sparse(x, rng))
    return np.asarray(mechanism.estimate(mechanism.perturb(x, rng)), dtype=float)


def mechanism_groups(mechanisms, n: int) -> list[tuple[object, np.ndarray]]:
    """(mechanism, its nodes) for one shared mechanism or a list of one mechanism per node (grouped by identity)."""
    if not isinstance(mechanisms, (list, tuple)):
        return [(mechanisms, np.arange(n))]
    if len(mechanisms) != n:
        raise ValueError(f"mechanisms must be one mechanism or one per node ({n}), got {len(mechanisms)}")
    seen: dict[int, list[int]] = {}
    for v, m in enumerate(mechanisms):
        seen.setdefault(id(m), []).append(v)
    return [(mechanisms[idx[0]], np.asarray(idx)) for idx in seen.values()]


def per_node_moments(mechanisms, x: np.ndarray, what: str) -> np.ndarray:
    """The exact per-entry moment ``what`` (e.g. ``"estimate_var"``) of each node's mechanism at its features."""
    out = np.empty_like(x)
    for mech, idx in mechanism_groups(mechanisms, x.shape[0]):
        out[idx] = getattr(mech, what)(x[idx])
    return out


def as_dense(estimate) -> np.ndarray:
    """A dense float array from a dense or scipy-sparse estimate."""
    return estimate.toarray() if sp.issparse(estimate) else np.asarray(estimate, dtype=float)


#: Entries (users x coordinates) perturbed per call; chunks of whole replicates, each with its own stream.
CHUNK_ENTRIES = 1 << 21


def replicate_chunks(reps: int, entries_per_rep: int, seed: int, *key: int):
    """(first replicate, count, generator) per chunk, chunk i drawing from ``rng_for(seed, *key, i)``: a
    replicate's draws depend on the seed, the key and the chunk size only."""
    size = max(1, CHUNK_ENTRIES // max(1, entries_per_rep))
    for index, start in enumerate(range(0, reps, size)):
        yield start, min(size, reps - start), rng_for(seed, *key, index)


def propagated_samples(weights: np.ndarray, x: np.ndarray, mechanisms, reps: int, seed: int) -> np.ndarray:
    """``reps`` draws of W @ estimate(perturb(X)): shape (reps, rows of W, d).

    ``mechanisms`` is one mechanism for every node, or a list with one per node (personalised budgets).
    Replicates are drawn in chunks of fixed size (``CHUNK_ENTRIES``), each from its own stream
    ``rng_for(seed, chunk)``, so results do not depend on cores or order. Only nodes with a non-zero weight are perturbed.
    """
    weights = np.atleast_2d(weights)
    used = np.flatnonzero(np.abs(weights).sum(axis=0) > 0)
    groups = [(m, idx[np.isin(idx, used)]) for m, idx in mechanism_groups(mechanisms, x.shape[0])]
    groups = [(m, idx) for m, idx in groups if idx.size]
    d = x.shape[1]
    out = np.empty((reps, weights.shape[0], d))
    for start, count, rng in replicate_chunks(reps, used.size * d, seed):
        total = np.zeros((count, weights.shape[0], d))
        for mech, idx in groups:
            est = as_dense(server_estimates(mech, np.tile(x[idx], (count, 1)), rng)).reshape(count, idx.size, d)
            total += np.einsum("su,cud->csd", weights[:, idx], est)
        out[start:start + count] = total
    return out


def unit_box_mechanism(name: str, eps: float, d: int, k=None):
    """A mechanism on [-1, 1]^d (range keywords for the [alpha, beta] mechanisms, k when the mechanism has one)."""
    extra = {"alpha": -1.0, "beta": 1.0} if name in ("multibit", "analytic_gaussian") else {}
    if k is not None and name not in ("laplace_hd", "gaussian_hd", "analytic_gaussian"):
        extra["k"] = k
    return make(name, eps=eps, d=d, **extra)
