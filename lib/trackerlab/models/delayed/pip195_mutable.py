"""The released PIP-195 tracker's in-memory index before its first bucket seals.

Follows ``BucketDelayedDeliveryTracker``, ``MutableBucket`` and ``Bucket`` of
``pulsar-broker`` 3.0.7 – 4.2.4 (``broker/delayed/bucket``; #16763 as released, checked byte
for byte against those classes by ``trackerlab jvm-check --pulsar``):

- ``MutableBucket.priorityQueue``: a ``TripleLongPriorityQueue`` of ``(deliverAt, ledgerId,
  entryId)``, one per tracked entry (``MutableBucket.addMessage``);
- ``Bucket.delayedIndexBitMap``: a ``java.util.HashMap<Long, RoaringBitmap>`` with one
  ``RoaringBitmap`` per ledger, each entry id added as the range ``[e, e + 1)``
  (``Bucket.putIndexBit``), whose array containers grow by ``iadd``'s rule
  (:func:`~trackerlab.sizing.jvm_roaring.array_capacity_range_adds`);
- ``sharedBucketPriorityQueue``: a default ``TripleLongPriorityQueue``, empty until a bucket
  seals and its first segment is loaded.

``getBufferMemoryUsage()`` is the two queues' ``bytesCapacity()``. A bucket seals when a
message of a later ledger arrives while the mutable bucket holds ``minIndexCountPerBucket``
(50,000) indexes; what it then keeps (immutable buckets, their bitmaps and segments) is the
time-stepped model's (:mod:`trackerlab.models.delayed.pip195_tracker`), not this module's. Master's
tracker holds ``LongBitmap`` leaves and heap queues (#26117, #26183): not this module either.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trackerlab.models.primitives.triple_heap import TripleLongPriorityQueue
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

#: ``ServiceConfiguration.delayedDeliveryMinIndexCountPerBucket`` (50,000 in every release
#: measured, data/pulsar_measured.yaml).
MIN_INDEX_COUNT_PER_BUCKET = 50_000


@dataclass(frozen=True)
class MutableIndex:
    """What the tracker holds in memory before a bucket seals, in bytes."""

    entries: int
    queues_heap_bytes: int  # the two queue objects, their segment lists and ByteBuf objects
    bitmaps_heap_bytes: int  # delayedIndexBitMap: the HashMap, boxed keys, RoaringBitmaps
    direct_bytes: int  # the two queues' ByteBuf capacities
    buffer_memory_usage_bytes: int  # getBufferMemoryUsage(): the same two capacities

    @property
    def heap_bytes(self) -> int:
        """Heap bytes of the queues and the bitmaps (no Java method). O(1)."""
        return self.queues_heap_bytes + self.bitmaps_heap_bytes


def first_seal(ledger: np.ndarray, min_index_count: int = MIN_INDEX_COUNT_PER_BUCKET) -> int | None:
    """Index of the message that seals the first bucket, or None: the first one of a later
    ledger once ``min_index_count`` indexes are held. Entries arrive in ledger order. O(n)."""
    ledger = np.asarray(ledger, dtype=np.int64)
    starts = np.flatnonzero(np.r_[False, ledger[1:] > ledger[:-1]])
    sealing = starts[starts >= min_index_count]
    return int(sealing[0]) if len(sealing) else None


def mutable_index(
    ledger: np.ndarray,
    entry: np.ndarray,
    deliver_at: np.ndarray,
    layout: JvmLayout = COMPRESSED,
) -> MutableIndex:
    """The mutable bucket and the shared queue after ``addMessage`` of each distinct
    ``(ledgerId, entryId)`` (none due, no bucket sealed: :func:`first_seal` must be None).
    O(n log n) numpy."""
    ledger = np.asarray(ledger, dtype=np.int64)
    entry = np.asarray(entry, dtype=np.int64)
    if first_seal(ledger) is not None:
        raise ValueError("a bucket seals: only the state before the first seal is sized here")
    queue = TripleLongPriorityQueue.build(deliver_at, ledger, entry)
    shared = TripleLongPriorityQueue()
    pairs = np.unique(np.column_stack([ledger, entry]), axis=0) if len(ledger) else ledger
    bitmaps = 0
    ledgers = np.unique(pairs[:, 0]) if len(pairs) else np.empty(0, dtype=np.int64)
    for led in ledgers.tolist():
        ids = pairs[pairs[:, 0] == led, 1].astype(np.uint32)
        bitmaps += _range_added_bitmap_bytes(ids, layout)
    boxed = jc.boxed_long(layout) * len(ledgers)
    bitmaps += jc.hash_map(len(ledgers), boxed, layout=layout)
    return MutableIndex(
        entries=len(pairs),
        queues_heap_bytes=queue.jvm_bytes(layout) + shared.jvm_bytes(layout),
        bitmaps_heap_bytes=bitmaps,
        direct_bytes=queue.jvm_direct_bytes() + shared.jvm_direct_bytes(),
        buffer_memory_usage_bytes=queue.bytes_capacity() + shared.bytes_capacity(),
    )


def _range_added_bitmap_bytes(ids: np.ndarray, layout: JvmLayout) -> int:
    """A ``RoaringBitmap`` of these 32-bit ids, each added as ``add(id, id + 1)``."""
    _, cards = np.unique(ids >> np.uint32(16), return_counts=True)
    containers = [
        jr.Container("array", c, 0, jr.array_capacity_range_adds(c))
        if c <= jr.ARRAY_MAX_CARDINALITY
        else jr.Container("bitmap", c)
        for c in cards.tolist()
    ]
    return jr.roaring_bitmap_from_containers(containers, layout=layout)
