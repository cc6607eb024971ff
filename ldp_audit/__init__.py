"""ldp-audit: local differential privacy mechanisms from five papers, and audits of their claims.

Public API (re-exported names only)::

    from ldp_audit import make, available          # the mechanism registry
    from ldp_audit import CheckResult, AuditReport, Status
"""
from importlib.metadata import PackageNotFoundError, version

from .audits.kernel.result import AuditReport, CheckResult, Status
from .mechanisms import available, make

__all__ = ["make", "available", "CheckResult", "AuditReport", "Status"]

#: Shown for a source tree that is not installed: pyproject.toml's version is the one source, read from the
#: installed distribution's metadata (PEP 440: a local version that sorts below every release).
UNINSTALLED_VERSION = "0+unknown"

try:
    __version__ = version("ldp-audit")
except PackageNotFoundError:  # pragma: no cover - a source tree that is not installed
    __version__ = UNINSTALLED_VERSION
