"""A thin stateful view over the pure RDP functions: the accountant a training loop receives as a value.

Like opacus's ``accountants/rdp.py`` over ``accountants/analysis/rdp.py``: the mathematics lives in
:mod:`.rdp` and :mod:`.conversion`; this class only remembers which per-step curve, which orders and which
conversion a model was promised, so a model never needs to know where the curve came from (a library, a
quadrature, or a paper's printed bound injected by an audit).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .conversion import CONVERSIONS, epsilon_curve
from .rdp import SOURCES

RdpStep = Callable[[float, float, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class RdpAccountant:
    """Per-step RDP ``rdp_step(q, sigma, orders)``, composed linearly over steps and converted to eps."""

    name: str
    rdp_step: RdpStep
    orders: tuple[float, ...]
    conversion: str = "improved"

    def __post_init__(self):
        if self.conversion not in CONVERSIONS:
            raise ValueError(f"conversion must be one of {', '.join(CONVERSIONS)}; got {self.conversion!r}")
        if not self.orders or min(self.orders) <= 1.0:
            raise ValueError(f"orders must be a non-empty sequence of numbers > 1, got {self.orders!r}")

    @classmethod
    def named(cls, name: str, conversion: str = "improved", orders=None) -> "RdpAccountant":
        """One of the library or numerical sources in :data:`.rdp.SOURCES`, on its default order grid."""
        if name not in SOURCES:
            raise ValueError(f"accountant must be one of {', '.join(SOURCES)}; got {name!r}")
        step, default_grid = SOURCES[name]
        grid = np.asarray(default_grid if orders is None else orders, dtype=float)
        return cls(name, step, tuple(float(a) for a in grid), conversion)

    def epsilon_curve(self, q: float, sigma: float, delta: float, steps) -> np.ndarray:
        """eps after each number of steps in ``steps``."""
        orders = np.asarray(self.orders, dtype=float)
        return epsilon_curve(self.rdp_step(q, sigma, orders), orders, delta, steps, self.conversion)

    def epsilon(self, q: float, sigma: float, delta: float, steps: int) -> float:
        return float(self.epsilon_curve(q, sigma, delta, [steps])[0])

    def steps_within(self, q: float, sigma: float, delta: float, eps: float, max_steps: int) -> int:
        """The largest T <= max_steps whose eps stays <= ``eps`` (the curve increases with T)."""
        return int(np.sum(self.epsilon_curve(q, sigma, delta, np.arange(1, max_steps + 1)) <= eps))
