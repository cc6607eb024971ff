"""Where and how a run executes: the device (chosen once), thread count, seeds, version stamps, the CPU code
path (the kernels torch and MKL chose for this CPU), and runs of a group trained one after the other."""
from __future__ import annotations

import ctypes
import os
from functools import lru_cache
from pathlib import Path
from typing import Callable

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


#: MKL's code paths by the number ``mkl_cbwr_get(MKL_CBWR_BRANCH)`` returns, spelt as ``MKL_CBWR`` takes them.
#: ``OFF``: MKL dispatches by CPU and operand shape as it likes (no ``MKL_CBWR`` set).
MKL_BRANCHES = {1: "OFF", 2: "AUTO", 3: "COMPATIBLE", 4: "SSE2", 6: "SSSE3", 7: "SSE4_1", 8: "SSE4_2", 9: "AVX",
                10: "AVX2", 12: "AVX512", 14: "AVX512_E1"}


@lru_cache(maxsize=1)
def mkl_branch() -> str | None:
    """MKL's code path in this process (:data:`MKL_BRANCHES`; fixed once MKL starts), or None when torch carries no
    MKL (or does not export MKL's service call). The number of a branch this table does not name is kept."""
    import torch

    library = Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"
    try:
        get = ctypes.CDLL(str(library)).mkl_serv_cbwr_get
    except (OSError, AttributeError):
        return None
    code = int(get(1))  # MKL_CBWR_BRANCH
    return MKL_BRANCHES.get(code, f"branch {code}")


def cpu_code_path() -> dict:
    """The kernels this process runs on CPU: torch's CPU capability (``ATEN_CPU_CAPABILITY``: DEFAULT, AVX2,
    AVX512) and MKL's branch (``MKL_CBWR``). Training results are bit-identical alone and in any stack on every
    path; two paths (two CPUs) agree to float rounding only."""
    import torch

    return {"aten": torch.backends.cpu.get_cpu_capability(), "mkl": mkl_branch()}


def device_name(device: str) -> str:
    """The GPU's name, or the CPU's cores and code path: ``2 CPU cores, AVX512`` (and ``, MKL_CBWR=AVX2`` where
    MKL was held to one branch)."""
    import torch

    if device == "cuda":
        return torch.cuda.get_device_name(0)
    path = cpu_code_path()
    mkl = f", MKL_CBWR={path['mkl']}" if path["mkl"] not in (None, "OFF") else ""
    return f"{os.cpu_count()} CPU cores, {path['aten']}{mkl}"


def one_after_another(run: Callable, configs: list, device: str, cache, stop=None) -> list:
    """``run(config, device, cache)`` for each config in order; once ``stop`` (an event) is set, the group ends
    after the run in progress and returns the results so far."""
    results = []
    for config in configs:
        if stop is not None and stop.is_set():
            break
        results.append(run(config, device, cache))
    return results
