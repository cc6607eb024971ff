"""What the papers' guarantees do not protect, as explicit rows: silence is not protection.

Each row is INFO ("not covered"): no attack is run because no guarantee is claimed; the row says what an
honest-but-curious server sees in the clear.
"""
from __future__ import annotations

from ..kernel.result import CheckResult
from .bayes import not_covered_row


def lpgnn_not_covered() -> list[CheckResult]:
    return [
        not_covered_row("not-covered.edges", "lpgnn Sec. 3 threat model: edges",
                        "the server holds the graph's edges in the clear; LDP on features and labels says nothing "
                        "about edge privacy (a neighbour-vote attack reads them freely)"),
        not_covered_row("not-covered.sampling-mask", "lpgnn Alg. 1: which m coordinates were sampled",
                        "the report shows which coordinates were sampled (non-zeros); the mask is independent of x, "
                        "so it leaks nothing about x, but it is visible and must stay independent of any secret "
                        "(PPM's count m reveals the level, see attack level-leak)"),
        not_covered_row("not-covered.neighbour-inference", "lpgnn C11, C16: inference from other users' reports",
                        "LDP bounds what a user's own report reveals; aggregation over neighbours (KProp, Drop, "
                        "neighbour votes) may reveal a homophilous user's attribute and is not bounded"),
    ]


def ppgnn_not_covered() -> list[CheckResult]:
    return [
        not_covered_row("not-covered.edges", "ppgnn Sec. II threat model, footnote 2: edges",
                        "the server knows the adjacency matrix in the clear; edges are not protected"),
        not_covered_row("not-covered.labels", "ppgnn Sec. II threat model: training labels",
                        "training labels are sent in the clear (unlike LPGNN's randomized response); not protected"),
        not_covered_row("not-covered.sampling-mask", "ppgnn Alg. 2: which m coordinates were sampled",
                        "the non-zero pattern of x' is visible; its size m depends on the level in the paper's mode "
                        "(E5, E6), on tau' only in the corrected mode"),
        not_covered_row("not-covered.neighbour-inference", "ppgnn Sec. IV-E: attribute inference from neighbours",
                        "the neighbour vote uses other users' reports; PLDP does not bound it (see attack "
                        "neighbour-vote for measured numbers)"),
    ]
