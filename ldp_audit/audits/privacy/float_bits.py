"""The floating-point check (``float.bits``): a lower bound on eps from the bits of float reports.

A sampler written on doubles is not the real-valued mechanism its law describes. Mironov (CCS 2012) showed that the
textbook Laplace mechanism ``x + Lap(b)`` leaks x through the low bits of its output; Jin et al. (S&P 2022) did the
same for the Gaussian, and Haney et al. (2022) found such precision attacks on deployed libraries. The mechanics: a
report fl(x + L) near 0 with x = 1 is a multiple of 2^-53, the grid it inherits from the addition with 1, while the
sampler's own L (the report under x = 0) has a full 53-bit significand at any magnitude. A check that bins reports by
value never sees this; this one reads, for every report coordinate y, two numbers:

* the binade e (2^e <= |y| < 2^(e+1)),
* the granularity g: the largest g such that y is an integer multiple of 2^g (e - 52 + the trailing zeros of the
  significand for a normal double).

The event family, per numeric coordinate j: "|y_j| lies in binades a..b and y_j IS a multiple of 2^G" and the same
with "is NOT", for three shapes of binade window (every binade up to b, one binade, every binade from a on) and every
G seen. For an input pair (x1, x0), one event is chosen on a selection half of the draws (the largest predicted
Clopper-Pearson bound, as the black-box search chooses its events) and certified on the other half, fresh draws:
the certified lower bound is ``kernel.stats.ratio_lower_bound`` at the pair's share of alpha (Bonferroni over the
ordered pairs, one certified event each), the bound the black-box search reports (``search.Finding.bounds``). So a
mechanism whose reports follow an eps-LDP law exactly, bits included, fails this row with probability at most
alpha; the events are ordinary output events, nothing here assumes a law.

What it does not claim. A PASS says that no event of this family separates the inputs' bits at this sample size,
not that the float sampler is private: leaks through other bit patterns (the exact value of a rounded logarithm,
correlated low bits of a vector) are outside the family. The bound is finite when an event never occurs under x0
(Clopper-Pearson with a zero count); the loss may then be unbounded, and the finding says so, as the search does.
Reports are read as the search reads them (float64 after ``reports.as_rows``); zeros, infinities and NaN fall in no
event; only the first ``MAX_COLUMNS`` numeric coordinates of a vector report are read.
"""
from __future__ import annotations

import math

import numpy as np

from ... import streams
from ..kernel.result import CheckResult, Status
from ..kernel.sampling import Announce, Draws, Plan, rng_for, run_plan
from ..kernel.stats import RATIO_RTOL, expected_ratio_lower_bound
from .reports import ReportFormat
from .search import BLOCK_ENTRIES, CHUNK, Candidate, Finding, ceiling, read_reports

#: Numeric coordinates of a vector report whose bits are read (the first ones).
MAX_COLUMNS = 16
#: Offset that makes a binade or granularity (-1074 .. 1023) a non-negative 12-bit field of a cell key.
_OFFSET = 1100
_FIELD = 12
_MASK = (1 << _FIELD) - 1
_SIGNIFICAND = (1 << 52) - 1


