"""PPM as the authors' code releases it (helongzhu/ID100 mechanisms.py:7-176): its level and count reports, its
sampled count, its server rescaling, and ``verify`` finding it not LDP while the spec's fixed-level PPM passes."""
import math

import numpy as np
import pytest

from ldp_audit.audits.verify.orchestrator import AuditSettings, verify
from ldp_audit.mechanisms.constants import coth_half
from ldp_audit.mechanisms.personalised import MaxOfAccepted, PersonalisedMechanism as PPM, feature_report

SETTINGS = AuditSettings(samples=20_000, seed=5)


@pytest.mark.parametrize("eps", [1e-6, 0.01, 0.25, 1.0, 4.0, 50.0])
def test_the_released_window_is_empty_and_the_report_never_falls_below_the_level(eps):
    report = MaxOfAccepted(eps, 5)
    assert report.half_width == 0
    for v in range(1, 6):
        law = report.law(v)
        assert law.values.min() == v and law.probs.sum() == pytest.approx(1.0)
    draws = report.perturb(np.full(100_000, 2), np.random.default_rng(1))
    assert draws.min() >= 2
    empirical = np.bincount(draws, minlength=6)[2:] / draws.size
    assert np.allclose(empirical, report.law(2).probs, atol=0.006)


def test_a_report_of_one_is_possible_at_level_one_only():
    ppm = PPM(1.0, 8, mode="released")
    assert ppm.level_law(1).probs[0] > 0 and all(ppm.level_law(t).values.min() == t for t in ppm.levels)


def test_budgets_counts_and_the_count_domain_follow_the_released_code():
    ppm = PPM(1.0, 1433, mode="released")
    for t in ppm.levels:  # gamma/2 to the level, gamma/2 to the count, 1 - gamma to the features
        assert 2 * ppm.level_budget(t) + ppm.feature_budget(t) == pytest.approx(2.0 ** (t - 1))
    assert [ppm.sampled_count(t) for t in ppm.levels] == [1, 1, 1, 1, 3]  # floor(eps_2 / 2.18), at least 1
    assert ppm.count_domain == 7  # floor(16 / 2.18)
    assert ppm.joint_eps() == math.inf


def test_every_user_samples_the_largest_reported_count_and_is_rescaled_with_its_reports():
    ppm, rng = PPM(1.0, 50, mode="released"), np.random.default_rng(3)
    tau = rng.integers(1, 6, size=400)
    reports = ppm.perturb(np.zeros((400, 50)), tau, rng)
    assert np.all(reports.levels >= tau) and np.all(reports.counts >= [ppm.sampled_count(t) for t in tau])
    assert np.all((reports.features != 0).sum(axis=1) == reports.counts.max())
    estimate = ppm.estimate(reports)
    expected = [(50 / m) * coth_half(ppm.feature_budget(t) / m) for t, m in zip(reports.levels, reports.counts)]
    assert np.allclose(np.abs(estimate).max(axis=1), expected)


def test_the_server_shrinks_a_report_whose_level_was_reported_too_high():
    ppm = PPM(1.0, 8, mode="released")
    honest, inflated = ppm.feature_mechanism(1, 1, 1, 3), ppm.feature_mechanism(1, 3, 1, 3)
    assert inflated.estimate_scale < honest.estimate_scale
    assert float(inflated.estimate_mean(np.full(1, 0.5))[0]) < 0.5 * (3 / 8) * 8  # biased towards 0


def test_the_same_seed_gives_other_reports_under_the_released_mode():
    x, tau = np.full((200, 8), 0.3), np.random.default_rng(0).integers(1, 6, size=200)
    paper = PPM(1.0, 8).perturb(x, tau, np.random.default_rng(7))
    released = PPM(1.0, 8, mode="released").perturb(x, tau, np.random.default_rng(7))
    assert not np.array_equal(paper.levels, released.levels)
    assert not np.array_equal(paper.features, released.features)


def _status(report, name):
    return next(r for r in report.results if r.name == name)


