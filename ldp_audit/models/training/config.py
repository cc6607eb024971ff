"""A training run as a frozen value: :class:`RunConfig` names everything that decides a run's outcome.

Two configs that differ only in ``seed`` are the same *configuration* (one table cell, one K); the run store
keeps one JSON per (configuration, seed). ``eps_x=None`` / ``eps_y=None`` mean "not perturbed" (eps = inf).
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import MISSING, asdict, dataclass, fields, replace
from typing import ClassVar

#: Feature sources: the dataset's own features (perturbed when ``eps_x`` is set), i.i.d. U[0, 1] features of
#: the same width (GCN+RND), one-hot degrees (GCN+OHD, lpgnn §6.4).
FEATURE_SOURCES = ("raw", "rnd", "ohd")
#: Backbones (see ``modules.BACKBONES``).
MODELS = ("lpgnn", "gcn", "sage", "gat")
#: Training objectives (lpgnn A4 and its ablations).
OBJECTIVES = ("cross_entropy", "forward", "drop")
#: Checkpoint selection rules on validation (lpgnn §6.2 and A5).
SELECTIONS = ("val_loss", "ccs")
AGGREGATORS = ("gcn", "mean")


def _positive_or_none(name: str, value) -> float | None:
    if value is None or (isinstance(value, (int, float)) and math.isinf(value) and value > 0):
        return None
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be > 0 (or inf for no perturbation), got {value!r}")
    return float(value)


def _int_at_least(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return value


def _choice(name: str, value, allowed) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")


class StoredFields:
    """A dataclass config as stored in a run's JSON: ``to_dict`` its fields, ``from_dict`` back (keys this
    version does not know are dropped, so older readers take newer files)."""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict):
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True)
class RunConfig(StoredFields):
    """Everything that decides one training run.

    Attributes:
        dataset: dataset name (``models.data.names()``).
        features: ``raw``, ``rnd`` or ``ohd`` (:data:`FEATURE_SOURCES`).
        mechanism, eps_x, m: feature mechanism (registry name), its budget (None: raw features unperturbed) and
            its sampled-coordinate rule or count (``"lpgnn"``: Eq. 6 as printed, m = 1 for eps <= 4.36).
        eps_y: label randomized-response budget (None: clean labels), lpgnn B2.
        k_x, aggregator, self_loops: KProp in front of the backbone (lpgnn A1; K = 0 is the identity).
        k_y: label / prediction propagation steps of the Drop objective (lpgnn A4).
        model, hidden, dropout: backbone (:data:`MODELS`), hidden width and dropout.
        objective: ``cross_entropy``, ``forward`` (forward correction) or ``drop`` (lpgnn A4).
        selection: ``val_loss`` (lowest validation loss, lpgnn §6.2) or ``ccs`` (lpgnn A5).
        lr, weight_decay, epochs: Adam settings, full batch.
        split_seed: the one random 50/25/25 split per dataset (lpgnn §6.4, U9); runs vary ``seed`` only.
        seed: the run's seed; every random stream of the run is derived from it (``ldp_audit.seeding.rng_for``).
        train_fraction: the fraction of the training split whose labels train the run, in (0, 1]; a uniform subset
            drawn from the run's own seed (lpgnn RQ4 / Fig. 7: label rate rho = 50 % x train_fraction, redrawn
            each run as in the authors' code); 1 keeps every training node.
    """

    dataset: str
    features: str = "raw"
    mechanism: str = "multibit"
    eps_x: float | None = None
    m: str | int = "lpgnn"
    eps_y: float | None = None
    k_x: int = 0
    aggregator: str = "gcn"
    self_loops: bool = False
    k_y: int = 0
    model: str = "lpgnn"
    hidden: int = 16
    dropout: float = 0.0
    objective: str = "cross_entropy"
    selection: str = "val_loss"
    lr: float = 0.01
    weight_decay: float = 0.0
    epochs: int = 500
    split_seed: int = 12345
    seed: int = 0
    train_fraction: float = 1.0

    def __post_init__(self):
        if not isinstance(self.dataset, str) or not self.dataset:
            raise ValueError(f"dataset must be a dataset name, got {self.dataset!r}")
        object.__setattr__(self, "dataset", self.dataset.lower())
        _choice("features", self.features, FEATURE_SOURCES)
        _choice("model", self.model, MODELS)
        _choice("objective", self.objective, OBJECTIVES)
        _choice("selection", self.selection, SELECTIONS)
        _choice("aggregator", self.aggregator, AGGREGATORS)
        object.__setattr__(self, "eps_x", _positive_or_none("eps_x", self.eps_x))
        object.__setattr__(self, "eps_y", _positive_or_none("eps_y", self.eps_y))
        if self.eps_x is not None and self.features != "raw":
            raise ValueError(f"eps_x perturbs the dataset's own features; features={self.features!r} "
                             "carries no private information, so eps_x must be None there")
        for name, low in (("k_x", 0), ("k_y", 0), ("hidden", 1), ("epochs", 1), ("seed", 0), ("split_seed", 0)):
            _int_at_least(name, getattr(self, name), low)
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must lie in [0, 1), got {self.dropout!r}")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise ValueError(f"lr must be > 0, got {self.lr!r}")
        if not (self.weight_decay >= 0 and math.isfinite(self.weight_decay)):
            raise ValueError(f"weight_decay must be >= 0, got {self.weight_decay!r}")
        if isinstance(self.train_fraction, bool) or not isinstance(self.train_fraction, (int, float)) or \
                not 0.0 < self.train_fraction <= 1.0:
            raise ValueError(f"train_fraction must lie in (0, 1] (the fraction of the training split that is "
                             f"labelled; 1 keeps all of it), got {self.train_fraction!r}")
        object.__setattr__(self, "train_fraction", float(self.train_fraction))
        if self.objective != "drop" and self.k_y:
            raise ValueError(f"k_y is the Drop objective's label propagation; objective={self.objective!r} "
                             "needs k_y=0")

    #: Fields added after the first stored runs: they enter :meth:`key` only when they differ from their default,
    #: so every run stored before a field existed keeps its key (and its folder in the run store).
    KEYED_WHEN_SET: ClassVar[tuple[str, ...]] = ("train_fraction",)

    # ----- identity ------------------------------------------------------------------------------------------
    def without_seed(self) -> "RunConfig":
        return replace(self, seed=0)

    def keyed_fields(self) -> dict:
        """The seedless fields that name the configuration: all of them, less the :data:`KEYED_WHEN_SET` ones
        that hold their default."""
        defaults = {f.name: f.default for f in fields(self) if f.default is not MISSING}
        body = self.without_seed().to_dict()
        return {name: value for name, value in body.items()
                if name not in self.KEYED_WHEN_SET or value != defaults[name]}

    def key(self) -> str:
        """A short stable name of the configuration (seed excluded): readable prefix + content hash."""
        body = json.dumps(self.keyed_fields(), sort_keys=True)
        digest = hashlib.sha256(body.encode()).hexdigest()[:10]
        eps = "inf" if self.eps_x is None else f"{self.eps_x:g}"
        epsy = "inf" if self.eps_y is None else f"{self.eps_y:g}"
        return f"{self.model}-{self.features}-ex{eps}-ey{epsy}-kx{self.k_x}-ky{self.k_y}-{self.objective}-{digest}"

    def batch_key(self) -> tuple:
        """What decides a run's model shape and training schedule: configs with equal keys may train together as
        one stacked model (``batched.train_batch``). Seeds, budgets, mechanisms, feature sources and propagation
        differ freely inside a batch; a run's result never depends on its batch mates. A run with a training
        subset (``train_fraction`` < 1) draws it from its own seed, and a batch shares one set of training nodes,
        so such runs batch only with runs of their seed and fraction."""
        key = (self.dataset, self.split_seed, self.model, self.hidden, self.dropout, self.objective, self.k_y,
               self.lr, self.weight_decay, self.epochs)
        return key if self.train_fraction == 1.0 else key + (self.train_fraction, self.seed)

    def perturbation_key(self) -> tuple:
        """What decides the (memoised) node features: two runs with equal keys share one perturbation."""
        return (self.dataset, self.features, self.mechanism if self.eps_x is not None else None, self.eps_x,
                self.m if self.eps_x is not None else None, self.seed)
