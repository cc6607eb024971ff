"""ldp-audit attack NAME ...: how much an attacker learns, measured, next to the
bound LDP promises.

Attacks:
  own-report       Bayes attribute inference from a user's own report against
                   e^eps/(1+e^eps) (lpgnn C12)
  averaging        averaging R repeated queries, memoised or not (lpgnn C11)
  level-leak       PPGNN's privacy level recovered from tau', magnitudes and
                   counts (ppgnn C10-C11, E4-E5)
  neighbour-vote   majority vote over neighbours' reports on a real graph
                   (ppgnn A9, C18; NOT bounded by LDP)
  label-plurality  plurality of neighbours' randomized-response labels
                   (lpgnn C16; NOT bounded by LDP)
  not-covered      what a paper's guarantee does not protect (edges, labels,
                   the sampling mask)

Exit code 1 when an attack beats its bound (a privacy violation) or a check
fails, as for verify.
"""
from __future__ import annotations

import argparse
import math

from ..audits.kernel.result import AuditReport
from ._common import add_output_options, emit, parse_param, spinner
from .options import (MAX_CATEGORIES, MAX_DRAWS, add_data_options, available_memory, check_draws, check_memory,
                      check_size, confidence, eps_budget, integer, positive, probability, real, seed)

_MECH_PARAMS = {"d": integer(1, 10 ** 6), "k": str, "alpha": real(), "beta": real(), "delta": probability,
                "c": integer(2, MAX_CATEGORIES), "f": integer(2, MAX_CATEGORIES)}


def _common(p, samples: int | None) -> None:
    if samples is not None:
        p.add_argument("--samples", type=integer(1000, MAX_DRAWS), default=samples,
                       help=f"simulated users, in [1000, {MAX_DRAWS:.0e}] (default %(default)s)")
    p.add_argument("--seed", type=seed, default=0, help="seed of all sampling (default %(default)s)")
    p.add_argument("--confidence", type=confidence, default=0.999,
                   help="1 - false-alarm rate of the attack's verdict (default %(default)s)")
    add_output_options(p)


def _mechanism_args(p) -> None:
    p.add_argument("mechanism", metavar="MECH", help="registered mechanism name (ldp-audit list)")
    p.add_argument("--eps", type=eps_budget, required=True, help="the mechanism's budget (> 0)")
    for name, kind in _MECH_PARAMS.items():
        p.add_argument(f"--{name}", type=kind, default=None, help=f"mechanism parameter {name} (default: the "
                                                                  "mechanism's own)")
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", type=parse_param,
                   help="any other mechanism parameter (repeatable)")


def _make(args):
    from ..mechanisms import make

    params = {n: getattr(args, n) for n in _MECH_PARAMS if getattr(args, n) is not None}
    if isinstance(params.get("k"), str) and params["k"].isdigit():
        params["k"] = int(params["k"])
    params.update(dict(args.param))
    return make(args.mechanism, eps=args.eps, **params)


def _alpha(args) -> float:
    return round(1.0 - args.confidence, 12)


def _ppm(args):
    from ..mechanisms.personalised import PersonalisedMechanism

    return PersonalisedMechanism(args.eps, args.d, args.h, args.gamma, args.mode)


def _own_report(args):
    from ..audits.attacks.own_report import own_report_attack

    mechanism = _make(args)
    check_draws({"--samples": (args.samples, 200_000), "--d": (mechanism.d, 8)}, f"own-report on {mechanism.name}")
    if mechanism.discrete_input:  # the c-ary attacker scores every category: c x c masses, batches x c scores
        c = int(mechanism.domain[1] - mechanism.domain[0]) + 1
        check_memory("--c", 32.0 * c * c, f"the c-ary attacker's {c:,} x {c:,} category masses",
                     largest=f"{int((0.75 * available_memory() / 32.0) ** 0.5):,}")
        check_draws({"--samples": (args.samples, 200_000), "--c": (c, 7)}, f"the c-ary attacker on {c:,} categories")
    rows = own_report_attack(mechanism, claimed_eps=args.claimed_eps, samples=args.samples, seed=args.seed,
                             alpha=_alpha(args))
    return AuditReport.of(f"own-report attack on {mechanism.name}", rows, {"mechanism": mechanism.name,
                                                                            "params": mechanism.params()})


