"""The black-box privacy search: a lower bound on the eps a sampler really spends, from its samples alone.

It works on reports of any shape (see :mod:`ldp_audit.audits.privacy.reports`) and never needs a law. For each input x
it draws a pilot of at most ``PILOT`` reports, and chooses, for every ordered pair (x1, x0), one event per
family on the pilot alone:

* ``exact``: the union of the most frequent exact reports (keys) with the highest ratio of counts: atoms,
  categories, whole unary-encoding vectors, (hash seed, value) tuples, a raw input leaked with some probability;
* ``marginal``: cells (exact values, or quantile bins) of one coordinate or of the row sum;
* ``pair``: joint cells of two coordinates (unary encoding's "bit x1 set, bit x0 clear" lives here);
* ``score``: cells of a naive-Bayes score, the sum over coordinates of each coordinate's estimated log
  likelihood ratio (the likelihood-ratio test of DP-Sniper, learned on the pilot, for reports whose
  coordinates are (conditionally) independent, as in HDS, multi-bit and unary encoding);
* ``law``: cells of a declared law's log likelihood ratio (a caller's score), chosen on the pilot;
* planned events (``law``, ``law-tight``, ``law-planned``): given by the caller from a declared law, fixed before
  any sampling;
* ``supports`` (when the mechanism declares ``supports(reports, item)``, the frequency oracle's support test):
  joint cells of "report supports x1" and "report supports x0", e.g. "supports x1, not x0", whose ratio is e^eps
  for local hashing (OLH, BLH) whatever the size of the hash-seed space;
* ``keyed`` (when the mechanism declares a public ``key(reports)``, e.g. a cohort id or a hash seed): a
  naive-Bayes score whose per-coordinate weights are estimated separately for every key value seen at least
  ``KEY_MIN_COUNT`` times in the pilot (other key values score 0), over the ``KEYED_COLUMNS`` coordinates most
  different within key values; its cells are a union over key values of per-key events, so the event stays well
  defined and keeps the whole mass (RAPPOR's cohorts: a bit means another Bloom position in every cohort). When
  nothing is declared (no law, support test or key), a report column that looks like a key (:func:`_key_like`: few
  integer values, independent of the input, whose values reveal differences the pooled means hide) is read as one.

Coordinates enter the ``marginal``, ``pair`` and ``score`` families only when their pilot means differ between
x1 and x0 by more than ``SCREEN_Z`` standard errors. Within a family the cells are ranked by their pilot ratio
and the prefix union maximising the bound the final sample is expected to give is kept. The final sample
(n - pilot fresh draws per input, chunked and seeded by :mod:`ldp_audit.audits.kernel.sampling`, memory bounded by
``BLOCK_ENTRIES`` numbers per sampler call) then counts every chosen event, and each event's Clopper-Pearson
ratio bound is taken at its share of alpha, so the reported maximum holds with confidence 1 - alpha (weighted
Bonferroni): events planned before any sampling (``law``, from a declared law) split ``PLANNED_SHARE`` of alpha and
are counted on the pilot draws too (they did not depend on them), the events chosen on the pilot split the rest.

What it can and cannot see. It sees numbers (every coordinate, after :mod:`ldp_audit.audits.privacy.reports` decoded
dicts, tuples, complex numbers and item sets into columns), exact reports that repeat, and what the mechanism
declares about how its server reads a report (``supports``, ``key``). It cannot see an event that no family
expresses: the relation between a hash seed and the hashed value in local hashing with a large seed space
(each (seed, value) report occurs once and no coordinate alone differs) unless ``supports`` is declared; a
key-dependent meaning (cohorts) unless ``key`` is declared or the key column is found, and its values repeat; a
difference confined to coordinates whose means agree; the content of opaque objects (strings, ids: only their
equality). Never a blind PASS: when it can see nothing at all (every coordinate opaque, exact reports seen
``MIN_KEY_COUNT`` times holding less than ``SEEN_MASS`` of the pilot, nothing declared) the finding says so
(``Finding.blind``), and when a column of a wider report takes a fresh value in nearly every report (a hash seed,
an id: ``Finding.id_like``) and no support test is declared, the search cannot see through it; either way the
privacy row is INCONCLUSIVE with the remedy unless a violation is found anyway.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Sequence

import numpy as np

from scipy import sparse

from .reports import ReportFormat, Rows, as_rows
from ... import streams
from ..kernel.sampling import CHUNK, Announce, Draws, Plan, rng_for, run_plan
from ..kernel.stats import expected_ratio_lower_bound, ratio_lower_bound

#: Pilot draws per input (fewer when a report is wide: at most ``PILOT_ENTRIES`` numbers are kept per input).
PILOT = 1 << 16
PILOT_ENTRIES = 1 << 23
#: Numbers per sampler call in the final stage (the sampler is called on blocks of rows of one chunk).
BLOCK_ENTRIES = 1 << 21
#: A projection with at most this many distinct pilot values uses its exact values as cells, else BINS bins.
ATOMS = 256
BINS = 64
#: A union of at most this many runs of adjacent bins is tested by comparisons with its ends, not by indexing.
MAX_RUNS = 4
#: Cells per coordinate in the pair family.
PAIR_CELLS = 8
#: Exact reports kept as cells (the most frequent in the pilot), and the pilot count one needs to be kept.
TOP_KEYS = 4096
MIN_KEY_COUNT = 5
#: Opaque reports (no numeric coordinate) are seen into only when exact reports seen MIN_KEY_COUNT+ times in the
#: pilot hold at least this share of every input's pilot draws; else the privacy row is INCONCLUSIVE.
SEEN_MASS = 0.5
#: Coordinates whose pilot means differ by more than this many standard errors enter the coordinate families.
SCREEN_Z = 4.0
#: Naive-Bayes weights within this many standard errors of 0 are set to 0.
NB_SHRINK_Z = 2.0
SCREEN_MAX = 32
PAIR_COLUMNS = 4
#: Reports per input of the short pilot run that picks extra input pairs, and how many pairs it adds.
PAIR_PILOT = 2000
PILOT_PAIRS = 2
#: Key-conditioned cells: a key value needs this many pilot reports (both inputs together) to get its own
#: weights; at most KEY_GROUPS key values and KEYED_COLUMNS coordinates (most different within key values) are
#: weighed, each in at most KEYED_CELLS cells.
KEY_MIN_COUNT = 64
KEY_GROUPS = 1024
KEYED_COLUMNS = 64
KEYED_CELLS = 16
#: Share of alpha that the planned events (fixed before any sampling, from a declared law) split equally; the
#: events the pilot chooses split the rest. A law's likelihood-ratio event is the best one a mechanism that follows
#: its law has, so it gets a share that does not shrink with the number of families the search tries.
PLANNED_SHARE = 0.8


# ----- projections and cells -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Cells:
    """Exact values (``atoms``, values elsewhere fall in no cell) or bins between ``edges`` (-inf ... inf)."""

    atoms: np.ndarray
    edges: np.ndarray
    key: bytes = b""

    @classmethod
    def of(cls, pooled: np.ndarray, atoms: int, bins: int) -> "Cells":
        values = np.unique(pooled)
        if values.size <= atoms:
            return cls(values, np.empty(0), b"a" + values.tobytes())
        edges = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, bins + 1)))
        edges[0], edges[-1] = -math.inf, math.inf
        return cls(np.empty(0), edges, b"e" + edges.tobytes())

    @property
    def size(self) -> int:
        return self.atoms.size if self.atoms.size else self.edges.size - 1

    def index(self, values: np.ndarray) -> np.ndarray:
        if self.atoms.size:
            pos = np.clip(np.searchsorted(self.atoms, values), 0, self.atoms.size - 1)
            return np.where(self.atoms[pos] == values, pos, -1)
        return np.clip(np.searchsorted(self.edges, values, side="left") - 1, 0, self.edges.size - 2)

    def runs(self, chosen: np.ndarray) -> list[tuple[float | None, float | None, bool]] | None:
        """The chosen bins as runs of adjacent bins (lo, hi, upper): a value v is in a run when lo < v <= hi,
        None meaning no limit on that side, ``upper`` when the run holds the last bin (whose index also takes NaN,
        as ``index`` does). None for atoms or more than ``MAX_RUNS`` runs."""
        if self.atoms.size:
            return None
        padded = np.concatenate([[False], chosen, [False]]).astype(np.int8)
        starts, stops = np.flatnonzero(np.diff(padded) == 1), np.flatnonzero(np.diff(padded) == -1) - 1
        if starts.size > MAX_RUNS:
            return None
        last = self.size - 1
        return [(None if a == 0 else float(self.edges[a]), None if b == last else float(self.edges[b + 1]), b == last)
                for a, b in zip(starts, stops)]

    def describe(self, chosen: np.ndarray) -> str:
        ids = np.flatnonzero(chosen)
        if self.atoms.size:
            shown = ", ".join(f"{v:.4g}" for v in self.atoms[ids[:6]])
            return "{" + shown + (", ..." if ids.size > 6 else "") + "}"
        parts = [f"({self.edges[i]:.4g}, {self.edges[i + 1]:.4g}]" for i in ids[:4]]
        return " U ".join(parts) + (f" U ... ({ids.size} bins)" if ids.size > 4 else "")


@dataclass(frozen=True)
class Column:
    j: int

    def __call__(self, rows: Rows) -> np.ndarray:
        return rows.values[:, self.j]

    def describe(self) -> str:
        return f"coordinate {self.j}" if self.j else "report"


@dataclass(frozen=True)
class RowSum:
    def __call__(self, rows: Rows) -> np.ndarray:
        return rows.values.sum(axis=1)

    def describe(self) -> str:
        return "sum of the coordinates"


@dataclass(frozen=True)
class NaiveBayesScore:
    """sum_j w_j[cell_j(y_j)]: estimated per-coordinate log likelihood ratios (0 for values unseen in the pilot)."""

    columns: tuple[int, ...]
    cells: tuple[Cells, ...]
    weights: tuple[np.ndarray, ...]

    def __call__(self, rows: Rows) -> np.ndarray:
        score = np.zeros(rows.n)
        for j, cells, w in zip(self.columns, self.cells, self.weights):
            score += w[rows.cell_index(j, cells) + 1]
        return np.round(score, 9)  # equal cell patterns give bit-equal scores whatever the summation order

    def describe(self) -> str:
        return f"naive-Bayes score of coordinates {list(self.columns)[:8]}"


@dataclass(frozen=True)
class ScoreOf:
    """A caller's score of the reports (e.g. a declared law's log likelihood ratio)."""

    score: Callable[[np.ndarray], np.ndarray]
    label: str

    def __call__(self, rows: Rows) -> np.ndarray:
        return np.asarray(self.score(rows.values), dtype=np.float64)

    def describe(self) -> str:
        return self.label


@dataclass(frozen=True)
class KeyedScore:
    """sum_j w_j[g(key), cell_j(y_j)]: a naive-Bayes score whose weights are estimated separately for each value g
    of the declared public key seen at least KEY_MIN_COUNT times in the pilot (0 for other key values): the
    meaning of a coordinate may depend on the key (RAPPOR's cohort picks the Bloom hash functions), so its
    pooled means can agree while each key value's differ."""

    groups: np.ndarray  # sorted key values with weights of their own
    columns: tuple[int, ...]
    cells: tuple[Cells, ...]
    weights: tuple[np.ndarray, ...]  # (groups + 1, cells + 1): last row and first column are 0
    key_column: int | None = None  # the report column read as the key (None: the declared key)

    def group_of(self, rows: Rows) -> np.ndarray:
        key = key_values(rows, self.key_column)
        pos = np.clip(np.searchsorted(self.groups, key), 0, self.groups.size - 1)
        return np.where(self.groups[pos] == key, pos, self.groups.size)

    def __call__(self, rows: Rows) -> np.ndarray:
        g = self.group_of(rows)
        score = np.zeros(rows.n)
        for j, cells, w in zip(self.columns, self.cells, self.weights):
            score += w[g, rows.cell_index(j, cells) + 1]
        return np.round(score, 9)

    def describe(self) -> str:
        key = "the key" if self.key_column is None else f"coordinate {self.key_column} read as a key"
        return (f"naive-Bayes score of coordinates {list(self.columns)[:8]} conditioned on {key} "
                f"({self.groups.size} values)")


def key_values(rows: Rows, column: int | None) -> np.ndarray:
    """The key of each report: the declared ``key(reports)`` (``column`` None), or report column ``column``."""
    return rows.public_key if column is None else rows.values[:, column].astype(np.int64)


# ----- events ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CellEvent:
    projection: object
    cells: Cells
    chosen: np.ndarray

    @cached_property
    def _runs(self):
        return self.cells.runs(self.chosen)

    def contains(self, rows: Rows) -> np.ndarray:
        if self._runs is not None:  # a few runs of bins: compare with their ends (the same sets, far faster)
            return _in_runs(self.projection(rows), self._runs)
        if isinstance(self.projection, Column):
            idx = rows.cell_index(self.projection.j, self.cells)
        else:
            idx = self.cells.index(self.projection(rows))
        return (idx >= 0) & self.chosen[np.maximum(idx, 0)]

    def describe(self) -> str:
        return f"{self.projection.describe()} in {self.cells.describe(self.chosen)}"


def _in_runs(values: np.ndarray, runs) -> np.ndarray:
    inside = np.zeros(values.shape, dtype=bool)
    for lo, hi, upper in runs:
        if lo is None and hi is None:
            inside[:] = True
        elif lo is None:
            inside |= values <= hi
        elif hi is None:
            inside |= ~(values <= lo) if upper else values > lo
        else:
            inside |= (values > lo) & (values <= hi)
    return inside


@dataclass(frozen=True)
class PairEvent:
    j1: int
    j0: int
    cells1: Cells
    cells0: Cells
    chosen: np.ndarray

    def contains(self, rows: Rows) -> np.ndarray:
        a, b = rows.cell_index(self.j1, self.cells1), rows.cell_index(self.j0, self.cells0)
        idx = a * self.cells0.size + b
        return (a >= 0) & (b >= 0) & self.chosen[np.maximum(idx, 0)]

    def describe(self) -> str:
        return f"{int(self.chosen.sum())} joint cell(s) of coordinates {self.j1} and {self.j0}"


@dataclass(frozen=True)
class SupportEvent:
    """Joint cells of the declared support test for items v1 and v0 (cell 2 a + b: a = supports v1, b = supports
    v0), e.g. "supports v1 and not v0", the local-hashing event of ratio e^eps."""

    j1: int
    j0: int
    chosen: np.ndarray
    labels: tuple[str, str] = ("x1", "x0")

    def contains(self, rows: Rows) -> np.ndarray:
        return self.chosen[_support_cell(rows, self.j1, self.j0)]

    def describe(self) -> str:
        v1, v0 = self.labels
        names = {0: f"supports neither {v1} nor {v0}", 1: f"supports {v0}, not {v1}", 2: f"supports {v1}, not {v0}",
                 3: f"supports {v1} and {v0}"}
        return "report " + " or ".join(names[c] for c in np.flatnonzero(self.chosen)[::-1])


def _support_cell(rows: Rows, j1: int, j0: int) -> np.ndarray:
    return (2 * rows.derived[:, j1] + rows.derived[:, j0]).astype(np.int64)


@dataclass(frozen=True)
class KeyEvent:
    """A set of exact reports; ``values`` holds them too when a report is one number (so a law can weigh them)."""

    keys: np.ndarray
    example: str
    values: np.ndarray

    def contains(self, rows: Rows) -> np.ndarray:
        return np.isin(rows.keys, self.keys)

    def describe(self) -> str:
        return f"{self.keys.size} exact report value(s), e.g. {self.example}"


@dataclass(frozen=True)
class Candidate:
    """An event chosen for the ordered pair (i1, i0) of inputs, before the final sample is drawn. For an event from
    a declared law: ``log_ratio``, the law's log P(E | x1) / P(E | x0), and ``impossible_under_x0``, whether the
    law gives it probability 0 under x0."""

    i1: int
    i0: int
    family: str
    event: object
    log_ratio: float | None = None
    impossible_under_x0: bool = False


# ----- choosing events on the pilot -------------------------------------------------------------------------------
def _best_prefix(c1: np.ndarray, c0: np.ndarray, m1: int, m0: int, n_final: int, alpha: float,
                 delta: float) -> tuple[np.ndarray, float]:
    """The prefix of cells ranked by pilot ratio whose union the final sample is expected to bound best."""
    order = np.argsort(-(c1 + 0.5) / (c0 + 0.5), kind="stable")
    order = order[c1[order] > 0]
    if order.size == 0:
        return np.zeros(c1.size, dtype=bool), -math.inf
    cum1, cum0 = np.cumsum(c1[order]), np.cumsum(c0[order])
    predicted = expected_ratio_lower_bound(cum1 / m1, (cum0 + 0.5) / (m0 + 1.0), n_final, alpha, delta)
    best = int(np.argmax(predicted))
    chosen = np.zeros(c1.size, dtype=bool)
    chosen[order[:best + 1]] = True
    return chosen, float(predicted[best])


def _best_tail(c1: np.ndarray, c0: np.ndarray, m1: int, m0: int, n_final: int, alpha: float,
               delta: float) -> tuple[np.ndarray, float]:
    """The best upper or lower tail of cells in value order ({y > t} or {y <= t}): for a report whose likelihood
    ratio is monotone (Laplace, Piecewise, Square Wave, Gaussian) the optimal event is a tail, and a tail sums
    many cells, so pilot noise in single cells' ratios does not break it apart."""
    best, best_bound = np.zeros(c1.size, dtype=bool), -math.inf
    for flip in (False, True):
        a1, a0 = (c1[::-1], c0[::-1]) if flip else (c1, c0)
        cum1, cum0 = np.cumsum(a1), np.cumsum(a0)
        predicted = expected_ratio_lower_bound(cum1 / m1, (cum0 + 0.5) / (m0 + 1.0), n_final, alpha, delta)
        j = int(np.argmax(predicted))
        if predicted[j] > best_bound:
            best_bound = float(predicted[j])
            best = np.zeros(c1.size, dtype=bool)
            if flip:
                best[c1.size - 1 - j:] = True
            else:
                best[:j + 1] = True
    return best, best_bound


def _counts(index: np.ndarray, size: int) -> np.ndarray:
    return np.bincount(index[index >= 0], minlength=size)


def _cell_event(projection, r1: Rows, r0: Rows, n_final, alpha, delta, atoms=ATOMS, bins=BINS):
    """Cells of a projection and the best union of them, a prefix by pilot ratio or a tail in value order.

    Which of the two shapes wins is decided on held-out data: each is chosen on one half of the pilot and scored
    on the other (a ratio-ranked prefix of a few lucky cells looks better on the data that chose it than it is);
    the winner is then refitted on the whole pilot. Returns the event and its held-out predicted bound."""
    v1, v0 = projection(r1), projection(r0)
    cells = Cells.of(np.concatenate([v1, v0]), atoms, bins)
    i1, i0 = cells.index(v1), cells.index(v0)
    h1, h0 = r1.n // 2, r0.n // 2
    a1, a0 = _counts(i1[:h1], cells.size), _counts(i0[:h0], cells.size)
    b1, b0 = _counts(i1[h1:], cells.size), _counts(i0[h0:], cells.size)
    shapes, held_out = (_best_prefix, _best_tail), []
    for shape in shapes:
        mask = shape(a1, a0, h1, h0, n_final, alpha, delta)[0]
        held_out.append(float(expected_ratio_lower_bound(b1[mask].sum() / (r1.n - h1),
                                                         (b0[mask].sum() + 0.5) / (r0.n - h0 + 1.0),
                                                         n_final, alpha, delta)))
    best = int(np.argmax(held_out))
    chosen = shapes[best](a1 + b1, a0 + b0, r1.n, r0.n, n_final, alpha, delta)[0]
    return CellEvent(projection, cells, chosen), held_out[best]


def _exact_event(r1: Rows, r0: Rows, n_final, alpha, delta):
    keys, inverse, totals = np.unique(np.concatenate([r1.keys, r0.keys]), return_inverse=True, return_counts=True)
    frequent = np.argsort(-totals, kind="stable")[:TOP_KEYS]
    frequent = frequent[totals[frequent] >= MIN_KEY_COUNT]
    if frequent.size == 0:
        return None, -math.inf
    c1 = np.bincount(inverse[:r1.n], minlength=keys.size)[frequent]
    c0 = np.bincount(inverse[r1.n:], minlength=keys.size)[frequent]
    chosen, predicted = _best_prefix(c1, c0, r1.n, r0.n, n_final, alpha, delta)
    if not chosen.any():
        return None, -math.inf
    pooled = np.vstack([r1.values, r0.values])
    first = np.unique(inverse, return_index=True)[1]  # a report of each distinct key
    rows = pooled[first[frequent[chosen]]]
    example = np.array2string(rows[0][:12], precision=4) + (" ..." if rows.shape[1] > 12 else "")
    if not all(r1.numeric or (True,)):
        example += " (opaque entries are shown by their codes)"
    values = np.sort(rows[:, 0]) if rows.shape[1] == 1 else np.empty(0)
    return KeyEvent(np.sort(keys[frequent[chosen]]), example, values), predicted


def _mean_z(r1: Rows, r0: Rows) -> np.ndarray:
    """|z| of the difference of each coordinate's pilot means (inf where constant columns differ)."""
    m1, m0 = r1.values.mean(axis=0), r0.values.mean(axis=0)
    se = np.sqrt(r1.values.var(axis=0) / r1.n + r0.values.var(axis=0) / r0.n)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, np.abs(m1 - m0) / np.where(se > 0, se, 1.0), np.where(m1 != m0, np.inf, 0.0))


