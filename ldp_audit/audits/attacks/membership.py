"""Distinguishing audit of SE-PrivGEmb's node-level claim (spec Section 6.4, claim C16, errata E8).

Eq. 9 adds noise only to the rows that the sampled subgraphs touch. A row of W_in that is never a centre
gets an exactly-zero gradient, and Adam (or SGD) leaves it exactly at its initial value. Take a graph G in
which node z has one edge, listed with z as centre, and its neighbour G' in which z's edges are removed
(allowed by the node-level relation of Definition 5). The event Ev = {final W_in[z] != initial W_in[z]}
has probability 0 under G' and 1 - (1 - q)^T under G. Training many times in each world and bounding both
probabilities with one-sided Clopper-Pearson intervals gives an empirical lower bound on eps,
eps_lb = log((LB_G - delta) / UB_G'), and an empirical delta at the claimed eps,
delta_emp = LB_G - e^eps UB_G'. A violation is reported when eps_lb > claimed eps (equivalently
delta_emp > delta). With noise on every row (Eq. 6) Ev happens in both worlds and nothing is detected.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ...seeding import rng_for
from ..kernel.result import CheckResult, Status
from ..kernel.stats import one_sided_bounds


def toy_worlds(num_nodes: int = 20, num_edges: int = 40, seed: int = 7):
    """A random simple graph on ``num_nodes`` nodes plus node z = num_nodes with a single edge (z, 0) listed
    with z first (world G), and the same graph with z isolated (world G'). Returns (z, (adj, edges) x 2)."""
    import scipy.sparse as sp

    rng = rng_for(seed)
    ring = np.stack([np.arange(num_nodes), (np.arange(num_nodes) + 1) % num_nodes])  # keeps it connected
    ring = np.sort(ring, axis=0)
    iu = np.array(np.triu_indices(num_nodes, 1))
    on_ring = np.isin(iu[0] * num_nodes + iu[1], ring[0] * num_nodes + ring[1])
    extra = rng.choice(np.flatnonzero(~on_ring), num_edges - num_nodes, replace=False)
    base = np.concatenate([ring, iu[:, extra]], axis=1)
    z = num_nodes
    n = num_nodes + 1
    with_z = np.concatenate([np.array([[z], [0]]), base], axis=1)

    def adjacency(edges):
        a = sp.coo_matrix((np.ones(edges.shape[1]), (edges[0], edges[1])), shape=(n, n))
        return (a + a.T).tocsr()

    return z, (adjacency(with_z), with_z), (adjacency(base), base)


def membership_audit(config, runs: int, alpha: float = 1e-3, delta: float = 1e-5, k: int = 2,
                     proximity: str = "deepwalk", seed: int = 0, claimed_eps: float | None = None) -> CheckResult:
    """Run ``runs`` trainings in each world and test the node-level (eps, delta) claim of ``config``.

    ``config`` is a :class:`ldp_audit.models.se_privgemb.TrainConfig`; run i uses seed ``seed + i`` for the
    batches and the noise (the initialisation is public: the adversary reads it from the run). The claimed
    eps defaults to the paper's accountant (Theorem 4 + Theorem 1) after ``config.steps`` steps.
    ``alpha`` is the family-wise false-alarm rate, split over the two Clopper-Pearson bounds.
    """
    from ...models import se_privgemb as model
    from ..privacy.accountants import paper_accountant

    if not (isinstance(runs, int) and runs >= 10):
        raise ValueError(f"runs must be an integer >= 10, got {runs!r}")
    z, world_g, world_h = toy_worlds()
    graphs = [model.build_subgraphs(adj, edges, proximity, k, seed=seed) for adj, edges in (world_g, world_h)]
    hits = []
    for subgraphs in graphs:
        changed = 0
        for i in range(runs):
            result = model.train(subgraphs, replace(config, seed=seed + i, eps=None))
            changed += bool(np.any(result.w_in[z] != result.init_in[z]))
        hits.append(changed)
    if claimed_eps is None:
        claimed_eps = paper_accountant().epsilon(config.batch_size / len(graphs[0]), config.sigma, delta,
                                                 config.steps)
    lb, _ = one_sided_bounds(hits[0], runs, alpha / 2)
    _, ub = one_sided_bounds(hits[1], runs, alpha / 2)
    eps_lb = math.log((lb - delta) / ub) if lb > delta else -math.inf
    delta_emp = lb - math.exp(claimed_eps) * ub
    violated = eps_lb > claimed_eps
    return CheckResult(
        f"membership.{config.perturbation}", "SE-PrivGEmb Thm 5 node-level (eps, delta)-DP; spec 6.4 (E8)",
        Status.FAIL if violated else Status.PASS, eps_lb, "eps_lower", interval=(lb, ub), threshold=claimed_eps,
        n=2 * runs, seed=seed, alpha=alpha,
        explanation=(f"W_in[z] moved in {hits[0]}/{runs} runs on G and {hits[1]}/{runs} on G' "
                     f"(z's edge removed): eps >= {eps_lb:.3g} > claimed {claimed_eps:.3g}, "
                     f"delta_emp = {delta_emp:.3g}" if violated else
                     f"W_in[z] moved in {hits[0]}/{runs} runs on G and {hits[1]}/{runs} on G': no violation "
                     f"of eps = {claimed_eps:.3g} detected (eps_lower = {eps_lb:.3g})"),
        details={"hits_G": hits[0], "hits_G_prime": hits[1], "runs_per_world": runs, "delta_emp": delta_emp,
                 "delta": delta, "perturbation": config.perturbation, "steps": config.steps,
                 "batch_size": config.batch_size, "subgraphs_G": len(graphs[0])})
