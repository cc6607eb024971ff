"""Seeded, chunked Monte Carlo: results that do not depend on the number of cores or the chunk order.

A run of n draws is cut into chunks of fixed size (``CHUNK`` draws, or a size of the run's own, e.g. a number of
whole graph replicates); chunk i draws from its own generator ``SeedSequence(seed, spawn_key=(*stream, i))``.
Each chunk is reduced to summary statistics that add up (counts, power sums, stacked rows), so a process pool or
a Dask cluster can run the same chunks anywhere and merge them into exactly the same totals. Where the chunks run
is an engine's business (``engines.py``).

A :class:`Draws` is one seeded run of draws with its chunk reducer. An audit asks for draws through sampling
plans (:data:`Plan`, generators that yield the streams of each of their rounds), and :func:`run_plans` drives
every plan of an audit at once on one engine: all their blocks in one lazily filled queue, each stream folded in
its own chunk order. :func:`map_reduce` and :func:`map_reduce_many` are the one-round cases. A stream's key
prefix comes from the registry of stream keys, :mod:`ldp_audit.streams`.
"""
from __future__ import annotations

from collections import deque
from concurrent.futures import Future
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Callable, Generator, Sequence, TypeVar

import numpy as np

from ...seeding import rng_for
from .engines import Engine, make_engine

#: Draws per chunk. Part of the result's definition: changing it changes the random numbers (not their law).
CHUNK = 1 << 17

T = TypeVar("T")


def chunk_sizes(n: int) -> list[int]:
    full, rest = divmod(int(n), CHUNK)
    return [CHUNK] * full + ([rest] if rest else [])


def stream_key(stream: int | tuple[int, ...]) -> tuple[int, ...]:
    """A stream's key prefix as a tuple (a stream named by one number is the tuple of that number)."""
    return tuple(stream) if isinstance(stream, tuple) else (stream,)


def chunk_rng(seed: int, stream: int | tuple[int, ...], index: int) -> np.random.Generator:
    """The generator of chunk ``index`` of stream ``stream`` (one stream per input or per sub-check):
    ``rng_for(seed, *stream, index)``."""
    return rng_for(seed, *stream_key(stream), index)


