"""Client-side randomizers, server-side estimators and exact output laws (no torch here).

    from ldp_audit.mechanisms import make, available
    m = make("hds", eps=1.0, d=8, k=2)
    reports = m.perturb(x, rng)        # x: (n, d) in [-1, 1]
    estimates = m.estimate(reports)
    law = m.law(0.3)                   # exact law of one coordinate's report
"""
from .base import ScalarMechanism
from .laws import Discrete, Law, Mixture, PiecewiseUniform, Smooth
from .registry import MechanismInfo, Param, available, make, names
from .sampled import SampledMechanism, sample_subsets

__all__ = ["make", "available", "names", "MechanismInfo", "Param", "ScalarMechanism", "SampledMechanism",
           "sample_subsets", "Law", "PiecewiseUniform", "Discrete", "Smooth", "Mixture"]
from .personalised import PersonalisedMechanism  # noqa: E402  (PPM: users hold a level as well as x)

__all__ += ["PersonalisedMechanism"]
