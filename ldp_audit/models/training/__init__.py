"""Private GNN training: one pipeline core (config -> stages -> result store -> sweeps) and its presets.

``RunConfig`` names a run; ``train_run`` executes it; ``RunStore`` keeps one JSON per (configuration, seed);
``run_sweep`` runs many, resumably and in parallel processes; ``lpgnn`` holds the LPGNN paper's grids.
"""
from .config import RunConfig
from .store import RunResult, RunStore
from .train import RunCache, train_run

__all__ = ["RunConfig", "RunResult", "RunStore", "RunCache", "train_run"]
