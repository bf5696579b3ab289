"""PIP-195's ``BucketDelayedDeliveryTracker`` in a plan: heap, direct and persisted bytes.

The other delayed designs are sized from one steady-state snapshot's counts. PIP-195's state
cycles instead: the mutable bucket grows until a ledger rollover finds it holding
``delayedDeliveryMinIndexCountPerBucket`` (50,000) indexes and seals it into a snapshot in
BookKeeper; each sealed bucket keeps one segment in the shared queue and its bitmaps on the
heap until its last index is delivered. A plan therefore runs the time-stepped model that
``trackerlab simulate delayed`` runs (:func:`trackerlab.models.delayed.aggregated.pip195_design`,
which follows ``BucketDelayedDeliveryTracker.java`` of PIP-195 #16763 through #26251, 3.0 and
later) over a warm-up and at least three seal cycles, and reads the cycle after the warm-up:
steady is the mean, peak the largest sample. The same run serves the fast and the ``--exact``
paths (it is a closed-form model of expected counts, no sampling).

Memory: the two ``TripleLongPriorityQueue`` capacities live in direct memory (what
``getBufferMemoryUsage`` reports); the buckets' and in-flight bitmaps on the heap. Persisted:
the snapshot bytes of the buckets alive (BookKeeper, besides the topic's own ledgers). The
tracker never pauses reads (``shouldPauseAllDeliveries`` returns false), so the fixed-delay
lookahead does not apply.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from trackerlab.models.delayed import aggregated
from trackerlab.workloads import delay_forms

#: Time steps of the run (its cost is linear in them; seals fall on step boundaries).
STEPS = 2400
#: Sample times spread over the run (memory is read at these).
SAMPLES = 600
#: Seal cycles simulated after the warm-up.
CYCLES = 3


@dataclass(frozen=True)
class Pip195Size:
    """One subscription's PIP-195 tracker at one partition, bytes (steady: mean over the
    cycles after the warm-up; peak: the largest sample)."""

    entries: float
    steady_heap_bytes: int
    steady_direct_bytes: int
    peak_bytes: int
    #: the direct part of the peak sample
    peak_direct_bytes: int
    persisted_bytes: int
    buckets: float

    @property
    def steady_bytes(self) -> int:
        return self.steady_heap_bytes + self.steady_direct_bytes


def topic_of(w) -> aggregated.Topic:
    """The partition's delayed entries as the time-stepped model's :class:`Topic`: delayed
    entries at ``delayed_entry_rate``, ledgers of the plan's ``entries_per_ledger`` shared with
    the other entries (``share``), run long enough for a warm-up and :data:`CYCLES` seal
    cycles. O(1)."""
    rate = w.delayed_entry_rate
    longest = delay_forms.support_max(w.values["delay"])
    horizon = warmup_ms(w) + CYCLES * max(cycle_ms(w), longest)
    given = w.values["horizon"]
    if given is not None:
        horizon = float(given)
    return aggregated.Topic(
        spec=w.values["delay"],
        rate=rate,
        horizon_ms=horizon,
        step_ms=horizon / STEPS,
        samples=SAMPLES,
        tick_ms=int(w.values["tick"]),
        entries_per_ledger=w.entries_per_ledger,
        entry_bytes=math.ceil(w.messages_per_entry * w.values["message_size"]),
        share=rate / w.entry_rate,
    )


def cycle_ms(w) -> float:
    """Time between seals: a bucket seals at the first ledger rollover where it holds
    ``minIndexCountPerBucket`` indexes (at least one ledger). O(1)."""
    ledger_ms = w.entries_per_ledger / w.entry_rate
    per_ledger = w.delayed_entry_rate * ledger_ms
    need = aggregated.Settings().min_index_count
    return max(1, math.ceil(need / per_ledger - 1e-9)) * ledger_ms


def warmup_ms(w) -> float:
    """Time before the tracker can be steady: the longest delay, one seal cycle and a
    ledger. O(1)."""
    ledger_ms = w.entries_per_ledger / w.entry_rate
    return delay_forms.support_max(w.values["delay"]) + cycle_ms(w) + ledger_ms


def size(w) -> Pip195Size:
    """Run the model and read its steady state. O(STEPS + SAMPLES x ledgers x chunks)."""
    topic = topic_of(w)
    # the topic's retention does not enter the tracker's memory; the model wants one
    per_ledger = max(1, round(topic.entries_per_ledger * topic.share))
    retention = aggregated.single_topic_retention(topic, ledger_entries=per_ledger)
    run = aggregated.pip195_design(topic, retention, aggregated.Settings())
    after = run.times_ms >= min(warmup_ms(w), topic.horizon_ms / 2)
    memory = run.memory_bytes[after]
    # pip195_design always states its direct part; None would mean none
    direct = np.zeros_like(memory) if run.direct_bytes is None else run.direct_bytes[after]
    top = int(np.argmax(memory))
    return Pip195Size(
        entries=float(np.mean(run.indexed[after])),
        steady_heap_bytes=round(float(np.mean(memory - direct))),
        steady_direct_bytes=round(float(np.mean(direct))),
        peak_bytes=round(float(memory[top])),
        peak_direct_bytes=round(float(direct[top])),
        persisted_bytes=round(float(np.mean(run.persisted_bytes[after]))),
        buckets=float(run.extras.get("buckets_alive_end", 0.0)),
    )


def describe_cycle(w) -> str:
    """The seal cycle in words (``a seal every 10min``, or ``no seal``). O(1)."""
    from trackerlab.workloads.units import format_duration_ms

    ledger_ms = w.entries_per_ledger / w.entry_rate
    longest = delay_forms.support_max(w.values["delay"])
    if w.delayed_entry_rate * (longest + ledger_ms) < aggregated.Settings().min_index_count:
        return "no bucket ever seals: fewer than 50,000 indexes"
    every = cycle_ms(w)
    every = round(every / 1000) * 1000 if every >= 10_000 else round(every)
    return f"a seal every {format_duration_ms(every)}"
