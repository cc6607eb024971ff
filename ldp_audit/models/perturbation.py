"""Perturb-then-propagate: users perturb their features once, the server rectifies and propagates.

The pieces every graph pipeline and every graph-bound audit share: the server's estimates of one draw of
reports (sparse when the mechanism can report sparsely), mechanisms assigned per node (e.g. the personalised
budgets of :class:`ldp_audit.mechanisms.personalised.PersonalisedMechanism`) and their exact per-node moments.
The audits' replicated draws of W @ estimate(perturb(X)) are sampling plans of ``ldp_audit.audits.graph.replicates``.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..mechanisms import make


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


def unit_box_mechanism(name: str, eps: float, d: int, k=None):
    """A mechanism on [-1, 1]^d (range keywords for the [alpha, beta] mechanisms, k when the mechanism has one)."""
    extra = {"alpha": -1.0, "beta": 1.0} if name in ("multibit", "analytic_gaussian") else {}
    if k is not None and name not in ("laplace_hd", "gaussian_hd", "analytic_gaussian"):
        extra["k"] = k
    return make(name, eps=eps, d=d, **extra)
