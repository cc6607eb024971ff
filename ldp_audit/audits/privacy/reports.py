"""Reports of any shape, as the black-box search sees them: one row of numbers and one exact key per report.

A sampler may return n scalars, an (n, d) array (dense or ``scipy.sparse``), an (n, ...) array, a tuple of such
arrays (e.g. a hash seed and a value), a dict of such arrays, or n report objects. :func:`as_rows` turns any of
them into a :class:`Rows`: ``values`` is a dense (n, w) float64 matrix and ``keys`` a uint64 per report that is
equal for equal reports (a sum of mixed (column, value) hashes over the non-zero entries, so a dense and a sparse
copy of a report get the same key, whichever process or chunk computed it). Integers beyond 2^53 (hash seeds
of a 2^63 space) are hashed from their exact int64 bits, never from a rounded float.

What is decoded, and how:

* complex numbers: the real and the imaginary part, two columns;
* report objects (an object array or a list of n of them): dicts with one set of keys -> one column per key
  (sorted); tuples of one length -> one column per position; a field of a dict or tuple that holds lists of one
  length (a Bloom filter's bits in a record) -> one column per list position; lists, sets and frozensets of item
  ids (variable length) -> indicator columns over the mechanism's categories (``ReportFormat.universe``; without
  a finite input domain, or with an item outside it, a ``ValueError`` naming the shape, and the field); a field
  holding nested dicts, or lists mixed with single values, is refused naming the field; complex objects -> two
  columns;
* anything else (strings, other objects): a stable 53-bit code of its ``repr``, an *opaque* column (equal
  codes for equal entries, but no order or distance the search could use).

``Rows.numeric`` says which columns carry numbers (not opaque codes). A mechanism may also declare how its
server reads a report (:class:`ReportFormat`): ``supports(reports, item)`` (does a report count for item v)
becomes one indicator column per probed item in ``Rows.derived``, and ``key(reports)`` (a public key: hash seed,
cohort id) an exact int64 per report in ``Rows.public_key``; both are computed from the reports exactly as the
sampler returned them.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
from scipy import sparse

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
#: Salt of integers too large for a float64 (|v| > 2^53): their exact bits never mimic a float's.
_BIG_SALT = np.uint64(0xD6E8FEB86659FD93)
_EXACT_FLOAT = 2 ** 53


def splitmix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser, vectorised (uint64 arithmetic wraps)."""
    with np.errstate(over="ignore"):
        z = z + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        return z ^ (z >> np.uint64(31))


def _column_salt(width: int) -> np.ndarray:
    return splitmix64(np.arange(1, width + 1, dtype=np.uint64) * _GOLDEN)


@dataclass(frozen=True)
class ReportFormat:
    """How the server reads a report, as declared by the mechanism (all optional): ``universe``, the item ids a
    set-valued report may hold (the categories of a finite input domain); ``supports(reports, item) -> (n,)
    bool`` with the ``items`` to test (the search's inputs, in ``sample``'s terms); ``key(reports) -> (n,)
    int64``, a public key."""

    universe: tuple | None = None
    supports: Callable | None = None
    items: tuple = ()
    key: Callable | None = None

    @classmethod
    def of(cls, mechanism, items: Sequence = ()) -> "ReportFormat":
        categories = mechanism.categories
        return cls(None if categories is None else tuple(categories), mechanism.supports,
                   tuple(items) if mechanism.supports is not None else (), mechanism.key)

    @property
    def declared(self) -> bool:
        """Whether the mechanism says how its server reads a report (a support test or a public key)."""
        return self.supports is not None or self.key is not None


