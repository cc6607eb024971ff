"""``AuditSettings`` and ``verify`` from Python apply the CLI's caps and memory estimate (issue 43, item 3): the
same objects in ``mechanisms/validation.py``, so a setting the CLI refuses is refused here too, by its Python
name and before any draw (``verify(make('hds', eps=1, d=...))`` used to end in a MemoryError)."""
from __future__ import annotations

import pytest

from ldp_audit.audits.verify.orchestrator import AuditSettings, verify
from ldp_audit.mechanisms import make
from ldp_audit.mechanisms import validation

SETTINGS = [
    ("samples=10**15", {"samples": 10 ** 15}, r"samples must be an integer \[1000, 1000000000000\]"),
    ("samples=999", {"samples": 999}, r"samples must be an integer \[1000, "),
    ("samples='1e6'", {"samples": "1e6"}, r"samples must be an integer .* got '1e6'"),
    ("seed=2**64", {"seed": 2 ** 64}, r"seed must be an integer \[0, 9223372036854775807\]"),
    ("seed='x'", {"seed": "x"}, r"seed must be an integer .* got 'x'"),
    ("workers=65", {"workers": 65}, r"workers must be an integer \[1, 64\], got 65"),
    ("alpha=0", {"alpha": 0.0}, r"alpha \(1 - confidence\) must be a real number in \(0, 1\)"),
    ("alpha=nan", {"alpha": float("nan")}, r"alpha \(1 - confidence\) must be a real number in \(0, 1\)"),
    ("require_seeded='yes'", {"require_seeded": "yes"}, r"require_seeded must be True or False, got 'yes'"),
]


@pytest.mark.parametrize("fields,pattern", [s[1:] for s in SETTINGS], ids=[s[0] for s in SETTINGS])
def test_a_bad_setting_names_the_field_and_its_range(fields, pattern):
    with pytest.raises(ValueError, match=pattern):
        AuditSettings(**fields)


def test_the_caps_are_the_clis_own_objects():
    from ldp_audit.commands import options, verify as verify_command

    assert options.MAX_COUNT is validation.MAX_COUNT and options.check_memory is validation.check_memory
    assert verify_command.check_report_memory is __import__(
        "ldp_audit.audits.verify.orchestrator", fromlist=["x"]).check_report_memory


@pytest.mark.parametrize("name,params,samples,checks,pattern", [
    ("hds d=1e7", {"d": 10 ** 7}, 10 ** 6, "all", r"^d is too large: 1,000,000 reports of dimension 10,000,000"),
    ("hds d=1e6, privacy only", {"d": 10 ** 6}, 10 ** 6, "privacy", r"^d is too large: .* checks='privacy'"),
    ("laplace 1e12 samples", {}, 10 ** 12, "all", r"^samples is too large: .* GiB"),
], ids=lambda v: v if isinstance(v, str) and " " in v else None)
def test_verify_refuses_reports_that_do_not_fit_before_drawing(name, params, samples, checks, pattern, monkeypatch):
    monkeypatch.setattr(validation, "available_memory", lambda: 16 * 2 ** 30)  # the same verdict on any machine
    mechanism = make(name.split()[0], eps=1.0, **params)
    with pytest.raises(ValueError, match=pattern):
        verify(mechanism, AuditSettings(samples=samples), checks=checks)
