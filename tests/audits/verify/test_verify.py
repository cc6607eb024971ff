"""verify passes every registered mechanism, is reproducible from its seed, and does not depend on workers."""
import json
import math

import numpy as np
import pytest

from ldp_audit.audits.privacy import white_box
from ldp_audit.audits.privacy.search import search
from ldp_audit.audits.kernel.sampling import CHUNK, chunk_sizes, map_reduce
from ldp_audit.audits.kernel.stats import clopper_pearson, ratio_lower_bound
from ldp_audit.audits.verify.orchestrator import AuditSettings, verify
from ldp_audit.mechanisms import available, make

from conftest import ORACLE_NAMES
from mutants import LaplaceUnitSensitivity

SETTINGS = AuditSettings(samples=100_000, seed=11)


@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
@pytest.mark.parametrize("name", [info.name for info in available() if info.name not in ORACLE_NAMES])
def test_every_registered_mechanism_passes(name, eps):
    report = verify(make(name, eps=eps), SETTINGS)
    assert report.passed, [(r.name, r.explanation) for r in report.failures()]
    names = {r.name for r in report.results}
    assert {"law.mass", "privacy.whitebox", "privacy.blackbox", "moments.mean", "distribution.fit"} <= names


def test_report_is_reproducible_and_independent_of_workers():
    mechanism = make("hds", eps=1.0, d=6, k=2)
    settings = AuditSettings(samples=3 * CHUNK + 17, seed=3)
    one = verify(mechanism, settings).to_dict()
    again = verify(mechanism, settings).to_dict()
    pooled = verify(mechanism, AuditSettings(samples=3 * CHUNK + 17, seed=3, workers=2)).to_dict()
    for report in (again, pooled):
        report["settings"].pop("workers")
    one["settings"].pop("workers")
    assert one == again == pooled


def test_chunking_covers_exactly_n_draws():
    assert sum(chunk_sizes(5 * CHUNK + 3)) == 5 * CHUNK + 3
    total = map_reduce(lambda size, rng: size, 2 * CHUNK + 5, seed=1, stream=0)
    assert total == 2 * CHUNK + 5


def test_hds_default_reaches_the_target_tightness():
    """Issue 3 target: ``verify hds --eps 1`` certifies at least 0.95 eps at the default confidence."""
    report = verify(make("hds", eps=1.0), AuditSettings())
    blackbox = next(r for r in report.results if r.name == "privacy.blackbox")
    assert blackbox.statistic >= 0.95


def test_clopper_pearson_matches_beta_quantiles():
    from scipy import stats

    low, high = clopper_pearson(30, 100, 0.05)
    assert math.isclose(low, stats.beta.ppf(0.025, 30, 71), rel_tol=1e-9)
    assert math.isclose(high, stats.beta.ppf(0.975, 31, 70), rel_tol=1e-9)
    assert clopper_pearson(0, 10, 0.05)[0] == 0.0 and clopper_pearson(10, 10, 0.05)[1] == 1.0


def test_ratio_bound_uses_delta():
    pure = ratio_lower_bound(5000, 1000, 10_000, 10_000, 1e-3)
    approximate = ratio_lower_bound(5000, 1000, 10_000, 10_000, 1e-3, delta=0.1)
    assert approximate < pure < math.log(5.0)


def test_whitebox_detects_an_unnormalised_or_leaky_law():
    good = make("one_bit", eps=1.0)
    assert white_box.whitebox_privacy(good)[1].statistic == pytest.approx(1.0, rel=1e-12)
    bigger = white_box.max_log_ratio([make("laplace", eps=2.0).law(-1.0), make("laplace", eps=2.0).law(1.0)])
    assert bigger == pytest.approx(2.0, rel=1e-9)


def test_data_driven_search_passes_laplace_and_catches_unit_sensitivity():
    def lower(mechanism):
        finding = search(mechanism.sample, [1.0, -1.0], [(0, 1)], 400_000, 5, 1e-3)
        return float(np.max(finding.bounds()))

    assert 0.8 < lower(make("laplace", eps=1.0)) <= 1.0
    assert lower(LaplaceUnitSensitivity(1.0)) > 1.5


def test_report_json_schema_is_versioned_and_finite():
    data = json.loads(verify(make("grr", eps=1.0, c=3), AuditSettings(samples=20_000)).to_json())
    assert data["schema"] == "ldp-audit/report" and data["schema_version"] == "2.1"
    assert data["verdict"] == "pass" and all("status" in r for r in data["results"])
    blackbox = next(r for r in data["results"] if r["name"] == "privacy.blackbox")
    assert blackbox["interval"][1] is None  # one-sided: the upper end is null, never the string "inf"
    assert '"inf"' not in json.dumps(data) and "Infinity" not in json.dumps(data)


def _streams_drawn(monkeypatch) -> list:
    """Record the first key number of every task's stream (pilots 800 + i, final counts 900 + i, moments 100 + i,
    fit 200 + i)."""
    from ldp_audit.audits.kernel import sampling

    streams, run_block = [], sampling._run_block

    def recording(reduce_chunk, seed, stream, *rest):
        streams.append(sampling.stream_key(stream)[0])
        return run_block(reduce_chunk, seed, stream, *rest)

    monkeypatch.setattr(sampling, "_run_block", recording)
    return streams


def test_privacy_only_spends_the_whole_alpha_on_the_blackbox_family_and_draws_nothing_else(monkeypatch):
    mechanism, settings = make("laplace", eps=1.0), AuditSettings(samples=20_000, seed=5, alpha=1e-3)
    streams, drawn, planned = _streams_drawn(monkeypatch), [], []
    report = verify(mechanism, settings, progress=drawn.append, checks="privacy", planned=planned.append)
    row = next(r for r in report.results if r.name == "privacy.blackbox")
    assert row.alpha == settings.alpha  # the whole alpha
    assert streams and all(s >= 800 for s in streams), sorted(set(streams))  # no moment (1xx) or fit (2xx) draws
    assert {r.name.split(".")[0] for r in report.results} <= {"sanity", "law", "privacy"}
    assert [sum(drawn)] == planned == [20_000 * len(mechanism.privacy_inputs)]
    del streams[:]
    everything = verify(mechanism, settings, checks="all")
    assert next(r for r in everything.results if r.name == "privacy.blackbox").alpha == settings.alpha / 3
    assert {s // 100 for s in streams} == {1, 2, 8, 9}


@pytest.mark.parametrize("name", ["laplace", "esw"])  # esw: the search adds pairs of its pilot inputs
def test_one_progress_step_per_finished_task_across_every_family(name):
    from ldp_audit.audits.kernel.engines import LocalEngine
    from ldp_audit.audits.kernel.sampling import using

    mechanism, settings, drawn, planned = make(name, eps=1.0), AuditSettings(samples=3 * CHUNK, seed=5), [], []
    with using(LocalEngine(block=1)):
        verify(mechanism, settings, progress=drawn.append, checks="all", planned=planned.append)
    assert [sum(drawn)] == planned  # one bar: done / planned across families, announced by the plans
    assert max(drawn) <= CHUNK  # each step is one finished task (a block of one chunk here)
