"""Laplace and Gaussian samplers of three DP libraries as ldp-audit user mechanisms, for the float check
(``ldp-audit verify examples.float_libraries:FACTORY --eps 1 --checks float``; docs/guide/float.md).

Each factory returns a black-box mechanism on the input domain [0, 1] (sensitivity 1) that calls the library's own
noise code, unchanged. The libraries are NOT dependencies of ldp-audit: install them in a scratch environment
(``pip install opendp diffprivlib python-dp``); each is imported only when its factory is called.

Seeding: diffprivlib takes a ``random_state`` (a numpy RandomState), seeded here from the audit's rng, so its rows
are reproducible. OpenDP and python-dp draw from their own secure generators and ignore the rng: ldp-audit audits
them on fresh draws with a WARN row ``sanity.determinism`` (``--require-seeded`` would make it a failure).
"""
from __future__ import annotations

import math

import numpy as np

DOMAIN = (0.0, 1.0)
DELTA = 1e-5


def _gaussian_sigma(eps: float, delta: float) -> float:
    """The classical calibration for sensitivity 1 (Dwork & Roth 2014, Theorem A.1; meant for eps <= 1)."""
    return math.sqrt(2.0 * math.log(1.25 / delta)) / eps


def _mechanism(name: str, sample, eps: float, delta: float = 0.0) -> dict:
    return {"name": name, "reference": f"examples/float_libraries.py {name}", "sample": sample, "eps": eps,
            "delta": delta, "domain": DOMAIN}


# ----- OpenDP: samples exactly and rounds the exact result to a float ------------------------------------------
def _opendp_vector(measurement_of, scale: float):
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return measurement_of(dp, dp.vector_domain(dp.atom_domain(T=float, nan=False)), scale)


class _OpenDP:
    def __init__(self, kind: str, scale: float):
        self.kind, self.scale = kind, scale

    def __call__(self, x, n, rng):  # rng ignored: OpenDP draws from its own secure generator
        if self.kind == "laplace":
            m = _opendp_vector(lambda dp, d, s: dp.m.make_laplace(d, dp.l1_distance(T=float), scale=s), self.scale)
        else:
            m = _opendp_vector(lambda dp, d, s: dp.m.make_gaussian(d, dp.l2_distance(T=float), scale=s), self.scale)
        return np.asarray(m([float(x)] * int(n)), dtype=np.float64)


def opendp_laplace(eps: float):
    return _mechanism("opendp_laplace", _OpenDP("laplace", 1.0 / eps), eps)


def opendp_gaussian(eps: float, delta: float = DELTA):
    return _mechanism("opendp_gaussian", _OpenDP("gaussian", _gaussian_sigma(eps, delta)), eps, delta)


# ----- diffprivlib: one scalar call per report, seeded through random_state ------------------------------------
class _Diffprivlib:
    def __init__(self, kind: str, eps: float, delta: float):
        self.kind, self.eps, self.delta = kind, eps, delta

    def __call__(self, x, n, rng):
        from diffprivlib import mechanisms

        state = np.random.RandomState(int(rng.integers(2 ** 32)))
        if self.kind == "laplace":
            m = mechanisms.Laplace(epsilon=self.eps, sensitivity=1.0, random_state=state)
        elif self.kind == "gaussian":
            m = mechanisms.Gaussian(epsilon=self.eps, delta=self.delta, sensitivity=1.0, random_state=state)
        else:
            m = mechanisms.Snapping(epsilon=self.eps, sensitivity=1.0, lower=DOMAIN[0], upper=DOMAIN[1],
                                    random_state=state)
        x = float(x)
        return np.array([m.randomise(x) for _ in range(int(n))], dtype=np.float64)


def diffprivlib_laplace(eps: float):
    return _mechanism("diffprivlib_laplace", _Diffprivlib("laplace", eps, 0.0), eps)


def diffprivlib_gaussian(eps: float, delta: float = DELTA):
    return _mechanism("diffprivlib_gaussian", _Diffprivlib("gaussian", eps, delta), eps, delta)


def diffprivlib_snapping(eps: float):
    return _mechanism("diffprivlib_snapping", _Diffprivlib("snapping", eps, 0.0), eps)


# ----- python-dp (Google's C++ library): one scalar call per report, its own secure generator -------------------
class _PyDP:
    def __init__(self, kind: str, eps: float, delta: float):
        self.kind, self.eps, self.delta = kind, eps, delta

    def __call__(self, x, n, rng):  # rng ignored: the library draws from its own secure generator
        from pydp.algorithms import numerical_mechanisms as nm

        if self.kind == "laplace":
            m = nm.LaplaceMechanism(self.eps, 1.0)
        else:
            m = nm.GaussianMechanism(self.eps, self.delta, 1.0)
        x = float(x)
        return np.array([m.add_noise(x) for _ in range(int(n))], dtype=np.float64)


def pydp_laplace(eps: float):
    return _mechanism("pydp_laplace", _PyDP("laplace", eps, 0.0), eps)


def pydp_gaussian(eps: float, delta: float = DELTA):
    return _mechanism("pydp_gaussian", _PyDP("gaussian", eps, delta), eps, delta)
