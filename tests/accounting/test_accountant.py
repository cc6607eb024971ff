"""The accounting layer on its own: the one RDP-to-eps conversion and the thin accountant a model receives."""
import numpy as np
import pytest

from ldp_audit.accounting import RdpAccountant, eps_at_orders, eps_from_rdp, epsilon_curve


def test_conversions_agree_with_their_formulas_and_classic_is_never_smaller():
    orders, rdp, delta = np.array([2.0, 8.0, 32.0]), np.array([0.01, 0.05, 0.3]), 1e-5
    classic = rdp + np.log(1 / delta) / (orders - 1)
    improved = rdp + np.log1p(-1 / orders) - (np.log(delta) + np.log(orders)) / (orders - 1)
    assert np.allclose(eps_at_orders(rdp, orders, delta, "classic"), classic)
    assert np.allclose(eps_at_orders(rdp, orders, delta, "improved"), improved)
    assert eps_from_rdp(orders, rdp, delta, "classic")[0] >= eps_from_rdp(orders, rdp, delta, "improved")[0]
    curve = epsilon_curve(rdp, orders, delta, [1, 10, 100])
    assert np.all(np.diff(curve) > 0) and curve[0] == pytest.approx(eps_from_rdp(orders, rdp, delta)[0])


def test_a_nan_order_is_skipped_and_an_all_nan_curve_is_an_error():
    orders = np.array([2.0, 1030.0])
    eps, order = eps_from_rdp(orders, np.array([0.5, np.nan]), 1e-5)
    assert order == 2.0 and eps > 0  # never max(0, nan) = 0
    with pytest.raises(ValueError, match="NaN at every order"):
        eps_from_rdp(orders, np.array([np.nan, np.nan]), 1e-5)


def test_the_accountant_spends_what_its_curve_says():
    pytest.importorskip("opacus")
    accountant = RdpAccountant.named("opacus", conversion="classic")
    eps_100 = accountant.epsilon(0.01, 1.0, 1e-5, 100)
    assert accountant.steps_within(0.01, 1.0, 1e-5, eps_100, 1000) == 100
    with pytest.raises(ValueError, match="accountant"):
        RdpAccountant.named("no-such-source")
    with pytest.raises(ValueError, match="conversion"):
        RdpAccountant("x", lambda q, s, o: o, (2.0,), "sideways")
