"""ppgnn C17 on stored ``reproduce ppgnn`` results: the spec's >= 4 of 6 datasets rule, with fabricated
measurements (no training): PASS at 4 datasets where PPM beats MB, FAIL once 4 cannot be reached, INCONCLUSIVE
without results. The computed C17 row and E16 are tested against their mutants in test_claims_rows."""
from __future__ import annotations

import pytest

from ldp_audit.audits.claims import ppgnn as claims_ppgnn
from ldp_audit.audits.reproduction import lpgnn as reproduction
from ldp_audit.audits.kernel.result import Status
from ldp_audit.models.training.lpgnn import Measured

MB = (55, 56, 54, 55, 57, 55, 54, 56, 55, 54)
JITTER = (0, 1, -1, 0, 2, 1, 0, -1, 1, 0)
ABOVE = tuple(m + 7 + j for m, j in zip(MB, JITTER))
BELOW = tuple(m - 7 + j for m, j in zip(MB, JITTER))


def _fabricated(ppm_by_dataset):
    def stored(cells, root):
        out = {}
        for cell in cells:
            ppm = ppm_by_dataset.get(cell.dataset)
            values = None if ppm is None else (ppm if cell.column.startswith("PPM") else MB)
            out[cell] = None if values is None else Measured(cell, 2, values, 2, values, {}, ("cpu",))
        return out
    return stored


@pytest.mark.parametrize("ppm_by_dataset, status", [
    ({"cora": ABOVE, "citeseer": ABOVE, "pubmed": ABOVE, "lastfm": ABOVE, "facebook": MB, "wikipedia": BELOW},
     Status.PASS),
    ({"cora": BELOW, "citeseer": BELOW, "pubmed": BELOW, "lastfm": ABOVE}, Status.FAIL),  # mutant: MB beats PPM
    ({"cora": ABOVE, "citeseer": ABOVE}, Status.INCONCLUSIVE),  # four datasets unfinished
])
def test_c17_stored_applies_the_four_of_six_rule(ppm_by_dataset, status, monkeypatch, tmp_path):
    monkeypatch.setattr(reproduction, "stored_measurements", _fabricated(ppm_by_dataset))
    row = claims_ppgnn.c17_stored(tmp_path, "full")
    assert row.status is status, row.explanation


def test_c17_stored_without_results_is_inconclusive(monkeypatch, tmp_path):
    monkeypatch.setenv(claims_ppgnn.RESULTS_ENV, str(tmp_path / "empty"))
    row = claims_ppgnn.c17_stored()
    assert row.status is Status.INCONCLUSIVE and "no dataset finished" in row.explanation
