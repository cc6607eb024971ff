"""Settings that used to be dropped or clamped in silence are refused, naming the option, before any work
(issue 43): a feature budget on features that hold nothing private, and more sampled coordinates than features."""
from __future__ import annotations


import pytest

from ldp_audit.cli import main
from ldp_audit.models.training import ldp_ge


def _code(argv, capsys) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


@pytest.fixture
def results(tmp_path):
    return tmp_path / "results"


@pytest.mark.parametrize("features", ["rnd", "ohd"])
@pytest.mark.parametrize("eps", ["0.5", "1", "8"])
def test_a_feature_budget_on_features_without_private_content_is_refused(capsys, results, features, eps):
    code, err = _code(["train", "lpgnn", "--dataset", "csbm", "--features", features, "--eps-x", eps,
                       "--epochs", "1", "--results", str(results)], capsys)
    assert code == 2 and f"--eps-x {float(eps):g}" in err and f"--features {features}" in err
    assert "Traceback" not in err and not results.exists()  # refused before any work


@pytest.mark.parametrize("features", ["rnd", "ohd"])
def test_no_budget_or_an_infinite_one_still_trains_features_without_private_content(capsys, results, features):
    for extra in ([], ["--eps-x", "inf"]):
        code, _ = _code(["train", "lpgnn", "--dataset", "csbm", "--features", features, "--epochs", "1",
                         "--results", str(results), "--json", *extra], capsys)
        assert code == 0
    assert len(list(results.rglob("seed0.json"))) == 1  # one run: the second call found it stored


@pytest.mark.parametrize("sampled", ["1434", "5000", "100000"])
def test_more_sampled_coordinates_than_features_are_refused_before_training(capsys, results, planetoid, sampled):
    code, err = _code(["train", "ldp-ge", "--dataset", "cora", "--sampled", sampled, "--epochs", "1",
                       "--data-dir", str(planetoid), "--cache-dir", str(planetoid.parent / "cache"),
                       "--results", str(results)], capsys)
    assert code == 2 and "--sampled" in err and "[1, 1433]" in err and f"got {sampled}" in err
    assert "Traceback" not in err and not list(results.rglob("*.json"))


@pytest.mark.parametrize("k, d", [(9, 8), (2, 1), (1434, 1433)])
def test_the_python_api_refuses_more_sampled_coordinates_than_features(k, d):
    config = ldp_ge.preset("cora", "link", mechanism="HDS", eps=1.0, k=k)
    with pytest.raises(ValueError, match=rf"k must be an integer in \[1, {d}\].*got {k}"):
        config.sampled(d)
    assert config.sampled(k) == k  # exactly d coordinates is allowed


@pytest.mark.parametrize("argv", [
    ["train", "lpgnn", "--dataset", "csbm", "--results", ""],
    ["train", "lpgnn", "--dataset", "csbm", "--results", "  "],
    ["train", "ldp-ge", "--dataset", "cora", "--results", ""],
    ["reproduce", "lpgnn", "--quick", "--datasets", "cora", "--results", ""],
    ["reproduce", "se-privgemb", "--results", ""],
    ["train", "lpgnn", "--dataset", "csbm", "--data-dir", ""],
    ["train", "lpgnn", "--dataset", "csbm", "--cache-dir", ""],
    ["data", "cora", "--data-dir", ""],
    ["bounds", "--dataset", "cora", "--cache-dir", " "],
], ids=lambda argv: " ".join(a or "''" for a in argv))
def test_an_empty_folder_option_is_refused_instead_of_meaning_the_default(capsys, argv):
    code, err = _code(argv, capsys)
    option = next(a for a in argv if a.startswith("--") and argv[argv.index(a) + 1].strip() == "")
    assert code == 2 and f"argument {option}: is empty" in err and "Traceback" not in err
