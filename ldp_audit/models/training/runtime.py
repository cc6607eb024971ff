"""Where and how a run executes: the device (chosen once), thread count, seeds and version stamps."""
from __future__ import annotations

import os

from ...seeding import rng_for


def torch_seed(seed: int, *key: int) -> int:
    """A 63-bit torch seed drawn from the stream ``(seed, *key)`` (a run's keys: ``ldp_audit.streams``, training)."""
    return int(rng_for(seed, *key).integers(0, 2**63 - 1))


def choose_device(requested: str | None = None) -> str:
    """``"cuda"`` when available (or asked for), else ``"cpu"``; asking for CUDA without it is a ValueError."""
    import torch

    if requested is None:
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested not in ("cpu", "cuda"):
        raise ValueError(f"device must be 'cpu' or 'cuda', got {requested!r}")
    if requested == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' was requested but torch sees no CUDA device; use --device cpu")
    return requested


def limit_threads() -> None:
    """One intra-op thread per training process: runs are parallelised across processes instead."""
    import torch

    torch.set_num_threads(1)


def versions() -> dict:
    import torch
    import torch_geometric

    from ... import __version__

    return {"torch": torch.__version__, "torch_geometric": torch_geometric.__version__, "ldp_audit": __version__}


def device_name(device: str) -> str:
    import torch

    if device == "cuda":
        return torch.cuda.get_device_name(0)
    return f"{os.cpu_count()} CPU cores"
