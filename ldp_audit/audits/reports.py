"""Reports of any shape, as the black-box search sees them: one row of numbers and one exact key per report.

A sampler may return n scalars, an (n, d) array (dense or ``scipy.sparse``), an (n, ...) array, a tuple of such
arrays (e.g. a hash seed and a value), or categorical objects (strings, tuples). :func:`as_rows` turns any of
them into a :class:`Rows`: ``values`` is a dense (n, w) float64 matrix (categorical entries become stable 53-bit
codes) and ``keys`` a uint64 per report that is equal for equal reports (a sum of mixed (column, value) hashes
over the non-zero entries, so a dense and a sparse copy of a report get the same key, whichever process or
chunk computed it).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def splitmix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser, vectorised (uint64 arithmetic wraps)."""
    with np.errstate(over="ignore"):
        z = z + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        return z ^ (z >> np.uint64(31))


def _column_salt(width: int) -> np.ndarray:
    return splitmix64(np.arange(1, width + 1, dtype=np.uint64) * _GOLDEN)


@dataclass(frozen=True, eq=False)
class Rows:
    """n reports as a dense (n, w) float64 matrix; one exact uint64 key per report, computed when first asked for;
    a per-batch memo of cell indices, so that events sharing a coordinate and its cells index it once."""

    values: np.ndarray
    memo: dict = field(default_factory=dict, repr=False)

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


def _stable_codes(column: np.ndarray) -> np.ndarray:
    """Categorical entries -> floats that are equal exactly for equal entries (53-bit blake2 codes of repr)."""
    distinct, inverse = np.unique(np.asarray([repr(v) for v in column.ravel()]), return_inverse=True)
    codes = np.array([int.from_bytes(hashlib.blake2b(s.encode(), digest_size=8).digest(), "little") >> 11
                      for s in distinct], dtype=np.float64)
    return codes[inverse].reshape(column.shape)


def _dense(reports, n: int) -> np.ndarray:
    if sparse.issparse(reports):
        return np.asarray(reports.toarray(), dtype=np.float64)
    if isinstance(reports, tuple) and reports and all(
            (isinstance(p, np.ndarray) or sparse.issparse(p)) and p.shape[:1] == (n,) for p in reports):
        return np.hstack([_dense(p, n) for p in reports])
    array = np.asarray(reports)
    if array.ndim == 0 or array.shape[0] != n:
        raise ValueError(f"sample(x, n={n}, rng) must return n reports (first axis of length n), got shape "
                         f"{array.shape}")
    array = array.reshape(n, -1)
    if array.dtype.kind in "biuf":
        return array.astype(np.float64, copy=False)  # as_rows copies it anyway
    return np.column_stack([_numeric_or_codes(array[:, j]) for j in range(array.shape[1])])


def _numeric_or_codes(column: np.ndarray) -> np.ndarray:
    try:
        return column.astype(np.float64)
    except (TypeError, ValueError):
        return _stable_codes(column)


def as_rows(reports, n: int) -> Rows:
    """Normalise n reports of any supported shape (module docstring) to :class:`Rows`."""
    return Rows(_dense(reports, n) + 0.0)  # + 0.0 turns -0.0 into 0.0, so equal numbers have equal bits


def _keys(values: np.ndarray) -> np.ndarray:
    bits = np.ascontiguousarray(values).view(np.uint64)
    with np.errstate(over="ignore"):
        mixed = splitmix64(bits ^ _column_salt(values.shape[1])[None, :])
        mixed[values == 0.0] = 0
        return mixed.sum(axis=1, dtype=np.uint64)
