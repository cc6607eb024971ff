"""The protocol a user's own mechanism follows, and the adapters that bring common shapes to it.

Two levels (issue 6):

**Black-box** — a sampler and a claim: ``sample(x, n, rng) -> reports`` (n reports of ONE input x: an array
whose first axis has length n, a tuple or dict of such arrays, or a list of n report objects such as dicts,
tuples, complex numbers, strings or sets of item ids; see :mod:`ldp_audit.audits.privacy.reports` for how each is read),
the claimed ``eps`` (and ``delta``, default 0) and the input ``domain`` (an interval, a box or a finite set of
numbers or strings; see :mod:`ldp_audit.external.domains`). A sampler that cannot be seeded (its own secure
generator) is audited on fresh draws, with a WARN row. Optionally the output
``support`` (an interval or a finite set). Audited by the data-driven black-box privacy search and the sanity
checks (shape, finiteness, support, determinism given the seed).

**White-box** — additionally any of: the report law (``law(x)``, or ``pmf(y, x)`` with a finite ``support``, or
``pdf(y, x)`` [and ``cdf(y, x)``] with a bounded ``support``); the claimed report moments
``report_mean(x)`` / ``report_var(x)`` (aliases ``mean`` / ``var``); a server ``estimate(reports)`` with its
claimed ``estimate_mean(x)`` (default: x, i.e. unbiased) and ``estimate_var(x)``. Then the engine's exact
white-box privacy audit, law-derived black-box audit, moment and goodness-of-fit checks run as they do for
built-in mechanisms.

**How the server reads a report** (frequency oracles) — optional, for either level: ``supports(reports, item)
-> (n,) bool`` (does each report count for category ``item``; e.g. local hashing's H_s(item) == y) and
``key(reports) -> (n,) int`` (a public key the report's meaning depends on: a hash seed, a cohort id). ``reports``
is exactly what ``sample`` returned. With them the black-box search reads reports as the server does (see
:mod:`ldp_audit.audits.privacy.search`); without them a report whose every entry is a fresh hash seed is opaque.

**Approximate-DP claims** — optional, for either level: ``privacy_curve(eps) -> delta`` (the hockey-stick divergence
the mechanism promises never to exceed between the reports of two inputs, at every eps >= 0; it must be a real
number in [0, 1]) and ``gdp_mu`` (a number > 0: the mechanism claims mu-Gaussian DP, Dong, Roth & Su 2022). With
either (or with delta > 0) ``verify`` runs the ``curve`` check (:mod:`ldp_audit.audits.privacy.curves`).

Shapes accepted by :func:`as_mechanism`:

* an object (class instance, module, ``SimpleNamespace`` or dict) with ``sample(x, n, rng)`` or a vectorised
  ``perturb(x, rng)`` and the attributes above (``eps``, ``domain`` may instead be passed as arguments);
* a plain function: ``f(x, n, rng)`` (a sampler) or ``f(x, rng)`` (a vectorised perturb);
* a ``scipy.stats``-style family: a one-argument callable ``x -> frozen distribution``; its ``rvs`` is the sampler,
  its ``pdf``/``pmf``/``cdf`` the law and its ``mean``/``var`` the claimed moments;
* a built-in mechanism from :func:`ldp_audit.mechanisms.make` (one-dimensional ones; sampled high-dimensional
  ones are audited by the engine directly, see :func:`ldp_audit.external.audit.audit_external`).
"""
from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Callable

import numpy as np

from ..mechanisms.base import Mechanism, contrast_points, pilot_points
from ..mechanisms.laws import Law
from ..mechanisms.validation import check_eps
from .calls import UserCodeError, a_delta, finite_reals, guarded, log_likelihoods, non_negative_reals, one_per_report
from .domains import Box, Domain, FiniteSet, Interval, parse_domain
from .laws import FLOAT64_RESOLUTION, density_law, float_resolution, pmf_law, to_law

#: Names a user may give each optional claim (first match wins).
_ALIASES = {
    "report_mean": ("report_mean", "mean"),
    "report_var": ("report_var", "var"),
    "estimate": ("estimate",),
    "estimate_mean": ("estimate_mean",),
    "estimate_var": ("estimate_var",),
    "report_loglik": ("report_loglik", "logpmf"),
}
#: Everything :func:`as_mechanism` reads from a user's object, for error messages.
PROTOCOL = ("sample(x, n, rng) or perturb(x, rng)", "eps", "domain", "delta", "support", "law(x)", "pmf(y, x)",
            "pdf(y, x)", "cdf(y, x)", "report_mean(x) / mean(x)", "report_var(x) / var(x)", "estimate(reports)",
            "estimate_mean(x)", "estimate_var(x)", "report_loglik(reports, x) / logpmf(reports, x)",
            "supports(reports, item)", "key(reports)", "privacy_curve(eps)", "gdp_mu", "name", "reference")


