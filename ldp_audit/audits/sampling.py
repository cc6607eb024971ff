"""Seeded, chunked Monte Carlo: results that do not depend on the number of cores or the chunk order.

A run of n draws is cut into chunks of fixed size ``CHUNK``; chunk i draws from its own generator
``SeedSequence(seed, spawn_key=(stream, i))``. Each chunk is reduced to summary statistics that add up
(counts, power sums), so a process pool, or a distributed engine later, can run the same chunks anywhere and
merge them into exactly the same totals.
"""
from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import Callable, TypeVar

import numpy as np

from ..seeding import rng_for

#: Draws per chunk. Part of the result's definition: changing it changes the random numbers (not their law).
CHUNK = 1 << 17

T = TypeVar("T")


def chunk_sizes(n: int) -> list[int]:
    full, rest = divmod(int(n), CHUNK)
    return [CHUNK] * full + ([rest] if rest else [])


def chunk_rng(seed: int, stream: int, index: int) -> np.random.Generator:
    """The generator of chunk ``index`` of stream ``stream`` (one stream per input or per sub-check)."""
    return rng_for(seed, stream, index)


def _run_chunk(task):
    reduce_chunk, seed, stream, index, size = task
    return reduce_chunk(size, chunk_rng(seed, stream, index))


def map_reduce(reduce_chunk: Callable[[int, np.random.Generator], T], n: int, seed: int, stream: int,
               workers: int = 1, progress: Callable[[int], None] | None = None) -> T:
    """Sum ``reduce_chunk(size, rng)`` over the chunks of n draws.

    ``reduce_chunk`` must return something that supports ``+`` (numbers, arrays, ``stats.Moments``). With
    ``workers > 1`` chunks run in a process pool (``reduce_chunk`` must then be picklable); the sum is taken in
    chunk order either way, so the result is identical for any number of workers. ``progress`` is called with
    the number of draws finished after each chunk.
    """
    tasks = [(reduce_chunk, seed, stream, i, size) for i, size in enumerate(chunk_sizes(n))]
    if workers > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            parts = list(pool.map(_run_chunk, tasks))
            if progress:
                progress(n)
    else:
        parts = []
        for task in tasks:
            parts.append(_run_chunk(task))
            if progress:
                progress(task[-1])
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total
