"""What a core-only install (``pip install ldp-audit``, no extras) can do; CI also runs this file in a second,
core-only virtual environment. There, the commands that need an extra exit 2 and name it; with the extras
installed they run."""
from __future__ import annotations

import importlib.util
import json

import pytest

from ldp_audit.cli import main

HAVE_GRAPH = importlib.util.find_spec("opacus") is not None and importlib.util.find_spec("torch") is not None
HAVE_PLOT = importlib.util.find_spec("matplotlib") is not None


def test_verify_list_and_compare_need_no_extra(capsys):
    assert main(["verify", "laplace", "--eps", "1", "--samples", "20000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "pass"
    assert main(["list", "--json"]) == 0
    assert any(m["name"] == "hds" for m in json.loads(capsys.readouterr().out))
    assert main(["compare", "--samples", "5000", "--mechanisms", "hds", "--json"]) == 0


def test_a_command_that_needs_the_graph_extra_names_it(capsys):
    code = main(["account", "--q", "0.1", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--json"])
    err = capsys.readouterr().err
    if HAVE_GRAPH:
        assert code == 0
    else:
        assert code == 2 and "pip install 'ldp-audit[graph]'" in err and "Traceback" not in err


def test_a_plot_without_matplotlib_is_refused_before_the_run(capsys, tmp_path):
    target = tmp_path / "v.png"
    code = main(["compare", "--samples", "5000", "--mechanisms", "hds", "--plot", str(target)])
    err = capsys.readouterr().err
    if HAVE_PLOT:
        assert code == 0 and target.stat().st_size > 1000
    else:
        assert code == 2 and "pip install 'ldp-audit[plot]'" in err and not target.exists()


@pytest.mark.skipif(HAVE_GRAPH, reason="only meaningful where torch is absent")
def test_no_torch_is_imported_by_the_core_commands():
    import sys

    main(["verify", "hds", "--eps", "1", "--samples", "20000", "--json"])
    assert "torch" not in sys.modules


def test_training_commands_describe_themselves_and_name_the_graph_extra(capsys):
    assert main(["train", "--help"]) == 0 and main(["reproduce", "--help"]) == 0
    capsys.readouterr()
    if not HAVE_GRAPH:
        assert main(["train", "lpgnn", "--dataset", "karate", "--eps-x", "inf"]) == 2
        assert "pip install 'ldp-audit[graph]'" in capsys.readouterr().err
