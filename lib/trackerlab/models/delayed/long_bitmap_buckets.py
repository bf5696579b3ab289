"""The time-bucketed ``InMemoryDelayedDeliveryTracker`` in its current form (variant ``c``).

``pulsar-broker/src/main/java/org/apache/pulsar/broker/delayed/InMemoryDelayedDeliveryTracker
.java`` on master (2026; stored form read as index id 55038017225, after #26032 restored fastutil
and #26117 introduced ``LongBitmap``)::

    Long2ObjectSortedMap<Long2ObjectSortedMap<LongBitmap>> delayedMessageMap =
        new Long2ObjectAVLTreeMap<>();                     // inner: new Long2ObjectRBTreeMap<>()
    AtomicLong delayedMessagesCount, memoryUsage;

- ``addMessage``: refuse (dispatch now) when ``deliverAt < 0 || deliverAt <= cutoff``;
  bucket key ``roundTimestamp(deliverAt)`` (strict: round up, saturating; else floor, see
  :mod:`trackerlab.models.delayed.bucketed_tracker` variant ``c``); leaf
  ``LongBitmaps.create()``; ``oldSize = serializedSize(); if (checkedAdd(entryId))
  memoryUsage += serializedSize() - oldSize, count++``;
- ``getScheduledMessages(n)``: while the first bucket key ``<= getBucketCutoffTime()``, for each
  ledger in ascending order ``drainTo(n)`` (the ``n`` smallest entry ids), ``memoryUsage`` and
  the count follow the deltas, a ledger whose bitmap was drained whole is removed, then the
  bucket if empty;
- ``getBufferMemoryUsage() = memoryUsage``: the serialized sizes of the live bitmaps minus 8 B
  each (a new leaf's ``oldSize`` is its empty 8-B header, so creation adds ``size - 8``; a
  whole drain subtracts ``size - 8``): no tree nodes, no leaf objects, no lock, no slack.

The leaf's shape (:mod:`trackerlab.models.primitives.long_bitmap`) is a parameter: master runs
``wraps-roaring`` since #26500, ``wraps-mutable`` before it (#26117).
"""

from __future__ import annotations

import numpy as np
from sortedcontainers import SortedDict

import trackerlab.models.delayed.aggregated as aggregated
from trackerlab.models.delayed.bucketed_tracker import BucketDelayedTracker
from trackerlab.models.design import DELAYED, Design
from trackerlab.models.primitives.long_bitmap import SHAPES, ConcurrentRoaringBitmap
from trackerlab.models.time_buckets.shapes import jvm_bytes_from_content
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing import jvm_long_bitmap as jl
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.python import python_real_bytes
from trackerlab.sizing.request import SizeRequest, SizeResult
from trackerlab.workloads.stream import MessageChunk, last_message_per_entry

DIR = "pulsar-broker/src/main/java/org/apache/pulsar/broker/delayed/"
LEAF_FILE = (
    "pulsar-common/src/main/java/org/apache/pulsar/common/util/collections/"
    "ConcurrentRoaringBitmap.java"
)
#: ``AtomicLong delayedMessagesCount`` and ``AtomicLong memoryUsage``.
COUNTERS = 2