@dataclass(frozen=True, eq=False)
class Rows:
    """n reports as a dense (n, w) float64 matrix; one exact uint64 key per report, computed when first asked for;
    a per-batch memo of cell indices, so that events sharing a coordinate and its cells index it once.
    ``numeric[j]``: column j holds numbers (not opaque codes); ``derived``: (n, m) support indicators of the
    declared ``supports`` (one column per probed item), ``public_key``: the declared key (both None when not
    declared)."""

    values: np.ndarray
    memo: dict = field(default_factory=dict, repr=False)
    numeric: tuple = ()
    derived: np.ndarray | None = None
    public_key: np.ndarray | None = None

    @property
    def keys(self) -> np.ndarray:
        if "keys" not in self.memo:
            self.memo["keys"] = _keys(self.values)
        return self.memo["keys"]

    def cell_index(self, j: int, cells) -> np.ndarray:
        """``cells.index`` of coordinate j, memoised on (j, the cells' values)."""
        key = (j, cells.key)
        if key not in self.memo:
            self.memo[key] = cells.index(self.values[:, j])
        return self.memo[key]

    @property
    def n(self) -> int:
        return self.values.shape[0]

    @property
    def width(self) -> int:
        return self.values.shape[1]

    @property
    def any_numeric(self) -> bool:
        return any(self.numeric) if self.numeric else True

    @classmethod
    def concat(cls, parts: Sequence["Rows"]) -> "Rows":
        """The rows of ``parts`` in order (exact keys carried over where a part computed them from big integers)."""
        first = parts[0]
        memo = {}
        if any("exact" in p.memo for p in parts):
            memo = {"keys": np.concatenate([p.keys for p in parts]), "exact": True}
        stack = lambda name: None if getattr(first, name) is None else np.concatenate([getattr(p, name) for p in parts])
        return cls(np.vstack([p.values for p in parts]), memo, first.numeric, stack("derived"), stack("public_key"))


def _stable_codes(column: np.ndarray) -> np.ndarray:
    """Categorical entries -> floats that are equal exactly for equal entries (53-bit blake2 codes of repr)."""
    distinct, inverse = np.unique(np.asarray([repr(v) for v in column.ravel()]), return_inverse=True)
    codes = np.array([int.from_bytes(hashlib.blake2b(s.encode(), digest_size=8).digest(), "little") >> 11
                      for s in distinct], dtype=np.float64)
    return codes[inverse].reshape(column.shape)


@dataclass
class _Block:
    """Decoded columns: float64 values, which are numeric, and the exact int64 entries beyond 2^53 (or None)."""

    values: np.ndarray
    numeric: list
    big: np.ndarray | None = None  # bool mask of entries whose exact value is in ``ints``
    ints: np.ndarray | None = None


def _numbers(array: np.ndarray) -> _Block:
    """An (n, w) array of a numeric dtype (complex: real and imaginary parts side by side)."""
    if array.dtype.kind == "c":
        parts = np.stack([array.real, array.imag], axis=2).reshape(array.shape[0], -1)
        return _Block(parts.astype(np.float64), [True] * parts.shape[1])
    values = array.astype(np.float64)
    if array.dtype.kind in "iu" and array.size:
        ints = array.view(np.int64) if array.dtype == np.uint64 else array.astype(np.int64)
        big = np.abs(array.astype(np.float64)) > _EXACT_FLOAT
        if big.any():
            return _Block(values, [True] * array.shape[1], big, ints)
    return _Block(values, [True] * array.shape[1])


def _join(blocks: list[_Block], n: int) -> _Block:
    if len(blocks) == 1:
        return blocks[0]
    values = np.hstack([b.values for b in blocks]) if blocks else np.empty((n, 0))
    numeric = [flag for b in blocks for flag in b.numeric]
    if not any(b.big is not None for b in blocks):
        return _Block(values, numeric)
    big = np.hstack([b.big if b.big is not None else np.zeros(b.values.shape, bool) for b in blocks])
    ints = np.hstack([b.ints if b.ints is not None else np.zeros(b.values.shape, np.int64) for b in blocks])
    return _Block(values, numeric, big, ints)


def _decode(reports, n: int, universe) -> _Block:
    if sparse.issparse(reports):
        return _Block(np.asarray(reports.toarray(), dtype=np.float64), [True] * reports.shape[1])
    if isinstance(reports, dict) and reports and all(_length(v) == n for v in reports.values()):
        return _join([_named(f"field {k!r}", _decode, reports[k], n, universe) for k in sorted(reports, key=str)], n)
    if isinstance(reports, tuple) and reports and all(
            (isinstance(p, np.ndarray) or sparse.issparse(p)) and p.shape[:1] == (n,) for p in reports):
        return _join([_decode(p, n, universe) for p in reports], n)
    try:
        array = np.asarray(reports)
    except ValueError:  # a list of variable-length lists: keep one object per report
        array = np.fromiter(reports, dtype=object, count=len(reports)) if len(reports) == n else None
    if array is None or array.ndim == 0 or array.shape[0] != n:
        shape = None if array is None else array.shape
        raise ValueError(f"sample(x, n={n}, rng) must return n reports (first axis of length n), got "
                         f"{type(reports).__name__} of shape {shape}")
    array = array.reshape(n, -1)
    if array.dtype.kind in "biufc":
        return _numbers(array)
    return _join([_objects(array[:, j], universe) for j in range(array.shape[1])], n)


