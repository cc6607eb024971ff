"""Private GNN training: one pipeline core (config -> stages -> result store -> sweeps) and its presets.

``RunConfig`` names a run; ``train_run`` executes it (``train_batch``: many of one shape as one stacked
model); ``RunStore`` keeps one JSON per (configuration, seed);
``run_sweep`` runs many, resumably and in parallel processes; ``lpgnn`` holds the LPGNN paper's grids.
Only the training modules need torch, so they are imported on first use: the CLI can describe its options on a
core-only install.
"""
from importlib import import_module

from .config import RunConfig
from .store import RunResult, RunStore

__all__ = ["RunConfig", "RunResult", "RunStore", "RunCache", "train_run", "train_batch"]

_LAZY = {"RunCache": ".cache", "train_run": ".train", "train_batch": ".batched"}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
