"""The search's pilots run once per audit (issue 21 item 5, issue 23 item 3): the progress bar's total is what the
plans announce before their first draw (``sampling.Announce``, ``verify(..., planned=...)``), not a second pilot."""
from __future__ import annotations

import numpy as np

from ldp_audit.audits.privacy.search import PAIR_PILOT
from ldp_audit.audits.verify.orchestrator import AuditSettings, verify
from ldp_audit.external import as_mechanism


class CountingRR:
    """k-ary randomized response on 0..7 (more categories than the fixed contrast points: the pair pilot runs),
    counting its calls per (input, n)."""

    def __init__(self):
        self.calls = {}

    def __call__(self, x, n, rng):
        self.calls[(x, n)] = self.calls.get((x, n), 0) + 1
        keep = rng.random(n) < np.e / (np.e + 7)
        return np.where(keep, x, (x + rng.integers(1, 8, n)) % 8)


def test_the_pair_pilot_runs_once_and_the_planned_total_is_what_was_drawn():
    sampler = CountingRR()
    mechanism = as_mechanism(sampler, eps=1.0, domain=list(range(8)))
    drawn, planned = [], []
    report = verify(mechanism, AuditSettings(samples=5_000, seed=3), progress=drawn.append, checks="privacy",
                    planned=planned.append)
    assert report.passed and len(planned) == 1 and sum(drawn) == planned[0]
    pilot_only = [x for x in mechanism.pilot_inputs if x not in mechanism.privacy_inputs]
    assert pilot_only and all(sampler.calls[(int(x), PAIR_PILOT)] == 1 for x in pilot_only)


def test_verify_command_runs_the_pair_pilot_once(tmp_path, monkeypatch):
    import importlib

    from ldp_audit.cli import main

    (tmp_path / "counting_rr.py").write_text(
        "import numpy as np\nCALLS = {}\n"
        "def make(eps):\n"
        "    def sample(x, n, rng):\n"
        "        CALLS[(x, n)] = CALLS.get((x, n), 0) + 1\n"
        "        return np.where(rng.random(n) < np.exp(eps) / (np.exp(eps) + 7), x, (x + rng.integers(1, 8, n)) % 8)\n"
        "    return {'sample': sample, 'eps': eps, 'domain': list(range(8))}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["verify", "counting_rr:make", "--eps", "1", "--samples", "5000", "--checks", "privacy"]) == 0
    calls = importlib.import_module("counting_rr").CALLS
    assert calls[(1, PAIR_PILOT)] == 1 and calls[(3, PAIR_PILOT)] == 1  # 1 and 3: pair-pilot inputs only


def test_every_pilot_runs_once_and_the_bar_is_sized_before_the_first_draw():
    """The plans announce their draws (sampling.Announce): the total reaches the bar before any chunk is drawn,
    and no pilot (pair pilot, the search's probe, its per-input pilots) is run a second time to size it."""
    from ldp_audit.audits.privacy.search import PILOT

    sampler = CountingRR()
    mechanism = as_mechanism(sampler, eps=1.0, domain=list(range(8)))
    samples = 10_000  # a search pilot of 2,500 draws: no other call draws that many
    events = []
    verify(mechanism, AuditSettings(samples=samples, seed=4), checks="privacy",
           progress=lambda draws: events.append(("drawn", draws)), planned=lambda total: events.append(("planned", total)))
    assert events[0][0] == "planned" and [kind for kind, _ in events].count("planned") == 1
    assert events[0][1] == sum(draws for kind, draws in events if kind == "drawn")
    pilot = min(PILOT, samples // 4)
    inputs = {x for (x, n) in sampler.calls if n == samples - pilot}  # every input the search counts on
    assert len(inputs) >= 2 and events[0][1] == samples * len(inputs)
    assert all(sampler.calls[(x, pilot)] == 1 for x in inputs)  # one search pilot per input
    assert sum(count for (x, n), count in sampler.calls.items() if n == 64) == 1  # one probe
