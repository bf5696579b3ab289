"""The real-broker report's tables and figures for a reader (``notebooks/real_broker.ipynb``).

:mod:`trackerlab.experiments.real_broker.stored` reads the stored results and shapes them;
these functions show them: one comparison table per experiment, one figure of panels per
experiment (deep size and broker metric against the plan), the broker heap over time, and
the summary of verdicts. The experiment module is imported when a function runs, so that
importing :mod:`trackerlab.reporting` stays light.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from trackerlab.reporting.plots import plot_lines
from trackerlab.reporting.tables import Column, ColumnSpec, show_table

if TYPE_CHECKING:
    from trackerlab.experiments.real_broker.stored import BrokerResults

__all__ = [
    "BROKER_COMPARISON_COLUMNS",
    "BROKER_SUMMARY_COLUMNS",
    "plot_broker_heap",
    "plot_broker_runs",
    "show_broker_comparisons",
    "show_broker_summary",
]

#: A comparison table's columns as the report shows them (a column with no value is left out).
BROKER_COMPARISON_COLUMNS: dict[str, ColumnSpec] = {
    "release": "release",
    "workload": "workload",
    "subscription": "subscription",
    "measured_deep_bytes": Column("measured (B)", fmt="{:,.0f}"),
    "plan_bytes": Column("plan (B)", fmt="{:,.0f}"),
    "error_percent": Column("error (%)", fmt="{:+.2f}"),
    "verdict": "verdict",
    "read_lag_ms": Column("read lag (ms)", fmt="{:,.0f}"),
    "design": "plan design",
    "metric_index_bytes": Column("broker metric (B)", fmt="{:,.0f}"),
    "dispatcher": "dispatcher",
    "plan_bytes_read_as_written": Column("plan read as written (B)", fmt="{:,.0f}"),
    "measured_entries": Column("entries tracked (count, mean)", sig=5),
    "plan_entries": Column("plan entries (count)", sig=5),
}
#: :func:`~trackerlab.experiments.real_broker.stored.summary`'s columns as the report shows them.
BROKER_SUMMARY_COLUMNS: dict[str, ColumnSpec] = {
    "experiment": "experiment",
    "release": "release",
    "rows": Column("rows (count)"),
    "within": Column("within (count)"),
    "outside": Column("outside (count)"),
    "behind": Column("broker behind (count)"),
    "worst_error_percent": Column("worst error (%)", fmt="{:+.2f}"),
}


def show_broker_comparisons(results: BrokerResults) -> None:
    """One table per experiment: the live tracker's deep size, the broker's metric and the
    plan, per run and subscription (the columns of :data:`BROKER_COMPARISON_COLUMNS` that
    hold a value)."""
    from trackerlab.experiments.real_broker import stored

    for experiment in stored.experiments(results):
        table = stored.comparison_table(results.comparison, experiment)
        columns = {
            k: v
            for k, v in BROKER_COMPARISON_COLUMNS.items()
            if k in table.columns and table[k].notna().any()
        }
        show_table(
            table,
            columns,
            name=f"{experiment}-comparison",
            caption=f"{experiment}: the live tracker's deep size, the broker's metric and the plan",
        )


def show_broker_summary(results: BrokerResults) -> None:
    """Per experiment and release: the verdicts and the worst error over the compared rows."""
    from trackerlab.experiments.real_broker import stored

    show_table(
        stored.summary(results.comparison),
        BROKER_SUMMARY_COLUMNS,
        name="summary",
        caption="Per experiment and release: the verdicts and the worst error over the compared rows",
    )


def plot_broker_runs(results: BrokerResults, experiment: str):
    """One panel per run of ``experiment`` (two columns): mean deep size and broker metric
    over time (KiB), the plan's steady-state bytes dotted. Returns the figure."""
    import matplotlib.pyplot as plt

    from trackerlab.experiments.real_broker import stored

    rows = stored.run_panels(results, experiment)
    ncols = min(2, len(rows))
    nrows = math.ceil(len(rows) / ncols)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(9.6, 3.2 * nrows), squeeze=False, layout="constrained"
    )
    for ax, (_, row) in zip(axes.flat, rows.iterrows(), strict=False):
        series = stored.time_series(results, row["run"])
        if series.empty:
            ax.text(0.5, 0.5, "no samples stored", transform=ax.transAxes, ha="center")
        else:
            plot_lines(ax, series, "t_s", "bytes", "series", scale=1024)
        ax.axhline(row["plan_bytes"] / 1024, ls=":", color="black", label="plan (steady state)")
        ax.set_title(row["title"], fontsize=10)
        ax.set_xlabel("time since the first send (s)")
        ax.set_ylabel("bytes per subscription (KiB)")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=9, loc="best")
    for ax in axes.flat[len(rows) :]:
        ax.set_visible(False)
    fig.suptitle(f"{experiment}: deep size and broker metric against the plan")
    return fig


def plot_broker_heap(results: BrokerResults):
    """The broker JVM's heap in use per run over time (MiB); None when no sample has it."""
    import matplotlib.pyplot as plt

    from trackerlab.experiments.real_broker import stored

    heap = stored.heap_series(results)
    if heap.empty:
        return None
    fig, ax = plt.subplots(figsize=(9.6, 3.5), layout="constrained")
    for _, g in heap.groupby("run"):
        ax.plot(g["t_s"], g["heap_mib"], label=g["label"].iloc[0], marker=".")
    ax.set_xlabel("time since the first send (s)")
    ax.set_ylabel("broker heap in use (MiB)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=9, ncols=2, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig
