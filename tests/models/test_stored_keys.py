"""Every run committed under benchmarks/results is found again: its folder is its config's key.

A field added to :class:`RunConfig` must not rename the stored configurations (``RunConfig.KEYED_WHEN_SET``)."""
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from ldp_audit.models.training import RunConfig

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
STORED = sorted(p for p in RESULTS.glob("*/*/*/*/seed*.json")
                if json.loads(p.read_text()).get("schema") == "ldp-audit/training-run")


def test_there_are_stored_training_runs():
    assert len(STORED) > 100


@pytest.mark.parametrize("path", STORED[::7], ids=lambda p: str(p.relative_to(RESULTS)))
def test_stored_run_folder_is_its_config_key(path):
    config = RunConfig.from_dict(json.loads(path.read_text())["config"])
    assert path.parent.name == config.key()


@dataclass(frozen=True)
class _Later(RunConfig):
    extra_levels: int = 5
    KEYED_WHEN_SET = RunConfig.KEYED_WHEN_SET + ("extra_levels",)


def test_a_later_field_enters_the_key_only_when_set():
    base = RunConfig("cora", eps_x=1.0, k_x=4)
    assert _Later("cora", eps_x=1.0, k_x=4).key() == base.key()
    assert _Later("cora", eps_x=1.0, k_x=4, extra_levels=3).key() != base.key()
