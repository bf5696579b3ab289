"""Sizes of the heap-based delayed tracker from its entry count alone (Spark sweeps).

``InMemoryDelayedDeliveryTracker`` v1 keeps one ``(deliverAt, ledgerId, entryId)`` triple per
tracked entry in a ``TripleLongPriorityQueue`` (:mod:`trackerlab.models.primitives.triple_heap`); its
memory depends only on how many triples were added (growth rule of ``SegmentedLongArray``,
spec pulsar-structures.md §3.4), not on their values. So a sweep counts the tracked entries
and sizes the queue here, O(growth steps), with no array allocated:

- JVM heap: :func:`~trackerlab.models.primitives.triple_heap.jvm_triple_queue_bytes` of the segments;
- JVM direct (v1/v2 ByteBuf segments): ``bytesCapacity() = 8 * capacity``;
- Python: ``python_real_bytes`` of the Python model, i.e. a reference tracker holding two
  triples with its segment arrays swapped for the grown ones (pympler counts a numpy array
  as its ``getsizeof``, header + data, and a list by its length). The reference's small int
  fields (counts, thresholds) may differ by a few bytes from a real tracker's, and its
  instance dicts are counted as fresh dicts, so the bytes do not depend on process history.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache

import numpy as np

from trackerlab.models.primitives.triple_heap import (
    MAX_SEGMENT_SIZE,
    array_list_capacity,
    capacity_after_adds,
    jvm_triple_queue_bytes,
)
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.workloads.stream import DEFAULT_START_MS


@dataclass(frozen=True)
class HeapSizes:
    entries: int
    capacity_longs: int
    jvm_heap_bytes: int
    jvm_direct_bytes: int
    python_bytes: int


def segment_lengths(n: int, version: str = "v2") -> list[int]:
    """Lengths in longs of the segments after ``n`` adds: the first grows up to 2M longs,
    then one full 2M-long segment is appended per growth step (v1: one buffer)."""
    capacity = capacity_after_adds(n, version=version)
    if version == "v1" or capacity <= MAX_SEGMENT_SIZE:
        return [capacity]
    return [MAX_SEGMENT_SIZE] * (capacity // MAX_SEGMENT_SIZE)


def _segments_python_bytes(lengths: list[int]) -> int:
    """pympler's count for the segment list: 8 B per slot plus each array's getsizeof."""
    header = sys.getsizeof(np.zeros(0, dtype=np.int64))
    return sum(header + 8 * length + 8 for length in lengths)


def _instances(root: object) -> list[object]:
    """The objects with an instance ``__dict__`` reachable from ``root`` through instance
    attributes (the tracker, its queue, the queue's segmented array). O(attributes)."""
    out, seen, stack = [], set(), [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or not hasattr(obj, "__dict__") or isinstance(obj, type):
            continue
        seen.add(id(obj))
        out.append(obj)
        stack.extend(vars(obj).values())
    return out


@cache
def _reference_python_bytes(tick_ms: int, version: str) -> int:
    """``python_real_bytes`` of a tracker with two triples, minus its segments.

    CPython sizes an instance's ``__dict__``, once materialized, from its class's shared-key
    table, which grows with every instance the process created before: measured as is, the
    result drifted by 40 B per tick sized in a process (issue 16). Each instance dict is
    therefore counted as a fresh dict of the same entries (``sys.getsizeof({**vars(obj)})``),
    which depends on the entries only, so every process and every order gives the same bytes.
    """
    from trackerlab.models.delayed.heap import InMemoryDelayedDeliveryTracker

    at = DEFAULT_START_MS + 10**9
    tracker = InMemoryDelayedDeliveryTracker.from_arrays(
        np.array([10_000, 10_000]),
        np.array([0, 1]),
        np.array([at, at + 1]),
        now_ms=DEFAULT_START_MS,
        tick_time_ms=tick_ms,
        queue_version=version,
    )
    lengths = [len(s) for s in tracker.queue.array.segments]
    return canonical_python_bytes(tracker) - _segments_python_bytes(lengths)


def canonical_python_bytes(tracker: object) -> int:
    """``python_real_bytes(tracker)`` with each instance ``__dict__`` counted as a fresh
    dict of its entries: the tracker's Python bytes without the process-history term (see
    :func:`_reference_python_bytes`). O(objects reachable)."""
    from trackerlab.sizing.python import python_real_bytes

    measured = python_real_bytes(tracker)  # materializes each __dict__ as CPython sizes it
    return measured + sum(
        sys.getsizeof({**vars(obj)}) - sys.getsizeof(vars(obj)) for obj in _instances(tracker)
    )


def heap_sizes(
    n: int, tick_ms: int = 1000, version: str = "v2", layout: JvmLayout = COMPRESSED
) -> HeapSizes:
    """The three byte counts of a heap tracker holding ``n`` triples. O(growth steps)."""
    lengths = segment_lengths(n, version)
    capacity = sum(lengths)
    list_capacity = array_list_capacity(len(lengths)) if version == "v2" else None
    return HeapSizes(
        entries=n,
        capacity_longs=capacity,
        jvm_heap_bytes=jvm_triple_queue_bytes(version, lengths, list_capacity, layout),
        jvm_direct_bytes=0 if version == "v3" else 8 * capacity,
        python_bytes=_reference_python_bytes(tick_ms, version) + _segments_python_bytes(lengths),
    )
