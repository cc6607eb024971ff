"""The one seeding rule of the package, below every layer so that mechanisms, models and audits share it.

A random stream is named by a seed and a key: ``rng_for(seed, *key)`` is the generator of
``SeedSequence(seed, spawn_key=key)``. Two streams with different keys never share numbers, and a stream never
depends on which other streams ran before it, so results do not depend on cores, engines or execution order.
``rng_for(seed, i)`` is exactly the i-th child of ``SeedSequence(seed).spawn(...)``.
"""
from __future__ import annotations

import numpy as np


def rng_for(seed: int, *key: int) -> np.random.Generator:
    """The generator of ``SeedSequence(seed, spawn_key=key)``."""
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=tuple(int(k) for k in key)))
