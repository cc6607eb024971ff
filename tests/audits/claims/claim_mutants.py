"""Claim mutants: wrong formulas, wrong samplers and printed errata that claims rows must catch.

One catalogue for the claims tests (tests/audits/claims/test_claims_*.py). Each entry of ``MUTANTS`` names the row it
targets, what is broken, and how to break it: ``apply(monkeypatch)`` patches the printed formula (``papers``)
or the mechanism factory a claims module uses. Mechanism-level mutants (wrong samplers of the mechanisms
themselves, used by ``verify``) live in tests/mutants.py.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ldp_audit import accounting
from ldp_audit.audits.claims import ldp_ge as claims_ldp_ge, lpgnn as claims_lpgnn, ppgnn as claims_ppgnn
from ldp_audit.audits.claims.registry import claims_of
from ldp_audit.mechanisms import make
from ldp_audit.mechanisms.budget_split import optimal_k
from ldp_audit.mechanisms.constants import sw_half_width
from ldp_audit.models import propagation
from ldp_audit.models.training import stages as training_stages
from ldp_audit.models import se_privgemb as se_model
from ldp_audit.papers import ldp_ge as ldp_ge_paper
from ldp_audit.papers import lpgnn as lpgnn_paper
from ldp_audit.papers import ppgnn as ppgnn_paper
from ldp_audit.papers import se_privgemb as se_paper


#: The first graph-level claim of each paper: the claims registered before it are the mechanism-level ones.
FIRST_GRAPH_CLAIM = {"ldp-ge": "c11_ppr_operator", "lpgnn": "c7_c9_kprop_aggregation",
                     "ppgnn": "c12_c13_flexprop_aggregation"}


def mechanism_level(paper: str) -> tuple:
    """The registered mechanism-level claims of ``paper`` (exact rows and ``verify`` audits; no graph, no
    training)."""
    registered = claims_of(paper)
    return registered[:[c.name for c in registered].index(FIRST_GRAPH_CLAIM[paper])]


@dataclass(frozen=True)
class ClaimMutant:
    """``row``: the row's name; ``paper``: whose mechanism-level claims compute it when no dedicated function
    does."""

    row: str
    what: str
    apply: Callable
    paper: str = ""


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


def _push_dropping_isolated_nodes(monkeypatch):
    """ldp-ge E12 mutant: a push that leaves isolated nodes at 0 instead of alpha x_v."""
    from dataclasses import replace

    original = propagation.backward_push

    def dropping(adjacency, x, alpha, r, r_max, **kwargs):
        result = original(adjacency, x, alpha, r, r_max, **kwargs)
        isolated = np.asarray(adjacency.sum(axis=1)).ravel() == 0
        z = result.z.copy()
        z[isolated] = 0.0
        return replace(result, z=z)
    monkeypatch.setattr(claims_ldp_ge.check_isolated_nodes, "__defaults__", (0.1, 0.5, dropping))


def _auc_without_ties(monkeypatch):
    """C20 mutant: ties counted as losses."""
    monkeypatch.setattr(se_model, "roc_auc", lambda pos, neg: float((pos[:, None] > neg[None, :]).mean()))


def _stop_one_step_late(monkeypatch):
    """C15 mutant: the trainer runs one step past the largest T within budget."""
    original = se_model.steps_allowed

    def late(config, m):
        ran, spent = original(config, m)
        return (ran + 1, spent) if config.stop_rule == "before" else (ran, spent)
    monkeypatch.setattr(se_model, "steps_allowed", late)


def _check_before_update(monkeypatch):
    """E15 corrected: Algorithm 2 checks the budget before the update (the paper's rule then equals ours)."""
    from dataclasses import replace

    original = se_model.steps_allowed
    monkeypatch.setattr(se_model, "steps_allowed", lambda config, m: original(replace(config, stop_rule="before"), m))



def _gradients_off(monkeypatch):
    """C1 mutant: the closed-form gradient of W_in 0.1% off (a dropped term would be far larger)."""
    original = se_model.aggregate

    def off(*args, **kwargs):
        sum_in, sum_out, rows_in, rows_out = original(*args, **kwargs)
        return 1.001 * sum_in, sum_out, rows_in, rows_out
    monkeypatch.setattr(se_model, "aggregate", off)


def _clip_to_norm_above_c(monkeypatch):
    """C2 mutant: clipping to 1.01 C."""
    original = se_model.clip_rows
    monkeypatch.setattr(se_model, "clip_rows", lambda g, c: original(g, 1.01 * c))
    original_paper = se_paper.clip
    monkeypatch.setattr(se_paper, "clip", lambda g, c: original_paper(g, 1.01 * c))


def _strucequ_spearman(monkeypatch):
    """C19 mutant: rank correlation of the distances instead of Pearson's."""
    from scipy.spatial.distance import pdist
    from scipy.stats import spearmanr

    monkeypatch.setattr(se_model, "struc_equ", lambda adj, y, **kw: float(spearmanr(
        pdist(np.asarray(adj.toarray() if hasattr(adj, "toarray") else adj, float)), pdist(np.asarray(y))).statistic))


def _composition_off(monkeypatch):
    """C13 mutant: dp-accounting's composition over T steps 0.1% above T times one step."""
    original = accounting.rdp_dp_accounting

    def off(q, sigma, orders, sampling, steps=1):
        return original(q, sigma, orders, sampling, steps) * (1.001 if steps > 1 else 1.0)
    monkeypatch.setattr(accounting, "rdp_dp_accounting", off)


def _classic_below_improved(monkeypatch):
    """C12 mutant: the classic conversion computed as the improved one minus 1%."""
    original = accounting.epsilon_curve

    def off(step, orders, delta, steps, conversion="improved"):
        curve = original(step, orders, delta, steps)
        return 0.99 * curve if conversion == "classic" else curve
    monkeypatch.setattr(accounting, "epsilon_curve", off)


def _set(module, attribute, value):
    return lambda monkeypatch: monkeypatch.setattr(module, attribute, value)


def _sw(eps):
    from ldp_audit.mechanisms.constants import sw_probabilities

    return sw_probabilities(eps)


def _loader_losing_an_edge(monkeypatch):
    """ldp-ge C20 mutant: the dataset loader drops one edge (e.g. a bad deduplication)."""
    from dataclasses import replace

    original = claims_ldp_ge._load_for_statistics
    monkeypatch.setattr(claims_ldp_ge, "_load_for_statistics",
                        lambda *a, **k: (lambda g: replace(g, edges=g.edges[:, :-1]))(original(*a, **k)))


def _optimal_rule(variance):
    """A corrected m rule: the integer minimiser of ``variance(eps, d, m)``."""
    return lambda eps, d: optimal_k(lambda m: variance(eps, d, m), eps, d)


def _corrected_one_bit_pmf(eps, x):
    e = math.exp(eps)
    plus = 1.0 / (e + 1.0) + ((x + 1.0) / 2.0) * (e - 1.0) / (e + 1.0)
    return plus, 1.0 - plus


def _corrected_esw_pmf(eps, f, g, half_width):
    outputs = np.arange(1, f + 2 * half_width + 1)
    z = (2 * half_width + 1) * math.exp(eps) + f - 1
    return np.where((outputs >= g) & (outputs <= g + 2 * half_width), math.exp(eps) / z, 1.0 / z)


def _ppm_at_a_hundredth_of_its_budget(monkeypatch):
    """ppgnn C17 mutant: the pipeline's PPM reports at eps/100 (a broken budget ladder), so MB beats it."""
    from dataclasses import replace

    original = training_stages.personalised_mechanism
    monkeypatch.setattr(training_stages, "personalised_mechanism",
                        lambda config, d: original(replace(config, eps_x=config.eps_x / 100), d))


def _two_hop_flexprop(monkeypatch):
    """ppgnn C16 mutant: FlexProp's step built on the two-hop support (Pi @ Pi), denser than A + I."""
    original = propagation.FlexProp.step_matrix
    monkeypatch.setattr(propagation.FlexProp, "step_matrix", lambda self, adjacency: (
        original(self, adjacency) @ original(self, adjacency)).tocsr())


def _server_rereads_features(monkeypatch):
    """ppgnn C10 mutant: the server recomputes the feature reports from the graph instead of using the users'."""
    from ldp_audit.models.training import train

    monkeypatch.setattr(train.RunCache, "node_features", lambda self, config, graph: training_stages.FEATURES[
        config.features].node_features(graph, config, np.random.default_rng(config.seed)))


def _features_at_the_whole_budget_and_more(monkeypatch):
    """ppgnn C10 mutant: a level's features reported at 1.5 eps^tau (the split forgotten and overspent)."""
    from ldp_audit.mechanisms.personalised import PersonalisedMechanism

    monkeypatch.setattr(PersonalisedMechanism, "feature_budget", lambda self, tau: float(1.5 * self.budget(tau)))


def _pipeline_with(monkeypatch, **changes):
    """ppgnn E16 mutants: the pipeline's personalised mechanism built with other PPGNN fields than the run's."""
    from dataclasses import replace

    original = training_stages.personalised_mechanism
    monkeypatch.setattr(training_stages, "personalised_mechanism",
                        lambda config, d: original(replace(config, **changes), d))


def _strict_levels(monkeypatch):
    """ppgnn E16 correction: the Strict level distribution (spec A8, Fig. 5 right): every user at level 1."""
    monkeypatch.setattr(training_stages, "personalised_levels", lambda mechanism, n, seed, distribution="uniform": (
        np.ones(n, dtype=np.int64), np.ones(n, dtype=np.int64)))


#: Mutants of rows computed by their own check functions (see test_claims_rows._rows).
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
    "ppgnn C10: the server re-derives features from raw X": ClaimMutant("C10", "server reads X",
                                                                         _server_rereads_features),
    "ppgnn C10: features at 1.5 eps^tau": ClaimMutant("C10", "overspent budget",
                                                      _features_at_the_whole_budget_and_more),
    "ppgnn C16: FlexProp on the two-hop support": ClaimMutant("C16 ops", "denser step", _two_hop_flexprop),
    "ppgnn C17: PPM reports at eps/100": ClaimMutant("C17 small", "wrong budget", _ppm_at_a_hundredth_of_its_budget),
    "ppgnn E16: gamma = 0.3 in the pipeline": ClaimMutant(
        "E16.budget", "wrong split", lambda mp: _pipeline_with(mp, ppm_gamma=0.3)),
    "ppgnn E16: h = 4 levels in the pipeline": ClaimMutant(
        "E16.budget", "wrong ladder", lambda mp: _pipeline_with(mp, ppm_levels=4)),
    "ldp-ge E12: push drops isolated nodes": ClaimMutant("E12.isolated-nodes", "wrong corner case",
                                                          _push_dropping_isolated_nodes),
    "ldp-ge C20: average degree as |E|/|V|": ClaimMutant(
        "C20 cora", "wrong formula", _scaled(ldp_ge_paper, "average_degree", 0.5)),
    "ldp-ge C20: a loader that loses one edge": ClaimMutant("C20 cora", "wrong loader", _loader_losing_an_edge),
    "lpgnn E6: covariance with m d instead of m (d - 1)": ClaimMutant(
        "E6", "wrong formula", _set(lpgnn_paper, "covariance_e6", lambda d, m, xi, xj, a, b:
                                    -(d - m) / (m * d) * (xi - (a + b) / 2) * (xj - (a + b) / 2)), "lpgnn"),
    "se-privgemb C1: W_in gradient 0.1% off": ClaimMutant("C1.gradients", "wrong formula", _gradients_off),
    "se-privgemb C2: clipping to 1.01 C": ClaimMutant("C2.clip", "wrong clipping", _clip_to_norm_above_c),
    "se-privgemb C9: Gaussian RDP quadrature 1% high": ClaimMutant(
        "C9.gaussian-rdp", "wrong quadrature", _scaled(accounting, "renyi_divergence_mixtures", 1.01)),
    "se-privgemb C10: Poisson quadrature 0.1% high": ClaimMutant(
        "C10.poisson-rdp", "wrong quadrature", _scaled(accounting, "rdp_numeric_poisson", 1.001)),
    "se-privgemb C12: classic conversion below the improved one": ClaimMutant(
        "C12.conversion", "wrong conversion", _classic_below_improved),
    "se-privgemb C13: composition not linear in T": ClaimMutant(
        "C13.composition", "wrong composition", _composition_off),
    "se-privgemb C19: Spearman instead of Pearson": ClaimMutant("C19.strucequ", "wrong metric", _strucequ_spearman),
    "se-privgemb C20: AUC counting ties as losses": ClaimMutant("C20.auc", "wrong metric", _auc_without_ties),
    "se-privgemb C15: one step past the budget": ClaimMutant("C15.stop-rule", "wrong stop rule", _stop_one_step_late),
}

