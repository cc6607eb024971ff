"""Exact checks of a sampler's contract, run before any statistics (they cost no false alarms).

* ``sanity.shape``: ``sample(x, n, rng)`` returns n reports of one shape at every probe input (numbers, vectors,
  sparse rows, tuples or dicts of arrays, report objects; see :mod:`ldp_audit.audits.privacy.reports`), and the declared
  ``supports`` / ``key`` return one boolean / integer per report. A failure is a protocol error (``verify``
  exits 2), not a privacy finding;
* ``sanity.finite``: no NaN or infinite number in a report;
* ``sanity.support``: every report lies in the declared output support (when one is declared);
* ``sanity.declarations`` (WARN, only when there are some): what the mechanism declared that no audit reads (a
  law shadowed by another, a cdf without its pdf, an estimator's moments without the estimator);
* ``sanity.determinism``: the reports are a function of the ``rng`` argument alone: the same seed gives the
  same reports whatever the global ``numpy`` and ``random`` states, and another seed gives other reports
  (unless the output is constant). Two findings differ in kind:

  - a sampler that *ignores* its rng (two seeds, identical random reports) hands every user the same noise:
    always a FAIL, a finding about the mechanism (``verify`` exits 1, as for any failed check);
  - a sampler that draws from a generator of its own (OpenDP, python-dp: secure, unseedable) gives other
    reports for the same seed. Every statistical check stays valid on such fresh draws, so by default the row is
    a WARN (numbers differ run to run) and the verdict follows the statistical rows; with ``require_seeded``
    it is a FAIL, which ``verify`` maps to its own exit code (3): nothing in the report can be reproduced.
"""
from __future__ import annotations

import random

import numpy as np

from ..privacy.reports import ReportFormat, as_rows
from ..kernel.result import CheckResult, Status
from ..kernel.sampling import rng_for
from ... import streams

#: Reports drawn per probe input by the sanity checks.
SANITY_DRAWS = 2000


def _show(x) -> str:
    x = np.asarray(x)
    return np.array2string(x, precision=4, threshold=8) if x.ndim else f"{x.item()!r}"


def _draw(mechanism, x, seed: int, index: int, fmt: ReportFormat):
    return as_rows(mechanism.sample(x, SANITY_DRAWS, rng_for(seed, *streams.SANITY.key(), index)), SANITY_DRAWS, fmt)


def _failure(x, exc: BaseException) -> str:
    """What failed while drawing reports of x: a ValueError says itself which call failed and how (a user's method,
    the reports' shape, a malformed support test or key); any other error is the sampler's own."""
    if isinstance(exc, ValueError):
        return f"at input {_show(x)}: {exc}"
    return f"sample({_show(x)}, {SANITY_DRAWS}, rng) failed: {type(exc).__name__}: {exc}"


