"""User code isolated from the report (issue 43, item 6): every bad input of a user's mechanism ends cleanly.

One user module (written once into a temporary folder) holds consistent mechanisms, and ``make(eps, base, method,
fault)`` breaks one declared method in one way: it raises, calls sys.exit, prints, or returns what the protocol does
not allow (NaN, inf, a string, None, a negative variance or density, the wrong length). Each case asserts the clean
outcome: ``ldp-audit verify`` exits 2 with ``ldp-audit: error:`` naming the method and no traceback; a method that
only prints leaves ``--json`` parseable with the print on stderr; the Python API raises a ValueError naming the
method. Small sample sizes: these are protocol checks, not statistics.
"""
from __future__ import annotations

import importlib
import json
import sys

import numpy as np
import pytest

from ldp_audit.cli import main
from ldp_audit.testing import audit

MODULE = "issue43_user_code"
SOURCE = '''
import math
import sys

import numpy as np

P = math.e / (1.0 + math.e)  # binary randomized response at eps = 1


def rr(x, n, rng):
    return np.where(rng.random(n) < P, x, 1 - x).astype(float)


def halves(x, n, rng):
    """A density on [0, 1]: uniform on the input's half w.p. P, on the other half otherwise (eps = 1)."""
    half = np.where(rng.random(n) < P, x, 1 - x)
    return 0.5 * half + 0.5 * rng.random(n)


def halves_pdf(y, x):
    return np.where((np.asarray(y) > 0.5) == (x == 1), 2 * P, 2 * (1 - P))


def halves_cdf(y, x):
    y = np.asarray(y, dtype=float)
    low, high = (2 * P, 2 * (1 - P)) if x == 0 else (2 * (1 - P), 2 * P)
    return np.where(y <= 0.5, low * y, 0.5 * low + high * (y - 0.5))


def mean(x):
    return x * P + (1 - x) * (1 - P)


BASES = {
    "discrete": lambda: {"sample": rr, "pmf": lambda y, x: np.where(np.asarray(y) == x, P, 1 - P),
                         "support": [0, 1], "report_mean": mean, "report_var": lambda x: mean(x) * (1 - mean(x)),
                         "estimate": lambda r: (np.asarray(r) - (1 - P)) / (2 * P - 1),
                         "estimate_var": lambda x: mean(x) * (1 - mean(x)) / (2 * P - 1) ** 2,
                         "supports": lambda r, item: np.asarray(r) == item,
                         "key": lambda r: np.zeros(len(r), dtype=np.int64)},
    "density": lambda: {"sample": halves, "pdf": halves_pdf, "cdf": halves_cdf, "support": (0.0, 1.0)},
    "law": lambda: {"sample": rr, "law": lambda x: {float(x): P, float(1 - x): 1 - P}},
    "loglik": lambda: {"sample": rr, "report_loglik": lambda v, x: np.where(np.asarray(v)[:, 0] == x,
                                                                            math.log(P), math.log(1 - P))},
}


def _like(fn, fill):
    return lambda *a: np.full(np.shape(fn(*a)), fill)


def _boom(fn):
    def raises(*a):
        raise RuntimeError("boom")
    return raises


def _exits(fn):
    def exits(*a):
        sys.exit(3)
    return exits


def _prints(fn):
    def prints(*a):
        print("chatter from user code")
        return fn(*a)
    return prints


def _ragged(fn):
    return lambda x: [fn(x)] * (1 + int(x))


FAULTS = {"raises": _boom, "exits": _exits, "prints": _prints, "nans": lambda fn: _like(fn, np.nan),
          "infs": lambda fn: _like(fn, np.inf), "negative": lambda fn: _like(fn, -1.0),
          "string": lambda fn: (lambda *a: "big"), "none": lambda fn: (lambda *a: None),
          "short": lambda fn: (lambda *a: np.asarray(fn(*a))[:-1]), "scalar": lambda fn: (lambda *a: 0.5),
          "ragged": _ragged, "not-callable": lambda fn: 3}


def chatty(x, n, rng):
    print("chatter from a worker")
    return rr(x, n, rng)


def make_chatty(eps):
    return {"sample": chatty, "eps": eps, "domain": [0, 1]}


def make(eps, base="discrete", method="none", fault="none"):
    mech = {**BASES[base](), "eps": eps, "domain": [0, 1], "name": f"{base}-{method}-{fault}"}
    if method != "none":
        mech[method] = FAULTS[fault](mech[method])
    return mech
'''


@pytest.fixture(scope="module")
def user_module(tmp_path_factory):
    folder = tmp_path_factory.mktemp("user_code")
    (folder / f"{MODULE}.py").write_text(SOURCE)
    sys.path.insert(0, str(folder))
    yield MODULE
    sys.path.remove(str(folder))
    sys.modules.pop(MODULE, None)


def _verify(capsys, module, base, method, fault, *extra):
    code = main(["verify", f"{module}:make", "--eps", "1", "--samples", "2000", "--param", f"base={base}",
                 "--param", f"method={method}", "--param", f"fault={fault}", "--json", *extra])
    out, err = capsys.readouterr()
    return code, out, err