def _screened(r1: Rows, r0: Rows) -> np.ndarray:
    """Coordinates whose pilot means differ by more than SCREEN_Z standard errors, most different first."""
    z = _mean_z(r1, r0)
    order = np.argsort(-z, kind="stable")
    return order[z[order] > SCREEN_Z][:SCREEN_MAX]


def _naive_bayes(columns, r1: Rows, r0: Rows) -> NaiveBayesScore:
    cells, weights = [], []
    for j in columns:
        c = Cells.of(np.concatenate([r1.values[:, j], r0.values[:, j]]), ATOMS, BINS)
        n1 = _counts(c.index(r1.values[:, j]), c.size)
        n0 = _counts(c.index(r0.values[:, j]), c.size)
        w = np.log((n1 + 0.5) / (r1.n + 1.0)) - np.log((n0 + 0.5) / (r0.n + 1.0))
        # a weight within two standard errors of 0 is noise: dropping it keeps e.g. the always-present 0 of an
        # unsampled coordinate from adding a coordinate-dependent offset to every score
        w = np.where(np.abs(w) > NB_SHRINK_Z * np.sqrt(1.0 / (n1 + 0.5) + 1.0 / (n0 + 0.5)), w, 0.0)
        cells.append(c)
        weights.append(np.concatenate([[0.0], w]))
    return NaiveBayesScore(tuple(int(j) for j in columns), tuple(cells), tuple(weights))