def bit_cells(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mask, binade e, granularity g) of float64 ``values``: ``mask`` keeps the finite non-zero ones, 2^e <= |y| <
    2^(e+1), and y is an integer multiple of 2^g but not of 2^(g+1)."""
    y = np.abs(np.asarray(values, dtype=np.float64))
    keep = np.isfinite(y) & (y != 0.0)
    y = np.where(keep, y, 1.0)
    bits = y.view(np.uint64)
    raw_exponent = (bits >> np.uint64(52)).astype(np.int64)
    fraction = bits & np.uint64(_SIGNIFICAND)
    normal = raw_exponent > 0
    significand = np.where(normal, fraction | np.uint64(1 << 52), fraction)
    scale = np.where(normal, raw_exponent - 1075, -1074)  # y = significand * 2^scale
    lowest = significand & (~significand + np.uint64(1))  # the lowest set bit, a power of two <= 2^52
    trailing = np.frexp(lowest.astype(np.float64))[1].astype(np.int64) - 1
    binade = np.frexp(y)[1].astype(np.int64) - 1
    return keep, binade, scale + trailing


class BitCounts:
    """How many reports fell in each cell (coordinate, binade, granularity): sorted cell keys and their counts,
    added exactly across chunks (so every engine folds the same totals)."""

    def __init__(self, keys: np.ndarray, counts: np.ndarray, columns: int = 0):
        self.keys, self.counts, self.columns = keys, counts, columns

    @classmethod
    def of(cls, values: np.ndarray, columns: list[int]) -> "BitCounts":
        parts = []
        for j in columns:
            keep, binade, grain = bit_cells(values[:, j])
            parts.append((np.int64(j) << (2 * _FIELD)) | ((binade[keep] + _OFFSET) << _FIELD) | (grain[keep] + _OFFSET))
        keys, counts = np.unique(np.concatenate(parts) if parts else np.zeros(0, np.int64), return_counts=True)
        return cls(keys, counts.astype(np.int64), len(columns))

    def __add__(self, other: "BitCounts") -> "BitCounts":
        keys, inverse = np.unique(np.concatenate([self.keys, other.keys]), return_inverse=True)
        counts = np.bincount(inverse, weights=np.concatenate([self.counts, other.counts]), minlength=keys.size)
        return BitCounts(keys, np.round(counts).astype(np.int64), max(self.columns, other.columns))

    def column(self, j: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(binades, granularities, counts) of coordinate j's cells."""
        keep = (self.keys >> (2 * _FIELD)) == j
        keys = self.keys[keep]
        return ((keys >> _FIELD) & _MASK) - _OFFSET, (keys & _MASK) - _OFFSET, self.counts[keep]


class _BitDraw:
    """Picklable chunk reducer: ``size`` reports of input x (in blocks of ``block`` rows) -> their :class:`BitCounts`
    over the first ``MAX_COLUMNS`` numeric coordinates."""

    def __init__(self, sample, x, block: int, fmt: ReportFormat):
        self.sample, self.x, self.block, self.fmt = sample, x, block, fmt

    def __call__(self, size: int, rng: np.random.Generator) -> BitCounts:
        total = None
        for start in range(0, size, self.block):
            rows = read_reports(self.sample, self.x, min(self.block, size - start), rng, self.fmt)
            numeric = rows.numeric or (True,) * rows.width
            columns = [j for j in range(rows.width) if numeric[j]][:MAX_COLUMNS]
            part = BitCounts.of(rows.values, columns)
            total = part if total is None else total + part
        return total


class BitEvent:
    """Coordinate ``j``: |y| in binades ``lo``..``hi`` and y a multiple of 2^``grain`` (``multiple``) or not."""

    def __init__(self, j: int, lo: int, hi: int, grain: int, multiple: bool, width: int):
        self.j, self.lo, self.hi, self.grain, self.multiple, self.width = j, lo, hi, grain, multiple, width

    def window(self, counts: BitCounts) -> tuple[int, int]:
        """(reports in the event, reports in its binade window) among ``counts``."""
        binade, grain, n = counts.column(self.j)
        inside = (binade >= self.lo) & (binade <= self.hi)
        hit = inside & ((grain >= self.grain) == self.multiple)
        return int(n[hit].sum()), int(n[inside].sum())

    def range_text(self) -> str:
        return f"[2^{self.lo}, 2^{self.hi + 1})"

    def describe(self) -> str:
        where = f"coordinate {self.j}: " if self.width > 1 else ""
        return (f"{where}|y| in {self.range_text()} and y {'a' if self.multiple else 'not a'} multiple of "
                f"2^{self.grain}")


