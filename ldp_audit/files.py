"""Files, below every layer: write targets proven before a run, atomic output, and clean write errors.

Before any work, a command proves each place it will write (:func:`check_output_file`, :func:`check_output_folder`):
the nearest existing folder takes a real write, every name to create fits the file system (``NAME_MAX``, and
``PATH_MAX`` for the whole path), the disk has room and the process's file size limit (``ulimit -f``) allows a
result file. Reports, plots and training results are then all written through :func:`write_atomic`, so an
interrupted run never leaves a truncated file behind, and a write that fails anyway (disk full, file size limit,
permissions) raises :class:`OutputError` naming the path. CPython ignores SIGXFSZ, so a write over ``ulimit -f``
fails with EFBIG instead of killing the process.

The temporary file of a write carries its writer's host and process id; a writer killed between writing and
renaming leaves it behind, and the next write in that folder removes it once that process is gone (or, for a
writer on another host, once it is a day old), never the temporary of a writer still at work.
"""
from __future__ import annotations

import errno
import hashlib
import os
import re
import resource
import shutil
import socket
import stat
import tempfile
import time
from pathlib import Path

#: Room a write target must offer before a run starts, as free disk space and as the file size limit: the files
#: of a run are kilobytes (a plot a few hundred), so less than this is a full disk or a limit set by mistake.
MIN_ROOM_BYTES = 1 << 20
#: Longest file-name part kept in a temporary's name, in bytes: with the writer's mark and mkstemp's letters it
#: stays within the usual NAME_MAX of 255 whatever the target's name.
_TEMP_NAME_BYTES = 200
#: Age after which a temporary of a writer on another host is abandoned (its process cannot be asked); a write
#: takes seconds, so a day leaves a wide margin.
STALE_AFTER_S = 24 * 3600
#: This host, as it appears in the temporaries' names (a short hash: host names can be long).
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
_TEMPORARY = re.compile(r"^\..*\.ldp-audit-(?P<host>[0-9a-f]{8})-(?P<pid>[0-9]{1,10})\.[a-z0-9_]{8}\.tmp$", re.S)


class OutputError(OSError, ValueError):
    """A file or folder that cannot be written, with a message naming it, the cause and the way out.

    A ValueError, so the CLI exits 2 with the message (a usage problem: another path, more room); an OSError, so
    callers that handle I/O errors keep handling it (``errno`` is the cause's when there is one)."""

    def __init__(self, message: str, code: int | None = None):
        super().__init__(message)
        self.errno = code

    def __reduce__(self):  # whole across a process pool: the message and the errno
        return type(self), (str(self), self.errno)


def _read_umask() -> int:
    mask = os.umask(0)  # the only way to read it; done once, at import, before any worker thread exists
    os.umask(mask)
    return mask


_UMASK = _read_umask()


# ------------------------------------------------------------------------------------------- proven targets

def check_output_file(option: str, path: str | os.PathLike) -> list[Path]:
    """Prove before the run that the file ``path`` (given as ``option``) can be written; return the folders that
    writing it will create. Besides :func:`check_output_folder`'s checks of its folder: not empty, not a folder
    or a device, writable if it exists, and a name the file system takes."""
    if not str(path).strip():
        raise OutputError(f"{option} is empty; give a file name")
    target = Path(path).expanduser()
    status = _status(option, path, target)
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise OutputError(f"{option} {str(path)!r} is a folder; give a file name")
    if status is not None and not stat.S_ISREG(status.st_mode):  # the atomic rename would replace a device
        raise OutputError(f"{option} {str(path)!r} is not a regular file (a device, pipe or socket); files are "
                          "written atomically by replacing them, so give a file name")
    missing = _check_room(option, path, target.parent, target if status is None else None)
    if status is not None and not os.access(target, os.W_OK):
        raise OutputError(f"{option} {str(path)!r} exists and is not writable")
    return missing