def _pair_event(columns, r1: Rows, r0: Rows, n_final, alpha, delta):
    best, best_bound = None, -math.inf
    top = [int(j) for j in columns[:PAIR_COLUMNS]]
    for a in top:
        for b in top:
            if a >= b:
                continue
            ca = Cells.of(np.concatenate([r1.values[:, a], r0.values[:, a]]), PAIR_CELLS, PAIR_CELLS)
            cb = Cells.of(np.concatenate([r1.values[:, b], r0.values[:, b]]), PAIR_CELLS, PAIR_CELLS)
            size = ca.size * cb.size

            def joint(r):
                ia, ib = ca.index(r.values[:, a]), cb.index(r.values[:, b])
                return np.where((ia >= 0) & (ib >= 0), ia * cb.size + ib, -1)

            chosen, bound = _best_prefix(_counts(joint(r1), size), _counts(joint(r0), size), r1.n, r0.n, n_final,
                                         alpha, delta)
            if bound > best_bound:
                best, best_bound = PairEvent(a, b, ca, cb, chosen), bound
    return best, best_bound


def _support_event(j1: int, j0: int, r1: Rows, r0: Rows, n_final, alpha, delta, labels):
    """The best union of the four joint cells of "supports v1" and "supports v0"."""
    chosen, _ = _best_prefix(np.bincount(_support_cell(r1, j1, j0), minlength=4),
                             np.bincount(_support_cell(r0, j1, j0), minlength=4), r1.n, r0.n, n_final, alpha, delta)
    return SupportEvent(j1, j0, chosen, labels)


