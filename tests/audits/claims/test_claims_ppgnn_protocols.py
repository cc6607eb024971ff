"""ppgnn's claims on the released code (issue 26): C17 read under each protocol says where the printed ordering
holds, with fabricated measurements (no training), and C10 for the released PPM fails on the exact ratio; a broken
comparison (MB and PPM swapped) and a released user that samples only its own count are caught."""
from __future__ import annotations

import pytest

from ldp_audit.audits.claims import ppgnn as claims_ppgnn
from ldp_audit.audits.kernel.result import Status
from ldp_audit.audits.reproduction import lpgnn as reproduction
from ldp_audit.models.training.lpgnn import Measured

MB = (55, 56, 54, 55, 57)
ABOVE = tuple(m + 3 + j for m, j in zip(MB, (0, 1, -1, 0, 1)))


def _fabricated(ppm_by_protocol, swap=False):
    """PPM's accuracies per protocol (told apart by the cells' configs), MB's the same everywhere."""
    def stored(cells, root):
        out = {}
        for cell in cells:
            config = next(iter(cell.candidates.values()))[0]
            name = ("released" if config.ppm_variant == "released" else
                    "spec" if config.model == "gcn" else "released with the spec's PPM")
            is_ppm = cell.column.startswith("PPM") != swap
            values = ppm_by_protocol[name] if is_ppm else MB
            out[cell] = Measured(cell, 2, values, 2, values, {}, ("cpu",))
        return out
    return stored


def test_c17_by_protocol_names_the_protocols_where_the_ordering_holds(monkeypatch, tmp_path):
    monkeypatch.setattr(reproduction, "stored_measurements",
                        _fabricated({"spec": MB, "released": ABOVE, "released with the spec's PPM": MB}))
    rows = claims_ppgnn.c17_by_protocol(tmp_path, eps_grid=(0.01,))
    row = rows[0]
    assert row.status is Status.INCONCLUSIVE  # the spec's verdict: PPM = MB
    assert row.explanation.endswith("holds under: released")
    assert row.details["protocols"]["released"]["status"] == "pass"
    assert row.details["protocols"]["spec"]["difference"] == pytest.approx(0.0)


def test_c17_by_protocol_fails_a_broken_comparison(monkeypatch, tmp_path):
    """Mutant: MB's and PPM's cells swapped -- PPM now trails MB under the released protocol, and the row says so."""
    monkeypatch.setattr(reproduction, "stored_measurements",
                        _fabricated({"spec": ABOVE, "released": ABOVE, "released with the spec's PPM": ABOVE},
                                    swap=True))
    row = claims_ppgnn.c17_by_protocol(tmp_path, eps_grid=(1.0,))[0]
    assert row.status is Status.FAIL and row.explanation.endswith("holds under: none")


def test_c17_by_protocol_without_runs_is_inconclusive(tmp_path):
    rows = claims_ppgnn.c17_by_protocol(tmp_path / "empty")
    assert all(r.status is Status.INCONCLUSIVE and "no stored runs" in r.explanation for r in rows)


def test_c17_protocols_differ_by_the_released_ppm_only():
    protocols = claims_ppgnn.c17_protocols()
    released, spec_ppm = protocols["released"], protocols["released with the spec's PPM"]
    assert {e.field for e in released.elements} - {e.field for e in spec_ppm.elements} == {"ppm_variant"}


def test_c10_fails_for_the_released_ppm_and_passes_when_every_user_samples_its_own_count():
    row = claims_ppgnn.c10_released_ppm(samples=20_000, seed=3)
    assert row.status is Status.FAIL and row.statistic == pytest.approx(8.0)
    assert row.details["eps_lower"] > 1.0 and row.details["spec_ratio"] == pytest.approx(1.0)
    fixed = claims_ppgnn.c10_released_ppm(samples=20_000, seed=3, m_reported=8, sampled=8)
    assert fixed.status is Status.PASS


def test_c17_by_protocol_reads_the_folder_its_environment_variable_names(monkeypatch, tmp_path):
    monkeypatch.setenv(claims_ppgnn.PROTOCOL_RESULTS_ENV, str(tmp_path / "elsewhere"))
    rows = claims_ppgnn.c17_by_protocol()
    assert all(str(tmp_path / "elsewhere") in r.explanation for r in rows)
