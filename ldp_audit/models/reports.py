"""Users' reports as a server collects them: memoised or re-encoded queries (lpgnn Cor. 3.7, C11), and a whole
feature matrix perturbed once by a mechanism or by PPM (ppgnn A4, A9). The audits (attacks) read these; they
never perturb a dataset themselves.
"""
from __future__ import annotations

import numpy as np
from scipy import sparse

from ..mechanisms.personalised import PersonalisedMechanism
from ..mechanisms.sampled import SampledMechanism


def query_reports(mechanism, x: np.ndarray, queries: int, rng: np.random.Generator,
                  memoise: bool = True) -> np.ndarray:
    """The reports a server gets when it asks each of n users ``queries`` times: shape (queries, n, d).

    With ``memoise`` every user encodes once and answers every query with that stored report (lpgnn C11 ii);
    without it each query is a fresh encoding, which an averaging attacker exploits (C11 iii).
    """
    if not (isinstance(queries, int) and queries >= 1):
        raise ValueError(f"queries must be an integer >= 1, got {queries!r}")
    x = np.asarray(x, dtype=np.float64).reshape(-1, mechanism.d)
    if memoise:
        once = np.asarray(mechanism.perturb(x, rng), dtype=np.float64).reshape(x.shape)
        return np.broadcast_to(once, (queries,) + x.shape)
    fresh = np.asarray(mechanism.perturb(np.tile(x, (queries, 1)), rng), dtype=np.float64)
    return fresh.reshape((queries,) + x.shape)


def column_reports(mechanism, x: np.ndarray, columns, rng: np.random.Generator, tau=None) -> np.ndarray:
    """Every user's report (one encoding of the whole vector x_v) restricted to ``columns``: shape (n, len).

    ``mechanism`` is a registered mechanism (sparse reports when it has them) or a PPM
    (:class:`ldp_audit.mechanisms.personalised.PersonalisedMechanism`, then ``tau`` gives the users' levels);
    ``None`` means no privacy (the raw values).
    """
    columns = np.asarray(columns)
    if mechanism is None:
        return np.asarray(x[:, columns], dtype=np.float64)
    if isinstance(mechanism, PersonalisedMechanism):
        if tau is None:
            raise ValueError("PPM needs the users' levels tau")
        return mechanism.perturb(x, tau, rng).features[:, columns]
    if isinstance(mechanism, SampledMechanism):
        return np.asarray(mechanism.perturb_sparse(x, rng)[:, columns].toarray())
    return np.asarray(mechanism.perturb(x, rng), dtype=np.float64)[:, columns]


def neighbour_votes(adjacency, reports: np.ndarray) -> np.ndarray:
    """sum over neighbours u of sign(report_u) per column (abstention on 0): the A9 vote, one sparse product."""
    return np.asarray(sparse.csr_matrix(adjacency) @ np.sign(reports))
