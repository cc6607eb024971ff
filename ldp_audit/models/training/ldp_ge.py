"""LDP-GE / PrivGE end to end (ldp-ge spec A1, A3-A6, §7): perturb once, push-propagate, classify.

Client side: every user maps its features into [-1, 1] with the dataset's *public* bounds (A1) and reports once
through HDS (M2) or a baseline (LP, PM, MB: one sampled-coordinate composition each). Server side
(:func:`server_embedding`, :func:`train_on_reports`): it sees the reports, the graph and the labels, never the raw
features (C13); it propagates with the corrected backward push (A3) and trains

* node classification (A5): the authors' MLP (bias-free layers, identity skip when widths match, dropout before
  every layer, ReLU between), Adam, mini-batches over training nodes, early stopping on validation accuracy;
* link prediction (A6): Hadamard product of the two embeddings -> MLP -> sigmoid, the pairwise loss
  sum (1 - (s+ - s-))^2 with one fresh negative per positive per epoch, early stopping on validation AUC, edges
  split 85/5/10 and propagation over the *training* edges only.

``downstream="logreg"`` replaces either MLP by the logistic regression the paper names (spec E14, §9: one linear
layer with a bias, softmax for node classes, sigmoid for a link score; same loss, optimiser and early stopping).
Hyperparameters are the released scripts' per-dataset values (spec §7 table), not re-tuned. ``eps=None`` is the
labelled non-private baseline (eps = inf: normalised raw features, no mechanism).

LDP-GE is a pipeline of the one training core: :class:`LdpGeConfig` is a ``TrainingConfig`` (its ``task`` is node
or link), a run is a ``RunResult`` (scores ``test_acc``/``val_acc`` or ``test_auc``/``val_auc``) kept in the
``RunStore``, and sweeps go through ``sweep.run_sweep`` with the core's runner (``train.train_configs``).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, ClassVar, NamedTuple

import numpy as np
from scipy import sparse
from scipy.stats import rankdata

from ... import streams
from ...seeding import rng_for
from .. import data as datasets
from ..perturbation import as_dense, server_estimates, unit_box_mechanism
from ..propagation import PPR, ppr_matched, released_push
from . import runtime
from .config import TrainingConfig
from .ldp_ge_models import DOWNSTREAMS, link_model, node_model
from .store import RunResult

TASKS = ("node", "link")
#: Paper name -> registry name of the feature mechanism (ldp-ge M2-M7).
MECHANISMS = {"HDS": "hds", "LP": "laplace_hd", "PM": "piecewise_hd", "MB": "multibit"}
METHODS = ("push", "power", "auto")
#: The protocol fields' values, the spec's first (issue 26, see LdpGeConfig).
PROTOCOL_CHOICES = {"push_threshold": ("absolute", "relative"), "push_signs": ("joint", "split"),
                    "push_leftover": (False, True), "report_units": ("unit", "raw"), "init": ("spec", "released"),
                    "link_graph": ("train", "full"), "feature_rows": ("raw", "l1"),
                    "feature_bounds": ("public", "columns")}
#: Protocol field -> (config field, the values of it under which the field acts). Elsewhere the field has no effect
#: and ``LdpGeConfig`` sets it back to the spec's value, so an identical run keeps one key and an attribution never
#: measures a switch that does nothing. The released push switches act on ``method="push"`` only: "auto" may pick
#: push, but always the spec's push (its cost model and error bound are the spec push's). ``init`` acts on the MLPs
#: only (``logreg`` keeps torch's default initialisation).
ACTS_ON = {"push_threshold": ("method", ("push",)), "push_signs": ("method", ("push",)),
           "push_leftover": ("method", ("push",)), "init": ("downstream", ("mlp",))}

#: Spec §7 table (released scripts, tuned at eps = 1 with HDS):
#: (lr, batch, layers, hidden, dropout, weight decay, alpha, r_max, r, HDS k) per (task, dataset).
SETTINGS = {
    ("node", "cora"): (0.01, 64, 2, 128, 0.7, 5e-4, 0.1, 1e-5, 0.1, 20),
    ("node", "citeseer"): (0.01, 128, 2, 128, 0.7, 5e-4, 0.05, 1e-4, 0.5, 5),
    ("node", "pubmed"): (0.01, 64, 3, 128, 0.5, 0.0, 0.05, 1e-5, 0.1, 1),
    ("node", "lastfm"): (0.01, 16, 2, 64, 0.5, 5e-4, 0.1, 1e-5, 0.1, 5),
    ("node", "facebook"): (0.01, 256, 3, 256, 0.1, 5e-4, 0.05, 1e-5, 0.1, 50),
    ("node", "wikipedia"): (0.01, 16, 2, 64, 0.1, 5e-4, 0.05, 1e-4, 0.1, 20),
    ("link", "cora"): (0.01, 128, 2, 64, 0.3, 0.05, 0.1, 5e-4, 0.5, 1),
    ("link", "citeseer"): (0.01, 128, 2, 64, 0.7, 0.0, 0.1, 1e-4, 0.2, 1),
    ("link", "pubmed"): (0.01, 128, 2, 64, 0.1, 0.0, 0.1, 1e-5, 0.3, 1),
    ("link", "lastfm"): (0.01, 128, 2, 64, 0.7, 0.0, 0.1, 1e-5, 0.1, 1),
    ("link", "facebook"): (0.01, 128, 2, 64, 0.1, 0.0, 0.1, 1e-4, 0.1, 1),
    ("link", "wikipedia"): (0.001, 512, 3, 64, 0.1, 0.0, 0.1, 5e-5, 0.5, 3),
}
#: Spec §9 defaults for datasets the table does not list.
DEFAULT_SETTINGS = {"node": (0.01, 64, 2, 128, 0.5, 5e-4, 0.1, 1e-4, 0.5, 5),
                    "link": (0.01, 128, 2, 64, 0.5, 0.0, 0.1, 1e-4, 0.5, 1)}


def baseline_k(mechanism: str, eps: float, d: int) -> int:
    """k of the baselines in the released code (spec §9): PM floor(eps/2.5), MB floor(eps/2.18), within [1, d];
    LP perturbs every coordinate (k = d)."""
    if mechanism == "LP":
        return d
    step = 2.5 if mechanism == "PM" else 2.18
    return max(1, min(d, math.floor(eps / step)))


def _check(name: str, ok: bool, allowed: str, value) -> None:
    if not ok:
        raise ValueError(f"{name} must be {allowed}, got {value!r}")


@dataclass(frozen=True)
class LdpGeConfig(TrainingConfig):
    """Everything that decides one LDP-GE run. ``k=None``: the paper's k for HDS (§7 table), the released rule for
    PM/MB (:func:`baseline_k`). ``eps=None``: non-private baseline. ``method``: push (A3), power iteration (A2)
    to 1e-10, or auto (the cheapest of push, power and Chebyshev iteration at push's error bound; the result
    records which ran). ``rescale`` (not in the paper): the server divides the reports by :func:`public_scale`, a
    constant fixed by (mechanism, eps, d, k) alone, i.e. post-processing that only conditions the numbers for the
    MLP. ``raw_clear`` (non-private only): the raw feature values instead of their [-1, 1] normalisation, as the
    released code's eps = inf baseline does (it returns the features unchanged). ``downstream``: the released
    ``mlp`` or the paper's ``logreg`` (logistic regression; ``layers``, ``hidden`` and ``dropout`` then unused).

    Protocol fields (issue 26; the spec's value first, the released code's second, see ``protocols``):
    ``push_threshold`` "absolute" | "relative", ``push_signs`` "joint" | "split" and ``push_leftover`` False |
    True describe the push (:func:`~ldp_audit.models.propagation.released_push`; they act when ``method`` is
    "push" only and are set back to the spec's values otherwise, :data:`ACTS_ON`); ``report_units`` "unit" |
    "raw": the server holds the estimates in [-1, 1] units, or mapped back to raw units on the sampled
    coordinates and 0 elsewhere (:func:`in_report_units`); ``init`` "spec" | "released": the MLP's initial
    weights (:func:`~.ldp_ge_models.initialise`; always "spec" with ``logreg``); ``link_graph`` "train" |
    "full": link propagation over the training edges only, or over every edge (held-out edges leak; a hypothesis
    about the released preprocessed adjacency, not part of any preset). Two more hypotheses about the released
    link feature file, not part of any preset: ``feature_rows`` "raw" | "l1" (:func:`row_normalised`) and
    ``feature_bounds`` "public" | "columns" (:func:`unit_features`). ``structure_only`` (a control, not in the
    paper): every user reports on random features instead of its own (:func:`structure_only_graph`), so the
    server's embedding holds the graph and noise and nothing of the data."""

    PIPELINE: ClassVar[str] = "ldp-ge"
    STOPS_EARLY: ClassVar[bool] = True  # patience epochs without a better validation score
    STORED_METRICS: ClassVar[tuple[str, ...]] = ("epochs_run",)
    #: Off by default and in the key only when on, so the runs stored before these fields keep their folders.
    KEYED_WHEN_SET: ClassVar[tuple[str, ...]] = ("rescale", "raw_clear", "downstream", "push_threshold",
                                                 "push_signs", "push_leftover", "report_units", "init",
                                                 "link_graph", "feature_rows", "feature_bounds", "structure_only")

    dataset: str
    task: str = "link"
    mechanism: str = "HDS"
    eps: float | None = 1.0
    k: int | None = None
    alpha: float = 0.1
    r: float = 0.5
    r_max: float = 1e-4
    method: str = "push"
    layers: int = 2
    hidden: int = 64
    dropout: float = 0.5
    lr: float = 0.01
    weight_decay: float = 0.0
    batch: int = 128
    epochs: int = 1000
    patience: int = 50
    split_seed: int = 12345
    seed: int = 0
    rescale: bool = False
    raw_clear: bool = False
    downstream: str = "mlp"
    push_threshold: str = "absolute"
    push_signs: str = "joint"
    push_leftover: bool = False
    report_units: str = "unit"
    init: str = "spec"
    link_graph: str = "train"
    feature_rows: str = "raw"
    feature_bounds: str = "public"
    structure_only: bool = False

    def check_values(self):
        _check("dataset", isinstance(self.dataset, str) and bool(self.dataset), "a dataset name", self.dataset)
        object.__setattr__(self, "dataset", self.dataset.lower())
        _check("task", self.task in TASKS, " or ".join(TASKS), self.task)
        _check("mechanism", self.mechanism in MECHANISMS, "one of " + ", ".join(MECHANISMS), self.mechanism)
        _check("method", self.method in METHODS, " or ".join(METHODS), self.method)
        _check("downstream", self.downstream in DOWNSTREAMS, " or ".join(DOWNSTREAMS), self.downstream)
        for name, allowed in PROTOCOL_CHOICES.items():
            _check(name, getattr(self, name) in allowed, " or ".join(map(repr, allowed)), getattr(self, name))
        for name, (field, acting) in ACTS_ON.items():
            if getattr(self, field) not in acting:
                object.__setattr__(self, name, PROTOCOL_CHOICES[name][0])
        if self.eps is not None and math.isinf(self.eps) and self.eps > 0:
            object.__setattr__(self, "eps", None)
        _check("eps", self.eps is None or (math.isfinite(self.eps) and self.eps > 0), "> 0 (or inf)", self.eps)
        _check("raw_clear", not self.raw_clear or self.eps is None, "False unless eps is inf (non-private)",
               self.raw_clear)
        _check("structure_only", isinstance(self.structure_only, bool), "True or False", self.structure_only)
        _check("k", self.k is None or (isinstance(self.k, int) and self.k >= 1), "an integer >= 1", self.k)
        _check("alpha", 0 < self.alpha < 1, "in (0, 1)", self.alpha)
        _check("r", 0 <= self.r <= 1, "in [0, 1]", self.r)
        _check("r_max", self.r_max > 0 and math.isfinite(self.r_max), "> 0", self.r_max)
        _check("dropout", 0 <= self.dropout < 1, "in [0, 1)", self.dropout)
        _check("lr", self.lr > 0 and math.isfinite(self.lr), "> 0", self.lr)
        _check("weight_decay", self.weight_decay >= 0, ">= 0", self.weight_decay)
        for name, low in (("layers", 1), ("hidden", 1), ("batch", 1), ("epochs", 1), ("patience", 1),
                          ("seed", 0), ("split_seed", 0)):
            value = getattr(self, name)
            _check(name, isinstance(value, int) and not isinstance(value, bool) and value >= low,
                   f"an integer >= {low}", value)

    @property
    def clear_is_raw(self) -> bool:
        """Whether this is a non-private run on the raw feature values: ``raw_clear``, or raw report units
        without a mechanism (the released code returns the features unchanged at eps = inf)."""
        return self.eps is None and (self.raw_clear or self.report_units == "raw")

    def key_prefix(self) -> str:
        eps = "inf" if self.eps is None else f"{self.eps:g}"
        return f"{self.task}-{self.mechanism}-eps{eps}"

    def batch_key(self) -> tuple:
        """LDP-GE runs train one by one (they stop early at different epochs): each run is its own sweep task."""
        return (self.PIPELINE, self.dataset, self.key(), self.seed)

    def caveats(self) -> dict[str, str]:
        """{field=value: why}: the hypothesis settings under which the run is not what its row's name says, a
        private run under LDP with a leak-free evaluation (empty for every preset's run)."""
        found = {}
        if self.feature_bounds == "columns" and self.eps is not None:
            found["feature_bounds=columns"] = (
                "not LDP: each feature column is mapped by its own minimum and maximum over all users (the released "
                "MinMaxScaler), so every user's report depends on every other user's features")
        if self.structure_only:
            found["structure_only=True"] = ("a control: every user reports on i.i.d. uniform features, not its own, "
                                            "so the score comes from the graph alone")
        if self.link_graph == "full" and self.task == "link":
            found["link_graph=full"] = ("the link propagation runs over every edge, the held-out test edges "
                                        "included: the AUC is optimistic")
        return found

    def sampled(self, d: int) -> int | None:
        """The k the mechanism runs with on d features (None when unperturbed). A k given by the user must not
        exceed d: sampling more coordinates than there are is refused, never clamped in silence."""
        if self.eps is None:
            return None
        if self.k is not None:
            if self.k > d:
                raise ValueError(f"k must be an integer in [1, {d}] (the {d} features of {self.dataset}), "
                                 f"got {self.k}")
            return self.k
        if self.mechanism == "HDS":
            return min(d, SETTINGS.get((self.task, self.dataset), DEFAULT_SETTINGS[self.task])[9])
        return baseline_k(self.mechanism, self.eps, d)


def public_scale(mechanism: str, eps: float, d: int, k: int) -> float:
    """The size of one report's entries, from public parameters only: the largest |estimate| for MB,
    (d/k) coth(eps/2k) (M7), and PM, (d/k) s' (M5); the Laplace scale 2d/eps for LP (M3); 1 for HDS, whose
    outputs already lie in [-1 - b', 1 + b'] (M2)."""
    if mechanism == "MB":
        return d / k / math.tanh(eps / (2 * k))
    if mechanism == "PM":
        t = math.exp(eps / (2 * k))
        return d / k * (t + 1) / (t - 1)
    if mechanism == "LP":
        return 2 * d / eps
    return 1.0


def preset(dataset: str, task: str, **changes) -> LdpGeConfig:
    """The spec §7 settings of (task, dataset), with ``changes`` on top."""
    name = dataset.lower()
    _check("task", task in TASKS, " or ".join(TASKS), task)
    lr, batch, layers, hidden, dropout, wd, alpha, r_max, r, _ = SETTINGS.get((task, name), DEFAULT_SETTINGS[task])
    base = dict(dataset=name, task=task, lr=lr, batch=batch, layers=layers, hidden=hidden, dropout=dropout,
                weight_decay=wd, alpha=alpha, r_max=r_max, r=r)
    return LdpGeConfig(**{**base, **changes})


# ------------------------------------------------------------------------------------------------- client side

def client_reports(graph: datasets.Graph, config: LdpGeConfig, rng: np.random.Generator) -> np.ndarray:
    """What the users send: x in [-1, 1]^d by public bounds (A1), then one report each (M2-M7); dense (n, d).
    The only function of the pipeline that reads raw features. ``raw_clear`` (or ``report_units="raw"`` without
    a mechanism): the raw values, unperturbed; ``report_units="raw"``: the estimates in raw units
    (:func:`in_report_units`). ``structure_only``, ``feature_rows`` and ``feature_bounds`` act before anything
    else."""
    graph = row_normalised(structure_only_graph(graph, config, rng), config)
    if config.clear_is_raw:
        return as_dense(graph.x)
    x, bounds = unit_features(graph, config)
    k = config.sampled(x.shape[1])
    if k is None:
        return x
    mechanism = unit_box_mechanism(MECHANISMS[config.mechanism], config.eps, x.shape[1],
                                   None if config.mechanism == "LP" else k)
    return in_report_units(as_dense(server_estimates(mechanism, x, rng)), config, bounds)


def structure_only_graph(graph: datasets.Graph, config: LdpGeConfig, rng: np.random.Generator) -> datasets.Graph:
    """``graph`` with every feature row replaced by i.i.d. uniform values over the dataset's public feature range
    when ``config.structure_only`` (drawn from the run's feature stream before the mechanism's noise), else
    unchanged: the structure-only control of LDP-GE, as GCN+RND is LPGNN's (lpgnn §6.4). Its reports are the
    mechanism's on data that no user holds, so whatever it scores above chance comes from the graph's edges."""
    if not config.structure_only:
        return graph
    lo, hi = graph.feature_range
    return replace(graph, x=sparse.csr_matrix(rng.uniform(lo, hi, size=(graph.num_nodes, graph.num_features))))


def row_normalised(graph: datasets.Graph, config: LdpGeConfig) -> datasets.Graph:
    """``graph`` with each feature row divided by its L1 norm when ``config.feature_rows`` is "l1" (a row of zeros
    stays zero), else unchanged. A hypothesis about the released link feature file (PrivGE@9ac59a9 datasets.py:29-35
    reads ``<name>_link_feat.npy``, a file of its own that is not in the repository): the repository defines this
    normalisation (utils.py:53-63, ``normalize_attributes``) and no released script calls it. The public bounds
    stay valid: an L1-normalised row of features in [0, hi] lies in [0, 1]."""
    if config.feature_rows == "raw":
        return graph
    x = sparse.csr_matrix(graph.features(), dtype=np.float64)
    norms = np.asarray(abs(x).sum(axis=1)).ravel()
    return replace(graph, x=(sparse.diags(1.0 / np.maximum(norms, 1e-12)) @ x).tocsr())


def unit_features(graph: datasets.Graph, config: LdpGeConfig) -> tuple[np.ndarray, tuple]:
    """The features in [-1, 1] and the bounds (lo, hi) that mapped them. ``feature_bounds="public"``: the
    dataset's public bounds (A1). "columns": each column's minimum and maximum over the data, as the released
    ``MinMaxScaler`` does (PrivGE@9ac59a9 mechanisms.py:7-22; not LDP, since every user's bound depends on every
    other user's data), a constant column keeping its raw value (clipped into [-1, 1]). The two agree on binary
    columns that hold a 0 and a 1; they differ on scaled data, e.g. L1-normalised rows (:func:`row_normalised`),
    whose column maxima are far below 1, so that raw report units shrink with them."""
    if config.feature_bounds == "public":
        return graph.normalized_features(clip=True), graph.feature_range
    x = as_dense(graph.features()).astype(np.float64)
    lo, hi = x.min(axis=0), x.max(axis=0)
    constant = hi == lo
    unit = np.where(constant, np.clip(x, -1.0, 1.0), 2.0 * (x - lo) / np.where(constant, 1.0, hi - lo) - 1.0)
    return unit, (lo, hi)


def in_report_units(estimates: np.ndarray, config: LdpGeConfig, bounds: tuple) -> np.ndarray:
    """The estimates in the units ``config.report_units`` asks for. "unit": unchanged ([-1, 1] units, the spec).
    "raw": the released code's s * recover(x') (PrivGE@9ac59a9 mechanisms.py:21-22, 43, 67, 109, 150): every
    sampled coordinate mapped back by x -> (x + 1) (hi - lo) / 2 + lo, every unsampled one left at 0 (not at the
    raw value that 0 stands for), every coordinate for LP, which samples none. Sampled coordinates are the
    nonzero estimates (MB's are +-C, PM's and HDS's continuous). ``bounds`` are :func:`unit_features`' (lo, hi),
    two floats or one per column. The released code takes them from the data's column minima and maxima
    (PrivGE@9ac59a9 mechanisms.py:7-22, ``feature_bounds="columns"``); the public bounds are the default. The two
    agree on a binary column only where it holds both a 0 and a 1: a constant column has max - min = 0 there, so
    the released code keeps its raw value when mapping in and recovers its minimum whatever the estimate (one of
    Cora's 1,433 columns is all zero; none of CiteSeer's 3,703 is constant)."""
    if config.report_units == "unit":
        return estimates
    lo, hi = bounds
    raw = (estimates + 1.0) * (hi - lo) / 2.0 + lo
    return raw if config.mechanism == "LP" else np.where(estimates != 0.0, raw, 0.0)


def conditioned(reports: np.ndarray, config: LdpGeConfig) -> np.ndarray:
    """The reports the server trains on: divided by :func:`public_scale` when ``config.rescale`` (post-processing)."""
    k = config.sampled(reports.shape[1])
    if not config.rescale or k is None:
        return reports
    return reports / public_scale(config.mechanism, config.eps, reports.shape[1], k)


# ------------------------------------------------------------------------------------------------- server side

def server_embedding(reports: np.ndarray, adjacency, config: LdpGeConfig, info: dict | None = None) -> np.ndarray:
    """Z~ = Pi X~ (A2/A3) from the reports and the graph only (C13). ``method="auto"``: push, power or Chebyshev
    iteration at push's error bound, whichever is predicted cheapest (:func:`~ldp_audit.models.propagation.ppr_matched`).
    With ``method="push"`` and any of the released push fields set, the push is
    :func:`~ldp_audit.models.propagation.released_push` with those switches. ``info``, when given, receives the
    method that ran (and for auto its work, bound and predicted costs)."""
    switches = _released_push_options(config)
    if any(switches):  # set only with method="push" (ACTS_ON)
        z = released_push(adjacency, reports, config.alpha, config.r, config.r_max, *switches).z
        detail = {"method": config.method}
    elif config.method != "auto":
        z = PPR(config.alpha, config.r, config.method, config.r_max).apply(adjacency, reports)
        detail = {"method": config.method}
    else:
        out = ppr_matched(adjacency, reports, config.alpha, config.r, config.r_max)
        z = out.z
        detail = {"method": out.method, "work": out.work, "error_bound": float(out.error_bound.max(initial=0.0)),
                  "predicted_costs": out.costs}
    if info is not None:
        info.update(detail)
    return z


def _released_push_options(config: LdpGeConfig) -> tuple[bool, bool, bool]:
    """(relative threshold, split signs, leftover residue) of ``config``'s push."""
    return config.push_threshold == "relative", config.push_signs == "split", config.push_leftover


def auc(positive_scores, negative_scores) -> float:
    """ROC-AUC as the Mann-Whitney statistic: P(s+ > s-) + P(s+ = s-)/2, from mid-ranks (ties averaged)."""
    pos, neg = np.asarray(positive_scores, float).ravel(), np.asarray(negative_scores, float).ravel()
    if pos.size == 0 or neg.size == 0:
        raise ValueError("auc needs at least one positive and one negative score")
    ranks = rankdata(np.concatenate([pos, neg]))
    return float((ranks[:pos.size].sum() - pos.size * (pos.size + 1) / 2) / (pos.size * neg.size))


def sample_non_edges(num_nodes: int, edge_keys: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` uniform pairs (u != v) that are not edges (``edge_keys``: sorted u*n+v with u < v); (2, count)."""
    out = np.empty((2, 0), dtype=np.int64)
    while out.shape[1] < count:
        u, v = rng.integers(0, num_nodes, size=(2, 2 * (count - out.shape[1]) + 8))
        lo, hi = np.minimum(u, v), np.maximum(u, v)
        keys = lo * num_nodes + hi
        pos = np.searchsorted(edge_keys, keys)
        is_edge = edge_keys[np.minimum(pos, edge_keys.size - 1)] == keys if edge_keys.size else np.zeros_like(u, bool)
        keep = (u != v) & ~is_edge
        out = np.hstack([out, np.stack([lo[keep], hi[keep]])])
    return out[:, :count]


def _early_stopping(config: LdpGeConfig, epoch_step: Callable[[], None], evaluate: Callable[[], tuple]):
    """Run epochs until ``patience`` epochs without a better validation score; the scores at the best one (named
    by the task's metric, e.g. ``val_auc``, ``test_auc``) and the validation curve."""
    best, best_epoch, curve = None, 0, []
    for epoch in range(config.epochs):
        epoch_step()
        val, test = evaluate()
        curve.append(round(val, 6))
        if best is None or val > best[0]:
            best, best_epoch = (val, test), epoch
        elif epoch - best_epoch >= config.patience:
            break
    metric = config.metric
    return {f"val_{metric}": best[0], f"test_{metric}": best[1], "epoch": best_epoch, "epochs_run": len(curve)}, \
        {f"val_{metric}": curve}


class Training(NamedTuple):
    """A task ready to train: the MLP, the embedding it reads (a float32 tensor), one epoch (``epoch_step()``), the
    (validation, test) score now (``evaluate()``) and the MLP's inputs on the validation set
    (``validation_inputs()``: the validation nodes' embedding rows, or the Hadamard features of the held-out
    validation edges, the positive pairs only)."""

    model: Any
    embedding: Any
    epoch_step: Callable[[], None]
    evaluate: Callable[[], tuple]
    validation_inputs: Callable[[], Any]


def _node_training(z, graph: datasets.Graph, config: LdpGeConfig, torch_rng, device: str) -> Training:
    import torch
    import torch.nn.functional as F

    if graph.y is None:
        raise ValueError(f"dataset {graph.name!r} has no node labels for --task node")
    train, val, test = (torch.as_tensor(p, device=device) for p in
                        datasets.node_split(graph.num_nodes, config.split_seed))
    x = torch.as_tensor(z, dtype=torch.float32, device=device)
    y = torch.as_tensor(graph.y, dtype=torch.long, device=device)
    model = node_model(x.shape[1], graph.num_classes, config.downstream, config.layers, config.hidden,
                       config.dropout, config.init).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)

    def epoch_step():
        model.train()
        for chunk in train[torch.randperm(train.numel(), generator=torch_rng).to(device)].split(config.batch):
            optimizer.zero_grad()
            F.cross_entropy(model(x[chunk]), y[chunk]).backward()
            optimizer.step()

    def evaluate():
        model.eval()
        with torch.no_grad():
            predicted = model(x).argmax(dim=1)
        return tuple(float((predicted[p] == y[p]).float().mean()) for p in (val, test))

    return Training(model, x, epoch_step, evaluate, lambda: x[val])


def _link_training(z, split: datasets.EdgeSplit, num_nodes: int, config: LdpGeConfig, torch_rng, rng,
                   device: str) -> Training:
    import torch

    x = torch.as_tensor(z, dtype=torch.float32, device=device)
    model = link_model(x.shape[1], config.downstream, config.layers, config.hidden, config.dropout,
                       config.init).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    positives = torch.as_tensor(split.train_pos, device=device)
    train_keys = np.sort(split.train_pos[0] * num_nodes + split.train_pos[1])

    def score(pairs):
        """Scores of node pairs (2, m) from their Hadamard features. ``index_select`` gives the same rows as
        indexing at half the CPU time (a PubMed link run of 60 epochs: 54.9 CPU-s against 59.0)."""
        return model(x.index_select(0, pairs[0]) * x.index_select(0, pairs[1])).squeeze(1)

    def epoch_step():
        model.train()
        negatives = torch.as_tensor(sample_non_edges(num_nodes, train_keys, positives.shape[1], rng), device=device)
        order = torch.randperm(positives.shape[1], generator=torch_rng).to(device)
        for chunk in order.split(config.batch):
            optimizer.zero_grad()
            ((1.0 - (score(positives[:, chunk]) - score(negatives[:, chunk]))) ** 2).sum().backward()
            optimizer.step()

    def evaluate():
        model.eval()
        with torch.no_grad():
            return tuple(auc(score(torch.as_tensor(p, device=device)).cpu().numpy(),
                             score(torch.as_tensor(n, device=device)).cpu().numpy())
                         for p, n in ((split.val_pos, split.val_neg), (split.test_pos, split.test_neg)))

    validation_edges = torch.as_tensor(split.val_pos, device=device)
    return Training(model, x, epoch_step, evaluate,
                    lambda: x.index_select(0, validation_edges[0]) * x.index_select(0, validation_edges[1]))


def train_on_reports(graph: datasets.Graph, reports: np.ndarray, config: LdpGeConfig, device: str = "cpu",
                     info: dict | None = None) -> tuple[dict, dict]:
    """The server's whole job (C13): it is handed the reports, the edges and the labels; ``graph.x`` is never read.
    Propagation runs on the CPU (numpy/scipy), the MLP on ``device``. Returns the metrics at the epoch chosen on
    validation (``val_acc``/``test_acc`` or ``val_auc``/``test_auc``, fractions in [0, 1]) and the validation
    curve ({name: values}); ``info``, when given, receives what the propagation did (:func:`server_embedding`)."""
    task = training(graph, reports, config, device, info)
    return _early_stopping(config, task.epoch_step, task.evaluate)


def training(graph: datasets.Graph, reports: np.ndarray, config: LdpGeConfig, device: str = "cpu",
             info: dict | None = None) -> Training:
    """The task of :func:`train_on_reports` up to its epochs (:class:`Training`): the same seeds, split,
    propagation and MLP, for a caller that looks inside the model between epochs (e.g.
    ``benchmarks/ldp_ge_dead_units.py``). Node runs propagate over the whole graph, link runs over
    ``config.link_graph``."""
    reports, torch_rng = conditioned(reports, config), _seeded_torch(config)
    if config.task == "node":
        z = server_embedding(reports, graph.adjacency, config, info)
        return _node_training(z, graph, config, torch_rng, device)
    split = datasets.edge_split(graph, config.split_seed)
    propagated_over = split.train_graph if config.link_graph == "train" else graph
    z = server_embedding(reports, propagated_over.adjacency, config, info)
    return _link_training(z, split, graph.num_nodes, config, torch_rng, rng_for(config.seed, *streams.LABELS.key()),
                          device)


def _seeded_torch(config: LdpGeConfig):
    """The run's batch-order generator; torch's global generator seeded for the MLP's initial weights."""
    import torch

    torch_rng = torch.Generator().manual_seed(runtime.torch_seed(config.seed, *streams.INIT.key()))
    torch.manual_seed(runtime.torch_seed(config.seed, *streams.INIT_LINK.key()))
    return torch_rng


def run_ldp_ge(config: LdpGeConfig, graph: datasets.Graph | None = None, data_dir=None, cache_dir=None,
               device: str = "cpu") -> RunResult:
    """Load, perturb once (client side), train (server side) with the MLP on ``device`` (cpu or cuda; the
    propagation is always numpy on the CPU); deterministic per config on CPU."""
    device = runtime.choose_device(device)
    started, cpu_started = time.perf_counter(), time.process_time()
    graph = graph if graph is not None else datasets.load(config.dataset, data_dir, cache_dir)
    if graph.x is None:
        raise ValueError(f"dataset {graph.name!r} has no features: {graph.missing_features}")
    reports = client_reports(graph, config, rng_for(config.seed, *streams.FEATURES.key()))
    info: dict = {}
    metrics, curves = train_on_reports(replace(graph, x=None), reports, config, device, info)
    extra = {"propagation": info.pop("method"), "propagation_detail": info, "k": config.sampled(reports.shape[1]),
             "cpu_time_s": round(time.process_time() - cpu_started, 3), "private": config.eps is not None}
    return RunResult(config, metrics, curves, device, runtime.device_name(device), runtime.versions(),
                     round(time.perf_counter() - started, 3), extra)


def train_group(configs: list, device: str | None, cache, stop=None) -> list[RunResult]:
    """LDP-GE's runner (``config.RUNNERS``): :func:`run_ldp_ge` for each config in order, on graphs from the
    worker's cache, ending after the run in progress once ``stop`` is set (its runs stop early at different
    epochs, so they do not stack)."""
    def run(config: LdpGeConfig, chosen: str, graphs) -> RunResult:
        return run_ldp_ge(config, graphs.graph(config.dataset), device=chosen)

    return runtime.one_after_another(run, configs, runtime.choose_device(device), cache, stop)


# ------------------------------------------------------------------------------------------------- the grids

QUICK_EPS = (1.0, 5.0)
QUICK_MECHANISMS = ("HDS", "MB")
QUICK_RUNS = 3


#: ``reproduce ldp-ge --full`` (spec §8.2, C21-C23): the paper's datasets (name -> loader), eps grids, 10 runs.
TABLE3_DATASETS = {"cora": "cora", "citeseer": "citeseer", "pubmed": "pubmed", "lastfm": "lastfm",
                   "facebook": "facebook", "wikipedia": "wikipedia"}
QUICK_DATASETS = ("cora",)
FULL_RUNS = 10
TABLE3_MECHANISMS = ("LP", "PM", "MB", "HDS")
TABLE3_EPS = (1.0, 2.0, 3.0, 5.0)
FIG2_EPS = (0.01, 0.1, 1.0, 2.0, 3.0, 5.0)
#: C23's k grid, run with HDS at K_SWEEP_EPS on both tasks (the paper also plots eps = 2 and 3).
K_SWEEP = (1, 3, 5, 10, 20, 30, 50)
K_SWEEP_EPS = 1.0
TABLES = ("table3", "fig2", "ksweep")


@dataclass(frozen=True)
class LdpGeCell:
    """One entry to fill, one config per seed: a Table III cell (``table`` "table3", link), a Fig. 2 point
    ("fig2", node) or a point of the k sweep ("ksweep", either task, ``k`` set)."""

    dataset: str
    task: str
    mechanism: str
    eps: float | None
    configs: tuple
    table: str = "table3"
    k: int | None = None

    @property
    def rescaled(self) -> bool:
        return self.configs[0].rescale

    @property
    def raw_clear(self) -> bool:
        return self.configs[0].raw_clear

    @property
    def name(self) -> str:
        eps = "inf" if self.eps is None else f"{self.eps:g}"
        label = self.mechanism + (" rescaled" if self.rescaled else "") if self.eps is not None else \
            "non-private" + (" raw" if self.raw_clear else "")
        return f"{self.dataset} {self.task} {label}{'' if self.k is None else f' k={self.k}'} eps={eps}"


def _cell(dataset: str, task: str, mechanism: str, eps, runs: int, table: str, k: int | None = None,
          **changes) -> LdpGeCell:
    """A cell of ``runs`` seeds; a sweep k equal to the paper's k runs as k=None, so it shares the other tables'
    runs."""
    default_k = SETTINGS.get((task, dataset), DEFAULT_SETTINGS[task])[9]
    config_k = None if k is None or k == default_k else k
    configs = tuple(preset(dataset, task, mechanism=mechanism, eps=eps, k=config_k, seed=s, **changes)
                    for s in range(runs))
    return LdpGeCell(dataset, task, mechanism if eps is not None else "HDS", eps, configs, table, k)


def full_cells(datasets_: tuple, runs: int = FULL_RUNS, tables: tuple = TABLES, method: str = "auto",
               downstream: str = "mlp") -> list[LdpGeCell]:
    """``reproduce ldp-ge --full``: per dataset, Table III (link: LP/PM/MB/HDS at eps 1, 2, 3, 5, the
    non-private row, and the non-private row on raw features as the released code runs it), Fig. 2 (node: the
    four mechanisms at eps 0.01 ... 5, the non-private row and that row on raw features) and the k sweep (HDS at
    eps = 1, k in K_SWEEP, both tasks);
    propagation ``method`` auto by default (push or power at push's error, whichever is cheaper); every run with
    the ``downstream`` model."""
    cells, common = [], {"method": method, "downstream": downstream}
    for name in datasets_:
        if "table3" in tables:
            cells += [_cell(name, "link", m, eps, runs, "table3", **common)
                      for eps in TABLE3_EPS for m in TABLE3_MECHANISMS]
            cells.append(_cell(name, "link", "HDS", None, runs, "table3", **common))
            cells.append(_cell(name, "link", "HDS", None, runs, "table3", raw_clear=True, **common))
        if "fig2" in tables:
            cells += [_cell(name, "node", m, eps, runs, "fig2", **common)
                      for eps in FIG2_EPS for m in TABLE3_MECHANISMS]
            cells.append(_cell(name, "node", "HDS", None, runs, "fig2", **common))
            cells.append(_cell(name, "node", "HDS", None, runs, "fig2", raw_clear=True, **common))
        if "ksweep" in tables:
            cells += [_cell(name, task, "HDS", K_SWEEP_EPS, runs, "ksweep", k, **common)
                      for task in TASKS for k in K_SWEEP]
    return cells


def quick_cells(runs: int = QUICK_RUNS, dataset: str = "cora", downstream: str = "mlp") -> list[LdpGeCell]:
    """``reproduce ldp-ge --quick``: Cora link prediction at eps in {1, 5} with HDS and MB (and MB with the
    reports rescaled, :func:`public_scale`), and node classification at eps = 1 with HDS and MB; ``runs`` seeds
    each, every run with the ``downstream`` model."""
    cells = []
    for eps in QUICK_EPS:
        for mechanism, rescale in [(m, False) for m in QUICK_MECHANISMS] + [("MB", True)]:
            cells.append(LdpGeCell(dataset, "link", mechanism, eps, tuple(
                preset(dataset, "link", mechanism=mechanism, eps=eps, rescale=rescale, seed=s,
                       downstream=downstream)
                for s in range(runs))))
    for mechanism in QUICK_MECHANISMS:
        cells.append(LdpGeCell(dataset, "node", mechanism, 1.0, tuple(
            preset(dataset, "node", mechanism=mechanism, eps=1.0, seed=s, downstream=downstream)
            for s in range(runs)), "fig2"))
    return cells


#: ``reproduce ldp-ge --quick --protocol ...`` (issue 26): the cells whose gaps the protocols are to explain.
PROTOCOL_EPS = 1.0
PROTOCOL_RUNS = 2


def protocol_cells(runs: int = PROTOCOL_RUNS, dataset: str = "cora", downstream: str = "mlp") -> list[LdpGeCell]:
    """The quick grid of ``--protocol``: link prediction with LP, PM, MB and HDS at eps = PROTOCOL_EPS and the
    non-private row (Table III), node classification with HDS and MB at that eps (Fig. 2); ``runs`` seeds each,
    push propagation, the spec's configs (:func:`under_protocol` turns them into another preset's)."""
    link = [_cell(dataset, "link", m, PROTOCOL_EPS, runs, "table3", downstream=downstream)
            for m in TABLE3_MECHANISMS]
    link.append(_cell(dataset, "link", "HDS", None, runs, "table3", downstream=downstream))
    node = [_cell(dataset, "node", m, PROTOCOL_EPS, runs, "fig2", downstream=downstream) for m in QUICK_MECHANISMS]
    return link + node


def under_protocol(cells: list[LdpGeCell], preset) -> list[LdpGeCell]:
    """``cells`` with every config under ``preset`` (a ``protocols.Protocol`` of the ldp-ge pipeline)."""
    return [replace(cell, configs=tuple(preset.apply(c) for c in cell.configs)) for cell in cells]


def without_repeated_clear(cells: list[LdpGeCell]) -> list[LdpGeCell]:
    """``cells`` less each "non-private raw" cell whose plain non-private twin reads the raw features already
    (raw report units, as in the released preset): the two would train the same run twice."""
    return [cell for cell in cells if not (cell.raw_clear and replace(cell.configs[0], raw_clear=False).clear_is_raw)]

