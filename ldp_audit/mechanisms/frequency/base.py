"""The frequency-oracle contract: k categories {0, ..., k-1}, a vectorised client, the exact whole-report law,
the unbiased server estimator and its variance (Wang et al., USENIX Security 2017, "Locally differentially
private protocols for frequency estimation"; cited below as "Wang et al. 2017").

A frequency oracle implements a sampler ``_perturb``, the report's log likelihood ``report_loglik`` and
``law_classes`` (a finite partition of the output space into classes of reports that every input of an ordered
pair gives one likelihood each, so that the audits can enumerate the law exactly: its total mass and its largest
likelihood ratio). A "pure" oracle (Wang et al. 2017, Definition 3) also implements ``support_matrix`` and
``support_probabilities`` (p*, q*); its server estimate, per report and item v, is

    c~(v) = (1[report supports v] - q*) / (p* - q*)                        (Wang et al. 2017, Eq. (1))

whose mean is 1[v = x] and whose variance is

    Var c~(v) = q*(1 - q*) / (p* - q*)^2 + 1[v = x] (1 - p* - q*) / (p* - q*)   (Wang et al. 2017, Eq. (2), n = 1)

The server's frequency estimate is the mean of the per-report estimates (``frequencies``); its variance is the
per-report variance divided by n.
"""
from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Iterator

import numpy as np
from scipy.special import gammaln

from ..base import Mechanism, contrast_points, pilot_points
from ..validation import (BYTES_PER_DRAW, as_input_array, as_values, check_among, check_eps, check_int, check_rng,
                          check_sample_size)

#: Largest number of categories accepted (every oracle builds per-report arrays of width k or more).
K_MAX = 1 << 16

#: One block of ``law_classes``: representative reports (m, w) and the log of how many reports each stands for
#: (None when the law is continuous: the representatives then only attain the supremum of the ratio).
LawBlock = tuple[np.ndarray, "np.ndarray | None"]


def log_comb(n, r) -> np.ndarray:
    """log C(n, r), elementwise; -inf where r is outside [0, n]."""
    n, r = np.asarray(n, dtype=np.float64), np.asarray(r, dtype=np.float64)
    ok = (r >= 0) & (r <= n)
    safe = np.where(ok, r, 0.0)
    return np.where(ok, gammaln(n + 1) - gammaln(safe + 1) - gammaln(n - safe + 1), -np.inf)


def exchangeable_classes(width: int, groups: list[np.ndarray], offset: int = 0) -> LawBlock:
    """Classes of 0/1 vectors of length ``width`` by the number of ones in each group of positions (the groups
    partition ``range(width)``): one representative per class (the first ``a_i`` positions of group i set, shifted
    by ``offset`` columns), and log C(|group|, a_i) summed over the groups as its multiplicity. Exact for any law
    under which the bits of one group are exchangeable."""
    sizes = [len(g) for g in groups]
    counts = np.stack(np.meshgrid(*[np.arange(s + 1) for s in sizes], indexing="ij"), -1).reshape(-1, len(groups))
    values = np.zeros((counts.shape[0], offset + width), dtype=np.int8)
    log_counts = np.zeros(counts.shape[0])
    for i, group in enumerate(groups):
        group = np.asarray(group, dtype=np.int64)
        if group.size:
            # row r sets the first counts[r, i] positions of the group
            mask = np.arange(group.size)[None, :] < counts[:, i:i + 1]
            values[:, offset + group] = mask
        log_counts += log_comb(sizes[i], counts[:, i])
    return values, log_counts


def one_hot(x, k: int) -> np.ndarray:
    """e_x for every entry of x: shape x.shape + (k,)."""
    x = np.asarray(x)
    return (x[..., None] == np.arange(k)).astype(np.float64)


def pure_estimate(supports: np.ndarray, p_star: float, q_star: float) -> np.ndarray:
    """Wang et al. 2017, Eq. (1), for one report: (1[supports v] - q*) / (p* - q*)."""
    return (supports.astype(np.float64) - q_star) / (p_star - q_star)


