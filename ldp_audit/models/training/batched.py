"""Many runs of one shape trained together: ``train_batch(configs) -> [RunResult]``, in config order.

Configs with equal :meth:`RunConfig.batch_key` (dataset, split, backbone shape, objective, optimiser settings,
epochs) train as one stacked model (``stacked.py``); the rest of the batch is split by that key. Each run keeps
everything that is its own: its initialisation (the one-run module built under its INIT seed, then stacked),
its dropout masks (a generator of its own, seeded from its INIT stream), its feature and label reports (its
FEATURES and LABELS streams), its Adam moments (Adam is element-wise, so one Adam over stacked tensors is one
Adam per run: lr and weight decay are part of the batch key), its checkpoint selection. ``train_run(config)`` is
``train_batch([config])[0]``, so a run's result is the same alone and in any batch. Backbones without a stacked
form (GAT) train one run at a time through the same loop. A long batch trains in stacks of at most
:data:`STACK_SIZE` runs: past that, a CPU's caches no longer hold the stacked hidden states and a run gets slower.
"""
from __future__ import annotations

import time
import warnings

import numpy as np

from ... import streams
from ...seeding import rng_for
from .. import data as datasets
from . import modules, runtime, stacked, stages
from .config import RunConfig
from .store import RunResult
from .tensors import SparseOperator
from .cache import RunCache, split_nodes
from .label_rate import labelled_training_nodes

METRICS = ("train_acc", "val_loss", "val_acc", "test_acc")
#: Most runs in one stacked model (CPU: 16 runs train ~25 % faster per run than 64 on Cora, see benchmarks/train.py).
STACK_SIZE = 16
#: Memory the dense feature reports of one stack may take (float32 n x d each, kept with its transpose for the
#: backward pass; sparse reports take far less).
REPORT_BYTES = 4 << 30


def train_batch(configs: list, device: str | None = None, cache: RunCache | None = None,
                stop=None) -> list[RunResult]:
    """Train ``configs``; results in config order, each identical to ``train_run(config)`` (metrics and curves).
    The GNN pipeline's runner (``config.RUNNERS``): a stacked group trains as one model, so ``stop`` cannot end it
    part-way and is not read."""
    device = runtime.choose_device(device)
    cache = cache or RunCache()
    groups: dict = {}
    for i, config in enumerate(configs):
        groups.setdefault(config.batch_key(), []).append(i)
    results = [None] * len(configs)
    for indices in groups.values():
        members = [configs[i] for i in indices]
        if members[0].model in stacked.STACKED_MODELS:
            size = stack_size(cache.graph(members[0].dataset))
            trained = [result for start in range(0, len(members), size)
                       for result in _train_together(members[start:start + size], device, cache)]
        else:
            trained = [train_module(config, device, cache) for config in members]
        for i, result in zip(indices, trained):
            results[i] = result
    return results


