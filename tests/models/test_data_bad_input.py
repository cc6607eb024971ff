"""Bad input to ``ldp_audit.models.data`` (issue 43, items 3 and 8): every public function names the parameter
and what is allowed, and a dataset folder whose files cannot be checked (no SHA256SUMS, or no line for a file
that is read) is refused with the remedy, unless the caller says ``verify=False`` (``data.Unverified``)."""
from __future__ import annotations

import shutil

import pytest

from ldp_audit.models import data

NAN = float("nan")


@pytest.fixture(scope="module")
def shared():
    return data.data_dir()


@pytest.fixture(scope="module")
def karate():
    return data.load("karate")


CASES = [
    ("node_split(3.5)", lambda g: data.node_split(3.5, seed=0), ValueError,
     r"num_nodes must be an integer .* got 3.5"),
    ("node_split(-1)", lambda g: data.node_split(-1, seed=0), ValueError, r"num_nodes must be an integer \[0, "),
    ("node_split(seed='x')", lambda g: data.node_split(10, seed="x"), ValueError,
     r"seed must be an integer \[0, 9223372036854775807\], got 'x'"),
    ("node_split(seed=-1)", lambda g: data.node_split(10, seed=-1), ValueError, r"seed must be an integer \[0, "),
    ("node_split(10**12)", lambda g: data.node_split(10 ** 12, seed=0), ValueError,
     r"num_nodes 1,000,000,000,000 is too large: .* GiB .* the largest allowed num_nodes here is"),
    ("node_split(fractions nan)", lambda g: data.node_split(10, 0, fractions=(0.5, NAN, 0.5)), ValueError,
     r"fractions must be three non-negative numbers summing to 1"),
    ("node_split(fractions 'abc')", lambda g: data.node_split(10, 0, fractions="abc"), ValueError,
     r"fractions must be three non-negative numbers summing to 1, got 'abc'"),
    ("edge_split(graph='g')", lambda g: data.edge_split("g", 0), ValueError, r"graph must be a Graph .* got str"),
    ("edge_split(seed=1.5)", lambda g: data.edge_split(g, 1.5), ValueError, r"seed must be an integer .* got 1.5"),
    ("top_classes(count=0)", lambda g: data.top_classes(g, 0), ValueError, r"count must be an integer >= 1, got 0"),
    ("load(3)", lambda g: data.load(3), ValueError, r"name must be a dataset name \(one of cora, .*\), got 3"),
    ("load(cora, data_dir=...)", lambda g: data.load("cora", data_dir="/tmp"), TypeError,
     r"unexpected keyword argument\(s\) 'data_dir': dataset 'cora' takes data, cache, with_features and verify"),
    ("load(cora, bogus=1)", lambda g: data.load("cora", bogus=1), TypeError, r"'bogus'"),
    ("load(karate, n=10)", lambda g: data.load("karate", n=10), TypeError, r"'n'.* for 'csbm' only"),
    ("load(lastfm, verify='no')", lambda g: data.load("lastfm_asia", verify="no"), ValueError,
     r"verify must be True or False, got 'no'"),
    ("load(lastfm, with_features=1)", lambda g: data.load("lastfm_asia", with_features=1), ValueError,
     r"with_features must be True or False, got 1"),
    ("data_dir(123)", lambda g: data.data_dir(123), ValueError,
     r"data must be the path of the dataset folder, got int"),
    ("load(cora, cache=1.5)", lambda g: data.load("cora", cache=1.5), ValueError,
     r"cache must be the path of a writable folder, got float"),
]


@pytest.mark.parametrize("call,error,pattern", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_argument_names_the_parameter(call, error, pattern, karate):
    with pytest.raises(error, match=pattern):
        call(karate)


def _folder(shared, tmp_path, *, sums: str | None) -> tuple:
    """A copy of lastfm_asia in a folder of its own; ``sums``: "all" (the shared SHA256SUMS), "other" (a
    SHA256SUMS without lastfm_asia's lines) or None (none)."""
    root = tmp_path / "datasets"
    shutil.copytree(shared / "lastfm_asia", root / "lastfm_asia")
    lines = (shared / "SHA256SUMS").read_text().splitlines()
    if sums is not None:
        keep = [line for line in lines if sums == "all" or "lastfm_asia/" not in line]
        (root / "SHA256SUMS").write_text("\n".join(keep) + "\n")
    return root


def test_a_folder_without_sha256sums_is_refused_with_the_remedy(shared, tmp_path):
    root = _folder(shared, tmp_path, sums=None)
    with pytest.raises(data.DatasetFileError) as info:
        data.load("lastfm_asia", root)
    message = str(info.value)
    assert f"the dataset folder {root} has no SHA256SUMS" in message
    assert "sha256sum" in message and "--no-verify" in message and "verify=False" in message


def test_a_file_without_its_line_in_sha256sums_is_refused_by_name(shared, tmp_path):
    root = _folder(shared, tmp_path, sums="other")
    with pytest.raises(data.DatasetFileError, match=r"the file lastfm_asia/edges\.csv has no line in .*SHA256SUMS.*"
                                                   r"sha256sum lastfm_asia/edges\.csv >> SHA256SUMS.*--no-verify"):
        data.load("lastfm_asia", root)


def test_the_link_split_and_the_listed_edges_are_checked_too(shared, tmp_path):
    root = tmp_path / "datasets"
    shutil.copytree(shared / "se_privgemb" / "Power", root / "se_privgemb" / "Power")
    with pytest.raises(data.DatasetFileError, match="has no SHA256SUMS"):
        data.load_link_split("power", 0.9, root)
    with pytest.raises(data.DatasetFileError, match="has no SHA256SUMS"):
        data.listed_edges("power", root)
    assert data.listed_edges("power", data.Unverified(root)).shape[0] == 2


def test_reading_unverified_is_a_stated_choice_that_reads_the_same_graph(shared, tmp_path):
    root = _folder(shared, tmp_path, sums=None)
    checked = data.load("lastfm_asia", shared)
    for unchecked in (data.load("lastfm_asia", root, verify=False), data.load("lastfm_asia", data.Unverified(root))):
        assert (unchecked.num_nodes, unchecked.num_edges) == (checked.num_nodes, checked.num_edges)
    assert data.load("lastfm_asia", _folder(shared, tmp_path / "full", sums="all")).num_nodes == checked.num_nodes
    assert str(data.Unverified(root)).endswith("(unverified)")