def _choose(sel1: BitCounts, sel0: BitCounts, m: int, n_final: int, alpha: float, delta: float,
            width: int) -> tuple[BitEvent | None, float]:
    """The event of the family (module docstring) with the largest bound that ``n_final`` draws are predicted to
    certify at level ``alpha``, from the selection counts of x1 (``sel1``) and x0 (``sel0``), m draws each."""
    best, best_bound = None, -math.inf
    for j in range(max(sel1.columns, sel0.columns)):
        b1, g1, c1 = sel1.column(j)
        b0, g0, c0 = sel0.column(j)
        if c1.size == 0:
            continue
        binades, grains = np.unique(np.concatenate([b1, b0])), np.unique(np.concatenate([g1, g0]))
        table = []
        for b, g, c in ((b1, g1, c1), (b0, g0, c0)):
            t = np.zeros((binades.size, grains.size))
            np.add.at(t, (np.searchsorted(binades, b), np.searchsorted(grains, g)), c)
            table.append(t)
        # per binade and threshold G_k: the reports that are multiples of 2^G_k (granularity >= G_k)
        at_least = [np.cumsum(t[:, ::-1], axis=1)[:, ::-1] for t in table]
        # binade windows: every binade up to b, one binade, every binade from a on
        windows = [(0, b) for b in range(binades.size)] + [(b, b) for b in range(binades.size)] + \
                  [(a, binades.size - 1) for a in range(binades.size)]
        sums = []
        for s in at_least:
            prefix = np.vstack([np.zeros(grains.size), np.cumsum(s, axis=0)])
            sums.append(np.array([prefix[b + 1] - prefix[a] for a, b in windows]))  # (windows, thresholds)
        totals = [s[:, :1] for s in sums]  # threshold G_0 (the smallest): the whole window
        for multiple in (True, False):
            w1, w0 = (sums[0], sums[1]) if multiple else (totals[0] - sums[0], totals[1] - sums[1])
            predicted = expected_ratio_lower_bound(w1 / m, (w0 + 0.5) / (m + 1.0), n_final, alpha, delta)
            predicted = np.where(w1 > 0, predicted, -np.inf)
            k = int(np.argmax(predicted))
            if predicted.flat[k] > best_bound:
                w, t = divmod(k, grains.size)
                a, b = windows[w]
                best_bound = float(predicted.flat[k])
                best = BitEvent(j, int(binades[a]), int(binades[b]), int(grains[t]), multiple, width)
    return best, best_bound


def float_bits_privacy(mechanism, n: int, seed: int, alpha: float, workers: int = 1) -> list[CheckResult]:
    """:func:`float_bits_plan`, run on its own."""
    return run_plan(float_bits_plan(mechanism, n, seed, alpha), workers)


