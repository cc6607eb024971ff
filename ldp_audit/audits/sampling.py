"""Seeded, chunked Monte Carlo: results that do not depend on the number of cores or the chunk order.

A run of n draws is cut into chunks of fixed size ``CHUNK``; chunk i draws from its own generator
``SeedSequence(seed, spawn_key=(stream, i))``. Each chunk is reduced to summary statistics that add up
(counts, power sums), so a process pool, or a distributed engine later, can run the same chunks anywhere and
merge them into exactly the same totals. Where the chunks run is an engine's business (``engines.py``).
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, TypeVar

import numpy as np

from ..seeding import rng_for
from .engines import Engine, LocalEngine, ProcessEngine

#: Draws per chunk. Part of the result's definition: changing it changes the random numbers (not their law).
CHUNK = 1 << 17

T = TypeVar("T")


def chunk_sizes(n: int) -> list[int]:
    full, rest = divmod(int(n), CHUNK)
    return [CHUNK] * full + ([rest] if rest else [])


def chunk_rng(seed: int, stream: int, index: int) -> np.random.Generator:
    """The generator of chunk ``index`` of stream ``stream`` (one stream per input or per sub-check)."""
    return rng_for(seed, stream, index)


def _run_block(reduce_chunk, seed: int, stream: int, first: int, count: int, n: int) -> tuple[int, list]:
    """One task: chunks ``first .. first + count - 1`` of a run of n draws -> (draws, their partial sums, unsummed
    so that the caller can add them in global chunk order whatever the block size)."""
    stop = min(first + count, -(-n // CHUNK))
    parts = [reduce_chunk(min(CHUNK, n - i * CHUNK), chunk_rng(seed, stream, i)) for i in range(first, stop)]
    return min(stop * CHUNK, n) - first * CHUNK, parts


#: The engine of the audit in progress (see :func:`using`); None: decided per call from ``workers``.
_ENGINE: ContextVar[Engine | None] = ContextVar("ldp_audit_engine", default=None)


@contextmanager
def using(engine: Engine):
    """Run every :func:`map_reduce` inside this block on ``engine`` (one pool or cluster for the whole audit)."""
    token = _ENGINE.set(engine)
    try:
        yield engine
    finally:
        _ENGINE.reset(token)


def map_reduce(reduce_chunk: Callable[[int, np.random.Generator], T], n: int, seed: int, stream: int,
               workers: int = 1, progress: Callable[[int], None] | None = None) -> T:
    """Sum ``reduce_chunk(size, rng)`` over the chunks of n draws.

    ``reduce_chunk`` must return something that supports ``+`` (numbers, arrays, ``stats.Moments``). The chunks
    run on the engine set by :func:`using`; without one, in a process pool when ``workers > 1``
    (``reduce_chunk`` must then be picklable), else here. Tasks are blocks of chunks, generated lazily; the
    sum is taken in chunk order either way, so the result is identical for any engine, number of workers and
    block size. ``progress`` is called with the number of draws finished after each task.
    """
    n_chunks = -(-int(n) // CHUNK)
    engine = _ENGINE.get()
    owned = None
    if engine is None:
        engine = owned = ProcessEngine(workers) if workers > 1 and n_chunks > 1 else LocalEngine()
    try:
        block = engine.block_for(n_chunks)
        tasks = ((seed, stream, first, block, int(n)) for first in range(0, n_chunks, block))
        total = None
        for draws, parts in engine.imap(_run_block, reduce_chunk, tasks):
            for part in parts:
                total = part if total is None else total + part
            if progress:
                progress(draws)
    finally:
        if owned is not None:
            owned.close()
    return total
