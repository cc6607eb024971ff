"""``verify``: the one orchestrator. Every audit that a mechanism's declarations allow, with one family-wise
false-alarm rate.

It reads only the :class:`ldp_audit.mechanisms.base.Auditable` interface, so a built-in and the same mechanism
handed in by a user (adapted by :func:`ldp_audit.external.as_mechanism`) get the same rows. What runs:

* ``sanity.*`` (exact, always): shape, finiteness, declared support, determinism given the seed (a sampler with
  its own unseedable generator gets a WARN row and is audited on fresh draws; ``require_seeded`` makes it a FAIL);
* privacy (``checks`` holds "privacy"): with a law (or an enumerated whole-report law, ``report_law.py``), the
  exact ``law.mass`` and ``privacy.whitebox`` rows; always
  the black-box search on the mechanism's own samples (``privacy.blackbox``), with the law's events added as
  candidates, and ``privacy.budget`` when the law has events of maximal ratio;
* moments ("moments", when the mechanism claims moment formulas): ``moments.mean`` / ``.variance`` /
  ``.covariance``;
* distribution ("distribution", with a law): ``distribution.fit`` / ``.support``, and ``structure.sampling`` for
  sampled mechanisms;
* curve (with "privacy", or alone as "curve", when the mechanism claims delta > 0 or declares ``privacy_curve`` /
  ``gdp_mu``): ``privacy.curve.eps_at_delta``, ``.mu`` and ``.worst``, simultaneous certificates on the privacy
  curve and the trade-off function (``privacy/curves.py``). Part of the privacy audit, but a statistical family of
  its own in the alpha rule below; a pure eps-LDP mechanism that declares neither gets no curve rows;
* float ("float", opt-in: not in "all"): ``float.bits``, a lower bound on eps from events on the bits of float
  reports (binade and granularity, ``privacy/float_bits.py``), for samplers written on doubles.

The alpha rule, stated once: exact checks cost no false alarms; the statistical families that run (privacy,
curve, moments, distribution, float) share ``alpha`` equally, and each splits its share over its own tests with Bonferroni,
so a correct mechanism fails ``verify`` with probability at most ``alpha`` (with ``checks="privacy"`` the
black-box family gets the whole ``alpha`` and no moment or fit report is drawn). All sampling is seeded per chunk
(``sampling.py``), so a report is reproducible from its seed alone, and every family is one sampling plan: all
their streams go to the engine at once (``sampling.run_plans``), the exact white-box rows computed while the
workers sample.
"""
from __future__ import annotations

import pickle
from dataclasses import dataclass
from typing import Callable, Iterable

from .distribution import distribution_plan
from .moments import moment_plan
from ..privacy.black_box import blackbox_plan
from ..privacy.curves import applies as curve_applies, curve_plan
from ..privacy.float_bits import float_bits_plan
from ..privacy.white_box import whitebox_privacy
from ..privacy.report_law import declares_report_law, whitebox_report_law
from ..kernel.result import AuditReport, CheckResult
from ..kernel.sampling import CHUNK, Plan, run_plans
from .sanity import sanity_checks
from ...mechanisms.validation import (MAX_CONFIDENCE, MAX_WORKERS, check_count, check_flag, check_int,
                                      check_memory, check_open_unit, check_seed)

DEFAULT_SAMPLES = 1_000_000
DEFAULT_SEED = 20240601
DEFAULT_ALPHA = 1e-3
#: The check groups ``verify`` knows.
CHECKS = ("privacy", "curve", "moments", "distribution", "float")
#: The groups "all" (and no selection) means: every group but the opt-in float check, which finds the textbook
#: samplers of the papers (and of most code) leaky by construction; "all,float" runs every group.
DEFAULT_CHECKS = ("privacy", "moments", "distribution")


