"""CI tests of the mechanisms in my_mech.py, written as a user would write them.

Run from the repository root with ``pytest examples/`` (the ldp-audit pytest plugin is active once ldp-audit is
installed). Every assertion goes through the ``ldp_auditor`` fixture, so ``--ldp-audit-samples``,
``--ldp-audit-seed`` and ``--ldp-audit-confidence`` apply and the whole session's false-alarm rate stays at or
below 1 - confidence.
"""
import pytest

from examples.my_mech import make

MECHANISMS = [("krr", {"k": 4}), ("krr", {"k": 2}), ("bounded_laplace", {"bound": 3.0})]


@pytest.mark.parametrize("kind,params", MECHANISMS, ids=[f"{k}-{p}" for k, p in MECHANISMS])
def test_keeps_its_privacy_promise(ldp_auditor, kind, params):
    ldp_auditor.assert_ldp(make(1.0, mechanism=kind, **params), eps=1.0)


def test_rating_estimator_is_unbiased_with_the_stated_variance(ldp_auditor):
    mech = make(1.0, mechanism="krr", k=5)
    ldp_auditor.assert_moments(mech, mean=lambda x: x, var=mech.estimate_var, of="estimate")


def test_bounded_laplace_report_moments(ldp_auditor):
    ldp_auditor.assert_moments(make(2.0, mechanism="bounded_laplace"))
