"""``reproduce ldp-ge --quick --protocol ... --datasets NAME``: the protocol grid (eps = 1, every Table III row,
Fig. 2's HDS and MB) on the datasets named, a dataset without features refused by name. Training is faked."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from ldp_audit.cli import main


def _run(argv):
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def _faked(monkeypatch):
    """Training faked: every config 'trains' to 0.7; returns the list of configs handed to the sweep."""
    from ldp_audit.models.training import RunResult, sweep

    trained = []

    def fake_sweep(configs, *args, **kwargs):
        trained.extend(configs)
        return {c: RunResult(c, {"val_auc": 0.7, "test_auc": 0.7, "val_acc": 0.7, "test_acc": 0.7}, {}, "cpu",
                             "cpu", {}, 0.0, {"propagation": "push", "k": None}) for c in configs}

    monkeypatch.setattr(sweep, "run_sweep", fake_sweep)
    return trained


@pytest.mark.parametrize("datasets, expected", [([], {"cora"}), (["--datasets", "citeseer"], {"citeseer"}),
                                                (["--datasets", "cora", "citeseer"], {"cora", "citeseer"})])
def test_the_protocol_grid_runs_on_the_datasets_named(datasets, expected, monkeypatch, tmp_path, capsys):
    trained = _faked(monkeypatch)
    argv = ["reproduce", "ldp-ge", "--protocol", "released", "--runs", "1", "--results", str(tmp_path), "--json",
            "--device", "cpu", *datasets]
    assert _run(argv) in (0, 1, 4)  # a verdict (4: inconclusive)
    report = json.loads(capsys.readouterr().out)
    assert {c.dataset for c in trained} == expected
    assert len(trained) == 7 * len(expected)  # four link mechanisms, the non-private link row, node HDS and MB
    assert all(name in report["subject"]["tables"] for name in expected)


def test_a_dataset_without_features_is_refused_by_name(tmp_path, capsys):
    """LastFM ships without its feature file (shared/datasets/README)."""
    assert _run(["reproduce", "ldp-ge", "--protocol", "released", "--datasets", "lastfm", "--max-runs", "0",
                 "--results", str(tmp_path)]) == 2
    assert "--datasets: lastfm" in capsys.readouterr().err


@pytest.mark.parametrize("protocol", [[], ["--protocol", "released"], ["--protocol", "both"]])
def test_set_changes_every_run_after_the_preset_and_the_report_names_it(protocol, monkeypatch, tmp_path, capsys):
    trained = _faked(monkeypatch)
    argv = ["reproduce", "ldp-ge", *protocol, "--runs", "1", "--results", str(tmp_path), "--json", "--device", "cpu",
            "--set", "feature_rows=l1", "feature_bounds=columns", "lr=0.001"]
    assert _run(argv) in (0, 1, 4)  # a verdict (4: inconclusive)
    report = json.loads(capsys.readouterr().out)
    assert trained and all((c.feature_rows, c.feature_bounds, c.lr) == ("l1", "columns", 0.001) for c in trained)
    assert all(c.key() != replace(c, feature_rows="raw").key() for c in trained)  # stored beside the others
    assert report["settings"]["set"] == "feature_rows=l1 feature_bounds=columns lr=0.001"
    if protocol:  # the preset still applies: released runs keep the released report units
        assert any(c.report_units == "raw" for c in trained)


@pytest.mark.parametrize("sets, message", [
    (["feature_rows=l2"], "--set: feature_rows must be 'raw' or 'l1'"),
    (["eps=2"], "--set: 'eps' is not a field --set changes"),
    (["colour=red"], "--set: 'colour' is not a field --set changes; one of alpha"),
    (["lr=0.1", "lr=0.2"], "--set: lr given twice"),
    (["lr"], "--set: FIELD=VALUE, got 'lr'"),
])
def test_a_bad_set_is_refused_by_name(sets, message, monkeypatch, tmp_path, capsys):
    trained = _faked(monkeypatch)
    assert _run(["reproduce", "ldp-ge", "--results", str(tmp_path), "--set", *sets]) == 2
    assert message in capsys.readouterr().err and not trained


def test_set_is_refused_for_the_other_papers(tmp_path, capsys):
    assert _run(["reproduce", "ppgnn", "--results", str(tmp_path), "--set", "lr=0.1"]) == 2
    assert "--set: ldp-ge only" in capsys.readouterr().err


@pytest.mark.parametrize("protocol, clear", [([], [False, True]), (["--protocol", "released"], [False])])
def test_mechanisms_restricts_the_private_cells_and_keeps_the_non_private_rows(protocol, clear, monkeypatch,
                                                                                tmp_path, capsys):
    """The released preset's non-private row reads the raw features itself: no second, identical raw run."""
    trained = _faked(monkeypatch)
    assert _run(["reproduce", "ldp-ge", "--full", "--tables", "table3", "--datasets", "cora", "--mechanisms", "hds",
                 "--runs", "1", "--results", str(tmp_path), "--json", "--device", "cpu", *protocol]) in (0, 1, 4)
    assert [(c.mechanism, c.eps, c.raw_clear) for c in trained] == \
        [("HDS", 1.0, False), ("HDS", 2.0, False), ("HDS", 3.0, False), ("HDS", 5.0, False)] + \
        [("HDS", None, raw) for raw in clear]
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["results"]}
    assert "cora link HDS eps=1" in rows
    assert [row["details"]["features"] for name, row in rows.items() if "eps=inf" in name] == \
        (["[-1, 1]", "raw"] if not protocol else ["raw"])


@pytest.mark.parametrize("argv, message", [
    (["--full", "--mechanisms", "GM"], "--mechanisms must be among LP, PM, MB, HDS for ldp-ge, got GM"),
    (["--quick", "--mechanisms", "HDS"], "--mechanisms: ppgnn, and ldp-ge with --full")])
def test_a_bad_mechanisms_option_is_refused_by_name(argv, message, monkeypatch, tmp_path, capsys):
    trained = _faked(monkeypatch)
    assert _run(["reproduce", "ldp-ge", *argv, "--results", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err and not trained


def test_full_protocol_both_runs_fig2_under_each_protocol_and_reports_both(monkeypatch, tmp_path, capsys):
    trained = _faked(monkeypatch)
    plot = tmp_path / "fig2.png"
    argv = ["reproduce", "ldp-ge", "--full", "--protocol", "both", "--tables", "fig2", "--datasets", "cora",
            "--runs", "1", "--results", str(tmp_path / "runs"), "--json", "--device", "cpu", "--plot", str(plot)]
    assert _run(argv) in (0, 1, 4)  # a verdict (4: inconclusive)
    report = json.loads(capsys.readouterr().out)
    node = [c for c in trained if c.task == "node"]
    assert {c.report_units for c in node} == {"unit", "raw"} and {c.init for c in node} == {"spec", "released"}
    names = [r["name"] for r in report["results"]]
    for protocol in ("spec", "released"):  # every Fig. 2 cell and C22 row once per protocol
        assert sum(n.endswith(f"[{protocol}]") and "node" in n and "eps=0.01" in n for n in names) == 4
        assert any(n.startswith("C22") and n.endswith(f"[{protocol}]") for n in names)
    assert plot.read_bytes().startswith(b"\x89PNG")
