"""ldp-ge C19 / E6: HDS's small error is shrinkage; debiased it is of the order of Piecewise."""
from ldp_audit.audits.claims.ldp_ge import _karate_setting, compare_debiased_hds


def test_debiased_hds_is_of_the_order_of_pm_and_zero_beats_hds():
    row = compare_debiased_hds(_karate_setting(), 1.0, 800, seed=3)
    q = row.details
    assert row.status.value == "info"
    assert 0.7 < q["HDS debiased"] / q["PM"] < 1.4
    assert q["HDS"] < q["PM"] / 10 and q["zero estimator"] < q["HDS"]
    assert q["MB"] < q["PM"] < q["LP"]
