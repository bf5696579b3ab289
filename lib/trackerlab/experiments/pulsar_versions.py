"""Today's Pulsar, release by release: the same workloads sized with the structures and defaults
each release line runs (:mod:`trackerlab.models.pulsar_releases`, ``data/pulsar_releases.yaml``), and the
broker's own memory metric (``getBufferMemoryUsage``) beside the JVM footprint.

Back-end of ``notebooks/pulsar_versions.ipynb`` and of ``trackerlab simulate delayed
--pulsar-version``. Tables carry units in their column names; bytes are the JVM layout model's
(heap, plus direct memory for the ByteBuf queues), checked by ``trackerlab jvm-check``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from trackerlab.catalog import CATALOG, SizeRequest
from trackerlab.catalog.versioned import request_defaults, size_for_version
from trackerlab.models import pulsar_releases
from trackerlab.models.delayed import buffer_metric as bm
from trackerlab.models.delayed.heap import InMemoryDelayedDeliveryTracker
from trackerlab.models.delayed.long_bitmap_buckets import build_content, counters_bytes
from trackerlab.models.delayed.pip195_tracker import BucketDelayedDeliveryTracker
from trackerlab.models.delayed.time_bucket_runs import BucketRun, build_index
from trackerlab.models.delayed.topic_index import TopicDelayedIndex
from trackerlab.models.time_buckets.shapes import jvm_bytes_from_content
from trackerlab.sizing.jvm import COMPRESSED
from trackerlab.workloads.stream import Workload, last_message_per_entry

__all__ = [
    "BLOG",
    "TRACKERS",
    "WORKLOADS",
    "MetricReading",
    "Scenario",
    "delayed_by_version",
    "long_bitmap_metrics",
    "metric_vs_truth",
    "pip195_metric",
    "scenario_options",
    "steady_bytes",
    "time_bucket_metric",
    "topic_index_metric",
    "triple_heap_metric",
    "upgrade",
    "upgrade_headline",
    "version_block",
    "version_table",
]

#: Trackers a version table sizes from messages (table key -> words).
TRACKERS = {
    "delayed": "delayed index (default)",
    "delayed_topic": "PIP-448 topic index",
    "nack": "nack tracker",
    "pending_acks": "pending acks",
}
#: Workloads of the metric study: (delay, messages per ms). Dense: 5 msg/ms, 2,560 entries per
#: 512-ms bucket; sparse: 0.02 msg/ms, about 10.
WORKLOADS = {
    "fixed delay, dense": ("fixed:60s", 5.0),
    "fixed delay, sparse": ("fixed:60s", 0.02),
    "random delay, dense": ("uniform:0:1h", 5.0),
    "random delay, sparse": ("uniform:0:1h", 0.02),
}


@dataclass(frozen=True)
class Scenario:
    """A workload to size across versions: ``messages`` at ``rate_per_ms``, one ``delay``,
    ``batch_size`` messages per entry; ``steady_entries`` scales bytes to a steady state."""

    messages: int
    rate_per_ms: float
    delay: str
    batch_size: int = 1
    subscriptions: int = 1
    steady_entries: float | None = None

    def workload(self, release: pulsar_releases.Release) -> Workload:
        return Workload.from_options(
            self.messages,
            self.rate_per_ms,
            delay=self.delay,
            batch_size=self.batch_size,
            entries_per_ledger=request_defaults(release)["entries_per_ledger"],
        )


#: The TimeBucket blog's workload (seed 001): 10,000 msg/s in batches of 100, every message
#: delayed one day, two Shared subscriptions: 8,640,000 entries pending per subscription.
BLOG = Scenario(
    messages=2_000_000,
    rate_per_ms=10.0,
    delay="fixed:1d",
    batch_size=100,
    subscriptions=2,
    steady_entries=8_640_000,
)


# --------------------------------------------------------------------------- versions


def _request(scenario: Scenario, rel: pulsar_releases.Release, tracker: str) -> SizeRequest:
    """The scenario's stream for ``tracker``; pending acks: a consumer at the release's
    ``maxUnackedMessagesPerConsumer`` (its dispatched, unacknowledged messages)."""
    d = request_defaults(rel)
    if tracker == "pending_acks":
        workload = Workload(int(rel.default("maxUnackedMessagesPerConsumer")))
        return SizeRequest(workload)
    return SizeRequest(scenario.workload(rel), tick_ms=d["tick_ms"], trim_bits=d["trim_bits"])


def version_table(
    scenario: Scenario,
    versions: tuple[str, ...] | None = None,
    trackers: tuple[str, ...] = tuple(TRACKERS),
) -> pd.DataFrame:
    """One row per (version, tracker): the design it runs and its bytes for the scenario
    (heap and direct, bytes per entry; the counters the tracker adds). A structure that is
    absent or not modelled gets its reason instead of numbers. Pending acks are sized for a
    consumer at its unacked limit, whatever the scenario. Each distinct (design, shape,
    variant, request) is built once."""
    rows = []
    built: dict[tuple, tuple] = {}
    for version in versions or pulsar_releases.known_versions():
        rel = pulsar_releases.resolve(version)
        for tracker in trackers:
            words = TRACKERS[tracker]
            request = _request(scenario, rel, tracker)
            c = rel.choice(tracker)
            key = (c.design, c.shape, c.variant, request)
            if key not in built:
                built[key] = size_for_version(tracker, rel, request)
            choice, result = built[key]
            row = {
                "version": rel.label,
                "line": rel.line,
                "tracker": words,
                "design": choice.design or "-",
                "evidence": choice.evidence,
                "entries": np.nan,
                "heap_bytes": np.nan,
                "direct_bytes": np.nan,
                "counter_bytes": np.nan,
                "bytes_per_entry": np.nan,
                "note": choice.missing or ("" if choice.design else choice.source[:90]),
            }
            if result is not None and result.entries:
                heap = result.jvm_bytes or 0
                direct = result.jvm_direct_bytes or 0
                counters = result.details.get("counters_jvm_bytes", 0)
                row.update(
                    entries=result.entries,
                    heap_bytes=heap,
                    direct_bytes=direct,
                    counter_bytes=counters,
                    bytes_per_entry=(heap + direct) / result.entries,
                )
            rows.append(row)
    return pd.DataFrame(rows)


#: The delayed trackers an upgrade study sizes at steady state, and how many copies a topic
#: holds (per subscription, or one per topic).
DELAYED_TRACKERS = {"delayed": "per subscription", "delayed_topic": "per topic"}


def steady_bytes(row: pd.Series, scenario: Scenario, release: pulsar_releases.Release) -> float:
    """Bytes of one copy of a delayed structure holding ``scenario.steady_entries`` entries:
    the heap from its count alone (:func:`~trackerlab.models.delayed.heap_counts.heap_sizes`,
    growth is not linear), a time-bucket index by its per-entry bytes (linear in buckets at a
    fixed density), plus the tracker's counters once."""
    from trackerlab.models.delayed.heap_counts import heap_sizes

    entries = float(scenario.steady_entries or row["entries"])
    if row["design"] == "triple-heap":
        variant = release.choice("delayed").variant or "v2"
        h = heap_sizes(round(entries), version=variant)
        return float(h.jvm_heap_bytes + h.jvm_direct_bytes)
    per_entry = (row["heap_bytes"] + row["direct_bytes"]) / row["entries"]
    return per_entry * entries + row["counter_bytes"]


