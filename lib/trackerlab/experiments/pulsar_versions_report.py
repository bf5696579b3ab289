"""What ``notebooks/pulsar_versions.ipynb`` shows, computed: the designs-by-version table, the
upgrade steps, the two figures, the headline figures and the report's conclusions.

The numbers come from :mod:`trackerlab.experiments.pulsar_versions`; this module only shapes
them and writes the sentences that state them (each tested against its numbers).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from trackerlab.catalog.colors import design_color
from trackerlab.experiments.pulsar_versions import Scenario, upgrade, upgrade_headline

__all__ = [
    "METRIC_MARKERS",
    "SAME_INDEX_VERSIONS",
    "TIME_BUCKET_METRICS",
    "UPGRADE_PAIRS",
    "conclusions",
    "designs_by_version",
    "designs_columns",
    "plot_delayed_by_version",
    "plot_metric_ratios",
    "time_bucket_rows",
    "upgrade_figures",
    "upgrade_steps",
    "worst_metric_figure",
]

#: The upgrade steps the report tabulates (old, new).
UPGRADE_PAIRS = (
    ("4.0.0", "4.0.5"),
    ("4.0.5", "4.0.7"),
    ("4.0.5", "4.1"),
    ("4.0.7", "4.1"),
    ("4.2", "master"),
)
#: The lines whose sampled time-bucket index is the same bytes (4.1 adds an AtomicLong).
SAME_INDEX_VERSIONS = ("4.0.1–4.0.5", "4.1.x")
#: ``getBufferMemoryUsage`` forms of the time-bucket indexes (#23611's and master's form c).
TIME_BUCKET_METRICS = ("roaring64-long-size", "serialized-delta")
#: One marker per workload in the metric figure.
METRIC_MARKERS = "osD^vx+*"
#: The step whose revert the report names: 4.0.6 went back to the heap, 4.1 to time buckets.
REVERTED_STEP = ("4.0.7", "4.1")


def _cell(design: str, bytes_per_entry: float, fmt: Callable[[float], str]) -> str:
    """One table cell: ``—`` for no structure, ``design: N B`` when sized, else the design."""
    if design == "-":
        return "—"
    if bytes_per_entry == bytes_per_entry:  # not NaN
        return f"{design}: {fmt(bytes_per_entry)} B"
    return design


def designs_by_version(table: pd.DataFrame, fmt: Callable[[float], str]) -> pd.DataFrame:
    """:func:`~trackerlab.experiments.pulsar_versions.version_table` as one row per version
    (in the table's order) and one column per tracker: ``design: bytes per entry B``, the
    bytes written by ``fmt`` (the reports' ``format_number``)."""
    trackers = list(dict.fromkeys(table.tracker))
    cells = table.assign(
        cell=[_cell(d, b, fmt) for d, b in zip(table.design, table.bytes_per_entry, strict=True)]
    )
    versions = list(dict.fromkeys(table.version))
    pivot = cells.pivot(index="version", columns="tracker", values="cell")
    return pivot.loc[versions, trackers].reset_index()


def designs_columns(by_version: pd.DataFrame) -> dict[str, str]:
    """Reader's headers of :func:`designs_by_version`'s columns."""
    trackers = [c for c in by_version.columns if c != "version"]
    return {"version": "Pulsar line", **{t: f"{t}: design, bytes per entry (B)" for t in trackers}}


def upgrade_steps(scenario: Scenario, pairs=UPGRADE_PAIRS) -> pd.DataFrame:
    """:func:`~trackerlab.experiments.pulsar_versions.upgrade` for each (old, new) pair, one
    row per tracker either release runs, with its ``step`` (``old → new``)."""
    steps = pd.concat(
        [upgrade(a, b, scenario).assign(step=f"{a} → {b}") for a, b in pairs]
    ).reset_index()
    return steps[steps.old_mib.notna() | steps.new_mib.notna()]


def upgrade_figures(old: str, new: str, scenario: Scenario) -> list[tuple[str, str, str]]:
    """The headline figures (label, value, note) of the upgrade section: the delayed index
    after ``old`` -> ``new``, and what 4.0.7 -> 4.1 saves."""
    move = upgrade(old, new, scenario).iloc[0]
    reverted = upgrade(*REVERTED_STEP, scenario).iloc[0]
    sentence = upgrade_headline(old, new, scenario)
    return [
        (
            "delayed index after upgrade",
            f"{move['new_mib']:,.1f} MiB",
            f"{sentence}; the blog's workload, {scenario.subscriptions} subscriptions",
        ),
        (
            "4.0.7 -> 4.1 saves",
            f"{reverted['saved_mib']:,.1f} MiB",
            "4.0.6 reverted #23611 to the triple heap; 4.1 brings the time buckets back",
        ),
    ]


def time_bucket_rows(metric: pd.DataFrame) -> pd.DataFrame:
    """Rows of :func:`~trackerlab.experiments.pulsar_versions.metric_vs_truth` whose metric is
    a time-bucket index's."""
    return metric[metric.metric.isin(TIME_BUCKET_METRICS)]


def worst_metric_figure(metric: pd.DataFrame) -> tuple[str, str, str]:
    """The headline figure (label, value, note): the lowest reported / true of a time-bucket
    metric, and where."""
    buckets = time_bucket_rows(metric)
    worst = buckets.loc[buckets["reported_over_true"].idxmin()]
    return (
        "worst metric / truth (time buckets)",
        f"{worst['reported_over_true']:.3f}",
        f"{worst['design']}, {worst['workload']}",
    )


def _mib(x: float) -> str:
    return f"{x:,.1f} MiB"


def conclusions(
    table: pd.DataFrame,
    path: pd.DataFrame,
    metric: pd.DataFrame,
    scenario: Scenario,
    old: str,
    new: str,
    metric_subscriptions: int,
) -> list[str]:
    """The report's conclusions, from its tables: ``table`` (version_table), ``path``
    (delayed_by_version), ``metric`` (metric_vs_truth over ``metric_subscriptions``), and the
    user's upgrade ``old`` -> ``new`` of ``scenario``."""
    sentence = upgrade_headline(old, new, scenario)
    reverted = upgrade(*REVERTED_STEP, scenario).iloc[0]
    same = table[
        table.version.isin(SAME_INDEX_VERSIONS) & (table.tracker == "delayed index (default)")
    ]
    buckets = time_bucket_rows(metric)
    worst = buckets.loc[buckets["reported_over_true"].idxmin()]
    heap = metric[metric.design == "triple-heap"]["reported_over_true"]
    topic = metric[metric.design == "pip448-topic-index"]["reported_over_true"]
    dense_fixed = buckets[buckets.workload == "fixed delay, dense"]["reported_over_true"].max()
    return [
        f"{sentence}. The sampled index is byte for byte the same in both "
        f"({same['heap_bytes'].iloc[0]:,.0f} B); 4.1 adds one "
        f"{int(same['counter_bytes'].iloc[1])}-B AtomicLong per subscription (#24430).",
        f"A 4.0.6+ broker runs the triple heap again: {_mib(reverted['old_mib'])} against "
        f"{_mib(reverted['new_mib'])} on 4.1 for this workload "
        f"({reverted['saved_mib'] / reverted['old_mib']:.0%} less).",
        f"master's form c (LongBitmap leaves) holds the same entries in "
        f"{_mib(path['delayed_mib'].iloc[-1])} against {_mib(path['delayed_mib'].iloc[-2])} "
        "on 4.2.x.",
        f"The heap's metric is its direct capacity: reported / true between {heap.min():.3f} "
        f"and {heap.max():.3f}.",
        f"The time-bucket metrics under-report: as low as {worst['reported_over_true']:.3f} of "
        f"the JVM footprint ({worst['design']}, {worst['workload']}); dense fixed delays come "
        f"closest ({dense_fixed:.2f}).",
        f"PIP-448's views each report the whole topic: summed over {metric_subscriptions} "
        f"subscriptions the metric is {topic.min():.2f} – {topic.max():.2f} x its single index.",
    ]


# --------------------------------------------------------------------------- figures


def plot_delayed_by_version(path: pd.DataFrame):
    """Bars of :func:`~trackerlab.experiments.pulsar_versions.delayed_by_version`: the
    delayed index per version, one colour and one legend entry per design. Returns the axes
    (the notebook puts the legend outside)."""
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(9, 3.8), layout="constrained")
    x = np.arange(len(path))
    for design in dict.fromkeys(path.design):
        mine = (path.design == design).to_numpy()
        ax.bar(x[mine], path.delayed_mib[mine], color=design_color(design), label=design)
    ax.set_xticks(x, path.version, rotation=30, ha="right")
    ax.set_ylabel("delayed index, all subscriptions (MiB)")
    ax.set_xlabel("Pulsar line")
    ax.set_ylim(bottom=0)
    return ax


def plot_metric_ratios(metric: pd.DataFrame):
    """Reported / true per design (rows) and workload (markers, side by side), log scale,
    1 marked. Returns the axes (the notebook puts the legend outside)."""
    import matplotlib.pyplot as plt

    ratios = metric.pivot(index="design", columns="workload", values="reported_over_true")
    _, ax = plt.subplots(figsize=(9, 4.5), layout="constrained")
    rows_y = np.arange(len(ratios))
    for k, (workload, marker) in enumerate(zip(ratios.columns, METRIC_MARKERS, strict=False)):
        offset = (k - (len(ratios.columns) - 1) / 2) * 0.1  # side by side, each visible
        ax.plot(ratios[workload], rows_y + offset, marker, mfc="none", label=workload)
    ax.set_yticks(rows_y, ratios.index)
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_xlabel("getBufferMemoryUsage / JVM footprint (log scale; 1 = exact)")
    ax.set_ylabel("")
    return ax
