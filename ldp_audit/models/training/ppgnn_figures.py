"""PPGNN's figures (seed 004, Sec. IV-B to IV-F) as grids of :class:`RunConfig`: one :class:`FigureCell` per plotted
point (a method at one x value on one dataset), in the cell shape of Table III (``ppgnn.py``).

What each figure plots, as the seed says it (spec §5.4):

* Fig. 3: PPGNN against NonPriv, BASE (MB, no calibration) and LPGNN (MB + KProp) over eps, every dataset.
* Fig. 4 left: PPGNN with GCN, GraphSAGE and GAT over eps; right: PPM* (Laplace inside MLR, A7) against LP.
* Fig. 5 left: the attribute-inference attack (no training: ``audits.attacks.neighbour_vote``); right: PPGNN,
  LPGNN and BASE under the Strict, Relaxed and Bimodal level distributions on Cora with GCN.
* Fig. 6: PPGNN against FlexProp's K in {0, 2, 4, 8, 16}, GraphSAGE, eps in {0.01, 1}.
* Fig. 7: PPGNN on Cora with GraphSAGE against (a) h in {1..5}, (b) gamma in {0.1 .. 0.9}, eps in {0.01, 1}, and
  (c) a fixed m (Cora and LastFM; the m values are not printed: powers of two here).
* Figs. 8 and 9: PPM features with FlexProp against the same features with KProp, GraphSAGE (8) and GCN (9).

Protocol (spec §4, §7): 10 runs per point, K chosen per cell on mean validation accuracy from {0, 2, 4, 8, 16}
("tuned separately per eps") except where K is the x-axis (Fig. 6) and for BASE / NonPriv (no propagation);
baselines at the uniform budget eps = eps^1 (spec 7.7), also under the extreme level distributions of Fig. 5;
LPGNN's and Figs. 8-9's KProp is the mean over neighbours without self-loops (spec A6), placed like FlexProp as
preprocessing. ``--quick`` grids are reduced (Cora, 5 runs, fewer eps, K = 2); every reduced cell says what was cut.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .config import RunConfig
from .lpgnn import Cell
from .ppgnn import EPS_FULL, K_FULL, TABLE3_DATASETS, ppgnn_config

#: Figure ids exactly as the seed numbers its figures.
FIGURES = ("fig3", "fig4", "fig5", "fig6", "fig7", "fig8", "fig9")
#: Each figure's backbone (spec §5.4: Figs. 6, 7 and 8 use GraphSAGE, Figs. 5 right and 9 GCN; Figs. 3 and 4
#: right do not say: GCN, Table III's).
BACKBONES = {"fig3": "gcn", "fig4": "gcn", "fig5": "gcn", "fig6": "sage", "fig7": "sage", "fig8": "sage",
             "fig9": "gcn"}
FIG4_BACKBONES = ("gcn", "sage", "gat")
EPS_FIGS_6_7 = (0.01, 1.0)
H_FULL = (1, 2, 3, 4, 5)
GAMMA_FULL = (0.1, 0.3, 0.5, 0.7, 0.9)
M_FULL = (1, 2, 4, 8, 16)
DISTRIBUTIONS = ("strict", "relaxed", "bimodal")
FIG7_DATASETS = ("cora",)
FIG7C_DATASETS = ("cora", "lastfm")
RUNS_FULL = 10
#: --quick: Cora, 5 runs (the fewest the paired verdicts decide on), eps in {0.01, 1} (Figs. 5-7: eps = 1), K = 2,
#: short sweeps.
RUNS_QUICK = 5
EPS_QUICK = (0.01, 1.0)
EPS_QUICK_SWEEPS = (1.0,)
K_QUICK = (2,)
K_SWEEP_QUICK = (0, 2, 8)
H_QUICK = (1, 3, 5)
GAMMA_QUICK = (0.1, 0.5, 0.9)
M_QUICK = (1, 8)
QUICK_DATASETS = ("cora",)


@dataclass(frozen=True, eq=False)
class FigureCell(Cell):
    """One plotted point: ``series`` (the legend entry) at ``x`` (eps, K, h, gamma, m or a distribution) in panel
    ``panel`` (a dataset, or a dataset and a sub-figure); ``reduced`` says what --quick cut from the paper's grid."""

    series: str = ""
    x: object = None
    panel: str = ""
    reduced: str = ""


@dataclass(frozen=True)
class Grid:
    """The sizes of one target: runs per point, eps values, K candidates (chosen on validation) and the sweeps."""

    quick: bool
    runs: int
    datasets: tuple

    @property
    def eps(self) -> tuple:
        return EPS_QUICK if self.quick else EPS_FULL

    @property
    def sweep_eps(self) -> tuple:
        return EPS_QUICK_SWEEPS if self.quick else EPS_FIGS_6_7

    @property
    def ks(self) -> tuple:
        return K_QUICK if self.quick else K_FULL

    def reduced(self, *cuts: str) -> str:
        """What --quick cut, for the cell's row ('' with --full)."""
        if not self.quick:
            return ""
        return "quick grid: " + ", ".join((f"{self.runs} runs (paper 10)",) + cuts)


