"""ldp-audit: local differential privacy mechanisms from five papers, and audits of their claims.

Public API (re-exported names only)::

    from ldp_audit import make, available          # the mechanism registry
    from ldp_audit import CheckResult, AuditReport, Status
"""
from .audits.kernel.result import AuditReport, CheckResult, Status
from .mechanisms import available, make

__all__ = ["make", "available", "CheckResult", "AuditReport", "Status"]
__version__ = "0.1.0"