def _identity(x):
    return x


#: Each field of :class:`ExternalMechanism` that holds a user's function: the method as the protocol names it, and
#: the check of what it returns (``calls``; supports and key are checked where the reports are read).
_USER_CALLS = {"sampler": ("sample(x, n, rng)", None), "report_mean_fn": ("report_mean(x)", finite_reals),
               "report_var_fn": ("report_var(x)", non_negative_reals),
               "estimator": ("estimate(reports)", one_per_report),
               "estimate_mean_fn": ("estimate_mean(x)", finite_reals),
               "estimate_var_fn": ("estimate_var(x)", non_negative_reals),
               "loglik_fn": ("report_loglik(values, x)", log_likelihoods),
               "supports_fn": ("supports(reports, item)", None), "key": ("key(reports)", None),
               "privacy_curve": ("privacy_curve(eps)", a_delta)}


@dataclass(frozen=True, eq=False)
class ExternalMechanism:
    """A user's mechanism adapted once into the audit interface (``ldp_audit.mechanisms.base.Auditable``).

    Build it with :func:`as_mechanism`. For a finite input set the engine works with category codes
    0..c-1 (or the categories themselves when they are the integers lo..hi); ``value_of`` maps a code back to
    the user's value before any user function is called. A user's mechanism declares no sampled-coordinate
    structure (``sampling`` is None); its whole-report likelihood, if any, is ``report_loglik``.
    """

    sampler: Callable
    eps: float | None
    input_domain: Domain
    delta: float = 0.0
    law_fn: Callable | None = None
    output_support: Interval | FiniteSet | None = None
    report_mean_fn: Callable | None = None
    report_var_fn: Callable | None = None
    estimator: Callable | None = None
    estimate_mean_fn: Callable | None = None
    estimate_var_fn: Callable | None = None
    loglik_fn: Callable | None = None
    supports_fn: Callable | None = None
    key: Callable | None = None
    #: approximate-DP claims (see the module docstring): delta(eps) promised at every eps >= 0, and mu-GDP
    privacy_curve: Callable | None = None
    gdp_mu: float | None = None
    #: users declare their law through ``pmf``/``pdf``/``law`` or ``report_loglik``, never as output classes
    law_classes: Callable | None = None
    name: str = "user mechanism"
    reference: str = "user's claim"
    parameters: dict = field(default_factory=dict)
    #: declared claims that no audit reads, with the reason (see ``as_mechanism``)
    unused_claims: tuple[str, ...] = ()

    def __post_init__(self):
        """Every user function a field holds runs as a :class:`~ldp_audit.external.calls.UserCall` (prints on
        stderr, errors naming the method, returns checked), whoever built or ``replace``-d the mechanism."""
        for name, (method, returns) in _USER_CALLS.items():
            object.__setattr__(self, name, guarded(getattr(self, name), method, self.name, returns))

    # ----- what the user declared ----------------------------------------------------------------------------
    @property
    def has_law(self) -> bool:
        return self.law_fn is not None

    sampling = None

    @property
    def moment_claims(self) -> dict[str, tuple[bool, bool]]:
        """Which moments of the raw report and of the estimate the user claims."""
        claims = {}
        if self.report_mean_fn or self.report_var_fn:
            claims["report"] = (self.report_mean_fn is not None, self.report_var_fn is not None)
        if self.estimator is not None:
            claims["estimate"] = (self.estimate_mean_fn is not None, self.estimate_var_fn is not None)
        return claims

    @property
    def report_loglik(self) -> Callable | None:
        return None if self.loglik_fn is None else _LoglikOf(self)

    @property
    def supports(self) -> Callable | None:
        """The user's ``supports(reports, item)``, called with the user's item for an engine input."""
        return None if self.supports_fn is None else _SupportsOf(self)

    @property
    def categories(self) -> list | None:
        """The categories of a finite domain as the user writes them (the ids a set-valued report may hold)."""
        if not isinstance(self.input_domain, FiniteSet):
            return None
        return [self.input_domain.category(j) for j in range(self.input_domain.values.size)]

    @property
    def level(self) -> str:
        return "white-box" if (self.has_law or self.moment_claims or self.loglik_fn) else "black-box"

    def with_eps(self, eps) -> "ExternalMechanism":
        return replace(self, eps=check_eps(eps))

    def params(self) -> dict:
        """The claimed budget, the factory's parameters, the input domain and the audit level (white-box when
        a law, a likelihood or moment claims are declared): what a report's subject shows."""
        fixed = {"domain": self.input_domain.describe(), "level": self.level}
        own = {(f"param.{k}" if k in fixed else k): v for k, v in self.parameters.items()}
        return {"eps": self.eps, **({"delta": self.delta} if self.delta else {}), **own, **fixed}

    # ----- the engine's face: domain in codes, vectorised perturb ---------------------------------------------
    @property
    def discrete_input(self) -> bool:
        return isinstance(self.input_domain, FiniteSet)

    @property
    def _recoded(self) -> bool:
        return self.discrete_input and not self.input_domain.consecutive_integers

    @property
    def domain(self) -> tuple[float, float]:
        dom = self.input_domain
        if isinstance(dom, Interval):
            return dom.lo, dom.hi
        if isinstance(dom, FiniteSet):
            return (0.0, float(dom.values.size - 1)) if self._recoded else (float(dom.values[0]), float(dom.values[-1]))
        raise ValueError("a box domain has no scalar (lo, hi); only the black-box audits apply to it")

    @property
    def privacy_inputs(self) -> list:
        """Inputs the black-box search contrasts: both ends (and the middle) of an interval, up to four categories
        of a finite set (codes), the two corners of a box."""
        dom = self.input_domain
        if isinstance(dom, Box):
            return [np.asarray(dom.lo, dtype=np.float64), np.asarray(dom.hi, dtype=np.float64)]
        return contrast_points(*self.domain, self.discrete_input)

    @property
    def pilot_inputs(self) -> list:
        """Up to 32 categories (codes) of a finite set larger than ``privacy_inputs`` covers; else none."""
        return [] if isinstance(self.input_domain, Box) else pilot_points(*self.domain, self.discrete_input)

    @property
    def audit_inputs(self) -> np.ndarray:
        """Domain ends, middle and two interior points (at most five categories for finite sets)."""
        lo, hi = self.domain
        if self.discrete_input:
            return np.unique(np.round(np.linspace(lo, hi, min(5, int(hi - lo) + 1))))
        return np.unique(np.array([lo, lo + 0.25 * (hi - lo), 0.5 * (lo + hi), lo + 0.65 * (hi - lo), hi]))

    def value_of(self, code):
        """The user's input for an engine input (a category code for re-coded finite sets)."""
        if isinstance(self.input_domain, Box):
            return np.asarray(code, dtype=np.float64)
        if self._recoded:
            return self.input_domain.category(code)
        if isinstance(self.input_domain, FiniteSet):
            return int(code) if float(code).is_integer() else float(code)
        return float(code)

    def sample(self, x, n: int, rng: np.random.Generator):
        """n reports of the engine input x (a category code for re-coded finite sets, a vector for boxes)."""
        return self.sample_value(self.value_of(x), n, rng)

    def sample_value(self, x, n: int, rng: np.random.Generator):
        """n reports of the user's own input x, as the user's sampler returns them (any report shape)."""
        if not np.all(self.input_domain.contains(x)):
            raise ValueError(f"input {x!r} is outside the declared domain {self.input_domain.describe()}")
        return self.sampler(x, int(n), rng)

    def estimate(self, reports) -> np.ndarray:
        reports = np.asarray(reports, dtype=np.float64)
        return reports if self.estimator is None else self.estimator(reports)

    @property
    def law_resolution(self) -> float:
        """Machine epsilon of the float type the user's law is written in (float32 tables: 1.2e-7), so the white-box
        audit compares ratios with a tolerance fitted to it; probed at the first audit input."""
        if self.law_fn is None:
            return FLOAT64_RESOLUTION
        return self.law_fn.resolution(self.value_of(self.audit_inputs[0]))

    def law(self, x) -> Law:
        if self.law_fn is None:
            raise ValueError(f"{self.name} declares no law: give law(x), pmf(y, x) or pdf(y, x) with a support")
        return self.law_fn(self.value_of(x))

    def _claim(self, fn, x, what):
        if fn is None:
            raise ValueError(f"{self.name} declares no {what}")
        xs = np.asarray(x, dtype=np.float64)
        values = [fn(self.value_of(v)) for v in xs.ravel()]  # checked finite numbers (calls.finite_reals)
        if len({v.shape for v in values}) > 1:
            raise UserCodeError(f"{self.name}: {what} returned values of different shapes "
                                f"{sorted({v.shape for v in values})} at the inputs {xs.ravel().tolist()}; it must "
                                f"return a number, or one vector of one length, at every input")
        if xs.ndim == 0:  # one input: a number, or the claimed vector of a vector report
            return float(values[0]) if values[0].ndim == 0 else values[0]
        return np.stack(values).reshape(xs.shape + values[0].shape)

    def report_mean(self, x):
        return self._claim(self.report_mean_fn, x, "report_mean(x)")

    def report_var(self, x):
        return self._claim(self.report_var_fn, x, "report_var(x)")

    def estimate_mean(self, x):
        return self._claim(self.estimate_mean_fn, x, "estimate_mean(x)")

    def estimate_var(self, x):
        return self._claim(self.estimate_var_fn, x, "estimate_var(x)")


