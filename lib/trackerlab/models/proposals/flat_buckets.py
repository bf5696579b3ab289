"""Proposal: one ``Roaring64Bitmap`` per time bucket, keyed by ``ledgerId << 24 | entryId``.

The time-bucketed ``InMemoryDelayedDeliveryTracker`` (#23611) keeps, per bucket, an inner map
``ledgerId -> Roaring64Bitmap``: each (bucket, ledger) pair costs an inner-map entry and a
whole bitmap object (about 200 B) even when it holds one entry id, which is what random
delays produce. This design drops the inner map and packs the ledger into the value::

    Long2ObjectSortedMap<Roaring64Bitmap> delayed = new Long2ObjectAVLTreeMap<>();
    delayed.computeIfAbsent(trimLowerBit(deliverAt, bits), k -> new Roaring64Bitmap())
           .addLong(ledgerId << 24 | entryId);

A bitmap's 48-bit high keys are then ``ledgerId << 8 | entryId >> 16``: ledgers become keys of
the bitmap's own ART, which shares their common prefix. Ascending values are ascending
``(ledgerId, entryId)``, so ``getScheduledMessages(n)`` takes the ``n`` smallest values of the
first due bucket, exactly the order of the sorted-inner-map variant (c). Bounds: entry ids
below 2^24 (``managedLedgerMaxEntriesPerLedger`` at most 16,777,216, the default is 50,000)
and ledger ids below 2^39 (a positive long after the shift); both are checked.

Timing rules are the tracker's (``AbstractDelayedDeliveryTracker``, variant a): cutoff
``now + tick`` (``now`` when strict), ``addMessage`` refuses ``deliverAt <= cutoff``, bucket
keys are floored, so a message goes out at most ``tick + 2^bits - 1`` ms early.
"""

from __future__ import annotations

import array

import numpy as np
from pyroaring import BitMap64
from sortedcontainers import SortedDict

from trackerlab.models.delayed.time_buckets import precision_bits_for_tick
from trackerlab.models.design import DELAYED, Design
from trackerlab.models.time_buckets.index import trim_lower_bits
from trackerlab.params import check_int
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.jvm_roaring import roaring64_bitmap_bytes_of
from trackerlab.sizing.python import python_real_bytes
from trackerlab.sizing.request import SizeRequest, SizeResult
from trackerlab.workloads.stream import MessageChunk

ENTRY_BITS = 24
MAX_ENTRY_ID = (1 << ENTRY_BITS) - 1
MAX_LEDGER_ID = (1 << (63 - ENTRY_BITS)) - 1


def pack(ledger: int | np.ndarray, entry: int | np.ndarray) -> int | np.ndarray:
    """``ledgerId << 24 | entryId``; ValueError outside the bounds. O(n)."""
    if np.any(np.asarray(entry) > MAX_ENTRY_ID) or np.any(np.asarray(ledger) > MAX_LEDGER_ID):
        raise ValueError(f"entry ids must be <= {MAX_ENTRY_ID}, ledger ids <= {MAX_LEDGER_ID}")
    return (ledger << ENTRY_BITS) | entry