def _run_block(reduce_chunk, seed: int, stream, first: int, count: int, n: int, chunk: int = CHUNK,
               indexed: bool = False) -> tuple[int, list]:
    """One task: chunks ``first .. first + count - 1`` of a run of n draws in chunks of ``chunk`` -> (draws, their
    partial sums, unsummed so that the caller can add them in global chunk order whatever the block size)."""
    stop = min(first + count, -(-n // chunk))
    parts = []
    for i in range(first, stop):
        size, rng = min(chunk, n - i * chunk), chunk_rng(seed, stream, i)
        parts.append(reduce_chunk(i * chunk, size, rng) if indexed else reduce_chunk(size, rng))
    return min(stop * chunk, n) - first * chunk, parts


#: The engine of the audit in progress (see :func:`using`); None: decided per call from ``workers``.
_ENGINE: ContextVar[Engine | None] = ContextVar("ldp_audit_engine", default=None)


@contextmanager
def using(engine: Engine):
    """Run all sampling inside this block on ``engine`` (one pool or cluster for the whole audit)."""
    token = _ENGINE.set(engine)
    try:
        yield engine
    finally:
        _ENGINE.reset(token)


@dataclass(frozen=True)
class Draws:
    """n draws of stream ``stream`` (a key prefix: one number or a tuple) under ``seed``, in chunks of ``chunk``
    draws, chunk i from ``chunk_rng(seed, stream, i)``: each chunk reduced by ``reduce_chunk(size, rng)`` (or
    ``reduce_chunk(first, size, rng)`` when ``indexed``, ``first`` being the index of the chunk's first draw) to
    something that supports ``+`` (numbers, arrays, ``stats.Moments``, :class:`Stack`), the partial sums added
    in chunk order."""

    reduce_chunk: Callable[..., Any]
    n: int
    seed: int
    stream: int | tuple[int, ...]
    chunk: int = CHUNK
    indexed: bool = False

    @property
    def chunks(self) -> int:
        return -(-int(self.n) // self.chunk)


class Stack:
    """Per-draw rows that add up by stacking: a reducer returns ``Stack(rows)`` when the caller needs every draw
    (quantiles, batch means) rather than a sum; ``array()`` is all the rows in draw order."""

    def __init__(self, *parts: np.ndarray):
        self.parts = parts

    def __add__(self, other: "Stack") -> "Stack":
        return Stack(*self.parts, *other.parts)

    def array(self) -> np.ndarray:
        return np.concatenate(self.parts)


@dataclass(frozen=True)
class Announce:
    """What a plan may yield first: the number of draws all its rounds will make (see :data:`Plan`)."""

    draws: int


#: A sampling plan: a generator that yields lists of :class:`Draws` and is sent back their totals (same order),
#: as many rounds as it needs (e.g. a pilot, then counts of events chosen on it), and returns its result. A plan
#: that yields an empty list is resumed once the engine's window of tasks is full (or nothing is left to wait for):
#: exact work placed there overlaps the sampling of the other plans. A plan may first yield an :class:`Announce`
#: of the draws all its rounds will make (it is sent None): a progress bar then knows its total before any draw.
Plan = Generator[list, list, Any]


class _Folding:
    """A stream being summed: blocks of ``block`` chunks go out in order and come back in order."""

    def __init__(self, stream: Draws, block: int, handle, waiting: "_Waiting", slot: int):
        self.stream, self.block, self.handle, self.waiting, self.slot = stream, block, handle, waiting, slot
        self.next_first, self.blocks_left, self.total = 0, -(-stream.chunks // block), None

    def next_task(self) -> tuple:
        first, self.next_first = self.next_first, self.next_first + self.block
        s = self.stream
        return (self.handle, s.seed, s.stream, first, self.block, int(s.n), s.chunk, s.indexed)

    @property
    def submitted(self) -> bool:
        return self.next_first >= self.stream.chunks

    def fold(self, parts: list) -> bool:
        """Add a block's partial sums (in chunk order); True when the stream is complete."""
        for part in parts:
            self.total = part if self.total is None else self.total + part
        self.blocks_left -= 1
        return self.blocks_left == 0


class _Waiting:
    """One round of a plan: the streams it asked for, and their totals as they complete."""

    def __init__(self, plan_index: int, count: int):
        self.plan_index, self.left, self.totals, self.handles = plan_index, count, [None] * count, []


def run_plans(plans: Sequence[Plan], workers: int = 1, progress: Callable[[int], None] | None = None,
              planned: Callable[[int], None] | None = None) -> list:
    """Drive several sampling plans (see :data:`Plan`) on one engine, and return their results in order.

    Every stream any plan asks for is queued at once and its blocks are submitted as soon as the engine has room,
    whatever plan asked: there is no barrier between streams or plans, only a plan's own next round waits for
    its own streams. Each stream is folded in its own global chunk order, so the totals are identical for any
    engine, worker count, block size and mix of plans. The engine is the one set by :func:`using`; without one,
    a process pool when ``workers > 1`` (reducers must then be picklable), else this process. ``progress`` is
    called with the number of draws finished after each task; ``planned`` once, before the first task, with the
    draws the plans announced (:class:`Announce`).
    """
    engine = _ENGINE.get()
    owned = None
    if engine is None:
        engine = owned = make_engine(None, workers)
    try:
        results = _drive(list(plans), engine, progress, planned)
    except BaseException:
        if owned is not None:
            owned.close(abort=True)
        raise
    if owned is not None:
        owned.close()
    return results


def _drive(plans: list, engine: Engine, progress, planned) -> list:
    results = [None] * len(plans)
    queue: deque[_Folding] = deque()  # streams with blocks left to submit, in the order they were asked for
    idle: deque[int] = deque()  # plans that asked for no streams: resumed once tasks are in flight
    in_flight: deque[tuple[Future, _Folding]] = deque()
    live: set[_Waiting] = set()  # rounds with streams still out (their shared handles are released when done)
    announced = [0]

    def resume(index: int, totals: list | None) -> None:
        try:
            streams = next(plans[index]) if totals is None else plans[index].send(totals)
            if isinstance(streams, Announce):
                announced[0] += int(streams.draws)
                streams = next(plans[index])
        except StopIteration as done:
            results[index] = done.value
            return
        if not streams:
            idle.append(index)
            return
        waiting = _Waiting(index, len(streams))
        live.add(waiting)
        for slot, stream in enumerate(streams):
            if stream.chunks == 0:
                complete(waiting, slot, None)
                continue
            handle = engine.share(stream.reduce_chunk)
            waiting.handles.append(handle)
            queue.append(_Folding(stream, engine.block_for(stream.chunks), handle, waiting, slot))

    def complete(waiting: _Waiting, slot: int, total) -> None:
        waiting.totals[slot], waiting.left = total, waiting.left - 1
        if waiting.left == 0:
            live.discard(waiting)
            for handle in waiting.handles:
                engine.release(handle)
            resume(waiting.plan_index, waiting.totals)

    try:
        for index in range(len(plans)):
            resume(index, None)
        if planned is not None:
            planned(announced[0])
        while queue or in_flight or idle:
            while queue and len(in_flight) < engine.window:
                folding = queue[0]
                in_flight.append((engine.submit(_run_block, *folding.next_task()), folding))
                if folding.submitted:
                    queue.popleft()
            if idle and (len(in_flight) >= engine.window or not in_flight):  # workers busy, or nothing to wait for
                resume(idle.popleft(), [])
                continue
            future, folding = in_flight.popleft()
            draws, parts = future.result()
            if progress:
                progress(draws)
            if folding.fold(parts):
                complete(folding.waiting, folding.slot, folding.total)
    finally:
        engine.cancel(future for future, _ in in_flight)
        for waiting in live:
            for handle in waiting.handles:
                engine.release(handle)
    return results


def run_plan(plan: Plan, workers: int = 1, progress: Callable[[int], None] | None = None):
    """:func:`run_plans` of one plan."""
    return run_plans([plan], workers, progress)[0]


def _streams(streams: list[Draws]) -> Plan:
    return (yield streams)


def map_reduce_many(streams: Sequence[Draws], workers: int = 1,
                    progress: Callable[[int], None] | None = None) -> list:
    """The totals of several streams, all submitted at once (see :func:`run_plans`)."""
    return run_plan(_streams(list(streams)), workers, progress)


def map_reduce(reduce_chunk: Callable[[int, np.random.Generator], T], n: int, seed: int, stream: int | tuple,
               workers: int = 1, progress: Callable[[int], None] | None = None) -> T:
    """Sum ``reduce_chunk(size, rng)`` over the chunks of n draws of one stream (see :func:`run_plans`)."""
    return map_reduce_many([Draws(reduce_chunk, n, seed, stream)], workers, progress)[0]
