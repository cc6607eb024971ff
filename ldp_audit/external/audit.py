"""Audit a user's mechanism: adapt it into the audit interface once, then run the one orchestrator.

Everything that judges lives in :mod:`ldp_audit.audits` (:func:`ldp_audit.audits.verify.orchestrator.verify`); this module
only decides whether an object needs adapting (:func:`ldp_audit.external.as_mechanism`) and hands it on.
"""
from __future__ import annotations

from typing import Callable

from ..audits.kernel.result import AuditReport
from ..audits.verify.orchestrator import AuditSettings, verify
from .protocol import as_mechanism, is_builtin


def adapted(mechanism, eps=None, domain=None, *, require_eps: bool = True, **claims):
    """``mechanism`` itself when it implements the interface (a built-in with its own eps and no overrides),
    else the user's object (or a built-in with other claims) adapted once by :func:`as_mechanism`."""
    if is_builtin(mechanism) and domain is None and not claims and (eps is None or float(eps) == mechanism.eps):
        return mechanism
    return as_mechanism(mechanism, eps, domain, require_eps=require_eps, **claims)


def audit_external(mechanism, settings: AuditSettings | None = None, progress: Callable[[int], None] | None = None,
                   checks=None) -> AuditReport:
    """Every selected audit that applies to ``mechanism`` (a user's object in any protocol shape, an
    :class:`ExternalMechanism` or a built-in): the same function, and so the same rows, as ``verify``."""
    return verify(adapted(mechanism), settings or AuditSettings(), progress, checks)
