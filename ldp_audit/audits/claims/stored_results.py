"""Where the claims that rest on training runs read stored ``ldp-audit reproduce PAPER`` results."""
from __future__ import annotations

import os
from pathlib import Path

#: The committed results of the repository: benchmarks/results/<paper>/{full,quick}.
_COMMITTED = Path(__file__).resolve().parents[3] / "benchmarks" / "results"


def committed_or_env(env: str, *parts: str) -> Path:
    """The folder named by the environment variable ``env``, else benchmarks/results/``parts`` of the repository
    (which an installed package does not have: the claims reading it then say so)."""
    return Path(os.environ[env]) if os.environ.get(env) else _COMMITTED.joinpath(*parts)


def results_folder(paper: str, env: str) -> tuple[str | None, Path | None]:
    """(mode, folder) of the stored results of ``paper``: the folder named by the environment variable ``env``
    (mode "env"), else the committed full results, else the quick ones; (None, None) when there are none."""
    if os.environ.get(env):
        return "env", Path(os.environ[env])
    return next(((mode, _COMMITTED / paper / mode) for mode in ("full", "quick") if (_COMMITTED / paper / mode).is_dir()),
                (None, None))
