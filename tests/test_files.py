"""``ldp_audit.files.write_atomic``: whole files or none, and the usual permissions (not mkstemp's private 0600)."""
from __future__ import annotations

import os
import stat

import pytest

from ldp_audit import files
from ldp_audit.files import write_atomic


def test_written_file_gets_the_mode_the_umask_allows(tmp_path):
    path = write_atomic(tmp_path / "sub" / "report.json", "{}")
    assert path.read_text() == "{}"
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~files._UMASK != 0o600  # 0o644 under the usual umask


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = write_atomic(tmp_path / "plot.png", b"old")
    with pytest.raises(TypeError):
        write_atomic(path, 42)
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["plot.png"]
