"""The labelled part of the training split (lpgnn RQ4, Fig. 7): a run trains on a uniform subset of the training
nodes of size ``round(train_fraction x |train|)`` (at least one), drawn from the run's own seed.

The subset is the first nodes of one seeded permutation of the training split, so for one seed a smaller fraction
keeps a subset of a larger one's nodes (runs of one seed are paired across label rates). With the 50/25/25 split,
the paper's label rate is rho = 50 % x train_fraction (the authors' code [code-seed], spec §6.4).
"""
from __future__ import annotations

import numpy as np

from ... import streams
from ...seeding import rng_for



def labelled_training_nodes(train: np.ndarray, train_fraction: float, seed: int) -> np.ndarray:
    """The training nodes whose labels a run with ``train_fraction`` and ``seed`` uses (all of them at 1)."""
    if train_fraction == 1.0:
        return train
    keep = max(1, int(round(train_fraction * train.size)))
    order = rng_for(seed, *streams.LABEL_SUBSET.key()).permutation(train.size)
    return np.sort(train[order[:keep]])
