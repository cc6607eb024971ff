"""``ldp-audit bounds PAPER --dataset NAME --mechanism MECH --eps E``: the graph papers' error bounds on real data."""
from __future__ import annotations

from contextlib import contextmanager

from ._common import add_engine_options, add_output_options, emit, engine_for, spinner
from .options import add_data_options, check_memory, eps_budget, integer, probability, real, seed

PAPERS = ("ldp-ge", "lpgnn", "ppgnn")
DEFAULT_MECHANISM = {"ldp-ge": "hds", "lpgnn": "multibit", "ppgnn": "mlr"}
DEFAULT_FEATURES = 128


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "bounds", help="check propagation and error-bound claims of ldp-ge, lpgnn or ppgnn on a graph",
        description="Perturb the dataset's features with MECH, propagate them, and check the paper's explicit "
                    "error bounds (exceedance counts, exact binomial tests), its printed rates (log-log "
                    "slopes) and its aggregation moments. Exit 1 when a check fails.")
    parser.add_argument("paper", choices=PAPERS, help="whose bounds")
    parser.add_argument("--dataset", default="cora",
                        help="dataset name (see `ldp-audit data`; default cora)")
    parser.add_argument("--mechanism",
                        help="mechanism (default: hds for ldp-ge, multibit for lpgnn, mlr for ppgnn)")
    parser.add_argument("--eps", type=eps_budget, default=1.0,
                        help="privacy budget > 0 (ppgnn: base budget eps^1; default %(default)s)")
    parser.add_argument("--k", help="sampled coordinates: an integer or a rule such as 'lpgnn' (default: the "
                                    "mechanism's own)")
    parser.add_argument("--features", type=integer(0, 10 ** 6), default=DEFAULT_FEATURES,
                        help=f"use the first F feature columns (0: all; default {DEFAULT_FEATURES}, or all when "
                             "the dataset has fewer)")
    parser.add_argument("--reps", type=integer(50), default=200,
                        help="repeated perturbations per check, >= 50 (default 200)")
    parser.add_argument("--delta", type=probability, default=0.1,
                        help="failure probability of the bounds, in (0, 1) (default 0.1)")
    parser.add_argument("--alpha", type=probability, default=1e-3,
                        help="false-alarm rate per check, in (0, 1) (default 1e-3)")
    parser.add_argument("--seed", type=seed, default=20240601, help="seed of all sampling (default %(default)s)")
    parser.add_argument("--steps", type=integer(0, 1000), default=None,
                        help="KProp / FlexProp steps K (lpgnn, ppgnn; default 2)")
    parser.add_argument("--ppr-alpha", type=probability, default=None,
                        help="PPR decay alpha in (0, 1) (ldp-ge; default 0.1)")
    parser.add_argument("--r", type=real(0.0, 1.0), default=None,
                        help="PPR convolution coefficient r in [0, 1] (ldp-ge; default 0.5)")
    parser.add_argument("--r-max", type=real(0.0, 1.0, low_open=True), default=None,
                        help="push threshold r_max in (0, 1] (ldp-ge; default 1e-4)")
    add_engine_options(parser)
    add_data_options(parser)
    add_output_options(parser)
    parser.set_defaults(func=run)


#: The propagation options each paper's bounds read, with their defaults; another paper's option is refused.
PROPAGATION_OPTIONS = {"ldp-ge": {"ppr_alpha": 0.1, "r": 0.5, "r_max": 1e-4},
                       "lpgnn": {"steps": 2}, "ppgnn": {"steps": 2}}


def _propagation(args) -> dict:
    """The paper's propagation settings; an option the paper's bounds do not read is an error, not ignored."""
    own = PROPAGATION_OPTIONS[args.paper]
    ignored = [name for options in PROPAGATION_OPTIONS.values() for name in options
               if name not in own and getattr(args, name) is not None]
    if ignored:
        flags = ", ".join(sorted({"--" + name.replace("_", "-") for name in ignored}))
        reads = ", ".join("--" + name.replace("_", "-") for name in own)
        raise ValueError(f"{flags}: not read by the {args.paper} bounds (they read {reads})")
    return {name: default if getattr(args, name) is None else getattr(args, name) for name, default in own.items()}


def run(args, console) -> int:
    from ..audits.graph.dataset_bounds import audit_dataset
    from ..models import data

    propagation = _propagation(args)

    k = None if args.k is None else (int(args.k) if args.k.isdigit() else args.k)
    graph = data.load(args.dataset, args.data_dir, args.cache_dir)
    if args.features > graph.num_features and args.features != DEFAULT_FEATURES:
        raise ValueError(f"--features {args.features:,} is more than the {graph.num_features:,} feature columns of "
                         f"{graph.name} (0: all of them)")
    mechanism = args.mechanism or DEFAULT_MECHANISM[args.paper]
    from ..mechanisms.registry import available

    info = next((i for i in available() if i.name == mechanism), None)
    if info is not None and not info.high_dimensional:
        raise ValueError(f"--mechanism {mechanism} perturbs one number; the bounds perturb feature vectors, so "
                         "give a high-dimensional mechanism: "
                         + ", ".join(i.name for i in available() if i.high_dimensional))
    columns = min(args.features or graph.num_features, max(graph.num_features, 1))
    # propagated replicates: (reps, probe nodes, columns) float64, plus the moment checks' >= 5000 replicates
    check_memory("--reps", 8.0 * max(args.reps, 5000) * 3 * columns * 2, f"{args.reps} replicates of "
                 f"{columns} columns")
    quiet = args.json or args.markdown
    with engine_for(args), spinner(console, "auditing", enabled=not quiet) as status, _overflow_names_eps(args.eps):
        report = audit_dataset(args.paper, graph, mechanism, args.eps,
                               reps=args.reps, seed=args.seed, delta=args.delta, alpha=args.alpha,
                               features=args.features or None, k=k, **propagation,
                               progress=lambda line: status.update(f"{args.paper} on {graph.name}: {line}"))
    return emit(report, args, console)



@contextmanager
def _overflow_names_eps(eps: float):
    """At a tiny --eps the closed-form variances (about 1/eps^2) leave float64: say so and name the option."""
    try:
        yield
    except (OverflowError, ZeroDivisionError) as exc:
        raise ValueError(f"--eps {eps:g} is too small for this audit: the estimates' variance is not representable "
                         f"in float64 ({type(exc).__name__}: {exc}); use a larger --eps") from None
