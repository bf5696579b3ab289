"""The pulsar_versions report's tables, figures and conclusions, and the metric study's parts.

Sentences are checked against the numbers they state: hand-made frames with known values, or
the version model's own upgrade table (a different function from the one writing the text).
"""

import re

import matplotlib
import numpy as np
import pandas as pd
import pytest

from trackerlab.experiments import pulsar_versions_report as report
from trackerlab.experiments.pulsar_versions import (
    Scenario,
    metric_vs_truth,
    pip195_metric,
    topic_index_metric,
    triple_heap_metric,
    upgrade,
    upgrade_headline,
)
from trackerlab.workloads.stream import Workload

matplotlib.use("Agg")

#: The blog's workload, sampled small (the steady state is the blog's).
SMALL = Scenario(20_000, 10.0, "fixed:1d", 100, 2, 8_640_000.0)


def _numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"-?\d[\d,]*\.?\d*", text)]


# --------------------------------------------------------------------------- metric parts


def test_metric_table_has_each_form_per_workload_in_order():
    metric = metric_vs_truth(2000, 2, {"w": ("fixed:60s", 5.0)}, pip195_messages=500)
    assert list(metric.design) == [
        "triple-heap",
        "time-buckets",
        "time-buckets-long-bitmap (wraps-roaring)",
        "time-buckets-long-bitmap (wraps-mutable)",
        "pip448-topic-index",
        "pip195-buckets",
    ]
    # PIP-195 indexes only its first 500 messages; fixed delays: every message pending
    assert metric.set_index("design").loc["pip195-buckets", "entries"] == 500
    assert metric["true_bytes"].equals(metric["heap_bytes"] + metric["direct_bytes"])


def test_every_view_reports_the_topic_index_but_the_topic_holds_one():
    one = metric_vs_truth(2000, 1, {"w": ("fixed:60s", 5.0)}, pip195_messages=500)
    three = metric_vs_truth(2000, 3, {"w": ("fixed:60s", 5.0)}, pip195_messages=500)
    a, b = one.set_index("design"), three.set_index("design")
    (view,) = topic_index_metric(Workload.from_options(2000, 5.0, delay="fixed:60s"), 3)
    assert not view.per_subscription
    topic = "pip448-topic-index"
    assert b.loc[topic, "reported_bytes"] == 3 * view.reported_bytes
    assert b.loc[topic, "true_bytes"] == view.heap_bytes  # one index, not three
    heap = "triple-heap"  # one copy per subscription: the ratio does not move
    assert b.loc[heap, "true_bytes"] == 3 * a.loc[heap, "true_bytes"]
    assert b.loc[heap, "reported_over_true"] == pytest.approx(a.loc[heap, "reported_over_true"])


def test_heap_metric_is_its_direct_capacity_and_pip195_counts_messages():
    w = Workload.from_options(3000, 5.0, delay="fixed:60s")
    (heap,) = triple_heap_metric(w)
    assert heap.reported_bytes == heap.direct_bytes > 0
    assert heap.per_subscription
    (bucket,) = pip195_metric(Workload.from_options(700, 5.0, delay="fixed:60s"))
    assert bucket.entries == 700
    assert bucket.reported_bytes == bucket.direct_bytes  # its queues only


# --------------------------------------------------------------------------- tables


def test_designs_by_version_pivots_in_table_order():
    table = pd.DataFrame(
        {
            "version": ["b", "b", "a", "a"],
            "tracker": ["t1", "t2", "t1", "t2"],
            "design": ["bits", "x", "heap", "-"],
            "bytes_per_entry": [np.nan, 1234.5, 24.0, np.nan],
        }
    )
    out = report.designs_by_version(table, "{:.1f}".format)
    assert out.to_dict("list") == {
        "version": ["b", "a"],
        "t1": ["bits", "heap: 24.0 B"],
        "t2": ["x: 1234.5 B", "—"],
    }
    assert report.designs_columns(out) == {
        "version": "Pulsar line",
        "t1": "t1: design, bytes per entry (B)",
        "t2": "t2: design, bytes per entry (B)",
    }


def test_upgrade_steps_keep_each_step_and_drop_trackers_neither_runs():
    steps = report.upgrade_steps(SMALL, (("4.0.5", "4.1"), ("4.0.7", "4.1")))
    assert list(steps.step) == ["4.0.5 → 4.1", "4.0.7 → 4.1"]  # no PIP-448 index in either
    direct = upgrade("4.0.7", "4.1", SMALL).iloc[0]
    row = steps.iloc[1]
    assert row.tracker == "delayed index (default)"
    assert (row.old_mib, row.new_mib, row.saved_mib) == (
        direct.old_mib,
        direct.new_mib,
        direct.saved_mib,
    )
    assert row.old_design == "triple-heap" and row.new_design != "triple-heap"