def upgrade(old: str, new: str, scenario: Scenario) -> pd.DataFrame:
    """The delayed index of versions ``old`` and ``new`` for the scenario at steady state, for
    the whole topic (``subscriptions`` copies of a per-subscription index; one PIP-448 index):
    design, MiB before and after, MiB saved (negative: lost)."""
    table = version_table(scenario, (old, new), tuple(DELAYED_TRACKERS))
    rows = []
    for key, copies_word in DELAYED_TRACKERS.items():
        out: dict[str, Any] = {"tracker": TRACKERS[key], "copies": copies_word}  # a table row
        for tag, version in (("old", old), ("new", new)):
            rel = pulsar_releases.resolve(version)
            row = table[(table.version == rel.label) & (table.tracker == TRACKERS[key])].iloc[0]
            copies = scenario.subscriptions if key == "delayed" else 1
            mib = np.nan
            if not np.isnan(row["entries"]):
                mib = steady_bytes(row, scenario, rel) * copies / 2**20
            out[f"{tag}_version"] = rel.label
            out[f"{tag}_design"] = row["design"]
            out[f"{tag}_mib"] = mib
        out["saved_mib"] = out["old_mib"] - out["new_mib"]
        rows.append(out)
    return pd.DataFrame(rows).set_index("tracker")