def _keyed_score(r1: Rows, r0: Rows, key_column: int | None = None) -> KeyedScore | None:
    """Per-key-value naive-Bayes weights (see :class:`KeyedScore`), or None when no key value repeats enough."""
    within = _within_key(r1, r0, key_column)
    if within is None:
        return None
    probe, g1, g0, m1, m0, strength = within
    size = probe.groups.size + 1
    columns = [int(j) for j in np.argsort(-strength, kind="stable")[:KEYED_COLUMNS] if strength[j] > 0]
    if not columns:
        return None
    cells, weights = [], []
    for j in columns:
        c = Cells.of(np.concatenate([r1.values[:, j], r0.values[:, j]]), KEYED_CELLS, KEYED_CELLS)
        n1 = np.bincount(g1 * c.size + np.maximum(c.index(r1.values[:, j]), 0), minlength=size * c.size)
        n0 = np.bincount(g0 * c.size + np.maximum(c.index(r0.values[:, j]), 0), minlength=size * c.size)
        n1, n0 = n1.reshape(size, c.size), n0.reshape(size, c.size)
        w = np.log((n1 + 0.5) / (m1[:, None] + 1.0)) - np.log((n0 + 0.5) / (m0[:, None] + 1.0))
        w = np.where(np.abs(w) > NB_SHRINK_Z * np.sqrt(1.0 / (n1 + 0.5) + 1.0 / (n0 + 0.5)), w, 0.0)
        w[-1] = 0.0  # key values without weights of their own
        cells.append(c)
        weights.append(np.hstack([np.zeros((size, 1)), w]))
    return KeyedScore(probe.groups, tuple(columns), tuple(cells), tuple(weights), key_column)