def _averaging(args):
    from ..audits.attacks.averaging import averaging_attack

    mechanism = _make(args)
    check_draws({"--samples": (args.samples, 50_000), "--queries": (args.queries, 16), "--d": (mechanism.d, 8)},
                f"averaging {args.queries:,} queries of {mechanism.name}")
    rows = averaging_attack(mechanism, queries=args.queries, memoise=not args.no_memoise, samples=args.samples,
                            seed=args.seed, alpha=_alpha(args))
    return AuditReport.of(f"averaging attack on {mechanism.name}", rows, {"mechanism": mechanism.name,
                                                                           "params": mechanism.params()})


def _level_leak(args):
    from ..audits.attacks.level_leak import level_leak_attack

    top = args.eps * 2.0 ** (args.h - 1)
    if top > 700:  # PPM's top level spends eps * 2^(h-1); mechanisms are exact up to eps 700
        raise ValueError(f"--eps {args.eps:g} with --h {args.h} gives the top privacy level eps * 2^(h-1) = "
                         f"{top:.3g}, above 700; the largest allowed --h here is "
                         f"{max(1, int(math.log2(700 / args.eps)) + 1)}")
    check_draws({"--samples": (args.samples, 100_000), "--d": (args.d, 64)}, "the level-leak attack")
    rows = []
    for mode in (("paper", "corrected") if args.mode == "both" else (args.mode,)):
        args.mode = mode
        rows += level_leak_attack(_ppm(args), samples=args.samples, seed=args.seed, alpha=_alpha(args))
    return AuditReport.of("PPGNN privacy-level leak", rows)


def _neighbour_vote(args):
    from ..audits.attacks.neighbour_vote import neighbour_vote_attack
    from ..mechanisms import make
    from ..mechanisms.personalised import PersonalisedMechanism
    from ..models import data

    graph = data.load(args.dataset, args.data_dir, args.cache_dir)
    if graph.x is None or graph.num_features == 0:
        raise ValueError(f"--dataset {args.dataset}: {graph.name} has no node features here; neighbour-vote needs "
                         "binary feature columns (cora, citeseer, facebook)")
    d = graph.num_features
    if args.columns > d:
        raise ValueError(f"--columns {args.columns:,} is more than the {d:,} feature columns of {graph.name}")
    methods = [("raw", None, None)]
    for eps in args.eps:
        methods += [("multibit", make("multibit", eps=eps, d=d, alpha=-1.0, beta=1.0), eps),
                    ("ppm", PersonalisedMechanism(eps, d), eps)]
    rows = neighbour_vote_attack(graph, methods, columns=args.columns, seed=args.seed, alpha=_alpha(args),
                                 band=args.band)
    return AuditReport.of(f"neighbour-vote attack on {graph.name}", rows, {"dataset": graph.name})


#: label-plurality holds every neighbourhood at once: per neighbourhood about 25 bytes per class (counts, ties,
#: random tie-breaks) and 32 bytes per neighbour (the repeated truth, its report and the index).
_PLURALITY_BYTES = {"class": 25, "neighbour": 32}


def _label_plurality(args):
    from ..audits.attacks.label_plurality import label_plurality_attack

    per_class, per_neighbour = args.samples * _PLURALITY_BYTES["class"], _PLURALITY_BYTES["neighbour"]
    if per_class * args.c >= args.samples * per_neighbour * max(args.neighbours):
        check_size("--c", args.c, per_class, f"{args.samples:,} neighbourhoods (--samples) of {args.c:,} classes",
                   fixed=args.samples * per_neighbour * max(args.neighbours))
    check_size("--samples", args.samples, _PLURALITY_BYTES["class"] * args.c + per_neighbour * max(args.neighbours),
               f"{args.samples:,} neighbourhoods of {args.c:,} classes and up to {max(args.neighbours):,} neighbours")

    rows = label_plurality_attack(args.c, args.eps, tuple(args.neighbours), samples=args.samples, seed=args.seed,
                                  alpha=_alpha(args))
    return AuditReport.of("label plurality (randomized response)", rows)


