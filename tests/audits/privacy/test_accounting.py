"""Accountant agreement (opacus, dp-accounting, scipy quadrature), conversions, Theorem 4 and the CLI."""
import numpy as np
import pytest

from ldp_audit import accounting as rdpmath
from ldp_audit.audits.privacy import accountants as acc
from ldp_audit.papers import se_privgemb as paper

pytest.importorskip("opacus")
pytest.importorskip("dp_accounting")


def test_opacus_vector_three_way():
    result = acc.account(0.04, 1.5, 2250, 1e-5, "poisson", "both")
    by_source = {r.source + r.method: r for r in result.rows}
    assert by_source["opacusRDP, Poisson"].eps["improved"] == pytest.approx(7.32911117143, abs=1e-10)
    assert by_source["scipy quadratureRDP, Poisson (numerical)"].eps["improved"] == pytest.approx(7.32911117143,
                                                                                                    rel=1e-8)
    assert all(c.passed for c in result.checks), [c for c in result.checks if not c.passed]


def test_tf_privacy_vector_order_19():
    q, steps = 150 / 60000, 15 * 60000 // 150
    result = acc.account(q, 1.3, steps, 1e-5, "poisson", "improved")
    for row in result.rows[:3]:
        assert row.eps["improved"] == pytest.approx(0.7242234026109595, rel=1e-9)
        assert row.order["improved"] == 19.0
    assert all(c.passed for c in result.checks)


@pytest.mark.parametrize("q,sigma,steps", [(0.04, 1.5, 2250), (128 / 6594, 5.0, 200), (0.3, 0.8, 10)])
def test_classic_never_below_improved(q, sigma, steps):
    orders = rdpmath.default_orders("poisson")
    rdp = rdpmath.rdp_opacus(q, sigma, orders) * steps
    for delta in (1e-3, 1e-5, 1e-9):
        assert rdpmath.eps_from_rdp(orders, rdp, delta, "classic")[0] >= rdpmath.eps_from_rdp(orders, rdp, delta)[0]


def test_numeric_gaussian_rdp_exact():
    # C9: D_alpha(N(1, s^2) || N(0, s^2)) = alpha / (2 s^2)
    for alpha in (1.5, 2.0, 8.0, 32.0):
        got = rdpmath.renyi_divergence_mixtures(alpha, 2.0, [1.0], [1.0], [1.0], [0.0])
        assert got == pytest.approx(alpha / 8.0, rel=1e-8)


def test_poisson_vs_without_replacement_same_parameters():
    q, sigma, steps = 128 / 6594, 5.0, 200
    orders = np.arange(2, 65)
    poisson = rdpmath.rdp_dp_accounting(q, sigma, orders, "poisson", steps)
    wor = rdpmath.rdp_dp_accounting(q, sigma, orders, "without-replacement", steps)
    literal = paper.theorem4_subsampled_rdp(q, sigma, orders) * steps
    # replace-one WOR costs more than add/remove Poisson; Theorem 4 is looser still, equal at order 2
    assert np.all(wor > poisson) and np.all(literal >= wor - 1e-12)
    assert literal[0] == pytest.approx(wor[0], rel=1e-9)
    # spec Table A1 (Power): literal 0.9408 at order 21; dp-accounting WOR 0.4348
    assert paper.theorem1_epsilon(paper.theorem4_subsampled_rdp(q, sigma, np.arange(2, 513)) * steps,
                                  np.arange(2, 513), 1e-5) == pytest.approx((0.9408, 21.0), abs=1e-4)
    assert rdpmath.eps_from_rdp(orders, wor, 1e-5)[0] == pytest.approx(0.4348, abs=1e-4)


