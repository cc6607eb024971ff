"""LDP-GE's downstream models on the propagated reports (ldp-ge A5, A6, spec §7 and E14).

* ``mlp`` (the released code): node classes from bias-free linear layers with dropout before each, ReLU between
  and an identity skip where the widths match; a link score from the Hadamard feature through Linear-ReLU-Dropout
  blocks, a last linear layer and a sigmoid.
* ``logreg`` (the paper's words, spec §9 "Link classifier"): logistic regression, one linear layer with a bias:
  multinomial (softmax in the cross-entropy) for node classes, a sigmoid of one logit for a link score.

``init`` (issue 26) picks the MLPs' initial weights: ``spec`` (Kaiming-uniform over each node layer's output
width, torch's default for the link MLP) or ``released`` (:data:`KAIMING_MODE`).
"""
from __future__ import annotations

DOWNSTREAMS = ("mlp", "logreg")
#: torch ``kaiming_uniform_`` mode (ReLU gain) on our (out, in) weights, per (init, task); None: torch's default.
#: Released node layers store (in, out) weights and use fan_out, i.e. the input width (PrivGE@9ac59a9
#: layers/dense.py:12, classification.py:113-117); the released link MLP applies fan_out (the output
#: width) to every nn.Linear weight (link_pred.py:97-101).
KAIMING_MODE = {("spec", "node"): "fan_out", ("spec", "link"): None,
                ("released", "node"): "fan_in", ("released", "link"): "fan_out"}


def initialise(model, init: str, task: str):
    """Re-draw the weight matrices of an MLP per :data:`KAIMING_MODE` (biases keep torch's default); the model."""
    from torch import nn

    mode = KAIMING_MODE[(init, task)]
    if mode is not None:
        for layer in model.modules():
            if isinstance(layer, nn.Linear):
                nn.init.kaiming_uniform_(layer.weight, mode=mode, nonlinearity="relu")
    return model


def node_model(in_dim: int, classes: int, downstream: str, layers: int, hidden: int, dropout: float,
               init: str = "spec"):
    """The node classifier: ``(n, in_dim)`` embeddings -> ``(n, classes)`` logits."""
    from torch import nn

    if downstream == "logreg":
        return nn.Linear(in_dim, classes)
    return initialise(_node_mlp(in_dim, classes, layers, hidden, dropout), init, "node")


def link_model(in_dim: int, downstream: str, layers: int, hidden: int, dropout: float, init: str = "spec"):
    """The link scorer: ``(m, in_dim)`` Hadamard features -> ``(m, 1)`` scores in (0, 1)."""
    from torch import nn

    if downstream == "logreg":
        return nn.Sequential(nn.Linear(in_dim, 1), nn.Sigmoid())
    parts, width = [], in_dim
    for _ in range(layers - 1):
        parts += [nn.Linear(width, hidden), nn.ReLU(), nn.Dropout(dropout)]
        width = hidden
    return initialise(nn.Sequential(*parts, nn.Linear(width, 1), nn.Sigmoid()), init, "link")


def _node_mlp(in_dim: int, classes: int, layers: int, hidden: int, dropout: float):
    import torch
    from torch import nn

    class NodeMLP(nn.Module):
        """Bias-free linear layers, dropout before each, ReLU between, identity skip when widths match (§7)."""

        def __init__(self):
            super().__init__()
            widths = [in_dim] + [hidden] * (layers - 1) + [classes]
            self.linears = nn.ModuleList(nn.Linear(a, b, bias=False) for a, b in zip(widths, widths[1:]))
            self.dropout = nn.Dropout(dropout)

        def forward(self, h):
            for i, layer in enumerate(self.linears):
                out = layer(self.dropout(h))
                h = out + h if out.shape == h.shape else out
                if i < len(self.linears) - 1:
                    h = torch.relu(h)
            return h

    return NodeMLP()