class LongBitmapIndex:
    """``timestamp -> ledgerId -> LongBitmap`` with sorted inner maps and the ``memoryUsage``
    counter. ``add`` O(log n); ``add_arrays`` groups numpy arrays, one leaf bulk call per
    (bucket, ledger)."""

    inner = "sorted"

    def __init__(self, trim_bits: int, shape: str = SHAPES[0]) -> None:
        self.trim_bits = trim_bits
        self.shape = jl.check_shape(shape)
        self.buckets: SortedDict = SortedDict()
        self.memory_usage = 0

    def _leaf(self, bucket: int, ledger: int) -> ConcurrentRoaringBitmap:
        ledgers = self.buckets.get(bucket)
        if ledgers is None:
            ledgers = self.buckets[bucket] = SortedDict()
        leaf = ledgers.get(ledger)
        if leaf is None:
            leaf = ledgers[ledger] = ConcurrentRoaringBitmap(self.shape)
        return leaf

    def add(self, bucket: int, ledger: int, entry: int) -> bool:
        """``computeIfAbsent(...).computeIfAbsent(...)``, then ``checkedAdd`` with the
        serialized-size delta. True if the entry was new. O(log n)."""
        leaf = self._leaf(bucket, ledger)
        old = leaf.serialized_size()
        if not leaf.checked_add(entry):
            return False
        self.memory_usage += leaf.serialized_size() - old
        return True

    def add_arrays(self, buckets: np.ndarray, ledgers: np.ndarray, entries: np.ndarray) -> int:
        """Bulk :meth:`add`; returns how many entries were new. O(n log n)."""
        if len(entries) == 0:
            return 0
        order = np.lexsort((entries, ledgers, buckets))
        b, led, e = buckets[order], ledgers[order], entries[order]
        starts = np.flatnonzero(np.r_[True, (b[1:] != b[:-1]) | (led[1:] != led[:-1])])
        ends = np.r_[starts[1:], len(b)]
        added = 0
        for lo, hi in zip(starts.tolist(), ends.tolist(), strict=True):
            leaf = self._leaf(int(b[lo]), int(led[lo]))
            old = leaf.serialized_size()
            added += leaf.add_sorted(e[lo:hi])
            self.memory_usage += leaf.serialized_size() - old
        return added

    def first_bucket(self) -> int | None:
        """The smallest bucket key (``firstLongKey``), or None. O(1)."""
        return self.buckets.keys()[0] if self.buckets else None

    def pop_bucket(self, bucket: int) -> SortedDict:
        """Remove a bucket (``delayedMessageMap.remove``). O(log buckets)."""
        return self.buckets.pop(bucket)

    def ledgers_in_order(self, bucket: int) -> list[int]:
        """The ledgers of a bucket, ascending (the RB inner map's order). O(ledgers)."""
        return list(self.buckets[bucket])

    def __len__(self) -> int:
        return sum(len(leaf) for ledgers in self.buckets.values() for leaf in ledgers.values())

    def leaves(self):
        """Every leaf, buckets and ledgers in order. O(leaves)."""
        for ledgers in self.buckets.values():
            yield from ledgers.values()

    def content(self) -> np.ndarray:
        """One row per (bucket, ledger, 2^16 chunk): bucket, ledger, chunk key, cardinality,
        runs (0: never run-optimized), rank of the ledger in its bucket. O(chunks)."""
        rows = [
            (bucket, ledger, key, state[1], 0, rank)
            for bucket, ledgers in self.buckets.items()
            for rank, (ledger, leaf) in enumerate(ledgers.items())
            for key, state in sorted(leaf.layout.keys.items())
        ]
        return np.array(rows, dtype=np.int64).reshape(-1, 6)

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """Deep bytes of the maps and every leaf in its own state (after removals too).
        O(leaves * containers)."""
        total = jc.fastutil_avl_tree_map(len(self.buckets), layout=layout)
        for ledgers in self.buckets.values():
            total += jc.fastutil_rb_tree_map(len(ledgers), layout=layout)
            total += sum(leaf.jvm_bytes(layout) for leaf in ledgers.values())
        return total


