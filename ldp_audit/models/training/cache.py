"""What the runs of one process share: :class:`RunCache` memoises the loaded graph, each (dataset, mechanism,
eps, seed) perturbation (a user reports once; every K and objective is post-processing of that one report,
lpgnn C11), the graph's sparse operators, and the propagated features per K (backbones without a stacked form).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ... import streams
from ...seeding import rng_for
from .. import data as datasets
from . import stages
from .config import RunConfig


@dataclass
class RunCache:
    """Per-process memo of graphs, feature reports and propagated features (``draws`` counts perturbations)."""

    data_dir: str | None = None
    cache_dir: str | None = None
    graphs: dict = field(default_factory=dict)
    features: dict = field(default_factory=dict)
    propagated: dict = field(default_factory=dict)
    operators: dict = field(default_factory=dict)
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
            rng = rng_for(config.seed, *streams.FEATURES.key())
            self.features[key] = stages.FEATURES[config.features].node_features(graph, config, rng)
            self.draws += 1
        return self.features[key]

    def graph_operators(self, graph: datasets.Graph, device) -> dict:
        """GCNConv's Â and SAGEConv's neighbour mean of ``graph`` as sparse operators on ``device``."""
        from .stacked import graph_operators

        key = (graph.name, graph.num_nodes, str(device))
        if key not in self.operators:
            self.operators[key] = graph_operators(graph.adjacency, device)
        return self.operators[key]

    def propagated_features(self, config: RunConfig, graph: datasets.Graph, device):
        propagation = stages.feature_propagation(config)
        key = (config.perturbation_key(), propagation, str(device))
        if key not in self.propagated:
            self.propagated[key] = stages.propagate(propagation, graph.adjacency,
                                                   self.node_features(config, graph), device)
        return self.propagated[key]


def split_nodes(graph: datasets.Graph, split_seed: int,
                rule: str = "spec") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The one 50/25/25 split per dataset (lpgnn §6.4, U9), drawn by ``rule`` (``config.SPLIT_RULES``)."""
    if rule == "released":
        from .released_splits import lpgnn_released_split

        return lpgnn_released_split(graph.name, graph.num_nodes, split_seed)
    return datasets.node_split(graph.num_nodes, split_seed)
