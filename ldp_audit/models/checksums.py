"""Dataset files checked before they are read: present, and equal to the checksum the folder records.

A dataset folder holds a ``SHA256SUMS`` file (``sha256sum`` format: ``<hex>  <relative path>``); every file a
loader reads is checked against its line there, so a truncated or edited file is a clear error that names the
file and the folder instead of a parse error deep inside numpy or pickle (or, worse, a silent wrong graph). A
folder without ``SHA256SUMS``, or a file without a line in it, is refused: its files cannot be checked. Reading
them unchecked is the caller's stated choice (``verify=False``; the CLI's ``--no-verify``), never a silent one.
A file is hashed at most once per process while its size and modification time stay the same.

:func:`content_key` digests a set of files; a processed cache keyed by it is rebuilt when any raw file changes.
"""
from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

SUMS_FILE = "SHA256SUMS"
_BLOCK = 1 << 20


class DatasetFileError(ValueError):
    """A dataset file is missing, damaged or malformed; the message names the file and its folder."""


#: What a path that is not a regular file is, in words, by the ``stat`` test that recognises it.
_NOT_REGULAR = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def not_regular(path: Path) -> str | None:
    """What ``path`` is when it exists but is not a regular file (a link is followed), in words, or None."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    kind = next((words for test, words in _NOT_REGULAR if test(mode)), "not a regular file")
    if os.path.islink(path):
        kind += f" (the link leads to {os.path.realpath(path)})"
    return kind


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, which must be a regular file (or a link to one) of at most ``limit`` bytes.

    What the path is gets checked with ``os.stat`` before it is opened: a FIFO is never opened (the read would
    wait for a writer forever) and a device such as ``/dev/zero`` never read (it never ends). A ``ValueError``
    saying what is wrong ("it is a named pipe (FIFO), ...") otherwise, for the caller to prefix with the file's
    name; an ``OSError`` of ``stat`` or ``open`` passes through.
    """
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"it is {not_regular(path) or 'not a regular file'}, not a regular file")
    too_big = f"more than the {limit:,} bytes such a file may hold"
    if info.st_size > limit:
        raise ValueError(f"it holds {info.st_size:,} bytes, {too_big}")
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:  # it grew after the stat
        raise ValueError(f"it holds {too_big}")
    return data


#: (resolved path, size, mtime_ns) -> hex digest; one hash per file and process while the file is unchanged
_DIGESTS: dict[tuple[str, int, int], str] = {}
#: (resolved SHA256SUMS path, size, mtime_ns) -> {relative path: hex digest}
_SUMS: dict[tuple[str, int, int], dict[str, str]] = {}


def _stamp(path: Path) -> tuple[str, int, int]:
    info = path.stat()
    return str(path.resolve()), info.st_size, info.st_mtime_ns


def sha256(path: Path) -> str:
    """The SHA-256 of ``path`` (hex), computed once while its size and mtime do not change."""
    stamp = _stamp(path)
    if stamp not in _DIGESTS:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(_BLOCK), b""):
                digest.update(block)
        _DIGESTS[stamp] = digest.hexdigest()
    return _DIGESTS[stamp]


def recorded_sums(root: Path) -> dict[str, str]:
    """``root/SHA256SUMS`` as ``{relative path: hex}``; empty when the folder has none."""
    path = root / SUMS_FILE
    if not path.is_file():
        return {}
    stamp = _stamp(path)
    if stamp not in _SUMS:
        sums = {}
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if not line.strip():
                continue
            digest, _, name = line.strip().partition(" ")
            name = name.strip().lstrip("*")
            if len(digest) != 64 or not name or any(c not in "0123456789abcdefABCDEF" for c in digest):
                raise DatasetFileError(f"{path}, line {number}: expected '<sha256 hex>  <file>', got {line!r}")
            sums[name.replace(os.sep, "/")] = digest.lower()
        _SUMS[stamp] = sums
    return _SUMS[stamp]


#: How to go on when a file cannot be checked (the end of those messages).
UNVERIFIED_REMEDY = ("or, to read the folder's files without checking them, say so: --no-verify on the command "
                     "line, verify=False in Python (ldp_audit.models.data.load)")


def check_files(root: Path, files: list[Path], dataset: str, verify: bool = True) -> None:
    """Every one of ``files`` (inside ``root``) exists and, with ``verify``, equals its line of
    ``root/SHA256SUMS`` (a folder without that file, or a file without a line, is refused).

    Raises :class:`DatasetFileError` naming the file, the folder and what to do; nothing is downloaded.
    """
    sums_path = root / SUMS_FILE
    if verify and not sums_path.is_file():
        raise DatasetFileError(f"dataset {dataset}: the dataset folder {root} has no {SUMS_FILE}, so its files "
                               f"cannot be checked before they are read. Add one (the shared datasets folder ships "
                               f"it; for your own files run 'sha256sum FILE... > {SUMS_FILE}' in {root}), "
                               f"{UNVERIFIED_REMEDY}")
    sums = recorded_sums(root) if verify else {}
    for path in files:
        relative = path.relative_to(root).as_posix()
        kind = not_regular(path)
        if kind is not None:
            raise DatasetFileError(f"dataset {dataset}: {relative} in the dataset folder {root} is {kind}, not a "
                                   "regular file; put the file itself there (see the datasets README)")
        if not path.is_file():
            raise DatasetFileError(f"dataset {dataset}: the file {relative} is missing from the dataset folder "
                                   f"{root} (nothing is downloaded at run time; put the file there, see the "
                                   "datasets README)")
        if not verify:
            continue
        want = sums.get(relative)
        if want is None:
            raise DatasetFileError(f"dataset {dataset}: the file {relative} has no line in {sums_path}, so it "
                                   f"cannot be checked before it is read. Add its line (run 'sha256sum {relative} "
                                   f">> {SUMS_FILE}' in {root}), {UNVERIFIED_REMEDY}")
        if sha256(path) != want:
            raise DatasetFileError(f"dataset {dataset}: the file {relative} in {root} is damaged: its SHA-256 "
                                   f"{sha256(path)[:16]}... differs from {SUMS_FILE} ({want[:16]}...), size "
                                   f"{path.stat().st_size:,} bytes; restore it from the source the datasets "
                                   "README names")


def content_key(files: list[Path]) -> str:
    """A short digest of the names and contents of ``files``: a cache keyed by it is never stale."""
    digest = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.name):
        digest.update(f"{path.name}\0{sha256(path)}\n".encode())
    return digest.hexdigest()[:16]