def delayed_by_version(scenario: Scenario, versions: tuple[str, ...] | None = None) -> pd.DataFrame:
    """Per version, the steady-state MiB of its default delayed index for the whole topic
    (``subscriptions`` copies), its design, and the step from the previous version."""
    versions = versions or pulsar_releases.known_versions()
    table = version_table(scenario, versions, ("delayed",))
    rows = []
    for version in versions:
        rel = pulsar_releases.resolve(version)
        row = table[(table.version == rel.label) & (table.tracker == TRACKERS["delayed"])].iloc[0]
        mib = steady_bytes(row, scenario, rel) * scenario.subscriptions / 2**20
        rows.append({"version": rel.label, "design": row["design"], "delayed_mib": mib})
    out = pd.DataFrame(rows)
    out["change_mib"] = out["delayed_mib"].diff()
    return out


def upgrade_headline(old: str, new: str, scenario: Scenario) -> str:
    """One sentence, in the user's words: what upgrading ``old`` -> ``new`` does to the
    delayed index of ``scenario`` (the workload is named in it)."""
    row = upgrade(old, new, scenario).loc[TRACKERS["delayed"]]
    step = f"Upgrading from {row['old_version']} to {row['new_version']}"
    kind, _, value = scenario.delay.partition(":")
    delayed = f"delayed {value}" if kind == "fixed" else f"with delays {scenario.delay}"
    workload = (
        f"for {scenario.rate_per_ms * 1000:,.0f} msg/s {delayed} in batches of "
        f"{scenario.batch_size}, {scenario.subscriptions} subscriptions"
    )
    if row["old_design"] == row["new_design"]:
        change_mib = -row["saved_mib"]
        size = (
            f"{abs(change_mib):,.1f} MiB {'larger' if change_mib > 0 else 'smaller'}"
            if abs(change_mib) >= 0.05
            else "the same size"
        )
        return (
            f"{step} keeps the delayed index at {row['new_mib']:,.1f} MiB {workload}: the same "
            f"{row['new_design']} structure, {size}"
        )
    return (
        f"{step} changes the delayed index from {row['old_mib']:,.1f} MiB to "
        f"{row['new_mib']:,.1f} MiB {workload} ({row['old_design']} → {row['new_design']})"
    )


# --------------------------------------------------------------------------- the metric


@dataclass(frozen=True)
class MetricReading:
    """One delayed form on one workload, for one subscription's view: what
    ``getBufferMemoryUsage`` reports and the JVM footprint (heap, direct) of what it holds.
    ``per_subscription``: each subscription holds its own copy (False: one per topic)."""

    form: str
    design: str
    releases: str
    reported_bytes: float
    heap_bytes: float
    direct_bytes: float
    entries: int
    per_subscription: bool = True


def triple_heap_metric(w: Workload, layout=COMPRESSED) -> list[MetricReading]:
    """The triple heap (2.10 - 4.0.0, 4.0.6+): ``bytesCapacity()`` of its direct queue.
    O(entries log entries)."""
    ledger, entry, publish, deliver_at = last_message_per_entry(w)
    heap = InMemoryDelayedDeliveryTracker.from_arrays(
        ledger, entry, deliver_at, now_ms=publish, tick_time_ms=1000
    )
    return [
        MetricReading(
            "bytes-capacity",
            "triple-heap",
            "2.10 – 4.0.0, 4.0.6+",
            heap.buffer_memory_usage(),
            heap.jvm_bytes(layout),
            heap.jvm_direct_bytes(),
            heap.number_of_delayed_messages(),
        )
    ]


