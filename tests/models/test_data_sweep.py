"""Dataset cases from the bad-input sweep: a feature JSON nested too deeply to parse, a dataset file that is a FIFO
or a link to a device, and ``top_classes`` given a name instead of a graph: each a clean ValueError/TypeError
naming the file or the parameter, before anything is read."""
from __future__ import annotations

import os
import shutil

import pytest

from ldp_audit.cli import main
from ldp_audit.models import data


@pytest.fixture
def chameleon(tmp_path):
    """A dataset folder with a writable copy of chameleon and no SHA256SUMS (read with --no-verify)."""
    root = tmp_path / "datasets"
    (root / "chameleon").mkdir(parents=True)
    for path in (data.data_dir() / "chameleon").iterdir():
        (root / "chameleon" / path.name).write_bytes(path.read_bytes())
    return root


# ------------------------------------------------------------------------------------------ dataset files

def test_a_feature_json_nested_too_deeply_names_the_file(chameleon, capsys):
    features = chameleon / "chameleon" / "chameleon_features.json"
    features.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(data.DatasetFileError, match=r"chameleon_features\.json .*nested too deeply"):
        data.load("chameleon", chameleon, verify=False)
    capsys.readouterr()
    assert main(["data", "chameleon", "--data-dir", str(chameleon), "--no-verify"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ldp-audit: error:") and "chameleon_features.json" in err and "Traceback" not in err


@pytest.mark.parametrize("kind", ["fifo", "devzero"])
def test_a_dataset_file_that_is_not_a_regular_file_is_named(chameleon, kind):
    edges = chameleon / "chameleon" / "chameleon_edges.csv"
    edges.unlink()
    if kind == "fifo":
        os.mkfifo(edges)
    else:
        edges.symlink_to("/dev/zero")
    words = "named pipe (FIFO)" if kind == "fifo" else "character device (the link leads to /dev/zero)"
    with pytest.raises(data.DatasetFileError) as caught:
        data.load("chameleon", chameleon, verify=False)
    assert "chameleon/chameleon_edges.csv" in str(caught.value) and words in str(caught.value)


def test_a_feature_json_over_the_cap_is_refused_before_it_is_read(chameleon, monkeypatch):
    monkeypatch.setattr(data, "_MAX_JSON_BYTES", 1000)
    with pytest.raises(data.DatasetFileError, match=r"chameleon_features\.json cannot be read: it holds .* more "
                                                    r"than the 1,000 bytes"):
        data.load("chameleon", chameleon, verify=False)


def test_the_feature_json_cap_is_far_above_the_shipped_files():
    largest = max(p.stat().st_size for p in data.data_dir().rglob("*.json"))
    assert 100 * largest < data._MAX_JSON_BYTES


def test_the_folder_missing_case_stays_as_it_is(tmp_path, capsys):
    """data-datadir-emptydir: the dataset's folder is what is missing, and the message says so; SHA256SUMS is
    reported once the folder is there."""
    assert main(["data", "chameleon", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"the folder {tmp_path / 'chameleon'} is missing" in err and "Traceback" not in err
    shutil.copytree(data.data_dir() / "chameleon", tmp_path / "chameleon")
    assert main(["data", "chameleon", "--data-dir", str(tmp_path)]) == 2
    assert "no SHA256SUMS" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------- top_classes

@pytest.mark.parametrize("graph", ["karate", None, 3])
def test_top_classes_needs_a_graph(graph):
    with pytest.raises(TypeError, match=r"graph must be a Graph .*got "):
        data.top_classes(graph, 2)
