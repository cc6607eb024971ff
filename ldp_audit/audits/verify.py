"""``verify``: every applicable audit of one mechanism, with one family-wise false-alarm rate.

The exact (white-box) checks cost no false alarms. The statistical families (black-box privacy, moments,
distribution and structure) share ``alpha`` equally, and each family splits its share over its own tests
with Bonferroni, so the probability that a correct mechanism fails ``verify`` is at most ``alpha``.
All sampling is seeded per chunk (``sampling.py``), so a report is reproducible from its seed alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .distribution import distribution_checks
from .moments import moment_checks
from .privacy import blackbox_privacy, whitebox_privacy
from .result import AuditReport
from ..mechanisms.validation import check_int, check_open_unit

DEFAULT_SAMPLES = 1_000_000
DEFAULT_SEED = 20240601
DEFAULT_ALPHA = 1e-3


@dataclass(frozen=True)
class AuditSettings:
    """Samples per input, seed, family-wise false-alarm rate alpha (confidence 1 - alpha), worker processes."""

    samples: int = DEFAULT_SAMPLES
    seed: int = DEFAULT_SEED
    alpha: float = DEFAULT_ALPHA
    workers: int = 1

    def __post_init__(self):
        object.__setattr__(self, "samples", check_int(self.samples, "samples", 1000))
        object.__setattr__(self, "seed", check_int(self.seed, "seed", 0))
        object.__setattr__(self, "alpha", check_open_unit(self.alpha, "alpha (1 - confidence)"))
        object.__setattr__(self, "workers", check_int(self.workers, "workers", 1, 64))


def planned_draws(mechanism, settings: AuditSettings) -> int:
    """How many reports ``verify`` will draw (for progress bars)."""
    inputs = 1 if hasattr(mechanism, "coordinate") else len(mechanism.audit_inputs)
    privacy_inputs = 2 if hasattr(mechanism, "coordinate") else 3
    return settings.samples * (privacy_inputs + 2 * inputs)


def verify(mechanism, settings: AuditSettings | None = None,
           progress: Callable[[int], None] | None = None) -> AuditReport:
    """Run the white-box, black-box, moment, distribution and structure audits of ``mechanism``."""
    s = settings or AuditSettings()
    share = s.alpha / 3.0
    results = whitebox_privacy(mechanism)
    results += blackbox_privacy(mechanism, s.samples, s.seed, share, s.workers, progress)
    results += moment_checks(mechanism, s.samples, s.seed, share, s.workers, progress)
    results += distribution_checks(mechanism, s.samples, s.seed, share, s.workers, progress)
    subject = {**mechanism.params(), "mechanism": getattr(mechanism, "name", type(mechanism).__name__),
               "reference": mechanism.reference}
    return AuditReport.of(f"verify {subject['mechanism']}", results, subject=subject,
                          settings={"samples": s.samples, "seed": s.seed, "alpha": s.alpha,
                                    "confidence": 1.0 - s.alpha, "workers": s.workers})
