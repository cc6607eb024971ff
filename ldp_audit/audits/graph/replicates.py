"""Repeated perturbations of a graph's features as sampling plans: the graph audits' replicates on the engines.

A replicate is one draw of W @ estimate(perturb(X)) (or of any per-draw statistic of a perturbed graph). Replicates
are drawn in chunks of whole replicates, chunk i from ``rng_for(seed, *stream, i)`` (``streams.PROPAGATED_REPLICATES``
for W @ estimate(perturb(X))), with as many replicates per
chunk as fit in ``CHUNK_ENTRIES`` perturbed numbers: a replicate's numbers depend on the seed, the stream and
the chunk size only. Each chunk is a :class:`~ldp_audit.audits.kernel.sampling.Draws` chunk whose reducer
returns its rows stacked (:class:`~ldp_audit.audits.kernel.sampling.Stack`), so the chunks run on whatever
engine is active (``sampling.using``: local, a process pool, a Dask cluster) and come back in replicate order.
A reducer holds only what its chunks read (the weighted rows and features of the nodes that matter), and the
engine sends it once per task block (once per worker on Dask), never once per replicate.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ... import streams
from ...models.perturbation import as_dense, mechanism_groups, server_estimates
from ..kernel.sampling import Draws, Stack, map_reduce_many

#: Perturbed numbers (users x coordinates) per chunk: a chunk holds this many over the entries of one replicate.
CHUNK_ENTRIES = 1 << 21


def replicates_per_chunk(entries_per_rep: int) -> int:
    """Whole replicates in one chunk: part of the replicates' definition (it decides which stream draws which)."""
    return max(1, CHUNK_ENTRIES // max(1, int(entries_per_rep)))


class _Propagated:
    """Picklable chunk reducer: ``count`` draws of W @ estimate(perturb(X)) over the nodes with a non-zero weight,
    one mechanism (group of nodes) after the other from the chunk's generator."""

    def __init__(self, weights: np.ndarray, x: np.ndarray, mechanisms):
        weights = np.atleast_2d(weights)
        used = np.flatnonzero(np.abs(weights).sum(axis=0) > 0)
        groups = [(m, idx[np.isin(idx, used)]) for m, idx in mechanism_groups(mechanisms, x.shape[0])]
        self.groups = [(m, weights[:, idx], x[idx]) for m, idx in groups if idx.size]
        self.rows, self.d, self.used = weights.shape[0], x.shape[1], used.size

    def __call__(self, count: int, rng: np.random.Generator) -> Stack:
        total = np.zeros((count, self.rows, self.d))
        for mech, w, x in self.groups:
            est = as_dense(server_estimates(mech, np.tile(x, (count, 1)), rng)).reshape(count, x.shape[0], self.d)
            total += np.einsum("su,cud->csd", w, est)
        return Stack(total)


def propagated_draws(weights: np.ndarray, x: np.ndarray, mechanisms, reps: int, seed: int) -> Draws:
    """``reps`` replicates of W @ estimate(perturb(X)) as one stream of draws (see the module docstring).

    ``mechanisms`` is one mechanism for every node, or a list with one per node (personalised budgets); only
    nodes with a non-zero weight are perturbed."""
    reducer = _Propagated(weights, np.asarray(x, dtype=float), mechanisms)
    return Draws(reducer, reps, seed, streams.PROPAGATED_REPLICATES.key(),
                 replicates_per_chunk(reducer.used * reducer.d))


def stacked(draws: Sequence[Draws]) -> list[np.ndarray]:
    """Run several replicate streams at once on the active engine; each one's rows in replicate order."""
    return [total.array() for total in map_reduce_many(list(draws))]


def propagated_samples(weights: np.ndarray, x: np.ndarray, mechanisms, reps: int, seed: int) -> np.ndarray:
    """``reps`` draws of W @ estimate(perturb(X)), shape (reps, rows of W, d), on the active engine."""
    [samples] = stacked([propagated_draws(weights, x, mechanisms, reps, seed)])
    return samples