def method_config(loader: str, method: str, eps: float | None, k: int, seed: int, model: str, **changes) -> RunConfig:
    """One run of a figure's method on dataset ``loader``: NonPriv (raw features, no propagation), BASE (MB, no
    calibration), LPGNN (MB + KProp mean without self-loops), PPGNN (PPM + FlexProp), PPGNN+KProp (PPM's reports
    with LPGNN's KProp), PPM* (+ FlexProp), LP (Table III's, every coordinate at eps/d); PPGNN fields in
    ``changes``."""
    if method == "NonPriv":
        return replace(ppgnn_config(loader, "MB", 1.0, 0, seed, model), eps_x=None, **changes)
    if method == "BASE":
        return replace(ppgnn_config(loader, "MB", eps, 0, seed, model), **changes)
    kprop = {"propagation": "kprop", "aggregator": "mean", "self_loops": False}
    table3 = {"LPGNN": ("MB", kprop), "PPGNN": ("PPM", {}), "PPGNN+KProp": ("PPM", kprop), "LP": ("LP", {}),
              "PPM*": ("PPM", {"mechanism": "ppm_star"})}
    if method not in table3:
        raise ValueError(f"method must be one of NonPriv, BASE, {', '.join(table3)}, got {method!r}")
    name, extra = table3[method]
    return replace(ppgnn_config(loader, name, eps, k, seed, model), **extra, **changes)


def _point(figure: str, grid: Grid, name: str, series: str, method: str, eps, x, panel: str, model: str,
           has_features: dict, reduced: str, ks=None, label: str = "eps", column: str | None = None,
           **changes) -> FigureCell:
    """One point: ``method`` on paper dataset ``name`` at ``eps``, K candidates ``ks`` (default: the grid's; none
    for NonPriv and BASE), plotted as ``series`` at ``x`` (an x-axis called ``label``) in ``panel``."""
    loader = TABLE3_DATASETS[name]
    ks = (0,) if method in ("NonPriv", "BASE") else (ks or grid.ks)
    candidates = {k: [method_config(loader, method, eps, k, s, model, **changes) for s in range(grid.runs)]
                  for k in ks}
    features = has_features.get(loader, True)
    column = column or (series if x is None else f"{series} @ {label}={x:g}" if label else f"{series} @ {x}")
    return FigureCell(f"ppgnn_{figure}", name, column, "figure", candidates, features,
                      "" if features else "not runnable: features missing", series=series, x=x, panel=panel,
                      reduced=reduced)


def _eps_lines(figure, grid, methods, model, has_features, cut, series_of=lambda m: m, panel="{}"):
    cells = []
    for name in grid.datasets:
        for method in methods:
            for eps in ((None,) if method == "NonPriv" else grid.eps):
                cells.append(_point(figure, grid, name, series_of(method), method, eps, eps, panel.format(name),
                                    model, has_features, grid.reduced(*cut)))
    return cells


def fig3_cells(grid: Grid, has_features: dict) -> list[FigureCell]:
    """Fig. 3: NonPriv, BASE, LPGNN and PPGNN against eps (GCN)."""
    return _eps_lines("fig3", grid, ("NonPriv", "BASE", "LPGNN", "PPGNN"), BACKBONES["fig3"], has_features,
                      ("eps in {0.01, 1} (paper 0.01, 0.1, 1)", "K = 2 (paper: K on validation from 0..16)"))


def fig4_cells(grid: Grid, has_features: dict) -> list[FigureCell]:
    """Fig. 4: PPGNN with GCN / GraphSAGE / GAT against eps (left); PPM* against LP (right, GCN)."""
    cut = ("eps in {0.01, 1} (paper 0.01, 0.1, 1)", "K = 2 (paper: K on validation from 0..16)")
    cells = []
    for model in FIG4_BACKBONES:
        cells += _eps_lines("fig4", grid, ("PPGNN",), model, has_features, cut, lambda m: f"PPGNN {model.upper()}",
                            "{} (left)")
    return cells + _eps_lines("fig4", grid, ("PPM*", "LP"), BACKBONES["fig4"], has_features, cut,
                              panel="{} (right)")