def test_without_replacement_report_and_mutant():
    result = acc.account(128 / 6594, 5.0, 200, 1e-5, "without-replacement", "both", orders=range(2, 65))
    assert all(c.passed for c in result.checks)
    # a broken accountant (Poisson formula on the WOR sampler) sits below the numerically exact divergence of
    # the replace-one pair (1, -1): the soundness comparison must notice it
    orders = np.array([8.0, 16.0, 32.0])
    poisson = rdpmath.rdp_opacus(0.1, 2.5, orders)
    pair = rdpmath.rdp_numeric_pair(0.1, 2.5, orders, 1.0, -1.0)
    assert np.any(pair > poisson)


def test_disagreement_is_a_fail(monkeypatch):
    real = rdpmath.rdp_numeric_poisson
    monkeypatch.setattr(acc, "rdp_numeric_poisson", lambda q, s, o: real(q, s, o) * 1.001)
    result = acc.account(0.04, 1.5, 100, 1e-5, orders=[2, 4, 8, 16])
    assert not next(c for c in result.checks if c.name == "account.rdp-agreement").passed


def test_epsilon_curve_matches_pointwise():
    orders = rdpmath.default_orders("poisson")
    step = rdpmath.rdp_opacus(0.01, 1.1, orders)
    curve = rdpmath.epsilon_curve(step, orders, 1e-5, [1, 10, 100])
    for T, eps in zip([1, 10, 100], curve):
        assert eps == pytest.approx(rdpmath.eps_from_rdp(orders, step * T, 1e-5)[0], rel=1e-12)
    assert np.all(np.diff(curve) > 0)


@pytest.mark.parametrize("kwargs,word", [
    (dict(q=0.0), "q"), (dict(q=1.5), "q"), (dict(sigma=0.0), "sigma"), (dict(sigma=-1.0), "sigma"),
    (dict(delta=0.0), "delta"), (dict(delta=1.0), "delta"), (dict(steps=0), "steps"),
    (dict(orders=[0.5, 2]), "orders"), (dict(sampling="with-replacement"), "sampling"),
])
def test_bad_input(kwargs, word):
    args = dict(q=0.01, sigma=1.0, steps=10, delta=1e-5, sampling="poisson")
    args.update(kwargs)
    with pytest.raises(ValueError, match=word):
        acc.account(**args)


def test_cli_account(capsys):
    import json

    from ldp_audit.cli import main

    code = main(["account", "--q", "0.04", "--sigma", "1.5", "--steps", "2250", "--delta", "1e-5",
                 "--orders", "2,3,3.9,4,8,16", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["verdict"] == "pass"
    sources = {a["source"]: a for a in report["subject"]["accountants"]}
    assert {"opacus", "dp-accounting", "scipy quadrature"} <= set(sources)
    assert sources["opacus"]["eps"]["improved"] == pytest.approx(7.32911117143, abs=1e-10)
    assert main(["account", "--q", "0.1", "--sigma", "1", "--steps", "3", "--delta", "1e-5"]) == 0
    assert "quadrature" in capsys.readouterr().out
    assert main(["account", "--q", "1.5", "--sigma", "1", "--steps", "3", "--delta", "1e-5"]) == 2


def test_the_pld_eps_is_printed_to_its_grid_and_kept_whole_in_json(capsys):
    """A PLD's digits past its 1e-4 loss grid are FFT rounding that differs by CPU (issue 43): the table shows
    the grid's decimals, JSON the full value with the grid as its resolution; RDP rows keep 10 digits."""
    import json

    from ldp_audit.cli import main

    argv = ["account", "--q", "0.04", "--sigma", "1.5", "--steps", "2250", "--delta", "1e-5"]
    assert main(argv + ["--json"]) == 0
    pld = next(a for a in json.loads(capsys.readouterr().out)["subject"]["accountants"]
               if a["method"].startswith("PLD"))
    assert pld["resolution"] == 1e-4 and pld["eps"]["improved"] == pytest.approx(6.7687873, abs=1e-6)
    assert main(argv) == 0
    table = capsys.readouterr().out
    assert "6.7688 " in table and "6.76878" not in table and "7.329111171" in table