def _objects(column: np.ndarray, universe) -> _Block:
    """One column of report objects (see the module docstring)."""
    n = column.shape[0]
    kinds = {type(v) for v in column}
    if kinds and all(issubclass(k, dict) for k in kinds):
        names = sorted({tuple(sorted(map(str, v))) for v in column})
        if len(names) != 1:
            raise ValueError(f"dict reports must all have the same keys, got {len(names)} different key sets, e.g. "
                             f"{list(names[0])} and {list(names[-1])}")
        by_name = [{str(k): v for k, v in d.items()} for d in column]
        return _join([_named(f"field {name!r}", _field, [d[name] for d in by_name], universe)
                      for name in names[0]], n)
    if kinds and all(issubclass(k, tuple) for k in kinds):
        lengths = {len(v) for v in column}
        if len(lengths) == 1:
            width = lengths.pop()
            return _join([_named(f"position {j} of the tuples", _field, [v[j] for v in column], universe)
                          for j in range(width)], n)
    if kinds and all(issubclass(k, (list, tuple, set, frozenset, np.ndarray)) for k in kinds):
        return _item_sets(column, universe)
    return _scalars(column)


def _length(value) -> int | None:
    """The length of an array-like's first axis (a list of lists included, ragged or not), None for a scalar."""
    if sparse.issparse(value) or isinstance(value, np.ndarray):
        return value.shape[0] if value.ndim else None
    return len(value) if isinstance(value, (list, tuple)) else None


def _named(where: str, decode, *args) -> _Block:
    """``decode(*args)`` for one field of the reports; a report it cannot read is a ValueError naming the field."""
    try:
        return decode(*args)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from exc


def _field(entries: list, universe) -> _Block:
    """One field of dict or tuple report objects: single values (:func:`_scalars`), sequences of one length (one
    column per position: a Bloom filter's bits in a record), or item sets (:func:`_item_sets`)."""
    column = np.empty(len(entries), dtype=object)
    column[:] = entries
    sequences = [isinstance(v, (list, tuple, np.ndarray)) and np.ndim(v) == 1 for v in entries]
    if not any(sequences) and not any(isinstance(v, (set, frozenset, dict)) for v in entries):
        return _scalars(column)
    if any(isinstance(v, dict) for v in entries):
        raise ValueError(f"it holds dicts (e.g. {_short(next(v for v in entries if isinstance(v, dict)))}); "
                         f"flatten nested records into fields of numbers or of fixed-length lists of numbers")
    lengths = {len(v) for v, seq in zip(entries, sequences) if seq}
    if all(sequences) and len(lengths) == 1:
        array = np.asarray(list(entries))
        if array.ndim == 2 and array.dtype.kind in "biufc":
            return _numbers(array)
        return _join([_scalars(array[:, j].astype(object)) for j in range(array.shape[1])], len(entries))
    allowed = "a field must hold one number, or a list of one length, per report"
    if not all(sequences):
        raise ValueError(f"it mixes lists and single values (e.g. {_short(entries[sequences.index(True)])} and "
                         f"{_short(entries[sequences.index(False)])}); {allowed}")
    if universe is None:
        shown = sorted(lengths)
        raise ValueError(f"it holds lists of different lengths ({shown[0]} to {shown[-1]} entries); {allowed} (item "
                         f"sets of varying size need a finite input domain)")
    return _item_sets(column, universe)