def _within_key(r1: Rows, r0: Rows, key_column: int | None):
    """(an empty KeyedScore holding the key values seen KEY_MIN_COUNT times, each report's group under x1 and x0,
    the group sizes, and per coordinate the sum over key values of its squared z-score x1 vs x0), or None when no
    key value repeats enough."""
    values, totals = np.unique(np.concatenate([key_values(r1, key_column), key_values(r0, key_column)]),
                               return_counts=True)
    frequent = np.argsort(-totals, kind="stable")[:KEY_GROUPS]
    groups = np.sort(values[frequent[totals[frequent] >= KEY_MIN_COUNT]])
    if groups.size == 0:
        return None
    probe = KeyedScore(groups, (), (), (), key_column)
    g1, g0 = probe.group_of(r1), probe.group_of(r0)
    size = groups.size + 1
    m1, m0 = np.bincount(g1, minlength=size).astype(float), np.bincount(g0, minlength=size).astype(float)
    # coordinates whose means differ most within key values: sum over key values of squared z-scores
    one_hot = lambda g, n: sparse.csr_matrix((np.ones(n), (g, np.arange(n))), shape=(size, n))
    s1, s0 = one_hot(g1, r1.n) @ r1.values, one_hot(g0, r0.n) @ r0.values
    q1, q0 = one_hot(g1, r1.n) @ r1.values ** 2, one_hot(g0, r0.n) @ r0.values ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        mean1, mean0 = s1 / m1[:, None], s0 / m0[:, None]
        var = (q1 / m1[:, None] - mean1 ** 2) / m1[:, None] + (q0 / m0[:, None] - mean0 ** 2) / m0[:, None]
        z2 = np.where(var > 0, (mean1 - mean0) ** 2 / np.where(var > 0, var, 1.0), 0.0)[:-1]
    return probe, g1, g0, m1, m0, np.nan_to_num(z2).sum(axis=0)