#: Mutants of the rows of the mechanism-level claims (computed by all of them, see test_claims_rows).
PROVIDER_MUTANTS = {
    "ldp-ge C1: b 1% too wide": ClaimMutant(
        "C1", "wrong formula", _set(claims_ldp_ge, "sw_probabilities", lambda e: (1.01 * _sw(e)[0],) + _sw(e)[1:]),
        "ldp-ge"),
    "ldp-ge C6: Eq. 5 1% too large": ClaimMutant("C6", "wrong formula",
                                                 _scaled(ldp_ge_paper, "pm_variance_eq5", 1.01), "ldp-ge"),
    "ldp-ge C8: Eq. 5 0.1% too large": ClaimMutant("C8", "wrong formula",
                                                   _scaled(ldp_ge_paper, "pm_variance_eq5", 1.001), "ldp-ge"),
    "ldp-ge C8: Piecewise built with k + 1": ClaimMutant("C8", "wrong sampler",
                                                         _factory(claims_ldp_ge, "piecewise_hd", k=lambda k: k + 1),
                                                         "ldp-ge"),
    "ldp-ge C9: Eq. 8 0.1% too large": ClaimMutant("C9", "wrong formula",
                                                   _scaled(ldp_ge_paper, "mb_variance_eq8", 1.001), "ldp-ge"),
    "ldp-ge C10: the text's crossing at 3.0": ClaimMutant("C10", "wrong printed claim",
                                                          _set(ldp_ge_paper, "FIGURE1_PM_CROSSING_CLAIM", 3.0),
                                                          "ldp-ge"),
    "ldp-ge C10 (E7): below LP up to eps 7": ClaimMutant("C10 (E7)", "wrong printed claim",
                                                         _set(ldp_ge_paper, "FIGURE1_LP_MB_CLAIM", 7.0), "ldp-ge"),
    "ldp-ge C7.variance: 4d^2/eps^2": ClaimMutant("C7.variance", "wrong formula",
                                                  _scaled(ldp_ge_paper, "laplace_variance", 0.5), "ldp-ge"),
    "lpgnn C1: multi-bit at 1.1 eps": ClaimMutant("C1", "wrong sampler budget",
                                                  _factory(claims_lpgnn, "multibit", eps=lambda e: 1.1 * e), "lpgnn"),
    "lpgnn C6: z* = 2.18": ClaimMutant("C6", "wrong constant", _set(lpgnn_paper, "Z_STAR", 2.18), "lpgnn"),
    "lpgnn M5: AGM at delta 1e-3": ClaimMutant("M5", "wrong calibration",
                                               _factory(claims_lpgnn, "analytic_gaussian", delta=1e-3), "lpgnn"),
    "lpgnn B2: RR at 1.01 eps": ClaimMutant("B2", "wrong budget", _factory(claims_lpgnn, "grr", eps=lambda e: 1.01 * e),
                                            "lpgnn"),
    "ppgnn C2: classical Gaussian at 1.8 eps": ClaimMutant("C2", "wrong calibration",
                                                         _factory(claims_ppgnn, "gaussian", eps=lambda e: 1.8 * e),
                                                         "ppgnn"),
    "ppgnn C7: MLR at 1.1 eps": ClaimMutant("C7", "wrong sampler budget",
                                            _factory(claims_ppgnn, "mlr", eps=lambda e: 1.1 * e), "ppgnn"),
}

