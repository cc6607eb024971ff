"""Atomic file output, below every layer: a reader sees the old file or the whole new one, never a part.

Reports, plots and training results are all written through :func:`write_atomic`, so an interrupted run never
leaves a truncated file behind.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _read_umask() -> int:
    mask = os.umask(0)  # the only way to read it; done once, at import, before any worker thread exists
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def write_atomic(path: str | os.PathLike, text: str | bytes) -> Path:
    """Write ``text`` (str or bytes) to ``path`` through a temporary file in the same folder and ``os.replace``;
    missing parent folders are created."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with (os.fdopen(fd, "wb") if isinstance(text, bytes) else os.fdopen(fd, "w", encoding="utf-8")) as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes the file private (0600); give it the usual mode
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target