@dataclass(frozen=True)
class AuditSettings:
    """Samples per input, seed, family-wise false-alarm rate alpha (confidence 1 - alpha), worker processes, and
    whether a sampler not reproducible from its seed fails (``require_seeded``) or gets a WARN row."""

    samples: int = DEFAULT_SAMPLES
    seed: int = DEFAULT_SEED
    alpha: float = DEFAULT_ALPHA
    workers: int = 1
    require_seeded: bool = False

    def __post_init__(self):
        object.__setattr__(self, "samples", check_count(self.samples, "samples", 1000))
        object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(self, "alpha", check_false_alarm_rate(self.alpha))
        object.__setattr__(self, "workers", check_int(self.workers, "workers", 1, MAX_WORKERS))
        object.__setattr__(self, "require_seeded", check_flag(self.require_seeded, "require_seeded"))

    def as_dict(self) -> dict:
        return {"samples": self.samples, "seed": self.seed, "alpha": self.alpha, "confidence": 1.0 - self.alpha,
                "workers": self.workers, **({"require_seeded": True} if self.require_seeded else {})}


def check_false_alarm_rate(alpha) -> float:
    """alpha = 1 - confidence in [1e-12, 1), the range of ``check_confidence``: below 1e-12 the confidence would
    not survive rounding, and the tests' thresholds are computed at that precision."""
    alpha = check_open_unit(alpha, "alpha (1 - confidence)")
    if alpha < 1.0 - MAX_CONFIDENCE:
        raise ValueError(f"alpha (1 - confidence) must be in [1e-12, 1), got {alpha!r}: a smaller false-alarm rate "
                         "does not survive rounding to 12 digits")
    return alpha


def parse_checks(checks: str | Iterable[str] | None) -> tuple[str, ...]:
    """``"all"``, one group name, a comma-separated list or an iterable of names -> the groups, in order. "all" is
    :data:`DEFAULT_CHECKS`; the opt-in ``float`` group runs only when named ("float", "all,float")."""
    if checks is None:
        return DEFAULT_CHECKS
    if not isinstance(checks, str) and not (isinstance(checks, Iterable) and all(isinstance(n, str) for n in checks)):
        raise TypeError(f"checks must be 'all', a group name, a comma-separated string or a list of names from "
                        f"{', '.join(CHECKS)}; got {checks!r}")
    names = checks.split(",") if isinstance(checks, str) else list(checks)
    names = [name.strip() for name in names if name.strip()]
    unknown = sorted(set(names) - set(CHECKS) - {"all"})
    if unknown or not names:
        raise ValueError(f"checks must be 'all' or a subset of {', '.join(CHECKS)} ('all' is "
                         f"{','.join(DEFAULT_CHECKS)}; 'all,float' adds the float check); got {checks!r}")
    if "all" in names:
        names += DEFAULT_CHECKS
    return tuple(group for group in CHECKS if group in names)


def families(mechanism, checks: tuple[str, ...]) -> list[str]:
    """The statistical families that run for this mechanism and selection."""
    out = []
    if "privacy" in checks:
        out.append("privacy")
    if ("curve" in checks or "privacy" in checks) and curve_applies(mechanism):
        out.append("curve")
    if "moments" in checks and any(any(m) for m in dict(mechanism.moment_claims).values()):
        out.append("moments")
    if "distribution" in checks and mechanism.has_law:
        out.append("distribution")
    if "float" in checks:
        out.append("float")
    return out


#: Bytes one held report coordinate costs: a float64 and the working copies the checks make of it.
BYTES_PER_COORDINATE = 8.0 * 1.2


def check_report_memory(mechanism, settings: AuditSettings, checks=None,
                        names=("d", "samples", "checks='privacy'")) -> None:
    """Refuse, before any draw, an audit whose reports would not fit in memory: the moment and distribution
    checks hold every report of one input at once (samples x width float64), the privacy search holds a chunk
    per worker. ``names`` spell the dimension, the sample size and the privacy-only selection in the message
    (the Python API's, or the CLI's flags); the width is the sampled dimension d the mechanism declares (1 for a
    one-dimensional report)."""
    selected = families(mechanism, parse_checks(checks))
    in_chunks = {"privacy", "curve", "float"}  # the families that hold a chunk per worker, not every report
    held = settings.samples if set(selected) - in_chunks else min(settings.samples, CHUNK) * settings.workers
    width = mechanism.sampling.d if mechanism.sampling is not None else 1
    dimension, samples, privacy_only = names
    check_memory(dimension if width > 1 else samples, BYTES_PER_COORDINATE * held * width,
                 f"{held:,} reports of dimension {width:,} (fewer {samples}, or {privacy_only}, which samples "
                 "in chunks)")


