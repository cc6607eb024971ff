"""Shared helpers for the tests (kept minimal: a registry-driven case list, a seed rule, a benchmark-script
loader).

Tests import these names with ``from conftest import ...`` (pytest puts ``tests/`` on sys.path).
"""
from __future__ import annotations

import importlib.util
import shutil
import signal
import zlib
from pathlib import Path

import numpy as np
import pytest

from ldp_audit.mechanisms import available
from ldp_audit.mechanisms.frequency import ORACLES


def pytest_configure(config):
    """The suite tests Ctrl-C (SIGINT) in this process and in the processes it starts. A non-interactive shell
    starts a background job with SIGINT ignored, and ignored signals stay ignored across exec, so there every
    Ctrl-C test would fail for the way the suite was launched, not for the code. Restore Python's own handler
    (children then start with the default disposition, as under a terminal)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


#: Extra parameter sets per registered mechanism. A mechanism that is not listed here is still tested, with its
#: registry defaults ({}), the moment it is registered.
EXTRA_PARAMS: dict[str, list[dict]] = {
    "grr": [{"c": 2}, {"c": 7}],
    "esw": [{"f": 5}],
    "gaussian": [{}, {"calibration": "classical", "delta": 1e-4}],
    "gaussian_hd": [{}, {"calibration": "classical", "d": 4}],
    "hds": [{"d": 8, "k": 2}, {"d": 10, "k": 3}],
    "piecewise_hd": [{"d": 8, "k": 2}],
    "multibit": [{"d": 8, "k": 3}, {"d": 6, "k": 2, "alpha": -2.0, "beta": 3.0}],
    "mlr": [{"d": 8, "k": 3}],
    "ppm_star": [{"d": 8, "k": 2}],
    "analytic_gaussian": [{"d": 4, "alpha": -2.0, "beta": 3.0}],
}

#: Mechanisms whose paper does NOT claim an unbiased estimate (everything else must be unbiased).
BIASED = {"hds", "square_wave", "square_wave_unit", "grr", "esw"}

#: Budgets from the issue's stability range.
EPS_GRID = [1e-8, 0.01, 0.5, 1.0, 4.0, 50.0, 700.0]


def benchmark_script(name: str):
    """``benchmarks/<name>.py`` loaded as a module (the benchmark scripts are not a package)."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: Mechanisms without a one-coordinate ``law(x)``: the frequency oracles (a whole vector or tuple with an enumerated
#: law, ``law_classes``; tests/mechanisms/test_frequency_oracles.py covers them) and the shuffled histogram (a
#: declared ``report_loglik`` only; tests/mechanisms/test_shuffle.py covers it).
ORACLE_NAMES = {cls.name for cls in ORACLES} | {"shuffle_grr"}


def mechanism_cases():
    """(name, params) for every registered mechanism with a one-coordinate law and each of its parameter sets."""
    return [(info.name, dict(params)) for info in available() if info.name not in ORACLE_NAMES
            for params in EXTRA_PARAMS.get(info.name, [{}])]


def eps_allowed(name, params, eps) -> bool:
    """Budgets a parameter set is defined for: the classical Gaussian bound needs eps per coordinate < 1."""
    if params.get("calibration") == "classical":
        return eps / params.get("d", 1) < 1.0
    return True


def case_id(name, params, eps=None):
    extra = ",".join(f"{k}={v}" for k, v in params.items())
    return f"{name}[{extra}]" + ("" if eps is None else f"@{eps:g}")


def seed_for(*parts) -> int:
    """A seed that depends only on the test's parameters (never on order or process)."""
    return zlib.crc32(repr(parts).encode())


def rng_for(*parts) -> np.random.Generator:
    return np.random.default_rng(seed_for(*parts))


@pytest.fixture(scope="module")
def dask_client():
    """A Dask client of a LocalCluster of 2 single-threaded in-process workers (skipped without the dask extra); one
    per module, so that no cluster thread outlives the module (pytester's in-process sessions reset sys)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture
def planetoid(tmp_path):
    """A copy of ../shared/datasets' Planetoid files and SHA256SUMS in a temporary data folder (torch-geometric
    writes beside what it reads); skipped where the datasets are absent."""
    source = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "planetoid"
    if not source.is_dir():
        pytest.skip("the Planetoid files are not in ../shared/datasets")
    shutil.copytree(source, tmp_path / "data" / "planetoid")
    shutil.copy(source.parent / "SHA256SUMS", tmp_path / "data" / "SHA256SUMS")  # every file read is checked
    return tmp_path / "data"
