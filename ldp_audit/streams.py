"""The registry of stream keys: every random stream of the package by name, with the keys it occupies.

A stream is ``seeding.rng_for(seed, *key)``. A family of streams has a key ``prefix``; ``width`` members when it is
indexed (by input, by neighbourhood size: member i replaces the prefix's last number p by p + i, so the search's
final counts of input i are ``(900 + i, chunk)``), and ``tail`` further numbers that its user appends (a chunk
index, a draw number, a second index). Two keys of different lengths never meet, so a family occupies, position by
position: the prefix's numbers, the members' range at the prefix's last position, anything after it.

A ``scope`` is one audit that draws all its streams under one seed (verify's orchestrator, one ``bounds`` run,
one training run, one attack): within a scope no two families may occupy a common key, or two checks would see the
same numbers (tests/test_streams.py proves it, and that no ``rng_for`` call in the package names a key by a bare
number). The numbers are part of every result's definition: a family keeps its numbers unless it collided.
"""
from __future__ import annotations

from dataclasses import dataclass

#: Width of a family indexed by something a user chooses (a list of neighbourhood sizes, of methods, mechanisms).
OPEN = 10 ** 6


@dataclass(frozen=True)
class StreamFamily:
    """Streams ``rng_for(seed, *key(i), *tail)`` for members ``0 <= i < width`` (see the module docstring)."""

    name: str
    scope: str
    prefix: tuple[int, ...]
    width: int = 1
    tail: int = 0

    def __post_init__(self):
        if not self.prefix and self.width != 1:
            raise ValueError(f"stream family {self.name}: only a family with a key prefix can have members")

    def key(self, i: int = 0) -> tuple[int, ...]:
        """The key prefix of member ``i`` (the caller appends the family's ``tail`` numbers)."""
        if not 0 <= int(i) < self.width:
            raise ValueError(f"stream family {self.name} has {self.width} members; member {i} would use another "
                             "family's keys")
        return (*self.prefix[:-1], self.prefix[-1] + int(i)) if self.prefix else ()

    def positions(self) -> list[tuple[int, float]]:
        """Per key position, the half-open range of numbers the family may hold there (inf: any number)."""
        fixed = [(p, p + 1) for p in self.prefix[:-1]]
        last = [(self.prefix[-1], self.prefix[-1] + self.width)] if self.prefix else []
        return fixed + last + [(0, float("inf"))] * self.tail

    def overlaps(self, other: "StreamFamily") -> bool:
        """Whether some key belongs to both families."""
        mine, theirs = self.positions(), other.positions()
        return len(mine) == len(theirs) and all(max(a[0], b[0]) < min(a[1], b[1]) for a, b in zip(mine, theirs))


# ----- verify: the orchestrator draws every family below under the audit's seed (chunk index in the tail) -----
MOMENTS = StreamFamily("verify.moments", "verify", (100,), width=90, tail=1)
TWO_POINT_PILOT = StreamFamily("verify.moments.two-point-pilot", "verify", (190,))
DISTRIBUTION = StreamFamily("verify.distribution", "verify", (200,), width=100, tail=1)
#: moved from 900, where it met the search's final counts of input 0 (``SEARCH_FINAL``)
SANITY = StreamFamily("verify.sanity", "verify", (600,), tail=1)
PAIR_PILOT = StreamFamily("verify.search.pair-pilot", "verify", (780,), tail=1)
SEARCH_PROBE = StreamFamily("verify.search.probe", "verify", (790,))
SEARCH_PILOT = StreamFamily("verify.search.pilot", "verify", (800,), width=100, tail=1)
SEARCH_FINAL = StreamFamily("verify.search.final", "verify", (900,), width=100, tail=1)
#: the float check (``--checks float``): selection and certification draws of input i, and the shape probe
FLOAT_SELECT = StreamFamily("verify.float.select", "verify", (300,), width=100, tail=1)
FLOAT_CERTIFY = StreamFamily("verify.float.certify", "verify", (400,), width=100, tail=1)
FLOAT_PROBE = StreamFamily("verify.float.probe", "verify", (500,))
#: the curve check: pilot (projections and bins), selection and certification draws of input i, and the shape probe
CURVE_PILOT = StreamFamily("verify.curve.pilot", "verify", (1000,), width=100, tail=1)
CURVE_SELECT = StreamFamily("verify.curve.select", "verify", (1100,), width=100, tail=1)
CURVE_CERTIFY = StreamFamily("verify.curve.certify", "verify", (1200,), width=100, tail=1)
CURVE_PROBE = StreamFamily("verify.curve.probe", "verify", (1300,))

# ----- compare: member 1000 i + j is mechanism i at input j -----
COMPARE_VARIANCE = StreamFamily("compare.variance", "compare", (0,), width=OPEN, tail=1)