def run_checks(mechanism, settings: AuditSettings, checks=None, progress: Callable[[int], None] | None = None,
               planned: Callable[[int], None] | None = None) -> list[CheckResult]:
    """The rows of ``verify`` (see the module docstring) for the selected ``checks``; ``planned`` is told the
    number of draws the plans announce (``sampling.Announce``) before the first of them is drawn, so the pilots
    run once, inside their plans."""
    checks = parse_checks(checks)
    if settings.workers > 1:
        try:
            pickle.dumps(mechanism)
        except Exception as exc:
            raise ValueError(f"workers={settings.workers} needs a picklable mechanism (module-level functions and "
                             f"classes, no lambdas or closures); pickling failed: {exc}") from exc
    results, runnable = sanity_checks(mechanism, settings.seed, settings.require_seeded)
    if not runnable:
        return results
    run = families(mechanism, checks)
    share = settings.alpha / max(len(run), 1)
    s = settings
    plans = []
    if "privacy" in run:
        if mechanism.eps is None:
            raise ValueError(f"{mechanism.name} declares no eps: a privacy audit needs the claimed eps")
        if mechanism.has_law:
            plans.append(_exact(whitebox_privacy, mechanism))
        elif declares_report_law(mechanism):
            plans.append(_exact(whitebox_report_law, mechanism))
        plans.append(blackbox_plan(mechanism, s.samples, s.seed, share))
    if "curve" in run:
        plans.append(curve_plan(mechanism, s.samples, s.seed, share))
    if "moments" in run:
        plans.append(moment_plan(mechanism, s.samples, s.seed, share))
    if "distribution" in run:
        plans.append(distribution_plan(mechanism, s.samples, s.seed, share))
    if "float" in run:
        if mechanism.eps is None:
            raise ValueError(f"{mechanism.name} declares no eps: the float check needs the claimed eps")
        plans.append(float_bits_plan(mechanism, s.samples, s.seed, share))
    for rows in run_plans(plans, s.workers, progress, planned):
        results += rows
    return results


def _exact(compute: Callable, *args) -> Plan:
    """A plan that draws nothing: ``compute(*args)``, run once the other plans' tasks are in flight."""
    yield []
    return compute(*args)


def subject_of(mechanism) -> dict:
    return {"mechanism": mechanism.name, **mechanism.params(), "reference": mechanism.reference}


def verify(mechanism, settings: AuditSettings | None = None, progress: Callable[[int], None] | None = None,
           checks=None, title: str | None = None, planned: Callable[[int], None] | None = None) -> AuditReport:
    """Run the selected audits (``checks``: "all", "privacy", "moments", "distribution", "float" or a list of them;
    "all" leaves out the opt-in "float") of
    ``mechanism`` (anything implementing the audit interface) and return the report (titled ``title``, by
    default "verify NAME"); ``progress`` is told each batch of draws, ``planned`` their total once known."""
    missing = [name for name in ("name", "reference", "eps", "delta", "sample") if not hasattr(mechanism, name)]
    if missing:  # a registry name or a user's raw object: say what to pass instead of an AttributeError deep down
        raise TypeError(f"mechanism must implement the audit interface (ldp_audit.mechanisms.base.Auditable); "
                        f"{type(mechanism).__name__} {mechanism!r:.60} lacks {', '.join(missing)}: pass "
                        "ldp_audit.mechanisms.make(NAME, ...) or ldp_audit.external.as_mechanism(your_object)")
    if settings is not None and not isinstance(settings, AuditSettings):
        raise TypeError(f"settings must be an AuditSettings(samples=..., seed=..., alpha=...) or None, got "
                        f"{type(settings).__name__}")
    for option, hook in (("progress", progress), ("planned", planned)):
        if hook is not None and not callable(hook):
            raise TypeError(f"{option} must be a function of one int (draws done / planned) or None, got {hook!r}")
    s = settings or AuditSettings()
    selected = parse_checks(checks)
    check_report_memory(mechanism, s, selected)
    results = run_checks(mechanism, s, selected, progress, planned)
    return AuditReport.of(title or f"verify {mechanism.name}", results, subject=subject_of(mechanism),
                          settings={**s.as_dict(), "checks": ",".join(selected)})
