"""The stages of a private training run, each a small extension point.

A run is: node features (perturbed once per user, lpgnn C11) -> labels (perturbed once, lpgnn B2) ->
propagation (the one propagation face, ``models.propagation``) -> backbone -> objective -> checkpoint selection on
validation. Each stage is a class with one job and one method to fill, the way ``StepPropagation.step_matrix``
is, so that PPGNN (personalised mechanism, FlexProp) plugs in by adding a class to the matching registry rather
than editing the loop. LDP-GE does not: its runs (push embeddings, then a downstream classifier with early
stopping) have a loop of their own in ``ldp_ge.py``, in the same config, store and sweep family.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ... import streams
from ...mechanisms import available, make
from ...seeding import rng_for
from .. import data as datasets
from ..perturbation import as_dense, server_estimates
from ..propagation import FlexProp, KProp, Propagation, StepPropagation, flexprop_weights
from .config import RunConfig


# ----------------------------------------------------------------------------------------------- features

def unit_features(graph: datasets.Graph) -> np.ndarray:
    """The raw features mapped into [0, 1] with the dataset's *public* bounds (lpgnn §6.4 with U13: alpha = 0,
    beta = 1 after a fixed affine map, never min/max of the private data). Dense float64 (n, d)."""
    return (graph.normalized_features(clip=True) + 1.0) / 2.0


def feature_width(graph: datasets.Graph) -> int:
    """d of the dataset: its feature count, or the README's count when the feature file is missing (RND/OHD
    baselines of lpgnn Table 3 use a d-wide input on every dataset); graphs with neither (karate) get
    max degree + 1, enough for one-hot degrees."""
    if graph.num_features:
        return graph.num_features
    info = datasets.DATASETS.get(graph.name)
    if info is None or info.features is None:
        return int(graph.degrees.max(initial=0)) + 1
    return int(info.features)


class Features(ABC):
    """Stage 1: the node feature matrix the server works with, drawn once per run from ``rng``."""

    @abstractmethod
    def node_features(self, graph: datasets.Graph, config: RunConfig, rng: np.random.Generator) -> np.ndarray:
        """(n, d) float array: what the server holds (an LDP estimate for private features)."""


#: Registry parameters a training run fixes beyond eps, d and k. GM of ppgnn Table III: the corrected classical
#: calibration (E1: sensitivity 2, (eps/d, delta/d) per coordinate) with delta = 1e-5 (spec M2, §7.8).
TRAINING_PARAMS = {"gaussian_hd": {"delta": 1e-5, "calibration": "classical"}}
#: delta of LPGNN's released analytic Gaussian baseline (sisaman/LPGNN@02c60f1 mechanisms.py:66).
ANALYTIC_L2_DELTA = 1e-10


def feature_mechanism(config: RunConfig, d: int):
    """The registry mechanism ``config.mechanism`` at budget ``eps_x`` on d coordinates, given only the parameters
    it has: k = ``config.m`` for sampled mechanisms, the input range [0, 1] for those with a range (multi-bit);
    the others (``laplace_hd``, ``gaussian_hd``) work on [-1, 1], and the unit features are mapped to and
    fro (``perturbation.server_estimates``' ``box``). ``gaussian_baseline="analytic_l2"`` gives GM runs LPGNN's
    released ``agm``: one analytic Gaussian on [0, 1]^d with L2 sensitivity sqrt(d) and delta 1e-10
    (sisaman/LPGNN@02c60f1 mechanisms.py:65-117, 163)."""
    if config.gaussian_baseline == "analytic_l2":  # GM runs only (the config resets it elsewhere)
        return make("analytic_gaussian", eps=config.eps_x, delta=ANALYTIC_L2_DELTA, d=d, alpha=0.0, beta=1.0)
    info = next((i for i in available() if i.name == config.mechanism), None)
    if info is None:
        return make(config.mechanism, eps=config.eps_x)  # raises, naming the registry's mechanisms
    accepted = {p.name for p in info.params}
    params = {"eps": config.eps_x, "d": d, **TRAINING_PARAMS.get(config.mechanism, {})}
    if "k" in accepted:
        params["k"] = config.m
    if "alpha" in accepted:
        params.update(alpha=0.0, beta=1.0)
    return make(config.mechanism, **params)


class RawFeatures(Features):
    """The dataset's features; with ``eps_x`` every user reports once through ``config.mechanism`` and the server
    keeps the rectified estimate (lpgnn M1-M2, Eq. 4; ppgnn M1-M4 for Table III's 1B, LP, GM and MB). Raises
    MissingFeaturesError for featureless datasets."""

    def node_features(self, graph, config, rng):
        if config.eps_x is not None and config.mechanism in PERSONALISED_MODES:
            return PersonalisedFeatures().node_features(graph, config, rng)
        x = unit_features(graph)
        if config.eps_x is None:
            return x
        return as_dense(server_estimates(feature_mechanism(config, x.shape[1]), x, rng, box=(0.0, 1.0)))


class RandomFeatures(Features):
    """GCN+RND: i.i.d. U[0, 1] features of the dataset's width (lpgnn §6.4)."""

    def node_features(self, graph, config, rng):
        return rng.random((graph.num_nodes, feature_width(graph)))


class DegreeFeatures(Features):
    """GCN+OHD: one-hot degree with d columns, degrees clamped to d - 1 (lpgnn §6.4)."""

    def node_features(self, graph, config, rng):
        d = feature_width(graph)
        x = np.zeros((graph.num_nodes, d))
        x[np.arange(graph.num_nodes), np.minimum(graph.degrees, d - 1)] = 1.0
        return x


#: ``config.mechanism`` names of PPGNN's personalised mechanisms (ppgnn A4, A7) -> (mode, feature report):
#: Algorithm 3 as printed, corrected (spec C10-C11), and PPM* (Laplace inside MLR, Fig. 4 right).
PERSONALISED_MODES = {"ppm": ("paper", "mlr"), "ppm_corrected": ("corrected", "mlr"),
                      "ppm_star": ("paper", "ppm_star")}


def personalised_mechanism(config: RunConfig, d: int):
    """PPM / PPM* with the run's base budget eps^1 = eps_x, its h levels and split gamma (ppgnn A4, A7, A8);
    ``config.m`` is the sampled-coordinate rule (``"ppgnn"``: Algorithm 2's, PPM*'s worst-case optimum) or a fixed
    count (Fig. 7c). ``config.ppm_variant="released"`` runs PPM as the authors' code does (mode ``released``)."""
    from ...mechanisms.personalised import PersonalisedMechanism

    if config.m != "ppgnn" and (isinstance(config.m, bool) or not isinstance(config.m, int) or config.m < 1):
        raise ValueError(f"m of a personalised mechanism must be 'ppgnn' (the paper's rule) or an integer >= 1, "
                         f"got {config.m!r}")
    mode, feature = PERSONALISED_MODES[config.mechanism]
    mode = "released" if config.ppm_variant == "released" else mode
    return PersonalisedMechanism(config.eps_x, d, config.ppm_levels, config.ppm_gamma, mode, feature,
                                 None if config.m == "ppgnn" else config.m)


def draw_levels(distribution: str, h: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """The users' levels tau in {1..h} (ppgnn A8, Sec. IV-C): ``uniform`` i.i.d. (spec 7.3), ``strict`` all 1 (the
    smallest budget eps), ``relaxed`` all h (the largest budget of the ladder, 2^(h-1) eps; the paper's 2^h eps is
    the literal h+1-element ladder of E7), ``bimodal`` a uniformly random half (floor(n/2) users) at h, the rest 1."""
    if distribution == "uniform":
        return rng.integers(1, h + 1, size=n)
    tau = np.ones(n, dtype=np.int64)
    if distribution == "relaxed":
        tau[:] = h
    elif distribution == "bimodal":
        tau[rng.permutation(n)[: n // 2]] = h
    elif distribution != "strict":
        raise ValueError(f"level_distribution must be uniform, strict, relaxed or bimodal, got {distribution!r}")
    return tau


def personalised_levels(mechanism, num_nodes: int, seed: int, distribution: str = "uniform"
                        ) -> tuple[np.ndarray, np.ndarray]:
    """(tau, tau'): levels drawn by ``distribution`` (:func:`draw_levels`) and their ESW reports, from the run's
    level stream."""
    rng = rng_for(seed, *streams.FEATURE_LEVELS.key())
    tau = draw_levels(distribution, mechanism.h, num_nodes, rng)
    return tau, mechanism.perturb_levels(tau, rng)


def run_levels(config: RunConfig, num_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """(tau, tau') of a personalised run's users (the same draw for its features and its FlexProp)."""
    return personalised_levels(personalised_mechanism(config, 1), num_nodes, config.seed,
                               config.level_distribution)


class PersonalisedFeatures(Features):
    """PPGNN's feature reports (ppgnn A4, Algorithm 3): every user perturbs x in [-1, 1]^d once through MLR at
    eps_2 = (1 - gamma) eps^tau of its own level; the server keeps the estimate (client-rectified in the paper
    mode, rescaled from the public tau' in the corrected mode). In the released mode every user also reports a
    count m' (drawn from the features' stream before them), samples max(m') coordinates, and the server rescales
    with (tau', m') (ID100 mechanisms.py:147-169)."""

    def node_features(self, graph, config, rng):
        x = graph.normalized_features(clip=True)
        mechanism = personalised_mechanism(config, x.shape[1])
        tau, tau_prime = personalised_levels(mechanism, graph.num_nodes, config.seed, config.level_distribution)
        counts = released_counts(mechanism, tau, rng)
        estimate = np.zeros_like(x)
        for idx, user in mechanism.report_groups(tau, tau_prime, *counts):
            estimate[idx] = user.estimate(user.perturb(x[idx], rng))
        return estimate


def released_counts(mechanism, tau: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
    """The released PPM's reported counts m' (``[counts]``), the first draw of the features' stream ``rng``; ``[]``
    in the other modes (which report no count)."""
    return [mechanism.perturb_counts(tau, rng)] if mechanism.mode == "released" else []


def mean_feature_budget(config: RunConfig, num_nodes: int, num_features: int | None = None) -> float:
    """Mean over users of the feature budget a run spends (E16): eps_x for the non-personalised mechanisms,
    (1 - gamma) eps^tau for PPM. Under ``ppm_variant="released"`` a user with reported count m' perturbs
    min(d, M) coordinates (M the largest m' of the run) at eps_2 / m' each, so it spends min(d, M) eps_2 / m'
    (ID100@05acb7a mechanisms.py:156-165), computed from the run's own level and count draws (the features'
    stream, as :class:`PersonalisedFeatures` draws them); that needs d = ``num_features``."""
    if config.mechanism not in PERSONALISED_MODES:
        return float(config.eps_x)
    released = config.ppm_variant == "released"
    if released and num_features is None:
        raise ValueError("a released PPM run's feature budget depends on d: give num_features")
    mechanism = personalised_mechanism(config, num_features if released else 1)
    tau, _ = personalised_levels(mechanism, num_nodes, config.seed, config.level_distribution)
    nominal = (1.0 - mechanism.gamma) * mechanism.budget(tau)
    counts = released_counts(mechanism, tau, rng_for(config.seed, *streams.FEATURES.key()))
    if not counts:
        return float(np.mean(nominal))
    return float(np.mean(nominal * min(mechanism.d, int(counts[0].max())) / counts[0]))


FEATURES: dict[str, Features] = {"raw": RawFeatures(), "rnd": RandomFeatures(), "ohd": DegreeFeatures()}


# ------------------------------------------------------------------------------------------------- labels

@dataclass(frozen=True)
class NoisyLabels:
    """Labels as the server holds them: ``observed`` (RR reports on train and validation nodes, clean labels
    elsewhere but only used for testing) and the RR transition matrix ``transition`` (identity when clean)."""

    observed: np.ndarray
    transition: np.ndarray


def perturb_labels(y: np.ndarray, num_classes: int, eps_y: float | None, nodes: np.ndarray,
                   rng: np.random.Generator) -> NoisyLabels:
    """Randomized response on the labels of ``nodes`` (train and validation users, lpgnn B1-B2), once.

    T = q 11^T + (p - q) I with p = e^eps/(e^eps + c - 1), q = 1/(e^eps + c - 1); T = I when eps_y is None.
    """
    observed = y.copy()
    if eps_y is None:
        return NoisyLabels(observed, np.eye(num_classes))
    rr = make("grr", eps=eps_y, c=num_classes)
    observed[nodes] = rr.perturb(y[nodes].astype(np.float64), rng).astype(np.int64)
    p, q = rr.probabilities()
    return NoisyLabels(observed, np.full((num_classes, num_classes), q) + (p - q) * np.eye(num_classes))


# -------------------------------------------------------------------------------------------- propagation

def feature_propagation(config: RunConfig) -> Propagation:
    """The propagation in front of the backbone: KProp(K_x) (lpgnn A1), GCN aggregator without self-loops by
    default; the seed's GCN baselines are KProp(1) with self-loops (lpgnn §6.1). ``config.propagation="auto"``
    gives PPM runs FlexProp(K_x) weighted by the users' reported levels (ppgnn A5) and the rest KProp;
    ``"kprop"`` / ``"flexprop"`` choose one for any mechanism (ppgnn Figs. 8-9). FlexProp over a uniform-budget
    mechanism (MB, 1B, LP, GM) or raw features: those users report no level and all share one budget, so
    Eq. 12's weights tau'_j are all equal and FlexProp is the mean over A + I (KProp mean with self-loops)."""
    personalised = config.eps_x is not None and config.mechanism in PERSONALISED_MODES and config.features == "raw"
    flexprop = config.propagation == "flexprop" or (config.propagation == "auto" and personalised)
    if flexprop and personalised:
        return LevelFlexProp(config.k_x, config=config)
    if flexprop:
        return KProp(config.k_x, aggregator="mean", self_loops=True)
    return KProp(config.k_x, aggregator=config.aggregator, self_loops=config.self_loops)


@dataclass(frozen=True)
class LevelFlexProp(StepPropagation):
    """FlexProp (ppgnn A5, Eq. 12) with Pi_ij proportional to tau'_j on A + I, the reported levels of the run's
    users (the same draw as :class:`PersonalisedFeatures`). Sparse throughout, O(K |E| d)."""

    config: RunConfig = None

    def step_matrix(self, adjacency) -> sp.csr_matrix:
        _, tau_prime = run_levels(self.config, adjacency.shape[0])  # the levels do not depend on d
        weights = flexprop_weights("tau_prime", tau_prime=tau_prime)
        return FlexProp(self.steps, weights=weights).step_matrix(adjacency)


def propagate(propagation: Propagation, adjacency, x, device):
    """W X as a float32 tensor on ``device``.

    Step propagations (KProp, FlexProp) run their ``step_matrix`` K times on the device;
    any other propagation (PPR) is applied by the propagation face itself on the CPU and moved over.
    """
    import torch

    from .tensors import torch_csr

    if isinstance(propagation, StepPropagation):
        h = torch.as_tensor(np.asarray(x, dtype=np.float32), device=device)
        if propagation.steps:
            step = torch_csr(propagation.step_matrix(adjacency), device)
            for _ in range(propagation.steps):
                h = torch.sparse.mm(step, h)
        return h
    return torch.as_tensor(propagation.apply(adjacency, x).astype(np.float32), device=device)


# ----------------------------------------------------------------------------------------------- objective

@dataclass
class Batch:
    """What the objective needs, on the device. ``labels`` as observed (noisy on train/val) and the RR
    ``transition`` T carry the runs as leading dimensions ((runs, n) and (runs, c, c); none for a single run);
    ``clean`` labels and the index tensors ``train``, ``val``, ``test`` are shared; for Drop the label-propagation
    step matrix ``step`` (GCN-normalised, no self-loops) with ``targets``/``target_mask`` (computed once)."""

    labels: object
    clean: object
    train: object
    val: object
    test: object
    transition: object
    step: object = None
    targets: object = None
    target_mask: object = None


class Objective(ABC):
    """Stage 4: the training loss, and the label distribution the validation metrics compare against.

    Logits have shape (..., n, c) with the runs of a batch as leading dimensions; losses have one value per run
    (shape ``logits.shape[:-2]``) and every reduction runs along a run's own rows, so runs never mix."""

    corrected: bool = False  # apply forward correction P(y'|x) = P(y|x) T

    def prepare(self, batch: Batch, k_y: int) -> None:
        """Precompute anything fixed for the run (Drop's propagated targets)."""

    def observed_probabilities(self, logits, batch: Batch):
        """P(y'|x): the model's distribution of the *observed* (possibly noisy) label."""
        from .tensors import softmax

        probs = softmax(logits)
        return probs @ batch.transition if self.corrected else probs

    @abstractmethod
    def loss(self, logits, batch: Batch):
        """Training loss on the training nodes, one per run."""


def picked_nll(probs, labels, nodes):
    """-log P(label) on ``nodes`` (+1e-20 against log 0), shape (..., len(nodes))."""
    import torch

    picked = probs.index_select(-2, nodes).gather(-1, labels.index_select(-1, nodes).unsqueeze(-1)).squeeze(-1)
    return -torch.log(picked + 1e-20)


class CrossEntropy(Objective):
    """Cross-entropy against the observed labels of the training nodes (lpgnn §6.1; the A4 ablation)."""

    def loss(self, logits, batch):
        from .tensors import log_softmax

        log_probs = log_softmax(logits.index_select(-2, batch.train))
        picked = log_probs.gather(-1, batch.labels.index_select(-1, batch.train).unsqueeze(-1)).squeeze(-1)
        return -picked.mean(-1)


class ForwardCorrection(Objective):
    """Cross-entropy of P(y'|x) = softmax(logits) T against the noisy labels (lpgnn A4 step 3, K_y = 0)."""

    corrected = True

    def loss(self, logits, batch):
        return picked_nll(self.observed_probabilities(logits, batch), batch.labels, batch.train).mean(-1)


class Drop(ForwardCorrection):
    """Drop (lpgnn A4): forward correction, then K_y propagation steps of both targets and predictions.

    Targets: argmax of Â^{K_y} Ŷ with Ŷ the one-hot noisy labels and test rows set to zero (computed once);
    predictions: softmax_row(Â^{K_y} P(y'|x)). Training nodes whose propagated label row is all zero (no labelled
    node within K_y hops) are left out of the loss (spec B7's recommendation; the authors' code assigns class 0).
    Ties in the argmax go to the lowest class index (torch's rule, spec C16).
    """

    def prepare(self, batch, k_y):
        import torch

        self.k_y = k_y
        if k_y == 0:
            batch.targets, batch.target_mask = batch.labels, torch.ones_like(batch.labels, dtype=torch.bool)
            return
        known = torch.zeros(batch.labels.shape[-1], dtype=torch.bool, device=batch.labels.device)
        known[torch.cat([batch.train, batch.val])] = True
        onehot = torch.nn.functional.one_hot(batch.labels, batch.transition.shape[-1]).float()
        propagated = self._propagate(onehot * known.unsqueeze(-1), batch)
        batch.targets = propagated.argmax(dim=-1)
        batch.target_mask = propagated.abs().sum(dim=-1) > 0

    def _propagate(self, h, batch):
        from .tensors import sparse_columns

        for _ in range(self.k_y):
            h = sparse_columns(batch.step, h)
        return h

    def loss(self, logits, batch):
        from .tensors import softmax

        probs = self.observed_probabilities(logits, batch)
        if self.k_y:
            probs = softmax(self._propagate(probs, batch))
        kept = batch.target_mask.index_select(-1, batch.train).float()
        return (picked_nll(probs, batch.targets, batch.train) * kept).sum(-1) / kept.sum(-1)


class SaturatingLikelihood(Objective):
    """-log(softmax(z)_y + 1e-20) on the training nodes: the loss of PPGNN's released code (helongzhu/ID100 @05acb7a,
    models.py lines 248-254), the negative log of a probability rather than a log-softmax. Once a node's softmax
    underflows to zero on its true class (a confident wrong prediction, as with huge perturbed inputs), the
    floor 1e-20 makes its loss constant and its gradient exactly zero: the node stops teaching the model. With
    clean labels it equals the cross-entropy wherever the softmax has not underflowed (issue 26)."""

    def loss(self, logits, batch):
        from .tensors import softmax

        return picked_nll(softmax(logits), batch.labels, batch.train).mean(-1)


OBJECTIVES = {"cross_entropy": CrossEntropy, "forward": ForwardCorrection, "drop": Drop,
              "saturating": SaturatingLikelihood}


# ----------------------------------------------------------------------------------------------- selection

class Selection(ABC):
    """Stage 5: which epoch's metrics are reported. Only validation (and training) metrics may decide (E14)."""

    def __init__(self, transition: np.ndarray):
        self.max_accuracy = float(transition[0, 0])

    @abstractmethod
    def better(self, candidate: dict, best: dict) -> bool:
        """Whether epoch metrics ``candidate`` replace the stored ``best``."""


class LowestValidationLoss(Selection):
    """The checkpoint with the strictly lowest validation loss over all epochs (lpgnn §6.2)."""

    def better(self, candidate, best):
        return candidate["val_loss"] < best["val_loss"]


class CappedValidation(Selection):
    """lpgnn A5 (authors' CCS code): lower val loss AND higher val accuracy <= maxacc AND higher train accuracy
    <= 1.05 maxacc, with maxacc = T[0, 0] the best accuracy reachable against noisy labels."""

    def better(self, candidate, best):
        cap = self.max_accuracy
        return (candidate["val_loss"] < best["val_loss"]
                and best["val_acc"] < candidate["val_acc"] <= cap
                and best["train_acc"] < candidate["train_acc"] <= 1.05 * cap)


class AllImprove(Selection):
    """PPGNN's released rule (helongzhu/ID100 @05acb7a, trainer.py lines 53-57): an epoch replaces the stored one
    only when validation loss falls AND validation accuracy rises AND training accuracy rises, all strictly and
    without lpgnn A5's caps. An epoch that improves validation loss alone is never kept (issue 26)."""

    def better(self, candidate, best):
        return (candidate["val_loss"] < best["val_loss"] and best["val_acc"] < candidate["val_acc"]
                and best["train_acc"] < candidate["train_acc"])


SELECTIONS = {"val_loss": LowestValidationLoss, "ccs": CappedValidation, "all_improve": AllImprove}
