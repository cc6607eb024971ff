"""Why LDP-GE's link scorer collapses to AUC 0.5 under the data-bounds hypothesis (issue 26): the share of the
MLP's first-layer units that are live (positive on at least one validation pair) epoch by epoch, and the number
of distinct validation scores, for one cell under the released preset with each feature-bounds choice.

With the bounds of the data (``feature_bounds=columns``) every report is shrunk by its column's maximum, and on
L1-normalised rows the embeddings are so small that a few Adam steps push every first-layer unit below zero: the
network outputs one score for every pair (AUC exactly 0.5) and has no gradient left. The public bounds keep about
half the units live. The runs are the pipeline's own (``ldp_ge.link_training``: same seeds, split, propagation
and MLP as ``reproduce``); nothing is stored.

    python benchmarks/ldp_ge_dead_units.py [--dataset pubmed] [--mechanism HDS] [--eps 1] [--epochs 3]
"""
from __future__ import annotations

import argparse


def live_units(model, z, pairs) -> tuple[float, int]:
    """(share of first-layer units positive on some pair, distinct scores over the pairs) of the link MLP."""
    import torch

    first = next(m for m in model.modules() if isinstance(m, torch.nn.Linear))
    model.eval()
    with torch.no_grad():
        products = z[pairs[0]] * z[pairs[1]]
        live = (first(products) > 0).any(dim=0).float().mean().item()
        distinct = torch.unique(model(products)).numel()
    return live, distinct


def main() -> None:
    import torch
    from rich.console import Console
    from rich.table import Table

    from ldp_audit import streams
    from ldp_audit.models import data
    from ldp_audit.models.training import ldp_ge
    from ldp_audit.models.training.protocols import protocol
    from ldp_audit.seeding import rng_for

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="pubmed")
    parser.add_argument("--mechanism", default="HDS", choices=("LP", "PM", "MB", "HDS"))
    parser.add_argument("--eps", type=float, default=1.0)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)

    graph = data.load(args.dataset, args.data_dir)
    released = protocol("ldp-ge", "released")
    table = Table(title=f"{args.dataset} link {args.mechanism} eps={args.eps:g}, released preset + L1 rows: "
                        "live first-layer units / distinct validation scores / validation AUC")
    table.add_column("feature_bounds")
    for epoch in range(args.epochs + 1):
        table.add_column("init" if epoch == 0 else f"epoch {epoch}", justify="right")
    for bounds in ("public", "columns"):
        config = released.apply(ldp_ge.preset(args.dataset, "link", mechanism=args.mechanism, eps=args.eps,
                                              feature_rows="l1", feature_bounds=bounds, method="push"))
        reports = ldp_ge.client_reports(graph, config, rng_for(config.seed, *streams.FEATURES.key()))
        link = ldp_ge.link_training(graph, reports, config)
        pairs = torch.as_tensor(link.split.val_pos)
        cells = []
        for epoch in range(args.epochs + 1):
            if epoch:
                link.epoch_step()
            live, distinct = live_units(link.model, link.embedding, pairs)
            cells.append(f"{live:.2f} / {distinct} / {100 * link.evaluate()[0]:.1f}")
        table.add_row(bounds, *cells)
    Console().print(table)


if __name__ == "__main__":
    main()
