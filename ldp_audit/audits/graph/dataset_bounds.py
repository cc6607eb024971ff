"""``ldp-audit bounds``: the graph-level checks of one paper on a loaded dataset, as one report."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ...mechanisms.personalised import PersonalisedMechanism
from ...models import propagation as prop
from ...models.perturbation import as_dense, server_estimates, unit_box_mechanism
from ...papers import graph_rates
from ...seeding import rng_for
from .aggregation import FLEXPROP_DRAWS, check_flexprop_weighting, check_linear_aggregation, check_mean_aggregation, compare_mae
from .bounds import BoundSetting, check_eps_rate, check_error_bound, check_push
from ..kernel.result import AuditReport, CheckResult


def probe_nodes(graph, count: int = 3) -> np.ndarray:
    """Nodes whose bounds are checked: the highest-degree node, a median-degree one, a lowest-degree one."""
    degrees = graph.degrees
    order = np.flatnonzero(degrees > 0)[np.argsort(degrees[degrees > 0], kind="stable")]
    picks = [order[-1], order[order.size // 2], order[0]][:count]
    return np.unique(np.asarray(picks, dtype=np.int64))


#: Feature columns of the moment checks on datasets. Sampled reports put a coordinate's whole signal into
#: rare events (probability k/d); with few columns the batch-means tests see enough of them to be valid.
MOMENT_COLUMNS = 8


def _require_unbiased(mechanism, paper: str) -> None:
    """lpgnn's and ppgnn's aggregation bounds (Cor. 3.5 / Prop. 3.6, Thm 3-4) are about unbiased server
    estimates; a mechanism whose estimate is biased (HDS: no d/k rescaling) fails them for no fault of the
    paper's, so it is refused. Checked from the exact mean of the estimate at the mechanism's audit inputs."""
    inputs = np.asarray(mechanism.audit_inputs, dtype=float)
    means = np.array([float(np.asarray(mechanism.estimate_mean(x)).ravel()[0]) for x in inputs])
    worst = int(np.argmax(np.abs(means - inputs)))
    if abs(means[worst] - inputs[worst]) > 1e-9 * max(1.0, abs(inputs[worst])):
        raise ValueError(f"--mechanism {mechanism.name}: its server estimate is biased (E[estimate] = "
                         f"{means[worst]:.4g} at x = {inputs[worst]:g}), and the {paper} bounds are about unbiased "
                         "estimates; give an unbiased one such as multibit, mlr or laplace_hd")


def audit_dataset(paper: str, graph, mechanism: str, eps: float, *, reps: int = 200, seed: int = 0,
                  delta: float = 0.1, alpha: float = 1e-3, features: int | None = 128, k=None,
                  ppr_alpha: float = 0.1, r: float = 0.5, r_max: float = 1e-4, steps: int = 2,
                  progress: Callable[[str], None] = lambda _: None):
    """The graph-level checks of ``paper`` on a loaded dataset (``ldp-audit bounds``); returns an AuditReport.

    Features are mapped to [-1, 1] with the dataset's public bounds (first ``features`` columns; ``None`` for
    all); probe nodes come from :func:`probe_nodes`. ``progress`` receives a line per stage.
    """
    if paper not in ("ldp-ge", "lpgnn", "ppgnn"):
        raise ValueError(f"paper must be 'ldp-ge', 'lpgnn' or 'ppgnn', got {paper!r}")
    if not (isinstance(reps, int) and reps >= 50):
        raise ValueError(f"reps must be an integer >= 50, got {reps!r}")
    if not 0 < delta < 1:
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
    columns = None if features is None else range(min(int(features), graph.num_features))
    x = graph.normalized_features(columns=columns, clip=False)
    d = x.shape[1]
    nodes = probe_nodes(graph)
    adjacency = graph.adjacency
    mech = unit_box_mechanism(mechanism, eps, d, k)
    if paper != "ldp-ge":
        _require_unbiased(mech, paper)
    results: list[CheckResult] = []
    name = f"{graph.name} (n={graph.num_nodes}, d={d})"
    if paper == "ldp-ge":
        progress("push against the exact operator")
        reports = as_dense(server_estimates(mech, x, rng_for(seed)))[:, :16]
        results.append(check_push(adjacency, reports, ppr_alpha, r, r_max))
        progress("error bound")
        setting = BoundSetting(prop.ppr_rows(adjacency, nodes, ppr_alpha, r), x, nodes, f"{name}, r={r:g}")
        claim = {"hds": "ldp-ge Thm 2, explicit (C14)", "laplace_hd": "ldp-ge Thm 3 (C16)"}.get(
            mechanism, "ldp-ge Thm 4, explicit (C17)")
        results.append(check_error_bound(setting, mech, delta, reps, seed, alpha, f"ldp-ge.bound.{mechanism}",
                                         claim))
        progress("rate in eps")
        results.append(check_eps_rate(setting, lambda e: unit_box_mechanism(mechanism, e, d, k), mechanism, eps, reps,
                                      seed, delta))
    elif paper == "lpgnn":
        progress("KProp moments")
        narrow = x[:, :MOMENT_COLUMNS]
        results += check_linear_aggregation(adjacency, narrow, unit_box_mechanism(mechanism, eps, narrow.shape[1], k),
                                            prop.KProp(steps=steps, aggregator="gcn"), nodes, max(reps, 5000),
                                            seed, alpha, "lpgnn", tag=f".K={steps}")
        progress("neighbourhood bound and rate")
        results += check_mean_aggregation(mech, x, (1, 2, 4, 8, 16), delta, reps, seed, alpha,
                                          graph_rates.LPGNN_PROP36)
        progress("MAE")
        mechs = {"MBM": unit_box_mechanism("multibit", eps, d, "lpgnn"), "AGM": unit_box_mechanism("analytic_gaussian", eps, d),
                 "1BM": unit_box_mechanism("multibit", eps, d, d)}
        results += compare_mae(adjacency, x, mechs, seed, name)
    else:
        progress("FlexProp moments")
        narrow = x[:, :MOMENT_COLUMNS]
        users = PersonalisedMechanism(eps, narrow.shape[1]).draw(graph.num_nodes, rng_for(seed))
        flex = prop.FlexProp(steps=steps, weights=prop.flexprop_weights("tau_prime", tau_prime=users.tau_prime))
        results += check_linear_aggregation(adjacency, narrow, users.mechanisms, flex, nodes, max(reps, 5000),
                                            seed, alpha, "ppgnn", tag=f".K={steps}")
        progress("weights")
        results += check_flexprop_weighting(d, eps, int(np.median(graph.degrees)) + 1, FLEXPROP_DRAWS, seed)
        progress("neighbourhood bound and rate")
        results += check_mean_aggregation(mech, x, (5, 10, 20, 40), delta, reps, seed, alpha,
                                          graph_rates.PPGNN_THM4)
    return AuditReport.of(f"{paper} bounds on {graph.name}", results,
                          subject={"paper": paper, "dataset": graph.name, "mechanism": mech.name,
                                   "params": mech.params(), "nodes": nodes.tolist()},
                          settings={"reps": reps, "seed": seed, "delta": delta, "alpha": alpha,
                                    "features": d, "ppr_alpha": ppr_alpha, "r": r, "r_max": r_max,
                                    "steps": steps})