class FlatBucketTracker:
    """Delayed-delivery index with one bitmap per bucket, driven by an explicit clock."""

    def __init__(self, tick_ms: int = 1000, strict: bool = False) -> None:
        self.tick_ms = check_int("tick (ms)", tick_ms, 1)
        self.strict = strict
        self.bits = precision_bits_for_tick(tick_ms)
        self.buckets: SortedDict = SortedDict()  # bucket key -> BitMap64 of packed ids
        self.count = 0

    def cutoff(self, now_ms: int) -> int:
        """``getCutoffTime()``: ``now`` when strict, else ``now + tick``. O(1)."""
        return now_ms if self.strict else now_ms + self.tick_ms

    def add_message(self, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        """``addMessage``: False means "deliver now" (not tracked). O(log buckets)."""
        if deliver_at < 0 or deliver_at <= self.cutoff(now_ms):
            return False
        key = int(trim_lower_bits(deliver_at, self.bits))
        bitmap = self.buckets.get(key)
        if bitmap is None:
            bitmap = self.buckets[key] = BitMap64()
        value = int(pack(ledger, entry))
        if value not in bitmap:
            bitmap.add(value)
            self.count += 1
        return True

    def add_chunk(self, chunk: MessageChunk, dispatch_lag_ms: int = 0) -> int:
        """Bulk ``addMessage`` of a chunk, each message dispatched ``dispatch_lag_ms`` after
        publication: one bulk bitmap update per bucket. Returns how many were tracked.
        O(n log n)."""
        deliver_at = chunk.deliver_at
        now = chunk.publish_ms + dispatch_lag_ms
        keep = (deliver_at >= 0) & (deliver_at > (now if self.strict else now + self.tick_ms))
        if not keep.any():
            return 0
        keys = trim_lower_bits(deliver_at[keep], self.bits)
        values = pack(chunk.ledger[keep], chunk.entry[keep])
        order = np.lexsort((values, keys))
        keys, values = keys[order], values[order]
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        for lo, hi in zip(starts.tolist(), np.r_[starts[1:], len(keys)].tolist(), strict=True):
            arr = array.array("Q")
            arr.frombytes(np.ascontiguousarray(values[lo:hi], dtype=np.uint64).tobytes())
            key = int(keys[lo])
            bitmap = self.buckets.get(key)
            if bitmap is None:
                self.buckets[key] = bitmap = BitMap64()
            before = len(bitmap)
            bitmap.update(arr)
            self.count += len(bitmap) - before
        return int(keep.sum())

    def has_message_available(self, now_ms: int) -> bool:
        """``hasMessageAvailable``: the first bucket is due. O(1)."""
        return bool(self.buckets) and self.buckets.keys()[0] <= self.cutoff(now_ms)

    def get_scheduled_messages(self, max_messages: int, now_ms: int) -> list[tuple[int, int]]:
        """``getScheduledMessages(n)``: at most ``n`` due ``(ledger, entry)`` ids, ascending.
        O(n + buckets emptied)."""
        n, taken = max_messages, []
        cutoff = self.cutoff(now_ms)
        while n > 0 and self.buckets:
            key = self.buckets.keys()[0]
            if key > cutoff:
                break
            bitmap = self.buckets[key]
            values = bitmap[:n] if len(bitmap) > n else bitmap
            taken.extend((v >> ENTRY_BITS, v & MAX_ENTRY_ID) for v in values)
            n -= len(values)
            if len(values) == len(bitmap):
                del self.buckets[key]
            else:
                bitmap.difference_update(values)
        self.count -= len(taken)
        return sorted(set(taken))

    def number_of_delayed_messages(self) -> int:
        """``getNumberOfDelayedMessages``: a counter, O(1)."""
        return self.count

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """The AVL map and one ``Roaring64Bitmap`` per bucket, built by ascending ``addLong``
        (a bucket's values arrive in publish order). O(buckets + chunks)."""
        outer = jc.fastutil_avl_tree_map(len(self.buckets), layout=layout)
        return outer + sum(
            roaring64_bitmap_bytes_of(bm, layout=layout) for bm in self.buckets.values()
        )


def size_flat_buckets(request: SizeRequest) -> SizeResult:
    """The index built from the workload's messages (each dispatched as published). O(n log n)."""
    tracker = FlatBucketTracker(request.tick_ms)
    for chunk in request.workload.chunks():
        tracker.add_chunk(chunk)
    for bitmap in tracker.buckets.values():
        bitmap.shrink_to_fit()
    return SizeResult(
        structure="time-buckets-flat",
        entries=tracker.count,
        python_bytes=python_real_bytes(tracker.buckets, exact=False),
        jvm_bytes=tracker.jvm_bytes(request.jvm_layout),
        details={"buckets": len(tracker.buckets), "trim_bits": tracker.bits},
    )


DESIGN = Design(
    tracker=DELAYED,
    summary="proposal: one Roaring64Bitmap per time bucket of (ledgerId << 24 | entryId)",
    java="Long2ObjectAVLTreeMap<Roaring64Bitmap>",
    source="lib/trackerlab/models/proposals/flat_buckets.py",
    prs=(),
    releases="proposal",
    memory="heap",
    options=("tick_ms", "layout"),
    build=size_flat_buckets,
    columns=("python", "jvm"),
    proposal=True,
)
