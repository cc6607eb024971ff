"""The last bad inputs of issue 43's independent sweep (command line, Python API, pytest plugin, user code), each a
test: a clean error naming the parameter, output that survives a failing stdout, and user code that cannot reach
the report's stream."""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from ldp_audit.cli import main
from ldp_audit.mechanisms import make

ROOT = Path(__file__).resolve().parents[2]


def _cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _program(argv, *, cwd=None, env=None, preexec_fn=None, stdout=subprocess.PIPE):
    """The installed program as a user runs it (``python -m ldp_audit.cli`` enters where ``ldp-audit`` does)."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(cwd or ""), str(ROOT)])),
                   **(env or {})}
    return subprocess.run([sys.executable, "-m", "ldp_audit.cli", *argv], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, env=environment, cwd=cwd, preexec_fn=preexec_fn, timeout=180)


# ----- options that named the wrong thing, or nothing -----------------------------------------------------------

USAGE_CASES = [
    # 1 - confidence rounds to 0 at 12 digits: the option is named, not an internal alpha
    (["verify", "laplace", "--eps", "1", "--samples", "2000", "--confidence", "0.9999999999999"],
     ["--confidence", "1 - 1e-12"]),
    (["compare", "--samples", "2000", "--confidence", "0.9999999999999"], ["--confidence", "1 - 1e-12"]),
    (["compare", "--samples", "2000", "--plot", "{tmp}/x.png", "--out", "{tmp}/x.png"],
     ["--plot and --out name the same file"]),
    (["compare", "--samples", "2000", "--plot", "{tmp}/x.png", "--out", "{tmp}/./x.png"],
     ["--plot and --out name the same file"]),
    (["claims", "lpgnn", "--full", "--samples", "1000"], ["--full", "SE-PrivGEmb"]),
    # the README's seed cap holds for train too; 2^63 used to be taken
    (["train", "lpgnn", "--dataset", "csbm", "--epochs", "2", "--seed", "9223372036854775808"],
     ["--seed", "[0, 2^63 - 1]"]),
    (["reproduce", "ldp-ge", "--set", "lr=fast", "--max-runs", "0", "--results", "{tmp}/r"], ["lr", "a number"]),
    (["reproduce", "ldp-ge", "--set", "rescale=maybe", "--max-runs", "0", "--results", "{tmp}/r"],
     ["rescale", "True or False"]),
    # a subnormal q used to reach the PLD's sizing first ("a must be greater than b. Got a=inf and b=inf")
    (["account", "--q", "1e-320", "--sigma", "1", "--steps", "10", "--delta", "1e-5"], ["larger --q"]),
]


@pytest.mark.parametrize("argv,words", USAGE_CASES, ids=[" ".join(a[:3]) + " " + a[-1] for a, _ in USAGE_CASES])
def test_usage_errors_name_the_option(argv, words, tmp_path, capsys):
    code, _, err = _cli([a.replace("{tmp}", str(tmp_path)) for a in argv], capsys)
    assert code == 2, err
    assert err.startswith("ldp-audit: error:") or "error:" in err
    for word in words:
        assert word in err, err
    assert "Traceback" not in err
    assert not (tmp_path / "x.png").exists()


def test_integers_are_read_exactly_above_2_to_the_53():
    from ldp_audit.commands.options import seed

    assert seed("9007199254740993") == 9007199254740993  # a float would give ...992
    assert seed("9223372036854775807") == 2 ** 63 - 1
    assert seed("1e6") == 10 ** 6 and seed("1_000") == 1000
    with pytest.raises(argparse.ArgumentTypeError, match="write its digits"):
        seed("9.007199254740993e15")
    with pytest.raises(argparse.ArgumentTypeError, match=r"\[0, 2\^63 - 1\]"):
        seed("1.5")


def test_the_default_results_folder_is_named_as_such(tmp_path, capsys, monkeypatch):
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    monkeypatch.setenv("XDG_DATA_HOME", str(afile))
    code, _, err = _cli(["train", "lpgnn", "--dataset", "csbm", "--epochs", "2"], capsys)
    assert code == 2
    assert "the default results folder (--results left out; $XDG_DATA_HOME" in err and "is not a folder" in err


@pytest.mark.parametrize("field", ["lr", "dropout", "weight_decay", "alpha", "r", "r_max", "eps", "rescale"])
def test_ldp_ge_config_fields_of_the_wrong_type_are_named(field):
    from ldp_audit.models.training.ldp_ge import LdpGeConfig

    for bad in ("fast", [1]):
        with pytest.raises(ValueError, match=rf"^{field} must be"):
            LdpGeConfig(dataset="cora", **{field: bad})


@pytest.mark.parametrize("field", ["lr", "dropout", "weight_decay", "self_loops", "eps_x", "hidden"])
def test_gnn_config_fields_of_the_wrong_type_are_named(field):
    from ldp_audit.models.training.config import RunConfig

    with pytest.raises(ValueError, match=rf"^{field} must be"):
        RunConfig(dataset="cora", **{field: "fast"})


def test_config_type_checks_take_what_a_stored_run_holds():
    """JSON gives ints where floats are declared (lr 1) and numpy gives its own scalars: both are numbers."""
    from ldp_audit.models.training.config import RunConfig

    assert RunConfig(dataset="cora", lr=1, dropout=np.float64(0.5)).lr == 1


# ----- stdout that fails, closes or fills: a clean exit, and --out saved first ---------------------------------

def _file_limit(size: int):
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


@pytest.mark.parametrize("argv", [["list"], ["verify", "laplace", "--eps", "1", "--samples", "2000", "--json"]])
def test_a_stdout_over_the_file_size_limit_is_a_clean_error(argv, tmp_path):
    with open(tmp_path / "out.txt", "w") as sink:
        done = _program(argv, stdout=sink, preexec_fn=_file_limit(1024))
    assert done.returncode == 2, done.stderr
    assert "could not write to standard output: File too large" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_a_full_stdout_is_a_clean_error_and_out_is_saved_first(tmp_path):
    report = tmp_path / "report.json"
    with open("/dev/full", "w") as full:
        done = _program(["verify", "laplace", "--eps", "1", "--samples", "2000", "--json", "--out", str(report)],
                        stdout=full)
    assert done.returncode == 2, done.stderr
    assert "could not write to standard output: No space left on device" in done.stderr
    assert "Traceback" not in done.stderr
    assert json.loads(report.read_text())["verdict"] == "pass"


def test_a_closed_stdout_is_a_clean_error():
    done = _program(["list"], stdout=None, preexec_fn=lambda: os.close(1))
    assert done.returncode == 2
    assert "standard output is closed" in done.stderr and "Traceback" not in done.stderr


# ----- user code writing to descriptor 1 ------------------------------------------------------------------------

USER_MODULE = """
import os
import numpy as np

