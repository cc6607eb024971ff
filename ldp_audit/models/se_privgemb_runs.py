"""One SE-PrivGEmb (or SE-GEmb) training run as a stored, resumable unit: a frozen config, its result, the
folder that keeps them, and the runner the sweep engine calls.

The config carries the number of steps and the noise multiplier already decided: the privacy accountant that
turns a target eps into a step count lives above this layer (``audits.reproduction.se_privgemb``), so a run
here is plain Algorithm 2 (or its non-private counterpart) for ``steps`` steps, then the metric of its task:
StrucEqu of W_in on the full graph (Section V-B) or link-prediction AUC on the stored 90/10 split (Section V-C).
A StrucEqu run also records its degree-only and permuted controls, and all three under the released code's
evaluation (``models.se_privgemb.struc_equ``), in ``metrics`` under :func:`strucequ_key`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from . import data
from . import se_privgemb as model
from .training.config import StoredFields
from .training.store import RunStore, check_schema, member, numbers, stored_config

TASKS = ("strucequ", "link")
SCHEMA = "ldp-audit/se-privgemb-run"
SCHEMA_VERSION = "1.0"
#: The metric that is a run's value, per task.
VALUE_METRIC = {"strucequ": "strucequ", "link": "auc"}
#: clipping threshold of the noise-only control: the loss's gradients vanish, the noise (std C sigma) stays.
NOISE_ONLY_CLIP = 1e-12


@dataclass(frozen=True)
class SePrivGEmbRun(StoredFields):
    """Everything that decides one run. ``perturbation``: ``nonzero`` (Eq. 9, SE-PrivGEmb), ``all`` (Eq. 6, the
    naive variant of Table VI) or ``none`` (SE-GEmb: no clipping, no noise). ``sigma`` is the noise multiplier
    (noise std C sigma per touched coordinate before the 1/B, spec U5); ``steps`` the minibatch steps (one
    "epoch" of the paper, U13). The seed drives the negatives of Algorithm 1, the initialisation, the batches,
    the noise and the StrucEqu node sample. ``noise_only`` (a control, not in the paper): every per-subgraph
    gradient is clipped to 1e-12 while the noise keeps std C sigma on the same rows, so the run releases the
    noise support and nothing of the loss."""

    dataset: str
    task: str = "strucequ"
    proximity: str = "deepwalk"
    perturbation: str = "nonzero"
    batch_size: int = 128
    lr: float = 0.1
    clip: float = 2.0
    k: int = 5
    sigma: float = 5.0
    steps: int = 200
    r: int = 128
    seed: int = 0
    noise_only: bool = False

    def __post_init__(self):
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {', '.join(TASKS)}; got {self.task!r}")
        if self.proximity not in ("deepwalk", "degree"):
            raise ValueError(f"proximity must be deepwalk or degree; got {self.proximity!r}")
        model.TrainConfig(r=self.r, batch_size=self.batch_size, lr=self.lr, clip=self.clip, sigma=self.sigma,
                          steps=self.steps, perturbation=self.perturbation)  # validates the shared fields

    def key(self) -> str:
        """Folder name of the run's configuration (everything but the seed)."""
        return (f"{self.task}-{self.proximity}-{self.perturbation}-B{self.batch_size}-lr{self.lr:g}-C{self.clip:g}"
                f"-k{self.k}-sigma{self.sigma:.6g}-T{self.steps}-r{self.r}" + ("-noiseonly" if self.noise_only else ""))

    def train_config(self, threads: int | None = None) -> model.TrainConfig:
        private = self.perturbation != "none"
        return model.TrainConfig(r=self.r, batch_size=self.batch_size, lr=self.lr,
                                 clip=NOISE_ONLY_CLIP if self.noise_only else self.clip, sensitivity=self.clip,
                                 sigma=self.sigma, steps=self.steps, perturbation=self.perturbation,
                                 clipping="per-subgraph" if private else "none", threads=threads, seed=self.seed)


@dataclass(frozen=True)
class SePrivGEmbResult:
    """One finished run: ``metrics`` holds ``strucequ`` or ``auc``; ``extra`` the device, its name, the steps
    run, the edge count that set the sampling rate, and the wall time."""

    config: SePrivGEmbRun
    metrics: dict
    extra: dict = field(default_factory=dict)

    @property
    def device_label(self) -> str:
        return f"{self.extra.get('device', 'cpu')} ({self.extra.get('device_name', 'unrecorded')})"

    @property
    def value(self) -> float:
        return float(self.metrics[VALUE_METRIC[self.config.task]])

    def to_dict(self) -> dict:
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "config": self.config.to_dict(),
                "seed": self.config.seed, "metrics": self.metrics, "extra": self.extra}

    @classmethod
    def from_dict(cls, payload) -> "SePrivGEmbResult":
        """The run a parsed file holds, every field checked (a ValueError naming the field otherwise)."""
        check_schema(payload, {SCHEMA: (SCHEMA_VERSION,)})
        config = stored_config(SePrivGEmbRun, payload)
        return cls(config, numbers(payload, "metrics", (VALUE_METRIC[config.task],)),
                   member(payload, "extra", dict, {}))


