"""Every bad input of every sub-command is a usage error: exit 2, the option named in the message, no
traceback, and no output file written. Each case names the word the message must contain."""
from __future__ import annotations

import pytest

from ldp_audit.cli import main

ACCOUNT = ["account", "--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "1e-5"]

CASES = [
    # verify
    (["verify", "hds", "--eps", "-1"], "eps"),
    (["verify", "hds", "--eps", "nan"], "eps"),
    (["verify", "hds", "--eps", "inf"], "eps"),
    (["verify", "hds", "--eps", "1", "--samples", "0"], "samples"),
    (["verify", "hds", "--eps", "1", "--samples", "1e20"], "samples"),
    (["verify", "hds", "--eps", "1", "--samples", "abc"], "samples"),
    (["verify", "hds", "--eps", "1", "--d", "1000000000"], "d"),
    (["verify", "hds", "--eps", "1", "--d", "0"], "d"),
    (["verify", "hds", "--eps", "1", "--k", "0"], "k"),
    (["verify", "hds", "--eps", "1", "--k", "[/]"], "k"),
    (["verify", "hds", "--eps", "1", "--confidence", "1.5"], "confidence"),
    (["verify", "hds", "--eps", "1", "--confidence", "0"], "confidence"),
    (["verify", "hds", "--eps", "1", "--workers", "0"], "workers"),
    (["verify", "hds", "--eps", "1", "--seed", "-3"], "seed"),
    (["verify", "hsd", "--eps", "1"], "hds"),
    (["verify", "no_such_module:factory", "--eps", "1"], "no_such_module"),
    # claims
    (["claims", "lpgnn", "--samples", "10"], "samples"),
    (["claims", "lpgnn", "--confidence", "2"], "confidence"),
    (["claims", "lpgnn", "--seed", "-1"], "seed"),
    (["claims", "nope"], "paper"),
    # compare
    (["compare", "--samples", "1e20"], "samples"),
    (["compare", "--d", "1e9"], "d"),
    (["compare", "--eps", "0"], "eps"),
    (["compare", "--eps", "-inf"], "eps"),
    (["compare", "--inputs", "a,b"], "inputs"),
    (["compare", "--mechanisms", ","], "mechanisms"),
    (["compare", "--mechanisms", "nope"], "nope"),
    (["compare", "--confidence", "1"], "confidence"),
    (["compare", "--k", "99", "--mechanisms", "hds"], "k"),
    # account
    (["account", "--q", "0", "--sigma", "1", "--steps", "1", "--delta", "1e-5"], "q"),
    (["account", "--q", "1.5", "--sigma", "1", "--steps", "1", "--delta", "1e-5"], "q"),
    (["account", "--q", "0.1", "--sigma", "1e-300", "--steps", "1", "--delta", "1e-5"], "sigma"),
    (["account", "--q", "0.1", "--sigma", "1e308", "--steps", "1", "--delta", "1e-5"], "sigma"),
    (["account", "--q", "0.1", "--sigma", "1", "--steps", "0", "--delta", "1e-5"], "steps"),
    (["account", "--q", "0.1", "--sigma", "1", "--steps", "1e13", "--delta", "1e-5"], "steps"),
    (["account", "--q", "0.1", "--sigma", "1", "--steps", "1", "--delta", "1"], "delta"),
    (ACCOUNT + ["--orders", "inf"], "orders"),
    (ACCOUNT + ["--orders", "0.5"], "orders"),
    (ACCOUNT + ["--orders", ","], "orders"),
    (ACCOUNT + ["--sampling", "without-replacement", "--orders", "2.5"], "orders"),
    # bounds
    (["bounds", "lpgnn", "--dataset", "nope"], "dataset"),
    (["bounds", "lpgnn", "--dataset", "csbm", "--reps", "1e9"], "reps"),
    (["bounds", "lpgnn", "--dataset", "csbm", "--reps", "10"], "reps"),
    (["bounds", "lpgnn", "--eps", "-1"], "eps"),
    (["bounds", "lpgnn", "--delta", "0"], "delta"),
    (["bounds", "lpgnn", "--alpha", "1"], "alpha"),
    (["bounds", "ldp-ge", "--r", "2"], "r"),
    (["bounds", "ldp-ge", "--r-max", "0"], "r-max"),
    (["bounds", "ldp-ge", "--dataset", "karate"], "features"),
    (["bounds", "lpgnn", "--features", "-1"], "features"),
    (["bounds", "lpgnn", "--data-dir", "/no/such/folder"], "data-dir"),
    # data
    (["data", "nope"], "dataset"),
    (["data", "cora", "--data-dir", "/no/such/folder"], "data-dir"),
    # attack
    (["attack", "own-report", "hds", "--eps", "0"], "eps"),
    (["attack", "own-report", "hds", "--eps", "1", "--samples", "5"], "samples"),
    (["attack", "level-leak", "--gamma", "1"], "gamma"),
    (["attack", "level-leak", "--h", "0"], "h"),
    (["attack", "label-plurality", "--c", "1"], "c"),
    (["attack", "averaging", "multibit", "--eps", "1", "--queries", "0"], "queries"),
    (["attack", "neighbour-vote", "--dataset", "nope"], "dataset"),
    (["attack", "not-covered", "nope"], "paper"),
]


def _id(case):
    return " ".join(case[0])[:60]


@pytest.mark.parametrize("argv, word", CASES, ids=[_id(c) for c in CASES])
def test_bad_input_exits_2_and_names_the_option(argv, word, capsys, tmp_path):
    out = tmp_path / "report.json"
    argv = list(argv)
    if argv[0] not in ("data",) and not (argv[0] == "attack" and argv[1] == "not-covered" and argv[2] == "nope"):
        argv += ["--out", str(out)]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert word in err, err
    assert not out.exists()


@pytest.mark.parametrize("argv, option", [
    (ACCOUNT + ["--out", "{tmp}"], "--out"),                      # a folder, not a file
    (ACCOUNT + ["--out", "/proc/version/x.json"], "--out"),       # under a file
    (["compare", "--samples", "1000", "--plot", "{tmp}"], "--plot"),
])
def test_unwritable_outputs_are_refused_before_the_run(argv, option, capsys, tmp_path):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert option in err and "Traceback" not in err


def test_a_missing_output_folder_is_created_and_announced(capsys, tmp_path):
    target = tmp_path / "new" / "deeper" / "report.json"
    assert main(ACCOUNT + ["--out", str(target)]) == 0
    assert target.exists() and "will be created" in capsys.readouterr().err


def test_a_nan_rdp_order_is_left_out_never_reported_as_eps_0(capsys):
    """opacus returns NaN at order 1030 here; Python's max(0.0, nan) is 0.0, the bug this guards against."""
    import json

    code = main(["account", "--q", "0.0040737", "--sigma", "5", "--steps", "200", "--delta", "1e-5",
                 "--orders", "2,1030", "--json"])
    report = json.loads(capsys.readouterr().out)
    opacus = next(a for a in report["subject"]["accountants"] if a["source"] == "opacus")
    assert code == 0 and opacus["eps"]["improved"] > 1.0 and "NaN" in opacus["note"]
