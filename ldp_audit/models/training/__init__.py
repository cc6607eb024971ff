"""Private GNN training: one pipeline core (config -> stages -> result store -> sweeps) and its presets.

A ``TrainingConfig`` names a run: ``RunConfig`` (LPGNN and PPGNN's GNNs) or ``ldp_ge.LdpGeConfig`` (LDP-GE, node
or link); ``train_run`` executes any of them (``train_batch``: many GNN runs of one shape as one stacked model);
every run is a ``RunResult``; ``RunStore`` keeps one JSON per (configuration, seed); ``run_sweep`` runs many,
resumably, on an engine; ``lpgnn``, ``ppgnn`` and ``ldp_ge`` hold the papers' grids.
Only the training modules need torch, so they are imported on first use: the CLI can describe its options on a
core-only install.
"""
from importlib import import_module

from .config import RunConfig, TrainingConfig
from .store import RunResult, RunStore

__all__ = ["RunConfig", "TrainingConfig", "RunResult", "RunStore", "RunCache", "train_run", "train_batch"]

_LAZY = {"RunCache": ".cache", "train_run": ".train", "train_batch": ".batched"}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