def fig5_cells(grid: Grid, has_features: dict) -> list[FigureCell]:
    """Fig. 5 right: BASE, LPGNN and PPGNN under the Strict / Relaxed / Bimodal level distributions (Cora, GCN).
    BASE and LPGNN run at the uniform budget eps = eps^1 whatever the distribution (spec 7.7), so one cell each
    serves the three cases; the eps is not printed: {0.01, 1} (--quick: 1)."""
    cells = []
    cut = grid.reduced("eps = 1 (not printed; full: 0.01 and 1)", "K = 2 (paper: K on validation from 0..16)")
    for name in ("cora",):
        for eps in grid.sweep_eps:
            panel = f"{name} eps={eps:g}"
            for method in ("BASE", "LPGNN"):
                cells.append(_point("fig5", grid, name, method, method, eps, "uniform", panel,
                                    BACKBONES["fig5"], has_features, cut, column=f"{method} eps={eps:g}"))
            for distribution in DISTRIBUTIONS:
                cells.append(_point("fig5", grid, name, "PPGNN", "PPGNN", eps, distribution, panel,
                                    BACKBONES["fig5"], has_features, cut, level_distribution=distribution,
                                    column=f"PPGNN eps={eps:g} @ {distribution}"))
    return cells


def fig6_cells(grid: Grid, has_features: dict) -> list[FigureCell]:
    """Fig. 6: PPGNN at each K (the x-axis: no choice on validation), GraphSAGE, eps in {0.01, 1}."""
    ks = K_SWEEP_QUICK if grid.quick else K_FULL
    cut = grid.reduced("eps = 1 (paper 0.01 and 1)", "K in {0, 2, 8} (paper 0, 2, 4, 8, 16)")
    cells = []
    for name in grid.datasets:
        for eps in grid.sweep_eps:
            for k in ks:
                cells.append(_point("fig6", grid, name, f"PPGNN eps={eps:g}", "PPGNN", eps, k, name,
                                    BACKBONES["fig6"], has_features, cut, ks=(k,), label="K"))
    return cells


def fig7_cells(grid: Grid, has_features: dict) -> list[FigureCell]:
    """Fig. 7: PPGNN (GraphSAGE) against h (a) and gamma (b) on Cora, and against a fixed m (c) on Cora and
    LastFM; eps in {0.01, 1}; the other two parameters at the paper's defaults (h = 5, gamma = 0.5, Algorithm 2's
    m)."""
    sweeps = (("a", "h", "ppm_levels", H_QUICK if grid.quick else H_FULL, FIG7_DATASETS),
              ("b", "gamma", "ppm_gamma", GAMMA_QUICK if grid.quick else GAMMA_FULL, FIG7_DATASETS),
              ("c", "m", "m", M_QUICK if grid.quick else M_FULL, FIG7C_DATASETS))
    cut = grid.reduced("eps = 1 (paper 0.01 and 1)", "K = 2 (paper: K on validation from 0..16)",
                       "h in {1, 3, 5}, gamma in {0.1, 0.5, 0.9}, m in {1, 8}, Cora only (paper: 7c also LastFM)")
    cells = []
    for sub, label, field, values, names in sweeps:
        for name in (n for n in names if n in grid.datasets):
            for eps in grid.sweep_eps:
                for value in values:
                    cells.append(_point("fig7", grid, name, f"PPGNN eps={eps:g}", "PPGNN", eps, value,
                                        f"{name} 7({sub}) {label}", BACKBONES["fig7"], has_features, cut,
                                        label=label, **{field: value}))
    return cells


def _propagation_cells(figure: str, grid: Grid, has_features: dict) -> list[FigureCell]:
    """Figs. 8-9: PPM's reports propagated by FlexProp (PPGNN) or by KProp, against eps."""
    series = {"PPGNN": "FlexProp", "PPGNN+KProp": "KProp"}
    return _eps_lines(figure, grid, tuple(series), BACKBONES[figure], has_features,
                      ("eps in {0.01, 1} (paper 0.01, 0.1, 1)", "K = 2 (paper: K on validation from 0..16)"),
                      series.get)


FIGURE_CELLS = {"fig3": fig3_cells, "fig4": fig4_cells, "fig5": fig5_cells, "fig6": fig6_cells,
                "fig7": fig7_cells, "fig8": lambda g, h: _propagation_cells("fig8", g, h),
                "fig9": lambda g, h: _propagation_cells("fig9", g, h)}


def figure_cells(figure: str, grid: Grid, has_features: dict | None = None) -> list[FigureCell]:
    """The cells of one figure id (:data:`FIGURES`)."""
    if figure not in FIGURE_CELLS:
        raise ValueError(f"figure must be one of {', '.join(FIGURES)}, got {figure!r}")
    for name in grid.datasets:
        if name not in TABLE3_DATASETS:
            raise ValueError(f"datasets must be among {', '.join(TABLE3_DATASETS)}, got {name!r}")
    return FIGURE_CELLS[figure](grid, has_features or {})
