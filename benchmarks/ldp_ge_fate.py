"""Which draw decides whether an LDP-GE link run learns (issue 26): the users' reports or the server's training.

Under the spec's protocol PubMed's PM and MB link runs split in two: a run either scores 74-78 (the printed rows)
or stays at chance (49-52), and the share that learns rises with eps (`full-cpu/pubmed-report.json`). A run's
seed draws both its reports (the FEATURES stream) and its training (the MLP's initial weights, batch order and
negative pairs). This crosses them: every report draw of ``--seeds`` is trained under every training draw, as
``reproduce`` trains it (``ldp_ge.training``: same split, propagation and MLP), for ``--epochs`` epochs. If
the fate follows the rows, the reports decide; if it follows the columns, the training does. Nothing is stored.

    python benchmarks/ldp_ge_fate.py [--dataset pubmed] [--mechanism PM] [--eps 3] [--seeds 0 1 2 3 4] \\
        [--epochs 20] [--data-dir DIR]
"""
from __future__ import annotations

import argparse
from dataclasses import replace


def validation_auc(graph, reports, config, epochs: int) -> float:
    """Validation AUC (%) after ``epochs`` epochs of the link task trained under ``config``'s streams."""
    from ldp_audit.models.training import ldp_ge

    link = ldp_ge.training(graph, reports, config)
    for _ in range(epochs):
        link.epoch_step()
    return 100 * link.evaluate()[0]


def main() -> None:
    import torch
    from rich.console import Console
    from rich.table import Table

    from ldp_audit import streams
    from ldp_audit.models import data
    from ldp_audit.models.training import ldp_ge
    from ldp_audit.seeding import rng_for

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="pubmed")
    parser.add_argument("--mechanism", default="PM", choices=("LP", "PM", "MB", "HDS"))
    parser.add_argument("--eps", type=float, default=3.0)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)

    graph = data.load(args.dataset, args.data_dir)
    base = ldp_ge.preset(args.dataset, "link", mechanism=args.mechanism, eps=args.eps, method="auto")
    table = Table(title=f"{args.dataset} link {args.mechanism} eps={args.eps:g}: validation AUC after "
                        f"{args.epochs} epochs, reports of one seed (row) trained under another's draws (column)")
    table.add_column("reports \\ training")
    for seed in args.seeds:
        table.add_column(f"seed {seed}", justify="right")
    for report_seed in args.seeds:
        reports = ldp_ge.client_reports(graph, replace(base, seed=report_seed),
                                        rng_for(report_seed, *streams.FEATURES.key()))
        table.add_row(f"seed {report_seed}", *(
            f"{validation_auc(graph, reports, replace(base, seed=seed), args.epochs):.1f}" for seed in args.seeds))
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
