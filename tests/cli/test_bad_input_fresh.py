"""Issue 22's last gaps and a fresh hand-made bad-input sweep (helper i22c): extreme settings that FAILed a
correct implementation, size guards, a damaged dataset as one row, and the inputs the sweep found unclean."""
from __future__ import annotations

import pytest

from ldp_audit.audits.privacy import accountants as accounting
from ldp_audit.audits.kernel.result import Status
from ldp_audit.cli import main


# ---------------------------------------------------------------- account: float resolution of the accountants
def _status(result, name):
    return next(c.status for c in result.checks if c.name == name)


def test_account_realistic_small_rate_agrees_within_float_resolution():
    """q=0.001, sigma=10 (DP-SGD on a large graph) FAILed: opacus's fractional series is accurate to ~1e-13 per
    step, a relative 1.7e-6 of that step's RDP; the tolerance now carries T times the float term."""
    result = accounting.account(0.001, 10.0, 1000, 1e-5, orders=[1.5, 2, 4, 8, 16, 32])
    assert _status(result, "account.rdp-agreement") is Status.PASS
    assert _status(result, "account.eps-agreement") is Status.PASS


def test_account_still_fails_a_curve_off_by_1e_4(monkeypatch):
    """Power at the same setting: one source 1e-4 too large (relative) is caught despite the float term."""
    real = accounting.rdp_opacus
    monkeypatch.setattr(accounting, "rdp_opacus", lambda q, s, o: real(q, s, o) * (1 + 1e-4))
    result = accounting.account(0.001, 10.0, 1000, 1e-5, orders=[1.5, 2, 4, 8, 16, 32])
    assert _status(result, "account.rdp-agreement") is Status.FAIL


def test_account_refuses_a_per_step_loss_below_float_resolution(capsys):
    """--q 0.5 --sigma 1e6 --steps 1e12 FAILed: one step's RDP (2.5e-13) is below what any source resolves."""
    code = main(["account", "--q", "0.5", "--sigma", "1e6", "--steps", "1e12", "--delta", "1e-5"])
    err = capsys.readouterr().err
    assert code == 2
    assert "sigma" in err and "q" in err and "too little privacy loss per step" in err


# ---------------------------------------------------------------- data: a damaged dataset is one failing row
def _damaged_folder(tmp_path):
    import shutil

    from ldp_audit.models import data

    shared, root = data.data_dir(), tmp_path / "datasets"
    root.mkdir()
    for name in ("SHA256SUMS", "README.md"):
        shutil.copy(shared / name, root / name)
    shutil.copytree(shared / "chameleon", root / "chameleon")
    shutil.copytree(shared / "lastfm_asia", root / "lastfm_asia")
    edges = root / "lastfm_asia" / "edges.csv"
    edges.write_bytes(edges.read_bytes()[:1000])
    return root


def test_data_shows_a_damaged_dataset_as_a_row_and_goes_on(tmp_path, capsys):
    root = _damaged_folder(tmp_path)
    code = main(["data", "--data-dir", str(root), "--cache-dir", str(tmp_path / "cache")])
    out = capsys.readouterr().out
    assert code == 1
    table = {line.split()[0]: line for line in out.splitlines() if line.strip() and line.split()[0] in
             ("chameleon", "lastfm_asia", "karate")}
    assert "CANNOT READ" in table["lastfm_asia"] and " ok" in table["chameleon"] and "n/a" in table["karate"]
    assert "edges.csv" in out and "damaged" in out