def test_verify_finds_the_released_feature_report_not_ldp():
    report = verify(feature_report(eps=1.0, mode="released"), SETTINGS, checks="privacy")
    white, black = _status(report, "privacy.whitebox"), _status(report, "privacy.blackbox")
    assert not report.passed
    assert white.statistic == pytest.approx(8.0)  # min(d = 8, H = 14) coordinates at eps_2 / m' = 1 each
    assert black.statistic > 1.0  # a measured lower bound above the claim


@pytest.mark.parametrize("mode", ["paper", "corrected"])
def test_verify_passes_the_spec_fixed_level_feature_report(mode):
    report = verify(feature_report(eps=1.0, mode=mode), SETTINGS, checks="privacy")
    assert report.passed, [(r.name, r.explanation) for r in report.failures()]


def test_a_released_user_whose_count_is_the_largest_stays_within_its_budget():
    """The mutant check of the finding: with m' = M the released report spends exactly eps_2."""
    mechanism = feature_report(eps=1.0, mode="released", m_reported=8, sampled=8)
    assert verify(mechanism, SETTINGS, checks="privacy").passed


def test_verify_cli_reads_a_factory_that_returns_a_builtin_sampled_mechanism(capsys):
    from ldp_audit.external import load_external

    mechanism = load_external("ldp_audit.mechanisms.personalised:feature_report", 1.0, {"mode": "released"})
    assert mechanism.name == "ppm_released" and mechanism.sampling.k == 8


@pytest.mark.parametrize("mode, code", [("released", 1), ("paper", 0)])
def test_the_verify_command_fails_the_released_report_and_passes_the_specs(mode, code, capsys):
    from ldp_audit.cli import main

    argv = ["verify", "ldp_audit.mechanisms.personalised:feature_report", "--eps", "1", "--param", f"mode={mode}",
            "--samples", "20000", "--checks", "privacy", "--json"]
    assert main(argv) == code
    capsys.readouterr()


def test_report_groups_split_users_by_level_report_and_count_and_sample_the_largest_count():
    ppm, rng = PPM(1.0, 50, mode="released"), np.random.default_rng(4)
    tau = rng.integers(1, 6, size=300)
    tau_prime, counts = ppm.perturb_levels(tau, rng), ppm.perturb_counts(tau, rng)
    groups = list(ppm.report_groups(tau, tau_prime, counts))
    seen = np.concatenate([idx for idx, _ in groups])
    assert np.array_equal(np.sort(seen), np.arange(300))  # every user in exactly one group
    keys = [(tau[idx[0]], tau_prime[idx[0]], counts[idx[0]]) for idx, _ in groups]
    assert keys == sorted(set(keys))  # one group per distinct (tau, tau', m'), in increasing order
    for idx, user in groups:
        assert len({(tau[i], tau_prime[i], counts[i]) for i in idx}) == 1
        assert user.k == min(50, counts.max())  # every user samples max(m')


def test_the_training_stage_draws_released_reports_through_the_mechanisms_groups(monkeypatch):
    """One grouping of released users (tau, tau', m'), the mechanism's: the stage's features go through it."""
    from ldp_audit.models.training import RunConfig
    from ldp_audit.models.training.stages import PersonalisedFeatures
    from ldp_audit.seeding import rng_for

    class Graph:
        num_nodes = 60

        @staticmethod
        def normalized_features(clip):
            return np.random.default_rng(0).uniform(-1, 1, size=(60, 12))

    calls = []
    original = PPM.report_groups

    def spy(self, *args):
        calls.append(self.mode)
        yield from original(self, *args)

    monkeypatch.setattr(PPM, "report_groups", spy)
    config = RunConfig("cora", mechanism="ppm", eps_x=1.0, k_x=2, seed=1, m="ppgnn", ppm_variant="released")
    estimate = PersonalisedFeatures().node_features(Graph(), config, rng_for(1, 1))
    assert calls == ["released"] and estimate.shape == (60, 12) and np.any(estimate != 0)