def _scalars(column: np.ndarray) -> _Block:
    """One column of scalar objects: numbers (complex: two columns), else opaque codes."""
    kinds = {type(v) for v in column}
    if kinds and all(issubclass(k, (complex, np.complexfloating)) for k in kinds):
        return _numbers(column.astype(np.complex128).reshape(-1, 1))
    if kinds and all(issubclass(k, (bool, int, np.integer)) for k in kinds):
        try:
            return _numbers(column.astype(np.int64).reshape(-1, 1))
        except OverflowError:
            pass
    try:
        return _Block(column.astype(np.float64).reshape(-1, 1), [True])
    except (TypeError, ValueError):
        return _Block(_stable_codes(column).reshape(-1, 1), [False])


def _item_sets(column: np.ndarray, universe) -> _Block:
    """Collections of item ids -> indicator columns over ``universe`` (one per category)."""
    example = next(iter(column))
    shape = f"variable-length collections of items (e.g. {type(example).__name__} {_short(example)})"
    if universe is None:
        raise ValueError(f"reports are {shape}: reading them as item sets needs a finite input domain (a list or "
                         f"range of categories); or return an (n, k) array, e.g. a 0/1 indicator per category")
    lookup = {_item(v): j for j, v in enumerate(universe)}
    lengths = np.fromiter((len(v) for v in column), dtype=np.int64, count=column.shape[0])
    flat = [_item(i) for v in column for i in v]
    unknown = [i for i in set(flat) if i not in lookup]
    if unknown:
        raise ValueError(f"reports are {shape}; item {unknown[0]!r} is not one of the domain's "
                         f"{len(universe)} categories")
    indicators = np.zeros((column.shape[0], len(universe)))
    indicators[np.repeat(np.arange(column.shape[0]), lengths), np.fromiter((lookup[i] for i in flat), np.int64,
                                                                           count=len(flat))] = 1.0
    return _Block(indicators, [True] * len(universe))


def _item(value):
    """An item id as a dict key: numbers by value (1 == 1.0 == np.int64(1)), everything else as itself."""
    if isinstance(value, (bool, int, float, np.integer, np.floating)):
        return float(value)
    return value


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _indicator(values, n: int, item) -> np.ndarray:
    array = np.asarray(values)
    if array.shape != (n,) or array.dtype.kind not in "biu" or (array.dtype.kind != "b" and np.any(
            (array != 0) & (array != 1))):
        raise ValueError(f"supports(reports, {item!r}) must return n={n} booleans (does each report count for the "
                         f"item), got {array.dtype} of shape {array.shape}")
    return array.astype(np.float64)


def _public_key(values, n: int) -> np.ndarray:
    array = np.asarray(values)
    if array.shape != (n,) or array.dtype.kind not in "biuf" or (
            array.dtype.kind == "f" and not np.all((array == np.round(array)) & (np.abs(array) <= _EXACT_FLOAT))):
        raise ValueError(f"key(reports) must return n={n} integers (a public key such as a hash seed or cohort id), "
                         f"got {array.dtype} of shape {array.shape}")
    return array.view(np.int64) if array.dtype == np.uint64 else array.astype(np.int64)


def as_rows(reports, n: int, fmt: ReportFormat | None = None) -> Rows:
    """Normalise n reports of any supported shape (module docstring) to :class:`Rows`, with the declared support
    indicators and public key of ``fmt``."""
    fmt = fmt or ReportFormat()
    block = _decode(reports, n, fmt.universe)
    values = block.values + 0.0  # + 0.0 turns -0.0 into 0.0, so equal numbers have equal bits
    memo = {}
    if block.big is not None:
        memo = {"keys": _keys(values, block.big, block.ints), "exact": True}
    derived = None
    if fmt.supports is not None and fmt.items:
        derived = np.column_stack([_indicator(fmt.supports(reports, item), n, item) for item in fmt.items])
    key = None if fmt.key is None else _public_key(fmt.key(reports), n)
    return Rows(values, memo, tuple(block.numeric), derived, key)


def _keys(values: np.ndarray, big: np.ndarray | None = None, ints: np.ndarray | None = None) -> np.ndarray:
    bits = np.ascontiguousarray(values).view(np.uint64)
    if big is not None:
        bits = bits.copy()
        bits[big] = ints[big].view(np.uint64) ^ _BIG_SALT
    with np.errstate(over="ignore"):
        mixed = splitmix64(bits ^ _column_salt(values.shape[1])[None, :])
        mixed[values == 0.0] = 0
        return mixed.sum(axis=1, dtype=np.uint64)