class LongBitmapBucketTracker(BucketDelayedTracker):
    """Variant ``c`` with ``LongBitmap`` leaves and both counters, driven by ``now_ms``."""

    # the base's add/add_arrays/first_bucket paths work on either index; this class overrides
    # the methods that need more (drain, memoryUsage), so the narrower type is sound here
    index: LongBitmapIndex  # type: ignore[assignment]  # replaces the base's TimeBucketIndex

    def __init__(
        self,
        tick_ms: int = 1000,
        strict: bool = False,
        lookahead: int = 50_000,
        shape: str = SHAPES[0],
    ) -> None:
        super().__init__(tick_ms, strict, "c", lookahead)
        self.index = LongBitmapIndex(self.bits, shape)

    def get_scheduled_messages(self, max_messages: int, now_ms: int) -> list[tuple[int, int]]:
        """``getScheduledMessages(n)``: ``drainTo`` per ledger, ascending. O(k log n)."""
        n = max_messages
        taken: list[tuple[int, int]] = []
        index = self.index
        cutoff = self.bucket_cutoff(now_ms)
        while n > 0 and index.buckets:
            first = index.first_bucket()
            assert first is not None  # index.buckets is not empty
            if first > cutoff:
                break
            ledgers = index.buckets[first]
            done = []
            for ledger, leaf in ledgers.items():
                cardinality = leaf.cardinality()
                old = leaf.serialized_size()
                drained = leaf.drain_to(n)
                index.memory_usage += leaf.serialized_size() - old
                self.count -= len(drained)
                n -= len(drained)
                taken.extend((ledger, e) for e in drained)
                if len(drained) == cardinality:
                    done.append(ledger)
                if n <= 0:
                    break
            for ledger in done:
                del ledgers[ledger]
            if not ledgers:
                index.pop_bucket(first)
        if not index.buckets:
            self.fixed_delay, self.highest_tracked = True, 0
        return sorted(set(taken))

    def buffer_memory_usage(self) -> int:
        """``getBufferMemoryUsage()``: the ``memoryUsage`` counter. O(1)."""
        return self.index.memory_usage

    def add_chunk(self, chunk: MessageChunk, dispatch_lag_ms: int = 0) -> int:
        """Bulk ``addMessage`` (the base class's rules, this index's bulk path). O(n log n) for the chunk's n messages."""
        return super().add_chunk(chunk, dispatch_lag_ms)


# --------------------------------------------------------------------------- sizing


def counters_bytes(layout: JvmLayout = COMPRESSED) -> int:
    """The tracker's two ``AtomicLong`` objects (count, memoryUsage): 48 B."""
    return COUNTERS * jl.atomic_long(layout)


def build(request: SizeRequest) -> LongBitmapBucketTracker:
    """The tracker with ``LongBitmap`` leaves after the workload's messages, each added when
    published (the stateful model: per-leaf layouts). O(n log n) + O(leaves) Python."""
    tracker = LongBitmapBucketTracker(request.tick_ms, shape=request.shape or SHAPES[0])
    for chunk in request.workload.chunks():
        tracker.add_chunk(chunk)
    return tracker


def build_content(request: SizeRequest) -> tuple[BucketDelayedTracker, np.ndarray]:
    """Form c's index content after adds only, through the fast ``BitMap64`` index of variant
    ``c`` (same bucket keys, sorted inner maps): a leaf built by ``checkedAdd`` alone is fixed by
    its per-chunk cardinalities. O(n log n)."""
    tracker = BucketDelayedTracker(request.tick_ms, variant="c")
    for chunk in request.workload.chunks():
        tracker.add_chunk(chunk)
    return tracker, tracker.index.content(runs=False)


def size_long_bitmap_buckets(request: SizeRequest) -> SizeResult:
    """Form c built from the workload: JVM bytes from the index content (vectorized; equal to
    the stateful model's per-leaf sum, ``tests/models/delayed/test_long_bitmap_buckets.py``);
    ``getBufferMemoryUsage`` from the same content."""
    from trackerlab.models.delayed.buffer_metric import serialized_delta

    tracker, content = build_content(request)
    index = tracker.index
    shape = request.shape or SHAPES[0]
    layout = request.jvm_layout
    jvm = jvm_bytes_from_content(content, len(index.buckets), "avl-rb", False, layout, leaf=shape)
    return SizeResult(
        structure="time-buckets-long-bitmap",
        entries=len(index),
        python_bytes=python_real_bytes(index.buckets, exact=False),
        jvm_bytes=jvm,
        details={
            "java_shape": f"avl-rb, leaf {shape}",
            "buckets": len(index.buckets),
            "bitmaps": index.stats().bitmaps,
            "messages_per_bucket": 1 << tracker.bits,
            "counters_jvm_bytes": counters_bytes(layout),
            "buffer_memory_usage": serialized_delta(content),
        },
    )