def stack_size(graph: datasets.Graph) -> int:
    """Runs per stacked model: :data:`STACK_SIZE`, fewer where that many dense n x d reports would pass
    :data:`REPORT_BYTES` (Facebook: 424 MB per report and as much for its transpose, 5 runs)."""
    return max(1, min(STACK_SIZE, REPORT_BYTES // (2 * 4 * graph.num_nodes * stages.feature_width(graph))))


def _labels(configs: list, graph: datasets.Graph, device) -> stages.Batch:
    """The objective's inputs for runs sharing a split: each run's RR label report from its own LABELS stream."""
    import torch

    if graph.y is None:
        raise ValueError(f"dataset {graph.name!r} has no node labels to train on")
    config = configs[0]
    train, val, test = split_nodes(graph, config.split_seed, config.split_rule)
    train = labelled_training_nodes(train, config.train_fraction, config.seed)  # one per batch (batch_key)
    reports = [stages.perturb_labels(graph.y, graph.num_classes, c.eps_y, np.concatenate([train, val]),
                                     rng_for(c.seed, *streams.LABELS.key())) for c in configs]
    as_index = lambda a: torch.as_tensor(a, dtype=torch.long, device=device)  # noqa: E731
    step = None
    if config.objective == "drop" and config.k_y:
        step = SparseOperator.of(stages.KProp(1, aggregator="gcn").step_matrix(graph.adjacency), device)
    transition = np.stack([r.transition for r in reports])
    return stages.Batch(as_index(np.stack([r.observed for r in reports])), as_index(graph.y), as_index(train),
                        as_index(val), as_index(test), torch.as_tensor(transition, dtype=torch.float32,
                                                                       device=device), step)


def _epoch_metrics(logits, objective: stages.Objective, batch: stages.Batch):
    """(runs, 4): train_acc, val_loss, val_acc, test_acc; train/val against the observed labels, test against
    clean labels (lpgnn A4 step 7)."""
    import torch

    predicted = logits.argmax(dim=-1)
    hits = lambda nodes, labels: (predicted.index_select(-1, nodes) == labels).float().mean(-1)  # noqa: E731
    observed = objective.observed_probabilities(logits, batch)
    val_loss = stages.picked_nll(observed, batch.labels, batch.val).mean(-1)
    return torch.stack([hits(batch.train, batch.labels.index_select(-1, batch.train)), val_loss,
                        hits(batch.val, batch.labels.index_select(-1, batch.val)),
                        hits(batch.test, batch.clean.index_select(-1, batch.test))], dim=-1)


def _first_layer(configs: list, graph: datasets.Graph, device, cache: RunCache) -> tuple[stacked.FirstLayer, int]:
    """The batch's first layer and the feature width: each run's terms (its propagation, then GCN's Â or SAGE's
    neighbour mean) in the order :func:`stacked.features_first` picks for that run, on its own report."""
    features, dense, reports, operators = {}, {}, {}, {}
    for config in configs:  # a user reports once: runs sharing a perturbation share the report
        key = config.perturbation_key()
        if key not in features:
            features[key] = cache.node_features(config, graph)
            dense[key] = stacked.sparse_form(features[key]) is None
    widths = {x.shape[1] for x in features.values()}
    if len(widths) != 1:
        raise ValueError(f"runs of one batch need one feature width, got {sorted(widths)}")
    width = widths.pop()
    graph_ops = cache.graph_operators(graph, device)
    chains = []
    for config in configs:
        propagation = stages.feature_propagation(config)
        if propagation.steps and propagation not in operators:
            operators[propagation] = SparseOperator.of(propagation.step_matrix(graph.adjacency), device)
        chains.append([operators[propagation]] * propagation.steps if propagation.steps else [])
    model = configs[0].model
    if model == "lpgnn":
        term_chains = [chains]
    elif model == "gcn":
        term_chains = [[c + [graph_ops["gcn"]] for c in chains]]
    else:
        term_chains = [[c + [graph_ops["mean"]] for c in chains], chains]

    def report(config, chain):  # shared by the runs of one perturbation (and, features first, one chain)
        first = stacked.features_first(chain, graph.num_nodes, width, dense[config.perturbation_key()])
        key = (config.perturbation_key(), tuple(map(id, chain)) if first else None)
        if key not in reports:
            x = features[config.perturbation_key()]
            reports[key] = stacked.Report.propagated(x, chain, device) if first else stacked.Report.of(x, device)
        return reports[key], [] if first else chain

    terms = []
    for per_run in term_chains:
        pairs = [report(config, chain) for config, chain in zip(configs, per_run)]
        terms.append(([r for r, _ in pairs], [c for _, c in pairs]))
    return stacked.FirstLayer(terms), width


def _stacked_backbone(configs: list, graph: datasets.Graph, device, cache: RunCache):
    """The batch's stacked model, its parameters initialised run by run as the one-run module would be."""
    import torch

    first, width = _first_layer(configs, graph, device, cache)
    graph_ops = cache.graph_operators(graph, device)
    model = configs[0].model
    per_run, generators = [], []
    for config in configs:
        torch.manual_seed(runtime.torch_seed(config.seed, *streams.INIT.key()))
        module = modules.build(model, width, config.hidden, graph.num_classes, config.dropout)
        per_run.append(stacked.module_parameters(model, module))
        generators.append(torch.Generator(device=device).manual_seed(
            runtime.torch_seed(config.seed, *streams.DROPOUT.key())))
    params = {k: v.to(device) for k, v in stacked.stack_parameters(per_run).items()}
    params = {k: v.detach().requires_grad_(True) for k, v in params.items()}
    return stacked.StackedBackbone(model, first, params, graph_ops, configs[0].dropout, generators), width


class ModuleBackbone:
    """One run's torch module (backbones without a stacked form) behind the stacked face: logits (1, n, c)."""

    def __init__(self, config: RunConfig, graph: datasets.Graph, device, cache: RunCache):
        import torch

        self.x = cache.propagated_features(config, graph, device)
        torch.manual_seed(runtime.torch_seed(config.seed, *streams.INIT.key()))
        self.module = modules.build(config.model, self.x.shape[1], config.hidden, graph.num_classes,
                                    config.dropout).to(device)
        edge_index = torch.as_tensor(np.hstack([graph.edges, graph.edges[::-1]]), dtype=torch.long, device=device)
        if self.module.sparse_input:
            from torch_geometric.utils import to_torch_csr_tensor

            with warnings.catch_warnings():  # torch calls its CSR support "beta"; the product is checked in tests
                warnings.simplefilter("ignore", UserWarning)
                edge_index = to_torch_csr_tensor(edge_index.flip(0), size=(graph.num_nodes, graph.num_nodes))
        self.edge_index = edge_index

    def parameters(self) -> list:
        return list(self.module.parameters())

    def logits(self, training: bool):
        self.module.train(training)
        return self.module(self.x, self.edge_index).unsqueeze(0)


def train_module(config: RunConfig, device: str | None = None, cache: RunCache | None = None) -> RunResult:
    """One run through its own torch module on propagated features (``modules.build``): how backbones without a
    stacked form (GAT) train, and the one-run-at-a-time reference of ``benchmarks/train.py``."""
    return _train_together([config], runtime.choose_device(device), cache or RunCache(), stack=False)[0]


def _train_together(configs: list, device: str, cache: RunCache, stack: bool = True) -> list[RunResult]:
    """The one training loop: full-batch Adam, one evaluation pass per epoch, per-run checkpoint selection."""
    import torch

    started = time.perf_counter()
    config = configs[0]
    graph = cache.graph(config.dataset)
    batch = _labels(configs, graph, device)
    objective = stages.OBJECTIVES[config.objective]()
    objective.prepare(batch, config.k_y)
    transitions = batch.transition.cpu().numpy()
    selections = [stages.SELECTIONS[c.selection](transitions[i]) for i, c in enumerate(configs)]
    if stack:
        backbone, width = _stacked_backbone(configs, graph, device, cache)
    else:
        backbone = ModuleBackbone(config, graph, device, cache)
        width = backbone.x.shape[1]
    optimizer = torch.optim.Adam(backbone.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    runs = len(configs)
    curves = [{name: [] for name in ("train_loss",) + METRICS} for _ in configs]
    best, best_epoch = [None] * runs, [0] * runs
    for epoch in range(config.epochs):
        optimizer.zero_grad()
        losses = objective.loss(backbone.logits(training=True), batch)
        losses.sum().backward()
        optimizer.step()
        with torch.no_grad():
            rows = _epoch_metrics(backbone.logits(training=False), objective, batch).tolist()
        for run, (loss, row) in enumerate(zip(losses.detach().tolist(), rows)):
            values = dict(zip(METRICS, row))
            curves[run]["train_loss"].append(loss)
            for name in METRICS:
                curves[run][name].append(values[name])
            if best[run] is None or selections[run].better(values, best[run]):
                best[run], best_epoch[run] = values, epoch
    seconds = round((time.perf_counter() - started) / runs, 3)
    results = []
    for run, c in enumerate(configs):
        metrics = {**best[run], "epoch": best_epoch[run], "test_acc_best": max(curves[run]["test_acc"])}
        rounded = {name: [round(v, 6) for v in values] for name, values in curves[run].items()}
        results.append(RunResult(c, metrics, rounded, device, runtime.device_name(device), runtime.versions(),
                                 seconds, {"num_nodes": graph.num_nodes, "in_features": int(width)}))
    return results
