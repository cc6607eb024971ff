"""The mechanism contract (DESIGN.md, "Mechanism") shared by every one-dimensional randomizer.

A one-dimensional mechanism implements four things: a vectorised sampler ``_sample``, its exact report law
``law(x)``, and the closed-form ``report_mean`` / ``report_var`` printed (or corrected) in its paper. The
server estimate is an affine map of the report (``estimate_scale``, ``estimate_shift``), so the estimate's law
and moments follow for free. High-dimensional mechanisms are built from these by
:class:`ldp_audit.mechanisms.sampled.SampledMechanism`.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Protocol, Sequence

import numpy as np

from .laws import Law
from .validation import BYTES_PER_DRAW, as_input_array, as_reports, as_values, check_eps, check_rng, check_sample_size


def probe_points(lo: float, hi: float) -> np.ndarray:
    """Inputs at which the audits probe a mechanism on [lo, hi]: both ends, the middle and two interior points
    (every variance formula here is extreme at an end or the middle)."""
    return np.unique(np.array([lo, lo + 0.25 * (hi - lo), 0.5 * (lo + hi), lo + 0.65 * (hi - lo), hi]))


#: Most inputs the black-box search contrasts for a finite input domain (every ordered pair of them).
CONTRAST_CATEGORIES = 4


def contrast_points(lo: float, hi: float, discrete: bool) -> list[float]:
    """Inputs the black-box privacy search contrasts on [lo, hi]: both ends and the middle (for categories:
    up to ``CONTRAST_CATEGORIES`` spread over lo..hi, both ends included)."""
    if discrete:
        count = min(CONTRAST_CATEGORIES, int(hi - lo) + 1)
        return [float(v) for v in np.unique(np.round(np.linspace(lo, hi, count)))]
    return [float(lo), float(0.5 * (lo + hi)), float(hi)]


#: Most categories a short pilot run compares to pick extra input pairs for the black-box search.
PILOT_CATEGORIES = 32


def pilot_points(lo: float, hi: float, discrete: bool) -> list[float]:
    """Inputs among which a short pilot run picks extra pairs for the search: for a finite domain with more
    categories than ``contrast_points`` covers, up to ``PILOT_CATEGORIES`` spread over lo..hi; else none."""
    count = int(hi - lo) + 1 if discrete else 0
    if count <= CONTRAST_CATEGORIES:
        return []
    return [float(v) for v in np.unique(np.round(np.linspace(lo, hi, min(PILOT_CATEGORIES, count))))]


@dataclass(frozen=True)
class Sampling:
    """The sampled-coordinate structure of a high-dimensional report, as data (DESIGN.md "Mechanism").

    A report holds d coordinates; k of them, drawn uniformly and independently of the input, carry
    ``client_scale`` times the report of ``coordinate`` (a one-dimensional mechanism) at the input mapped
    affinely from [alpha, beta] onto the coordinate's domain; the others are exactly 0.
    """

    coordinate: "ScalarMechanism"
    k: int
    d: int
    client_scale: float = 1.0
    alpha: float = -1.0
    beta: float = 1.0

    def to_coordinate(self, x):
        lo, hi = self.coordinate.domain
        return lo + (np.asarray(x, dtype=np.float64) - self.alpha) * ((hi - lo) / (self.beta - self.alpha))


def coordinate_of(mechanism) -> tuple:
    """The one-dimensional mechanism whose law a privacy audit analyses, and how many of it a report holds:
    ``mechanism.sampling``'s coordinate and k, or the mechanism itself once when it samples nothing."""
    sampling = mechanism.sampling
    return (sampling.coordinate, sampling.k) if sampling is not None else (mechanism, 1)


