"""The documentation site builds with ``mkdocs build --strict`` (broken links, anchors and API references fail it),
where mkdocs is installed (the ``docs`` extra; the core-only environment skips this)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings_handlers.python")


def test_the_site_builds_strictly(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                             str(ROOT / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "WARNING" not in result.stderr
    assert (tmp_path / "site" / "api" / "audits-verify" / "index.html").exists()