def test_data_json_keeps_every_dataset(tmp_path, capsys):
    import json

    root = _damaged_folder(tmp_path)
    code = main(["data", "--data-dir", str(root), "--cache-dir", str(tmp_path / "cache"), "--json"])
    results = {r["name"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    assert code == 1
    assert results["data.lastfm_asia"]["status"] == "fail" and "edges.csv" in results["data.lastfm_asia"]["explanation"]
    assert results["data.chameleon"]["status"] == "pass"


# ---------------------------------------------------------------- --plot must name a PNG
@pytest.mark.parametrize("argv", [["compare", "--samples", "1000", "--plot"], ["reproduce", "ldp-ge", "--plan", "--plot"]])
@pytest.mark.parametrize("name", ["plot.pdf", "plot", "plot.png.txt"])
def test_plot_must_end_in_png(argv, name, tmp_path, capsys):
    code = main(argv + [str(tmp_path / name)])
    err = capsys.readouterr().err
    assert code == 2 and "--plot" in err and ".png" in err, err
    assert not (tmp_path / name).exists()


# ---------------------------------------------------------------- the Python API
def test_verify_refuses_what_is_not_a_mechanism():
    from ldp_audit.audits.verify.orchestrator import verify

    for thing in ("hds", None, 3.0):
        with pytest.raises(TypeError, match="audit interface.*mechanisms.make"):
            verify(thing)


def test_verify_refuses_settings_that_are_not_audit_settings():
    from ldp_audit.audits.verify.orchestrator import verify
    from ldp_audit.mechanisms import make

    with pytest.raises(TypeError, match="settings must be an AuditSettings"):
        verify(make("laplace", eps=1.0), settings={"samples": 1000})


@pytest.mark.parametrize("workers", [0, -1, 1.5])
def test_assert_ldp_refuses_a_worker_count_below_one(workers):
    from ldp_audit.mechanisms import make
    from ldp_audit.testing import assert_ldp

    with pytest.raises(ValueError, match=r"workers must be an integer \[1, 64\]"):
        assert_ldp(make("laplace", eps=1.0), 1.0, samples=1000, workers=workers)


# ---------------------------------------------------------------- user factories
@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "fresh_user_mech.py").write_text(
        "import numpy as np\n"
        "print('imported')\n"
        "class Coin:\n"
        "    domain = (0.0, 1.0)\n"
        "    delta = 0.0\n"
        "    def __init__(self, eps):\n"
        "        self.eps = eps\n"
        "    def sample(self, x, n, rng):\n"
        "        return rng.random(n) < 0.5\n"
        "def talkative(eps):\n"
        "    print('building')\n"
        "    return Coin(eps)\n"
        "def eps_text(eps):\n"
        "    return Coin('one')\n"
        "def nan_reports(eps):\n"
        "    return {'sample': lambda x, n, rng: np.full(n, np.nan), 'eps': eps, 'domain': (-1.0, 1.0)}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(__import__("sys").modules, "fresh_user_mech", raising=False)
    return "fresh_user_mech"


def test_a_factory_that_prints_leaves_the_json_clean(user_module, capsys):
    import json

    code = main(["verify", f"{user_module}:talkative", "--eps", "1", "--samples", "1000", "--json",
                 "--checks", "moments"])
    captured = capsys.readouterr()
    assert code in (0, 1)
    assert json.loads(captured.out)["schema"] == "ldp-audit/report"
    assert "imported" in captured.err and "building" in captured.err


def test_a_factory_whose_eps_is_not_a_number_is_refused(user_module, capsys):
    code = main(["verify", f"{user_module}:eps_text", "--eps", "1", "--samples", "1000"])
    err = capsys.readouterr().err
    assert code == 2 and "eps is 'one', not a finite number" in err


def test_a_sampler_of_nan_reports_breaks_the_protocol_and_is_not_called_unseeded(user_module, capsys):
    code = main(["verify", f"{user_module}:nan_reports", "--eps", "1", "--samples", "1000", "--json"])
    import json

    rows = {r["name"]: r["status"] for r in json.loads(capsys.readouterr().out)["results"]}
    assert code == 2 and rows["sanity.finite"] == "fail"  # exit 3 is --require-seeded's alone
    assert rows["sanity.determinism"] == "pass"  # constant NaN output is not "random reports that ignore the rng"


# ---------------------------------------------------------------- options another engine or paper would read
@pytest.mark.parametrize("argv, words", [
    (["verify", "laplace", "--eps", "1", "--samples", "1000", "--engine", "local", "--workers", "2"],
     ["--workers 2 needs --engine processes or dask"]),
    (["verify", "laplace", "--eps", "1", "--samples", "1000", "--engine", "local", "--work=2"],
     ["--workers 2 needs"]),
    (["train", "ppgnn", "--dataset", "csbm", "--epochs", "1", "--scheduler", "tcp://127.0.0.1:1"],
     ["--scheduler needs --engine dask"]),
    (["reproduce", "lpgnn", "--plan", "--max-runs", "0", "--scheduler", "tcp://127.0.0.1:1"],
     ["--scheduler needs --engine dask"]),
    (["bounds", "lpgnn", "--dataset", "csbm", "--ppr-alpha", "0.5"], ["--ppr-alpha", "not read by the lpgnn"]),
    (["bounds", "ppgnn", "--dataset", "csbm", "--r-max", "0.01"], ["--r-max", "not read by the ppgnn", "--steps"]),
    (["bounds", "ldp-ge", "--dataset", "csbm", "--steps", "3"], ["--steps", "not read by the ldp-ge", "--ppr-alpha"]),
])
def test_an_option_the_run_would_not_read_is_refused(argv, words, capsys, tmp_path):
    code = main(argv + ([] if argv[0] == "train" else ["--out", str(tmp_path / "r.json")]))
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    assert not (tmp_path / "r.json").exists()
    for word in words:
        assert word in err, err


def test_compare_refuses_d_for_one_dimensional_mechanisms(capsys):
    assert main(["compare", "--mechanisms", "grr", "--d", "4", "--samples", "1000"]) == 2
    assert "--d 4 applies to none of --mechanisms grr" in capsys.readouterr().err


def test_account_orders_with_an_empty_entry_are_refused(capsys):
    code = main(["account", "--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--orders", "2,,4"])
    assert code == 2 and "--orders" in capsys.readouterr().err


def test_account_says_when_the_optimal_order_is_the_largest_instead_of_a_library_warning(capsys):
    code = main(["account", "--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--orders", "2,4"])
    captured = capsys.readouterr()
    assert code == 0
    assert "UserWarning" not in captured.err and "optimal order is the largest given (4)" in captured.out


@pytest.mark.parametrize("columns", ["0", "-3", "abc", "5"])
def test_an_unusable_columns_variable_still_prints_the_table(columns, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", columns)
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "hds" in out and "laplace" in out


@pytest.mark.parametrize("paper", ["lpgnn", "ppgnn"])
def test_bounds_refuse_a_biased_estimate_for_the_unbiased_aggregation_bounds(paper, capsys):
    """hds's estimate has no d/k rescaling: the mean bound FAILed 50 of 50 replicates for no fault of the paper."""
    code = main(["bounds", paper, "--dataset", "csbm", "--mechanism", "hds", "--reps", "50"])
    err = capsys.readouterr().err
    assert code == 2 and "--mechanism hds" in err and "biased" in err, err


def test_bounds_lpgnn_keeps_an_unbiased_sampled_mechanism(capsys):
    code = main(["bounds", "lpgnn", "--dataset", "csbm", "--mechanism", "multibit", "--reps", "50", "--json"])
    import json

    rows = {r["name"]: r["status"] for r in json.loads(capsys.readouterr().out)["results"]}
    assert code == 1 and rows["lpgnn.mean-bound"] == "pass" and rows["lpgnn.rate.N"] == "fail"  # erratum E4


def test_account_refuses_the_same_per_step_loss_without_replacement(capsys):
    code = main(["account", "--q", "0.5", "--sigma", "1e6", "--steps", "1e12", "--delta", "1e-5",
                 "--sampling", "without-replacement"])
    assert code == 2 and "too little privacy loss per step" in capsys.readouterr().err