def simulate(topic, retention, settings):
    """The aggregated time-bucket run sized with this form's maps and leaves."""
    run = aggregated.time_bucket_design(topic, retention, settings, leaf=SHAPES[0])
    run.design = "time-buckets-long-bitmap"
    return run


DESIGN = Design(
    tracker=DELAYED,
    summary="current time buckets (form c): deliverAt rounded to 2^floor(log2 tick) ms -> "
    "ledger -> LongBitmap, counters by deltas",
    java="Long2ObjectAVLTreeMap<Long2ObjectRBTreeMap<LongBitmap>> + AtomicLong count, memoryUsage",
    source=DIR + "InMemoryDelayedDeliveryTracker.java",
    prs=("#26032", "#26117", "#26500", "#26012"),
    releases="master (2026)",
    memory="heap",
    options=("tick_ms", "layout", "shape"),
    build=size_long_bitmap_buckets,
    simulate=simulate,
    shapes=SHAPES,
    columns=("python", "jvm"),
)


# --------------------------------------------------------------------------- the leaf alone


def per_ledger_leaves(request: SizeRequest, shape: str) -> dict[int, ConcurrentRoaringBitmap]:
    """One leaf per ledger holding the entry ids of the workload's tracked (delayed) entries,
    as PIP-195's ``delayedIndexBitMap`` keeps them. O(n log n)."""
    ledger, entry, publish, deliver_at = last_message_per_entry(request.workload)
    keep = deliver_at > publish + request.tick_ms
    ledger, entry = ledger[keep], entry[keep]
    leaves: dict[int, ConcurrentRoaringBitmap] = {}
    order = np.argsort(ledger, kind="stable")
    ledger, entry = ledger[order], entry[order]
    starts: np.ndarray | list[int] = (
        np.flatnonzero(np.r_[True, ledger[1:] != ledger[:-1]]) if len(ledger) else []
    )
    ends = np.r_[starts[1:], len(ledger)] if len(ledger) else []
    for lo, hi in zip(starts, ends, strict=True):
        leaf = leaves[int(ledger[lo])] = ConcurrentRoaringBitmap(shape)
        leaf.add_sorted(entry[lo:hi])
    return leaves


def size_long_bitmaps(request: SizeRequest) -> SizeResult:
    """The workload's delayed entries in one leaf per ledger, in the request's shape."""
    shape = request.shape or SHAPES[0]
    leaves = per_ledger_leaves(request, shape)
    entries = sum(len(leaf) for leaf in leaves.values())
    return SizeResult(
        structure="long-bitmap",
        entries=entries,
        python_bytes=python_real_bytes(leaves),
        jvm_bytes=sum(leaf.jvm_bytes(request.jvm_layout) for leaf in leaves.values()),
        details={
            "shape": shape,
            "leaves": len(leaves),
            "serialized_bytes": sum(leaf.serialized_size() for leaf in leaves.values()),
        },
    )


LEAF_DESIGN = Design(
    tracker=DELAYED,
    summary="the LongBitmap leaf (ConcurrentRoaringBitmap) alone: one per ledger of the "
    "delayed entries, as PIP-195 and the form-c index hold them",
    java="ConcurrentRoaringBitmap: RoaringBitmap | MutableRoaringBitmap + StampedLock "
    "(+ removesSinceTrim, trim after 10,000 removals)",
    source=LEAF_FILE,
    prs=("#26117", "#26500"),
    releases="master (2026); LongBitmaps.create()",
    memory="heap",
    options=("tick_ms", "layout", "shape"),
    build=size_long_bitmaps,
    shapes=SHAPES,
    columns=("python", "jvm"),
)
