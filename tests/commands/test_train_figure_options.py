"""``train`` reaches the run fields the figure targets sweep (issue 25): LPGNN's label rate (Fig. 7) and PPGNN's
levels, split, level distribution, propagation and PPM* (Figs. 4-9); the --protocol presets of ppgnn and ldp-ge
(issue 26) reach the run under the explicit options; bad values name the option and its range."""
from __future__ import annotations


import pytest

from ldp_audit.cli import main
from ldp_audit.models.training import sweep


def _code(argv) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


@pytest.fixture
def captured(monkeypatch, tmp_path):
    """The configs the sweep would train (nothing trains): the options' effect on the run, fast."""
    seen = []

    def fake_sweep(configs, *args, **kwargs):
        seen.extend(configs)
        raise KeyboardInterrupt  # stop right after the config is built; the CLI exits 130

    monkeypatch.setattr(sweep, "run_sweep", fake_sweep)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LDP_AUDIT_CACHE", str(tmp_path / "cache"))
    return seen


def test_ppgnn_options_reach_the_run_config(captured):
    _code(["train", "ppgnn", "--dataset", "cora", "--eps", "1", "--mechanism", "ppm-star", "--levels", "3",
           "--gamma", "0.25", "--level-distribution", "bimodal", "--feature-propagation", "kprop"])
    [config] = captured
    assert (config.mechanism, config.ppm_levels, config.ppm_gamma, config.level_distribution,
            config.propagation) == ("ppm_star", 3, 0.25, "bimodal", "kprop")


def test_ppgnn_defaults_keep_table3s_key(captured):
    from ldp_audit.models.training.ppgnn import ppgnn_config

    _code(["train", "ppgnn", "--dataset", "cora", "--eps", "1", "--k", "2"])
    [config] = captured
    assert config.key() == ppgnn_config("cora", "PPM", 1.0, 2, 0).key()


def test_ppgnn_released_protocol_reaches_the_run_config_and_explicit_options_win(captured):
    from ldp_audit.models.training.ppgnn import ppgnn_config
    from ldp_audit.models.training.protocols import protocol

    _code(["train", "ppgnn", "--dataset", "cora", "--eps", "1", "--k", "2", "--protocol", "released"])
    _code(["train", "ppgnn", "--dataset", "cora", "--eps", "1", "--k", "2", "--protocol", "released",
           "--model", "gcn", "--dropout", "0.5"])
    released, overridden = captured
    assert released == protocol("ppgnn", "released").apply(ppgnn_config("cora", "PPM", 1.0, 2, 0))
    assert (overridden.model, overridden.dropout, overridden.objective) == ("gcn", 0.5, "saturating")


def test_gm_needs_eps_below_d_only_under_the_classical_calibration(captured, capsys):
    """Cora has d = 1433: eps = 5000 is refused for the spec's per-coordinate GM, trained under the released
    protocol's analytic Gaussian on the whole vector."""
    argv = ["train", "ppgnn", "--dataset", "cora", "--eps", "5000", "--mechanism", "gm"]
    assert _code(argv) == 2 and "eps/d < 1" in capsys.readouterr().err and not captured
    _code([*argv, "--protocol", "released"])
    [config] = captured
    assert (config.mechanism, config.gaussian_baseline, config.eps_x) == ("gaussian_hd", "analytic_l2", 5000.0)


def test_ldp_ge_released_protocol_reaches_the_run_config_and_explicit_options_win(captured):
    from ldp_audit.models.training import ldp_ge
    from ldp_audit.models.training.protocols import protocol

    _code(["train", "ldp-ge", "--dataset", "cora", "--eps", "1"])
    _code(["train", "ldp-ge", "--dataset", "cora", "--eps", "1", "--protocol", "released"])
    _code(["train", "ldp-ge", "--dataset", "cora", "--eps", "1", "--protocol", "released", "--propagation", "power"])
    spec, released, overridden = captured
    assert released == protocol("ldp-ge", "released").apply(spec) != spec
    assert spec == ldp_ge.preset("cora", "link", mechanism="HDS", eps=1.0, k=None, method="push", rescale=False,
                                 downstream="mlp", seed=0)
    # --propagation power wins over the preset's push; the push switches then act on nothing and are reset
    assert (overridden.method, overridden.push_signs, overridden.report_units) == ("power", "joint", "raw")


def test_lpgnn_train_fraction_reaches_the_run_config(captured):
    _code(["train", "lpgnn", "--dataset", "karate", "--features", "ohd", "--train-fraction", "0.2"])
    [config] = captured
    assert config.train_fraction == 0.2


@pytest.mark.parametrize("argv, words", [
    (["train", "ppgnn", "--eps", "1", "--levels", "17"], ["--levels", "[1, 16]"]),
    (["train", "ppgnn", "--eps", "1", "--gamma", "1"], ["--gamma", "(0, 1)"]),
    (["train", "ppgnn", "--eps", "1", "--level-distribution", "zipf"], ["--level-distribution", "uniform"]),
    (["train", "lpgnn", "--train-fraction", "0"], ["--train-fraction", "(0, 1]"]),
    (["train", "lpgnn", "--levels", "3"], ["--levels", "not an option of train lpgnn"]),
    (["train", "ppgnn", "--eps", "1", "--train-fraction", "0.5"], ["--train-fraction", "not an option"]),
    (["train", "lpgnn", "--protocol", "released"], ["--protocol", "not an option of train lpgnn"]),
    (["train", "ldp-ge", "--eps", "1", "--protocol", "authors"], ["--protocol", "spec", "released"]),
])
def test_bad_values_name_the_option_and_its_range(argv, words, capsys, captured):
    assert _code(argv) == 2
    err = capsys.readouterr().err
    assert all(w in err for w in words), err
    assert not captured
