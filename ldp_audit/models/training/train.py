"""One training run: config -> :class:`RunResult`, through the stages of ``stages.py``.

:class:`RunCache` memoises what several runs of a sweep share: the loaded graph, each (dataset, mechanism,
eps, seed) perturbation (a user reports once; every K and objective is post-processing of that one report,
lpgnn C11), and the propagated features per K.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from ...seeding import rng_for
from .. import data as datasets
from . import modules, runtime, stages
from .config import RunConfig
from .runtime import Stream
from .store import RunResult


@dataclass
class RunCache:
    """Per-process memo of graphs, feature reports and propagated features (``draws`` counts perturbations)."""

    data_dir: str | None = None
    cache_dir: str | None = None
    graphs: dict = field(default_factory=dict)
    features: dict = field(default_factory=dict)
    propagated: dict = field(default_factory=dict)
    draws: int = 0
    #: perturbations kept (each an n x d matrix plus its propagations, on the training device). The sweep ships
    #: the runs of one perturbation to one worker together, so one is enough; four held ~6 GiB of GPU memory per
    #: worker on Facebook, and 15 workers ran an 80 GB H100 out of memory.
    max_features: int = 1

    def graph(self, name: str) -> datasets.Graph:
        if name not in self.graphs:
            self.graphs[name] = datasets.load(name, self.data_dir, self.cache_dir)
        return self.graphs[name]

    def node_features(self, config: RunConfig, graph: datasets.Graph) -> np.ndarray:
        key = config.perturbation_key()
        if key not in self.features:
            if len(self.features) >= self.max_features:
                dropped = next(iter(self.features))
                del self.features[dropped]
                self.propagated = {k: v for k, v in self.propagated.items() if k[0] != dropped}
            rng = rng_for(config.seed, Stream.FEATURES)
            self.features[key] = stages.FEATURES[config.features].node_features(graph, config, rng)
            self.draws += 1
        return self.features[key]

    def propagated_features(self, config: RunConfig, graph: datasets.Graph, device):
        propagation = stages.feature_propagation(config)
        key = (config.perturbation_key(), propagation, str(device))
        if key not in self.propagated:
            self.propagated[key] = stages.propagate(propagation, graph.adjacency,
                                                   self.node_features(config, graph), device)
        return self.propagated[key]


def split_nodes(graph: datasets.Graph, split_seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The one 50/25/25 split per dataset (lpgnn §6.4, U9)."""
    return datasets.node_split(graph.num_nodes, split_seed)


def _batch(config: RunConfig, graph: datasets.Graph, device) -> stages.Batch:
    import torch

    if graph.y is None:
        raise ValueError(f"dataset {graph.name!r} has no node labels to train on")
    train, val, test = split_nodes(graph, config.split_seed)
    labels = stages.perturb_labels(graph.y, graph.num_classes, config.eps_y, np.concatenate([train, val]),
                                   rng_for(config.seed, Stream.LABELS))
    as_index = lambda a: torch.as_tensor(a, dtype=torch.long, device=device)  # noqa: E731
    step = None
    if config.objective == "drop" and config.k_y:
        step = stages.torch_sparse(stages.KProp(1, aggregator="gcn").step_matrix(graph.adjacency), device)
    return stages.Batch(as_index(labels.observed), as_index(graph.y), as_index(train), as_index(val),
                        as_index(test), torch.as_tensor(labels.transition, dtype=torch.float32, device=device),
                        step)


def _epoch_metrics(logits, objective: stages.Objective, batch: stages.Batch) -> list:
    """[train_acc, val_loss, val_acc, test_acc]: train/val against the observed labels, test against clean
    labels (lpgnn A4 step 7)."""
    import torch

    predicted = logits.argmax(dim=1)
    observed = objective.observed_probabilities(logits, batch)[batch.val]
    val_loss = -torch.log(observed.gather(1, batch.labels[batch.val].unsqueeze(1)) + 1e-20).mean()
    return torch.stack([(predicted[batch.train] == batch.labels[batch.train]).float().mean(), val_loss,
                        (predicted[batch.val] == batch.labels[batch.val]).float().mean(),
                        (predicted[batch.test] == batch.clean[batch.test]).float().mean()]).tolist()


def train_run(config: RunConfig, device: str | None = None, cache: RunCache | None = None) -> RunResult:
    """Train and evaluate one run; deterministic for a given config on CPU."""
    import torch

    started = time.perf_counter()
    device = runtime.choose_device(device)
    cache = cache or RunCache()
    graph = cache.graph(config.dataset)
    x = cache.propagated_features(config, graph, device)
    batch = _batch(config, graph, device)
    edge_index = torch.as_tensor(np.hstack([graph.edges, graph.edges[::-1]]), dtype=torch.long, device=device)
    objective = stages.OBJECTIVES[config.objective]()
    objective.prepare(batch, config.k_y)
    selection = stages.SELECTIONS[config.selection](batch.transition.cpu().numpy())

    torch.manual_seed(runtime.torch_seed(config.seed, Stream.INIT))
    model = modules.build(config.model, x.shape[1], config.hidden, graph.num_classes, config.dropout).to(device)
    if model.sparse_input:
        from torch_geometric.utils import to_torch_csr_tensor

        with warnings.catch_warnings():  # torch calls its CSR support "beta"; the product is checked in the tests
            warnings.simplefilter("ignore", UserWarning)
            edge_index = to_torch_csr_tensor(edge_index.flip(0), size=(graph.num_nodes, graph.num_nodes))
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    names = ("train_acc", "val_loss", "val_acc", "test_acc")
    curves = {name: [] for name in ("train_loss",) + names}
    best, best_epoch = None, 0
    for epoch in range(config.epochs):
        model.train()
        optimizer.zero_grad()
        loss = objective.loss(model(x, edge_index), batch)
        loss.backward()
        optimizer.step()
        model.eval()
        with torch.no_grad():
            values = dict(zip(names, _epoch_metrics(model(x, edge_index), objective, batch)))
        curves["train_loss"].append(float(loss.detach()))
        for name in names:
            curves[name].append(values[name])
        if best is None or selection.better(values, best):
            best, best_epoch = values, epoch
    metrics = {**best, "epoch": best_epoch, "test_acc_best": max(curves["test_acc"])}
    curves = {name: [round(v, 6) for v in values] for name, values in curves.items()}
    return RunResult(config, metrics, curves, device, runtime.device_name(device), runtime.versions(),
                     round(time.perf_counter() - started, 3),
                     {"num_nodes": graph.num_nodes, "in_features": int(x.shape[1])})
