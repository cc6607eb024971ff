"""``data.listed_edges``: a dataset's edge file read as listed (file order, repeats and both directions kept), for
SE-PrivGEmb's edge lists and the MUSAE CSVs; a dataset without an edge file is refused by name."""
from __future__ import annotations

import numpy as np
import pytest

from ldp_audit.models import data


def test_an_se_privgemb_edge_list_is_read_in_file_order(tmp_path):
    folder = tmp_path / "se_privgemb" / "Power"
    folder.mkdir(parents=True)
    (folder / "train_1").write_text("5 3\n2 7\n3 5\n0 1\n2 7\n")
    assert data.edge_file("power", tmp_path) == folder / "train_1"
    assert data.listed_edges("power", tmp_path, verify=False).tolist() == [[5, 2, 3, 0, 2], [3, 7, 5, 1, 7]]


def test_a_musae_edge_csv_is_read_in_file_order(tmp_path):
    folder = tmp_path / "facebook"
    folder.mkdir()
    (folder / "edges.csv").write_text("id_1,id_2\n4,0\n1,2\n0,4\n")
    pairs = data.listed_edges("facebook", tmp_path, verify=False)
    assert pairs.dtype == np.int64 and pairs.tolist() == [[4, 1, 0], [0, 2, 4]]


def test_a_dataset_without_an_edge_file_is_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="got 'cora'"):
        data.listed_edges("cora", tmp_path)