# ----- bounds: the graph audits of one dataset under one seed -----
#: chunk c of the propagated replicates: (c,)
PROPAGATED_REPLICATES = StreamFamily("graph.replicates", "bounds", (), tail=1)
#: the users drawn for neighbourhood size i: (0, i); their replicates' chunks: (1, i, c)
NEIGHBOURHOOD_USERS = StreamFamily("graph.mean.users", "bounds", (0,), tail=1)
NEIGHBOURHOOD_REPLICATES = StreamFamily("graph.mean.replicates", "bounds", (1,), tail=2)
#: MAE study: draw t of mechanism i is (17, i, t); moved from (i, t), where mechanism 0 met the users of size 0
MAE = StreamFamily("graph.mae", "bounds", (17,), tail=2)
#: the two budgets' seeds of the eps-rate check: (18, i)
EPS_RATE_SEEDS = StreamFamily("graph.eps-rate.seeds", "bounds", (18,), tail=1)
#: FlexProp weighting draws; moved from (0,) and (1,), the propagated replicates' first two chunks
FLEXPROP_LEVELS = StreamFamily("graph.flexprop.levels", "bounds", (20, 0))
FLEXPROP_NEIGHBOURHOODS = StreamFamily("graph.flexprop.neighbourhoods", "bounds", (20, 1))

# ----- reproduction: lpgnn's MAE figure, eps number e: (e, mechanism, draw) -----
REPRODUCTION_MAE = StreamFamily("reproduction.lpgnn-mae", "reproduce lpgnn mae", (0,), width=OPEN, tail=2)
#: the percentile bootstrap of every attribution row of ``reproduce --protocol both`` (issue 26), under
#: ``protocol_gap.ATTRIBUTION_SEED``
REPRODUCTION_ATTRIBUTION = StreamFamily("reproduction.attribution", "reproduce attribution", (26,))

# ----- training: one run's streams under the run's seed -----
FEATURES = StreamFamily("training.features", "training", (1,))
FEATURE_LEVELS = StreamFamily("training.features.levels", "training", (1, 1))
LABELS = StreamFamily("training.labels", "training", (2,))
LABEL_SUBSET = StreamFamily("training.labels.subset", "training", (2, 1))
INIT = StreamFamily("training.init", "training", (3,))
INIT_LINK = StreamFamily("training.init.link", "training", (3, 1))
DROPOUT = StreamFamily("training.init.dropout", "training", (3, 2))

# ----- SE-PrivGEmb: one run's StrucEqu controls under the run's seed (the node sample and Algorithm 1's
# negatives draw from the unkeyed stream ``()``, which no one-number key meets) -----
SE_PRIVGEMB_DEGREE_ONLY = StreamFamily("se-privgemb.strucequ.degree-only", "se-privgemb run", (1,))
SE_PRIVGEMB_PERMUTED = StreamFamily("se-privgemb.strucequ.permuted", "se-privgemb run", (2,))

# ----- attacks: each attack draws under its own seed -----
OWN_REPORT_CASES = StreamFamily("attacks.own-report.cases", "attack own-report", (0,), width=2, tail=1)
OWN_REPORT_CATEGORIES = StreamFamily("attacks.own-report.c-ary", "attack own-report", (9,), tail=1)
LEVEL_LEAK = StreamFamily("attacks.level-leak", "attack level-leak", (0,), tail=1)
AVERAGING_TALLY = StreamFamily("attacks.averaging.tally", "attack averaging", (0,), tail=1)
AVERAGING_QUERIES = StreamFamily("attacks.averaging.queries", "attack averaging", (1,))
LABEL_PLURALITY = StreamFamily("attacks.label-plurality", "attack label-plurality", (0,), width=OPEN)
NEIGHBOUR_VOTE = StreamFamily("attacks.neighbour-vote", "attack neighbour-vote", (0,), width=OPEN)

# ----- claims: streams of a paper's claims module of its own -----
LPGNN_MAE_GRID = StreamFamily("claims.lpgnn.mae-grid", "claims lpgnn", (13,), tail=2)
LPGNN_LABEL_STARS = StreamFamily("claims.lpgnn.label-stars", "claims lpgnn", (16,), tail=1)
LDP_GE_PIPELINE_REPORTS = StreamFamily("claims.ldp-ge.pipeline-reports", "claims ldp-ge", (13,))
LDP_GE_HDS_REPORTS = StreamFamily("claims.ldp-ge.hds-reports", "claims ldp-ge", (40,), tail=1)

#: Every family, in the order above.
FAMILIES: tuple[StreamFamily, ...] = tuple(v for v in dict(globals()).values() if isinstance(v, StreamFamily))