class SePrivGEmbStore(RunStore):
    """``ROOT/<dataset>/<config key>/seed<seed>.json``, written atomically; reads SE-PrivGEmb results back."""

    result_type = SePrivGEmbResult


def strucequ_key(evaluation: str = "spec", control: str = "measured") -> str:
    """The ``metrics`` key of a StrucEqu number: ``strucequ`` (spec evaluation, trained embedding, the run's
    value), ``strucequ_degree_only``, ``strucequ_permuted``, ``strucequ_released``, ``strucequ_released_permuted``
    and so on."""
    parts = ["strucequ"] + ([evaluation] if evaluation != "spec" else []) + ([control] if control != "measured" else [])
    return "_".join(parts)


def strucequ_metrics(adjacency, w_in, seed: int, adjacency_order) -> dict:
    """StrucEqu of ``w_in`` with its two controls under both evaluations, keyed by :func:`strucequ_key`; the
    released evaluation pairs embedding row i with the adjacency row of ``adjacency_order[i]``."""
    metrics = {}
    for evaluation in model.EVALUATIONS:
        order = adjacency_order if evaluation == "released" else None
        found = model.struc_equ_with_controls(adjacency, w_in, seed, evaluation, order)
        metrics.update({strucequ_key(evaluation, control): value for control, value in found.items()})
    return metrics


def training_edges(config: SePrivGEmbRun, graph: data.Graph, data_dir=None):
    """(adjacency, (2, m) edges, split or None) the run trains on: the full graph for StrucEqu, the stored 90%
    training edges for link prediction."""
    if config.task == "strucequ":
        return graph.adjacency, graph.edges, None
    import numpy as np
    import scipy.sparse as sp

    split = data.load_link_split(config.dataset, 0.9, data_dir)
    edges = np.asarray(split["train_pos"], dtype=np.int64)
    n = graph.num_nodes
    a = sp.coo_matrix((np.ones(edges.shape[1]), (edges[0], edges[1])), shape=(n, n))
    return (a + a.T).tocsr(), edges, split


def run_se_privgemb(config: SePrivGEmbRun, graph: data.Graph, device: str | None = None,
                    data_dir=None) -> SePrivGEmbResult:
    """Algorithm 1 (subgraphs with frozen negatives, uniform with rejection, listed orientation), Algorithm 2 for
    ``config.steps`` steps, then StrucEqu (spec M10, U10; with its controls and the released evaluation) or AUC
    with the U9 score."""
    from .training.runtime import device_name

    started = time.perf_counter()
    adjacency, edges, split = training_edges(config, graph, data_dir)
    subgraphs = model.build_subgraphs(adjacency, edges, config.proximity, config.k, seed=config.seed)
    trained = model.train(subgraphs, _on(config.train_config(), device))
    if config.task == "strucequ":
        # the released code builds its networkx graph line by line in the edge file's order (SEPrivGEmb.py:122-135)
        order = model.networkx_node_order(data.listed_edges(config.dataset, data_dir))
        metrics = strucequ_metrics(graph.adjacency, trained.w_in, config.seed, order)
    else:
        metrics = {"auc": model.link_prediction_auc(trained.w_in, trained.w_out, split)}
    return SePrivGEmbResult(config, metrics, {
        "device": trained.device.split(":")[0], "device_name": device_name(trained.device.split(":")[0]),
        "steps": trained.steps, "edges": int(edges.shape[1]), "train_seconds": trained.wall_seconds,
        "wall_seconds": time.perf_counter() - started})


def _on(config: model.TrainConfig, device: str | None) -> model.TrainConfig:
    from dataclasses import replace

    return config if device is None else replace(config, device=device)


def run_with_cache(config: SePrivGEmbRun, device: str, cache) -> SePrivGEmbResult:
    """:func:`run_se_privgemb` as a sweep runner (``training.sweep.one_by_one(run_with_cache)``)."""
    return run_se_privgemb(config, cache.graph(config.dataset), device, cache.data_dir)