def test_upgrade_figures_state_the_upgrade_table():
    after, saves = report.upgrade_figures("4.0.5", "4.1", SMALL)
    move = upgrade("4.0.5", "4.1", SMALL).iloc[0]
    reverted = upgrade("4.0.7", "4.1", SMALL).iloc[0]
    assert after[0] == "delayed index after upgrade"
    assert _numbers(after[1]) == [round(move.new_mib, 1)]
    assert after[2].endswith("the blog's workload, 2 subscriptions")
    assert saves[0] == "4.0.7 -> 4.1 saves"
    assert _numbers(saves[1]) == [round(reverted.saved_mib, 1)] and saves[1].endswith(" MiB")


def _metric(rows):
    return pd.DataFrame(rows, columns=["design", "workload", "metric", "reported_over_true"])


METRIC = _metric(
    [
        ("triple-heap", "fixed delay, dense", "bytes-capacity", 0.25),
        ("triple-heap", "random delay, sparse", "bytes-capacity", 0.5),
        ("time-buckets", "fixed delay, dense", "roaring64-long-size", 0.875),
        ("time-buckets", "random delay, sparse", "roaring64-long-size", 0.123),
        ("long-bitmap", "fixed delay, dense", "serialized-delta", 0.9),
        ("long-bitmap", "random delay, sparse", "serialized-delta", 0.3),
        ("pip448-topic-index", "fixed delay, dense", "topic-long-size-delta", 1.5),
        ("pip448-topic-index", "random delay, sparse", "topic-long-size-delta", 2.0),
        ("pip195-buckets", "random delay, sparse", "pip195-queues", 0.01),
    ]
)


def test_worst_metric_figure_is_the_lowest_time_bucket_ratio():
    # PIP-195's 0.01 is lower, but it is no time-bucket metric
    assert report.worst_metric_figure(METRIC) == (
        "worst metric / truth (time buckets)",
        "0.123",
        "time-buckets, random delay, sparse",
    )


def test_conclusions_state_their_numbers():
    table = pd.DataFrame(
        {
            "version": ["4.0.1–4.0.5", "4.1.x", "4.1.x"],
            "tracker": ["delayed index (default)", "delayed index (default)", "nack tracker"],
            "heap_bytes": [123_456.0, 123_456.0, 9.0],
            "counter_bytes": [0.0, 24.0, 99.0],
        }
    )
    path = pd.DataFrame({"delayed_mib": [1.0, 45.67, 12.34]})
    lines = report.conclusions(table, path, METRIC, SMALL, "4.0.5", "4.1", 3)
    assert len(lines) == 6
    sentence = upgrade_headline("4.0.5", "4.1", SMALL)
    assert lines[0] == (
        f"{sentence}. The sampled index is byte for byte the same in both (123,456 B); "
        "4.1 adds one 24-B AtomicLong per subscription (#24430)."
    )
    r = upgrade("4.0.7", "4.1", SMALL).iloc[0]
    stated = re.search(r"([\d,.]+) MiB against ([\d,.]+) MiB on 4.1 .* \((\d+)% less\)", lines[1])
    assert [float(n.replace(",", "")) for n in stated.groups()] == [
        round(r.old_mib, 1),
        round(r.new_mib, 1),
        round(100 * r.saved_mib / r.old_mib),
    ]
    assert "12.3 MiB against 45.7 MiB on 4.2.x" in lines[2]
    assert lines[3].endswith("between 0.250 and 0.500.")
    assert "as low as 0.123 of the JVM footprint (time-buckets, random delay, sparse)" in lines[4]
    assert lines[4].endswith("dense fixed delays come closest (0.90).")
    assert "summed over 3 subscriptions the metric is 1.50 – 2.00 x" in lines[5]


# --------------------------------------------------------------------------- figures


def test_delayed_bars_one_legend_entry_per_design():
    path = pd.DataFrame(
        {
            "version": ["a", "b", "c"],
            "design": ["heap", "buckets", "heap"],
            "delayed_mib": [3, 1, 2],
        }
    )
    ax = report.plot_delayed_by_version(path)
    assert [p.get_height() for p in ax.patches] == [3, 2, 1]  # heap's bars first, then buckets
    assert ax.get_legend_handles_labels()[1] == ["heap", "buckets"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    matplotlib.pyplot.close("all")


def test_metric_ratios_one_marker_series_per_workload():
    ax = report.plot_metric_ratios(METRIC)
    labels = ax.get_legend_handles_labels()[1]
    assert labels == ["fixed delay, dense", "random delay, sparse"]
    assert ax.get_xscale() == "log"
    matplotlib.pyplot.close("all")
