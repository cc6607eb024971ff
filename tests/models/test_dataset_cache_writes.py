"""The Planetoid cache (issue 43.4): built aside and renamed into place, so a failed or killed build leaves nothing
half-written; a cache damaged by an earlier version is a clear error naming its folder; the temporary folder of
a killed build is removed by the next build, never that of a build still running."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from ldp_audit import files
from ldp_audit.cli import main
from ldp_audit.models import data
from ldp_audit.models.checksums import DatasetFileError, content_key

pytestmark = pytest.mark.graph


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A cache folder holding Cora, built once; tests work on copies."""
    cache = tmp_path_factory.mktemp("built")
    data.load("cora", cache=cache)
    return cache


def _keyed(cache):
    return cache / "planetoid" / content_key(data.planetoid_files("cora", data.data_dir()))


@pytest.fixture
def cache(built, tmp_path):
    copy = tmp_path / "cache"
    shutil.copytree(built, copy)
    return copy


def test_a_built_cache_holds_the_dataset_and_no_temporary(cache):
    assert data.load("cora", cache=cache).num_nodes == 2708
    assert [p.name for p in (cache / "planetoid").iterdir()] == [_keyed(cache).name]
    assert sorted(p.name for p in (_keyed(cache) / "Cora").iterdir()) == ["processed", "raw"]


def test_a_truncated_processed_file_names_the_cache_folder(cache, capsys):
    processed = _keyed(cache) / "Cora" / "processed" / "data.pt"
    processed.write_bytes(processed.read_bytes()[:1000])  # as the earlier version left it under ulimit -f
    damaged = "^" + re.escape(f"dataset cora: the cache folder '{_keyed(cache)}' is damaged") + ".*delete that folder"
    with pytest.raises(DatasetFileError, match=damaged):
        data.load("cora", cache=cache)
    assert main(["data", "cora", "--cache-dir", str(cache)]) == 2
    err = capsys.readouterr().err
    assert f"ldp-audit: error: dataset cora: the cache folder '{_keyed(cache)}' is damaged" in err
    assert "Traceback" not in err


def test_an_unfinished_build_of_an_earlier_version_names_the_cache_folder(cache):
    shutil.rmtree(_keyed(cache) / "Cora" / "processed")  # raw copies only: killed while processing
    unfinished = "^" + re.escape(f"the cache folder '{_keyed(cache)}' holds an unfinished build")
    with pytest.raises(DatasetFileError, match=unfinished):
        data.load("cora", cache=cache)
    assert not [p for p in (cache / "planetoid").iterdir() if p.name.endswith(".tmp")]


def _build_folder(cache, pid: int):
    folder = cache / "planetoid" / f".{_keyed(cache).name}.ldp-audit-{files._HOST}-{pid}.abcd1234.tmp"
    (folder / "Cora" / "raw").mkdir(parents=True)
    return folder


def test_the_folder_of_a_killed_build_is_removed_by_the_next_build(cache):
    done = subprocess.Popen(["true"])
    done.wait()  # its pid is free now: the build "ran" in a process that is gone
    killed, running = _build_folder(cache, done.pid), _build_folder(cache, os.getpid())
    shutil.rmtree(_keyed(cache))  # the next load builds
    assert data.load("cora", cache=cache).num_nodes == 2708
    assert not killed.exists() and running.exists()