class Auditable(Protocol):
    """The one interface the audit engine reads (DESIGN.md "One audit interface").

    Required: ``sample(x, n, rng)`` (n reports of ONE input x, any report shape), ``eps``, ``delta``, ``name``,
    ``reference``, ``privacy_inputs`` (the inputs the black-box search contrasts, in ``sample``'s terms),
    ``pilot_inputs`` (inputs among which a short pilot run may pick extra pairs; may be empty) and
    ``audit_inputs`` (where moments and distributions are probed). Declared capabilities, as data:
    ``has_law`` (``law(x)`` gives the exact law of one report, or of one sampled coordinate),
    ``sampling`` (a :class:`Sampling`, or None), ``report_loglik`` (a whole-report log likelihood
    ``(values (n, w), x) -> (n,)``, or None), ``output_support`` (an object with ``contains`` and ``describe``,
    or None), ``law_classes`` (a whole-report law as a finite partition of the outputs: ``(x1, x0) ->`` blocks of
    representative reports with their counts, or None), ``moment_claims`` ({"report" | "estimate": (claims a
    mean, claims a variance)}) and ``unused_claims`` (what was declared but no audit reads, with the reason: a
    WARN row says so). Approximate-DP claims, optional: ``privacy_curve`` (``eps' -> delta``, the hockey-stick
    divergence the mechanism promises never to exceed at any eps' >= 0, or None) and ``gdp_mu`` (mu of a mu-GDP
    claim, Dong, Roth & Su 2022, or None); the ``curve`` check of ``verify`` holds the samples to them.

    How the server reads a report, optional, as data (None when not declared):

    * ``supports(reports, item) -> (n,) bool``: the frequency oracle's support test, does each report count for
      item v (local hashing: H_s(v) == y; unary encoding: bit v set; RAPPOR: every Bloom bit of v in the cohort
      set). The black-box search adds the family "report supports item v" for the inputs it probes;
    * ``key(reports) -> (n,) int64``: a public key the report's meaning depends on (a hash seed, a cohort id).
      The search adds cells conditioned on the key (for key values seen often enough in its pilot);
    * ``categories``: the item ids a set-valued report (a list or set of items per report) may hold, in the
      sampler's terms; the search reads such reports as indicator vectors over them.

    ``reports`` is what ``sample`` returned, untouched (a tuple of arrays, a dict, objects...); ``item`` an input
    in ``sample``'s terms. Built-ins implement it through :class:`Mechanism`; a user's object is adapted into it once by
    :func:`ldp_audit.external.as_mechanism`.
    """

    name: str
    reference: str
    eps: float
    delta: float
    has_law: bool
    sampling: Sampling | None
    report_loglik: Callable | None
    output_support: Any
    moment_claims: dict
    supports: Callable | None
    key: Callable | None
    categories: Sequence | None
    law_classes: Callable | None
    unused_claims: tuple[str, ...]
    privacy_curve: Callable | None
    gdp_mu: float | None

    def sample(self, x, n: int, rng: np.random.Generator) -> Any: ...

    @property
    def privacy_inputs(self) -> Sequence: ...

    @property
    def pilot_inputs(self) -> Sequence: ...

    @property
    def audit_inputs(self) -> np.ndarray: ...


class Mechanism(ABC):
    """The base every built-in mechanism shares: the :class:`Auditable` face, the affine server estimate and the
    moments and law of the estimate, derived from what a subclass implements (its sampler, law and report
    moments)."""

    #: built-ins derive their exact law from the algorithm; none declares a whole-report likelihood
    has_law: ClassVar[bool] = True
    report_loglik: ClassVar[Callable | None] = None
    #: built-ins declare no output support beyond their law's (the distribution audit checks that one)
    output_support: ClassVar[None] = None
    #: how a server reads a report (see :class:`Auditable`): a frequency oracle overrides ``supports`` and/or
    #: ``key`` with methods; built-ins return arrays, never item sets, so ``categories`` stays None
    supports: ClassVar[Callable | None] = None
    key: ClassVar[Callable | None] = None
    categories: ClassVar[Sequence | None] = None
    #: a whole-report law as a finite partition of the outputs (frequency oracles override it with a method,
    #: ``law_classes(x1, x0)``; see :mod:`ldp_audit.mechanisms.frequency.base`)
    law_classes: ClassVar[Callable | None] = None
    #: approximate-DP claims beyond (eps, delta) (see :class:`Auditable`): a Gaussian mechanism overrides both
    privacy_curve: ClassVar[Callable | None] = None
    gdp_mu: ClassVar[float | None] = None
    #: machine epsilon of the float type the law is computed in (the white-box ratio tolerance is fitted to it)
    law_resolution: ClassVar[float] = float(np.finfo(np.float64).eps)
    #: a built-in declares nothing that its audits do not read
    unused_claims: ClassVar[tuple[str, ...]] = ()

    @property
    def sampling(self) -> Sampling | None:
        return None

    @property
    def discrete_input(self) -> bool:
        """True when inputs are categories (integers) rather than reals."""
        return False

    @property
    def audit_inputs(self) -> np.ndarray:
        """Inputs at which the audits probe the mechanism (``probe_points`` of its domain)."""
        return probe_points(*self.domain)

    @property
    def moment_claims(self) -> dict[str, tuple[bool, bool]]:
        """Mean and variance formulas of the estimate, and of the raw report when the estimate differs from it."""
        both = (True, True)
        identity = self.estimate_scale == 1.0 and self.estimate_shift == 0.0
        return {"estimate": both} if identity else {"estimate": both, "report": both}

    @abstractmethod
    def sample(self, x, n: int, rng: np.random.Generator):
        """n reports of the one input x."""

    @property
    @abstractmethod
    def privacy_inputs(self) -> list:
        """Inputs the black-box privacy search contrasts."""

    @property
    def pilot_inputs(self) -> list:
        """Inputs among which a short pilot run picks extra pairs for the search (none by default)."""
        return []

    @property
    def estimate_scale(self) -> float:
        """The server estimate is ``estimate_scale * report + estimate_shift``."""
        return 1.0

    @property
    def estimate_shift(self) -> float:
        return 0.0

    def estimate_law(self, x) -> Law:
        return self.law(x).affine(self.estimate_scale, self.estimate_shift)

    def estimate_mean(self, x):
        return self.estimate_shift + self.estimate_scale * np.asarray(self.report_mean(x))

    def estimate_var(self, x):
        return self.estimate_scale**2 * np.asarray(self.report_var(x))

    def worst_case_variance(self) -> float:
        """Largest estimate variance over the domain (attained at an end or the middle for every mechanism here)."""
        return float(np.max(self.estimate_var(self.audit_inputs)))