def float_bits_plan(mechanism, n: int, seed: int, alpha: float) -> Plan:
    """The ``float.bits`` row (module docstring): a sampling plan (``sampling.Plan``) of one round, the selection
    and certification draws of every input of ``mechanism.privacy_inputs`` at once."""
    inputs = list(mechanism.privacy_inputs)
    pairs = [(a, b) for a in range(len(inputs)) for b in range(len(inputs)) if a != b]
    fmt = ReportFormat(ReportFormat.of(mechanism).universe)
    probe = read_reports(mechanism.sample, inputs[0], 64, rng_for(seed, *streams.FLOAT_PROBE.key()), fmt)
    block = int(max(256, min(CHUNK, BLOCK_ENTRIES // max(probe.width, 1))))
    m = n // 2
    n_final = n - m
    yield Announce(n * len(inputs))
    drawn = yield ([Draws(_BitDraw(mechanism.sample, x, block, fmt), m, seed, streams.FLOAT_SELECT.key(i))
                    for i, x in enumerate(inputs)] +
                   [Draws(_BitDraw(mechanism.sample, x, block, fmt), n_final, seed, streams.FLOAT_CERTIFY.key(i))
                    for i, x in enumerate(inputs)])
    select, certify = drawn[:len(inputs)], drawn[len(inputs):]
    return [_row(mechanism, inputs, pairs, select, certify, m, n_final, n, seed, alpha, probe.width)]


def _row(mechanism, inputs, pairs, select, certify, m, n_final, n, seed, alpha, width) -> CheckResult:
    eps, delta = mechanism.eps, mechanism.delta
    claim = f"{mechanism.reference}: {eps:g}-LDP" + (f" (delta={delta:g})" if delta else "") + \
        ", float reports' bits included"
    alpha_each = alpha / max(len(pairs), 1)
    candidates = []
    for i1, i0 in pairs:
        event, _ = _choose(select[i1], select[i0], m, n_final, alpha_each, delta, width)
        if event is not None:
            candidates.append(Candidate(i1, i0, "float-bits", event))
    if not candidates:
        return CheckResult("float.bits", claim, Status.INFO, None, "eps_lower", threshold=eps, n=n, seed=seed,
                           alpha=alpha, explanation="no finite non-zero numeric report coordinate: no bits to read")
    counts = {i: np.array([c.event.window(certify[i])[0] for c in candidates], dtype=np.int64)
              for i in range(len(inputs))}
    finding = Finding(tuple(candidates), counts, n_final, m, alpha_each, delta)
    bounds = finding.bounds()
    best = int(np.argmax(bounds))
    cand, raw = candidates[best], float(bounds[best])
    lower = max(raw, 0.0)
    violated = raw > eps * (1.0 + RATIO_RTOL)
    (c1, in1), (c0, in0) = cand.event.window(certify[cand.i1]), cand.event.window(certify[cand.i0])
    x1, x0 = _label(inputs[cand.i1]), _label(inputs[cand.i0])
    share = lambda c, total: f"{100.0 * c / total:.3g} %" if total else "none in the range"
    kind = "multiples" if cand.event.multiple else "not multiples"
    where = f"coordinate {cand.event.j}: " if width > 1 else ""
    witness = (f"{where}outputs in {cand.event.range_text()} (in absolute value) that are {kind} of "
               f"2^{cand.event.grain}: {share(c1, in1)} under x = {x1} ({c1} of {in1}), {share(c0, in0)} under "
               f"x = {x0} ({c0} of {in0}), in {n_final} fresh draws of each")
    top = ceiling(eps, n_final, alpha_each, delta)
    if violated and finding.never_seen_under_x0(best):
        text = (f"{witness}: eps >= {lower:.4f} (never seen under x = {x0}: sample-limited, the loss may be "
                f"unbounded), ABOVE the claimed {eps:g}")
    elif violated:
        text = f"{witness}: eps >= {lower:.4f} with confidence 1 - {alpha:.3g}, ABOVE the claimed {eps:g}"
    else:
        text = (f"no bit event separates the inputs beyond eps: best {witness}: eps >= {lower:.4f} (ceiling "
                f"{top:.4f} at this n and confidence)")
    return CheckResult(
        "float.bits", claim, Status.FAIL if violated else Status.PASS, lower, "eps_lower",
        interval=(lower, math.inf), threshold=eps, n=n, seed=seed, alpha=alpha, explanation=text,
        details={"event": cand.event.describe(), "inputs": [x1, x0], "counts": [c1, c0], "in_range": [in1, in0],
                 "never_seen_under_x0": finding.never_seen_under_x0(best), "pairs": len(pairs),
                 "tests": len(candidates), "alpha_each": alpha_each, "selection_draws": m, "final_draws": n_final,
                 "ceiling": top, "raw_lower": raw if math.isfinite(raw) else None,
                 "columns_read": min(width, MAX_COLUMNS), "width": width})


def _label(x) -> str:
    x = np.asarray(x)
    return f"{x.item():g}" if x.ndim == 0 and x.dtype.kind in "biuf" else np.array2string(x, precision=3, threshold=4)