class _SupportsOf:
    """The user's support test, called with the user's item for an engine input."""

    def __init__(self, mech: ExternalMechanism):
        self.mech = mech

    def __call__(self, reports, item):
        return self.mech.supports_fn(reports, self.mech.value_of(item))


class _LoglikOf:
    """The user's whole-report log likelihood, called with the user's input for an engine input."""

    def __init__(self, mech: ExternalMechanism):
        self.mech = mech

    def __call__(self, values, x):
        return self.mech.loglik_fn(values, self.mech.value_of(x))


# ----- adapters ------------------------------------------------------------------------------------------------
class _FromPerturb:
    """sample(x, n, rng) from a vectorised perturb(xs, rng) (xs of shape (n,) or (n, d))."""

    def __init__(self, perturb):
        self.perturb = perturb

    def __call__(self, x, n, rng):
        x = np.asarray(x, dtype=np.float64)
        xs = np.broadcast_to(x, (n,) + x.shape).copy()
        return self.perturb(xs, rng)


class _FromFamily:
    """sample / law / moments of a ``scipy.stats``-style family ``x -> frozen distribution``."""

    def __init__(self, family, part):
        self.family, self.part = family, part

    def __call__(self, x, n=None, rng=None):
        dist = self.family(x)
        if self.part == "sample":
            return np.asarray(dist.rvs(size=n, random_state=rng))
        if self.part == "law":
            return to_law(dist, "the family's distribution")
        return float(getattr(dist, self.part)())

    def resolution(self, x) -> float:
        return FLOAT64_RESOLUTION  # scipy distributions compute in float64


