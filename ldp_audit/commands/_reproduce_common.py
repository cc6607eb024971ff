"""What every ``reproduce`` paper shares: picking ``--datasets`` from a preset module, the progress bar over
training runs, naming the devices the stored runs trained on, and the accuracy-against-eps figure (one panel per
dataset)."""
from __future__ import annotations


def paper_datasets(args, preset) -> tuple:
    """The datasets of ``--datasets`` (default: the preset's quick or full list), each one the preset knows."""
    names = args.datasets or (preset.QUICK_DATASETS if args.mode == "quick" else tuple(preset.TABLE3_DATASETS))
    unknown = [n for n in names if n not in preset.TABLE3_DATASETS]
    if unknown:
        raise ValueError(f"--datasets must be among {', '.join(preset.TABLE3_DATASETS)}, got {', '.join(unknown)}")
    return tuple(names)


class RunProgress:
    """A rich progress bar over runs (done / total, ETA) with the count of completed cells in its label."""

    def __init__(self, console, total: int, enabled: bool):
        self.console, self.total, self.enabled = console, total, enabled and console.is_terminal

    def __enter__(self):
        if not self.enabled:
            return lambda config: None
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn,
                                   TimeRemainingColumn)

        self.bar = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), TimeRemainingColumn(), console=self.console, transient=True)
        self.bar.__enter__()
        task = self.bar.add_task("training runs", total=self.total)
        return lambda config: self.bar.advance(task, 1)

    def __exit__(self, *exc):
        if self.enabled:
            self.bar.__exit__(*exc)
        return False


def devices_used(results, fallback: str) -> str:
    """Where the results were trained, e.g. ``cuda (NVIDIA H100 80GB HBM3): 1049 runs``, one entry per device
    (stored runs may come from another machine than this one); ``fallback`` (this process's device) when none."""
    from collections import Counter

    from ..models.training.runtime import device_name

    counts = Counter(result.device_label for result in results)
    if not counts:
        return f"{fallback} ({device_name(fallback)}): no runs"
    return "; ".join(f"{label}: {count} runs" for label, count in counts.most_common())


def dataset_panels(names: list):
    """A figure with one titled panel per dataset (matplotlib's Agg backend): ``(figure, [(axis, name), ...])``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, max(1, len(names)), figsize=(4.2 * max(1, len(names)), 3.4), squeeze=False)
    for ax, name in zip(axes[0], names):
        ax.set_title(name)
    return fig, list(zip(axes[0], names))


def panels_png(fig, ylabel: str) -> bytes:
    """Every panel on a log eps axis with ``ylabel``, the legend on the first, and the figure as PNG bytes."""
    import io

    import matplotlib.pyplot as plt

    for ax in fig.axes:
        ax.set_xscale("log")
        ax.set_xlabel("eps")
        ax.set_ylabel(ylabel)
    fig.axes[0].legend(fontsize=7)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=120)
    plt.close(fig)
    return buffer.getvalue()
