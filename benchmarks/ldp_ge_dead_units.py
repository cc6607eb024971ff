"""Why an LDP-GE MLP stops learning (issue 26): epoch by epoch, the share of the units feeding its output layer
that are live (positive on at least one validation input), the number of distinct outputs over the validation
set and the validation score, for one cell under a few variants of its protocol.

``--task link`` (default): the link scorer under the released preset with L1-normalised rows, read with the
public bounds or the data's (``feature_bounds=columns``). With the data's bounds every report is shrunk by its
column's maximum; the embeddings become so small that a few Adam steps push every hidden unit below zero, and
the network gives one score to every pair (AUC exactly 0.5) with no gradient left.

``--task node`` (default LP at eps = 0.01): the node MLP under the spec's preset, as ``reproduce --full`` trains
Fig. 2, beside the same run with 2 layers and with the reports divided by their public size (``rescale``). On
PubMed the preset's three-layer MLP (bias-free: with every unit dead its logits are all zero and it predicts
class 0 for every node) dies within a few epochs on LP, PM and MB reports at small eps.

The runs are the pipeline's own (``ldp_ge.training``: same seeds, split, propagation and MLP as ``reproduce``);
nothing is stored.

    python benchmarks/ldp_ge_dead_units.py [--task link|node] [--dataset pubmed] [--mechanism HDS] [--eps 1] \\
        [--epochs 3] [--data-dir DIR]
"""
from __future__ import annotations

import argparse

#: Per task: the defaults (mechanism, eps), the preset the rows share and the rows (label, changes).
TASKS = {
    "link": (("HDS", 1.0), "released preset + L1 rows",
             (("feature_bounds=public", {"feature_bounds": "public"}),
              ("feature_bounds=columns", {"feature_bounds": "columns"}))),
    "node": (("LP", 0.01), "spec preset",
             (("preset", {}), ("layers=2", {"layers": 2}), ("rescale", {"rescale": True}))),
}


def live_units(model, inputs) -> tuple[float, int]:
    """(share of the units feeding the output layer that are positive on some input, distinct output rows over
    the inputs) of an MLP: 0 live units means the output no longer depends on the input."""
    import torch

    last = [m for m in model.modules() if isinstance(m, torch.nn.Linear)][-1]
    seen = {}
    hook = last.register_forward_pre_hook(lambda module, args: seen.update(hidden=args[0]))
    model.eval()
    with torch.no_grad():
        outputs = model(inputs)
    hook.remove()
    return (seen["hidden"] > 0).any(dim=0).float().mean().item(), torch.unique(outputs, dim=0).shape[0]


def base_config(task: str, dataset: str, mechanism: str, eps: float):
    """The config every row of ``task`` starts from."""
    from ldp_audit.models.training import ldp_ge
    from ldp_audit.models.training.protocols import protocol

    if task == "link":
        return protocol("ldp-ge", "released").apply(ldp_ge.preset(dataset, "link", mechanism=mechanism, eps=eps,
                                                                  feature_rows="l1", method="push"))
    return ldp_ge.preset(dataset, "node", mechanism=mechanism, eps=eps, method="auto")


def main() -> None:
    from dataclasses import replace

    import torch
    from rich.console import Console
    from rich.table import Table

    from ldp_audit import streams
    from ldp_audit.models import data
    from ldp_audit.models.training import ldp_ge
    from ldp_audit.seeding import rng_for

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="link", choices=tuple(TASKS))
    parser.add_argument("--dataset", default="pubmed")
    parser.add_argument("--mechanism", default=None, choices=("LP", "PM", "MB", "HDS"))
    parser.add_argument("--eps", type=float, default=None)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    (mechanism, eps), preset_name, rows = TASKS[args.task]
    mechanism, eps = args.mechanism or mechanism, eps if args.eps is None else args.eps

    graph = data.load(args.dataset, args.data_dir)
    base = base_config(args.task, args.dataset, mechanism, eps)
    table = Table(title=f"{args.dataset} {args.task} {mechanism} eps={eps:g}, {preset_name} "
                        f"(layers={base.layers}): live last-hidden units / distinct validation outputs / "
                        "validation score (%)")
    table.add_column("variant")
    for epoch in range(args.epochs + 1):
        table.add_column("init" if epoch == 0 else f"epoch {epoch}", justify="right")
    for label, changes in rows:
        config = replace(base, **changes)
        reports = ldp_ge.client_reports(graph, config, rng_for(config.seed, *streams.FEATURES.key()))
        run = ldp_ge.training(graph, reports, config)
        cells = []
        for epoch in range(args.epochs + 1):
            if epoch:
                run.epoch_step()
            live, distinct = live_units(run.model, run.validation_inputs())
            cells.append(f"{live:.2f} / {distinct} / {100 * run.evaluate()[0]:.1f}")
        table.add_row(label, *cells)
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
