"""One generic high-dimensional mechanism: sample k of d coordinates, run a one-dimensional mechanism on each.

This is the composition ppgnn's footnote 3 describes for MLR, and every high-dimensional mechanism of the five
papers is an instance of it (see ``ldp_audit.mechanisms.registry``):

1. S <- k distinct coordinates drawn uniformly from {1..d}, independently of x (exactly k, never a coin per
   coordinate);
2. for j in S: report_j = client_scale * M(z_j), where M is the one-dimensional ``coordinate`` mechanism at
   budget eps/k and z_j is x_j mapped affinely from [alpha, beta] onto M's domain; report_j = 0 for j not in S;
3. the server estimate is affine in the report. With ``rescale=True`` it undoes the sampling (factor d/k), M's
   own rectifier and the input map, so it is unbiased whenever M's estimate is; with ``rescale=False`` (HDS,
   ldp-ge Algorithm 2) the report is returned as is.

Every moment formula follows from the coordinate mechanism's: with mu = E[M(z)], s2 = E[M(z)^2],
E[report_j] = (k/d) c mu, E[report_j^2] = (k/d) c^2 s2, and for i != j
Cov[report_i, report_j] = c^2 mu_i mu_j (k(k-1)/(d(d-1)) - k^2/d^2) (lpgnn E6, ppgnn C7).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from .base import Mechanism, Sampling, ScalarMechanism
from .gaussian import GaussianCurve
from .laws import Law, Mixture, point_mass
from .validation import (BYTES_PER_DRAW, as_input_array, as_reports, as_values, check_count, check_dimension,
                         check_flag, check_int, check_rng, check_sample_size)

#: Above this k the subsets are drawn by partial sorting of uniforms (O(n d)) instead of Floyd's algorithm (O(n k^2)).
_FLOYD_MAX_K = 64


def sample_subsets(n: int, d: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """(n, k) array of coordinate indices: row i is a uniformly random k-subset of {0..d-1}, rows independent.

    Uses Robert Floyd's algorithm vectorised over rows (k passes of one integer draw per row), so the cost is
    O(n k^2) and memory O(n k) for the small k of the papers.
    """
    n, d = check_count(n, "n"), check_dimension(d)
    k, rng = check_int(k, "k", 1, d), check_rng(rng)
    if k == d:
        return np.broadcast_to(np.arange(d), (n, d)).copy()
    if k > _FLOYD_MAX_K:
        return np.argpartition(rng.random((n, d)), k - 1, axis=1)[:, :k]
    chosen = np.empty((n, k), dtype=np.int64)
    for i, top in enumerate(range(d - k, d)):
        candidate = rng.integers(0, top + 1, size=n)
        taken = (chosen[:, :i] == candidate[:, None]).any(axis=1)
        chosen[:, i] = np.where(taken, top, candidate)
    return chosen


@dataclass(frozen=True)
class SampledMechanism(Mechanism):
    """Sample-k-of-d composition over a one-dimensional ``coordinate`` mechanism (already built at its budget).

    Attributes:
        name, reference: registry name and paper reference of this instance.
        eps: total budget of one report. For pure eps-LDP instances coordinate.eps == eps / k.
        d, k: dimension and number of sampled coordinates.
        coordinate: the one-dimensional mechanism applied to each sampled coordinate.
        client_scale: the client multiplies each coordinate report by this (MLR's d/m), 1 otherwise.
        rescale: whether the server estimate undoes sampling and bias (False for HDS).
        alpha, beta: the user's input range [alpha, beta]^d, mapped affinely onto the coordinate's domain.
        delta: the delta of the whole report's (eps, delta)-LDP guarantee (0 for pure eps-LDP).
        extra_params: further (name, value) registry parameters, so that ``params()`` rebuilds this instance.
        fixed_k: k is not a parameter (every coordinate is perturbed, k == d).
    """

    name: str
    reference: str
    eps: float
    d: int
    k: int
    coordinate: ScalarMechanism
    client_scale: float = 1.0
    rescale: bool = True
    alpha: float = -1.0
    beta: float = 1.0
    delta: float = 0.0
    extra_params: tuple = ()
    fixed_k: bool = False

    def __post_init__(self):
        object.__setattr__(self, "d", check_dimension(self.d))
        object.__setattr__(self, "k", check_int(self.k, "k", 1, self.d))

    # ----- description -------------------------------------------------------------------------------
    @property
    def domain(self) -> tuple[float, float]:
        return self.alpha, self.beta

    @property
    def sampling(self) -> Sampling:
        return Sampling(self.coordinate, self.k, self.d, self.client_scale, self.alpha, self.beta)

    @property
    def privacy_inputs(self) -> list:
        """Every coordinate at alpha, and every coordinate at beta."""
        return [np.full(self.d, self.alpha), np.full(self.d, self.beta)]

    @property
    def gdp_mu(self) -> float | None:
        """The whole report's Gaussian-DP claim, from the coordinate's: the coordinate's own when it was calibrated
        for the whole report (same eps and delta, one sigma for the vector: lpgnn M5), else, when every
        coordinate is reported (k == d), the composition of d coordinates each mu_c-GDP, sqrt(d) mu_c (Dong, Roth &
        Su 2022, Corollary 3.3); None when the coordinate claims no mu or coordinates are sampled (a mixture)."""
        mu = self.coordinate.gdp_mu
        if mu is None:
            return None
        if self.coordinate.eps == self.eps and self.coordinate.delta == self.delta:
            return float(mu)
        return float(mu) * float(np.sqrt(self.d)) if self.k == self.d else None

    @property
    def privacy_curve(self):
        """The mu-GDP curve at :attr:`gdp_mu` (exact for Gaussian coordinates), or None."""
        mu = self.gdp_mu
        return None if mu is None else GaussianCurve(mu)

    def to_coordinate(self, x):
        """Map inputs from [alpha, beta] onto the coordinate mechanism's domain."""
        return self.sampling.to_coordinate(x)

    def sample(self, x, n: int, rng) -> np.ndarray:
        """n reports of one user's input x (a d-vector, or a number meaning every coordinate)."""
        x = as_values(x, self.alpha, self.beta)
        if x.shape not in ((), (self.d,)):
            raise ValueError(f"x must be a number or a vector of shape ({self.d},), got shape {x.shape}")
        n = check_sample_size(n, "n", 8.0 * self.d + BYTES_PER_DRAW * self.k, f"sampling {self.name} reports")
        return self.perturb(np.broadcast_to(x, (n, self.d)), rng)

    # ----- client side -------------------------------------------------------------------------------
    def _sampled(self, x, rng, clip):
        """(n, rows, columns, values): the k sampled coordinates of each row and their reports. With k == d
        every coordinate is reported in order, and rows/columns are None (no n x d index arrays)."""
        x = as_input_array(x, self.alpha, self.beta, self.d, clip=clip).reshape(-1, self.d)
        rng = check_rng(rng)
        n = x.shape[0]
        if self.k == self.d:
            rows = columns = None
            chosen = x
        else:
            columns = sample_subsets(n, self.d, self.k, rng)
            rows = np.repeat(np.arange(n), self.k).reshape(n, self.k)
            chosen = x[rows, columns]
        values = self.coordinate._sample(self.to_coordinate(chosen), rng)
        if self.client_scale != 1.0:
            values = values * self.client_scale
        return n, rows, columns, values

    def perturb(self, x, rng, *, return_mask: bool = False, clip: bool = False):
        """Reports of shape (n, d), exactly k non-zeros per row; with ``return_mask`` also the (n, d) boolean mask S."""
        return_mask = check_flag(return_mask, "return_mask")
        single = np.asarray(x).ndim == 1 and self.d > 1
        n, rows, columns, values = self._sampled(x, rng, clip)
        if rows is None:
            reports = np.asarray(values, dtype=np.float64)
        else:
            reports = np.zeros((n, self.d))
            reports[rows, columns] = values
        if single:
            reports = reports[0]
        if not return_mask:
            return reports
        mask = np.ones((n, self.d), dtype=bool) if rows is None else np.zeros((n, self.d), dtype=bool)
        if rows is not None:
            mask[rows, columns] = True
        return reports, (mask[0] if single else mask)

    def perturb_sparse(self, x, rng, *, clip: bool = False) -> sparse.csr_matrix:
        """The same reports as a CSR matrix with exactly k stored entries per row: memory O(n k), not O(n d)."""
        n, _, columns, values = self._sampled(x, rng, clip)
        if columns is None:
            columns = np.broadcast_to(np.arange(self.d), (n, self.d))
        order = np.argsort(columns, axis=1)
        indices = np.take_along_axis(columns, order, axis=1).ravel()
        data = np.take_along_axis(values, order, axis=1).ravel()
        indptr = np.arange(0, n * self.k + 1, self.k)
        return sparse.csr_matrix((data, indices, indptr), shape=(n, self.d))

    # ----- server side -------------------------------------------------------------------------------
    @property
    def estimate_scale(self) -> float:
        if not self.rescale:
            return 1.0
        lo, hi = self.coordinate.domain
        return ((self.beta - self.alpha) / (hi - lo)) * (self.d / self.k) * self.coordinate.estimate_scale / self.client_scale

    @property
    def estimate_shift(self) -> float:
        if not self.rescale:
            return 0.0
        lo, hi = self.coordinate.domain
        return self.alpha - (self.beta - self.alpha) * lo / (hi - lo)

    @property
    def report_values(self) -> tuple[float, ...] | None:
        """The values a report coordinate takes when they are few: 0 (not sampled) and the coordinate mechanism's
        values times ``client_scale`` (multi-bit: 0 and +-1); None when the coordinate reports a continuum."""
        values = self.coordinate.report_values
        if values is None:
            return None
        return (0.0,) + tuple(values if self.client_scale == 1.0 else (v * self.client_scale for v in values))

    def estimate(self, reports):
        """Server estimate of every coordinate; accepts dense arrays or the CSR matrix of ``perturb_sparse``, with
        entries that ``perturb`` can return."""
        if sparse.issparse(reports):
            as_reports(reports.data, "reports", self.name, self.report_values)
            if self.estimate_shift != 0.0:
                reports = reports.toarray()
            else:
                return reports.multiply(self.estimate_scale).tocsr()
        reports = as_reports(reports, "reports", self.name, self.report_values)
        if reports.shape[-1:] != (self.d,) or reports.ndim > 2:
            raise ValueError(f"reports must have shape (n, {self.d}) or ({self.d},), got {reports.shape}")
        if not self.rescale:
            return reports
        return self.estimate_shift + self.estimate_scale * reports

    # ----- exact law and moments of one coordinate -------------------------------------------------------
    @property
    def inclusion(self) -> float:
        """Probability k/d that a given coordinate is sampled."""
        return self.k / self.d

    def law(self, x_j: float) -> Law:
        """Exact law of one coordinate's report: 0 with probability 1 - k/d, else client_scale * M(z_j)."""
        x_j = float(as_input_array(x_j, self.alpha, self.beta, 1, name="x_j"))
        sampled = self.coordinate.law(float(self.to_coordinate(x_j))).affine(self.client_scale)
        if self.k == self.d:
            return sampled
        return Mixture((point_mass(0.0), sampled), (1.0 - self.inclusion, self.inclusion))

    def _coordinate_moments(self, x, name: str = "x"):
        """(mean, second moment) of the coordinate mechanism's report at the coordinate values ``x`` (any shape,
        checked against [alpha, beta] under ``name``; mapped onto the coordinate's domain without a second check,
        which the rounding of the affine map could fail by an ulp)."""
        z = self.to_coordinate(as_values(x, self.alpha, self.beta, name))
        mu = np.asarray(self.coordinate._report_mean(z))
        second = np.asarray(self.coordinate._report_var(z)) + mu * mu
        return mu, second

    def report_mean(self, x):
        """E[report_j | x_j] for every coordinate value in ``x`` (any shape, in [alpha, beta])."""
        mu, _ = self._coordinate_moments(x)
        return self.inclusion * self.client_scale * mu

    def report_var(self, x):
        """Var[report_j | x_j] for every coordinate value in ``x`` (any shape, in [alpha, beta])."""
        mu, second = self._coordinate_moments(x)
        mean = self.inclusion * self.client_scale * mu
        return self.inclusion * self.client_scale**2 * second - mean * mean

    def report_cov(self, x_i, x_j):
        """Cov[report_i, report_j] for two different coordinates of one user (zero when k == d)."""
        if self.d == 1:
            raise ValueError("report_cov needs two coordinates; this mechanism has d = 1")
        mu_i, _ = self._coordinate_moments(x_i, "x_i")
        mu_j, _ = self._coordinate_moments(x_j, "x_j")
        try:
            np.broadcast_shapes(mu_i.shape, mu_j.shape)
        except ValueError:
            raise ValueError(f"x_i and x_j must have shapes that broadcast together (one covariance per pair), got "
                             f"{mu_i.shape} and {mu_j.shape}") from None
        both = self.k * (self.k - 1) / (self.d * (self.d - 1))
        return self.client_scale**2 * mu_i * mu_j * (both - self.inclusion**2)

    def estimate_cov(self, x_i, x_j):
        return self.estimate_scale**2 * self.report_cov(x_i, x_j)

    def params(self) -> dict:
        out = {"eps": self.eps, "d": self.d} if self.fixed_k else {"eps": self.eps, "d": self.d, "k": self.k}
        if (self.alpha, self.beta) != (-1.0, 1.0):
            out.update(alpha=self.alpha, beta=self.beta)
        out.update(dict(self.extra_params))
        return out
