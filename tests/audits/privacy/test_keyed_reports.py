"""Keyed reports (issue 21): a frequency oracle declares how its server reads a report, ``supports(reports, item)``
and/or ``key(reports)``, and the black-box search reads it the same way.

Stand-ins written here, as a user would write them (the built-in oracles live elsewhere):

* local hashing (OLH, Wang et al. 2017) with a 2^63 hash-seed space: the client draws a seed s, hashes x into
  g = round(e^eps) + 1 buckets and reports (s, GRR_g(H_s(x))). No report ever repeats, and every coordinate has the
  same law under every input: only the support test H_s(v) == y sees the mechanism;
* RAPPOR with cohorts (Erlingsson et al. 2014, permanent response only): cohort c picks h = 2 Bloom bits of each
  value; each bit is replaced by a fair coin with probability f. eps = 2 h ln((1 - f/2) / (f/2)). Pooled over
  cohorts a bit's mean hardly depends on x: the cohort id must be read as a key.

Every mechanism has the correct client (PASS) and a mutant built with another budget (FAIL). Fixed seeds; the
family-wise false-alarm rate of each audit is its alpha (1e-3 here).
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ldp_audit.audits.privacy.reports import ReportFormat, Rows, as_rows, splitmix64
from ldp_audit.cli import main
from ldp_audit.mechanisms import make
from ldp_audit.testing import audit

ALPHA = 1e-3


def _bucket(seeds: np.ndarray, item, g: int) -> np.ndarray:
    """H_s(v): a SplitMix64 hash of the exact 63-bit seed and the item, into g buckets."""
    z = splitmix64(seeds.view(np.uint64) ^ splitmix64(np.full(seeds.shape, int(item) + 1, dtype=np.uint64)))
    return (z % np.uint64(g)).astype(np.int64)


def local_hashing(eps: float, c: int = 8, spend: float | None = None, declare: bool = True) -> dict:
    """OLH claiming ``eps``, built with ``spend`` (default eps): reports (seed, value) as a tuple of arrays."""
    run = eps if spend is None else spend
    g = int(round(math.exp(run))) + 1
    p = math.exp(run) / (math.exp(run) + g - 1)

    def sample(x, n, rng):
        seeds = rng.integers(0, 2**63 - 1, n, dtype=np.int64)
        h = _bucket(seeds, x, g)
        other = (h + 1 + rng.integers(0, g - 1, n)) % g
        return seeds, np.where(rng.random(n) < p, h, other)

    def supports(reports, item):
        seeds, y = reports
        return _bucket(seeds, item, g) == y

    mech = {"sample": sample, "eps": eps, "domain": list(range(c)), "name": f"OLH g={g}"}
    if declare:
        mech["supports"] = supports
    return mech


def cohort_rappor(eps: float, c: int = 4, cohorts: int = 8, bits: int = 16, spend: float | None = None,
                  declare=("key", "supports")) -> dict:
    """RAPPOR claiming ``eps`` with f computed for ``spend`` (a wrong f when they differ); reports (cohort, bits)."""
    h = 2
    f = 2.0 / (1.0 + math.exp((eps if spend is None else spend) / (2 * h)))
    bloom = np.zeros((cohorts, c, bits), dtype=bool)
    for cohort in range(cohorts):
        for v in range(c):
            z = int(splitmix64(np.array([cohort * 1000 + v], dtype=np.uint64))[0])
            first = z % bits
            bloom[cohort, v, [first, (first + 1 + (z >> 20) % (bits - 1)) % bits]] = True

    def sample(x, n, rng):
        cohort = rng.integers(0, cohorts, n)
        u = rng.random((n, bits))
        noisy = np.where(u < f / 2, True, np.where(u < f, False, bloom[cohort, int(x)]))
        return cohort, noisy.astype(np.int8)

    def supports(reports, item):
        cohort, b = reports
        return np.all(b.astype(bool) | ~bloom[cohort, int(item)], axis=1)

    mech = {"sample": sample, "eps": eps, "domain": list(range(c)), "name": f"RAPPOR f={f:.3f}"}
    if "key" in declare:
        mech["key"] = lambda reports: reports[0]
    if "supports" in declare:
        mech["supports"] = supports
    return mech


def _blackbox(report):
    return next(r for r in report.results if r.name == "privacy.blackbox")


# ----- local hashing --------------------------------------------------------------------------------------------
def test_local_hashing_with_a_2_63_seed_space_is_audited_through_its_support_test():
    report = audit(local_hashing(1.0), checks="privacy", samples=200_000, alpha=ALPHA)
    row = _blackbox(report)
    assert report.passed and row.details["family"] == "supports"
    assert row.details["tightness"] >= 0.85  # measured 0.965: "supports x1, not x0" has ratio exactly e^eps
    assert "supports" in row.details["event"]


def test_local_hashing_built_with_twice_its_eps_fails():
    row = _blackbox(audit(local_hashing(1.0, spend=2.0), checks="privacy", samples=200_000, alpha=ALPHA))
    assert row.status.value == "fail" and row.statistic > 1.5 and row.details["family"] == "supports"


def test_local_hashing_without_a_support_test_says_nothing_the_search_can_see():
    """The mutant that the support test catches is invisible without it (the reason to declare it)."""
    row = _blackbox(audit(local_hashing(1.0, spend=2.0, declare=False), checks="privacy", samples=50_000,
                          alpha=ALPHA))
    assert "supports" not in row.details["eps_lower_per_family"] and row.statistic < 0.1
    assert row.details["id_like_columns"] == [0] and "declare supports(reports, item)" in row.explanation


# ----- RAPPOR with cohorts ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("declare", [("key", "supports"), ("key",)])
def test_cohort_rappor_with_a_wrong_f_fails_through_key_conditioned_cells(declare):
    row = _blackbox(audit(cohort_rappor(1.0, spend=2.0, declare=declare), checks="privacy", samples=100_000,
                          alpha=ALPHA))
    assert row.status.value == "fail" and row.details["family"] == "keyed" and row.statistic > 1.5


def test_cohort_rappor_correct_passes_and_is_tight():
    report = audit(cohort_rappor(1.0), checks="privacy", samples=100_000, alpha=ALPHA)
    row = _blackbox(report)
    assert report.passed and row.details["tightness"] > 0.75  # measured 0.862


def test_cohort_rappor_without_its_key_is_caught_through_its_key_like_column():
    """Pooled over cohorts the same wrong-f client looked private (PASS 0.685 before issue 43): the cohort column
    (8 values, independent of the input) is now read as a key, named, and conditioned on."""
    row = _blackbox(audit(cohort_rappor(1.0, spend=2.0, declare=()), checks="privacy", samples=100_000,
                          alpha=ALPHA))
    assert row.status.value == "fail" and row.details["family"] == "keyed" and row.statistic > 1.5  # measured 1.886
    assert row.details["key_column"] == 0 and "coordinate 0 takes few values" in row.explanation


def test_cohort_rappor_correct_without_declarations_still_passes():
    row = _blackbox(audit(cohort_rappor(1.0, declare=()), checks="privacy", samples=100_000, alpha=ALPHA))
    assert row.status.value == "pass" and row.details["key_column"] == 0 and row.details["tightness"] > 0.75


# ----- the protocol ----------------------------------------------------------------------------------------------
def test_builtins_declare_no_support_test_or_key():
    m = make("grr", eps=1.0, c=4)
    assert m.supports is None and m.key is None and m.categories is None


def test_seeds_of_a_2_63_space_keep_exact_keys():
    seeds = np.array([2**62, 2**62 + 1, 2**62], dtype=np.int64)  # equal as float64, different as integers
    rows = as_rows((seeds, np.zeros(3, dtype=np.int64)), 3)
    assert rows.keys[0] != rows.keys[1] and rows.keys[0] == rows.keys[2]
    small = as_rows(np.array([[3, 0]]), 1)  # small integers hash as before, whether or not a big one is near
    joined = Rows.concat([rows, small])
    assert joined.n == 4 and joined.keys[3] == small.keys[0] and np.array_equal(joined.keys[:3], rows.keys)
    key = as_rows((seeds, seeds), 3, ReportFormat(key=lambda r: r[0])).public_key
    assert key.dtype == np.int64 and key[1] - key[0] == 1


@pytest.mark.parametrize("bad,words", [
    ({"supports": lambda reports, item: np.ones(3, dtype=bool)}, "supports(reports, 0.0) must return n=2000 booleans"),
    ({"key": lambda reports: np.full(len(reports), 0.5)}, "key(reports) must return n=2000 integers"),
])
def test_a_malformed_support_test_or_key_is_a_protocol_error(bad, words, tmp_path, monkeypatch, capsys):
    report = audit(lambda x, n, rng: x + rng.integers(0, 2, n), eps=1.0, domain=[0, 1], samples=5_000, **bad)
    shape = next(r for r in report.results if r.name == "sanity.shape")
    assert shape.status.value == "fail" and words in shape.explanation
    name = "bad_key" if "key" in bad else "bad_supports"
    body = ("    return {'sample': sample, 'eps': eps, 'domain': [0, 1], "
            + ("'key': lambda r: np.full(len(r), 0.5)}\n" if "key" in bad else
               "'supports': lambda r, v: np.ones(3, dtype=bool)}\n"))
    (tmp_path / f"{name}.py").write_text("import numpy as np\ndef make(eps):\n"
                                         "    def sample(x, n, rng):\n        return x + rng.integers(0, 2, n)\n" + body)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["verify", f"{name}:make", "--eps", "1", "--samples", "5000", "--checks", "privacy", "--json"]) == 2
    rows = json.loads(capsys.readouterr().out)["results"]
    assert rows[0]["name"] == "sanity.shape" and words in rows[0]["explanation"]