class _LawOf:
    """law(x) of a user object, converted to an ldp_audit Law."""

    def __init__(self, kind, fn, extra=None):
        self.kind, self.fn, self.extra = kind, fn, extra

    def __call__(self, x):
        if self.kind == "law":
            return to_law(self.fn(x))
        if self.kind == "pmf":
            return pmf_law(self.fn, self.extra.values, x)
        pdf, cdf = self.fn
        return density_law(pdf, cdf, self.extra.lo, self.extra.hi, x)

    def resolution(self, x) -> float:
        """The float type of what the user's law returns at x (float64 for functions of scalars only)."""
        try:
            if self.kind == "law":
                return float_resolution(self.fn(x))
            if self.kind == "pmf":
                return float_resolution(np.asarray(self.fn(self.extra.values, x)))
            return float_resolution(np.asarray(self.fn[0](np.linspace(self.extra.lo, self.extra.hi, 5), x)))
        except (TypeError, ValueError):
            return FLOAT64_RESOLUTION


def _required_positional(fn) -> int | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    return sum(1 for p in sig.parameters.values()
               if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)


def _unused_claims(claim, family: bool) -> tuple[str, ...]:
    """What the user declared that no audit reads, each with the reason (``sanity.declarations`` warns of them):
    a law shadowed by another (the family's, else the first of law, pmf, pdf), a cdf without its pdf, an
    estimator's moments without an estimator."""
    laws = [name for name in ("law", "pmf", "pdf") if claim(name) is not None]
    reader = "the family's distribution" if family else laws[0] if laws else None
    unused = [f"{name} (the law is read from {reader})" for name in laws[0 if family else 1:]]
    if claim("cdf") is not None and (family or laws[:1] != ["pdf"]):
        unused.append("cdf (read only beside pdf, as the law)")
    if claim("estimate") is None:
        unused += [f"{name} (needs estimate(reports))" for name in ("estimate_mean", "estimate_var")
                   if claim(name) is not None]
    return tuple(unused)


def is_builtin(mechanism) -> bool:
    """True for mechanisms of this library (they implement the audit interface themselves)."""
    return isinstance(mechanism, Mechanism)


def as_mechanism(obj, eps=None, domain=None, *, require_eps: bool = True, **claims) -> ExternalMechanism:
    """Adapt a user's mechanism (any shape in the module docstring) to :class:`ExternalMechanism`.

    ``eps`` and ``domain`` override the object's own attributes, as do ``claims`` (keyword names from the
    protocol: ``delta``, ``support``, ``law``, ``pmf``, ``pdf``, ``cdf``, ``report_mean``, ``report_var``,
    ``estimate``, ``estimate_mean``, ``estimate_var``, ``name``, ``reference``, ``params``). Raises ``ValueError``
    saying what is missing or malformed.
    """
    if isinstance(obj, ExternalMechanism):
        return obj if eps is None else obj.with_eps(eps)
    unknown = set(claims) - {"delta", "support", "law", "pmf", "pdf", "cdf", "report_mean", "report_var", "mean",
                             "var", "estimate", "estimate_mean", "estimate_var", "name", "reference", "params",
                             "discrete_input", "report_loglik", "logpmf", "supports", "key", "privacy_curve",
                             "gdp_mu"}
    if unknown:
        raise ValueError(f"unknown protocol keyword(s) {sorted(unknown)}; the protocol reads: {', '.join(PROTOCOL)}")
    if is_builtin(obj) and obj.sampling is not None:
        raise ValueError(f"sampled high-dimensional built-in {obj.name!r} cannot be wrapped; audit it directly")
    source = SimpleNamespace(**obj) if isinstance(obj, dict) else obj
    label = getattr(source, "name", None) or getattr(obj, "__name__", None) or type(obj).__name__
    sampler, family, sampler_method = None, None, "sample(x, n, rng)"
    if getattr(source, "sample", None) is not None and callable(source.sample):
        sampler = source.sample
    elif getattr(source, "perturb", None) is not None and callable(source.perturb):
        sampler, sampler_method = _FromPerturb(source.perturb), "perturb(x, rng)"
    elif callable(obj) and not isinstance(obj, type):
        arity = _required_positional(obj)
        if arity == 3:
            sampler = obj
        elif arity == 2:
            sampler, sampler_method = _FromPerturb(obj), "perturb(x, rng)"
        elif arity == 1:
            family = obj
            sampler, sampler_method = _FromFamily(obj, "sample"), "family(x).rvs(size=n, random_state=rng)"
        else:
            raise ValueError(f"{label}: a plain function must be sample(x, n, rng), perturb(x, rng) or a family "
                             f"x -> scipy frozen distribution; it takes {arity} required arguments")
    if sampler is None:
        raise ValueError(f"{label} does not fit the mechanism protocol: it has neither sample(x, n, rng) nor "
                         f"perturb(x, rng) (the protocol reads: {', '.join(PROTOCOL)})")
    given = {}  # protocol key -> the name the user gave it under (an alias such as "mean")

    def claim(key, names=None):
        if key in claims:
            given[key] = key
            return claims[key]
        for name in names or (key,):
            value = getattr(source, name, None)
            if value is not None:
                given[key] = name
                return value
        return None

    name = str(claim("name") or label)

    def guard(key, fn, signature, returns=None):
        """The user's ``fn`` (declared as ``key``), checked callable and wrapped as the name the user gave it."""
        if fn is not None and not callable(fn):
            raise ValueError(f"{name}: {given.get(key, key)} must be callable, got {type(fn).__name__} {fn!r:.40}")
        return guarded(fn, f"{given.get(key, key)}{signature}", name, returns)

    def declared(key, field_name, names=None):
        """The claim ``key`` (under any of ``names``), wrapped as ``field_name`` of ExternalMechanism is."""
        method, returns = _USER_CALLS[field_name]
        return guard(key, claim(key, names), method[method.index("("):], returns)

    eps_value = eps if eps is not None else getattr(source, "eps", None)
    if eps_value is None:
        if require_eps:
            raise ValueError(f"{label} does not declare its claimed eps: pass eps=... or give it an `eps` attribute")
    else:
        eps_value = check_eps(eps_value)
    delta = float(claim("delta") or 0.0)
    if not 0.0 <= delta < 1.0:
        raise ValueError(f"delta must be in [0, 1), got {delta!r}")
    raw_domain = domain if domain is not None else getattr(source, "domain", None)
    if raw_domain is None:
        raise ValueError(f"{label} does not declare its input domain: pass domain=... or give it a `domain` "
                         f"attribute ((lo, hi), a range/list of categories, or (lo_vector, hi_vector))")
    input_domain = parse_domain(raw_domain, "domain", discrete=bool(claim("discrete_input")))
    support = claim("support")
    output_support = None
    if support is not None and not callable(support):
        output_support = parse_domain(support, "support")
        if isinstance(output_support, Box):
            raise ValueError("support must be an interval (lo, hi) or a finite set of output values, not a box")

    law_fn = None
    if family is not None:
        law_fn = _FromFamily(guarded(family, "family(x)", name), "law")
    elif claim("law") is not None:
        law_fn = _LawOf("law", guard("law", claim("law"), "(x)"))
    elif claim("pmf") is not None:
        if not isinstance(output_support, FiniteSet):
            raise ValueError(f"{label} gives pmf(y, x) but no finite output `support` (a range/list of report values)")
        law_fn = _LawOf("pmf", guard("pmf", claim("pmf"), "(y, x)", non_negative_reals), output_support)
    elif claim("pdf") is not None:
        if not isinstance(output_support, Interval):
            raise ValueError(f"{label} gives pdf(y, x) but no bounded output `support` (lo, hi); for an unbounded "
                             f"support let law(x) return a frozen scipy.stats distribution")
        law_fn = _LawOf("pdf", (guard("pdf", claim("pdf"), "(y, x)", non_negative_reals),
                                guard("cdf", claim("cdf"), "(y, x)", finite_reals)), output_support)

    unused = _unused_claims(claim, family is not None)
    if family is not None:
        report_mean = guarded(_FromFamily(family, "mean"), "family(x).mean()", name, finite_reals)
        report_var = guarded(_FromFamily(family, "var"), "family(x).var()", name, non_negative_reals)
    else:
        report_mean = declared("report_mean", "report_mean_fn", _ALIASES["report_mean"])
        report_var = declared("report_var", "report_var_fn", _ALIASES["report_var"])
    estimator = declared("estimate", "estimator")
    estimate_mean = declared("estimate_mean", "estimate_mean_fn")
    estimate_var = declared("estimate_var", "estimate_var_fn")
    loglik = declared("report_loglik", "loglik_fn", _ALIASES["report_loglik"])
    supports, key_fn = declared("supports", "supports_fn"), declared("key", "key")
    curve = declared("privacy_curve", "privacy_curve")
    gdp_mu = claim("gdp_mu")
    if gdp_mu is not None:
        if isinstance(gdp_mu, bool) or not isinstance(gdp_mu, (int, float, np.integer, np.floating)) or \
                not (math.isfinite(float(gdp_mu)) and float(gdp_mu) > 0.0):
            raise ValueError(f"{name}: gdp_mu must be a finite real number > 0 (the mu of a mu-GDP claim), got "
                             f"{gdp_mu!r:.40}")
        gdp_mu = float(gdp_mu)
    if estimator is not None and estimate_mean is None:
        # an estimator's claim, unless stated otherwise, is that it is unbiased
        estimate_mean = guarded(_identity, "estimate_mean(x) (default: x, unbiased)", name, finite_reals)
    whitebox = law_fn is not None or report_mean or report_var or estimator
    if isinstance(input_domain, Box) and whitebox:
        raise ValueError(f"{label}: a law, moment claims or an estimator need a scalar or finite-set domain; "
                         f"a box domain is audited black-box only")
    parameters = claims.get("params") or {}
    if not parameters and callable(getattr(source, "params", None)):
        parameters = {k: v for k, v in source.params().items() if k not in ("eps", "delta")}
    return ExternalMechanism(
        sampler=guarded(sampler, sampler_method, name), eps=eps_value, input_domain=input_domain, delta=delta,
        law_fn=law_fn, output_support=output_support, report_mean_fn=report_mean, report_var_fn=report_var,
        estimator=estimator, estimate_mean_fn=estimate_mean, estimate_var_fn=estimate_var, loglik_fn=loglik,
        supports_fn=supports, key=key_fn, privacy_curve=curve, gdp_mu=gdp_mu, name=name, unused_claims=unused,
        reference=str(claim("reference") or f"{label}: user's claim"), parameters=dict(parameters))