print("print at import")
os.write(1, b"descriptor write at import\\n")

def make(eps):
    p = np.exp(eps) / (np.exp(eps) + 1)

    def sample(x, n, rng):
        os.write(1, b"C-LEVEL BANNER\\n")  # what a C extension's printf does
        return np.where(rng.random(n) < p, x, 1 - x)

    return {"sample": sample, "eps": eps, "domain": [0, 1]}
"""


def test_what_user_code_writes_to_descriptor_1_goes_to_stderr(tmp_path):
    (tmp_path / "noisy_mech.py").write_text(USER_MODULE)
    done = _program(["verify", "noisy_mech:make", "--eps", "1", "--samples", "2000", "--json"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verdict"] == "pass"  # one JSON document, nothing else
    for line in ("print at import", "descriptor write at import", "C-LEVEL BANNER"):
        assert line in done.stderr


PICKLABLE_MODULE = """
import os
import numpy as np

def sample(x, n, rng):  # eps = 1, module-level: a process pool pickles it
    os.write(1, b"C-LEVEL BANNER\\n")
    return np.where(rng.random(n) < np.e / (np.e + 1), x, 1 - x)

def make(eps):
    return {"sample": sample, "eps": eps, "domain": [0, 1]}
"""


def test_worker_processes_inherit_stderr_as_their_stdout(tmp_path):
    (tmp_path / "noisy_mech.py").write_text(PICKLABLE_MODULE)
    done = _program(["verify", "noisy_mech:make", "--eps", "1", "--samples", "2000", "--json", "--checks", "privacy",
                     "--engine", "processes", "--workers", "2"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verdict"] == "pass"
    assert "C-LEVEL BANNER" in done.stderr


# ----- user mechanisms that break the protocol: exit 2 naming what is wrong ------------------------------------

USER_MECHANISMS = """
import numpy as np