@dataclass(frozen=True)
class ScalarMechanism(Mechanism):
    """An eps-LDP randomizer of one real (or categorical) value, vectorised over users."""

    eps: float

    name: ClassVar[str] = ""
    reference: ClassVar[str] = ""
    #: number of coordinates of one user's input and report
    d: ClassVar[int] = 1
    k: ClassVar[int] = 1

    def __post_init__(self):
        object.__setattr__(self, "eps", check_eps(self.eps))

    def sample(self, x, n: int, rng: np.random.Generator) -> np.ndarray:
        n = check_sample_size(n, "n", BYTES_PER_DRAW, f"sampling {self.name} reports")
        return self.perturb(np.full(n, self.checked_input(x)), rng)

    @property
    def privacy_inputs(self) -> list:
        return contrast_points(*self.domain, self.discrete_input)

    @property
    def pilot_inputs(self) -> list:
        return pilot_points(*self.domain, self.discrete_input)

    # ----- description -------------------------------------------------------------------------------
    @property
    def domain(self) -> tuple[float, float]:
        """Input domain [lo, hi]."""
        return -1.0, 1.0

    @property
    def delta(self) -> float:
        """The delta of (eps, delta)-LDP; 0 for pure eps-LDP mechanisms."""
        return 0.0

    # ----- client side -------------------------------------------------------------------------------
    def perturb(self, x, rng, *, clip: bool = False) -> np.ndarray:
        """Randomise each entry of ``x`` (a scalar or shape (n,)) independently; returns reports of the same shape."""
        lo, hi = self.domain
        arr = as_input_array(x, lo, hi, 1, clip=clip, integer=self.discrete_input)
        return self._sample(np.atleast_1d(arr), check_rng(rng)).reshape(arr.shape)

    @abstractmethod
    def _sample(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Vectorised sampler on validated inputs of shape (n,)."""

    # ----- server side -------------------------------------------------------------------------------
    @property
    def report_values(self) -> tuple[float, ...] | None:
        """The few values a report takes whatever the input (a one-bit report's two), or None when there are
        many (a continuum, or categories: those check their reports in ``checked_reports``)."""
        return None

    def checked_reports(self, reports, name: str = "reports") -> np.ndarray:
        """``reports`` (any shape) as float64, each a value ``perturb`` can return: finite, and one of
        ``report_values`` when the mechanism declares them."""
        return as_reports(reports, name, self.name, self.report_values)

    def estimate(self, reports) -> np.ndarray:
        """The paper's server-side estimate (rectifier), applied elementwise to reports that ``perturb`` can
        return (``checked_reports``); identity where the paper has none."""
        reports = self.checked_reports(reports)
        if self.estimate_scale == 1.0 and self.estimate_shift == 0.0:
            return reports
        return self.estimate_shift + self.estimate_scale * reports

    # ----- exact law and the paper's moment formulas -------------------------------------------------------
    def law(self, x: float) -> Law:
        """Exact distribution of the report for one input ``x`` (checked against the domain like ``perturb``)."""
        return self._law(self.checked_input(x))

    def checked_inputs(self, x, name: str = "x") -> np.ndarray:
        """``x`` (any shape) as float64, every entry in the domain (an integer category for a discrete one)."""
        lo, hi = self.domain
        return as_values(x, lo, hi, name, integer=self.discrete_input)

    def checked_input(self, x, name: str = "x") -> float:
        """One input, checked like :meth:`checked_inputs`."""
        value = self.checked_inputs(x, name)
        if value.ndim != 0:
            raise ValueError(f"{name} must be a single number, got shape {value.shape}")
        return float(value)

    @abstractmethod
    def _law(self, x: float) -> Law:
        """Exact law of the report for a validated input."""

    def report_mean(self, x):
        """E[report | x] for every entry of ``x`` (any shape, in the domain), closed form from the paper
        (corrected where the paper errs)."""
        return self._report_mean(self.checked_inputs(x))

    def report_var(self, x):
        """Var[report | x] for every entry of ``x`` (any shape, in the domain), closed form from the paper
        (corrected where the paper errs)."""
        return self._report_var(self.checked_inputs(x))

    @abstractmethod
    def _report_mean(self, x: np.ndarray):
        """E[report | x] on validated float64 inputs, elementwise."""

    @abstractmethod
    def _report_var(self, x: np.ndarray):
        """Var[report | x] on validated float64 inputs, elementwise."""

    def params(self) -> dict:
        """The parameters that rebuild this mechanism through the registry."""
        return {"eps": self.eps}
