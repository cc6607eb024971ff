"""One version source: pyproject.toml's, read back through the installed distribution's metadata."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import ldp_audit
from ldp_audit.audits.kernel.engines import installed_versions
from ldp_audit.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_version_is_the_installed_distributions():
    assert ldp_audit.__version__ == version("ldp-audit")
    assert installed_versions()["ldp-audit"] == ldp_audit.__version__


def test_pyproject_is_the_only_literal():
    declared = re.search(r'^version = "([^"]+)"$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert declared is not None
    assert declared.group(1) not in (ROOT / "ldp_audit" / "__init__.py").read_text()


def test_cli_prints_the_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"ldp-audit {ldp_audit.__version__}"


def test_an_uninstalled_source_tree_still_has_a_version():
    code = ("import importlib.metadata as m\n"
            "def missing(name): raise m.PackageNotFoundError(name)\n"
            "m.version = missing\n"
            "import ldp_audit; print(ldp_audit.__version__)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ldp_audit.UNINSTALLED_VERSION
