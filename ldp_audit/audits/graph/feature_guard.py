"""A stand-in for a graph's raw feature matrix that raises on any use: the claims rows on private pipelines
(ldp-ge C13, ppgnn C10) hand it to the server side to show that the server never reads raw X."""
from __future__ import annotations


class RawFeatureAccess(Exception):
    """Raised when code handed the :class:`RawFeatureGuard` touches the raw features."""


class RawFeatureGuard:
    """Stands in for a graph's raw feature matrix: any attribute, indexing or array conversion raises."""

    def __getattr__(self, name):
        raise RawFeatureAccess(f"raw features read (.{name})")

    def __getitem__(self, item):
        raise RawFeatureAccess("raw features read (indexing)")

    def __array__(self, *args, **kwargs):
        raise RawFeatureAccess("raw features read (as an array)")
