"""Dataset cases from the bad-input sweep: a feature JSON nested too deeply to parse, a dataset file that is a FIFO
or a link to a device, a csbm too large for memory or with a parameter of the wrong type or range, and
``top_classes`` given a name instead of a graph: each a clean ValueError/TypeError naming the file or the
parameter, before anything is read or allocated."""
from __future__ import annotations

import os
import shutil
import tracemalloc

import pytest

from ldp_audit.cli import main
from ldp_audit.mechanisms.validation import available_memory
from ldp_audit.models import data, synthetic


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


# -------------------------------------------------------------------------------------------------- csbm

@pytest.mark.parametrize("keywords, error, words", [
    ({"n": 10 ** 10}, ValueError, ["n 10,000,000,000 is too large", "GiB", "the largest allowed n here is"]),
    ({"n": 10 ** 13}, ValueError, ["n must be an integer [2, 1000000000000]"]),
    ({"avg_degree": 1e12}, ValueError, ["avg_degree must lie in (0, n - 1] = (0, 999]"]),
    ({"n": 10 ** 6, "avg_degree": 5e5}, ValueError, ["avg_degree is too large", "largest allowed avg_degree"]),
    ({"avg_degree": float("inf")}, ValueError, ["avg_degree must be a finite number"]),
    ({"avg_degree": "4"}, TypeError, ["avg_degree must be a real number, got str '4'"]),
    ({"homophily": "0.5"}, TypeError, ["homophily must be a real number, got str '0.5'"]),
    ({"signal": "0.1"}, TypeError, ["signal must be a real number, got str '0.1'"]),
    ({"base_rate": None}, TypeError, ["base_rate must be a real number"]),
    ({"homophily": True}, TypeError, ["homophily must be a real number, got bool"]),
    ({"seed": -1}, ValueError, ["seed must be an integer [0, ", "got -1"]),
    ({"seed": "abc"}, ValueError, ["seed must be an integer", "got 'abc'"]),
    ({"classes": 10 ** 9}, ValueError, ["classes must be an integer [1, 1000]"]),
    ({"d": 10 ** 9}, ValueError, ["d must be an integer [1, 10000000]"]),
], ids=["n-memory", "n-cap", "degree-range", "degree-memory", "degree-inf", "degree-str", "homophily-str",
        "signal-str", "base-rate-none", "homophily-bool", "seed-negative", "seed-str", "classes", "d"])
def test_a_bad_csbm_parameter_is_named_before_anything_is_allocated(keywords, error, words):
    with pytest.raises(error) as caught:
        data.load("csbm", **keywords)
    assert type(caught.value) is error and all(word in str(caught.value) for word in words), str(caught.value)


def test_the_csbm_memory_estimate_bounds_the_measured_peak():
    n, d, degree = 20_000, 20, 30.0
    tracemalloc.start()
    try:
        synthetic.csbm(n=n, d=d, avg_degree=degree)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    estimate = n * (synthetic._BYTES_PER_NODE + synthetic._BYTES_PER_FEATURE * d + synthetic._BYTES_PER_DRAW * degree / 2)
    assert peak <= estimate < 3 * peak


def test_the_largest_n_the_message_allows_passes_the_check():
    message = ""
    try:
        synthetic._check_memory(10 ** 10, 200, 4.0)
    except ValueError as exc:
        message = str(exc)
    largest = int(message.rsplit(" ", 1)[1].replace(",", ""))
    synthetic._check_memory(largest, 200, 4.0)
    assert largest < 0.75 * available_memory() / 200


def test_valid_csbm_values_still_load():
    import numpy as np

    graph = data.load("csbm", n=300.0, avg_degree=np.float64(5), homophily=1, signal=np.float32(0.2), seed=np.int64(3))
    assert graph.num_nodes == 300 and graph.num_edges > 600
    assert (data.load("csbm", n=50, seed=1).edges == synthetic.csbm(n=50, seed=1).edges).all()


# ----------------------------------------------------------------------------------------------- top_classes

@pytest.mark.parametrize("graph", ["karate", None, 3])
def test_top_classes_needs_a_graph(graph):
    with pytest.raises(TypeError, match=r"graph must be a Graph .*got "):
        data.top_classes(graph, 2)
