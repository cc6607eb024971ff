"""Exact enumeration of a sampled mechanism's whole-report pmf, for small d (lpgnn C1, ppgnn C7).

With a discrete coordinate law, a report y with support T (|T| = k) has probability
C(d, k)^-1 * prod_{i in T} P(y_i | x_i). Enumerating every output and every corner input gives the exact
largest likelihood ratio of the whole report, independently of the k-times-per-coordinate argument used by
``white_box.whitebox_privacy``.
"""
from __future__ import annotations

import itertools
import math

import numpy as np


def enumerate_max_ratio(mechanism, inputs=None) -> tuple[float, float]:
    """(largest log ratio over outputs and input pairs, largest |total mass - 1|) for a sampled mechanism whose
    coordinate law is discrete. ``inputs`` defaults to every corner of [alpha, beta]^d."""
    d, k = mechanism.d, mechanism.k
    if d > 8:
        raise ValueError(f"exact enumeration is for small d (<= 8), got d={d}")
    lo, hi = mechanism.domain
    inputs = list(itertools.product((lo, hi), repeat=d)) if inputs is None else [tuple(x) for x in inputs]
    values = mechanism.law(lo).atoms[0]
    values = values[values != 0.0] if k < d else values
    subsets = list(itertools.combinations(range(d), k))
    log_probs = np.empty((len(inputs), len(subsets) * len(values) ** k))
    for row, x in enumerate(inputs):
        coordinate = [dict(zip(*mechanism.coordinate.law(float(mechanism.to_coordinate(v))).affine(
            mechanism.client_scale).atoms)) for v in x]
        column = 0
        for subset in subsets:
            for signs in itertools.product(values, repeat=k):
                p = math.prod(coordinate[i].get(s, 0.0) for i, s in zip(subset, signs)) / len(subsets)
                log_probs[row, column] = math.log(p) if p > 0 else -math.inf
                column += 1
    mass_error = float(np.max(np.abs(np.exp(log_probs).sum(axis=1) - 1.0)))
    return float(np.max(log_probs.max(axis=0) - log_probs.min(axis=0))), mass_error