def pure_variance(x, k: int, p_star: float, q_star: float) -> np.ndarray:
    """Wang et al. 2017, Eq. (2) with n = 1: the variance of one report's estimate of every item v."""
    gap = p_star - q_star
    return q_star * (1.0 - q_star) / gap**2 + one_hot(x, k) * ((1.0 - p_star - q_star) / gap)


@dataclass(frozen=True)
class FrequencyOracle(Mechanism):
    """An eps-LDP frequency oracle over the categories {0, ..., k-1}; reports are numpy arrays with n rows."""

    eps: float
    k: int = 8

    name: ClassVar[str] = ""
    reference: ClassVar[str] = ""
    #: one user's input is one category
    d: ClassVar[int] = 1
    #: the audits enumerate the law through ``law_classes`` and ``report_loglik``, not through a one-coordinate law
    has_law: ClassVar[bool] = False
    #: no formula for the raw report's moments is claimed (only the estimate's, ``moment_claims``)
    report_mean: ClassVar[object] = None
    report_var: ClassVar[object] = None

    def __post_init__(self):
        object.__setattr__(self, "eps", check_eps(self.eps))
        object.__setattr__(self, "k", check_int(self.k, "k", 2, K_MAX))

    # ----- the audit interface ---------------------------------------------------------------------------------
    @property
    def domain(self) -> tuple[float, float]:
        return 0.0, float(self.k - 1)

    @property
    def delta(self) -> float:
        return 0.0

    @property
    def discrete_input(self) -> bool:
        return True

    @property
    def privacy_inputs(self) -> list:
        return contrast_points(*self.domain, True)

    @property
    def pilot_inputs(self) -> list:
        return pilot_points(*self.domain, True)

    @property
    def audit_inputs(self) -> np.ndarray:
        """Inputs whose item lies among the first coordinates of the estimate (the ones the moment audit tests)."""
        return np.unique(np.array([0.0, 1.0, float(self.k - 1)]))

    @property
    def moment_claims(self) -> dict[str, tuple[bool, bool]]:
        return {"estimate": (True, True)}

    def params(self) -> dict:
        return {"eps": self.eps, "k": self.k}

    # ----- client side -----------------------------------------------------------------------------------------
    def perturb(self, x, rng, *, clip: bool = False) -> np.ndarray:
        """One report per entry of ``x`` (a category or shape (n,)); reports have n rows."""
        arr = np.atleast_1d(as_input_array(x, 0.0, float(self.k - 1), 1, clip=clip, integer=True))
        return self._perturb(arr.astype(np.int64), check_rng(rng))

    def sample(self, x, n: int, rng: np.random.Generator) -> np.ndarray:
        n = check_sample_size(n, "n", BYTES_PER_DRAW * (self.report_width or 1), f"sampling {self.name} reports")
        return self.perturb(np.full(n, self.category(x)), rng)

    def categories_of(self, x, name: str = "x") -> np.ndarray:
        """``x`` (any shape) as float64 categories, each an integer in [0, k-1]."""
        return as_values(x, 0.0, float(self.k - 1), name, integer=True)

    def category(self, x, name: str = "x") -> int:
        """One category, an integer in [0, k-1]."""
        return check_int(x, name, 0, self.k - 1)

    @property
    def report_width(self) -> int | None:
        """Columns of one report row (None: a report is one number, reports have shape (n,))."""
        return self.k

    def checked_reports(self, reports) -> np.ndarray:
        """``reports`` as ``perturb`` returns them: a numeric array of n rows of ``report_width`` finite values, each
        one that ``perturb`` can return (kept in their own dtype: a hash seed needs all 64 bits of an int64)."""
        arr = self._numeric_rows(reports, "reports")
        self._check_report_values(arr)
        return arr

    def _numeric_rows(self, values, name: str, loose: bool = False) -> np.ndarray:
        """``values`` as a numeric array of n rows of ``report_width`` finite values. ``loose``: one report given as
        a flat row is read as n = 1, and one-number reports may come as a column (n, 1) (the audits' dense rows)."""
        arr = np.asarray(values)
        width = self.report_width
        shape = "(n,)" if width is None else f"(n, {width})"
        if arr.dtype.kind not in "biuf":
            raise ValueError(f"{name} must be a numeric array of shape {shape}, as {self.name}'s perturb returns "
                             f"them, got dtype {arr.dtype}")
        if loose and width is None and arr.ndim in (0, 2) and arr.shape[1:] in ((), (1,)):
            arr = arr.reshape(-1)
        elif loose and width is not None and arr.ndim == 1:
            arr = arr.reshape(1, -1)
        if arr.shape[1:] != (() if width is None else (width,)) or arr.ndim != (1 if width is None else 2):
            raise ValueError(f"{name} must have shape {shape} for {self.name} with k={self.k}, got shape "
                             f"{arr.shape}")
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contain NaN or infinite values; reports are finite numbers")
        return arr

    def _check_report_values(self, reports: np.ndarray) -> None:
        """Refuse values that ``perturb`` never returns (vectorised; the shape is already checked). Every value
        passes by default (SHE reports any real vector)."""

    def _check_bits(self, bits: np.ndarray) -> None:
        """Every entry of ``bits`` 0 or 1."""
        check_among(bits, (0, 1), "reports", f"{self.name} (bits)")

    def _check_categories(self, values: np.ndarray, top: int, what: str) -> None:
        """Every entry of ``values`` an integer in [0, top]."""
        as_values(values, 0.0, float(top), "reports", integer=True, remedy=f"{self.name} reports {what} 0..{top}")

    @abstractmethod
    def _perturb(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Vectorised client on validated categories of shape (n,)."""

    # ----- exact law -------------------------------------------------------------------------------------------
    def report_loglik(self, values, x) -> np.ndarray:
        """log P(report | x) of each row of ``values`` (reports as returned by ``perturb``, or as float rows; -inf
        for a row no input can produce), for the category ``x``. ``values`` has ``perturb``'s shape (one report may
        come as a flat row)."""
        return self._report_loglik(self._numeric_rows(values, "values", loose=True), self.category(x))

    def law_classes(self, x1, x0) -> Iterator[LawBlock]:
        """Blocks of representative reports and their log multiplicities: the classes partition the output space
        and every report of a class has the likelihood of its representative under x1 and under x0 (categories)."""
        return self._law_classes(self.category(x1, "x1"), self.category(x0, "x0"))

    @abstractmethod
    def _report_loglik(self, values, x: int) -> np.ndarray:
        """:meth:`report_loglik` for a validated category."""

    @abstractmethod
    def _law_classes(self, x1: int, x0: int) -> Iterator[LawBlock]:
        """:meth:`law_classes` for validated categories."""

    # ----- server side -----------------------------------------------------------------------------------------
    def support_probabilities(self) -> tuple[float, float]:
        """(p*, q*): the probability that a report of x supports x, and that it supports a given v != x."""
        raise NotImplementedError(f"{self.name} is not a pure protocol")

    def support_matrix(self, reports) -> np.ndarray:
        """(n, k) booleans: does report i count for item v in the server's aggregation."""
        raise NotImplementedError(f"{self.name} is not a pure protocol")

    def supports(self, reports, item) -> np.ndarray:
        """Does each report count for ``item`` in the server's aggregation: a bool array (n,)."""
        item = self.category(item, "item")
        return self.support_matrix(self.checked_reports(reports))[:, item]

    def estimate(self, reports) -> np.ndarray:
        """Per-report unbiased estimates of the indicator vector e_x: shape (n, k) (Wang et al. 2017, Eq. (1))."""
        return pure_estimate(self.support_matrix(self.checked_reports(reports)), *self.support_probabilities())

    def frequencies(self, reports) -> np.ndarray:
        """The server's unbiased estimate of the k frequencies: the mean of the per-report estimates."""
        return self.estimate(reports).mean(axis=0)

    def estimate_mean(self, x) -> np.ndarray:
        """E[estimate | x] = e_x (unbiased) for the categories x: shape x.shape + (k,)."""
        return one_hot(self.categories_of(x), self.k)

    def estimate_var(self, x) -> np.ndarray:
        """Var[estimate of item v | x] for every v, for the categories x: shape x.shape + (k,)."""
        return pure_variance(self.categories_of(x), self.k, *self.support_probabilities())