#: Corrections that must turn an erratum's FAIL into PASS.
CORRECTIONS = {
    "se-privgemb E14: Table VI's Arxiv eps=0.5 cell as in Fig. 3": ClaimMutant(
        "E14.table-vs-figure", "printed erratum corrected", _corrected_table_vi),
    "se-privgemb E15: budget checked before the update": ClaimMutant(
        "E15.post-update-check", "erratum corrected", _check_before_update),
    "ldp-ge C9 (E1): Pr[-1] = 1 - Pr[+1]": ClaimMutant(
        "C9 (E1)", "erratum corrected", _set(ldp_ge_paper, "one_bit_pmf_printed", _corrected_one_bit_pmf), "ldp-ge"),
    "ldp-ge E11: b by its stable form": ClaimMutant(
        "E11", "erratum corrected", _set(ldp_ge_paper, "sw_half_width_printed", sw_half_width), "ldp-ge"),
    "lpgnn C6 (E3): the integer optimum": ClaimMutant(
        "C6 (E3)", "erratum corrected", _set(lpgnn_paper, "m_rule_printed", _optimal_rule(
            lambda eps, d, m: lpgnn_paper.worst_case_variance(eps, d, m))), "lpgnn"),
    "lpgnn E2: coth(eps/2m)": ClaimMutant(
        "E2", "erratum corrected", _set(lpgnn_paper, "rectifier_factor_printed", lambda eps, d, m, a, b:
                                        d * (b - a) / (2.0 * m) / math.tanh(eps / (2.0 * m))), "lpgnn"),
    "ppgnn C2 (E1): sensitivity 2 in sigma": ClaimMutant(
        "C2 (E1)", "erratum corrected", _scaled(ppgnn_paper, "gaussian_sigma_printed", 2.0), "ppgnn"),
    "ppgnn C6 (E2): the integer optimum": ClaimMutant(
        "C6 (E2)", "erratum corrected", _set(ppgnn_paper, "m_rule_printed", _optimal_rule(
            lambda eps, d, m: (d / m) / math.tanh(eps / (2 * m)) ** 2)), "ppgnn"),
    "ppgnn C8 (E3): window {g..g+2b}": ClaimMutant(
        "C8 (E3)", "erratum corrected", _set(ppgnn_paper, "esw_pmf_printed", _corrected_esw_pmf), "ppgnn"),
    "ppgnn E16: PPM at the Strict level distribution": ClaimMutant("E16", "comparison basis equalised", _strict_levels),
}


def laplace_with_sqrt_rate(eps: float):
    """ldp-ge C18 mutant: Laplace noise whose scale grows like 1/sqrt(eps) instead of 1/eps."""
    return make("laplace_hd", eps=math.sqrt(eps), d=32)
