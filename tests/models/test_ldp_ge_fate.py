"""``benchmarks/ldp_ge_fate.py`` crosses one seed's reports with another seed's training draws; its diagonal must
be the run ``reproduce`` trains (same split, propagation, MLP and streams), else its table says nothing about the
stored runs. CPU only, seconds."""
from __future__ import annotations

from dataclasses import replace

import pytest

from conftest import benchmark_script
from ldp_audit import streams
from ldp_audit.models import data as datasets
from ldp_audit.models.training import ldp_ge
from ldp_audit.seeding import rng_for


def _reports(graph, config):
    return ldp_ge.client_reports(graph, config, rng_for(config.seed, *streams.FEATURES.key()))


def test_the_diagonal_is_the_stored_run_and_the_crossing_changes_it():
    graph = datasets.load("csbm")
    config = ldp_ge.preset("csbm", "link", mechanism="PM", eps=3.0, method="auto", seed=1, epochs=3)
    stored = ldp_ge.run_ldp_ge(config, graph).curves["val_auc"]
    fate = benchmark_script("ldp_ge_fate")
    assert fate.validation_auc(graph, _reports(graph, config), config, 3) == pytest.approx(100 * stored[2], abs=1e-4)
    other = replace(config, seed=2)
    crossed = fate.validation_auc(graph, _reports(graph, config), other, 3)
    assert crossed != pytest.approx(100 * stored[2], abs=1e-4)  # another seed's training draws train another run