# (base, method, fault, words the error must hold); every one exits 2 with "ldp-audit: error:"
BROKEN = [
    ("discrete", "sample", "raises", "sample(0, 2000, rng) raised RuntimeError: boom"),
    ("discrete", "sample", "exits", "sample(0, 2000, rng) called sys.exit(3)"),
    ("discrete", "sample", "string", "must return n reports"),
    ("discrete", "sample", "short", "must return n reports"),
    ("discrete", "pmf", "raises", "raised RuntimeError: boom"),
    ("discrete", "pmf", "nans", "it must return finite real numbers >= 0"),
    ("discrete", "pmf", "negative", "returned -1.0"),
    ("discrete", "pmf", "string", "returned 'big'"),
    ("discrete", "report_mean", "raises", "report_mean(0) raised RuntimeError: boom"),
    ("discrete", "report_mean", "nans", "report_mean(0) returned nan; it must return finite real numbers"),
    ("discrete", "report_mean", "infs", "report_mean(0) returned inf"),
    ("discrete", "report_mean", "string", "report_mean(0) returned 'big'"),
    ("discrete", "report_mean", "none", "report_mean(0) returned None"),
    ("discrete", "report_mean", "ragged", "report_mean(0.0), the claimed mean of the report, has shape (1,)"),
    ("discrete", "report_mean", "not-callable", "report_mean must be callable, got int"),
    ("discrete", "report_var", "raises", "report_var(0) raised RuntimeError: boom"),
    ("discrete", "report_var", "exits", "report_var(0) called sys.exit(3)"),
    ("discrete", "report_var", "negative", "report_var(0) returned -1.0; it must return finite real numbers >= 0"),
    ("discrete", "report_var", "string", "report_var(0) returned 'big'"),
    ("discrete", "estimate", "raises", "estimate(reports) raised RuntimeError: boom"),
    ("discrete", "estimate", "short", "estimate(reports) returned a float64 array of shape (1999,) for 2000 reports"),
    ("discrete", "estimate", "nans", "with NaN or infinite entries for 2000 reports"),
    ("discrete", "estimate", "string", "estimate(reports) returned 'big'"),
    ("discrete", "estimate", "scalar", "estimate(reports) returned 0.5 for 2000 reports"),
    ("discrete", "estimate_var", "raises", "estimate_var(0) raised RuntimeError: boom"),
    ("discrete", "estimate_var", "negative", "estimate_var(0) returned -1.0"),
    ("discrete", "supports", "raises", "supports(reports, 0) raised RuntimeError: boom"),
    ("discrete", "supports", "short", "supports(reports, 0.0) must return n=2000 booleans"),
    ("discrete", "key", "raises", "key(reports) raised RuntimeError: boom"),
    ("discrete", "key", "exits", "key(reports) called sys.exit(3)"),
    ("discrete", "key", "nans", "key(reports) must return n=2000 integers"),
    ("density", "pdf", "raises", "pdf(0.0, 0) raised RuntimeError: boom"),  # one y at a time, after y
    ("density", "pdf", "nans", "it must return finite real numbers >= 0"),
    ("density", "pdf", "negative", "returned -1.0"),
    ("density", "pdf", "not-callable", "pdf must be callable, got int"),
    ("density", "cdf", "raises", "cdf(0.001, 0) raised RuntimeError: boom"),
    ("density", "cdf", "string", "cdf(0.001, 0) returned 'big'"),
    ("law", "law", "raises", "law(0) raised RuntimeError: boom"),
    ("law", "law", "string", "law(x) must return an ldp_audit Law"),
    ("loglik", "report_loglik", "raises", "report_loglik(values, 0) raised RuntimeError: boom"),
    ("loglik", "report_loglik", "short", "it must return one log likelihood per report"),
    ("loglik", "report_loglik", "nans", "it must return one log likelihood per report"),
    ("loglik", "report_loglik", "infs", "it must return one log likelihood per report"),
    ("loglik", "report_loglik", "string", "report_loglik(values, 0) returned 'big'"),
]


@pytest.mark.parametrize("base,method,fault,words", BROKEN, ids=[f"{m}-{f}-{b}" for b, m, f, _ in BROKEN])
def test_a_broken_user_method_exits_2_naming_it(user_module, capsys, base, method, fault, words):
    code, out, err = _verify(capsys, user_module, base, method, fault)
    assert code == 2, (out[-2000:], err)
    assert "ldp-audit: error:" in err and words in err, err
    assert "Traceback" not in err + out
    if out:  # a protocol failure still prints its (parseable) report
        assert json.loads(out)["verdict"] == "fail"


PRINTING = [("discrete", "sample"), ("discrete", "pmf"), ("discrete", "report_mean"), ("discrete", "estimate"),
            ("discrete", "supports"), ("discrete", "key"), ("density", "pdf"), ("density", "cdf"),
            ("law", "law"), ("loglik", "report_loglik")]