def time_bucket_metric(w: Workload) -> list[MetricReading]:
    """#23611's time buckets (form a: 4.0.1 - 4.0.5; 4.1.x and 4.2.x with the 24-B counter):
    sum of ``Roaring64Bitmap.getLongSizeInBytes()``. O(entries)."""
    index = build_index(BucketRun.delayed(w, 1000))
    content = index.content(runs=False)
    a_heap = jvm_bytes_from_content(content, len(index.buckets), "avl-openhash")
    return [
        MetricReading(
            "roaring64-long-size",
            "time-buckets",
            "4.0.1 – 4.0.5, 4.1.x, 4.2.x",
            bm.roaring64_long_size(content),
            a_heap + 24,
            0,
            len(index),
        )
    ]


def long_bitmap_metrics(w: Workload, layout=COMPRESSED) -> list[MetricReading]:
    """master's form c (``LongBitmap`` leaves), both leaf shapes: its ``memoryUsage`` counter
    of serialized-size deltas. O(entries)."""
    form_c, c_content = build_content(SizeRequest(w))
    out = []
    for shape in ("wraps-roaring", "wraps-mutable"):
        c_heap = jvm_bytes_from_content(c_content, len(form_c.index.buckets), "avl-rb", leaf=shape)
        out.append(
            MetricReading(
                "serialized-delta",
                f"time-buckets-long-bitmap ({shape})",
                "master" if shape == "wraps-roaring" else "master before #26500",
                bm.serialized_delta(c_content),
                c_heap + counters_bytes(layout),
                0,
                form_c.number_of_delayed_messages(),
            )
        )
    return out


def topic_index_metric(w: Workload, subscriptions: int, layout=COMPRESSED) -> list[MetricReading]:
    """PIP-448's topic index (merge not established): one index, which every subscription's
    view reports whole. O(entries)."""
    topic = TopicDelayedIndex(1000)
    for chunk in w.chunks():
        topic.add_chunk(chunk, subscriptions)
    topic.recount_memory()
    return [
        MetricReading(
            "topic-long-size-delta",
            "pip448-topic-index",
            "not established",
            topic.buffer_memory_usage(),
            topic.jvm_bytes(layout),
            0,
            topic.count,
            per_subscription=False,
        )
    ]


def pip195_metric(w: Workload, layout=COMPRESSED) -> list[MetricReading]:
    """PIP-195's bucket tracker (opt-in, 3.0+), message by message: its two queues'
    ``bytesCapacity()`` (bitmaps and bucket objects left out). O(messages log messages)."""
    bucket = BucketDelayedDeliveryTracker(1000)
    for chunk in w.chunks():
        for led, ent, t0, t1 in zip(
            chunk.ledger.tolist(),
            chunk.entry.tolist(),
            chunk.publish_ms.tolist(),
            chunk.deliver_at.tolist(),
            strict=True,
        ):
            bucket.add_message(led, ent, t1, t0)
    parts = bucket.memory_breakdown(layout)
    return [
        MetricReading(
            "pip195-queues",
            "pip195-buckets",
            "3.0 and later (opt-in)",
            bucket.buffer_memory_usage(),
            parts["bitmaps"] + parts["buckets"],
            parts["queues"],
            bucket.number_of_delayed_messages(),
        )
    ]


