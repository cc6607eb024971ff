"""Audit a user's own mechanism: the protocol, its adapters, and the hand-over to the one orchestrator.

    from ldp_audit.external import as_mechanism, audit_external, load_external, Interval, FiniteSet, Box

    mech = as_mechanism(my_sampler, eps=1.0, domain=(-1.0, 1.0))   # black-box: sample(x, n, rng)
    report = audit_external(mech)                                   # an AuditReport, like verify's

From the command line: ``ldp-audit verify package.module:factory --eps 1 [--param key=value ...]``.
The protocol is documented in :mod:`ldp_audit.external.protocol`. An error in the user's code, or a value it returns
that the protocol does not allow, is a :class:`UserCodeError` (a ``ValueError``) naming the method.
"""
from .audit import adapted, audit_external
from .calls import UserCodeError
from .domains import Box, FiniteSet, Interval, parse_domain
from .loader import load_external
from .protocol import ExternalMechanism, as_mechanism, is_builtin

__all__ = ["audit_external", "adapted", "load_external", "as_mechanism", "ExternalMechanism", "Interval",
           "FiniteSet", "Box", "parse_domain", "is_builtin", "UserCodeError"]
