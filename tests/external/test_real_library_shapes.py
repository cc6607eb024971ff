"""Report shapes of real LDP libraries (issue 21, item 4; issue 22's user-code exits): the audit decodes what can
be decoded, never ends an opaque report in a blind PASS, and refuses what it cannot read with exit 2.

Stand-ins written as the libraries shape their reports: dicts (diffprivlib-style records), object arrays of
tuples, complex numbers, strings (ids and categories), sets and variable-length lists of item ids (subset
selection). Each leak or budget bug must FAIL (or, for a report the search cannot see into, be INCONCLUSIVE,
never PASS); each correct one must PASS. Fixed seeds, alpha = 1e-3 per audit.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ldp_audit.cli import main
from ldp_audit.testing import audit

EPS, ALPHA, N = 1.0, 1e-3, 50_000
COLOURS = ["red", "green", "blue", "cyan"]


def _laplace(x, n, rng, scale):
    return x + rng.laplace(scale=scale, size=n)  # Laplace on [-1, 1]: scale 2 / eps is eps-LDP


def _privacy(report):
    return next(r for r in report.results if r.name == "privacy.blackbox").status.value


def _objects(items) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def complex_report(leak: bool):
    """Noise in the real part; the imaginary part is fresh noise, or (the leak) the raw input."""
    return lambda x, n, rng: _laplace(x, n, rng, 2 / EPS) + 1j * (x if leak else rng.laplace(size=n))


def tuple_report(leak: bool):
    """An object array of (noisy value, second field) tuples; the leak puts x in the second field."""
    return lambda x, n, rng: _objects(list(zip(_laplace(x, n, rng, 2 / EPS), [x] * n if leak else [0] * n)))


def dict_report(scale: float):
    """A list of records {"value": noisy, "version": 1}; the bug uses scale 1 / eps (spends 2 eps)."""
    return lambda x, n, rng: [{"value": v, "version": 1} for v in _laplace(x, n, rng, scale / EPS)]


def unary_encoding(leak: bool, as_: str, c: int = 25):
    """OUE over c categories; the leak keeps the true bit always set. Reported as a frozenset of set bits
    (decoded to indicators over the domain) or as an opaque string id such as "oxoo..."."""
    p, q = 0.5, 1.0 / (1.0 + math.e ** EPS)

    def sample(x, n, rng):
        bits = rng.random((n, c)) < q
        bits[:, int(x)] = True if leak else rng.random(n) < p
        if as_ == "set":
            return _objects([frozenset(np.flatnonzero(row).tolist()) for row in bits])
        return np.array(["".join(row) for row in np.where(bits, "x", "o")])
    return sample


def string_grr(spend: float):
    """Generalised randomized response over string categories, spending ``spend``."""
    k = len(COLOURS)
    p = math.exp(spend) / (math.exp(spend) + k - 1)

    def sample(x, n, rng):
        own = COLOURS.index(x)
        other = (own + rng.integers(1, k, n)) % k
        return np.array(COLOURS)[np.where(rng.random(n) < p, own, other)]
    return sample


@pytest.mark.parametrize("mechanism,domain,expected", [
    (complex_report(leak=True), (-1.0, 1.0), "fail"),     # read as two columns: the imaginary part is x
    (complex_report(leak=False), (-1.0, 1.0), "pass"),
    (tuple_report(leak=True), (-1.0, 1.0), "fail"),       # an object array of tuples: one column per field
    (tuple_report(leak=False), (-1.0, 1.0), "pass"),
    (dict_report(scale=1.0), (-1.0, 1.0), "fail"),        # dict records: one column per key
    (dict_report(scale=2.0), (-1.0, 1.0), "pass"),
    (unary_encoding(leak=True, as_="set"), list(range(25)), "fail"),  # sets of item ids: indicators
    (unary_encoding(leak=False, as_="set"), list(range(25)), "pass"),
    (string_grr(2.0), COLOURS, "fail"),                   # string categories in and out
    (string_grr(1.0), COLOURS, "pass"),
], ids=["complex-leak", "complex", "tuple-leak", "tuple", "dict-bug", "dict", "ue-set-leak", "ue-set",
        "string-grr-2eps", "string-grr"])
def test_decoded_report_objects_are_audited(mechanism, domain, expected):
    report = audit(mechanism, eps=EPS, domain=domain, checks="privacy", samples=N, alpha=ALPHA)
    assert _privacy(report) == expected, report.results


@pytest.mark.parametrize("leak", [False, True])
def test_opaque_reports_are_inconclusive_with_the_remedy_never_a_blind_pass(leak):
    report = audit(unary_encoding(leak, as_="string"), eps=EPS, domain=list(range(25)), checks="privacy",
                   samples=20_000, alpha=ALPHA)
    row = next(r for r in report.results if r.name == "privacy.blackbox")
    assert row.status.value == "inconclusive" and report.verdict.value == "inconclusive"
    assert "cannot see into" in row.explanation and "supports(reports, item)" in row.explanation
    assert row.statistic is None and row.details["blind"]


def test_opaque_reports_that_repeat_are_seen_into():
    """String reports of a few categories repeat: the exact family sees them (and their violation)."""
    report = audit(string_grr(3.0), eps=EPS, domain=COLOURS, checks="privacy", samples=N, alpha=ALPHA)
    row = next(r for r in report.results if r.name == "privacy.blackbox")
    assert row.status.value == "fail" and row.details["family"] == "exact" and row.statistic > 2.0


def _module(tmp_path, monkeypatch, name, body):
    (tmp_path / f"{name}.py").write_text("import sys\nimport numpy as np\n" + body)
    monkeypatch.syspath_prepend(str(tmp_path))


@pytest.mark.parametrize("name,body,words", [
    ("ragged_lists", "def make(eps):\n    return {'sample': lambda x, n, rng: [[0.0] * (i % 3) for i in range(n)], "
     "'eps': eps, 'domain': (0.0, 1.0)}\n", "variable-length collections of items"),
    ("mixed_dicts", "def make(eps):\n    return {'sample': lambda x, n, rng: [{'a': 1} if i % 2 else {'b': 1} "
     "for i in range(n)], 'eps': eps, 'domain': (0.0, 1.0)}\n", "dict reports must all have the same keys"),
    ("exits_in_factory", "def make(eps):\n    sys.exit(0)\n", "called sys.exit(0)"),
    ("exits_on_import", "sys.exit(0)\ndef make(eps):\n    pass\n", "called sys.exit(0)"),
    ("exits_in_sampler", "def make(eps):\n    def sample(x, n, rng):\n        sys.exit(0)\n"
     "    return {'sample': sample, 'eps': eps, 'domain': (0.0, 1.0)}\n", "called sys.exit(0)"),
    ("unknown_item", "def make(eps):\n    return {'sample': lambda x, n, rng: [[7] if i % 2 else [] for i in range(n)], "
     "'eps': eps, 'domain': [0, 1, 2]}\n", "item 7.0 is not one of the domain's 3 categories"),
])
def test_unreadable_reports_and_exiting_user_code_exit_2_naming_the_problem(tmp_path, monkeypatch, capsys, name,
                                                                           body, words):
    _module(tmp_path, monkeypatch, name, body)
    code = main(["verify", f"{name}:make", "--eps", "1", "--samples", "2000", "--checks", "privacy", "--json"])
    out = capsys.readouterr()
    assert code == 2
    text = out.err + (" ".join(r["explanation"] for r in json.loads(out.out)["results"]) if out.out else "")
    assert words in text


def test_a_parameter_given_twice_is_a_usage_error(capsys):
    assert main(["verify", "hds", "--eps", "1", "--param", "eps=2"]) == 2
    assert "--param eps=2" in capsys.readouterr().err
    assert main(["verify", "hds", "--eps", "1", "--d", "4", "--param", "d=3"]) == 2
    assert "already given by --d" in capsys.readouterr().err


def test_string_category_domains_are_read_and_bad_ones_named():
    from ldp_audit.external import FiniteSet, as_mechanism

    domain = FiniteSet(["b", "a", "c"])
    assert domain.describe() == "{'a', 'b', 'c'}" and list(domain.contains(["a", "z", 1])) == [True, False, False]
    mech = as_mechanism(string_grr(1.0), eps=1.0, domain=COLOURS)
    assert mech.value_of(0) == "blue" and mech.categories == sorted(COLOURS) and mech.domain == (0.0, 3.0)
    with pytest.raises(ValueError, match="numbers or strings"):
        FiniteSet(["a", 1])
    with pytest.raises(ValueError, match="at least two distinct values"):
        FiniteSet(["a", "a"])


def test_require_seeded_must_be_a_bool():
    from ldp_audit.audits.verify.orchestrator import AuditSettings

    with pytest.raises(ValueError, match="require_seeded must be True or False"):
        AuditSettings(require_seeded="yes")


def test_a_sampler_failing_only_at_a_pilot_input_exits_2_naming_the_call(tmp_path, monkeypatch, capsys):
    """Categories 0, 2, 5, 7 pass the sanity checks; category 1 is drawn only by the search's pair pilot."""
    _module(tmp_path, monkeypatch, "fails_at_one",
            "def make(eps):\n    def sample(x, n, rng):\n        if x == 1:\n            raise KeyError('no table for 1')\n"
            "        return rng.integers(0, 8, n)\n    return {'sample': sample, 'eps': eps, 'domain': list(range(8))}\n")
    assert main(["verify", "fails_at_one:make", "--eps", "1", "--samples", "2000", "--checks", "privacy"]) == 2
    err = capsys.readouterr().err
    assert "ldp-audit: error: fails_at_one:make: sample(1, 2000, rng) raised KeyError: 'no table for 1'" in err
