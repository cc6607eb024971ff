"""A training run as a frozen value: a :class:`TrainingConfig` names everything that decides a run's outcome.

The one config family of the training core: :class:`RunConfig` (the stacked GNN pipeline of LPGNN and PPGNN,
node classification) and ``ldp_ge.LdpGeConfig`` (LDP-GE, node classification or link prediction) share the
identity rules below (key, ``KEYED_WHEN_SET``, ``batch_key``, ``task`` and its metric), one result type and one
run store. Two configs that differ only in ``seed`` are the same *configuration* (one table cell, one K); the run
store keeps one JSON per (configuration, seed). ``eps_x=None`` / ``eps_y=None`` mean "not perturbed" (eps = inf).
"""
from __future__ import annotations

import hashlib
import json
import math
from abc import ABC, abstractmethod
from dataclasses import MISSING, asdict, dataclass, fields, replace
from importlib import import_module
from numbers import Integral, Real
from typing import Callable, ClassVar

import numpy as np

#: Feature sources: the dataset's own features (perturbed when ``eps_x`` is set), i.i.d. U[0, 1] features of
#: the same width (GCN+RND), one-hot degrees (GCN+OHD, lpgnn §6.4).
FEATURE_SOURCES = ("raw", "rnd", "ohd")
#: Backbones (see ``modules.BACKBONES``).
MODELS = ("lpgnn", "gcn", "sage", "gat")
#: Training objectives (lpgnn A4 and its ablations; ``saturating``: PPGNN's released loss, issue 26).
OBJECTIVES = ("cross_entropy", "forward", "drop", "saturating")
#: Checkpoint selection rules on validation (lpgnn §6.2 and A5; ``all_improve``: PPGNN's released rule, issue 26).
SELECTIONS = ("val_loss", "ccs", "all_improve")
AGGREGATORS = ("gcn", "mean")
#: How the one 50/25/25 node split is drawn: ``spec`` (a numpy permutation from ``split_seed``: train, validation,
#: test) or ``released`` (LPGNN's released NodeSplit: ``released_splits.lpgnn_released_split``, issue 26).
SPLIT_RULES = ("spec", "released")
#: PPGNN's level distributions (ppgnn A8, Sec. IV-C): i.i.d. uniform on {1..h} (the paper's "random function"),
#: Strict (every user at level 1, budget eps), Relaxed (every user at level h, the largest budget), Bimodal (a
#: uniformly random half of the users at level 1, the others at level h).
LEVEL_DISTRIBUTIONS = ("uniform", "strict", "relaxed", "bimodal")
#: Feature propagation in front of the backbone: ``auto`` is FlexProp for PPGNN's personalised mechanisms and KProp
#: otherwise; ``kprop`` / ``flexprop`` pick one for any mechanism (ppgnn Figs. 8-9).
PROPAGATIONS = ("auto", "kprop", "flexprop")
#: Largest number of PPGNN levels: eps^h = 2^(h-1) eps must stay a finite budget for every eps we run.
MAX_PPM_LEVELS = 16
#: PPGNN's PPM: the paper's (``spec``, Algorithm 3 or its corrected mode, as ``mechanism`` says) or the authors'
#: released code (``released``, ``personalised.PersonalisedMechanism(mode="released")``, issue 26), which stands in
#: for the paper-mode PPM only: a run that names ``ppm_corrected`` keeps it.
PPM_VARIANTS = ("spec", "released")
#: Table III's GM baseline: ``per_coordinate`` (spec M2 with E1: (eps/d, delta/d) per coordinate, sensitivity 2,
#: delta 1e-5) or ``analytic_l2`` (LPGNN's released ``agm``: one analytic Gaussian on the whole vector, L2
#: sensitivity (beta - alpha) sqrt(d), delta 1e-10; issue 26).
GAUSSIAN_BASELINES = ("per_coordinate", "analytic_l2")
#: The mechanisms a protocol-only field acts on. On a run of any other mechanism (or unperturbed) the field is reset
#: to its default: a protocol sets it on every run of a grid, and the runs it does not change keep their keys.
ACTS_ON = {"ppm_variant": ("ppm",), "gaussian_baseline": ("gaussian_hd",)}


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


