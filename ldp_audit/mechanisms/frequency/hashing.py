"""Local hashing (Wang et al., USENIX Security 2017, Section 4.4): the client draws a public hash function from a
universal family, hashes x into g buckets and reports (seed, bucket) after g-ary randomized response.

* OLH (optimised local hashing): g = round(e^eps) + 1;
* BLH (binary local hashing): g = 2.

Seeds come from a 2^63 space, as real clients draw them, and the report is an (n, 2) int64 array
[seed, bucket], so no seed is rounded by a float. The family is Carter-Wegman's
H_s(v) = ((a_s v + b_s) mod P) mod g with P = 2^31 - 1 and (a_s, b_s) mixed from the seed by SplitMix64 (a
public, seeded function): two items collide with probability 1/g up to O(g / P).

The law of a report given x: the seed is uniform (log density -63 log 2) and the bucket is H_s(x) with
probability p = e^eps / (e^eps + g - 1), each other bucket with q = 1 / (e^eps + g - 1). The server counts
the reports whose bucket is H_s(v): p* = p, q* = 1/g (Wang et al. 2017, Sec. 4.4).
"""
from __future__ import annotations

import math
from abc import abstractmethod
from dataclasses import dataclass

import numpy as np

from .base import FrequencyOracle

#: Carter-Wegman prime (2^31 - 1): a_s v < 2^62 never overflows an unsigned 64-bit product.
PRIME = (1 << 31) - 1
#: Seeds are drawn uniformly from [0, 2^63 - 1].
SEED_BITS = 63
#: Public seeds at which the law's classes are enumerated for the white-box audit (the conditional law given a
#: seed depends on the seed only through whether H_s(x1) = H_s(x0)).
LAW_SEEDS = 64

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser (uint64 arithmetic wraps)."""
    with np.errstate(over="ignore"):
        z = z + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def universal_hash(seeds, items, g: int) -> np.ndarray:
    """H_s(v) = ((a_s v + b_s) mod P) mod g for every seed s (broadcast against ``items``), a_s in [1, P-1] and
    b_s in [0, P-1] mixed from s."""
    seeds = np.asarray(seeds).astype(np.uint64)
    mixed = _mix(seeds)
    a = mixed % np.uint64(PRIME - 1) + np.uint64(1)
    b = _mix(mixed) % np.uint64(PRIME)
    return (((a * np.asarray(items).astype(np.uint64) + b) % np.uint64(PRIME)) % np.uint64(g)).astype(np.int64)


def olh_buckets(eps: float) -> int:
    """OLH's g = round(e^eps) + 1 (Wang et al. 2017, Sec. 4.4), at most P (the hash's range)."""
    return int(min(round(math.exp(min(eps, 30.0))) + 1, PRIME))


@dataclass(frozen=True)
class LocalHashing(FrequencyOracle):
    """Local hashing with ``g`` buckets (``buckets``)."""

    @property
    @abstractmethod
    def buckets(self) -> int:
        """g, the number of hash buckets."""

    def grr_probabilities(self) -> tuple[float, float]:
        """(p, q) of g-ary randomized response on the buckets, from e^-eps (no overflow at large eps)."""
        g, tail = self.buckets, math.exp(-self.eps)
        p = 1.0 / (1.0 + (g - 1) * tail)
        return p, tail * p

    def support_probabilities(self):
        return self.grr_probabilities()[0], 1.0 / self.buckets

    def _perturb(self, x, rng):
        g = self.buckets
        p, _ = self.grr_probabilities()
        seeds = rng.integers(0, np.iinfo(np.int64).max, size=x.size, dtype=np.int64, endpoint=True)
        hashed = universal_hash(seeds, x, g)
        other = (hashed + 1 + rng.integers(0, g - 1, size=x.size)) % g
        return np.column_stack([seeds, np.where(rng.random(x.size) < p, hashed, other)])

    @property
    def report_width(self) -> int:
        """A report is [seed, bucket]."""
        return 2

    def _check_report_values(self, reports):
        """Seeds in [0, 2^63 - 1] and buckets in {0..g-1}, integers."""
        self._check_categories(reports[:, 0], np.iinfo(np.int64).max, "hash seeds")
        self._check_categories(reports[:, 1], self.buckets - 1, "buckets")

    def key(self, reports) -> np.ndarray:
        """The public hash seed of each report."""
        return self.checked_reports(reports)[:, 0].astype(np.int64)

    def support_matrix(self, reports):
        reports = np.asarray(reports)
        buckets = reports[:, 1].astype(np.int64)
        return universal_hash(reports[:, :1], np.arange(self.k)[None, :], self.buckets) == buckets[:, None]

    def _report_loglik(self, values, x):
        values = np.asarray(values)
        g = self.buckets
        p, q = self.grr_probabilities()
        bucket = values[:, 1]
        valid = (bucket >= 0) & (bucket < g) & (bucket == np.round(bucket))
        hit = bucket == universal_hash(values[:, 0], int(x), g)
        return np.where(valid, -SEED_BITS * math.log(2.0) + np.where(hit, math.log(p), math.log(q)), -np.inf)

    def _law_classes(self, x1, x0):
        """Per public seed s: the buckets H_s(x1), H_s(x0) and the other buckets as one class (its members have
        probability q under both inputs); the seeds stand for the whole seed space with equal weights."""
        seeds = np.random.default_rng(0x0111).integers(0, np.iinfo(np.int64).max, size=LAW_SEEDS, dtype=np.int64)
        g = self.buckets
        h1, h0 = universal_hash(seeds, x1, g), universal_hash(seeds, x0, g)
        rows, counts = [], []
        weight = SEED_BITS * math.log(2.0) - math.log(LAW_SEEDS)
        for s, a, b in zip(seeds, h1, h0):
            distinct = sorted({int(a), int(b)})
            rest = g - len(distinct)
            # one representative of the buckets outside {H_s(x1), H_s(x0)}: the smallest of them
            buckets = distinct + ([next(v for v in range(3) if v not in distinct)] if rest > 0 else [])
            for j, bucket in enumerate(buckets):
                rows.append((s, bucket))
                counts.append(weight + (math.log(rest) if j == len(distinct) else 0.0))
        yield np.array(rows, dtype=np.int64), np.array(counts)


@dataclass(frozen=True)
class OptimisedLocalHashing(LocalHashing):
    name = "olh"
    reference = "Wang et al. 2017 OLH, Sec. 4.4"

    @property
    def buckets(self) -> int:
        return olh_buckets(self.eps)


@dataclass(frozen=True)
class BinaryLocalHashing(LocalHashing):
    name = "blh"
    reference = "Wang et al. 2017 BLH, Sec. 4.4"

    @property
    def buckets(self) -> int:
        return 2
