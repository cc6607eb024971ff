"""Training protocols as data: what a paper's runs do, element by element, in two presets (issue 26).

``spec`` is the protocol of the paper's spec, corrected and leak-free: the configs the reproduce grids build, with
no change. ``released`` is the protocol of the authors' code as released: each :class:`Element` sets one
:class:`~ldp_audit.models.training.config.RunConfig` field and cites the repository, commit, file and lines it
follows. The code is read and re-expressed, never copied.

Switching one element at a time from ``released`` back to ``spec`` (:func:`one_at_a_time`) is what an attribution
table measures: how many points each element moves a cell.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

from .config import RunConfig

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

    def __post_init__(self):
        if self.field not in {f.name for f in fields(RunConfig)}:
            raise ValueError(f"field must be a RunConfig field, got {self.field!r}")


@dataclass(frozen=True)
class Protocol:
    """A named preset of a paper: the elements it sets on top of the spec's configs (none for ``spec``)."""

    paper: str
    name: str
    elements: tuple[Element, ...] = ()

    def apply(self, config: RunConfig) -> RunConfig:
        """``config`` (built by the spec's grid) under this protocol."""
        return replace(config, **{e.field: e.value for e in self.elements})

    def to_dict(self) -> dict:
        return {"paper": self.paper, "name": self.name,
                "elements": [{"field": e.field, "value": e.value, "source": e.source, "effect": e.effect}
                             for e in self.elements]}

    @classmethod
    def from_dict(cls, data: dict) -> "Protocol":
        return cls(data["paper"], data["name"], tuple(Element(**e) for e in data["elements"]))


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


#: (paper, preset name) -> protocol. Every paper with a released protocol also has ``spec``.
PROTOCOLS = {("ppgnn", "spec"): Protocol("ppgnn", "spec"), ("ppgnn", "released"): _ppgnn_released()}


def protocol(paper: str, name: str) -> Protocol:
    """The preset ``name`` of ``paper``; a clear error naming the presets that exist."""
    if (paper, name) not in PROTOCOLS:
        known = ", ".join(f"{p}/{n}" for p, n in PROTOCOLS)
        raise ValueError(f"protocol must be one of {known}; got {paper}/{name}")
    return PROTOCOLS[(paper, name)]


def one_at_a_time(config: RunConfig, released: Protocol) -> dict[str, RunConfig]:
    """The attribution grid of ``config`` (a spec config): the released config, and for every element that differs
    from the spec, the released config with that one element set back to the spec's value."""
    full = released.apply(config)
    grid = {"released": full}
    for e in released.elements:
        if getattr(config, e.field) != e.value:
            grid[f"{e.field} -> spec"] = replace(full, **{e.field: getattr(config, e.field)})
    return grid