def metric_vs_truth(
    messages: int,
    subscriptions: int = 2,
    workloads: dict[str, tuple[str, float]] | None = None,
    pip195_messages: int = 20_000,
) -> pd.DataFrame:
    """For each delayed form and workload: what ``getBufferMemoryUsage`` reports (summed over
    ``subscriptions`` views, as a topic's stats add them), the JVM footprint of what is held
    (heap, direct), and their ratio. PIP-195 runs its per-message model on the first
    ``pip195_messages`` messages."""
    rows = []
    for label, (delay, rate) in (workloads or WORKLOADS).items():
        w = Workload.from_options(messages, rate, delay=delay)
        small = Workload.from_options(min(messages, pip195_messages), rate, delay=delay)
        readings = [
            *triple_heap_metric(w),
            *time_bucket_metric(w),
            *long_bitmap_metrics(w),
            *topic_index_metric(w, subscriptions),
            *pip195_metric(small),
        ]
        for r in readings:
            copies = subscriptions if r.per_subscription else 1
            rows.append(
                {
                    "workload": label,
                    "design": r.design,
                    "releases": r.releases,
                    "metric": r.form,
                    "entries": r.entries,
                    "reported_bytes": r.reported_bytes * subscriptions,
                    "heap_bytes": r.heap_bytes * copies,
                    "direct_bytes": r.direct_bytes * copies,
                }
            )
    df = pd.DataFrame(rows)
    df["true_bytes"] = df["heap_bytes"] + df["direct_bytes"]
    df["reported_over_true"] = df["reported_bytes"] / df["true_bytes"]
    return df


# --------------------------------------------------------------------------- simulate delayed


#: ``trackerlab simulate delayed`` scenario field -> release setting.
SCENARIO_SETTINGS = {
    "tick_ms": "delayedDeliveryTickTimeMillis",
    "entries_per_ledger": "managedLedgerMaxEntriesPerLedger",
    "min_rollover_minutes": "managedLedgerMinLedgerRolloverTimeMinutes",
    "max_rollover_minutes": "managedLedgerMaxLedgerRolloverTimeMinutes",
    "min_index_count": "delayedDeliveryMinIndexCountPerBucket",
    "segment_seconds": "delayedDeliveryMaxTimeStepPerBucketSnapshotSegmentSeconds",
    "max_indexes_per_segment": "delayedDeliveryMaxIndexesPerBucketSnapshotSegment",
}


def scenario_options(
    version: str | None, options: dict[str, object]
) -> tuple[pulsar_releases.Release, dict[str, object]]:
    """The release ``version`` names (None: the newest) and the scenario options with its
    defaults filled in where the user gave none; an explicit version without ``designs``
    runs the designs it ships (default, opt-in bucket and topic trackers)."""
    release = pulsar_releases.resolve(version)
    out = dict(options)
    for field, setting in SCENARIO_SETTINGS.items():
        value = release.default(setting)
        if field not in out and value is not None:
            out[field] = value
    if version is not None and "designs" not in out:
        simulated = CATALOG.names("simulate")
        ships = [release.design(t) for t in ("delayed", "delayed_bucket", "delayed_topic")]
        out["designs"] = tuple(d for d in ships if d in simulated)
    return release, out


def version_block(release: pulsar_releases.Release, scenario) -> str:
    """Lines naming the release whose structures and defaults a run assumed, and each run
    design's part in it (default, opt-in, or not in that release)."""
    roles = {
        "delayed": "default in-memory tracker",
        "delayed_bucket": "opt-in PIP-195 bucket tracker",
        "delayed_topic": "opt-in PIP-448 topic index",
    }
    lines = [
        f"Pulsar {release.label}: structures and defaults assumed: tick {scenario.tick_ms} ms, "
        f"{scenario.entries_per_ledger:,} entries per ledger, rollover "
        f"{scenario.min_rollover_minutes:g}–{scenario.max_rollover_minutes:g} min, buckets of "
        f"{scenario.min_index_count:,} indexes, segments of {scenario.segment_seconds:g} s / "
        f"{scenario.max_indexes_per_segment:,} indexes"
    ]
    for design in scenario.designs:
        part = f"not in {release.label}"
        for key, words in roles.items():
            choice = release.choice(key)
            if choice.design == design:
                part = words + (f" (merge {choice.merged})" if choice.merged else "")
        lines.append(f"  {design}: {part}")
    return "\n".join(lines)
