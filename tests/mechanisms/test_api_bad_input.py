"""Bad input to the mechanisms' public methods beyond ``perturb`` (issue 43, item 3): every moment formula,
estimator, law and PPM level function checks its inputs through ``mechanisms/validation.py`` and raises a
ValueError that names the parameter and what is allowed, never an answer for an input outside the domain."""
from __future__ import annotations

import numpy as np
import pytest

from ldp_audit.mechanisms import make, sample_subsets
from ldp_audit.mechanisms.gaussian import analytic_sigma, classical_sigma, privacy_profile
from ldp_audit.mechanisms.personalised import MaxOfAccepted, PersonalisedMechanism, feature_report

NAN, INF = float("nan"), float("inf")
RNG = np.random.default_rng(0)


def _rappor_reports_with_cohort(cohort):
    m = make("rappor", eps=1.0)
    reports = m.perturb([0, 1], np.random.default_rng(0))
    reports[0, 0] = cohort
    return m, reports


PPM = PersonalisedMechanism(1.0, 4)

#: (id, call, pattern): the ValueError's message must match ``pattern``, which names the parameter and what
#: is allowed.
CASES = [
    # one-dimensional moment formulas and laws
    ("hds.estimate_var(2.0)", lambda: make("hds", eps=1).estimate_var(2.0), r"x must lie in the domain \[-1, 1\]"),
    ("hds.estimate_cov(0.3, nan)", lambda: make("hds", eps=1).estimate_cov(0.3, NAN),
     r"x_j contains 1 NaN .* finite numbers in \[-1, 1\]"),
    ("laplace.report_mean(inf)", lambda: make("laplace", eps=1).report_mean(INF), r"x contains 1 NaN or infinite"),
    ("laplace.report_var(-1.5)", lambda: make("laplace", eps=1).report_var(-1.5),
     r"x must lie in the domain \[-1, 1\]"),
    ("piecewise.estimate_mean('a')", lambda: make("piecewise", eps=1).estimate_mean("a"),
     r"x must be an array of real numbers"),
    ("square_wave_unit.report_var(-0.1)", lambda: make("square_wave_unit", eps=1).report_var(-0.1),
     r"x must lie in the domain \[0, 1\]"),
    ("square_wave.estimate_law(1.01)", lambda: make("square_wave", eps=1).estimate_law(1.01),
     r"x must lie in the domain \[-1, 1\]"),
    ("one_bit.prob_plus(1.5)", lambda: make("one_bit", eps=1).prob_plus(1.5), r"x must lie in the domain \[-1, 1\]"),
    ("duchi.prob_minus(nan)", lambda: make("duchi", eps=1).prob_minus(NAN), r"x contains 1 NaN"),
    ("grr.report_mean(2.5)", lambda: make("grr", eps=1, c=4).report_mean(2.5),
     r"x must hold integer categories in \[0, 3\], got 2.5"),
    ("grr.report_var(4)", lambda: make("grr", eps=1, c=4).report_var(4), r"x must lie in the domain \[0, 3\]"),
    ("esw.estimate_var(0)", lambda: make("esw", eps=1, f=5).estimate_var(0), r"x must lie in the domain \[1, 5\]"),
    ("gaussian.report_var(nan)", lambda: make("gaussian", eps=1).report_var(NAN), r"x contains 1 NaN"),
    ("laplace.law([0, 1])", lambda: make("laplace", eps=1).law([0.0, 1.0]), r"x must be a single number"),
    ("laplace.estimate([1, nan])", lambda: make("laplace", eps=1).estimate([1.0, NAN]),
     r"reports contains 1 NaN or infinite value\(s\); reports are finite numbers"),
    ("laplace.sample(n=-1)", lambda: make("laplace", eps=1).sample(0.0, -1, RNG), r"n must be an integer \[0, "),
    ("laplace.sample(n=2.5)", lambda: make("laplace", eps=1).sample(0.0, 2.5, RNG), r"n must be an integer .* got 2.5"),
    ("laplace.sample(x=2)", lambda: make("laplace", eps=1).sample(2.0, 10, RNG), r"x must lie in the domain \[-1, 1\]"),
    ("laplace.perturb(clip='yes')", lambda: make("laplace", eps=1).perturb([0.0], RNG, clip="yes"),
     r"clip must be True or False, got 'yes'"),
    # sampled (high-dimensional) mechanisms: coordinates in [alpha, beta]
    ("multibit.report_mean(1.5)", lambda: make("multibit", eps=1, d=4).report_mean(1.5),
     r"x must lie in the domain \[0, 1\]"),
    ("multibit.estimate(inf)", lambda: make("multibit", eps=1, d=4).estimate(np.full((2, 4), INF)),
     r"reports contains 8 NaN or infinite"),
    ("mlr.report_cov(0, 2)", lambda: make("mlr", eps=1, d=4).report_cov(0.0, 2.0),
     r"x_j must lie in the domain \[-1, 1\]"),
    ("hds.sample(shape (3,))", lambda: make("hds", eps=1).sample(np.zeros(3), 10, RNG),
     r"x must be a number or a vector of shape \(8,\), got shape \(3,\)"),
    ("make(hds, d=10**12)", lambda: make("hds", eps=1, d=10 ** 12), r"d must be an integer \[1, 10000000\]"),
    ("make(laplace_hd, d=1e8)", lambda: make("laplace_hd", eps=1, d=1e8), r"d must be an integer \[1, 10000000\]"),
    # frequency oracles: categories 0..k-1 and reports of the oracle's own shape
    ("oue.estimate_var(8)", lambda: make("oue", eps=1, k=8).estimate_var(8), r"x must lie in the domain \[0, 7\]"),
    ("oue.estimate_mean(1.5)", lambda: make("oue", eps=1, k=8).estimate_mean(1.5),
     r"x must hold integer categories in \[0, 7\]"),
    ("oue.estimate(width 5)", lambda: make("oue", eps=1, k=8).estimate(np.zeros((3, 5))),
     r"reports must have shape \(n, 8\) for oue with k=8, got shape \(3, 5\)"),
    ("olh.estimate(width 3)", lambda: make("olh", eps=1, k=8).estimate(np.zeros((3, 3), dtype=np.int64)),
     r"reports must have shape \(n, 2\)"),
    ("hr.estimate(2-d)", lambda: make("hr", eps=1, k=8).estimate(np.zeros((3, 2), dtype=np.int64)),
     r"reports must have shape \(n,\)"),
    ("oue.estimate(text)", lambda: make("oue", eps=1, k=8).estimate(np.full((1, 8), "a")),
     r"reports must be a numeric array of shape \(n, 8\)"),
    ("she.estimate(nan)", lambda: make("she", eps=1, k=8).estimate(np.full((2, 8), NAN)),
     r"reports contain NaN or infinite values"),
    ("she.estimate_var(-1)", lambda: make("she", eps=1, k=8).estimate_var(-1), r"x must lie in the domain \[0, 7\]"),
    ("rappor.estimate(cohort 99)", lambda: (lambda m, r: m.estimate(r))(*_rappor_reports_with_cohort(99)),
     r"the cohort\) must hold integers in \[0, 7\]"),
    ("oue.report_loglik(x=9)", lambda: make("oue", eps=1, k=8).report_loglik(np.zeros((1, 8)), 9),
     r"x must be an integer \[0, 7\], got 9"),
    ("ss.law_classes(x0=1.5)", lambda: make("ss", eps=1, k=8).law_classes(0, 1.5), r"x0 must be an integer \[0, 7\]"),
    ("sue.supports(item=8)", lambda: make("sue", eps=1, k=8).supports(np.zeros((2, 8)), 8),
     r"item must be an integer \[0, 7\], got 8"),
    ("oue.sample(n=1e13)", lambda: make("oue", eps=1, k=8).sample(0, 10 ** 13, RNG),
     r"n must be an integer \[0, 1000000000000\]"),
    # PPM: levels in 1..h, reported levels in 1..h + 2b
    ("ppm.budget(6)", lambda: PPM.budget(6), r"tau must lie in the domain \[1, 5\]"),
    ("ppm.budget(1.5)", lambda: PPM.budget(1.5), r"tau must hold integer categories in \[1, 5\]"),
    ("ppm.sampled_count(0)", lambda: PPM.sampled_count(0), r"tau must lie in the domain \[1, 5\]"),
    ("ppm.estimated_level(100)", lambda: PPM.estimated_level(100), r"tau_prime must lie in the domain \[1, "),
    ("ppm.level_law(nan)", lambda: PPM.level_law(NAN), r"tau contains 1 NaN"),
    ("ppm.perturb_levels([1, 7])", lambda: PPM.perturb_levels([1, 7], RNG), r"tau must lie in the domain \[1, 5\]"),
    ("ppm.server_scale([0])", lambda: PPM.server_scale([0]), r"tau_prime must lie in the domain \[1, "),
    ("ppm.draw(n=-3)", lambda: PPM.draw(-3, 0), r"n must be an integer \[0, "),
    ("ppm.estimate(array)", lambda: PPM.estimate(np.zeros((2, 4))),
     r"reports must be the PersonalisedReports that perturb returns, got ndarray"),
    ("feature_report(level=9)", lambda: feature_report(1.0, level=9), r"level must be an integer \[1, 5\], got 9"),
    ("feature_report(eps='1')", lambda: feature_report("1"), r"eps must be a real number in \(0, 700\]"),
    ("MaxOfAccepted.law(0)", lambda: MaxOfAccepted(1.0, 5).law(0), r"v must be an integer \[1, 5\], got 0"),
    ("MaxOfAccepted.perturb(2.5)", lambda: MaxOfAccepted(1.0, 5).perturb([2.5], RNG),
     r"v must hold integer categories in \[1, 5\]"),
    # the public helpers of the Gaussian calibration and the sampled composition
    ("privacy_profile(sigma=0)", lambda: privacy_profile(1.0, 0.0, 2.0),
     r"sigma must be a positive finite number, got 0.0"),
    ("analytic_sigma(delta=1.5)", lambda: analytic_sigma(1.0, 1.5, 2.0), r"delta must be a real number in \(0, 1\)"),
    ("classical_sigma(sensitivity=nan)", lambda: classical_sigma(0.5, 1e-5, NAN), r"sensitivity must be a positive"),
    ("sample_subsets(k > d)", lambda: sample_subsets(5, 3, 4, RNG), r"k must be an integer \[1, 3\], got 4"),
    ("sample_subsets(n=-1)", lambda: sample_subsets(-1, 3, 2, RNG), r"n must be an integer \[0, "),
]


@pytest.mark.parametrize("call,pattern", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_a_bad_input_is_a_value_error_naming_the_parameter(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()


def test_valid_inputs_give_the_same_numbers_as_the_formulas():
    """The checks change no valid result: moments on arrays of any shape, at both ends of the domain."""
    hds, grr, oue = make("hds", eps=1), make("grr", eps=1, c=4), make("oue", eps=1, k=8)
    x = np.array([[-1.0, 0.0], [0.5, 1.0]])
    assert hds.estimate_var(x).shape == (2, 2) and np.all(hds.estimate_var(x) > 0)
    assert np.allclose(make("laplace", eps=2).report_var(x), 2.0)
    assert grr.report_mean([0, 3]).shape == (2,) and oue.estimate_mean([0, 7]).shape == (2, 8)
    assert float(make("one_bit", eps=1).prob_plus(1.0)) + float(make("one_bit", eps=1).prob_minus(1.0)) == \
        pytest.approx(1.0)
    assert PPM.budget([1, 5]).tolist() == [1.0, 16.0]