def check_output_folder(option: str, path: str | os.PathLike) -> list[Path]:
    """Prove before the run that files can be written inside the folder ``path`` (given as ``option``: results,
    the dataset cache); return the folders that will be created for it. Nothing is created here.

    The path must not be a file; the nearest existing folder takes a real write (permission bits say little to
    root or on special file systems); every name to create fits the file system; its disk has
    :data:`MIN_ROOM_BYTES` free; and the file size limit allows as much."""
    target = Path(path).expanduser()
    status = _status(option, path, target)
    if status is not None and not stat.S_ISDIR(status.st_mode):
        raise OutputError(f"{option} {str(path)!r} is a file, not a folder")
    return _check_room(option, path, target)


def _check_room(option: str, path, folder: Path, file: Path | None = None) -> list[Path]:
    """The folders from ``folder`` up to its nearest existing ancestor that do not exist yet (outermost first),
    once that ancestor, the names to create (``file`` too, when given) and the room are proven (``option`` and
    ``path`` name the user's input in the messages)."""
    existing, missing = folder, []
    while _status(option, path, existing) is None and existing.parent != existing:
        missing.append(existing)
        existing = existing.parent
    if not stat.S_ISDIR(_status(option, path, existing).st_mode):
        raise OutputError(f"{option} {str(path)!r}: {str(existing)!r} is not a folder")
    missing.reverse()
    _check_names(option, path, existing, missing + ([file] if file is not None else []))
    _check_file_size_limit(option, path)
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise OutputError(f"{option} {str(path)!r}: the folder {str(existing)!r} is not writable "
                          f"({exc.strerror})", exc.errno) from None
    status = os.statvfs(existing)
    if status.f_bavail * status.f_frsize < MIN_ROOM_BYTES:
        raise OutputError(f"{option} {str(path)!r}: the disk holding {str(existing)!r} is full "
                          f"({status.f_bavail * status.f_frsize} bytes free)", errno.ENOSPC)
    return missing


def _status(option: str, given, path: Path) -> os.stat_result | None:
    """``os.stat(path)``, or None where nothing is there, including a path too long to exist (where
    ``Path.exists`` would raise); a path that cannot be looked at (a folder on the way that may not be searched)
    is an :class:`OutputError` naming ``option`` and the ``given`` path."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            return None
        raise OutputError(f"{option} {str(given)!r}: {str(path)!r} cannot be looked at ({exc.strerror})",
                          exc.errno) from None


def _check_names(option: str, path, existing: Path, created: list[Path]) -> None:
    """Every name of the paths ``created`` (outermost first) within NAME_MAX, and the deepest within PATH_MAX:
    the limits of the file system of ``existing``, their nearest existing folder."""
    if not created:
        return
    name_max, path_max = _limit(existing, "PC_NAME_MAX"), _limit(existing, "PC_PATH_MAX")
    for part in created:
        size = len(os.fsencode(part.name))
        if name_max is not None and size > name_max:
            raise OutputError(f"{option} {str(path)!r}: the name {part.name!r} is {size} bytes long; this file "
                              f"system allows at most {name_max} (NAME_MAX); give a shorter name",
                              errno.ENAMETOOLONG)
    size = len(os.fsencode(os.path.abspath(created[-1])))
    if path_max is not None and size >= path_max:
        raise OutputError(f"{option} {str(path)!r} is {size} bytes long as a full path; this file system allows "
                          f"fewer than {path_max} (PATH_MAX); give a shorter path", errno.ENAMETOOLONG)


def _limit(folder: Path, name: str) -> int | None:
    """``os.pathconf(folder, name)``, or None where the file system sets no limit or does not say."""
    try:
        limit = os.pathconf(folder, name)
    except (OSError, ValueError):
        return None
    return limit if limit is not None and limit > 0 else None


def _check_file_size_limit(option: str, path) -> None:
    """The process's file size limit (RLIMIT_FSIZE, ``ulimit -f``) allows a file of :data:`MIN_ROOM_BYTES`."""
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit != resource.RLIM_INFINITY and limit < MIN_ROOM_BYTES:
        raise OutputError(f"{option} {str(path)!r}: this process may not write files larger than {limit} bytes "
                          f"(the file size limit, ulimit -f), and a result file may need {MIN_ROOM_BYTES} bytes; "
                          "raise the limit (ulimit -f unlimited)", errno.EFBIG)


