"""Per-message runs of the four designs, to check the aggregated simulation on short horizons.

The same :class:`~trackerlab.experiments.massive_delayed.DelayedScenario` drives a
:class:`~trackerlab.workloads.stream.Workload` (one entry per "message", at the scenario's entry
rate, ``entries_per_ledger`` from the rollover rule) through the per-message models:
:class:`~trackerlab.models.delayed.heap.InMemoryDelayedDeliveryTracker`,
:class:`~trackerlab.models.delayed.bucketed_tracker.BucketDelayedTracker` (sized by
:func:`~trackerlab.models.time_buckets.shapes.jvm_bytes`),
:class:`~trackerlab.models.delayed.pip195_tracker.BucketDelayedDeliveryTracker` and
:class:`~trackerlab.models.delayed.delay_levels.DelayLevelTopics`. Entries published during a step are
added at their publication time; due messages are handed out at the step's end, as in the
aggregated model. Python loops: keep these runs to ~1e5 entries.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from trackerlab.experiments.massive_delayed import DelayedScenario, simulate
from trackerlab.models.delayed.aggregated import Topic
from trackerlab.models.delayed.bucketed_tracker import BucketDelayedTracker
from trackerlab.models.delayed.delay_levels import DelayLevelTopics
from trackerlab.models.delayed.heap import InMemoryDelayedDeliveryTracker
from trackerlab.models.delayed.pip195_tracker import BucketDelayedDeliveryTracker
from trackerlab.models.time_buckets.shapes import jvm_bytes
from trackerlab.workloads.stream import DEFAULT_START_MS, MessageChunk, Workload

__all__ = [
    "VALIDATION_CASES",
    "ReferenceRun",
    "reference_run",
    "validation_table",
]

ALL = 1 << 62


@dataclass
class ReferenceRun:
    """Sizes of one subscription's index at the scenario's sample times."""

    design: str
    times_ms: np.ndarray
    memory_bytes: np.ndarray
    indexed: np.ndarray
    stats: dict[str, float] = field(default_factory=dict)


def _workload(sc: DelayedScenario) -> Workload:
    topic = sc.topic()
    return Workload(
        messages=int(np.ceil(topic.horizon_ms * topic.rate)),
        rate_per_ms=topic.rate,
        entries_per_ledger=topic.entries_per_ledger,
        delay=sc.spec,
        seed=sc.seed,
    )


#: The per-message tracker models :func:`reference_run` drives, one per design.
Tracker = (
    InMemoryDelayedDeliveryTracker
    | BucketDelayedTracker
    | BucketDelayedDeliveryTracker
    | DelayLevelTopics
)


def reference_run(sc: DelayedScenario, design: str) -> ReferenceRun:
    """Run ``design`` message by message over ``sc`` (one subscription)."""
    topic = sc.topic()
    chunk = _workload(sc).chunk(0, int(np.ceil(topic.horizon_ms * topic.rate)))
    rel = chunk.publish_ms - DEFAULT_START_MS
    times = topic.times
    bounds = np.searchsorted(rel, times, side="left")  # entries published before t_k
    samples = set(topic.sample_index.tolist())
    sample_times, memory, indexed = [], [], []
    tracker = _tracker(sc, design, topic)
    lo = 0
    for k, t in enumerate(times.tolist()):
        hi = int(bounds[k])
        _step(tracker, chunk, lo, hi, DEFAULT_START_MS + int(t))
        lo = hi
        if k in samples:
            sample_times.append(t)
            memory.append(_memory(tracker))
            indexed.append(_indexed(tracker))
    return ReferenceRun(
        design,
        np.array(sample_times),
        np.array(memory, dtype=np.float64),
        np.array(indexed, dtype=np.float64),
        _stats(tracker),
    )


def _tracker(sc: DelayedScenario, design: str, topic: Topic) -> Tracker:
    """The empty per-message model of ``design`` with ``sc``'s settings (``topic``: its
    traffic, for the delay levels' ledger size); ValueError for an unknown design."""
    tick = sc.tick_ms
    if design == "triple-heap":
        return InMemoryDelayedDeliveryTracker(tick, fixed_delay_lookahead=0)
    if design == "time-buckets":
        return BucketDelayedTracker(tick, variant="a", lookahead=0)
    if design == "pip195-buckets":
        return BucketDelayedDeliveryTracker(
            tick,
            min_index_count=sc.min_index_count,
            segment_time_step_ms=int(sc.segment_seconds * 1000),
            max_indexes_per_segment=sc.max_indexes_per_segment,
        )
    if design == "delay-level-topics":
        return DelayLevelTopics(
            sc.strategy, tick, sc.rollover.entries_per_ledger(topic.rate, topic.entry_bytes)
        )
    raise ValueError(f"unknown design {design!r}")