#: The task of a run and the metric its scores are: node classification is scored by accuracy, link prediction by
#: ROC-AUC. Stored metrics carry the metric in their name: ``test_acc``/``val_acc`` or ``test_auc``/``val_auc``.
TASK_METRICS = {"node": "acc", "link": "auc"}
#: The config class of each pipeline of the core, as ``module:class`` (imported on first use: LDP-GE's presets
#: are only loaded when an LDP-GE run is read).
PIPELINES = {"gnn": f"{__name__}:RunConfig", "ldp-ge": f"{__package__}.ldp_ge:LdpGeConfig"}
#: The runner of each pipeline, as ``module:function`` (imported on first use): ``runner(configs, device, cache,
#: stop) -> results`` in config order. The GNNs of one shape train as one stacked model; LDP-GE's runs (which
#: stop early at different epochs) one after the other.
RUNNERS = {"gnn": f"{__package__}.batched:train_batch", "ldp-ge": f"{__package__}.ldp_ge:train_group"}


def _registered(registry: dict, pipeline: str):
    if pipeline not in registry:
        raise ValueError(f"pipeline must be one of {', '.join(registry)}, got {pipeline!r}")
    module, name = registry[pipeline].split(":")
    return getattr(import_module(module), name)


def config_type(pipeline: str) -> type:
    """The config class of ``pipeline`` (a :data:`PIPELINES` name)."""
    return _registered(PIPELINES, pipeline)


def runner_of(pipeline: str) -> Callable:
    """The runner of ``pipeline`` (:data:`RUNNERS`)."""
    return _registered(RUNNERS, pipeline)


#: Whether a value fits a declared field type, and how a message says the type.
_FITS = {"bool": lambda v: isinstance(v, (bool, np.bool_)),
         "int": lambda v: isinstance(v, Integral) and not isinstance(v, (bool, np.bool_)),
         "float": lambda v: isinstance(v, Real) and not isinstance(v, (bool, np.bool_)),
         "str": lambda v: isinstance(v, str),
         "None": lambda v: v is None}
_KIND_WORDS = {"bool": "True or False", "int": "an integer", "float": "a number", "str": "a string", "None": "None"}


def _declared_kinds(annotation) -> list[str]:
    """``"float | None"`` (a postponed annotation), ``int`` or ``int | None`` -> ["float", "None"], ["int"], ..."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    return [kind.strip().replace("NoneType", "None") for kind in text.split("|")]


class TrainingConfig(StoredFields, ABC):
    """What every config of the training core has: a ``PIPELINE`` name (:data:`PIPELINES`), a ``task`` (node or
    link, :data:`TASK_METRICS`), a seed-free key naming its folder in the run store (a readable prefix, then a
    hash of the fields; fields in ``KEYED_WHEN_SET`` enter it only when they differ from their default, so fields
    added later never rename stored runs) and a ``batch_key`` (runs with equal keys may train together)."""

    PIPELINE: ClassVar[str] = ""
    #: Whether runs end before their epoch budget (early stopping; the plan then charges the epochs they run).
    STOPS_EARLY: ClassVar[bool] = False
    #: Fields added after the first stored runs: they enter :meth:`key` only when they differ from their default,
    #: so every run stored before a field existed keeps its key (and its folder in the run store).
    KEYED_WHEN_SET: ClassVar[tuple[str, ...]] = ()
    #: Metrics every stored run of the pipeline holds besides ``test_``/``val_`` + :attr:`metric` and ``epoch``
    #: (checked when a run is read back).
    STORED_METRICS: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self):
        """The config's own checks (:meth:`check_values`), then every field's declared type: a value of the wrong
        type that one of those checks compares (``lr='fast'``) is named as such instead of a TypeError from deep
        inside the comparison, and one that no check reads (a flag given as a string) is refused, not read as
        True."""
        try:
            self.check_values()
        except TypeError:
            self.check_field_types()
            raise
        self.check_field_types()

    @abstractmethod
    def check_values(self) -> None:
        """Refuse (ValueError naming the field and its allowed range) a value the pipeline cannot run with; may
        normalise fields (``object.__setattr__``)."""

    def check_field_types(self) -> None:
        """Each field holds a value of the type it declares (ValueError naming the field otherwise)."""
        for f in fields(self):
            value = getattr(self, f.name)
            kinds = _declared_kinds(f.type)
            if not any(_FITS.get(kind, lambda v: True)(value) for kind in kinds):
                raise ValueError(f"{f.name} must be {' or '.join(_KIND_WORDS.get(k, k) for k in kinds)}, "
                                 f"got {value!r}")

    @property
    def metric(self) -> str:
        """The suffix of the run's score names: ``acc`` (node accuracy) or ``auc`` (link ROC-AUC)."""
        return TASK_METRICS[self.task]

    def without_seed(self):
        return replace(self, seed=0)

    def keyed_fields(self) -> dict:
        """The seedless fields that name the configuration: all of them, less the :data:`KEYED_WHEN_SET` ones
        that hold their default."""
        defaults = {f.name: f.default for f in fields(self) if f.default is not MISSING}
        body = self.without_seed().to_dict()
        return {name: value for name, value in body.items()
                if name not in self.KEYED_WHEN_SET or value != defaults[name]}

    @abstractmethod
    def key_prefix(self) -> str:
        """The readable start of :meth:`key`."""

    def key(self) -> str:
        """A short stable name of the configuration (seed excluded): readable prefix + content hash."""
        body = json.dumps(self.keyed_fields(), sort_keys=True)
        return f"{self.key_prefix()}-{hashlib.sha256(body.encode()).hexdigest()[:10]}"

    @abstractmethod
    def batch_key(self) -> tuple:
        """Configs with equal keys travel in one sweep task (and, where the pipeline batches, train together)."""


