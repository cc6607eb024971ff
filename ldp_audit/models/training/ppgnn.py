"""PPGNN's Table III (feature mechanisms, ppgnn spec §5.3) as grids of :class:`RunConfig`, in LPGNN's cell shape.

A PPM cell is PPGNN: personalised reports (ppgnn A4, h = 5, gamma = 0.5, uniform levels) and FlexProp(K)
weighted by the reported levels (A5) as preprocessing before a two-layer backbone. The baselines 1B, LP, GM
(every coordinate at eps/d) and MB (m sampled coordinates) use the uniform budget eps = eps^1 (spec §7.7) with
the same placement: KProp(K) mean with self-loops, which is FlexProp with equal weights. K is chosen per cell on
mean validation accuracy (spec §4: "tuned separately per eps").

Under the released protocol (``protocols.protocol("ppgnn", "released")``) PPM is the authors' released variant
(``ppm_variant``), GM is LPGNN's analytic Gaussian on the whole vector (``gaussian_baseline``) and the baselines
propagate with LPGNN's KProp (GCN normalisation, no self-loops): the released PPGNN code cannot run them (issue 26).

The paper prints no chosen learning rate, weight decay or dropout (only grids, spec §4); PPGNN extends LPGNN,
so the runs use LPGNN's per-dataset values (seed Table 2 of lpgnn) and are not re-tuned here.
"""
from __future__ import annotations

from .config import RunConfig
from .lpgnn import HYPERPARAMETERS, Cell

#: The paper's dataset names -> our loader names (ppgnn Table II).
TABLE3_DATASETS = {"cora": "cora", "citeseer": "citeseer", "pubmed": "pubmed", "lastfm": "lastfm_asia",
                   "facebook": "facebook", "wikipedia": "wikipedia_crocodile"}
#: Table III's mechanisms -> (``RunConfig.mechanism``, ``RunConfig.m``). 1B, LP and GM perturb every coordinate
#: at eps/d (spec §5.3: M3 rectified, M1, M2 with the corrected sigma of E1); MB samples m by LPGNN's rule (M4).
MECHANISMS = {"1B": ("multibit", "all"), "LP": ("laplace_hd", "all"), "GM": ("gaussian_hd", "all"),
              "MB": ("multibit", "lpgnn"), "PPM": ("ppm", "ppgnn")}
#: The quick preset's columns (CPU budget): the two the paper's claim C17 compares.
MECHANISMS_QUICK = ("MB", "PPM")
EPS_FULL = (0.01, 0.1, 1.0)
K_FULL = (0, 2, 4, 8, 16)
RUNS_FULL = 10
EPS_QUICK = (0.01, 1.0)
K_QUICK = (2, 8)
RUNS_QUICK = 3
QUICK_DATASETS = ("cora",)
#: Backbone, hidden size and training length of spec §4 (GCN; SAGE and GAT via ``model``).
MODEL, HIDDEN, EPOCHS = "gcn", 16, 500
#: lr, weight decay, dropout when lpgnn has no value for the dataset (Wikipedia): the middle of spec §4's grids.
DEFAULT_HYPERPARAMETERS = (0.01, 0.001, 0.5)


def column(mechanism: str, eps: float) -> str:
    return f"{mechanism} eps={eps:g}"


def ppgnn_config(dataset: str, mechanism: str, eps: float, k: int, seed: int, model: str = MODEL) -> RunConfig:
    """One run of Table III: ``mechanism`` a Table III name (:data:`MECHANISMS`), ``dataset`` a loader name."""
    if mechanism not in MECHANISMS:
        raise ValueError(f"mechanism must be one of {', '.join(MECHANISMS)}, got {mechanism!r}")
    lr, wd, dropout = HYPERPARAMETERS.get(dataset, DEFAULT_HYPERPARAMETERS)
    propagation = {} if mechanism == "PPM" else {"aggregator": "mean", "self_loops": True}
    name, m = MECHANISMS[mechanism]
    return RunConfig(dataset, mechanism=name, eps_x=eps, m=m, k_x=k, model=model, hidden=HIDDEN,
                     dropout=dropout, lr=lr, weight_decay=wd, epochs=EPOCHS, seed=seed, **propagation)


def table3_cells(datasets, eps_grid=EPS_FULL, mechanisms=tuple(MECHANISMS), k_grid=K_FULL,
                 runs: int = RUNS_FULL, model: str = MODEL, has_features: dict | None = None,
                 protocol=None) -> list[Cell]:
    """Cells of ppgnn Table III for ``datasets`` (paper names), one per (eps, mechanism), K on validation;
    ``protocol`` (a ``protocols.Protocol``, None for the spec's) is applied to every run."""
    build = ppgnn_config if protocol is None else (lambda *a: protocol.apply(ppgnn_config(*a)))
    cells = []
    for name in datasets:
        if name not in TABLE3_DATASETS:
            raise ValueError(f"datasets must be among {', '.join(TABLE3_DATASETS)}, got {name!r}")
        loader = TABLE3_DATASETS[name]
        features = (has_features or {}).get(loader, True)
        for eps in eps_grid:
            for mechanism in mechanisms:
                candidates = {k: [build(loader, mechanism, eps, k, s, model) for s in range(runs)]
                              for k in k_grid}
                cells.append(Cell("ppgnn_table3", name, column(mechanism, eps),
                                  "lpgnn", candidates, features,
                                  "" if features else "not runnable: features missing"))
    return cells
