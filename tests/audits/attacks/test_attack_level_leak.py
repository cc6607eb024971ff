"""The PPGNN level leak (ppgnn C10-C11, E4-E5): the paper's mode must FAIL (it leaks), the corrected mode PASS."""
import numpy as np
import pytest

from ldp_audit.audits.attacks.bayes import bayes_accuracy, ldp_ceiling
from ldp_audit.audits.attacks.level_leak import exact_accuracies, level_leak_attack
from ldp_audit.audits.kernel.result import Status
from ldp_audit.mechanisms.personalised import PersonalisedMechanism as PPM


def test_exact_numbers_of_E4():
    paper, fixed = exact_accuracies(PPM(1.0, 64)), exact_accuracies(PPM(1.0, 64, mode="corrected"))
    assert paper["tau_prime"] == pytest.approx(0.6421, abs=5e-5)
    assert fixed["tau_prime"] == pytest.approx(0.2580, abs=5e-5)
    assert ldp_ceiling(0.5, 5) == pytest.approx(0.2919, abs=5e-5)
    assert paper["magnitude"] == 1.0 and fixed["magnitude"] == pytest.approx(fixed["tau_prime"])
    assert fixed["joint"] <= ldp_ceiling(0.5 + 0.5 * 16, 5)


def test_level_from_tau_prime_by_direct_enumeration():
    ppm = PPM(0.1, 16)
    outputs = np.arange(1, 5 + 2 * max(ppm.level_mechanism(t).half_width for t in ppm.levels) + 1)
    lik = [ppm.level_law(int(t)).atom_mass(outputs.astype(float)) for t in ppm.levels]
    assert np.allclose(np.sum(lik, axis=1), 1.0)
    # levels 1-3 have b = 2 (outputs up to 9), levels 4-5 b = 1: outputs 8, 9 prove tau <= 3 (E4)
    assert all(l[7] > 0 for l in lik[:3]) and all(l[7] == 0 for l in lik[3:])
    assert exact_accuracies(ppm)["tau_prime"] == pytest.approx(bayes_accuracy(lik))


def test_paper_mode_fails_and_corrected_mode_passes():
    paper = {r.name: r for r in level_leak_attack(PPM(1.0, 32), samples=20_000, seed=6)}
    assert all(r.status is Status.FAIL for r in paper.values())
    assert paper["attack.level-leak.magnitude"].statistic == 1.0
    fixed = level_leak_attack(PPM(1.0, 32, mode="corrected"), samples=20_000, seed=6)
    assert all(r.status is Status.PASS for r in fixed)


def test_needs_a_personalised_mechanism():
    from ldp_audit.mechanisms import make

    with pytest.raises(ValueError, match="PersonalisedMechanism"):
        level_leak_attack(make("mlr", eps=1.0, d=4))
