"""The CLI side of issue 43's item 3 and SHA256SUMS rule: the caps the Python API shares (``--runs``, ``--d``,
the report-memory estimate) and a dataset folder that cannot be checked are exit 2 naming the option, never a
traceback; ``--no-verify`` is the stated way to read such a folder."""
from __future__ import annotations

import shutil

import pytest

from ldp_audit.cli import main
from ldp_audit.mechanisms import validation
from ldp_audit.models import data


def _run(argv, capsys):
    code = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    return code, " ".join(err.split())


@pytest.mark.parametrize("argv,words", [
    (["reproduce", "lpgnn", "--runs", "1000000000000000"], ["--runs", "[1, 100000]"]),
    (["reproduce", "lpgnn", "--runs", "1e15"], ["--runs", "[1, 100000]", "'1e15'"]),
    (["reproduce", "ppgnn", "--runs", "100001"], ["--runs", "[1, 100000]"]),
    (["verify", "hds", "--eps", "1", "--d", "10000001"], ["--d", "[1, 1e+07]"]),
    (["verify", "laplace", "--eps", "1", "--samples", "1e12"], ["--samples is too large", "GiB"]),
    (["verify", "hds", "--eps", "1", "--d", "1000000", "--checks", "privacy"],
     ["--d is too large", "--checks privacy"]),
], ids=["runs 10**15", "runs 1e15", "runs 100001", "d 1e7+1", "samples 1e12 memory", "d 1e6 privacy memory"])
def test_a_cap_shared_with_the_api_is_exit_2_naming_the_option(argv, words, capsys, monkeypatch):
    monkeypatch.setattr(validation, "available_memory", lambda: 16 * 2 ** 30)
    code, err = _run(argv, capsys)
    assert code == 2 and all(word in err for word in words), err


@pytest.fixture
def unchecked_folder(tmp_path):
    """lastfm_asia copied into a folder without SHA256SUMS."""
    root = tmp_path / "datasets"
    shutil.copytree(data.data_dir() / "lastfm_asia", root / "lastfm_asia")
    return root


def test_a_folder_without_sha256sums_is_exit_2_with_the_remedy(unchecked_folder, capsys):
    code, err = _run(["data", "lastfm_asia", "--data-dir", str(unchecked_folder)], capsys)
    assert code == 2 and "has no SHA256SUMS" in err and "--no-verify" in err and str(unchecked_folder) in err, err


def test_no_verify_reads_it_as_the_user_said(unchecked_folder, capsys):
    code = main(["data", "lastfm_asia", "--data-dir", str(unchecked_folder), "--no-verify", "--json"])
    out = capsys.readouterr().out
    assert code == 0 and "(unverified)" in out, out[-400:]
