"""The receiver_queue report's tables and figures for a reader.

:mod:`trackerlab.experiments.receiver_queue_report` computes the frames and sentences;
these functions show them under the headers (units in them), formats and CSV names the
report publishes, and draw its three figures (pyplot is imported inside the plotting
functions, as in :mod:`trackerlab.reporting.plots`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from trackerlab.experiments import receiver_queue_report as rq
from trackerlab.experiments.receiver_queue_sweeps import worst_case_prefetch_bytes
from trackerlab.experiments.reproduce.receiver_queue import (
    FitReport,
    TableRow,
    real_broker_conclusions,
    real_broker_table,
    real_runs,
)
from trackerlab.reporting.formatting import format_bytes
from trackerlab.reporting.headline import headline
from trackerlab.reporting.markdown import show_conclusions, show_markdown
from trackerlab.reporting.plots import from_zero, legend_outside
from trackerlab.reporting.tables import Column, show_table

__all__ = [
    "memory_workloads_text",
    "plot_prefetch_memory",
    "plot_queue_series",
    "plot_reproduction",
    "show_java_drains",
    "show_open_parameters",
    "show_predictions",
    "show_prefetch_memory",
    "show_published_share",
    "show_real_broker",
    "show_reproduction_table",
    "show_sensitivity",
]


def show_open_parameters() -> None:
    """The harness's open parameters with their declared values."""
    show_table(rq.open_parameters_frame(),
               {"parameter": "open parameter", "value": "value unless fitted (µs)", "why": "why"},
               name="open-parameters")  # fmt: skip


def show_predictions(report: FitReport, rows: Mapping[str, TableRow]) -> None:
    """The fit's headlines and the most frequent outcome per candidate latency."""
    for h in rq.fit_headlines(report):
        headline(*h)
    grid = rq.predictions_grid(report, rows)
    show_table(grid, {c: c for c in grid.columns}, name="predictions-by-latency",
               caption="Most frequent final queue size over the seeds, per candidate tick latency")  # fmt: skip


def show_reproduction_table(table: pd.DataFrame) -> None:
    """N46-N57: published against the modelled harness."""
    show_table(table, {
        "id": "id", "category": "category", "published": "published", "model": "model",
        "published_in_seeds": "published outcome in seeds", "role": "role",
        "rate": "rate (msg/s)", "partitions": "partitions", "loo_model": "leave-one-out model",
        "loo_matches": "leave-one-out matches", "outcomes": "outcomes over the seeds", "why": "why",
    }, name="reproduction")  # fmt: skip


def plot_reproduction(report: FitReport, table: pd.DataFrame):
    """Final queue size per rate: published, fitted, and the band of every candidate latency;
    non-partitioned (fitted) and 3 partitions (held out) side by side."""
    spread = rq.candidate_spread(report, table.id.tolist())
    import matplotlib.pyplot as plt  # here: importing the module must not pick a backend

    fig, axes = plt.subplots(1, 2, figsize=(9.6, 4), sharey=True, layout="constrained")
    for ax, parts in zip(axes, (1, 3), strict=True):
        sub = table[table.partitions == parts]
        lo, hi = spread.loc[sub.id, "min"], spread.loc[sub.id, "max"]
        ax.fill_between(sub.rate, lo, hi, color="0.85", label="every candidate latency")
        ax.plot(sub.rate, sub.model, "s-", label=f"fitted ({report.fitted_us:g} µs)")
        ax.plot(sub.rate, sub.published, "ko", ms=7, label="published")
        ax.set_xscale("log")
        ax.set_yscale("log", base=2)
        ax.set_xlabel("producer rate, -r (msg/s)")
        ax.set_title("non-partitioned (fitted)" if parts == 1 else "3 partitions, total (held out)")
    axes[0].set_ylabel("final receiver queue size (messages)")
    legend_outside(fig, "below")
    return fig


def show_published_share(report: FitReport, rows: Mapping[str, TableRow]) -> None:
    """N54's pull headline and the seeds giving each published outcome per latency."""
    headline(*rq.n54_headline(report, rows))
    likely = rq.published_share_grid(report, rows)
    show_table(likely, {c: c for c in likely.columns}, name="published-outcome-share",
               caption="Seeds whose final size is the published one, per candidate tick latency")  # fmt: skip


def show_sensitivity(sens: pd.DataFrame) -> None:
    """The open-parameter sweep's headline and table."""
    headline(*rq.sensitivity_headline(sens))
    swept = rq.sensitivity_table(sens)
    show_table(swept, {"parameter": "open parameter", "value": "value (µs)",
                       **{i: f"{i}: final size (messages)" for i in swept.columns
                          if i not in ("parameter", "value")}}, name="open-parameter-sweep")  # fmt: skip