def _rr(eps):
    p = np.exp(eps) / (np.exp(eps) + 1)
    return lambda x, n, rng: np.where(rng.random(n) < p, x, 1 - x)

def dup_domain(eps):
    return {"sample": _rr(eps), "eps": eps, "domain": [0, 1, 1]}

def zero_width(eps):
    return {"sample": lambda x, n, rng: np.zeros((n, 0)), "eps": eps, "domain": [0, 1]}

def eps_nan(eps):
    return {"sample": _rr(eps), "eps": float("nan"), "domain": [0, 1]}

def mean_bool(eps):
    return {"sample": lambda x, n, rng: x + rng.laplace(0, 2 / eps, n), "eps": eps, "domain": (-1.0, 1.0),
            "report_mean": lambda x: True}

def nan_reports(eps):
    return {"sample": lambda x, n, rng: np.full(n, np.nan), "eps": eps, "domain": [0, 1]}

def varying_width(eps):
    return {"sample": lambda x, n, rng: np.zeros((n, 2 + int(x))), "eps": eps, "domain": [0, 1]}
"""

PROTOCOL_CASES = [
    ("dup_domain", "domain lists 1 more than once"),
    ("zero_width", "sample(x, n, rng) returned reports of 0 numbers"),
    ("eps_nan", "eps is nan, not a finite number"),
    ("mean_bool", "report_mean(-1.0) returned True"),
    ("nan_reports", "sample(x, n, rng) returned 4000 NaN or infinite report entries"),
    ("varying_width", "sample(x, n, rng) returned reports of different widths"),
]


@pytest.mark.parametrize("factory,message", PROTOCOL_CASES, ids=[c[0] for c in PROTOCOL_CASES])
def test_protocol_errors_of_user_code_exit_2_naming_the_method(factory, message, tmp_path, capsys, monkeypatch):
    (tmp_path / "sweep_mechs.py").write_text(USER_MECHANISMS)
    monkeypatch.syspath_prepend(str(tmp_path))
    code, _, err = _cli(["verify", f"sweep_mechs:{factory}", "--eps", "1", "--samples", "2000"], capsys)
    assert code == 2, err
    assert message in err, err
    assert "Traceback" not in err


def test_a_long_domain_list_is_checked_for_repeats_without_a_quadratic_loop():
    from ldp_audit.external.domains import parse_domain

    assert len(parse_domain(list(range(200_000))).values) == 200_000
    with pytest.raises(ValueError, match="lists 7 more than once"):
        parse_domain(list(range(100)) + [7])


# ----- the Python API checks what the CLI checks -----------------------------------------------------------------

def test_audit_settings_refuse_a_false_alarm_rate_below_1e_12():
    from ldp_audit.audits.verify.orchestrator import AuditSettings

    assert AuditSettings(alpha=1e-12).alpha == 1e-12
    with pytest.raises(ValueError, match=r"alpha \(1 - confidence\) must be in \[1e-12, 1\)"):
        AuditSettings(alpha=1e-300)


@pytest.mark.parametrize("kwargs,error,word", [
    ({"checks": 5}, TypeError, "checks"),
    ({"checks": ["privacy", None]}, TypeError, "checks"),
    ({"progress": "bar"}, TypeError, "progress"),
    ({"planned": 3}, TypeError, "planned"),
])
def test_verify_names_a_bad_argument(kwargs, error, word):
    from ldp_audit.audits.verify.orchestrator import AuditSettings, verify

    with pytest.raises(error, match=word):
        verify(make("laplace", eps=1), AuditSettings(samples=2000), **kwargs)


def test_testing_audit_names_a_progress_that_is_not_a_function():
    from ldp_audit import testing

    with pytest.raises(TypeError, match="progress must be a function"):
        testing.audit(make("laplace", eps=1), samples=2000, progress=5)


def test_assert_ldp_refuses_workers_on_the_local_engine_in_python_words():
    from ldp_audit import testing

    with pytest.raises(ValueError, match=r"workers=2 needs engine='processes' or 'dask': engine='local'"):
        testing.assert_ldp(make("laplace", eps=1), eps=1, samples=2000, workers=2, engine="local")


def test_engine_rules_speak_the_callers_language():
    from ldp_audit.audits.kernel.engines import check_engine_options

    with pytest.raises(ValueError, match=r"^--scheduler needs --engine dask \(got --engine processes\)"):
        check_engine_options("processes", 1, "tcp://h:1")
    with pytest.raises(ValueError, match=r"^scheduler needs engine='dask' \(got engine='processes'\)"):
        check_engine_options("processes", 1, "tcp://h:1", flags=False)


# ----- the pytest plugin -------------------------------------------------------------------------------------------

def _plugin_session(tmp_path, *options):
    (tmp_path / "test_tiny.py").write_text(textwrap.dedent("""
        from ldp_audit.mechanisms import make

        def test_laplace(ldp_auditor):
            ldp_auditor.assert_ldp(make("laplace", eps=1.0), eps=1.0)
    """))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options, str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=180,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("options,message", [
    (["--ldp-audit-workers", "4"], "--ldp-audit-workers 4 needs --ldp-audit-engine processes or dask"),
    (["--ldp-audit-max-assertions", "1e12"], "at confidence 0.999 the most is 1,000,000,000"),
])
def test_plugin_options_that_cannot_hold_together_are_usage_errors(options, message, tmp_path):
    done = _plugin_session(tmp_path, *options, "--ldp-audit-samples", "2000")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


def test_plugin_alpha_floor_is_the_librarys():
    from ldp_audit.mechanisms.validation import MAX_CONFIDENCE
    from ldp_audit.testing import plugin

    assert plugin.MIN_ALPHA == pytest.approx(1 - MAX_CONFIDENCE, rel=1e-3)


def test_the_plugin_named_with_p_as_well_as_installed_loads_once(tmp_path):
    """`-p ldp_audit.testing.plugin` (needed under PYTEST_DISABLE_PLUGIN_AUTOLOAD) used to crash an environment
    where the entry point had loaded it already: "Plugin already registered under a different name"."""
    for env in ({}, {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}):
        os.environ.update(env)
        try:
            done = _plugin_session(tmp_path, "-p", "ldp_audit.testing.plugin", "--ldp-audit-samples", "2000")
        finally:
            for name in env:
                del os.environ[name]
        assert done.returncode == 0, done.stdout + done.stderr
        assert "1 passed" in done.stdout


def test_a_fixture_alpha_of_the_wrong_type_is_named(tmp_path):
    (tmp_path / "test_alpha.py").write_text(textwrap.dedent("""
        import pytest
        from ldp_audit.mechanisms import make

        def test_alpha_text(ldp_auditor):
            with pytest.raises(ValueError, match=r"alpha \\(1 - confidence\\) must be a real number in \\(0, 1\\), got '0.001'"):
                ldp_auditor.assert_ldp(make("laplace", eps=1.0), eps=1.0, alpha="0.001")
    """))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=180,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stdout + done.stderr
