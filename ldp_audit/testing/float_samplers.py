"""Reference samplers for the float check (``--checks float``), at eps = 1 on inputs in [0, 1]: two textbook
float samplers that leak through their low-order bits (Mironov 2012; Jin et al. 2022) and two whose outputs lie
on a grid that does not depend on x, as exact libraries do. Module-level functions, so a process pool can pickle
them: ``audit({"sample": textbook_laplace, "eps": EPS, "domain": (0.0, 1.0)}, checks="float")``."""
from __future__ import annotations

import math

import numpy as np

EPS = 1.0
DELTA = 1e-5
#: The classical Gaussian calibration of sensitivity 1 at (EPS, DELTA) (Dwork & Roth 2014, Thm A.1).
SIGMA = math.sqrt(2.0 * math.log(1.25 / DELTA)) / EPS


def textbook_laplace(x, n, rng):
    """x + Laplace(1/EPS) in doubles: near 0 the output inherits the ulp grid of x."""
    return x + rng.laplace(0.0, 1.0 / EPS, n)


def textbook_gaussian(x, n, rng):
    """x + N(0, SIGMA^2) in doubles."""
    return x + rng.normal(0.0, SIGMA, n)


def snapped_laplace(x, n, rng):
    """The noisy value rounded to multiples of 2^-20 (the grid does not depend on x)."""
    return np.round((x + rng.laplace(0.0, 1.0 / EPS, n)) * 2.0 ** 20) / 2.0 ** 20


def discrete_laplace(x, n, rng):
    """Exact two-sided geometric noise on integers (Ghosh et al. 2009): EPS-LDP on {0, 1}."""
    p = -math.expm1(-EPS)
    return x + rng.geometric(p, n) - rng.geometric(p, n)
