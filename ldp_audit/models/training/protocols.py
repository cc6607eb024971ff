"""Training protocols as data: what a paper's runs do, element by element, in two presets (issue 26).

``spec`` is the protocol of the paper's spec, corrected and leak-free: the configs the reproduce grids build, with
no change. ``released`` is the protocol of the authors' code as released: each :class:`Element` sets one field of the
pipeline's config (:func:`~ldp_audit.models.training.config.config_type`) and cites the repository, commit, file and lines it
follows. The code is read and re-expressed, never copied.

Switching one element at a time from ``released`` back to ``spec`` (:func:`one_at_a_time`) is what an attribution
table measures: how many points each element moves a cell.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

from .config import TrainingConfig, config_type

#: The PPGNN repository the released protocol follows (a fork of LPGNN's CCS code) and its commit.
PPGNN_CODE = "helongzhu/ID100@05acb7a98ed2fa3d836a764e416f9e98e002b27c"


@dataclass(frozen=True)
class Element:
    """One protocol element: the released code sets ``field`` to ``value`` (``source``: repo@commit path:lines);
    ``effect`` says what it changes."""

    field: str
    value: object
    source: str
    effect: str


@dataclass(frozen=True)
class Protocol:
    """A named preset of a paper: the elements it sets on top of the spec's configs (none for ``spec``), each a
    field of the config class of ``pipeline`` (a ``config.PIPELINES`` name)."""

    paper: str
    name: str
    elements: tuple[Element, ...] = ()
    pipeline: str = "gnn"

    def __post_init__(self):
        config_class = config_type(self.pipeline)
        known = {f.name for f in fields(config_class)}
        for element in self.elements:
            if element.field not in known:
                raise ValueError(f"field must be a {config_class.__name__} field, got {element.field!r}")

    def apply(self, config: TrainingConfig) -> TrainingConfig:
        """``config`` (built by the spec's grid) under this protocol."""
        return replace(config, **{e.field: e.value for e in self.elements})

    def to_dict(self) -> dict:
        return {"paper": self.paper, "name": self.name, "pipeline": self.pipeline,
                "elements": [{"field": e.field, "value": e.value, "source": e.source, "effect": e.effect}
                             for e in self.elements]}

    @classmethod
    def from_dict(cls, data: dict) -> "Protocol":
        return cls(data["paper"], data["name"], tuple(Element(**e) for e in data["elements"]),
                   data.get("pipeline", "gnn"))


def _ppgnn_released() -> Protocol:
    readme = f"{PPGNN_CODE} README.md:16 (the replication command)"
    return Protocol("ppgnn", "released", (
        Element("model", "sage", readme, "GraphSAGE backbone instead of the spec's GCN"),
        Element("lr", 0.01, readme, "learning rate 0.01 on every dataset"),
        Element("weight_decay", 0.01, readme, "weight decay 0.01 on every dataset"),
        Element("dropout", 0.75, readme, "dropout 0.75 on every dataset"),
        Element("objective", "saturating", f"{PPGNN_CODE} models.py:248-254",
                "-log(softmax + 1e-20): zero gradient on a node whose true-class softmax underflowed"),
        Element("selection", "all_improve", f"{PPGNN_CODE} trainer.py:53-57",
                "keep an epoch only when validation loss, validation accuracy and training accuracy all improve"),
    ))


#: LDP-GE's released code (PrivGE) and its commit.
LDP_GE_CODE = "Zening-Li/PrivGE@9ac59a94bbca7a8e1f285fe8ebce87a8e97c2ecc"


def _ldp_ge_released() -> Protocol:
    push = f"{LDP_GE_CODE} precompute/base.h"
    return Protocol("ldp-ge", "released", (
        Element("method", "push", f"{LDP_GE_CODE} link_pred.py:56-62, classification.py:60-68",
                "backward push, never power or Chebyshev iteration"),
        Element("push_threshold", "relative", f"{push}:90-97, 128-131, 144, 157",
                "push while a residue exceeds r_max times its column's total residue, not r_max"),
        Element("push_signs", "split", f"{push}:73-89, 136-161",
                "positive and negative residues pushed apart, never cancelling on a node"),
        Element("push_leftover", True, f"{push}:162-168", "output D^r (Q + alpha R): the leftover residue counts"),
        Element("report_units", "raw", f"{LDP_GE_CODE} mechanisms.py:21-22, 43, 67, 109, 150; perturbation.py:16-17",
                "reports s * recover(x'): sampled coordinates in raw units, 0 elsewhere; raw features at eps = inf"),
        Element("init", "released", f"{LDP_GE_CODE} link_pred.py:97-101, classification.py:113-117, "
                                    "layers/dense.py:12",
                "Kaiming-uniform weights: link MLP over output widths, node MLP over input widths"),
    ), pipeline="ldp-ge")


#: (paper, preset name) -> protocol. Every paper with a released protocol also has ``spec``.
PROTOCOLS = {("ppgnn", "spec"): Protocol("ppgnn", "spec"), ("ppgnn", "released"): _ppgnn_released(),
             ("ldp-ge", "released"): _ldp_ge_released()}


def protocol(paper: str, name: str) -> Protocol:
    """The preset ``name`` of ``paper``; a clear error naming the presets that exist."""
    if (paper, name) not in PROTOCOLS:
        known = ", ".join(f"{p}/{n}" for p, n in PROTOCOLS)
        raise ValueError(f"protocol must be one of {known}; got {paper}/{name}")
    return PROTOCOLS[(paper, name)]


def one_at_a_time(config: TrainingConfig, released: Protocol) -> dict[str, TrainingConfig]:
    """The attribution grid of ``config`` (a spec config): the released config, and for every element that differs
    from the spec, the released config with that one element set back to the spec's value."""
    full = released.apply(config)
    grid = {"released": full}
    for e in released.elements:
        if getattr(config, e.field) != e.value:
            grid[f"{e.field} -> spec"] = replace(full, **{e.field: getattr(config, e.field)})
    return grid

