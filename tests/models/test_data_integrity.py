"""Damaged, missing and malformed dataset files are clear errors that name the file and the folder; a warm
cache never hides a changed raw file; nothing is downloaded. Each case runs on a copy in a tmp folder."""
from __future__ import annotations

import shutil

import pytest

from ldp_audit.models import checksums, data

pytestmark = pytest.mark.graph


@pytest.fixture(scope="module")
def shared():
    return data.data_dir()


def _copy(shared, tmp_path, *folders):
    """A dataset folder holding copies of ``folders`` and the matching lines of SHA256SUMS."""
    root = tmp_path / "datasets"
    for folder in folders:
        shutil.copytree(shared / folder, root / folder)
    lines = [line for line in (shared / "SHA256SUMS").read_text().splitlines()
             if any(line.split()[1].startswith(f + "/") for f in folders)]
    (root / "SHA256SUMS").write_text("\n".join(lines) + "\n")
    return root


def _truncate(path, keep=0.5):
    path.write_bytes(path.read_bytes()[: int(path.stat().st_size * keep)])


def test_every_shared_file_matches_its_checksum(shared):
    sums = checksums.recorded_sums(shared)
    assert len(sums) >= 50
    checksums.check_files(shared, [shared / name for name in sums], "all")


def test_a_truncated_planetoid_file_names_the_file_and_folder(shared, tmp_path):
    root = _copy(shared, tmp_path, "planetoid/Cora")
    _truncate(root / "planetoid/Cora/raw/ind.cora.allx")
    with pytest.raises(data.DatasetFileError, match=r"ind\.cora\.allx.*damaged") as info:
        data.load("cora", root, tmp_path / "cache")
    assert str(root) in str(info.value)


def test_without_sha256sums_a_truncated_planetoid_file_is_still_named(shared, tmp_path):
    root = _copy(shared, tmp_path, "planetoid/Cora")
    (root / "SHA256SUMS").unlink()
    _truncate(root / "planetoid/Cora/raw/ind.cora.graph")
    with pytest.raises(data.DatasetFileError, match=r"ind\.cora\.graph could not be read"):
        data.load("cora", root, tmp_path / "cache", verify=False)


def test_a_missing_planetoid_file_is_named_and_never_downloaded(shared, tmp_path, monkeypatch):
    root = _copy(shared, tmp_path, "planetoid/Cora")
    (root / "planetoid/Cora/raw/ind.cora.ty").unlink()
    import urllib.request

    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: pytest.fail("a download was attempted"))
    with pytest.raises(data.DatasetFileError, match=r"ind\.cora\.ty is missing.*nothing is downloaded"):
        data.load("cora", root, tmp_path / "cache")


def test_a_warm_cache_does_not_hide_a_changed_raw_file(shared, tmp_path):
    """The processed cache is keyed by the raw files' hashes: damage after a load is seen by the next load."""
    root = _copy(shared, tmp_path, "planetoid/Cora")
    (root / "SHA256SUMS").unlink()  # only the cache key can notice now
    cache = tmp_path / "cache"
    assert data.load("cora", root, cache, verify=False).num_nodes == 2708
    _truncate(root / "planetoid/Cora/raw/ind.cora.x")
    with pytest.raises(data.DatasetFileError, match=r"ind\.cora\.x could not be read"):
        data.load("cora", root, cache, verify=False)


def test_a_damaged_csv_is_caught_by_its_checksum(shared, tmp_path):
    root = _copy(shared, tmp_path, "lastfm_asia")
    path = root / "lastfm_asia/edges.csv"
    path.write_text(path.read_text().replace("\n0,", "\n1,", 1))  # same size, one id changed
    with pytest.raises(data.DatasetFileError, match=r"lastfm_asia/edges\.csv.*damaged"):
        data.load("lastfm_asia", root)


@pytest.mark.parametrize("edit, pattern", [
    (lambda text: text.replace("\n", "\n3,abc\n", 2).replace("\n3,abc\n", "\n", 1), r"target\.csv, line 3: '3,abc'"),
    (lambda text: text + "9999,1\n", r"target\.csv, data row 7625 \(line 7626\): node id 9999 is out of range"),
    (lambda text: text.replace("\n0,", "\n-5,", 1), r"node id -5 is out of range"),
    (lambda text: text.replace("\n1,", "\n0,", 1), r"node 0 appears 2 times"),
    (lambda text: "id,target\n", r"has no data rows"),
])
def test_a_malformed_target_csv_names_the_file_and_line(shared, tmp_path, edit, pattern):
    root = _copy(shared, tmp_path, "lastfm_asia")
    (root / "SHA256SUMS").unlink()  # a user's own folder: no checksums, so the parser must catch it
    path = root / "lastfm_asia/target.csv"
    path.write_text(edit(path.read_text()))
    with pytest.raises(data.DatasetFileError, match=pattern):
        data.load("lastfm_asia", root, verify=False)


def test_an_edge_to_a_node_without_a_target_is_refused(shared, tmp_path):
    root = _copy(shared, tmp_path, "lastfm_asia")
    (root / "SHA256SUMS").unlink()
    with open(root / "lastfm_asia/edges.csv", "a") as handle:
        handle.write("0,99999\n")
    with pytest.raises(data.DatasetFileError, match=r"edges\.csv, data row \d+ .*node id 99999 is out of range"):
        data.load("lastfm_asia", root, verify=False)


def test_a_bad_edge_list_line_and_a_missing_link_split_are_named(shared, tmp_path):
    root = _copy(shared, tmp_path, "se_privgemb/Power")
    (root / "SHA256SUMS").unlink()
    path = root / "se_privgemb/Power/train_1"
    path.write_text(path.read_text() + "12 x\n")
    with pytest.raises(data.DatasetFileError, match=r"train_1, line \d+: '12 x'"):
        data.load("power", root, verify=False)
    (root / "se_privgemb/Power/lp_split_train0.9_test0.1.npz").unlink()
    with pytest.raises(data.DatasetFileError, match=r"lp_split_train0\.9_test0\.1\.npz is missing"):
        data.load_link_split("power", 0.9, root, verify=False)


def test_a_feature_file_that_is_not_json_is_named(shared, tmp_path):
    root = _copy(shared, tmp_path, "chameleon")
    (root / "SHA256SUMS").unlink()
    _truncate(root / "chameleon/chameleon_features.json")
    with pytest.raises(data.DatasetFileError, match=r"chameleon_features\.json is not a JSON object"):
        data.load("chameleon", root, verify=False)


def test_files_are_hashed_once_per_process(shared, monkeypatch):
    calls = []
    real = checksums.hashlib.sha256
    monkeypatch.setattr(checksums, "_DIGESTS", {})
    monkeypatch.setattr(checksums.hashlib, "sha256", lambda *a: calls.append(1) or real(*a))
    path = shared / "lastfm_asia/target.csv"
    first = checksums.sha256(path)
    assert checksums.sha256(path) == first and len(calls) == 1


def test_an_unwritable_cache_folder_is_a_clear_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="--cache-dir .* is not a folder; .* writable folder"):
        data.cache_dir(blocker / "sub")
    monkeypatch.setenv(data.ENV_CACHE, str(blocker))
    with pytest.raises(ValueError, match=r"\$LDP_AUDIT_CACHE .* not a folder; .* writable folder"):
        data.cache_dir()
