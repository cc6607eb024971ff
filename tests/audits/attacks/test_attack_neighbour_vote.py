"""Neighbour majority vote (ppgnn A9, C18): the star closed form, and real Cora (copied to a tmp cache by the
loader): private methods near guessing PASS, a mechanism that does not split its budget over the d coordinates
FAILs, raw features are an INFO row; every row says LDP does not bound this attack."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

from ldp_audit.audits.attacks.neighbour_vote import NOT_BOUNDED, neighbour_vote_attack, star_vote_accuracy
from ldp_audit.audits.kernel.result import Status
from ldp_audit.mechanisms import make
from ldp_audit.mechanisms.personalised import PersonalisedMechanism
from ldp_audit.mechanisms.sampled import SampledMechanism
from ldp_audit.mechanisms.scalar import OneBit
from ldp_audit.models import data
from ldp_audit.models.reports import column_reports, neighbour_votes


def test_star_closed_form_against_the_vote_on_many_stars():
    assert star_vote_accuracy(5, 10, 1, 1.0) == pytest.approx(0.595399, abs=1e-6)
    stars, leaves, d = 20_000, 5, 10
    n = stars * (leaves + 1)
    centres = np.arange(stars) * (leaves + 1)
    u = np.repeat(centres, leaves)
    v = (u + np.tile(np.arange(1, leaves + 1), stars))
    adjacency = sp.csr_matrix((np.ones(2 * u.size), (np.r_[u, v], np.r_[v, u])), shape=(n, n))
    sign = np.repeat(np.where(np.random.default_rng(0).random(stars) < 0.5, 1.0, -1.0), leaves + 1)
    x = np.zeros((n, d))
    x[:, 0] = sign
    mech = make("multibit", eps=1.0, d=d, k=1, alpha=-1.0, beta=1.0)
    votes = neighbour_votes(adjacency, column_reports(mech, x, [0], np.random.default_rng(1)))[centres, 0]
    coin = np.random.default_rng(2).random(stars) < 0.5
    right = np.where(votes == 0, coin, np.sign(votes) == sign[centres])
    assert stats.binomtest(int(right.sum()), stars, 0.595399).pvalue > 1e-3


@pytest.fixture(scope="module")
def cora(tmp_path_factory):
    return data.load("cora", data.data_dir(), cache=tmp_path_factory.mktemp("cora-cache"))


def test_cora_private_methods_pass_and_a_leaky_one_fails(cora):
    d = cora.num_features
    leaky = SampledMechanism("one_bit_per_coordinate", "mutant: budget not split over d", 2.0, d, d, OneBit(2.0))
    methods = [("raw", None, None), ("multibit", make("multibit", eps=1.0, d=d, alpha=-1.0, beta=1.0), 1.0),
               ("ppm", PersonalisedMechanism(1.0, d), 1.0), ("leaky", leaky, 2.0)]
    rows = {r.name: r for r in neighbour_vote_attack(cora, methods, seed=7)}
    raw = rows["attack.neighbour-vote.raw"]
    assert raw.status is Status.INFO and raw.statistic > 0.6 and raw.details["accuracy"] > 0.75
    assert rows["attack.neighbour-vote.multibit.eps=1"].status is Status.PASS
    assert rows["attack.neighbour-vote.ppm.eps=1"].status is Status.PASS
    assert rows["attack.neighbour-vote.leaky.eps=2"].status is Status.FAIL
    assert all(NOT_BOUNDED in r.explanation for r in rows.values())