def choose_events(r1: Rows, r0: Rows, n_final: int, alpha: float, delta: float = 0.0,
                  scores: Sequence[ScoreOf] = (), support_columns: tuple[int, int] | None = None,
                  labels: tuple[str, str] = ("x1", "x0"), key_column: int | None = None) -> dict[str, object]:
    """One event per family for the ordered pair (x1 -> r1, x0 -> r0), chosen on the pilot alone
    (``support_columns``: the columns of ``Rows.derived`` that test support of x1 and of x0; ``key_column``: a
    report column read as a key when none is declared, see :func:`_key_like`)."""
    events = {}
    if support_columns is not None and r1.derived is not None:
        events["supports"] = _support_event(*support_columns, r1, r0, n_final, alpha, delta, labels)
    if r1.public_key is not None or key_column is not None:
        keyed = _keyed_score(r1, r0, key_column)
        if keyed is not None:
            events["keyed"] = _cell_event(keyed, r1, r0, n_final, alpha, delta, 256, BINS)[0]
    exact, _ = _exact_event(r1, r0, n_final, alpha, delta)
    if exact is not None:
        events["exact"] = exact
    columns = _screened(r1, r0)
    projections = [Column(int(j)) for j in columns] + ([RowSum()] if r1.width > 1 else [])
    if r1.width == 1:
        projections = [Column(0)]
    marginal = [(_cell_event(p, r1, r0, n_final, alpha, delta)) for p in projections]
    if marginal:
        events["marginal"] = max(marginal, key=lambda item: item[1])[0]
    if r1.width > 1 and columns.size >= 2:
        pair, _ = _pair_event(columns, r1, r0, n_final, alpha, delta)
        if pair is not None:
            events["pair"] = pair
    if r1.width > 1 and columns.size >= 1:
        events["score"] = _cell_event(_naive_bayes(columns, r1, r0), r1, r0, n_final, alpha, delta, 256, BINS)[0]
    for score in scores:
        events["law"] = _cell_event(score, r1, r0, n_final, alpha, delta, 256, BINS)[0]
    return {family: e for family, e in events.items() if isinstance(e, KeyEvent) or e.chosen.any()}


def pilot_pairs(sample: Callable, candidates: Sequence, seed: int, exclude=(), count: int = PILOT_PAIRS,
                fmt: ReportFormat | None = None) -> list:
    """Ordered pairs (x1, x0) of ``candidates`` that a short pilot run (``PAIR_PILOT`` reports each, streams of
    their own) finds most different: by the bound their best exact-report union would give on the pilot, pairs
    in ``exclude`` skipped. The search then treats them like the fixed pairs: events chosen on its own pilot,
    bounded on fresh draws, so choosing the pairs on other data costs no confidence beyond the extra tests."""
    rows = [read_reports(sample, x, PAIR_PILOT, rng_for(seed, *streams.PAIR_PILOT.key(), i), fmt) for i, x in enumerate(candidates)]
    _, inverse = np.unique(np.concatenate([r.keys for r in rows]), return_inverse=True)
    counts = np.stack([np.bincount(part, minlength=inverse.max() + 1) for part in np.split(inverse, len(rows))])
    counts = counts[:, counts.sum(axis=0) >= MIN_KEY_COUNT]  # exact reports seen often enough to compare
    scored = []
    for a in range(len(rows)):
        for b in range(len(rows)):
            if a == b or (candidates[a], candidates[b]) in exclude:
                continue
            if counts.shape[1]:
                predicted = _best_prefix(counts[a], counts[b], PAIR_PILOT, PAIR_PILOT, PAIR_PILOT, 0.05, 0.0)[1]
            else:  # no repeated exact reports: compare the first coordinate's cells instead
                predicted = _cell_event(Column(0), rows[a], rows[b], PAIR_PILOT, 0.05, 0.0)[1]
            scored.append((predicted, a, b))
    scored.sort(key=lambda item: (-item[0], item[1], item[2]))
    return [(candidates[a], candidates[b]) for _, a, b in scored[:count]]


# ----- sampling --------------------------------------------------------------------------------------------------
def read_reports(sample: Callable, x, n: int, rng: np.random.Generator, fmt: ReportFormat | None) -> Rows:
    """``as_rows(sample(x, n, rng))``; an error in the sampler (or in reading its reports) becomes a ValueError
    that names the call, so the user sees what failed instead of a traceback from deep inside the engine."""
    try:
        return as_rows(sample(x, n, rng), n, fmt)
    except (Exception, SystemExit) as exc:
        if isinstance(exc, ValueError):
            raise
        raise ValueError(f"sample({_label(x)}, {n}, rng) failed during the privacy search: "
                         f"{type(exc).__name__}: {exc}") from exc



class _Draw:
    """Picklable chunk reducer: ``size`` reports of input x, in blocks of ``block`` rows, read as ``fmt`` says;
    the rows themselves, or the count of each of ``events``."""

    def __init__(self, sample, x, block: int, events=None, fmt: ReportFormat | None = None):
        self.sample, self.x, self.block, self.events, self.fmt = sample, x, block, events, fmt

    def __call__(self, size: int, rng: np.random.Generator):
        parts = []
        for start in range(0, size, self.block):
            rows_n = min(self.block, size - start)
            rows = read_reports(self.sample, self.x, rows_n, rng, self.fmt)
            if self.events is None:
                parts.append(rows)
            else:
                parts.append(np.array([int(np.count_nonzero(e.contains(rows))) for e in self.events], dtype=np.int64))
        if self.events is None:
            return [Rows.concat(parts)]
        return np.sum(parts, axis=0)


