"""The shuffle model: n users each apply randomized response at a local budget eps0, a trusted shuffler hides who
sent what, and the server (the adversary) sees only the multiset of reports, i.e. their histogram. Shuffling
amplifies the local guarantee to a smaller central (eps, delta) (Erlingsson et al. 2019, "Amplification by
shuffling"; Balle et al. 2019, "The privacy blanket of the shuffle model"; Feldman, McMillan, Talwar 2021,
"Hiding among the clones").

The audited dataset pair. One user (the audited individual) holds x; the other n - 1 users hold the fixed category
0. Neighbouring datasets differ in the audited user's value only: (0, 0, ..., 0) vs (1, 0, ..., 0), in both
orders. With every other user at one value this is the setting of the clone analysis (Feldman et al. 2021): each
other report is, with probability 2/(e^eps0 + 1), a fair coin between the two values in question ("a clone"),
otherwise the fixed value. For binary randomized response it is the only choice up to relabelling.

Exact law. Let pi = GRR_eps0(0) be the report law of a user holding 0 (p = e^eps0/(e^eps0 + c - 1) on 0, q =
1/(e^eps0 + c - 1) elsewhere), and g_x = GRR_eps0(x). The histogram h of all n reports has law

    P_x(h) = sum_y g_x(y) Mult_{n-1}(h - e_y; pi) = Mult_n(h; pi) * (1/n) sum_y g_x(y) h_y / pi_y,

so the likelihood ratio of input 1 against input 0 is

    w(h) = P_1(h) / P_0(h) = [(n - h_0 - h_1) + e^-eps0 h_0 + e^eps0 h_1] / n,

a function of the counts of the two categories in question only (one count when c = 2), and P_0 = Mult_n(pi).
The hockey-stick divergences of the pair are expectations under P_0: delta_{1|0}(eps) = E[(w - e^eps)_+] and
delta_{0|1}(eps) = E[(1 - e^eps w)_+] (:func:`pair_delta`). Accountants built on it live in
:mod:`ldp_audit.accounting.shuffle`; a mechanism here takes its claimed central eps as given (``eps``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy import stats
from scipy.special import gammaln, logsumexp

from .base import Mechanism, ScalarMechanism
from .categorical import RandomizedResponse
from .laws import Discrete
from .validation import (BYTES_PER_DRAW, MAX_CATEGORIES, as_values, check_eps, check_int, check_open_unit,
                         check_rng, check_sample_size)

#: Most users of a shuffled count with an exact law (the law holds n + 1 atoms).
MAX_USERS_LAW = 10 ** 6
#: Most users of a shuffled histogram (sampled with numpy's multinomial; the law is never enumerated).
MAX_USERS = 10 ** 9
#: Standard deviations (plus a constant) kept on each side of a binomial's mean when the pair's law is summed:
#: the mass left out is below 1e-30, far below any delta an audit resolves.
_WINDOW_SD, _WINDOW_PAD = 13.0, 40.0
_REFERENCE = ("shuffle model: Erlingsson et al. 2019; Feldman, McMillan, Talwar 2021 (others hold category 0, "
              "the audited user 0 vs 1)")


def grr_probabilities(eps0: float, c: int) -> tuple[float, float]:
    """(p, q) of randomized response on c categories at local budget eps0 (from e^-eps0: no overflow)."""
    tail = math.exp(-eps0)
    p = 1.0 / (1.0 + (c - 1) * tail)
    return p, tail * p


def _window(trials: int, prob: float) -> np.ndarray:
    """The counts of Binomial(trials, prob) that hold all but a negligible part of its mass."""
    mean, sd = trials * prob, math.sqrt(trials * prob * (1.0 - prob))
    lo = max(0, int(math.floor(mean - _WINDOW_SD * sd - _WINDOW_PAD)))
    hi = min(trials, int(math.ceil(mean + _WINDOW_SD * sd + _WINDOW_PAD)))
    return np.arange(lo, hi + 1)


def pair_ratio_law(eps0: float, n: int, c: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """(log w, log P_0) over the support of the likelihood ratio w = P_1(h)/P_0(h) of the audited pair, h drawn
    from P_0 (all n users at category 0): h_0 ~ Bin(n, p) and h_1 | h_0 ~ Bin(n - h_0, 1/(c - 1)) (h_1 = n - h_0
    when c = 2). Windows of the binomials drop a mass below 1e-30."""
    eps0, c = check_eps(eps0, "eps0"), check_int(c, "c", 2, MAX_CATEGORIES)
    n = check_int(n, "n", 1, MAX_USERS)
    p, _ = grr_probabilities(eps0, c)
    h0 = _window(n, p)
    if c == 2:
        h1 = n - h0
        logp = stats.binom.logpmf(h0, n, p)
    else:
        rest = n - h0  # h_1 | h_0 ~ Bin(rest, 1/(c-1)): one grid covering the window of every rest
        h1 = np.arange(_window(int(rest.min()), 1.0 / (c - 1))[0], _window(int(rest.max()), 1.0 / (c - 1))[-1] + 1)
        h0, h1 = np.meshgrid(h0, h1, indexing="ij")
        logp = stats.binom.logpmf(h0, n, p) + stats.binom.logpmf(h1, n - h0, 1.0 / (c - 1))
        keep = np.isfinite(logp)
        h0, h1, logp = h0[keep], h1[keep], logp[keep]
    return log_ratio_of_counts(h0, h1, n, eps0), np.asarray(logp, dtype=np.float64)


def log_ratio_of_counts(h0, h1, n: int, eps0: float) -> np.ndarray:
    """log w = log([(n - h_0 - h_1) + e^-eps0 h_0 + e^eps0 h_1] / n), every term non-negative, summed in log
    space (no overflow at eps0 = 700)."""
    h0, h1 = np.asarray(h0, dtype=np.float64), np.asarray(h1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        terms = np.stack([np.log(n - h0 - h1), np.log(h0) - eps0, np.log(h1) + eps0])
    return logsumexp(terms, axis=0) - math.log(n)


def _log_hockey(log_w: np.ndarray, logp: np.ndarray, eps: float, forward: bool) -> float:
    """log E_P0[(w - e^eps)_+] (forward) or log E_P0[(1 - e^eps w)_+], from log w and log P_0."""
    if forward:
        gap = log_w - eps
        on = gap > 0
        terms = logp[on] + eps + np.log(np.expm1(gap[on]))
    else:
        gap = log_w + eps
        on = gap < 0
        terms = logp[on] + np.log(-np.expm1(gap[on]))
    return float(logsumexp(terms)) if terms.size else -math.inf


def pair_delta(eps: float, eps0: float, n: int, c: int = 2, law=None) -> float:
    """The smallest delta for which the shuffled histograms of the audited pair are (eps, delta)-indistinguishable
    in both orders: max(delta_{1|0}, delta_{0|1}) at eps, computed exactly (up to a neglected mass below 1e-30)
    from the law of the likelihood ratio. ``law``: a precomputed :func:`pair_ratio_law` (for many eps)."""
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not (0.0 <= float(eps) < math.inf):
        raise ValueError(f"eps must be a finite real number >= 0, got {eps!r}")
    eps = float(eps)
    log_w, logp = pair_ratio_law(eps0, n, c) if law is None else law
    return math.exp(max(_log_hockey(log_w, logp, eps, True), _log_hockey(log_w, logp, eps, False)))


# ----- the mechanisms ---------------------------------------------------------------------------------------------
def _check_common(self) -> None:
    """eps (the claimed central budget), delta, eps0 (None: the claim itself, no amplification claimed)."""
    object.__setattr__(self, "eps", check_eps(self.eps))
    object.__setattr__(self, "delta", check_open_unit(self.delta, "delta"))
    object.__setattr__(self, "eps0", self.eps if self.eps0 is None else check_eps(self.eps0, "eps0"))


@dataclass(frozen=True)
class ShuffledBinaryRR(ScalarMechanism):
    """Binary randomized response at local budget eps0 for n users, shuffled; the report is the number of ones
    among the n reports (the histogram (n - K, K) without its redundant entry). The audited user holds x in
    {0, 1}, the other n - 1 users hold 0: K = Bin(n - 1, q) + Bern(p if x = 1 else q), p = e^eps0/(e^eps0 + 1),
    q = 1 - p. The server's estimate is the unbiased count of users holding 1, (K - n q)/(p - q). ``eps`` and
    ``delta`` are the claimed central guarantee (e.g. an accountant's amplified eps)."""

    delta: float = 1e-6
    n: int = 10_000
    eps0: float | None = None

    name = "shuffle_rr"
    reference = _REFERENCE

    def __post_init__(self):
        _check_common(self)
        object.__setattr__(self, "n", check_int(self.n, "n", 1, MAX_USERS_LAW))

    @property
    def domain(self):
        return 0.0, 1.0

    @property
    def discrete_input(self):
        return True

    @property
    def audit_inputs(self):
        return np.array([0.0, 1.0])

    def probabilities(self) -> tuple[float, float]:
        return grr_probabilities(self.eps0, 2)

    def checked_reports(self, reports, name: str = "reports") -> np.ndarray:
        """Reports as float64, each a count in {0..n}."""
        return as_values(reports, 0.0, float(self.n), name, integer=True,
                         remedy=f"shuffle_rr with n={self.n} reports a count of ones in 0..{self.n}")

    def _own(self, x):
        p, q = self.probabilities()
        return np.where(np.asarray(x) == 1.0, p, q)

    def _sample(self, x, rng):
        _, q = self.probabilities()
        others = rng.binomial(self.n - 1, q, size=x.shape)
        return (others + (rng.random(x.shape) < self._own(x))).astype(np.float64)

    def _law(self, x):
        p, q = self.probabilities()
        k = np.arange(self.n + 1)
        others = np.exp(stats.binom.logpmf(k, self.n - 1, q))  # pmf(0) is 1 - 2e-15 at q = e^-700, this is 1
        # the audited user's chances of reporting 1 and 0, each as computed (never 1 - the other: at eps0 = 700,
        # 1 - p rounds to 0 where q = e^-700 is what makes the pair (700, delta)-close)
        one, zero = (p, q) if float(x) == 1.0 else (q, p)
        probs = zero * others
        probs[1:] += one * others[:-1]
        return Discrete(k.astype(np.float64), probs)

    # ----- the server: the unbiased count of users holding 1, (K - n q)/(p - q); here that is x itself ---------
    @property
    def estimate_scale(self) -> float:
        p, q = self.probabilities()
        return 1.0 / (p - q)

    @property
    def estimate_shift(self) -> float:
        p, q = self.probabilities()
        return -self.n * q / (p - q)

    def estimate_mean(self, x):
        """(E[own report] - q)/(p - q) = x, written without the large terms n q/(p - q) that would cancel."""
        p, q = self.probabilities()
        return (self._own(self.checked_inputs(x)) - q) / (p - q)

    def _report_mean(self, x):
        _, q = self.probabilities()
        return (self.n - 1) * q + self._own(x)

    def _report_var(self, x):
        """n p q: every user's report, the audited one's included, is a Bernoulli of variance p q whatever its
        input (written as p q, not own (1 - own): at eps0 = 50, 1 - p rounds to 0)."""
        p, q = self.probabilities()
        return np.full(np.shape(x), self.n * p * q)

    def params(self):
        return {"eps": self.eps, "delta": self.delta, "n": self.n, "eps0": self.eps0}


@dataclass(frozen=True)
class ShuffledGRR(Mechanism):
    """Randomized response on c categories at local budget eps0 for n users, shuffled; the report is the histogram
    of the n reports (counts per category, a row of length c). The audited user holds x, the other n - 1 users
    hold category 0; the privacy audit contrasts x = 0 and x = 1. ``eps`` and ``delta`` are the claimed central
    guarantee. The exact whole-report log likelihood is declared (``report_loglik``: the black-box search cuts the
    likelihood ratio, the Neyman-Pearson statistic); the law is not enumerated (about n^2/2 classes for c > 2, and
    the enumerated-law white-box row checks a pure-eps ratio bound, which a shuffled report never meets: its exact
    (eps, delta) curve is :func:`pair_delta`)."""

    eps: float
    delta: float = 1e-6
    n: int = 10_000
    eps0: float | None = None
    c: int = 2

    name: ClassVar[str] = "shuffle_grr"
    reference: ClassVar[str] = _REFERENCE
    has_law: ClassVar[bool] = False
    d: ClassVar[int] = 1

    def __post_init__(self):
        _check_common(self)
        object.__setattr__(self, "n", check_int(self.n, "n", 1, MAX_USERS))
        object.__setattr__(self, "c", check_int(self.c, "c", 2, MAX_CATEGORIES))

    # ----- the audit interface -----------------------------------------------------------------------------
    @property
    def domain(self) -> tuple[float, float]:
        return 0.0, float(self.c - 1)

    @property
    def discrete_input(self) -> bool:
        return True

    @property
    def privacy_inputs(self) -> list:
        """The audited pair: the others' category 0 and category 1."""
        return [0.0, 1.0]

    @property
    def audit_inputs(self) -> np.ndarray:
        return np.array([0.0, 1.0])

    @property
    def moment_claims(self) -> dict:
        return {}

    def params(self) -> dict:
        return {"eps": self.eps, "delta": self.delta, "n": self.n, "eps0": self.eps0, "c": self.c}

    def probabilities(self) -> tuple[float, float]:
        return grr_probabilities(self.eps0, self.c)

    # ----- sampling ------------------------------------------------------------------------------------------
    def sample(self, x, n: int, rng: np.random.Generator) -> np.ndarray:
        """n shuffled histograms (n, c) of the dataset where the audited user holds x and the others hold 0."""
        n = check_sample_size(n, "n", BYTES_PER_DRAW * self.c, f"sampling {self.name} histograms")
        return self.perturb(np.full(n, self.category(x)), rng)

    def perturb(self, x, rng) -> np.ndarray:
        """One shuffled histogram per entry of ``x`` (the audited user's category; the others hold 0): shape
        (len(x), c), int64. The others' counts come from one multinomial draw per histogram, the audited user's
        report from randomized response; no loop over users."""
        x = np.atleast_1d(as_values(x, 0.0, float(self.c - 1), "x", integer=True)).astype(np.int64)
        rng = check_rng(rng)
        p, q = self.probabilities()
        pi = np.full(self.c, q)
        pi[0] = 1.0 - (self.c - 1) * q  # = p, written so that the probabilities sum to 1 in float64
        counts = rng.multinomial(self.n - 1, pi, size=x.shape[0])
        own = RandomizedResponse(self.eps0, self.c).perturb(x.astype(np.float64), rng).astype(np.int64)
        counts[np.arange(x.shape[0]), own] += 1
        return counts

    def category(self, x, name: str = "x") -> int:
        return check_int(x, name, 0, self.c - 1)

    # ----- exact law and the server ---------------------------------------------------------------------------
    def checked_reports(self, reports, name: str = "reports") -> np.ndarray:
        """Histograms as float64 rows of c non-negative integer counts summing to n."""
        arr = as_values(reports, 0.0, float(self.n), name, integer=True,
                        remedy=f"shuffle_grr with n={self.n} reports counts in 0..{self.n}")
        if arr.ndim != 2 or arr.shape[1] != self.c:
            raise ValueError(f"{name} must have shape (m, {self.c}) (one histogram per row), got shape {arr.shape}")
        if np.any(arr.sum(axis=1) != self.n):
            raise ValueError(f"{name}: every histogram counts the reports of n={self.n} users")
        return arr

    def report_loglik(self, values, x) -> np.ndarray:
        """log P(histogram | the audited user holds x) for each row of ``values`` (-inf for a row that is not a
        histogram of n reports): log Mult_n(h; pi) + log w_x(h) (module docstring)."""
        h = np.asarray(values, dtype=np.float64)
        h = h.reshape(1, -1) if h.ndim == 1 else h
        x = self.category(x)
        valid = (h.shape[1] == self.c) & np.all((h >= 0) & (h == np.round(h)), axis=1) & (h.sum(axis=1) == self.n)
        p, q = self.probabilities()
        safe = np.where(valid[:, None], h, 0.0)
        logpi = np.full(self.c, math.log(q))
        logpi[0] = math.log(p)
        with np.errstate(invalid="ignore"):
            base = gammaln(self.n + 1.0) - gammaln(safe + 1.0).sum(axis=1) + (safe * logpi).sum(axis=1)
        if x == 0:
            log_w = np.zeros(h.shape[0])
        else:
            log_w = log_ratio_of_counts(safe[:, 0], safe[:, x], self.n, self.eps0)
        return np.where(valid, base + log_w, -np.inf)

    def estimate(self, reports) -> np.ndarray:
        """The server's unbiased frequency estimate of each category from each histogram: (h_v/n - q)/(p - q)."""
        p, q = self.probabilities()
        return (self.checked_reports(reports) / self.n - q) / (p - q)
