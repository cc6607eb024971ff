"""PPGNN's released-protocol fields (issue 26): ``ppm_variant`` swaps in the released PPM, ``gaussian_baseline``
LPGNN's analytic Gaussian; each changes the reports under the same seed, enters the key only when set, and is reset
on runs it does not act on (so the released preset leaves those runs' keys alone)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ldp_audit.models import synthetic
from ldp_audit.models.training import RunConfig, ppgnn, stages
from ldp_audit.models.training.config import ACTS_ON
from ldp_audit.models.training.protocols import protocol


def _graph():
    return synthetic.csbm(n=200, classes=4, avg_degree=5.0, homophily=0.85, d=30, signal=0.25, seed=3)


def _config(mechanism: str, **changes) -> RunConfig:
    return replace(ppgnn.ppgnn_config("csbm", mechanism, 1.0, 2, 0), epochs=5, **changes)


def _features(config, graph) -> np.ndarray:
    return stages.FEATURES[config.features].node_features(graph, config, np.random.default_rng(config.seed))


@pytest.mark.parametrize("mechanism, field, value", [("PPM", "ppm_variant", "released"),
                                                     ("GM", "gaussian_baseline", "analytic_l2")])
def test_a_released_field_changes_the_reports_under_the_same_seed(mechanism, field, value):
    graph, base = _graph(), _config(mechanism)
    changed = replace(base, **{field: value})
    assert RunConfig.from_dict(changed.to_dict()) == changed
    assert field not in base.keyed_fields() and changed.keyed_fields()[field] == value
    assert changed.key() != base.key() and changed.perturbation_key() != base.perturbation_key()
    assert not np.allclose(_features(changed, graph), _features(base, graph))


def test_released_ppm_runs_sample_the_largest_reported_count_and_report_levels_no_lower():
    config = _config("PPM", ppm_variant="released")
    mechanism = stages.personalised_mechanism(config, 30)
    assert mechanism.mode == "released"
    tau, tau_prime = stages.run_levels(config, 200)
    assert np.all(tau_prime >= tau)  # the FlexProp weights of the run read these
    nonzero = (_features(config, _graph()) != 0).sum(axis=1)
    assert np.unique(nonzero).size == 1 and nonzero[0] > max(mechanism.sampled_count(t) for t in mechanism.levels)


def test_the_analytic_baseline_is_lpgnns_agm():
    mechanism = stages.feature_mechanism(_config("GM", gaussian_baseline="analytic_l2"), 30)
    assert mechanism.name == "analytic_gaussian" and mechanism.delta == 1e-10
    assert (mechanism.alpha, mechanism.beta) == (0.0, 1.0)
    spec = stages.feature_mechanism(_config("GM"), 30)
    assert spec.name == "gaussian_hd" and spec.delta == 1e-5
    # one sigma for the whole vector at eps, against sigma per coordinate at (eps/d, delta/d): far less noise
    assert mechanism.coordinate.sigma < spec.coordinate.sigma


@pytest.mark.parametrize("mechanism", ["MB", "LP", "1B", "GM", "PPM"])
def test_fields_are_reset_on_runs_they_do_not_act_on(mechanism):
    config = _config(mechanism, ppm_variant="released", gaussian_baseline="analytic_l2")
    for field, acts_on in ACTS_ON.items():
        assert (getattr(config, field) != RunConfig.__dataclass_fields__[field].default) == \
            (config.mechanism in acts_on)
    assert replace(config, eps_x=None).ppm_variant == "spec"


def test_the_released_ppm_replaces_only_the_papers_ppm():
    """The released PPM stands in for the paper-mode PPM; a run that names the corrected PPM keeps it (an explicit
    mode wins over a preset), and two keys never name one run."""
    assert ACTS_ON["ppm_variant"] == ("ppm",)
    corrected = RunConfig("cora", mechanism="ppm_corrected", eps_x=1.0, m="lpgnn", k_x=2, ppm_variant="released")
    assert corrected.ppm_variant == "spec"
    assert corrected.key() == replace(corrected, ppm_variant="spec").key()


def test_the_released_preset_sets_each_field_on_the_runs_it_acts_on_and_round_trips():
    released = protocol("ppgnn", "released")
    ppm, gm, mb = (released.apply(_config(m)) for m in ("PPM", "GM", "MB"))
    assert (ppm.ppm_variant, ppm.gaussian_baseline) == ("released", "per_coordinate")
    assert (gm.ppm_variant, gm.gaussian_baseline) == ("spec", "analytic_l2")
    assert (mb.aggregator, mb.self_loops) == ("gcn", False)  # LPGNN's KProp for the baselines
    for config in (ppm, gm, mb):
        assert RunConfig.from_dict(config.to_dict()) == config
    assert stages.feature_propagation(mb) == stages.KProp(2, aggregator="gcn")
    assert isinstance(stages.feature_propagation(ppm), stages.LevelFlexProp)  # PPM keeps FlexProp


@pytest.mark.parametrize("field", ["ppm_variant", "gaussian_baseline"])
def test_bad_values_name_the_field(field):
    with pytest.raises(ValueError, match=field):
        RunConfig("cora", **{field: "authors"})