# ----- the search ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Finding:
    """The final counts of every candidate event: what ``privacy.blackbox`` reports."""

    candidates: tuple[Candidate, ...]
    counts: dict[int, np.ndarray]  # input index -> count of every candidate under that input
    n_final: int
    pilot: int
    alpha_each: float
    delta: float
    #: why the search could see nothing in the reports (no repeated report, no numeric coordinate, no declared
    #: support or key), or None when it could
    blind: str | None = None
    #: numeric coordinates that take a fresh value in nearly every pilot report (a hash seed, a nonce, an id)
    #: while the mechanism declares neither supports nor key: reports the server may read through them
    id_like: tuple[int, ...] = ()
    #: the first ``planned`` candidates were fixed before any sampling: counted on all pilot + n_final draws, each
    #: bounded at level ``planned_alpha`` (the weighted Bonferroni split of :func:`search_plan`)
    planned: int = 0
    planned_alpha: float = 0.0
    #: the report column read as a key (a cohort id?) when nothing is declared, or None
    key_column: int | None = None
    #: per ordered pair (i1, i0) with a caller's score (a declared law's log likelihood ratio): its largest value on
    #: the pilot reports of both inputs
    score_max: dict = field(default_factory=dict)

    def draws(self, t: int) -> int:
        """Draws per input behind candidate t's counts."""
        return self.pilot + self.n_final if t < self.planned else self.n_final

    def level(self, t: int) -> float:
        """The level at which candidate t is bounded."""
        return self.planned_alpha if t < self.planned else self.alpha_each

    def bounds(self) -> np.ndarray:
        return np.array([ratio_lower_bound(self.counts[c.i1][t], self.counts[c.i0][t], self.draws(t), self.draws(t),
                                           self.level(t), self.delta) for t, c in enumerate(self.candidates)])

    def never_seen_under_x0(self, t: int) -> bool:
        c = self.candidates[t]
        return int(self.counts[c.i0][t]) == 0 and int(self.counts[c.i1][t]) > 0


def ceiling(eps: float, n: int, alpha: float, delta: float = 0.0) -> float:
    """The best lower bound n draws per input could certify at confidence 1 - alpha for ANY mechanism exactly at
    its claim: the event of randomized response, P1 = e^eps / (1 + e^eps), P0 = P1 e^-eps (no eps-LDP pair has
    an event with ratio e^eps and more mass), with counts at their expectations."""
    p1 = 1.0 / (1.0 + math.exp(-eps))
    return float(expected_ratio_lower_bound(p1, p1 * math.exp(-eps), n, alpha, delta))


def search(sample: Callable, inputs: Sequence, pairs: Sequence[tuple[int, int]], n: int, seed: int, alpha: float,
           delta: float = 0.0, planned: Sequence[Candidate] = (), scores: dict | None = None, workers: int = 1,
           progress: Callable[[int], None] | None = None, fmt: ReportFormat | None = None) -> Finding:
    """:func:`search_plan`, run on its own."""
    return run_plan(search_plan(sample, inputs, pairs, n, seed, alpha, delta, planned, scores, fmt), workers,
                    progress)