def plot_queue_series(
    series: Mapping[float, pd.DataFrame], client: str, partitions: int, fitted_us: float
):
    """Total receiver queue size over simulated time, one step line per producer rate."""
    import matplotlib.pyplot as plt  # here: importing the module must not pick a backend

    fig, ax = plt.subplots(figsize=(9, 4), layout="constrained")
    for rate, frame in series.items():
        ax.step(frame.t_s, frame.total_size, where="post", label=f"{rate:g} msg/s")
    ax.set_yscale("log", base=2)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("total receiver queue size (messages)")
    ax.set_title(f"{client}: {partitions} partition(s), tick latency {fitted_us:g} µs")
    legend_outside(ax)
    return fig


def show_prefetch_memory(memory: pd.DataFrame, memory_limit_bytes: int) -> None:
    """PIP-74's worst case, the memory headline and the prefetch table."""
    worst = worst_case_prefetch_bytes(1000, 5 * rq.MIB)
    headline("fixed queue of 1000, 5 MiB messages", f"{worst / 1024**3:.2f} GiB",
             "per partition consumer: PIP-74's motivation (1,000 x 5 MB)")  # fmt: skip
    headline(*rq.memory_headline(memory, memory_limit_bytes))
    show_table(memory, {
        "client": "client", "mode": "queue", "rate": "rate (msg/s)", "message_bytes": "payload (B)",
        "partitions": "partitions",
        "peak_client_MiB": Column("peak client prefetch (MiB)", fmt="{:,.2f}"),
        "under_limit": "under the limit",
        "peak_per_consumer_MiB": Column("peak per consumer (MiB)", fmt="{:,.2f}"),
        "peak_prefetched_per_consumer": "peak per consumer (messages)",
        "messages_per_entry": "messages per entry", "final_sizes": "final queue sizes",
        "shrinks": "shrinks", "lag_s": Column("lag (s)", fmt="{:.2f}"),
    }, name="prefetch-memory", max_rows=40)  # fmt: skip


def plot_prefetch_memory(memory: pd.DataFrame, memory_limit_bytes: int):
    """Peak client prefetch against published bytes per second, per client and queue mode."""
    import matplotlib.pyplot as plt  # here: importing the module must not pick a backend

    fig, ax = plt.subplots(figsize=(9, 4), layout="constrained")
    # hollow markers of decreasing size: a series equal to another stays visible around it
    styles = iter([("o", 10), ("s", 7), ("^", 5), ("x", 4), ("+", 6), ("D", 3)])
    for (c, mode), sub in memory.groupby(["client", "mode"]):
        marker, size = next(styles)
        ax.plot(sub.message_bytes * sub.rate, sub.peak_client_MiB, marker, ms=size, mfc="none",
                label=f"{c} {mode}")  # fmt: skip
    ax.axhline(memory_limit_bytes / rq.MIB, color="grey", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=0.1)
    from_zero(ax)  # memory: the axis starts at 0 MiB, never below
    ax.set_xlabel("published bytes per second (rate × payload)")
    ax.set_ylabel("peak client prefetch (MiB; dotted: the limit)")
    legend_outside(ax)
    return fig


def show_java_drains(drains: pd.DataFrame) -> None:
    """The Java partitioned drain before and after #16336."""
    show_table(drains, {"drain": "drain", "lag_s": Column("lag (s)", fmt="{:.3f}"),
                        "final_sizes": "children's final queue sizes", "parent_size": "parent's queue",
                        "consumed": "consumed (messages)", "produced": "produced (messages)",
                        "stalled": "stalled"}, name="java-drain")  # fmt: skip


def memory_workloads_text(workloads: Sequence[Sequence[int]]) -> str:
    """``"20,000 msg/s of 128 B and 100 msg/s of 1 MiB"``: the answer's workloads."""
    return " and ".join(f"{r:,} msg/s of {format_bytes(s)}" for r, s in workloads)


def show_real_broker(report: FitReport) -> None:
    """N46-N57 on a real broker (the stored runs), with their conclusions; a note when none
    are stored."""
    real = real_runs()
    if real is None:
        show_markdown("No real-broker runs are stored: run `trackerlab broker receiver-queue`.")
        return
    show_table(real_broker_table(report, real), {
        "id": "id", "published": "published", "go_60s": "Go runs at 60 s",
        "simulated": "simulated (seeds)", "java_60s": "Java runs at 60 s",
        "go_30s": "Go runs at 30 s", "go_120s": "Go runs at 120 s",
        "rate": "rate (msg/s)", "partitions": "partitions",
        "real_is_published": "real = published", "real_is_simulated": "real = simulated",
    }, name="real-broker", csv=True)  # fmt: skip
    show_conclusions(real_broker_conclusions(report, real))
