"""ldp-audit train lpgnn|ppgnn|ldp-ge --dataset cora --eps-x 1: train one
private GNN and print its test score.

Each pipeline reads its own options (see each option's help); an option of
another pipeline is refused. lpgnn has two budgets (--eps-x, --eps-y); ppgnn
and ldp-ge have one, given as --eps (or --eps-x).

ppgnn trains PPGNN's Table III pipeline (ppgnn A4, A5, A10). With --mechanism
ppm (default) every user perturbs its features with PPM at its own level's
budget (h = 5 levels 2^(tau-1) eps, gamma = 0.5), and FlexProp(K) weighted by
the reported levels propagates them. The baselines use eps for all users, with
KProp(K) mean and self-loops: mb (multi-bit, m sampled coordinates), and 1b,
lp, gm (one-bit, Laplace, Gaussian on every coordinate at eps/d; gm with the
corrected classical sigma, delta = 1e-5, which needs eps/d < 1). The backbone
is gcn by default; --mode corrected uses PPM's corrected mode. --levels,
--gamma, --level-distribution, --feature-propagation and --mechanism ppm-star
are the knobs PPGNN's figures sweep; --train-fraction is LPGNN's label rate.

--protocol released (ppgnn and ldp-ge) trains as the authors' released code
does (for ppgnn's gm: one analytic Gaussian on the whole vector, with no eps/d
limit); an option given on the command line wins over the preset.

The run is stored as one JSON under --results (default: train in
$XDG_DATA_HOME/ldp-audit, else ~/.local/share/ldp-audit): config, metrics at
the epoch chosen on validation, per-epoch curves, seed, device, versions and
wall time. An identical stored run is shown instead of retrained. --engine
dask --scheduler tcp://HOST:PORT trains it on a Dask cluster.
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from ._common import spinner
from ._common import add_sweep_options, sweep_engine
from .options import (DATA_HOME_HELP, add_data_options, add_device_option, check_paths, folder, integer, seed,
                      user_data_folder)

def budget(flag: str):
    """argparse type for a privacy budget: a number > 0, or 'inf' for no perturbation."""
    def parse(text: str):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} must be a number > 0 or 'inf', got {text!r}") from None
        if not value > 0 or math.isnan(value):
            raise argparse.ArgumentTypeError(f"{flag} must be > 0 (or 'inf' for no perturbation), got {text!r}")
        return None if math.isinf(value) else value
    return parse


def fraction(flag: str, closed_high: bool):
    """argparse type for a number in (0, 1] (``closed_high``) or (0, 1)."""
    allowed = "in (0, 1]" if closed_high else "in the open interval (0, 1)"

    def parse(text: str):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} must be a number {allowed}, got {text!r}") from None
        if not (0 < value < 1 or (closed_high and value == 1)):
            raise argparse.ArgumentTypeError(f"{flag} must be a number {allowed}, got {text!r}")
        return value
    return parse


#: KProp / label-propagation steps are capped here: each step is a sparse product over every edge, and far
#: below this the features have long converged (the papers use K <= 32).
MAX_STEPS = 1000
#: Options each pipeline reads (``dest`` names); any other pipeline option given on the command line is refused.
PIPELINE_OPTIONS = {
    "lpgnn": {"eps_x", "eps_y", "k", "k_y", "features", "model", "objective", "selection", "epochs", "train_fraction"},
    "ppgnn": {"eps", "eps_x", "mechanism", "mode", "k", "model", "objective", "selection", "epochs", "levels",
              "gamma", "level_distribution", "feature_propagation", "protocol"},
    "ldp-ge": {"eps", "eps_x", "mechanism", "task", "sampled", "propagation", "rescale", "epochs", "downstream",
               "protocol"},
}
#: The pipeline options, with the defaults that apply when they are not given.
DEFAULTS = {"eps": None, "eps_x": 1.0, "eps_y": None, "k": 4, "k_y": 0, "features": "raw", "model": None,
            "objective": None, "selection": None, "epochs": None, "mechanism": None, "mode": "paper",
            "task": "link", "sampled": None, "propagation": "push", "rescale": False, "downstream": "mlp",
            "train_fraction": 1.0, "levels": 5, "gamma": 0.5, "level_distribution": "uniform",
            "feature_propagation": "auto", "protocol": "spec"}
#: Config fields whose command-line option has another name (``dest``): LDP-GE's ``method`` is --propagation.
FIELD_OPTIONS = {"method": "propagation"}


def register(sub) -> None:
    from ..models.training.config import (LEVEL_DISTRIBUTIONS, MAX_PPM_LEVELS, MODELS, OBJECTIVES, PROPAGATIONS,
                                          SELECTIONS)

    p = sub.add_parser("train", help="train one private GNN (LPGNN, PPGNN or LDP-GE) and print its test score",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("pipeline", choices=("lpgnn", "ppgnn", "ldp-ge"), help="which private pipeline")
    p.add_argument("--mechanism", type=str.lower,
                   choices=("ppm", "ppm-star", "mb", "1b", "lp", "gm", "hds", "pm"), default=argparse.SUPPRESS,
                   help="ppgnn and ldp-ge: feature mechanism: ppgnn ppm (personalised levels + FlexProp), ppm-star "
                        "(PPM*, Laplace inside MLR), or the Table III baselines mb, 1b, lp, gm (+ KProp), default "
                        "ppm; ldp-ge hds, lp, pm or mb, default hds")
    p.add_argument("--mode", choices=("paper", "corrected"), default=argparse.SUPPRESS,
                   help="ppgnn only: PPM as printed (Algorithm 3) or corrected (public level budget, "
                        "server-side rescaling; spec C10-C11); default paper")
    p.add_argument("--dataset", default="cora", help="dataset name (see `ldp-audit data`; default cora)")
    p.add_argument("--eps", type=budget("--eps"), default=argparse.SUPPRESS,
                   help="ppgnn and ldp-ge: the pipeline's one privacy budget (the same as --eps-x there)")
    p.add_argument("--eps-x", type=budget("--eps-x"), default=argparse.SUPPRESS,
                   help="feature budget eps_x (lpgnn's multi-bit encoder; ppgnn's and ldp-ge's one budget); "
                        "'inf' = raw features (default 1)")
    p.add_argument("--eps-y", type=budget("--eps-y"), default=argparse.SUPPRESS,
                   help="lpgnn only: label budget eps_y (randomized response); default: clean labels")
    p.add_argument("--k", type=integer(0, MAX_STEPS), default=argparse.SUPPRESS,
                   help=f"lpgnn and ppgnn: propagation steps K_x, at most {MAX_STEPS} (default 4)")
    p.add_argument("--k-y", type=integer(0, MAX_STEPS), default=argparse.SUPPRESS,
                   help="lpgnn only: Drop label-propagation steps K_y (default 0)")
    p.add_argument("--features", choices=("raw", "rnd", "ohd"), default=argparse.SUPPRESS,
                   help="lpgnn only: raw dataset features (perturbed with eps_x), random (RND) or one-hot degree "
                        "(OHD); default raw")
    p.add_argument("--model", choices=MODELS, default=argparse.SUPPRESS,
                   help="lpgnn and ppgnn: backbone (default: lpgnn, the seed's network, for lpgnn; gcn for ppgnn)")
    p.add_argument("--objective", choices=OBJECTIVES, default=argparse.SUPPRESS,
                   help="lpgnn and ppgnn: loss (default: drop when --eps-y is given, else cross_entropy)")
    p.add_argument("--selection", choices=SELECTIONS, default=argparse.SUPPRESS,
                   help="lpgnn and ppgnn: checkpoint rule on validation (default: ccs with --eps-y, else val_loss)")
    p.add_argument("--epochs", type=integer(1, 10 ** 6), default=argparse.SUPPRESS,
                   help="training epochs (default 500; ldp-ge: at most 1000, with early stopping)")
    p.add_argument("--lr", type=float, help="learning rate (default: the paper's per dataset)")
    p.add_argument("--weight-decay", type=float, help="weight decay (default: the paper's per dataset)")
    p.add_argument("--dropout", type=float, help="dropout (default: the paper's per dataset)")
    p.add_argument("--seed", type=seed, default=0,
                   help="run seed: every random stream of the run derives from it (default 0)")
    p.add_argument("--protocol", choices=("spec", "released"), default=argparse.SUPPRESS,
                   help="ppgnn and ldp-ge: training protocol, the spec's (default) or the authors' released code's "
                        "(ppgnn: SAGE, lr 0.01, weight decay 0.01, dropout 0.75, the saturating loss, the "
                        "all-improve checkpoint rule, the released PPM and LPGNN's baselines; ldp-ge: backward push "
                        "with a relative threshold, split signs and the leftover residue, reports in raw units, "
                        "Kaiming-uniform init); an option given on the command line wins over the preset")
    p.add_argument("--train-fraction", type=fraction("--train-fraction", closed_high=True),
                   default=argparse.SUPPRESS, help="lpgnn only: the fraction of the training split whose labels "
                   "train the run, in (0, 1] (label rate = 50 %% x fraction, lpgnn Fig. 7); default 1")
    ppgnn = p.add_argument_group("ppgnn only (defaults: the paper's, ppgnn A8 and Sec. IV-C)")
    ppgnn.add_argument("--levels", type=integer(1, MAX_PPM_LEVELS),
                       default=argparse.SUPPRESS, help=f"h, the number of privacy levels 2^(tau-1) eps, 1 to "
                       f"{MAX_PPM_LEVELS} (default 5)")
    ppgnn.add_argument("--gamma", type=fraction("--gamma", closed_high=False),
                       default=argparse.SUPPRESS, help="share of a user's budget for its level report, in (0, 1) "
                       "(default 0.5)")
    ppgnn.add_argument("--level-distribution", choices=LEVEL_DISTRIBUTIONS, default=argparse.SUPPRESS,
                       help="how users' levels are drawn (default uniform)")
    ppgnn.add_argument("--feature-propagation", choices=PROPAGATIONS, default=argparse.SUPPRESS,
                       help="propagation of the reports: auto (FlexProp for ppm and ppm-star, KProp otherwise), "
                       "kprop or flexprop")
    ldp_ge = p.add_argument_group("ldp-ge only (--eps is the feature budget; the rest from the spec)")
    ldp_ge.add_argument("--task", choices=("node", "link"), default=argparse.SUPPRESS,
                        help="node classification or link prediction (default link)")
    ldp_ge.add_argument("--sampled", type=integer(1), default=argparse.SUPPRESS,
                        help="k, the sampled coordinates (default: the paper's per dataset / the released rule)")
    ldp_ge.add_argument("--propagation", choices=("push", "power", "auto"), default=argparse.SUPPRESS,
                        help="backward push (A3, default), power iteration (A2) or auto (the cheaper of the two "
                             "at push's error bound)")
    ldp_ge.add_argument("--rescale", action="store_true", default=argparse.SUPPRESS,
                        help="divide the reports by a public constant of (mechanism, eps, d, k) before training "
                             "(not in the paper; keeps MB/PM/LP estimates from saturating the link MLP)")
    ldp_ge.add_argument("--downstream", choices=("mlp", "logreg"), default=argparse.SUPPRESS,
                        help="the classifier on the embeddings: the released code's mlp (default) or the paper's "
                             "logistic regression (one linear layer with a bias; --task node or link)")
    add_device_option(p)
    add_sweep_options(p, workers=1)
    p.add_argument("--results", default=None, metavar="DIR", type=folder,
                   help=f"folder of run JSONs (default train in {DATA_HOME_HELP}; never the working directory)")
    p.add_argument("--json", action="store_true", help="print the result JSON instead of a table")
    add_data_options(p)
    p.set_defaults(func=run)


def pipeline_options(args) -> None:
    """Refuse the options the chosen pipeline does not read (naming them), reconcile --eps with --eps-x, and
    fill in the defaults of the ones it does (they are absent from ``args`` when not given)."""
    given = [name for name in DEFAULTS if name in vars(args)]
    foreign = [name for name in given if name not in PIPELINE_OPTIONS[args.pipeline]]
    if foreign:
        hint = "; lpgnn has two budgets: give --eps-x and --eps-y" if "eps" in foreign else ""
        raise ValueError(f"{', '.join(map(_flag, foreign))}: not an option of train {args.pipeline}, which reads "
                         f"{', '.join(map(_flag, sorted(PIPELINE_OPTIONS[args.pipeline])))}{hint}")
    if "eps" in given and "eps_x" in given and args.eps != args.eps_x:
        raise ValueError(f"--eps and --eps-x name the same budget of {args.pipeline}; give one")
    if "eps" in given:
        args.eps_x = args.eps
        given.append("eps_x")
    args.budget_flag = "--eps" if "eps" in given else "--eps-x"  # the spelling the user chose, for messages
    args.given = set(given)
    for name, default in DEFAULTS.items():
        if name not in given:
            setattr(args, name, default)


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _given(args, dest: str) -> bool:
    """Whether the option ``dest`` was given on the command line (pipeline options are recorded in ``args.given``
    by :func:`pipeline_options`; the others, such as --lr, default to None)."""
    return dest in args.given if dest in DEFAULTS else getattr(args, dest, None) is not None


def under_protocol(args, paper: str, config):
    """``config`` under the preset ``--protocol`` of ``paper`` (``protocols.protocol``): an element whose field has
    an option of its own yields to that option when it is given; the others always apply."""
    from dataclasses import replace

    from ..models.training.protocols import protocol

    kept = [e for e in protocol(paper, args.protocol).elements if not _given(args, FIELD_OPTIONS.get(e.field, e.field))]
    return replace(config, **{e.field: e.value for e in kept})


def run(args, console) -> int:

    pipeline_options(args)
    root = Path(args.results) if args.results else user_data_folder() / "train"
    check_paths(args, root)
    if args.pipeline == "ldp-ge":
        return run_ldp_ge(args, console, root)
    from ..models import data
    from ..models.training import RunConfig, RunStore
    from ..models.training.lpgnn import HYPERPARAMETERS
    from ..models.training.runtime import choose_device

    device = choose_device(args.device)
    graph = data.load(args.dataset, args.data_dir, args.cache_dir)
    if args.features == "raw" and graph.x is None:
        raise ValueError(f"--features raw needs node features, but {graph.missing_features or graph.name + ' has none'}"
                         "; use --features rnd or ohd")
    if args.features != "raw" and "eps_x" in args.given and args.eps_x is not None:
        raise ValueError(f"--eps-x {args.eps_x:g}: --features {args.features} draws features that hold nothing "
                         "private, so nothing is perturbed and no budget applies; drop --eps-x, or use --features raw")
    lr, wd, dropout = HYPERPARAMETERS.get(graph.name, (0.01, 0.0, 0.0))
    objective = args.objective or ("drop" if args.eps_y is not None else "cross_entropy")
    config = RunConfig(graph.name, features=args.features, eps_x=args.eps_x if args.features == "raw" else None,
                       eps_y=args.eps_y, k_x=args.k, k_y=args.k_y, model=args.model or "lpgnn", objective=objective,
                       selection=args.selection or ("ccs" if args.eps_y is not None else "val_loss"),
                       lr=lr if args.lr is None else args.lr,
                       weight_decay=wd if args.weight_decay is None else args.weight_decay,
                       dropout=dropout if args.dropout is None else args.dropout, epochs=args.epochs or 500,
                       train_fraction=args.train_fraction, seed=args.seed)
    if args.pipeline == "ppgnn":
        config = _ppgnn_config(args, graph.name, config, graph.num_features)
    store = RunStore(root)
    result, stored = _train_or_load(args, console, config, store, device,
                                    f"training {config.model} on {graph.name}")
    if args.json:
        print(json.dumps(result.to_dict()))
        return 0
    from rich.table import Table

    table = Table(title=f"{args.pipeline} on {graph.name}: test accuracy {100 * result.test_accuracy:.2f} %")
    table.add_column("setting")
    table.add_column("value")
    for key, value in config.to_dict().items():
        table.add_row(key, "inf" if value is None and key.startswith("eps") else str(value))
    m = result.metrics
    table.add_row("epoch chosen on validation", str(m["epoch"]))
    table.add_row("val accuracy / loss", f"{100 * m['val_acc']:.2f} % / {m['val_loss']:.4f}")
    table.add_row("best test accuracy over epochs (for comparison only)", f"{100 * m['test_acc_best']:.2f} %")
    table.add_row("device", f"{result.device} ({result.device_name})")
    table.add_row("wall time", f"{result.wall_time_s:.1f} s" + (" (stored run)" if stored else ""))
    table.add_row("result", str(store.path(config)))
    console.print(table)
    return 0


def _train_or_load(args, console, config, store, device, what: str):
    """``(result, stored)``: the stored run of ``config``, else one trained by the training core's sweep on the
    chosen engine and saved (the same path as ``reproduce``, for every pipeline)."""
    from ..models.training.sweep import TRAIN_BATCH, run_sweep

    result = store.load(config)
    if result is not None:
        return result, True
    with spinner(console, what, enabled=not args.json), sweep_engine(args) as engine:
        results = run_sweep([config], store, engine, device, args.data_dir, args.cache_dir, run_batch=TRAIN_BATCH,
                            batch_key=None)
    return results[config], False


def _ppgnn_config(args, dataset: str, lpgnn_config, d: int):
    """The ppgnn run the options describe: Table III's configuration with the user's overrides (d: features)."""
    from dataclasses import replace

    from ..models.training.ppgnn import ppgnn_config

    if args.eps_x is None:
        raise ValueError(f"{args.budget_flag}: ppgnn perturbs the dataset's own features; it needs a finite budget")
    mechanism = args.mechanism or "ppm"
    if mechanism not in ("ppm", "ppm-star", "mb", "1b", "lp", "gm"):
        raise ValueError(f"--mechanism: ppgnn takes ppm, ppm-star, mb, 1b, lp or gm, got {args.mechanism!r}")
    if args.mode == "corrected" and mechanism != "ppm":
        raise ValueError("--mode corrected is a mode of PPM: it needs --mechanism ppm")
    base = ppgnn_config(dataset, "PPM" if mechanism == "ppm-star" else mechanism.upper(), args.eps_x, args.k,
                        args.seed, args.model or "gcn")
    changes = {name: getattr(args, name) for name in ("lr", "weight_decay", "dropout")
               if getattr(args, name) is not None}
    changes.update(ppm_levels=args.levels, ppm_gamma=args.gamma, level_distribution=args.level_distribution,
                   propagation=args.feature_propagation)
    if mechanism == "ppm-star":
        changes["mechanism"] = "ppm_star"
    if mechanism == "ppm" and args.mode == "corrected":
        changes["mechanism"] = "ppm_corrected"
    config = replace(base, epochs=lpgnn_config.epochs, objective=lpgnn_config.objective,
                     selection=lpgnn_config.selection, **changes)
    config = under_protocol(args, "ppgnn", config)
    if config.gaussian_baseline == "per_coordinate" and config.mechanism == "gaussian_hd" and not args.eps_x < d:
        raise ValueError(f"{args.budget_flag}: gm's classical calibration needs eps/d < 1, i.e. "
                         f"{args.budget_flag} in (0, {d}) on {dataset}, got {args.eps_x:g} (the released "
                         "protocol's analytic Gaussian has no such limit)")
    return config


def run_ldp_ge(args, console, root) -> int:
    """``train ldp-ge``: one LDP-GE run (MLP on --device, propagation on the CPU), stored as one JSON under
    ``root``; prints accuracy (node) or AUC (link)."""
    from ..models import data
    from ..models.training import RunStore, ldp_ge
    from ..models.training.runtime import choose_device

    device = choose_device(args.device)
    graph = data.load(args.dataset, args.data_dir, args.cache_dir)
    changes = {k: v for k, v in (("lr", args.lr), ("weight_decay", args.weight_decay), ("dropout", args.dropout),
                                 ("epochs", args.epochs)) if v is not None}
    mechanism = (args.mechanism or "hds").upper()
    if mechanism not in ("HDS", "LP", "PM", "MB"):
        raise ValueError(f"--mechanism: ldp-ge takes hds, lp, pm or mb, got {args.mechanism!r}")
    config = ldp_ge.preset(graph.name, args.task, mechanism=mechanism, eps=args.eps_x, k=args.sampled,
                           method=args.propagation, rescale=args.rescale, downstream=args.downstream,
                           seed=args.seed, **changes)
    config = under_protocol(args, "ldp-ge", config)
    try:  # before any work: a k the dataset cannot sample
        config.sampled(graph.num_features)
    except ValueError as exc:
        raise ValueError(f"--sampled: {exc}") from None
    store = RunStore(root)
    result, stored = _train_or_load(args, console, config, store, device,
                                    f"ldp-ge {args.task} on {graph.name}")
    if args.json:
        print(json.dumps(result.to_dict()))
        return 0
    from rich.table import Table

    metric = "AUC" if config.task == "link" else "accuracy"
    table = Table(title=f"ldp-ge {config.task} on {graph.name}: test {metric} {100 * result.test_score:.2f} %")
    table.add_column("setting")
    table.add_column("value")
    for key, value in config.to_dict().items():
        table.add_row(key, "inf (non-private)" if value is None and key == "eps" else str(value))
    m = result.metrics
    table.add_row("k used", str(result.extra["k"]))
    table.add_row("propagation", result.extra["propagation"])
    table.add_row("epoch chosen on validation", f"{m['epoch']} of {m['epochs_run']}")
    table.add_row(f"validation {metric}", f"{100 * result.val_score:.2f} %")
    table.add_row("device", result.device_label)
    table.add_row("wall time", f"{result.wall_time_s:.1f} s" + (" (stored run)" if stored else ""))
    table.add_row("result", str(store.path(config)))
    console.print(table)
    return 0