# ----------------------------------------------------------------------------------------------- writing

def write_atomic(path: str | os.PathLike, text: str | bytes) -> Path:
    """Write ``text`` (str or bytes) to ``path`` through a temporary file in the same folder and ``os.replace``;
    missing parent folders are created, and temporaries left there by killed writers are removed first
    (:func:`remove_stale_temporaries`). A failed write leaves the old file (if any) and no temporary, and raises
    :class:`OutputError` naming ``path``."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(target.parent)
        fd, tmp = tempfile.mkstemp(prefix=temporary_prefix(target.name), suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise write_failure(target, exc) from exc
    try:
        with (os.fdopen(fd, "wb") if isinstance(text, bytes) else os.fdopen(fd, "w", encoding="utf-8")) as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes the file private (0600); give it the usual mode
        os.replace(tmp, target)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise write_failure(target, exc) from exc
        raise
    return target


def write_failure(path: str | os.PathLike, exc: OSError) -> OutputError:
    """The :class:`OutputError` for ``exc``, an OSError met while writing ``path``: the path, the system's words and,
    for the usual causes, what to do."""
    hints = {errno.EFBIG: f"the file size limit (ulimit -f) is {resource.getrlimit(resource.RLIMIT_FSIZE)[0]} "
                          "bytes; raise it (ulimit -f unlimited)",
             errno.ENOSPC: "free some space on that disk or write elsewhere",
             errno.EDQUOT: "free some space within your quota or write elsewhere",
             errno.ENAMETOOLONG: "give a shorter name",
             errno.EACCES: "write to a folder you may write to",
             errno.EROFS: "write to a folder on a writable file system"}
    hint = hints.get(exc.errno)
    return OutputError(f"could not write {str(path)!r} ({exc.strerror or exc}){': ' + hint if hint else ''}; "
                       "nothing was left half-written there", exc.errno)


def temporary_prefix(name: str) -> str:
    """``.NAME.ldp-audit-HOST-PID.``: the start of the name of a temporary file or folder for ``name`` (mkstemp and
    mkdtemp add 8 letters, the caller ``.tmp``), which :func:`remove_stale_temporaries` knows; the name part is
    cut to :data:`_TEMP_NAME_BYTES` bytes so that any name that fits the file system leaves room."""
    part = os.fsencode(name)[:_TEMP_NAME_BYTES].decode("utf-8", errors="ignore")
    return f".{part}.ldp-audit-{_HOST}-{os.getpid()}."


def remove_stale_temporaries(folder: str | os.PathLike) -> list[Path]:
    """Remove the temporary files and folders (:func:`temporary_prefix`) that killed writers left in ``folder`` and
    return them: those of this host whose process is gone, and any older than :data:`STALE_AFTER_S`. A temporary
    of a live writer, and everything not named as a temporary, is left alone."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        found = _TEMPORARY.match(entry.name)
        if found and _abandoned(entry, found["host"], int(found["pid"])):
            try:
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)
                else:
                    os.unlink(entry.path)
            except OSError:  # gone already (another writer's clean-up) or not ours to remove
                continue
            removed.append(Path(entry.path))
    return removed


def _abandoned(entry: os.DirEntry, host: str, pid: int) -> bool:
    """Whether the temporary ``entry`` of writer ``pid`` on ``host`` is left over: its writer is gone or it is
    older than any write takes."""
    try:
        if time.time() - entry.stat(follow_symlinks=False).st_mtime > STALE_AFTER_S:
            return True
    except OSError:
        return False
    return host == _HOST and not _alive(pid)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this host (one of another user counts; so does an unreaped one)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True