@pytest.mark.parametrize("base,method", PRINTING, ids=[m for _, m in PRINTING])
def test_a_user_method_that_prints_leaves_the_json_clean(user_module, capsys, base, method):
    code, out, err = _verify(capsys, user_module, base, method, "prints")
    assert code in (0, 1) and json.loads(out)["schema"] == "ldp-audit/report"
    assert "chatter from user code" in err and "chatter" not in out


def _api(base, method, fault):
    """The broken mechanism as a Python object, for the API (the module is on sys.path: see ``user_module``)."""
    return importlib.import_module(MODULE).make(1.0, base, method, fault)


API = [("discrete", "pmf", "raises", r"pmf\(0.0, 0\) raised RuntimeError: boom"),
       ("discrete", "report_mean", "nans", r"report_mean\(0\) returned nan"),
       ("discrete", "report_var", "string", r"report_var\(0\) returned 'big'"),
       ("discrete", "estimate", "short", r"estimate\(reports\) returned a float64 array of shape \(1999,\)"),
       ("density", "pdf", "raises", r"pdf\(0.0, 0\) raised RuntimeError"),
       ("density", "cdf", "string", r"cdf\(0.001, 0\) returned 'big'"),
       ("law", "law", "raises", r"law\(0\) raised RuntimeError"),
       ("loglik", "report_loglik", "nans", r"report_loglik\(values, 0\) returned")]


@pytest.mark.parametrize("base,method,fault,pattern", API, ids=[f"{m}-{f}" for _, m, f, _ in API])
def test_the_python_api_raises_a_value_error_naming_the_method(user_module, base, method, fault, pattern):
    with pytest.raises(ValueError, match=pattern):
        audit(_api(base, method, fault), samples=2000)


@pytest.mark.parametrize("method,fault,words", [
    ("sample", "raises", "sample(0, 2000, rng) raised RuntimeError: boom"),
    ("key", "raises", "key(reports) raised RuntimeError: boom"),
    ("supports", "exits", "supports(reports, 0) called sys.exit(3)"),
])
def test_the_python_api_reports_a_broken_sampler_in_its_shape_row(user_module, method, fault, words):
    """Where the CLI exits 2, the API returns the report: sanity.shape FAILs naming the method (not 'sample(...)
    failed' for an error in key or supports)."""
    report = audit(_api("discrete", method, fault), samples=2000)
    row = next(r for r in report.results if r.name == "sanity.shape")
    assert row.status.value == "fail" and words in row.explanation


@pytest.mark.parametrize("extra,words", [
    ({"law": "pmf"}, "pmf (the law is read from law)"),
    ({"cdf": "pmf"}, "cdf (read only beside pdf, as the law)"),
    ({"drop": "estimate"}, "estimate_var (needs estimate(reports))"),
    ({}, None),
], ids=["pmf-shadowed-by-law", "cdf-without-pdf", "estimate-var-without-estimate", "all-read"])
def test_a_declaration_no_audit_reads_is_reported_unused(user_module, extra, words):
    mech = _api("discrete", "none", "none")
    if "law" in extra:
        mech["law"] = lambda x: {float(x): 0.7310585786300049, float(1 - x): 0.2689414213699951}
    if "cdf" in extra:
        mech["cdf"] = lambda y, x: np.asarray(y, dtype=float)
    if "drop" in extra:
        del mech["estimate"]
    rows = {r.name: r for r in audit(mech, samples=2000, checks="privacy").results}
    if words is None:
        assert "sanity.declarations" not in rows
    else:
        row = rows["sanity.declarations"]
        assert row.status.value == "warn" and words in row.explanation


def test_prints_in_pool_workers_go_to_stderr_too(user_module, capfd):
    """The wrapper runs where the sampler runs: in the worker processes of --workers 2 (captured at the fd level,
    where a worker's stdout would land)."""
    code = main(["verify", f"{user_module}:make_chatty", "--eps", "1", "--samples", "20000", "--workers", "2",
                 "--checks", "privacy", "--json"])
    out, err = capfd.readouterr()
    report = json.loads(out)
    assert code == 0 and report["settings"]["engine"] == "processes"
    assert "chatter from a worker" in err and "chatter" not in out


def test_user_calls_overlapping_in_threads_leave_stdout_where_it_was():
    """A Dask worker runs user calls in several threads at once. With one stdout swap per call, a call that ends
    after another one began restores the stream the first had swapped in, and stdout stays on stderr (with the
    report after it). Forced here: A starts, B starts, A ends, B ends."""
    import sys
    import threading

    from ldp_audit.external.calls import UserCall

    a_in, b_in, a_done = threading.Event(), threading.Event(), threading.Event()
    first = UserCall(lambda: (a_in.set(), b_in.wait(10)), "sample(x, n, rng)", "A")
    second = UserCall(lambda: (b_in.set(), a_done.wait(10), print("from B")), "sample(x, n, rng)", "B")
    before = sys.stdout
    threads = [threading.Thread(target=lambda: (first(), a_done.set())),
               threading.Thread(target=lambda: (a_in.wait(10), second()))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert a_done.is_set() and sys.stdout is before