def _step(tracker: Tracker, chunk: MessageChunk, lo: int, hi: int, now: int) -> None:
    """One time step: add entries ``lo:hi`` of ``chunk``, then hand out what is due at ``now``."""
    if isinstance(tracker, DelayLevelTopics):
        tracker.publish(chunk.publish_ms[lo:hi], chunk.delay_ms[lo:hi])
        tracker.move(now)
        tracker.deliver(now)
    elif isinstance(tracker, BucketDelayedTracker):
        tracker.add_chunk(_slice(chunk, lo, hi))
        tracker.get_scheduled_messages(ALL, now)
    else:
        at = chunk.deliver_at
        for i in range(lo, hi):
            tracker.add_message(
                int(chunk.ledger[i]), int(chunk.entry[i]), int(at[i]), int(chunk.publish_ms[i])
            )
        tracker.get_scheduled_messages(ALL, now)


def _stats(tracker: Tracker) -> dict[str, float]:
    """End-of-run counters: PIP-195's writes and persisted bytes, delay levels' republishing;
    empty for the other designs."""
    if isinstance(tracker, BucketDelayedDeliveryTracker):
        st = tracker.stats
        return {
            "snapshot_bytes_written": float(st.snapshot_bytes_written),
            "bk_entries_written": float(st.bk_entries_written),
            "buckets_created": float(st.buckets_created),
            "persisted_bytes_end": float(tracker.persisted_bytes()),
        }
    if isinstance(tracker, DelayLevelTopics):
        return {
            "republished": float(tracker.stats.republished),
            "level_backlog": float(tracker.level_backlog()),
            "partitions": float(tracker.strategy.partitions),
        }
    return {}


def _slice(chunk: MessageChunk, lo: int, hi: int) -> MessageChunk:
    """Entries ``lo:hi`` of ``chunk``."""
    return MessageChunk(
        chunk.index[lo:hi],
        chunk.publish_ms[lo:hi],
        chunk.ledger[lo:hi],
        chunk.entry[lo:hi],
        chunk.batch_index[lo:hi],
        chunk.delay_ms[lo:hi],
    )


def _memory(tracker: Tracker) -> float:
    """JVM bytes the index holds (time buckets: sized by ``jvm_bytes``, AVL + open hash)."""
    if isinstance(tracker, InMemoryDelayedDeliveryTracker):
        return float(tracker.buffer_memory_usage())
    if isinstance(tracker, BucketDelayedTracker):
        return float(jvm_bytes(tracker.index, "avl-openhash"))
    return float(tracker.memory_bytes())


def _indexed(tracker: Tracker) -> float:
    """Indexes held in memory (PIP-195: the mutable and shared queues)."""
    if isinstance(tracker, BucketDelayedDeliveryTracker):
        return float(tracker.mutable.size() + tracker.shared.size())
    if isinstance(tracker, DelayLevelTopics):
        return float(tracker.tracker.number_of_delayed_messages())
    return float(tracker.number_of_delayed_messages())


def validation_table(rate_per_s: float, minutes: float) -> pd.DataFrame:
    """The aggregated simulation against per-message runs on short horizons, one row per case.

    Five single-topic cases at ``rate_per_s`` (one message per entry, 3,000-entry ledgers)
    over ``minutes``, and one delay-level case (HOUR partitions, 1-3 h delays, 4 h at
    5 msg/s). Columns: design, delay, entries, mean and peak bytes ratio (aggregated /
    per-message), ``within 5%``.
    """
    scenario = functools.partial(
        DelayedScenario,
        rate_per_s=rate_per_s,
        batch_size=1,
        subscriptions=1,
        days=minutes / 1440,
        step_s=1.0,
        samples=30,
        entries_per_ledger=3000,
        min_rollover_minutes=0,
        min_index_count=2000,
    )
    cases = [scenario(delay=delay, designs=(design,)) for design, delay in VALIDATION_CASES]
    cases.append(
        DelayedScenario(
            rate_per_s=5.0,
            batch_size=1,
            subscriptions=1,
            days=4 / 24,
            step_s=1.0,
            samples=30,
            entries_per_ledger=600,
            min_rollover_minutes=0,
            partition_by="HOUR",
            max_delay_s=3 * 3600.0,
            delay="uniform:1h:3h",
            designs=("delay-level-topics",),
        )
    )
    rows = []
    for sc in cases:
        design = sc.designs[0]
        agg, ref = simulate(sc).runs[design], reference_run(sc, design)
        rows.append(
            {
                "design": design,
                "delay": sc.delay,
                "entries": int(sc.entries_per_s * sc.days * 86400),
                "mean bytes ratio": agg.memory_bytes.mean() / ref.memory_bytes.mean(),
                "peak bytes ratio": agg.memory_bytes.max() / ref.memory_bytes.max(),
            }
        )
    table = pd.DataFrame(rows)
    ratios = table[["mean bytes ratio", "peak bytes ratio"]]
    table["within 5%"] = (ratios.sub(1).abs() <= 0.05).all(axis=1)
    return table


#: (design, delay) of the single-topic validation cases.
VALIDATION_CASES = (
    ("triple-heap", "uniform:1m:15m"),
    ("time-buckets", "fixed:5m"),
    ("time-buckets", "mix:0.7*uniform:0:30s+0.3*uniform:5m:20m"),
    ("pip195-buckets", "uniform:1m:15m"),
    ("pip195-buckets", "fixed:5m"),
)