def search_plan(sample: Callable, inputs: Sequence, pairs: Sequence[tuple[int, int]], n: int, seed: int,
                alpha: float, delta: float = 0.0, planned: Sequence[Candidate] = (),
                scores: dict | None = None, fmt: ReportFormat | None = None,
                labels: Sequence[str] | None = None) -> Plan:
    """Pilot, choose events for each ordered pair of ``inputs`` (indices in ``pairs``), count them on fresh draws:
    a sampling plan (``sampling.Plan``) of two rounds, the pilots of every input, then their final counts.

    ``planned`` are events fixed in advance (from a declared law); ``scores`` maps a pair to extra score
    functions (a declared law's log likelihood ratio) whose cells form the ``law`` family. ``fmt`` says how to
    read a report (set-valued reports, a declared support test, whose items are ``inputs``, and public key);
    ``labels`` name the inputs in event descriptions (default: their values).
    """
    fmt = fmt or ReportFormat()
    probe = as_rows(sample(inputs[0], 64, rng_for(seed, *streams.SEARCH_PROBE.key())), 64, fmt)
    block = int(max(256, min(CHUNK, BLOCK_ENTRIES // max(probe.width, 1))))
    m = int(min(PILOT, n // 4, max(4096, PILOT_ENTRIES // max(probe.width, 1))))
    n_final = n - m
    used = sorted({i for pair in pairs for i in pair})
    yield Announce(n * len(used))  # m pilot draws, then n - m final draws, of every input in a pair
    drawn = yield [Draws(_Draw(sample, inputs[i], block, fmt=fmt), m, seed, streams.SEARCH_PILOT.key(i)) for i in used]
    pilots = {i: Rows.concat(parts) for i, parts in zip(used, drawn)}
    # Weighted Bonferroni, family-wise at alpha: the planned events (fixed before any sampling) share
    # PLANNED_SHARE of alpha equally; every event the pilot may choose shares the rest, counted before choosing:
    # one per family and pair (scalar reports have the exact and marginal families only; pair and score need two
    # coordinates; supports and keyed run when declared).
    undeclared = not (planned or scores or fmt.declared)  # nothing says how to read a report: no law, no key
    key_column = _key_like(pilots, pairs) if undeclared else None
    families = (2 if probe.width == 1 else 4) + (1 if scores else 0) + (probe.derived is not None) + \
        (probe.public_key is not None or key_column is not None)
    share = PLANNED_SHARE if planned else 0.0
    alpha_each = alpha * (1.0 - share) / (len(pairs) * families)
    planned_alpha = alpha * share / len(planned) if planned else 0.0
    candidates = list(planned)
    for i1, i0 in pairs:
        extra = (scores or {}).get((i1, i0), ())
        support_columns = (i1, i0) if probe.derived is not None else None
        named = (labels[i1], labels[i0]) if labels is not None else (_label(inputs[i1]), _label(inputs[i0]))
        for family, event in choose_events(pilots[i1], pilots[i0], n_final, alpha_each, delta, extra,
                                           support_columns, named, key_column).items():
            candidates.append(Candidate(i1, i0, family, event))
    blind = _blindness(pilots) if undeclared else None
    id_like = () if fmt.supports is not None else _id_like(pilots[used[0]])
    events = [c.event for c in candidates]
    totals = yield [Draws(_Draw(sample, inputs[i], block, events, fmt), n_final, seed, streams.SEARCH_FINAL.key(i)) for i in used]
    counts = {i: np.array(total) for i, total in zip(used, totals)}
    for i in used if planned else ():  # a planned event did not depend on the pilot: its pilot draws count too
        counts[i][:len(planned)] += np.array([np.count_nonzero(c.event.contains(pilots[i])) for c in planned],
                                             dtype=counts[i].dtype)
    score_max = {(i1, i0): max(float(np.max(score(pilots[i]))) for score in extra for i in (i1, i0))
                 for (i1, i0), extra in (scores or {}).items() if extra}
    return Finding(tuple(candidates), counts, n_final, m, alpha_each, delta, blind, id_like, len(planned),
                   planned_alpha, key_column, score_max)


def _label(x) -> str:
    x = np.asarray(x)
    return f"{x.item():g}" if x.ndim == 0 and x.dtype.kind in "biuf" else np.array2string(x, precision=3, threshold=4)


#: A column (integers, or opaque codes) with at least this share of distinct values in a pilot looks like an id
#: (a hash seed, a nonce, a user id): a value that never repeats across users.
ID_LIKE_SHARE = 0.99
#: A column read as a key when nothing is declared: integers taking at least KEY_LIKE_MIN_VALUES and at most
#: KEY_GROUPS values, each seen KEY_MIN_COUNT times on average in the pilots of a pair, whose mean does not differ
#: between any two inputs by more than SCREEN_Z standard errors (a public key, such as a cohort id, does not depend
#: on the input). Two values are a bit, not a key; at most KEY_LIKE_CANDIDATES columns (fewest values first) are
#: weighed, and the one whose conditioning reveals most (:func:`_conditioning_gain`) is taken, if it reveals any.
KEY_LIKE_MIN_VALUES = 3
KEY_LIKE_CANDIDATES = 4


def _distinct(values: np.ndarray) -> np.ndarray:
    """The number of distinct values in each column."""
    ordered = np.sort(values, axis=0)
    return 1 + np.count_nonzero(np.diff(ordered, axis=0) != 0, axis=0)


def _integral(rows: Rows) -> np.ndarray:
    """Which columns hold numbers (not opaque codes) that are all integers."""
    numeric = np.array(rows.numeric, dtype=bool) if rows.numeric else np.ones(rows.width, dtype=bool)
    return numeric & np.all(rows.values == np.round(rows.values), axis=0)


def _id_like(rows: Rows) -> tuple[int, ...]:
    """Columns of a report of two or more columns whose pilot values are nearly all distinct: integers or opaque
    codes (a float column of noisy values is never distinct by accident of being an id, so it is not one)."""
    if rows.width < 2:
        return ()
    opaque = ~np.array(rows.numeric, dtype=bool) if rows.numeric else np.zeros(rows.width, dtype=bool)
    fresh = _distinct(rows.values) >= ID_LIKE_SHARE * rows.n
    return tuple(int(j) for j in np.flatnonzero((_integral(rows) | opaque) & fresh))


def _key_like(pilots: dict, pairs) -> int | None:
    """The report column that looks like a public key (see KEY_LIKE_MIN_VALUES), or None."""
    rows = [pilots[i] for i in sorted(pilots)]
    first = rows[0]
    if first.width < 2:
        return None
    pooled = np.vstack([r.values for r in rows])
    counts = _distinct(pooled)
    most = min(KEY_GROUPS, 2 * first.n // KEY_MIN_COUNT)
    public = np.all([_mean_z(first, r) <= SCREEN_Z for r in rows[1:]], axis=0)
    candidates = np.flatnonzero(np.all([_integral(r) for r in rows], axis=0) & public
                                & (counts >= KEY_LIKE_MIN_VALUES) & (counts <= most))
    if candidates.size == 0:
        return None
    candidates = sorted(candidates.tolist(), key=lambda j: (counts[j], j))[:KEY_LIKE_CANDIDATES]
    gains = [_conditioning_gain(pilots[i1], pilots[i0], j) for i1, i0 in pairs for j in candidates]
    best = int(np.argmax(gains))
    return candidates[best % len(candidates)] if gains[best] > 0 else None


#: A candidate key column is taken when conditioning on it raises the squared z-scores of the other coordinates
#: by more than chance would: by more than KEY_LIKE_Z standard deviations of the chi-square it would follow.
KEY_LIKE_Z = 6.0


def _conditioning_gain(r1: Rows, r0: Rows, column: int) -> float:
    """How much more the other coordinates differ between x1 and x0 within the values of ``column`` than pooled
    (sum over key values of squared z-scores minus the pooled ones), beyond what chance gives: positive when
    reading ``column`` as a key reveals a difference the pooled means hide (RAPPOR's cohorts), at most 0 when
    it does not (a bit, a value column, a key that changes nothing)."""
    within = _within_key(r1, r0, column)
    if within is None:
        return 0.0
    groups, strength = within[0].groups.size, within[-1]
    others = np.ones(r1.width, dtype=bool)
    others[column] = False
    pooled = _mean_z(r1, r0) ** 2
    varying = others & ((r1.values.var(axis=0) > 0) | (r0.values.var(axis=0) > 0))
    df = max(groups - 1, 1) * max(int(np.count_nonzero(varying)), 1)
    gain = float(strength[others].sum() - pooled[others].sum())
    return gain - (df + KEY_LIKE_Z * math.sqrt(2.0 * df))


def _blindness(pilots: dict) -> str | None:
    """Why the search cannot see into these reports, or None: every coordinate is an opaque code (no number to
    cut into cells) and the exact reports seen MIN_KEY_COUNT times or more (the only events left) hold less than
    SEEN_MASS of some input's pilot draws."""
    rows = list(pilots.values())
    if any(r.any_numeric for r in rows):
        return None
    seen = []
    for r in rows:
        counts = np.unique(r.keys, return_counts=True)[1]
        seen.append(counts[counts >= MIN_KEY_COUNT].sum() / r.n)
    if min(seen) >= SEEN_MASS:
        return None
    return (f"every report is an opaque object (no numeric coordinate) and exact reports seen {MIN_KEY_COUNT}+ times "
            f"hold only {min(seen):.1%} of an input's {rows[0].n} pilot draws")
