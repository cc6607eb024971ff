"""Cases of an independent bad-input sweep of the mechanisms' Python API: ``make``, ``perturb``, ``estimate``,
``estimate_var``/``estimate_cov``, ``report_loglik`` and the law objects. Each bad argument is a ValueError that
names the parameter and what is allowed (never a numpy/scipy traceback, a MemoryError or a silent answer), and
the checks change no valid result."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import sparse, stats

from ldp_audit.commands.verify import _NAMED as VERIFY_OPTIONS
from ldp_audit.mechanisms import make
from ldp_audit.mechanisms.frequency.base import pure_estimate
from ldp_audit.mechanisms.validation import MAX_CATEGORIES, MAX_COUNT, MAX_MOMENT_ORDER

NAN, INF = float("nan"), float("inf")


def _rng():
    return np.random.default_rng(0)


def _law(name="laplace", x=0.3, **params):
    return make(name, eps=1, **params).law(x)


#: (id, call, pattern): the ValueError's message must match ``pattern``, which names the parameter.
CASES = [
    # make
    ("mk-name-none", lambda: make(None, eps=1), r"^name must be a mechanism name \(a string\), got None"),
    ("mk-name-int", lambda: make(3, eps=1), r"^name must be a mechanism name"),
    ("mk-grr-c-huge", lambda: make("grr", eps=1, c=10 ** 12), r"^c must be an integer \[2, 1000000\]"),
    ("mk-esw-f-huge", lambda: make("esw", eps=1, f=10 ** 12), r"^f must be an integer \[2, 1000000\]"),
    # perturb
    ("pt-string-input", lambda: make("laplace", eps=1).perturb("0.5", 0), r"^x must be an array of real numbers"),
    ("pt-bool-input", lambda: make("laplace", eps=1).perturb(np.array([True, False]), 0),
     r"^x must be an array of real numbers \(not booleans"),
    ("pt-bool-scalar", lambda: make("grr", eps=1, c=3).perturb(True, 0), r"^x must be an array of real numbers"),
    ("pt-object-text", lambda: make("laplace", eps=1).perturb(np.array([0.1, "0.2"], dtype=object), 0),
     r"^x must be an array of real numbers"),
    ("pt-complex", lambda: make("laplace", eps=1).perturb(np.array([0.1 + 0j]), 0),
     r"^x must be an array of real numbers"),
    ("pt-rng-negative", lambda: make("laplace", eps=1).perturb(0.5, -1),
     r"^rng must be a numpy.random.Generator, a SeedSequence or a non-negative integer seed, got -1"),
    ("pt-rng-bool", lambda: make("laplace", eps=1).perturb(0.5, True), r"^rng must be .* got True \(bool\)"),
    ("pt-rng-float", lambda: make("sue", eps=1).perturb(1, 1.5), r"^rng must be .* got 1.5 \(float\)"),
    ("pt-mask-flag", lambda: make("hds", eps=1, d=8).perturb(np.zeros((2, 8)), 0, return_mask="yes"),
     r"^return_mask must be True or False, got 'yes'"),
    ("sample-n-memory", lambda: make("laplace", eps=1).sample(0.0, MAX_COUNT, _rng()),
     r"^n 1,000,000,000,000 is too large: sampling laplace reports needs about"),
    ("hd-sample-n-memory", lambda: make("hds", eps=1).sample(0.0, MAX_COUNT, _rng()), r"^n .* is too large"),
    ("oracle-sample-n-memory", lambda: make("oue", eps=1).sample(0, MAX_COUNT, _rng()), r"^n .* is too large"),
    # estimate: reports the mechanism cannot produce
    ("est-string", lambda: make("laplace", eps=1).estimate(["1"]), r"^reports must be an array of real numbers"),
    ("est-grr-outside", lambda: make("grr", eps=1, c=3).estimate(np.array([0, 1, 7])),
     r"^reports must lie in the domain \[0, 2\].* 7 at index \(2,\)\)\. grr with c=3 reports the categories 0\.\.2"),
    ("est-grr-float", lambda: make("grr", eps=1, c=3).estimate(np.array([0, 0.5])),
     r"^reports must hold integer categories in \[0, 2\], got 0.5"),
    ("est-esw-outside", lambda: make("esw", eps=1, f=5).estimate(np.array([0.0])),
     r"^reports must lie in the domain \[1, \d+\].* esw with f=5 at eps=1 reports the levels 1\.\."),
    ("est-one-bit-bad-report", lambda: make("one_bit", eps=1).estimate(np.array([0.3, 7.0])),
     r"^reports must hold values that one_bit reports, one of \{-1, 1\}; 2 value\(s\) are not \(e\.g\. 0\.3"),
    ("est-duchi-bad-report", lambda: make("duchi", eps=1).estimate(np.array([1.0])),
     r"^reports must hold values that duchi reports, one of \{-2\.16395, 2\.16395\}"),
    ("est-one-bit-nan", lambda: make("one_bit", eps=1).estimate(np.array([1.0, NAN])),
     r"^reports contains 1 NaN or infinite value\(s\); one_bit reports one of \{-1, 1\}"),
    ("est-multibit-bad-entry", lambda: make("multibit", eps=1, d=4).estimate(np.full((2, 4), 0.5)),
     r"^reports must hold values that multibit reports, one of \{0, -1, 1\}"),
    ("est-multibit-sparse", lambda: make("multibit", eps=1, d=4).estimate(sparse.csr_matrix(np.full((2, 4), 2.0))),
     r"^reports must hold values that multibit reports"),
    ("est-sue-wrong-bits", lambda: make("sue", eps=1, k=8).estimate(np.full((2, 8), 3.0)),
     r"^reports must hold values that sue \(bits\) reports, one of \{0, 1\}; 16 value\(s\)"),
    ("est-ss-wrong-bits", lambda: make("ss", eps=1, k=8).estimate(np.full((1, 8), 2, dtype=np.uint8)),
     r"^reports must hold values that ss \(bits\) reports"),
    ("est-hr-outside", lambda: make("hr", eps=1, k=8).estimate(np.array([16])),
     r"^reports must lie in the domain \[0, 15\].* hr reports outputs 0\.\.15"),
    ("est-olh-bucket", lambda: make("olh", eps=1, k=8).estimate(np.array([[5, 99]])),
     r"^reports must lie in the domain \[0, \d+\].* olh reports buckets 0\.\."),
    ("est-olh-seed", lambda: make("olh", eps=1, k=8).estimate(np.array([[-5, 0]])),
     r"^reports must lie in the domain .* olh reports hash seeds 0\.\."),
    ("est-rappor-bits", lambda: make("rappor", eps=1, k=4).estimate(np.array([[0] + [2] * 8])),
     r"^reports must hold values that rappor \(bits\) reports"),
    # moments of the estimate
    ("estvar-string", lambda: make("laplace", eps=1).estimate_var("0.3"), r"^x must be an array of real numbers"),
    ("estcov-shape", lambda: make("hds", eps=1).estimate_cov(np.zeros(3), np.zeros(4)),
     r"^x_i and x_j must have shapes that broadcast together .* got \(3,\) and \(4,\)"),
    # a declared whole-report likelihood (frequency oracles)
    ("loglik-oracle-wrong-shape", lambda: make("sue", eps=1, k=8).report_loglik(np.zeros((3, 5)), 1),
     r"^values must have shape \(n, 8\) for sue with k=8, got shape \(3, 5\)"),
    ("loglik-oracle-text", lambda: make("hr", eps=1, k=8).report_loglik(np.array(["a"]), 1),
     r"^values must be a numeric array of shape \(n,\)"),
    ("loglik-oracle-nan", lambda: make("olh", eps=1, k=8).report_loglik(np.array([[1.0, NAN]]), 1),
     r"^values contain NaN or infinite values"),
    # laws
    ("law-cdf-nan", lambda: _law().cdf(NAN), r"^y contains 1 NaN value\(s\); points must be real numbers"),
    ("law-sf-nan", lambda: _law("grr", 1, c=3).sf([0.0, NAN]), r"^y contains 1 NaN"),
    ("law-density-string", lambda: _law("piecewise").density("high"), r"^y must be an array of real numbers"),
    ("law-logdensity-nan", lambda: _law().logdensity(NAN), r"^y contains 1 NaN"),
    ("law-moment-neg", lambda: _law().moment(-1), rf"^order must be an integer \[0, {MAX_MOMENT_ORDER}\], got -1"),
    ("law-moment-float", lambda: _law().moment(2.5), r"^order must be an integer \[0, 20\], got 2.5"),
    ("law-moment-huge", lambda: _law().moment(10 ** 6), r"^order must be an integer \[0, 20\], got 1000000"),
    ("law-moment-piecewise-neg", lambda: _law("piecewise").moment(-2), r"^order must be an integer \[0, 20\]"),
    ("law-moment-discrete-str", lambda: _law("grr", 1, c=3).moment("2"), r"^order must be an integer .* got '2'"),
    ("law-moment-mixture-nan", lambda: _law("hds", 0.3).moment(NAN), r"^order must be an integer .* got nan"),
    ("law-moment-about-nan", lambda: _law().moment_about(2, NAN), r"^order must be an integer .* got nan"),
    ("law-moment-about-center", lambda: _law().moment_about(INF, 2), r"^center must be a finite real number"),
    ("law-quantiles-outside", lambda: _law().continuous_quantiles(1.5),
     r"^levels must lie in the domain \[0, 1\].* Levels are probabilities"),
    ("law-quantiles-nan", lambda: _law("piecewise").continuous_quantiles([0.5, NAN]), r"^levels contains 1 NaN"),
    ("law-prob-reversed", lambda: _law().prob(1.0, 0.0),
     r"^lo must not exceed hi \(the interval is \(lo, hi\]\); 1 pair\(s\) are reversed, e\.g\. lo=1, hi=0"),
    ("law-prob-piecewise-reversed", lambda: _law("piecewise").prob(1.0, -1.0), r"^lo must not exceed hi"),
    ("law-prob-mixture-reversed", lambda: _law("hds", 0.3).prob([0.0, 1.0], [0.5, 0.5]), r"^lo must not exceed hi"),
    ("law-prob-shapes", lambda: _law().prob([0.0, 1.0], [1.0, 2.0, 3.0]),
     r"^lo and hi must have shapes that broadcast together"),
    ("law-prob-nan", lambda: _law().prob(NAN, 1.0), r"^lo contains 1 NaN"),
    ("law-sample-huge", lambda: _law().sample(10 ** 13, _rng()), r"^n must be an integer \[0, 1000000000000\]"),
    ("law-sample-memory", lambda: _law().sample(MAX_COUNT, _rng()), r"^n 1,000,000,000,000 is too large: the law.s reference sampler needs"),
    ("law-sample-rng", lambda: _law().sample(3, -2), r"^rng must be .* got -2"),
    ("law-affine-inf", lambda: _law().affine(INF, 0), r"^scale must be a finite, non-zero real number, got inf"),
    ("law-affine-zero", lambda: _law("piecewise").affine(0.0), r"^scale must be a finite, non-zero real number"),
    ("law-affine-shift", lambda: _law("grr", 1, c=3).affine(1.0, NAN), r"^shift must be a finite real number"),
    ("law-affine-bool", lambda: _law().affine(True), r"^scale must be .* got True"),
    ("law-atom-mass-nan", lambda: _law("grr", 1, c=3).atom_mass(np.array([NAN])), r"^y contains 1 NaN"),
    ("law-atom-mass-widths", lambda: _law("grr", 1, c=3).atom_mass([1.0], widths=[-1.0]),
     r"^widths must lie in the domain \[0, inf\]"),
    ("law-atom-mass-rtol", lambda: _law("grr", 1, c=3).atom_mass([1.0], rtol=-1e-9),
     r"^rtol must be a finite number >= 0"),
    ("law-atom-mass-between-unsorted", lambda: _law("grr", 1, c=3).atom_mass_between(np.array([3.0, 0.0])),
     r"^edges must be non-decreasing \(cell boundaries in order\); edges\[0\] = 3 > edges\[1\] = 0"),
    ("law-atom-mass-between-2d", lambda: _law("grr", 1, c=3).atom_mass_between(np.zeros((2, 2))),
     r"^edges must be a one-dimensional array"),
]


@pytest.mark.parametrize("call,pattern", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_a_bad_argument_is_a_value_error_naming_it(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()


# ----- the same caps as the command line ----------------------------------------------------------------------------

@pytest.mark.parametrize("name,param", [("grr", "c"), ("esw", "f")])
def test_categories_are_capped_as_on_the_command_line(name, param):
    import argparse

    make(name, eps=1, **{param: MAX_CATEGORIES})
    with pytest.raises(ValueError, match=rf"^{param} must be an integer \[2, {MAX_CATEGORIES}\]"):
        make(name, eps=1, **{param: MAX_CATEGORIES + 1})
    assert VERIFY_OPTIONS[param](str(MAX_CATEGORIES)) == MAX_CATEGORIES
    with pytest.raises(argparse.ArgumentTypeError):
        VERIFY_OPTIONS[param](str(MAX_CATEGORIES + 1))


# ----- what stays as it was -------------------------------------------------------------------------------------

def test_a_mechanism_without_a_whole_report_likelihood_declares_none():
    """``report_loglik`` is a declared capability (a callable, or None when not declared), read as data by the
    audits (``is not None``): a sampled mechanism has a per-coordinate law instead."""
    assert make("hds", eps=1).report_loglik is None
    assert make("laplace", eps=1).report_loglik is None
    assert callable(make("sue", eps=1).report_loglik)


@pytest.mark.parametrize("seed", [0, np.int64(7), np.random.SeedSequence(3)])
def test_perturb_with_a_seed_draws_what_the_sampler_draws(seed):
    m = make("laplace", eps=1)
    x = np.linspace(-1, 1, 11)
    again = seed if not isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(3)
    assert np.array_equal(m.perturb(x, seed), m._sample(x, np.random.default_rng(again)))


@pytest.mark.parametrize("name,params,x", [
    ("laplace", {}, np.linspace(-1, 1, 101)),
    ("one_bit", {}, np.linspace(-1, 1, 101)),
    ("duchi", {}, np.linspace(-1, 1, 101)),
    ("grr", {"c": 5}, np.arange(5.0).repeat(20)),
    ("esw", {"f": 5}, np.arange(1.0, 6.0).repeat(20)),
    ("square_wave", {}, np.linspace(-1, 1, 101)),
])
def test_estimate_of_valid_reports_is_the_affine_rectifier(name, params, x):
    m = make(name, eps=1.5, **params)
    reports = m.perturb(x, _rng())
    assert np.array_equal(reports, m._sample(x, _rng()))
    assert np.array_equal(m.estimate(reports), m.estimate_shift + m.estimate_scale * reports)
    assert np.array_equal(m.estimate(list(reports)), m.estimate(reports))


@pytest.mark.parametrize("name", ["multibit", "mlr", "hds", "piecewise_hd"])
def test_sampled_estimate_of_valid_reports_dense_and_sparse(name):
    m = make(name, eps=2, d=6)
    lo, hi = m.domain
    x = np.linspace(lo, hi, 6)[None, :].repeat(50, axis=0)
    dense, mask = m.perturb(x, _rng(), return_mask=True)
    assert mask.sum(axis=1).tolist() == [m.k] * 50
    expected = dense if not m.rescale else m.estimate_shift + m.estimate_scale * dense
    assert np.array_equal(m.estimate(dense), expected)
    assert np.allclose(np.asarray(sparse.csr_matrix(m.estimate(m.perturb_sparse(x, _rng()))).todense()), expected)


@pytest.mark.parametrize("name", ["sue", "oue", "the", "ss", "hr", "olh", "blh", "rappor"])
def test_oracle_estimate_of_valid_reports_is_eq_1(name):
    m = make(name, eps=1, k=6)
    reports = m.perturb(np.arange(6).repeat(10), _rng())
    if name == "rappor":
        q, p = m.support_probabilities()
        expected = (m._item_bits(reports).mean(axis=2) - p) / (q - p)
    else:
        expected = pure_estimate(m.support_matrix(reports), *m.support_probabilities())
    assert np.array_equal(m.estimate(reports), expected)
    assert np.array_equal(m.report_loglik(reports[:1], 2), m.report_loglik(reports[0], 2))


def test_laws_give_the_same_numbers_on_valid_arguments():
    lap = _law("laplace", 0.3)
    frozen = stats.laplace(loc=0.3, scale=2.0)
    y = np.array([-INF, -3.0, 0.3, 2.0, INF])
    assert np.allclose(lap.cdf(y), frozen.cdf(y)) and np.allclose(lap.density(y), frozen.pdf(y))
    assert float(lap.cdf(0.3)) == 0.5 and lap.cdf(0.3).shape == ()
    assert float(lap.prob(1.0, 1.0)) == 0.0 and float(lap.prob(-INF, INF)) == 1.0
    assert lap.moment(0) == 1.0 and lap.moment(2) == pytest.approx(0.09 + 8.0)
    assert lap.moment(2.0) == lap.moment(2) and lap.moment(np.int64(4)) == lap.moment(4)
    # every built-in keeps its moments finite up to the cap, and a Laplace law's are exact there (scipy's numeric
    # integration is 4% off at order 16)
    assert math.isfinite(make("laplace", eps=1e-12).law(0.0).moment(MAX_MOMENT_ORDER))
    assert math.isfinite(make("gaussian", eps=1e-12).law(1.0).moment(MAX_MOMENT_ORDER))
    assert _law("laplace", 0.0).moment(16) == pytest.approx(math.factorial(16) * 2.0 ** 16, rel=1e-14)
    assert lap.moment_about(0.3, 2) == pytest.approx(8.0)
    assert np.allclose(lap.continuous_quantiles([0.0, 0.5, 1.0]), [-INF, 0.3, INF])
    assert lap.affine(-2.0, 1.0).mean() == pytest.approx(0.4)
    assert np.array_equal(lap.sample(5, 7), lap._sample(5, np.random.default_rng(7)))
    assert lap.sample(0, _rng()).shape == (0,)
    grr = _law("grr", 1, c=3)
    assert grr.atom_mass([0.0, 1.0, 1.5]).tolist() == [grr.atoms[1][0], grr.atoms[1][1], 0.0]
    assert grr.atom_mass_between([-INF, 0.5, 0.5, INF]).sum() == pytest.approx(1.0)
    assert grr.atom_mass_between([0.0]).shape == (0,)
    hds = _law("hds", 0.3)
    assert hds.moment(0) == pytest.approx(1.0) and float(hds.prob(-INF, INF)) == pytest.approx(1.0)
