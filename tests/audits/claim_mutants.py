"""Claim mutants: wrong formulas, wrong samplers and printed errata that claims rows must catch.

One catalogue for the claims tests (tests/audits/test_claims_*.py). Each entry of ``MUTANTS`` names the row it
targets, what is broken, and how to break it: ``apply(monkeypatch)`` patches the printed formula (``papers``)
or the mechanism factory a claims module uses. Mechanism-level mutants (wrong samplers of the mechanisms
themselves, used by ``verify``) live in tests/mutants.py.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ldp_audit.audits import claims_ldp_ge, claims_ppgnn
from ldp_audit.mechanisms import make
from ldp_audit.models import propagation
from ldp_audit.papers import ldp_ge as ldp_ge_paper
from ldp_audit.papers import ppgnn as ppgnn_paper
from ldp_audit.papers import se_privgemb as se_paper


@dataclass(frozen=True)
class ClaimMutant:
    row: str
    what: str
    apply: Callable


def _factory(module, name: str, **changes):
    """Patch ``module.make`` so that mechanism ``name`` is built with ``changes`` applied to its parameters."""
    def patched(monkeypatch):
        def broken(kind, **params):
            if kind == name:
                params = {**params, **{k: (v(params[k]) if callable(v) else v) for k, v in changes.items()}}
            return make(kind, **params)
        monkeypatch.setattr(module, "make", broken)
    return patched


def _scaled(module, function: str, factor: float):
    def patched(monkeypatch):
        original = getattr(module, function)
        monkeypatch.setattr(module, function, lambda *a, **k: factor * original(*a, **k))
    return patched


def _corrected_table_vi(monkeypatch):
    """E14's correction: Table VI's Arxiv eps = 0.5 cell as Fig. 3 shows it."""
    table = dict(se_paper.TABLE_VI)
    row = list(table[("Arxiv", 0.5)])
    row[1] = (0.278, row[1][1])
    table[("Arxiv", 0.5)] = tuple(row)
    monkeypatch.setattr(se_paper, "TABLE_VI", table)


def _inverse_sd_weights(monkeypatch):
    """FlexProp's "inv_var" policy weighting by 1/sigma instead of 1/sigma^2 (a wrong Eq. 11)."""
    original = propagation.flexprop_weights

    def broken(policy, **kwargs):
        weights = original(policy, **kwargs)
        return weights ** 0.5 if policy == "inv_var" else weights
    monkeypatch.setattr(propagation, "flexprop_weights", broken)


MUTANTS = {
    "ldp-ge C2: HDS at eps per coordinate instead of eps/k": ClaimMutant(
        "C2", "wrong per-coordinate budget (the mechanism's law)", _factory(claims_ldp_ge, "hds", eps=lambda e: 2 * e)),
    "ldp-ge C4/C5: mean factor C printed 10% too large": ClaimMutant(
        "C4/C5", "wrong formula", _scaled(ldp_ge_paper, "hds_mean_factor_lemma1", 1.10)),
    "ldp-ge C4/C5: variance printed 3% too large": ClaimMutant(
        "C4/C5", "wrong formula", _scaled(ldp_ge_paper, "hds_variance_lemma1", 1.03)),
    "ldp-ge C15: sub-exponential constant 1 instead of 2": ClaimMutant(
        "C15", "wrong formula", lambda mp: mp.setattr(ldp_ge_paper, "subexponential_bound_lemma2",
                                                     lambda s: np.exp(np.asarray(s) ** 2))),
    "ldp-ge C15: MGF of Lap(1) printed as 1/(1 - s^2/2)": ClaimMutant(
        "C15", "wrong formula", lambda mp: mp.setattr(ldp_ge_paper, "laplace_mgf_lemma2",
                                                     lambda s: 1.0 / (1.0 - np.asarray(s) ** 2 / 2.0))),
    "ppgnn C4: MLR sampled at 1.1 eps": ClaimMutant(
        "C4", "wrong sampler budget", _factory(claims_ppgnn, "mlr", eps=lambda e: 1.1 * e)),
    "ppgnn C4: MB with m + 1 sampled coordinates": ClaimMutant(
        "C4", "wrong inclusion probability", _factory(claims_ppgnn, "multibit", k=lambda k: k + 1)),
    "ppgnn C4: Algorithm 1 printed without the 1/2 on x": ClaimMutant(
        "C4", "wrong formula", lambda mp: mp.setattr(
            ppgnn_paper, "mlr_coordinate_law_printed",
            lambda eps, d, m, x, f=ppgnn_paper.mlr_coordinate_law_printed: f(eps, d, m, min(1.0, max(-1.0, 2 * x))))),
    "ppgnn C13: inverse-sd weights in FlexProp": ClaimMutant(
        "ppgnn.eq11.optimum", "wrong weights", _inverse_sd_weights),
}

#: Corrections that must turn an erratum's FAIL into PASS.
CORRECTIONS = {
    "se-privgemb E14: Table VI's Arxiv eps=0.5 cell as in Fig. 3": ClaimMutant(
        "E14.table-vs-figure", "printed erratum corrected", _corrected_table_vi),
}


def laplace_with_sqrt_rate(eps: float):
    """ldp-ge C18 mutant: Laplace noise whose scale grows like 1/sqrt(eps) instead of 1/eps."""
    return make("laplace_hd", eps=math.sqrt(eps), d=32)
