"""The Spark sweep report's words (``notebooks/spark_sweeps.ipynb``): where the data come from,
the answer, the headline figures and the conclusions, each computed from the tables of
:mod:`trackerlab.experiments.sweep_report` and written with the reports' number formats.

The experiment module is imported when a function runs, so that importing
:mod:`trackerlab.reporting` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import pandas as pd

from trackerlab.core.paths import display_path
from trackerlab.reporting.formatting import (
    format_delay,
    format_duration,
    format_number,
    format_ratio,
)
from trackerlab.reporting.markdown import escape_markdown

if TYPE_CHECKING:
    from trackerlab.experiments.sweep_report import Results

__all__ = [
    "SWEEP_SCALING_COLUMNS",
    "SWEEP_SCENARIO_COLUMNS",
    "SWEEP_STEADY_COLUMNS",
    "sweep_answer",
    "sweep_conclusions",
    "sweep_headlines",
    "sweep_source_notes",
]

#: :func:`~trackerlab.experiments.sweep_report.scenario_table`'s columns for a reader.
SWEEP_SCENARIO_COLUMNS = {
    "messages": "messages",
    "batch_size": "batch",
    "tick_ms": "tick (ms)",
    "delay": "delay",
    "design": "design",
    "entries": "entries",
    "jvm_bytes_per_entry": "JVM (B/entry)",
    "jvm_bytes_per_message": "JVM (B/message)",
    "jvm_mib": "JVM (MiB)",
    "buckets": "buckets",
    "bitmaps": "bitmaps",
}
#: :func:`~trackerlab.experiments.sweep_report.steady_comparison`'s columns for a reader.
SWEEP_STEADY_COLUMNS = {
    "batch_size": "batch",
    "tick_ms": "tick (ms)",
    "delay": "delay",
    "design": "design",
    "messages": "snapshot messages",
    "jvm_bytes_per_entry": "snapshot (B/entry)",
    "entries_steady": "steady-state entries",
    "bytes_per_entry": "steady state (B/entry)",
    "snapshot_is_steady": "snapshot = steady state",
}
#: :func:`~trackerlab.experiments.sweep_report.scaling_table`'s columns for a reader.
SWEEP_SCALING_COLUMNS = {
    "delay": "delay",
    "messages": "messages N",
    "wall_s": "wall time (s)",
    "wall_s_per_1e6": "wall s per 1e6 messages",
    "task_s_per_1e6": "task s per 1e6 messages",
}


def sweep_source_notes(results: Results, profile: str) -> list[str]:
    """Markdown blocks opening the report: a warning when the numbers come from the
    single-process stand-in (how to run the sweep of ``profile``), then the data's source."""
    notes = []
    if not results.from_spark:
        notes.append(
            f"> **No sweep results in `{display_path(results.folder)}`.** The figures below come "
            f"from a small single-process stand-in (`trackerlab.models.delayed.time_bucket_runs`), "
            f"not from Spark at scale. Run `trackerlab sweep --profile {profile}` and render again."
        )
    notes.append(f"*Data: {escape_markdown(results.source)}.*")
    return notes


def sweep_answer(both: pd.DataFrame) -> str | None:
    """The report's answer from :func:`~trackerlab.experiments.sweep_report.steady_comparison`:
    steady-state bytes per entry of time buckets against the heap for the seed's fixed delay,
    and of time buckets for its spread delay beside the snapshot's; None without them."""
    from trackerlab.experiments.sweep_report import SEED_RATE_PER_S, seed_answer

    seed = seed_answer(both)
    if seed is None:
        return None
    fixed = format_delay(seed.fixed_delay).removeprefix("fixed at ")
    text = (
        f"At {SEED_RATE_PER_S:,.0f} msg/s with every message delayed {fixed} and a "
        f"{format_duration(seed.tick_ms)} tick, time buckets hold "
        f"{format_number(seed.buckets.bytes_per_entry, 2)} B per entry in steady state against "
        f"the heap's {format_number(seed.heap.bytes_per_entry, 2)} B"
    )
    if seed.spread is not None and seed.spread_delay is not None:  # set together
        text += (
            f"; with delays {format_delay(seed.spread_delay)} they need "
            f"{format_number(seed.spread.bytes_per_entry, 2)} B (a snapshot of "
            f"{format_number(seed.spread.messages)} messages shows "
            f"{format_number(seed.spread.jvm_bytes_per_entry, 2)} B)"
        )
    return text + "."


def sweep_headlines(results: Results, penalty: pd.DataFrame) -> list[tuple[str, str, str]]:
    """The index's figures ``(label, value, note)``: the data source, and the random-delay
    penalty over the heatmap (median, range) when there is one."""
    source = "Spark sweep" if results.from_spark else "single-process stand-in"
    out = [("data source", source, results.source)]
    ratios = penalty.stack()
    if len(ratios):
        out.append((
            "random-delay penalty (PIP-393 time buckets)",
            f"{format_ratio(ratios.median(), 2)} median",
            f"{format_ratio(ratios.min(), 2)} to {format_ratio(ratios.max(), 2)} over the heatmap",
        ))  # fmt: skip
    return out


def sweep_conclusions(
    results: Results,
    heat: pd.DataFrame,
    penalty: pd.DataFrame,
    both: pd.DataFrame,
    scaling: pd.DataFrame,
) -> list[str]:
    """The closing bullets: the data's source, the fixed-delay heatmap's range, the
    random-delay penalty, each seed-scenario snapshot against its steady state, the cost."""
    lines = [f"**Data:** {escape_markdown(results.source)}."]
    if len(heat):
        lines.append(
            f"**Fixed delays:** PIP-393 time buckets cost from "
            f"{format_number(heat.min().min(), 3)} to {format_number(heat.max().max(), 3)} "
            "B/entry over the heatmap (fuller buckets are cheaper)."
        )
    ratios = penalty.stack()
    if len(ratios):
        lines.append(
            f"**Random delays** multiply that by {format_ratio(ratios.min(), 2)} to "
            f"{format_ratio(ratios.max(), 2)} (median {format_ratio(ratios.median(), 2)})."
        )
    for row in both[both.design == "time-buckets"].itertuples():
        same = "equals" if row.snapshot_is_steady else "differs from"
        tick_ms = cast(float, row.tick_ms)  # itertuples types every field as any scalar
        delay = cast(str, row.delay)
        lines.append(
            f"**Seed scenario, batch {row.batch_size}, {format_duration(tick_ms)} tick, "
            f"delays {format_delay(delay)}:** snapshot "
            f"{format_number(row.jvm_bytes_per_entry, 3)} B/entry, steady state "
            f"{format_number(row.bytes_per_entry, 3)} B/entry (the snapshot {same} the "
            "steady state)."
        )
    if len(scaling):
        lines.append(
            f"**Cost:** {format_number(scaling.task_s_per_1e6.median(), 2)} task-seconds per "
            "1e6 messages (median)."
        )
    return lines