def _not_covered(args):
    from ..audits.attacks.not_covered import lpgnn_not_covered, ppgnn_not_covered

    rows = lpgnn_not_covered() if args.paper == "lpgnn" else ppgnn_not_covered()
    return AuditReport.of(f"not covered by {args.paper}'s guarantee", rows)


def register(sub) -> None:
    p = sub.add_parser("attack", help="attacks against their LDP bounds (own report, averaging, level leak, ...)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    attacks = p.add_subparsers(dest="attack", metavar="NAME", parser_class=type(p), help="the attack to run")
    attacks.required = True

    a = attacks.add_parser("own-report", help="Bayes attribute inference from a user's own report (lpgnn C12)")
    _mechanism_args(a)
    a.add_argument("--claimed-eps", type=positive, default=None, help="budget to hold the attack to (default: --eps)")
    _common(a, 200_000)
    a.set_defaults(func=_run(_own_report))

    a = attacks.add_parser("averaging", help="average R repeated queries of one user (lpgnn C11)")
    _mechanism_args(a)
    a.add_argument("--queries", type=integer(2, 10 ** 6), default=16, help="queries per user, >= 2 (default %(default)s)")
    a.add_argument("--no-memoise", action="store_true", help="re-encode on every query (the leaking mutant)")
    _common(a, 50_000)
    a.set_defaults(func=_run(_averaging))

    a = attacks.add_parser("level-leak", help="PPGNN's privacy level from the report (ppgnn C10-C11, E4-E5)")
    a.add_argument("--eps", type=eps_budget, default=1.0, help="base budget eps^1 (default %(default)s)")
    a.add_argument("--d", type=integer(1, 10 ** 6), default=64, help="feature dimension (default %(default)s)")
    a.add_argument("--h", type=integer(1, 64), default=5, help="number of levels (default %(default)s)")
    a.add_argument("--gamma", type=probability, default=0.5,
                   help="level share of the budget, in (0, 1) (default %(default)s)")
    a.add_argument("--mode", choices=("paper", "corrected", "both"), default="both",
                   help="PPM as printed, corrected, or both (default %(default)s)")
    _common(a, 100_000)
    a.set_defaults(func=_run(_level_leak))

    a = attacks.add_parser("neighbour-vote", help="majority vote over neighbours' reports (ppgnn A9, C18; not "
                                                  "bounded by LDP)")
    a.add_argument("--dataset", default="cora", help="a dataset with binary features (default %(default)s)")
    a.add_argument("--eps", type=eps_budget, nargs="+", default=[0.01, 0.1, 1.0], metavar="EPS", help="budgets (default %(default)s)")
    a.add_argument("--columns", type=integer(1, 10 ** 5), default=10,
                   help="most frequent binary columns (default %(default)s)")
    a.add_argument("--band", type=real(0.0, 0.5, low_open=True, high_open=True), default=0.03,
                   help="allowed distance of balanced accuracy from 0.5 (default %(default)s)")
    add_data_options(a)
    _common(a, None)
    a.set_defaults(func=_run(_neighbour_vote))

    a = attacks.add_parser("label-plurality", help="plurality of neighbours' RR labels (lpgnn C16; not bounded)")
    a.add_argument("--c", type=integer(2, 10 ** 6), default=7, help="classes (default %(default)s)")
    a.add_argument("--eps", type=eps_budget, default=1.0, help="label budget eps_y (default %(default)s)")
    a.add_argument("--neighbours", type=integer(1, 10 ** 4), nargs="+", default=[1, 4, 16], metavar="N",
                   help="numbers of neighbours N (default %(default)s)")
    _common(a, 100_000)
    a.set_defaults(func=_run(_label_plurality))

    a = attacks.add_parser("not-covered", help="what a paper's guarantee does not protect")
    a.add_argument("paper", choices=("lpgnn", "ppgnn"), help="whose guarantee")
    add_output_options(a)
    a.set_defaults(func=_run(_not_covered))


def _run(build):
    def run(args, console) -> int:
        quiet = getattr(args, "json", False) or getattr(args, "markdown", False)
        with spinner(console, f"running attack {args.attack}", enabled=not quiet):
            report = build(args)
        return emit(report, args, console)
    return run