def batch_key(config: TrainingConfig) -> tuple:
    """``config.batch_key()`` as a plain function (a sweep's grouping for any mix of pipelines)."""
    return config.batch_key()


@dataclass(frozen=True)
class RunConfig(TrainingConfig):
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
        objective: ``cross_entropy``, ``forward`` (forward correction), ``drop`` (lpgnn A4) or ``saturating``
            (-log(softmax + 1e-20), PPGNN's released loss: zero gradient once the softmax underflows).
        selection: ``val_loss`` (lowest validation loss, lpgnn §6.2), ``ccs`` (lpgnn A5) or ``all_improve``
            (validation loss, validation accuracy and training accuracy all improve: PPGNN's released rule).
        lr, weight_decay, epochs: Adam settings, full batch.
        split_seed: the one random 50/25/25 split per dataset (lpgnn §6.4, U9); runs vary ``seed`` only.
        split_rule: how that split is drawn from ``split_seed`` (:data:`SPLIT_RULES`).
        seed: the run's seed; every random stream of the run is derived from it (``ldp_audit.seeding.rng_for``).
        ppm_levels, ppm_gamma: PPGNN's h levels with budgets eps^tau = 2^(tau-1) eps_x and its split gamma of a
            user's budget between the level report (ESW) and the features (MLR) (ppgnn A4, A8; h = 1 .. 16,
            gamma in (0, 1)); used by the personalised mechanisms only.
        level_distribution: how users' levels are drawn (:data:`LEVEL_DISTRIBUTIONS`, ppgnn Sec. IV-C).
        ppm_variant: ``spec`` or ``released`` (:data:`PPM_VARIANTS`), PPM runs only (:data:`ACTS_ON`).
        gaussian_baseline: ``per_coordinate`` or ``analytic_l2`` (:data:`GAUSSIAN_BASELINES`), GM runs only.
        propagation: ``auto``, ``kprop`` or ``flexprop`` (:data:`PROPAGATIONS`).
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
    # ----- PPGNN (issue 25): levels, split, level distribution, propagation. Listed in KEYED_WHEN_SET, so runs
    # stored before these fields existed keep their keys; the defaults are the paper's (ppgnn A8, spec 7.2-7.4).
    ppm_levels: int = 5
    ppm_gamma: float = 0.5
    level_distribution: str = "uniform"
    propagation: str = "auto"
    # ----- LPGNN (issue 25): the labelled fraction of the training split (Fig. 7), keyed only when set.
    train_fraction: float = 1.0
    # ----- PPGNN's released protocol (issue 26): the released PPM and LPGNN's Gaussian baseline, keyed only when set.
    ppm_variant: str = "spec"
    gaussian_baseline: str = "per_coordinate"
    # ----- issue 26: the LPGNN authors' split draw (released protocol), keyed only when set.
    split_rule: str = "spec"

    def check_values(self):
        if not isinstance(self.dataset, str) or not self.dataset:
            raise ValueError(f"dataset must be a dataset name, got {self.dataset!r}")
        object.__setattr__(self, "dataset", self.dataset.lower())
        _choice("features", self.features, FEATURE_SOURCES)
        _choice("model", self.model, MODELS)
        _choice("objective", self.objective, OBJECTIVES)
        _choice("selection", self.selection, SELECTIONS)
        _choice("aggregator", self.aggregator, AGGREGATORS)
        _choice("split_rule", self.split_rule, SPLIT_RULES)
        if self.split_rule == "released":
            from .released_splits import RELEASED_ORDER

            if self.dataset not in dict(RELEASED_ORDER):
                raise ValueError(f"split_rule='released' is the LPGNN code's split of "
                                 f"{', '.join(name for name, _ in RELEASED_ORDER)}; got dataset {self.dataset!r}")
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
        self._check_ppgnn_fields()
        if isinstance(self.train_fraction, bool) or not isinstance(self.train_fraction, (int, float)) or \
                not 0.0 < self.train_fraction <= 1.0:
            raise ValueError(f"train_fraction must lie in (0, 1] (the fraction of the training split that is "
                             f"labelled; 1 keeps all of it), got {self.train_fraction!r}")
        object.__setattr__(self, "train_fraction", float(self.train_fraction))
        if self.objective != "drop" and self.k_y:
            raise ValueError(f"k_y is the Drop objective's label propagation; objective={self.objective!r} "
                             "needs k_y=0")

    def _check_ppgnn_fields(self) -> None:
        _int_at_least("ppm_levels", self.ppm_levels, 1)
        if self.ppm_levels > MAX_PPM_LEVELS:
            raise ValueError(f"ppm_levels must be an integer in [1, {MAX_PPM_LEVELS}], got {self.ppm_levels!r}")
        if isinstance(self.ppm_gamma, bool) or not (isinstance(self.ppm_gamma, (int, float))
                                                    and 0.0 < self.ppm_gamma < 1.0):
            raise ValueError(f"ppm_gamma must lie in the open interval (0, 1), got {self.ppm_gamma!r}")
        object.__setattr__(self, "ppm_gamma", float(self.ppm_gamma))
        _choice("level_distribution", self.level_distribution, LEVEL_DISTRIBUTIONS)
        _choice("propagation", self.propagation, PROPAGATIONS)
        _choice("ppm_variant", self.ppm_variant, PPM_VARIANTS)
        _choice("gaussian_baseline", self.gaussian_baseline, GAUSSIAN_BASELINES)
        for name, mechanisms in ACTS_ON.items():
            if self.eps_x is None or self.mechanism not in mechanisms:
                object.__setattr__(self, name, _DEFAULTS[name])

    #: Fields added after the first stored runs: they enter :meth:`key` only when they differ from their default,
    #: so every run stored before a field existed keeps its key (and its folder in the run store).
    KEYED_WHEN_SET: ClassVar[tuple[str, ...]] = (
        "ppm_levels", "ppm_gamma", "level_distribution", "propagation",  # PPGNN (issue 25)
        "train_fraction",  # LPGNN Fig. 7 (issue 25)
        "ppm_variant", "gaussian_baseline",  # PPGNN's released protocol (issue 26)
        "split_rule",  # LPGNN's released split (issue 26)
    )

    # ----- identity ------------------------------------------------------------------------------------------
    PIPELINE: ClassVar[str] = "gnn"
    STORED_METRICS: ClassVar[tuple[str, ...]] = ("val_loss", "train_acc", "test_acc_best")

    @property
    def task(self) -> str:
        """LPGNN and PPGNN classify nodes."""
        return "node"

    def key_prefix(self) -> str:
        eps = "inf" if self.eps_x is None else f"{self.eps_x:g}"
        epsy = "inf" if self.eps_y is None else f"{self.eps_y:g}"
        return f"{self.model}-{self.features}-ex{eps}-ey{epsy}-kx{self.k_x}-ky{self.k_y}-{self.objective}"

    def batch_key(self) -> tuple:
        """What decides a run's model shape and training schedule: configs with equal keys may train together as
        one stacked model (``batched.train_batch``). Seeds, budgets, mechanisms, feature sources and propagation
        differ freely inside a batch; a run's result never depends on its batch mates. A run with a training
        subset (``train_fraction`` < 1) draws it from its own seed, and a batch shares one set of training nodes,
        so such runs batch only with runs of their seed and fraction."""
        key = (self.dataset, self.split_seed, self.split_rule, self.model, self.hidden, self.dropout, self.objective,
               self.k_y, self.lr, self.weight_decay, self.epochs)
        return key if self.train_fraction == 1.0 else key + (self.train_fraction, self.seed)

    def perturbation_key(self) -> tuple:
        """What decides the (memoised) node features: two runs with equal keys share one perturbation."""
        return (self.dataset, self.features, self.mechanism if self.eps_x is not None else None, self.eps_x,
                self.m if self.eps_x is not None else None, self.seed) + self._ppgnn_perturbation_key()

    def _ppgnn_perturbation_key(self) -> tuple:
        """The PPGNN fields that change a run's reports, appended only when set (other runs' keys unchanged)."""
        return tuple((name, getattr(self, name)) for name in ("ppm_levels", "ppm_gamma", "level_distribution",
                                                              "ppm_variant", "gaussian_baseline")
                     if self.eps_x is not None and getattr(self, name) != _DEFAULTS[name])


_DEFAULTS = {f.name: f.default for f in fields(RunConfig) if f.default is not MISSING}
