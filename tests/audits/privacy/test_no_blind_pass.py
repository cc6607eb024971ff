"""No blind PASS left (issue 43, item 7), and the exit codes a CI gate reads (item 6, item 8).

Stand-ins written here, shaped as real libraries shape their reports (pure-LDP's, measured in the issue):

* binary local hashing (BLH): each user draws a fresh 63-bit hash seed s and reports (GRR_2(H_s(x)), s). The seed
  column never repeats across users: with nothing declared the search cannot see through it, and before this issue
  the client built with 2 eps PASSED at eps_lower 0.000 (exit 0). Now: INCONCLUSIVE (exit 4) with the remedy;
* RAPPOR with 8 cohorts: (cohort, Bloom bits); the cohort id repeats and changes what each bit means. Undeclared, it
  is now read as a key, so the client built with 2 eps FAILs as when the key is declared.

Each verdict has its power pair (a broken mechanism it must fail or flag, a correct one it passes) and false-alarm
guards (reports with bits, an unrelated small-integer column, a float nonce; built-ins). Fixed seeds, alpha = 1e-3.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ldp_audit.audits.privacy.reports import splitmix64
from ldp_audit.cli import main
from ldp_audit.testing import audit

ALPHA = 1e-3


def _bit(seeds: np.ndarray, item) -> np.ndarray:
    """H_s(v) in {0, 1}: a SplitMix64 hash of the exact 63-bit seed and the item."""
    z = splitmix64(seeds.view(np.uint64) ^ splitmix64(np.full(seeds.shape, int(item) + 1, dtype=np.uint64)))
    return (z & np.uint64(1)).astype(np.int64)


def blh(eps: float, spend: float | None = None, declare: tuple = ()) -> dict:
    """Binary local hashing over 8 categories claiming ``eps``, built with ``spend``: reports (bit, seed)."""
    p = math.exp(eps if spend is None else spend) / (1.0 + math.exp(eps if spend is None else spend))

    def sample(x, n, rng):
        seeds = rng.integers(0, 2**63 - 1, n, dtype=np.int64)
        h = _bit(seeds, x)
        return np.where(rng.random(n) < p, h, 1 - h), seeds

    mech = {"sample": sample, "eps": eps, "domain": list(range(8)), "name": "BLH"}
    if "supports" in declare:
        mech["supports"] = lambda reports, item: _bit(reports[1], item) == reports[0]
    if "key" in declare:  # a mis-declaration: the seed as a key never repeats
        mech["key"] = lambda reports: reports[1]
    return mech


def cohort_records(eps: float, spend: float | None = None, cohorts: int = 8, bits: int = 16) -> dict:
    """RAPPOR (permanent response, h = 2 Bloom bits per category, 4 categories) reported as dict records
    {"cohort": c, "bits": [16 ints]}: a record field holding lists, and a key nobody declared."""
    f = 2.0 / (1.0 + math.exp((eps if spend is None else spend) / 4))
    bloom = np.zeros((cohorts, 4, bits), dtype=bool)
    for c in range(cohorts):
        for v in range(4):
            z = int(splitmix64(np.array([c * 1000 + v], dtype=np.uint64))[0])
            first = z % bits
            bloom[c, v, [first, (first + 1 + (z >> 20) % (bits - 1)) % bits]] = True

    def sample(x, n, rng):
        cohort = rng.integers(0, cohorts, n)
        u = rng.random((n, bits))
        noisy = np.where(u < f / 2, 1, np.where(u < f, 0, bloom[cohort, int(x)].astype(int)))
        return [{"cohort": int(c), "bits": row} for c, row in zip(cohort, noisy.tolist())]

    return {"sample": sample, "eps": eps, "domain": list(range(4)), "name": "RAPPOR records"}


def _row(report, name="privacy.blackbox"):
    return next(r for r in report.results if r.name == name)


# ----- id-like columns: never a blind PASS -------------------------------------------------------------------------
@pytest.mark.parametrize("spend", [1.0, 2.0], ids=["correct", "2eps"])
def test_a_fresh_hash_seed_column_with_nothing_declared_is_inconclusive_with_the_remedy(spend):
    report = audit(blh(1.0, spend), checks="privacy", samples=20_000, alpha=ALPHA)
    row = _row(report)
    assert row.status.value == "inconclusive" and report.verdict.value == "inconclusive"
    assert row.details["id_like_columns"] == [1] and row.statistic < 0.2  # the 2 eps client: 0.000 before, a PASS
    assert "declare supports(reports, item)" in row.explanation and row.details["remedy"]


@pytest.mark.parametrize("spend,expected", [(1.0, "pass"), (2.0, "fail")], ids=["correct", "2eps"])
def test_with_the_remedy_applied_the_same_clients_are_judged(spend, expected):
    row = _row(audit(blh(1.0, spend, declare=("supports",)), checks="privacy", samples=20_000, alpha=ALPHA))
    assert row.status.value == expected and row.details["family"] == "supports" and row.details["id_like_columns"] == []


def test_a_seed_declared_as_a_key_does_not_lift_the_flag():
    """A key whose values never repeat conditions nothing: the seed column is still unreadable."""
    row = _row(audit(blh(1.0, 2.0, declare=("key",)), checks="privacy", samples=20_000, alpha=ALPHA))
    assert row.status.value == "inconclusive" and row.details["id_like_columns"] == [1]


def test_verify_exits_4_on_an_id_like_column(tmp_path, monkeypatch, capsys):
    (tmp_path / "blh_standin.py").write_text(
        "import numpy as np\n"
        "def make(eps):\n"
        "    def sample(x, n, rng):\n"
        "        return [(int(b), int(s)) for b, s in zip(rng.integers(0, 2, n), rng.integers(0, 2**62, n))]\n"
        "    return {'sample': sample, 'eps': eps, 'domain': list(range(4))}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code = main(["verify", "blh_standin:make", "--eps", "1", "--samples", "8000", "--checks", "privacy", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 4 and report["verdict"] == "inconclusive"
    assert report["results"][-1]["details"]["id_like_columns"] == [1]


# ----- key-like columns: read as a key ------------------------------------------------------------------------------
@pytest.mark.parametrize("spend,expected", [(1.0, "pass"), (2.0, "fail")], ids=["correct", "2eps"])
def test_a_cohort_field_of_dict_records_is_found_and_conditioned_on(spend, expected):
    row = _row(audit(cohort_records(1.0, spend), checks="privacy", samples=20_000, alpha=ALPHA))
    # fields in sorted order: bits -> coordinates 0..15, cohort -> 16
    assert row.status.value == expected and row.details["key_column"] == 16 and row.details["family"] == "keyed"
    assert "coordinate 16 takes few values" in row.explanation


# ----- false-alarm guards: correct mechanisms the new rules must not flag --------------------------------------------
def _unary(x, n, rng):
    """Optimised unary encoding over 8 categories at eps = 1: bits only (two values each: bits, not keys)."""
    bits = (rng.random((n, 8)) < 1.0 / (1.0 + math.e)).astype(np.int8)
    bits[:, int(x)] = rng.random(n) < 0.5
    return bits


def _rr_with_public_noise(x, n, rng):
    """Randomized response at eps = 1 beside an unrelated 8-valued column (a shard id the server ignores)."""
    return np.where(rng.random(n) < math.e / (1 + math.e), x, 1 - x), rng.integers(0, 8, n)


def _laplace_with_float_nonce(x, n, rng):
    return x + rng.laplace(scale=2.0, size=n), rng.random(n)  # a float nonce is distinct, but not an id


@pytest.mark.parametrize("sample,domain", [(_unary, list(range(8))), (_rr_with_public_noise, [0, 1]),
                                           (_laplace_with_float_nonce, (-1.0, 1.0))],
                         ids=["unary-bits", "rr-with-shard-id", "laplace-with-float-nonce"])
def test_correct_reports_are_not_flagged(sample, domain):
    report = audit(sample, eps=1.0, domain=domain, checks="privacy", samples=20_000, alpha=ALPHA)
    row = _row(report)
    assert report.passed and row.details["key_column"] is None and row.details["id_like_columns"] == []


@pytest.mark.parametrize("name,params", [("grr", {"c": 4}), ("oue", {"k": 8}), ("hds", {"d": 8, "k": 2}),
                                         ("olh", {"k": 8}), ("rappor", {"k": 4})])
def test_builtins_keep_their_verdict(name, params):
    from ldp_audit.mechanisms import make

    report = audit(make(name, eps=1.0, **params), checks="privacy", samples=20_000, alpha=ALPHA)
    row = _row(report)
    assert report.passed and row.details["key_column"] is None and row.details["id_like_columns"] == []


# ----- a declared report_loglik is held against the samples -----------------------------------------------------------
def _rr(x, n, rng):
    return np.where(rng.random(n) < math.e / (1 + math.e), x, 1 - x).astype(float)


def _loglik_at(eps):
    p = math.exp(eps) / (1 + math.exp(eps))
    return lambda values, x: np.where(np.asarray(values)[:, 0] == x, math.log(p), math.log(1 - p))


@pytest.mark.parametrize("loglik,expected", [
    (_loglik_at(1.0), "pass"),                                   # the sampler's own law
    (lambda values, x: np.zeros(len(values)), "fail"),           # ignores x: 'passed without being checked' before
    (_loglik_at(0.5), "fail"),                                   # another mechanism's law (eps 0.5 < measured 0.94)
], ids=["own-law", "ignores-x", "weaker-law"])
def test_a_declared_report_loglik_is_checked_against_the_samples(loglik, expected):
    report = audit(_rr, eps=1.0, domain=[0, 1], checks="privacy", samples=20_000, alpha=ALPHA, report_loglik=loglik)
    row = _row(report, "law.loglik")
    assert row.status.value == expected and _row(report).status.value == "pass"
    assert ("not the sampler's law" in row.explanation) == (expected == "fail")


# ----- exit codes: 1 violated, 3 not reproducible under --require-seeded, 4 could not see ---------------------------
EXITS = {
    "fixed_seed": ("    return lambda x, n, rng: np.where(np.random.default_rng(7).random(n) < 0.73, x, 1 - x)\n", 1),
    "own_generator": ("    own = np.random.default_rng()\n"
                      "    return lambda x, n, rng: np.where(own.random(n) < 0.73, x, 1 - x)\n", 0),
    "opaque_strings": ("    return lambda x, n, rng: np.array([f'id-{v}' for v in rng.integers(0, 2**40, n)])\n", 4),
}


@pytest.mark.parametrize("name,seeded,expected", [("fixed_seed", False, 1), ("own_generator", False, 0),
                                                  ("own_generator", True, 3), ("opaque_strings", False, 4)],
                         ids=["ignores-rng-exits-1", "own-generator-warns-0", "own-generator-require-seeded-3",
                              "opaque-reports-4"])
def test_exit_codes_tell_violated_from_unreproducible_from_unseen(tmp_path, monkeypatch, capsys, name, seeded,
                                                                 expected):
    body, _ = EXITS[name]
    module = f"exit_{name}"
    (tmp_path / f"{module}.py").write_text("import numpy as np\ndef sampler():\n" + body +
                                           "def make(eps):\n    return {'sample': sampler(), 'eps': eps, "
                                           "'domain': [0, 1]}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = ["verify", f"{module}:make", "--eps", "1", "--samples", "4000", "--checks", "privacy", "--json"]
    code = main(argv + (["--require-seeded"] if seeded else []))
    report = json.loads(capsys.readouterr().out)
    assert code == expected
    determinism = next(r for r in report["results"] if r["name"] == "sanity.determinism")
    assert determinism["status"] == {"fixed_seed": "fail", "own_generator": "fail" if seeded else "warn",
                                     "opaque_strings": "pass"}[name]


# ----- records of odd shapes ------------------------------------------------------------------------------------------
def _records(leak: bool):
    """Dict records holding a fixed-length list: randomized response bits, and (the leak) the input in a list."""
    def sample(x, n, rng):
        noisy = np.where(rng.random(n) < math.e / (1 + math.e), x, 1 - x)
        extra = np.full(n, x) if leak else rng.integers(0, 2, n)
        return [{"v": int(v), "pair": [int(e), 0]} for v, e in zip(noisy, extra)]
    return sample


@pytest.mark.parametrize("leak,expected", [(False, "pass"), (True, "fail")], ids=["correct", "leak-in-list"])
def test_dict_records_holding_lists_are_decoded_and_audited(leak, expected):
    report = audit(_records(leak), eps=1.0, domain=[0, 1], checks="privacy", samples=8_000, alpha=ALPHA)
    assert _row(report).status.value == expected


ODD = {
    "ragged_lists": ("[{'bits': [0] * (1 + i % 3), 'v': 1} for i in range(n)]", "field 'bits': it holds lists of "
                     "different lengths (1 to 3 entries)"),
    "nested_dicts": ("[{'meta': {'v': i}, 'v': 1} for i in range(n)]", "field 'meta': it holds dicts"),
    "lists_and_numbers": ("[{'v': [1, 2] if i % 2 else 3} for i in range(n)]", "field 'v': it mixes lists and "
                          "single values"),
    "tuples_with_ragged_lists": ("[([0] * (1 + i % 2), 1) for i in range(n)]", "position 0 of the tuples: it holds "
                                 "lists of different lengths"),
    "dict_of_ragged_columns": ("{'bits': [[0] * (1 + i % 2) for i in range(n)], 'v': np.zeros(n)}",
                               "field 'bits': reports are variable-length collections of items"),
}


@pytest.mark.parametrize("name", list(ODD))
def test_records_of_odd_shapes_exit_2_naming_the_field(tmp_path, monkeypatch, capsys, name):
    expression, words = ODD[name]
    module = f"odd_{name}"
    (tmp_path / f"{module}.py").write_text(
        "import numpy as np\ndef make(eps):\n"
        f"    return {{'sample': lambda x, n, rng: {expression}, 'eps': eps, 'domain': (0.0, 1.0)}}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code = main(["verify", f"{module}:make", "--eps", "1", "--samples", "2000", "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and "ldp-audit: error: sanity.shape:" in err and words in err, err
    assert "Traceback" not in err and json.loads(out)["verdict"] == "fail"


# ----- the pytest face: an assertion never passes on what the audit could not see -----------------------------------
@pytest.mark.parametrize("spend", [1.0, 2.0], ids=["correct", "2eps"])
def test_assert_ldp_fails_on_an_inconclusive_report_and_names_the_verdict(spend):
    from ldp_audit.testing import assert_ldp

    with pytest.raises(AssertionError, match=r"verdict INCONCLUSIVE"):
        assert_ldp(blh(1.0, spend), 1.0, samples=20_000, alpha=ALPHA)


def test_assert_ldp_passes_the_same_client_once_its_reports_can_be_read():
    from ldp_audit.testing import assert_ldp

    assert assert_ldp(blh(1.0, declare=("supports",)), 1.0, samples=20_000, alpha=ALPHA).verdict.value == "pass"
    with pytest.raises(AssertionError, match=r"verdict FAIL"):
        assert_ldp(blh(1.0, 2.0, declare=("supports",)), 1.0, samples=20_000, alpha=ALPHA)
