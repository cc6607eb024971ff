"""Audits of a user's mechanism: the engine's checks where the user's claims allow them, plus sanity checks.

What runs (every statistical family gets an equal share of ``alpha``; exact checks cost none):

* ``sanity.*`` (exact, always): the sampler returns n numeric reports, all finite, inside the declared output
  support, and is a function of its ``rng`` alone (same seed -> same reports even when the global ``numpy`` and
  ``random`` states differ; different seeds -> different reports unless the output is constant);
* privacy: with a law, the engine's exact white-box ratio audit (or, for delta > 0, the hockey-stick divergence
  of the extreme inputs) and its law-derived black-box audit with the budget-use check; without a law, the
  data-driven search (``privacy.search``) over input pairs — both orders of the domain ends for an interval or a
  box, every ordered pair of up to four categories for a finite set — with Bonferroni over the pairs;
* moments: the engine's mean and variance z-tests against each declared claim, separately for the raw report
  (``moments.report.*``) and for the estimate (``moments.estimate.*``);
* distribution: the engine's chi-square goodness of fit against the law, and the support check.
"""
from __future__ import annotations

import math
import pickle
import random
from dataclasses import replace
from typing import Callable, Iterable

import numpy as np

from ..audits.distribution import distribution_checks
from ..audits.moments import moment_checks
from ..audits.privacy import blackbox_privacy, hockey_stick, search_privacy, whitebox_privacy
from ..audits.result import AuditReport, CheckResult, Status
from ..audits.verify import AuditSettings, verify
from .domains import Box, FiniteSet
from .laws import CoarseFrozenLaw, FrozenLaw
from .protocol import ExternalMechanism, as_mechanism, is_builtin

#: Reports drawn per probe input by the sanity checks.
SANITY_DRAWS = 2000
#: Categories of a finite domain between which the black-box search looks (ordered pairs of them).
SEARCH_CATEGORIES = 4
#: Check groups that ``run_checks`` knows.
GROUPS = ("sanity", "privacy", "moments", "distribution")


