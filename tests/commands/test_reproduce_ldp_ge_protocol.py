"""``reproduce ldp-ge --quick --protocol ... --datasets NAME``: the protocol grid (eps = 1, every Table III row,
Fig. 2's HDS and MB) on the datasets named, a dataset without features refused by name. Training is faked."""
from __future__ import annotations

import json

import pytest

from ldp_audit.cli import main


def _run(argv):
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


@pytest.mark.parametrize("datasets, expected", [([], {"cora"}), (["--datasets", "citeseer"], {"citeseer"}),
                                                (["--datasets", "cora", "citeseer"], {"cora", "citeseer"})])
def test_the_protocol_grid_runs_on_the_datasets_named(datasets, expected, monkeypatch, tmp_path, capsys):
    from ldp_audit.models.training import RunResult, sweep

    trained = []

    def fake_sweep(configs, *args, **kwargs):
        trained.extend(configs)
        return {c: RunResult(c, {"val_auc": 0.7, "test_auc": 0.7, "val_acc": 0.7, "test_acc": 0.7}, {}, "cpu",
                             "cpu", {}, 0.0, {"propagation": "push", "k": None}) for c in configs}

    monkeypatch.setattr(sweep, "run_sweep", fake_sweep)
    argv = ["reproduce", "ldp-ge", "--protocol", "released", "--runs", "1", "--results", str(tmp_path), "--json",
            "--device", "cpu", *datasets]
    assert _run(argv) in (0, 1)
    report = json.loads(capsys.readouterr().out)
    assert {c.dataset for c in trained} == expected
    assert len(trained) == 7 * len(expected)  # four link mechanisms, the non-private link row, node HDS and MB
    assert all(name in report["subject"]["tables"] for name in expected)


def test_a_dataset_without_features_is_refused_by_name(tmp_path, capsys):
    """LastFM ships without its feature file (shared/datasets/README)."""
    assert _run(["reproduce", "ldp-ge", "--protocol", "released", "--datasets", "lastfm", "--max-runs", "0",
                 "--results", str(tmp_path)]) == 2
    assert "--datasets: lastfm" in capsys.readouterr().err
