"""Training protocols as data: what a paper's runs do, element by element, in two presets (issue 26).

``spec`` is the protocol of the paper's spec, corrected and leak-free: the configs the reproduce grids build, with
no change. ``released`` is the protocol of the authors' code as released: each :class:`Element` sets one field of the
pipeline's config (:func:`~ldp_audit.models.training.config.config_type`) and cites the repository, commit, file and lines it
follows. The code is read and re-expressed, never copied.

Switching one element at a time from ``released`` back to ``spec`` (:func:`one_at_a_time`) is what an attribution
table measures: how many points each element moves a cell. A preset may also fix the grid of K that a reproduction
sweeps (``k_grid``, an :class:`Element` whose ``field`` is ``"k_grid"``): a property of the table, not of a run.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

from .config import TrainingConfig, config_type

#: The PPGNN repository the released protocol follows (a fork of LPGNN's CCS code) and its commit.
PPGNN_CODE = "helongzhu/ID100@05acb7a98ed2fa3d836a764e416f9e98e002b27c"
#: LPGNN's repository at the seed's era: the commit whose notebook prints the seed's Table 3 digit for digit
#: (lpgnn spec, Part A); the CCS version's code (master) is Part B's.
LPGNN_SEED_CODE = "sisaman/LPGNN@d306f1deeb8c87810c09cb14171330d0db4c42a0"


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
    k_grid: Element | None = None

    def __post_init__(self):
        config_class = config_type(self.pipeline)
        known = {f.name for f in fields(config_class)}
        for element in self.elements:
            if element.field not in known:
                raise ValueError(f"field must be a {config_class.__name__} field, got {element.field!r}")
        if self.k_grid is not None:
            grid = self.k_grid.value
            if self.k_grid.field != "k_grid" or not isinstance(grid, tuple) or not grid or \
                    any(isinstance(k, bool) or not isinstance(k, int) or k < 0 for k in grid):
                raise ValueError(f"k_grid must be an Element on 'k_grid' with a tuple of K >= 0, got {self.k_grid!r}")

    def k_values(self, default: tuple[int, ...]) -> tuple[int, ...]:
        """The K grid a reproduction sweeps under this protocol: the preset's, else ``default`` (the mode's)."""
        return default if self.k_grid is None else self.k_grid.value

    def apply(self, config: TrainingConfig) -> TrainingConfig:
        """``config`` (built by the spec's grid) under this protocol."""
        return replace(config, **{e.field: e.value for e in self.elements})

    def to_dict(self) -> dict:
        as_dict = lambda e: {"field": e.field, "value": e.value, "source": e.source, "effect": e.effect}  # noqa: E731
        return {"paper": self.paper, "name": self.name, "pipeline": self.pipeline,
                "elements": [as_dict(e) for e in self.elements],
                **({} if self.k_grid is None else {"k_grid": {**as_dict(self.k_grid),
                                                              "value": list(self.k_grid.value)}})}

    @classmethod
    def from_dict(cls, data: dict) -> "Protocol":
        grid = data.get("k_grid")
        return cls(data["paper"], data["name"], tuple(Element(**e) for e in data["elements"]),
                   data.get("pipeline", "gnn"),
                   None if grid is None else Element(**{**grid, "value": tuple(grid["value"])}))


def _ppgnn_released() -> Protocol:
    readme = f"{PPGNN_CODE} README.md:16 (the replication command)"
    lpgnn = "sisaman/LPGNN@02c60f183a21837ceefc79502d2871647842d685"
    return Protocol("ppgnn", "released", (
        Element("model", "sage", readme, "GraphSAGE backbone instead of the spec's GCN"),
        Element("lr", 0.01, readme, "learning rate 0.01 on every dataset"),
        Element("weight_decay", 0.01, readme, "weight decay 0.01 on every dataset"),
        Element("dropout", 0.75, readme, "dropout 0.75 on every dataset"),
        Element("objective", "saturating", f"{PPGNN_CODE} models.py:248-254",
                "-log(softmax + 1e-20): zero gradient on a node whose true-class softmax underflowed"),
        Element("selection", "all_improve", f"{PPGNN_CODE} trainer.py:53-57",
                "keep an epoch only when validation loss, validation accuracy and training accuracy all improve"),
        Element("ppm_variant", "released", f"{PPGNN_CODE} mechanisms.py:7-40, 116-176",
                "PPM as released: level and count reports never below the truth, every user samples the largest "
                "reported count, the server rescales with the reported level (not LDP); PPM runs only"),
        # Table III's baselines cannot run in the released PPGNN code (no Gaussian; FlexProp needs levels): they
        # follow LPGNN's code, whose "baseline LDP mechanisms" block runs 1bm, lpm and agm.
        Element("gaussian_baseline", "analytic_l2",
                f"{lpgnn} mechanisms.py:65-117, 163; experiments.py:227-241",
                "GM: one analytic Gaussian on the whole vector, delta 1e-10, L2 sensitivity (beta - alpha) sqrt(d), "
                "instead of (eps/d, delta/d) per coordinate with delta 1e-5; GM runs only"),
        Element("aggregator", "gcn", f"{lpgnn} models.py:97",
                "baselines propagate with KProp under D^-1/2 A D^-1/2 (LPGNN's) instead of the mean; PPM keeps "
                "FlexProp"),
        Element("self_loops", False, f"{lpgnn} models.py:97", "baselines' KProp without self-loops"),
    ))


def _lpgnn_released() -> Protocol:
    """LPGNN's seed Table 3 as the code of the seed's era runs it. Everything else of a run is already the spec's:
    lr / weight decay / dropout per dataset (``experiments.py:18-25`` = seed Table 2), hidden 16 and 500 epochs
    (``models.py:76``, ``train.py:144``), log-softmax NLL (``models.py:68,112``), the strictly lowest validation
    loss as checkpoint (``train.py:46-48``), MBM with m = max(1, min(d, floor(eps / 2.18))) on min-max features
    (``privacy.py:116-117``, ``transforms.py:106-117``), clean labels. K is chosen on mean test accuracy
    (``results.ipynb`` cell 5, spec E14): the reproduction shows that choice beside the validation one, never as
    a verdict."""
    return Protocol("lpgnn", "released", (
        Element("split_rule", "released",
                f"{LPGNN_SEED_CODE} transforms.py:59-103, datasets.py:80-87, error.py:72-74,89, experiments.py:27-29",
                "the split a fresh run of the released code draws: torch's generator seeded 12345, one randperm per "
                "dataset in the released order, validation first, then test, then train"),
    ), k_grid=Element("k_grid", (1, 2, 4, 8, 16, 32), f"{LPGNN_SEED_CODE} experiments.py:36",
                      "every K of the paper's grid {1, 2, 4, 8, 16, 32}, whatever the reproduction mode"))


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
             ("lpgnn", "spec"): Protocol("lpgnn", "spec"), ("lpgnn", "released"): _lpgnn_released(),
             ("ldp-ge", "spec"): Protocol("ldp-ge", "spec", pipeline="ldp-ge"),
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
        if getattr(full, e.field) != getattr(config, e.field):  # an element that acts on this run
            grid[f"{e.field} -> spec"] = replace(full, **{e.field: getattr(config, e.field)})
    return grid