# ----- sanity ----------------------------------------------------------------------------------------------------
def _probe_values(mech: ExternalMechanism) -> list:
    dom = mech.input_domain
    if isinstance(dom, Box):
        return [dom.lo, dom.hi, 0.5 * (dom.lo + dom.hi)]
    return [mech.value_of(c) for c in mech.audit_inputs[[0, len(mech.audit_inputs) // 2, -1]]]


def _draw(mech, x, n, seed, stream):
    return np.asarray(mech.sampler(x, n, np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(900, stream)))))


def sanity_checks(mech: ExternalMechanism, seed: int) -> tuple[list[CheckResult], bool]:
    """Exact checks of the sampler's contract; returns the results and whether the statistical audits may run."""
    ref = mech.reference
    probes = _probe_values(mech)
    n = SANITY_DRAWS
    samples, problems = [], []
    for i, x in enumerate(probes):
        try:
            out = _draw(mech, x, n, seed, i)
        except Exception as exc:  # the user's code failed: report it, do not crash the audit
            return [CheckResult("sanity.shape", f"{ref}: sample(x, n, rng) returns n numeric reports", Status.FAIL,
                                explanation=f"sample({_show(x)}, {n}, rng) raised {type(exc).__name__}: {exc}",
                                seed=seed)], False
        samples.append(out)
        if out.ndim == 0 or out.shape[0] != n:
            problems.append(f"sample({_show(x)}, {n}, rng) returned shape {out.shape}, expected first axis {n}")
        elif out.dtype.kind not in "biuf":
            problems.append(f"sample({_show(x)}, {n}, rng) returned dtype {out.dtype}, expected numbers")
        elif mech.scalar and mech.level == "white-box" and out.ndim != 1:
            problems.append(f"a white-box mechanism must return one number per report, got shape {out.shape}")
    if not problems and len({s.shape[1:] for s in samples}) > 1:
        problems.append(f"report shapes differ between inputs: {sorted({s.shape[1:] for s in samples})}")
    shape_ok = not problems
    results = [CheckResult(
        "sanity.shape", f"{ref}: sample(x, n, rng) returns n numeric reports",
        Status.PASS if shape_ok else Status.FAIL, n=n * len(probes), seed=seed,
        explanation=(f"reports of shape (n,{''.join(f' {d},' for d in samples[0].shape[1:])}) at {len(probes)} inputs"
                     .replace(",)", ")") if shape_ok else "; ".join(problems)))]
    if not shape_ok:
        return results, False
    bad = sum(int(np.count_nonzero(~np.isfinite(s.astype(np.float64)))) for s in samples)
    results.append(CheckResult(
        "sanity.finite", f"{ref}: every report is a finite number", Status.FAIL if bad else Status.PASS, float(bad),
        "non-finite", threshold=0.0, n=n * len(probes), seed=seed,
        explanation=f"{bad} NaN or infinite report(s)" if bad else "every report is finite"))
    if mech.output_support is not None:
        outside = sum(int(np.count_nonzero(~mech.output_support.contains(s))) for s in samples)
        results.append(CheckResult(
            "sanity.support", f"{ref}: reports stay in the declared support {mech.output_support.describe()}",
            Status.FAIL if outside else Status.PASS, float(outside), "outside", threshold=0.0, n=n * len(probes),
            seed=seed, explanation=(f"{outside} report(s) outside {mech.output_support.describe()}" if outside
                                    else f"every report lies in {mech.output_support.describe()}")))
    results.append(_determinism(mech, probes[0], samples[0], seed))
    return results, not bad


def _show(x) -> str:
    return np.array2string(np.asarray(x), precision=4) if np.ndim(x) else f"{x:g}" if isinstance(x, float) else repr(x)


def _determinism(mech, x, first, seed) -> CheckResult:
    """Same seed -> same reports whatever the global RNG states; another seed -> other reports (if random)."""
    saved_np, saved_py = np.random.get_state(), random.getstate()
    try:
        np.random.seed(12345)
        random.seed(12345)
        again = _draw(mech, x, first.shape[0], seed, 0)
        np.random.seed(54321)
        random.seed(54321)
        third = _draw(mech, x, first.shape[0], seed, 0)
        other = _draw(mech, x, first.shape[0], seed + 1, 0)
    finally:
        np.random.set_state(saved_np)
        random.setstate(saved_py)
    same = np.array_equal(first, again, equal_nan=True) and np.array_equal(first, third, equal_nan=True)
    random_output = np.unique(first.reshape(first.shape[0], -1), axis=0).shape[0] > 1
    ignores_rng = random_output and np.array_equal(first, other, equal_nan=True)
    if not same:
        finding = ("the same seed gave different reports: the sampler draws from a global or hidden random state "
                   "instead of its rng argument, so audits are not reproducible")
    elif ignores_rng:
        finding = ("two different seeds gave identical random reports: the sampler ignores its rng (a fixed "
                   "internal seed gives every user the same noise)")
    else:
        finding = "reports depend on the rng argument alone (same seed, same reports; other seed, other reports)"
    return CheckResult("sanity.determinism", f"{mech.reference}: reproducible given the seed",
                       Status.PASS if same and not ignores_rng else Status.FAIL, n=3 * first.shape[0], seed=seed,
                       explanation=finding)


# ----- privacy -----------------------------------------------------------------------------------------------------
def _search_pairs(mech: ExternalMechanism) -> list[tuple]:
    dom = mech.input_domain
    if isinstance(dom, Box):
        return [(dom.hi, dom.lo), (dom.lo, dom.hi)]
    if isinstance(dom, FiniteSet):
        lo, hi = mech.domain
        codes = np.unique(np.round(np.linspace(lo, hi, min(SEARCH_CATEGORIES, int(hi - lo) + 1))))
        values = [mech.value_of(c) for c in codes]
        return [(a, b) for a in values for b in values if a != b]
    return [(dom.hi, dom.lo), (dom.lo, dom.hi)]


def search_checks(mech: ExternalMechanism, settings: AuditSettings, alpha: float,
                  progress: Callable[[int], None] | None = None) -> list[CheckResult]:
    """The engine's data-driven black-box search over input pairs; Bonferroni over the pairs; the worst reported."""
    pairs = _search_pairs(mech)
    each = alpha / len(pairs)
    claim = f"{mech.reference}: {mech.eps:g}-LDP" + (f" (delta={mech.delta:g})" if mech.delta else "")
    found = []
    for i, (x1, x0) in enumerate(pairs):
        pair_seed = int(np.random.SeedSequence(settings.seed, spawn_key=(300 + i,)).generate_state(1)[0])
        result = search_privacy(mech.sample, x1, x0, mech.eps, settings.samples, pair_seed, each, claim, mech.delta)
        found.append((result, x1, x0, pair_seed))
        if progress:
            progress(2 * settings.samples)
    result, x1, x0, pair_seed = max(found, key=lambda item: item[0].statistic)
    return [replace(result, alpha=alpha, seed=settings.seed, explanation=(
        f"inputs {_show(x1)} vs {_show(x0)} (worst of {len(pairs)} ordered pairs, Bonferroni): " + result.explanation),
        details={**result.details, "pair_seed": pair_seed, "pairs": len(pairs),
                 "eps_lower_per_pair": {f"{_show(a)} vs {_show(b)}": float(r.statistic) for r, a, b, _ in found}})]


def _delta_check(mech: ExternalMechanism) -> CheckResult:
    """(eps, delta) from the law: the hockey-stick divergence of the domain ends, both orders."""
    lo, hi = mech.domain
    law_lo, law_hi = _coarse(mech.law(lo)), _coarse(mech.law(hi))
    delta = max(hockey_stick(law_hi, law_lo, mech.eps), hockey_stick(law_lo, law_hi, mech.eps))
    ok = delta <= mech.delta * (1.0 + 1e-6)
    return CheckResult("privacy.whitebox", f"{mech.reference}: ({mech.eps:g}, {mech.delta:g})-LDP",
                       Status.PASS if ok else Status.FAIL, delta, "delta(eps)", threshold=mech.delta,
                       explanation=(f"hockey-stick divergence of inputs {lo:g} and {hi:g} at eps={mech.eps:g} is "
                                    f"{delta:.3e} {'<=' if ok else '>'} delta={mech.delta:g}"))


def _coarse(law):
    """The engine integrates the hockey-stick excess piece by piece between breakpoints, and a smooth user law's
    breakpoints are a fine quantile grid kept for the density-ratio search; a coarser grid integrates as exactly
    (``quad`` is adaptive inside each piece) at a fraction of the cost."""
    return CoarseFrozenLaw(law.family, law.loc, law.scale) if isinstance(law, FrozenLaw) else law


class _CoarseView:
    """``mech`` with coarse smooth laws (see ``_coarse``); everything else delegated."""

    def __init__(self, mech):
        self.mech = mech

    delta = 0.0

    def law(self, x):
        return _coarse(self.mech.law(x))

    def __getattr__(self, name):
        if name == "mech":
            raise AttributeError(name)
        return getattr(self.mech, name)


def privacy_checks(mech: ExternalMechanism, settings: AuditSettings, alpha: float, progress=None) -> list[CheckResult]:
    if mech.eps is None:
        raise ValueError(f"{mech.name} declares no eps: a privacy audit needs the claimed eps")
    if not (mech.has_law and mech.scalar):
        return search_checks(mech, settings, alpha, progress)
    results = []
    if mech.delta > 0:
        # the engine's (eps, delta) row assumes additive noise (the law of hi is the law of lo shifted): keep only
        # its law.mass row (asked for with delta 0, the cheap path) and compute delta from the user's two laws
        results = [r for r in whitebox_privacy(_CoarseView(mech)) if r.name == "law.mass"] + [_delta_check(mech)]
    else:
        results = whitebox_privacy(mech)
    return results + blackbox_privacy(mech, settings.samples, settings.seed, alpha, settings.workers, progress)


# ----- moments -----------------------------------------------------------------------------------------------------
class MomentView:
    """The engine's moment face for one declared quantity (raw report or estimate) of a user's mechanism.

    ``moment_checks`` tests ``perturb`` -> ``estimate`` against ``estimate_mean`` / ``estimate_var``; here the
    tested value is the report (``of="report"``) or the user's estimate of it (``of="estimate"``), and a missing
    claim gets a placeholder whose test is then dropped.
    """

    estimate_scale = 1.0
    estimate_shift = 0.0

    def __init__(self, mech: ExternalMechanism, of: str, mean=None, var=None):
        self.mech, self.of = mech, of
        default_mean, default_var = mech.moment_claims.get(of, (None, None))
        self.mean_fn = mean if mean is not None else default_mean
        self.var_fn = var if var is not None else default_var
        self.reference, self.domain, self.audit_inputs = mech.reference, mech.domain, mech.audit_inputs

    def perturb(self, x, rng):
        reports = self.mech.perturb(x, rng)
        return self.mech.estimate(reports) if self.of == "estimate" else reports

    def estimate(self, reports):
        return np.asarray(reports, dtype=np.float64)

    def law(self, x):
        """What ``moment_checks`` asks of a law: whether the tested value takes only two values (its variance is
        then fixed by its mean and not tested on its own). From the declared report law when there is one (any
        function of a two-point report is two-point), else from a pilot sample of the sampler."""
        if self.mech.has_law:
            return self.mech.law(x)
        rng = np.random.default_rng(np.random.SeedSequence(0, spawn_key=(901,)))
        values = np.unique(np.asarray(self.mech.sample(self.mech.value_of(x), SANITY_DRAWS, rng), dtype=np.float64))
        return _PointCount(values)

    def _claimed(self, fn, x, placeholder):
        if fn is None:
            return np.full(np.shape(x), placeholder) if np.ndim(x) else placeholder
        xs = np.asarray(x, dtype=np.float64)
        values = np.array([float(fn(self.mech.value_of(v))) for v in xs.ravel()]).reshape(xs.shape)
        return values if xs.ndim else float(values)

    def estimate_mean(self, x):
        return self._claimed(self.mean_fn, x, 0.0)

    def estimate_var(self, x):
        return self._claimed(self.var_fn, x, 1.0)

    report_mean, report_var = estimate_mean, estimate_var


class _PointCount:
    """The face of a law that moment_checks reads (atoms, continuous_mass), from the distinct values observed."""

    def __init__(self, values: np.ndarray):
        two_point = values.size <= 2
        self.atoms = (values, np.full(values.size, 1.0 / values.size)) if two_point else (np.empty(0), np.empty(0))
        self.continuous_mass = 0.0 if two_point else 1.0


def moment_view_checks(mech: ExternalMechanism, settings: AuditSettings, alpha: float, progress=None,
                       claims: dict | None = None) -> list[CheckResult]:
    """Mean/variance z-tests of each declared quantity; ``claims`` ({of: (mean, var)}) overrides the declared ones."""
    claims = claims if claims is not None else mech.moment_claims
    claims = {of: mv for of, mv in claims.items() if mv[0] is not None or mv[1] is not None}
    if not claims:
        return []
    tests = sum((mv[0] is not None) + (mv[1] is not None) for mv in claims.values())
    results = []
    for j, (of, (mean, var)) in enumerate(sorted(claims.items())):
        view = MomentView(mech, of, mean, var)
        # moment_checks gives each of its two families (mean, variance) half of what it is handed; hand it
        # 2 alpha / tests so that every family kept here gets alpha / tests (the dropped one is not tested)
        rows = moment_checks(view, settings.samples, settings.seed, 2.0 * alpha / tests, settings.workers, progress,
                             stream_base=100 + 25 * j)
        for row in rows:
            family = row.name.split(".")[-1]  # "mean" or "variance"
            if (family == "mean" and mean is None) or (family == "variance" and var is None):
                continue
            results.append(replace(row, name=f"moments.{of}.{family}", alpha=alpha / tests,
                                   claim=f"{mech.reference}: {family} formula of the {of}"))
    return results


# ----- orchestration -------------------------------------------------------------------------------------------------
def run_checks(mech: ExternalMechanism, settings: AuditSettings, progress=None,
               groups: Iterable[str] = GROUPS, moment_claims: dict | None = None) -> list[CheckResult]:
    """The checks of ``groups`` that ``mech``'s declarations allow; alpha split equally over statistical families."""
    groups = set(groups)
    if groups - set(GROUPS):
        raise ValueError(f"unknown check group(s) {sorted(groups - set(GROUPS))}; known: {', '.join(GROUPS)}")
    if settings.workers > 1:
        try:
            pickle.dumps(mech)
        except Exception as exc:
            raise ValueError(f"workers={settings.workers} needs a picklable mechanism (module-level functions and "
                             f"classes, no lambdas or closures); pickling failed: {exc}") from exc
    results, runnable = sanity_checks(mech, settings.seed)
    if not runnable:
        return results
    claims = moment_claims if moment_claims is not None else mech.moment_claims
    families = []
    if "privacy" in groups:
        families.append("privacy")
    if "moments" in groups and any(m is not None or v is not None for m, v in claims.values()):
        families.append("moments")
    if "distribution" in groups and mech.has_law:
        families.append("distribution")
    share = settings.alpha / max(len(families), 1)
    if "privacy" in families:
        results += privacy_checks(mech, settings, share, progress)
    if "moments" in families:
        results += moment_view_checks(mech, settings, share, progress, claims)
    if "distribution" in families:
        results += distribution_checks(mech, settings.samples, settings.seed, share, settings.workers, progress)
    return results


def subject_of(mech: ExternalMechanism) -> dict:
    fixed = {"mechanism": mech.name, "domain": mech.input_domain.describe(), "level": mech.level,
             "reference": mech.reference}
    params = {(f"param.{k}" if k in fixed else k): v for k, v in mech.params().items()}
    return {"mechanism": mech.name, **params, **{k: v for k, v in fixed.items() if k != "mechanism"}}


def settings_of(settings: AuditSettings) -> dict:
    return {"samples": settings.samples, "seed": settings.seed, "alpha": settings.alpha,
            "confidence": 1.0 - settings.alpha, "workers": settings.workers}


def audit_external(mechanism, settings: AuditSettings | None = None,
                   progress: Callable[[int], None] | None = None) -> AuditReport:
    """Every audit that applies to ``mechanism`` (a user's object, an :class:`ExternalMechanism` or a built-in).

    Built-in mechanisms go to :func:`ldp_audit.audits.verify.verify` unchanged; anything else is adapted with
    :func:`as_mechanism` and audited by :func:`run_checks`. The report has the same shape as ``verify``'s.
    """
    s = settings or AuditSettings()
    if is_builtin(mechanism):
        return verify(mechanism, s, progress)
    mech = as_mechanism(mechanism)
    results = run_checks(mech, s, progress)
    return AuditReport.of(f"verify {mech.name}", results, subject=subject_of(mech), settings=settings_of(s))