def sanity_checks(mechanism, seed: int, require_seeded: bool = False) -> tuple[list[CheckResult], bool]:
    """The sampler's contract at ``mechanism.privacy_inputs``; returns the rows and whether statistics may run
    (``require_seeded``: a sampler not reproducible from its seed FAILs instead of getting a WARN)."""
    ref, n = mechanism.reference, SANITY_DRAWS
    probes = list(mechanism.privacy_inputs)
    rows, problems = [], []
    fmt = ReportFormat.of(mechanism, probes)  # the declared supports / key are called here first, and checked
    for i, x in enumerate(probes):
        try:
            rows.append(_draw(mechanism, x, seed, i, fmt))
        except (Exception, SystemExit) as exc:  # the mechanism's code failed: report it, do not crash the audit
            problems.append(_failure(x, exc))
            break
    if not problems and len({r.width for r in rows}) > 1:
        problems.append(f"sample(x, n, rng) returned reports of different widths at different inputs: "
                        f"{sorted({r.width for r in rows})} numbers (a report's shape must not depend on x)")
    if not problems and rows[0].width == 0:  # nothing to audit: an empty report would pass every check
        problems.append("sample(x, n, rng) returned reports of 0 numbers (an array of shape (n, 0)); a report "
                        "holds at least one number")
    results = [CheckResult(
        "sanity.shape", f"{ref}: sample(x, n, rng) returns n reports of one shape",
        Status.FAIL if problems else Status.PASS, n=n * len(probes), seed=seed,
        explanation="; ".join(problems) if problems else
        f"{n} reports of {rows[0].width} number(s) each at {len(probes)} inputs")]
    if problems:
        return results, False
    bad = sum(int(np.count_nonzero(~np.isfinite(r.values))) for r in rows)
    results.append(CheckResult(
        "sanity.finite", f"{ref}: every report is finite", Status.FAIL if bad else Status.PASS, float(bad),
        "non-finite", threshold=0.0, n=n * len(probes), seed=seed,
        explanation=f"sample(x, n, rng) returned {bad} NaN or infinite report entries" if bad else
        "every report is finite"))
    support = mechanism.output_support
    if support is not None:
        outside = sum(int(np.count_nonzero(~support.contains(r.values))) for r in rows)
        results.append(CheckResult(
            "sanity.support", f"{ref}: reports stay in the declared support {support.describe()}",
            Status.FAIL if outside else Status.PASS, float(outside), "outside", threshold=0.0, n=n * len(probes),
            seed=seed, explanation=(f"{outside} report(s) outside {support.describe()}" if outside
                                    else f"every report lies in {support.describe()}")))
    results.append(determinism_check(mechanism, probes[0], rows[0], seed, require_seeded, fmt))
    if mechanism.unused_claims:
        results.append(CheckResult(
            "sanity.declarations", f"{ref}: every declared claim is audited", Status.WARN,
            explanation="declared, but no audit reads it: " + "; ".join(mechanism.unused_claims)))
    return results, not bad


def determinism_check(mechanism, x, first, seed: int, require_seeded: bool = False,
                      fmt: ReportFormat | None = None) -> CheckResult:
    """Same seed -> same reports whatever the global RNG states; another seed -> other reports (if random).
    Not reproducible: WARN, or FAIL with ``require_seeded``; ignoring the rng: always FAIL."""
    saved_np, saved_py = np.random.get_state(), random.getstate()
    try:
        np.random.seed(12345)
        random.seed(12345)
        again = _draw(mechanism, x, seed, 0, fmt)
        np.random.seed(54321)
        random.seed(54321)
        third = _draw(mechanism, x, seed, 0, fmt)
        other = _draw(mechanism, x, seed + 1, 0, fmt)
    finally:
        np.random.set_state(saved_np)
        random.setstate(saved_py)
    same = np.array_equal(first.values, again.values, equal_nan=True) and \
        np.array_equal(first.values, third.values, equal_nan=True)
    values = np.asarray(first.values, dtype=float)
    random_output = not np.all((values == values[0]) | (np.isnan(values) & np.isnan(values[0])))  # NaN equals NaN
    ignores_rng = random_output and np.array_equal(first.values, other.values, equal_nan=True)
    status = Status.PASS
    if not same:
        status = Status.FAIL if require_seeded else Status.WARN
        finding = ("not reproducible from its seed: the same seed gave different reports, so the sampler draws from "
                   "a global or hidden random state (e.g. its own secure generator) instead of its rng argument; "
                   + ("--require-seeded makes this a failure" if require_seeded else
                      "every statistical row is valid on these fresh draws, but its numbers will differ run to run"))
    elif ignores_rng:
        status = Status.FAIL
        finding = ("two different seeds gave identical random reports: the sampler ignores its rng (a fixed "
                   "internal seed gives every user the same noise)")
    else:
        finding = "reports depend on the rng argument alone (same seed, same reports; other seed, other reports)"
    return CheckResult("sanity.determinism", f"{mechanism.reference}: reproducible given the seed", status,
                       n=3 * SANITY_DRAWS, seed=seed, explanation=finding, details={"reproducible": same})
