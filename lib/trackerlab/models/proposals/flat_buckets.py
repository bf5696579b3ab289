"""Proposal ``time-buckets-flat``: one 32-bit ``RoaringBitmap`` per time bucket, no inner map.

The time-bucketed ``InMemoryDelayedDeliveryTracker`` (#23611) keeps, per bucket, an inner map
``ledgerId -> Roaring64Bitmap``: each (bucket, ledger) pair costs an inner-map entry and a
whole ``Roaring64Bitmap`` (about 200 B with one value), which random delays pay for nearly every
entry. This design drops the inner map and packs the ledger into the value::

    Long2ObjectSortedMap<RoaringBitmap> delayed = new Long2ObjectAVLTreeMap<>();
    delayed.computeIfAbsent(trimLowerBit(deliverAt, bits), k -> new RoaringBitmap())
           .add(slot(ledgerId) << 16 | (int) entryId);        // + the slot table

``slot`` comes from the tracker's slot table (:mod:`~trackerlab.models.proposals.ledger_slots`),
so a bucket's 2^16 chunks are its ledgers: one array container (24 B + ``char[]``) and a
``char`` key per (bucket, ledger) instead of ~200 B. A first version packed ``ledgerId << 24 |
entryId`` into a ``Roaring64Bitmap``; its ART's shape depends on the ledger ids' bytes, which a
sweep cannot size from counts, and it cost a 32-B leaf and more per ledger. A 32-bit bitmap's
size depends on its containers' cardinalities and their number only
(``RoaringArray.extendArray``, ``ArrayContainer.increaseCapacity``), which the reducer counts.

Order: a bucket's values iterated from the slot table's first slot (rotated at 2^16) are in
(ledger, entry) order, so ``getScheduledMessages(n)`` takes the ``n`` smallest positions of the
first due bucket, as the sorted-inner-map tracker (variant c) does. Bounds: entry ids below
2^16, fewer than 2^16 live ledgers. Timing rules: :mod:`~trackerlab.models.proposals.base`.
"""

from __future__ import annotations

import array
from collections.abc import Iterator
from typing import TypeVar

import numpy as np
from pyroaring import BitMap
from sortedcontainers import SortedDict

import trackerlab.models.proposals.counts as counts
from trackerlab.core.errors import UsageError
from trackerlab.models.design import DELAYED, Design, PointCounts
from trackerlab.models.proposals.base import ProposalTracker, tree_depth
from trackerlab.models.proposals.ledger_slots import MAX_ENTRY_ID, MAX_WINDOW
from trackerlab.models.time_buckets.lab_stats import ENTRY_BITS
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.request import SizeRequest, SizeResult

#: the tracker type :func:`build` is given and returns
T = TypeVar("T", bound=ProposalTracker)

ENTRY_MASK = (1 << ENTRY_BITS) - 1


def plain_bitmap(values: np.ndarray) -> BitMap:
    """A ``BitMap`` of these 32-bit values with the containers Java's ``add`` picks (arrays and
    bitsets, no runs: ``optimize=False``), through the ``array('I')`` bulk constructor."""
    arr = array.array("I")
    arr.frombytes(np.ascontiguousarray(values, dtype=np.uint32).tobytes())
    return BitMap(arr, optimize=False)


#: fastutil AVL entry bytes an in-order walk streams per bucket
_AVL_ENTRY = 40


class FlatBucketTracker(ProposalTracker):
    """Bucket key -> ``BitMap`` of ``slot << 16 | entry`` (Python model of the Java above)."""

    def __init__(self, tick_ms: int = 1000, strict: bool = False) -> None:
        super().__init__(tick_ms, strict)
        self.buckets: SortedDict = SortedDict()

    # ------------------------------------------------------------------ hooks

    def _bitmap(self, key: int) -> BitMap:
        bitmap = self.buckets.get(key)
        if self.cost is not None:
            self.cost.search(tree_depth(len(self.buckets)))
        if bitmap is None:
            bitmap = self.buckets[key] = BitMap()
            if self.cost is not None:
                self.cost.allocate(4, 40 + jr.roaring_bitmap_from_containers([]))
        return bitmap

    def _add(self, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        """``computeIfAbsent(key).add(value)``: O(log buckets + log ledgers of the bucket)."""
        bitmap = self._bitmap(self.bucket_of(deliver_at))
        value = self.slots.slot(ledger) << ENTRY_BITS | entry
        if self.cost is not None:
            self.cost.visit(2)  # the RoaringArray keys (binary search) and the container
        if value in bitmap:
            return False
        bitmap.add(value)
        self.slots.hold(ledger)
        return True

    def _add_arrays(
        self, ledger: np.ndarray, entry: np.ndarray, deliver_at: np.ndarray, now: np.ndarray
    ) -> None:
        """One bulk union per bucket. O(n log n)."""
        keys = self.bucket_of(deliver_at)
        values = (self.slots.slots_of(ledger) << ENTRY_BITS) | entry
        order = np.lexsort((values, keys))
        keys, values, ledger = keys[order], values[order], ledger[order]
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        added = []
        for lo, hi in zip(starts.tolist(), np.r_[starts[1:], len(keys)].tolist(), strict=True):
            bitmap = self.buckets.get(int(keys[lo]))
            if bitmap is None:
                self.buckets[int(keys[lo])] = bitmap = plain_bitmap(values[lo:hi])
                new = bitmap
            else:
                new = plain_bitmap(values[lo:hi]) - bitmap
                bitmap |= new
            if new:
                added.append(np.frombuffer(new.to_array(), dtype=np.uint32))
        if added:
            slots = np.concatenate(added).astype(np.int64) >> ENTRY_BITS
            self.count += len(slots)
            self.slots.hold_many(self.slots.ledger_array(slots))

    def _bucket_positions(self, key: int) -> list[tuple[int, int, int]]:
        """A bucket's positions in (ledger, entry) order: its values from the first slot."""
        slots = self.slots
        values = sorted(self.buckets[key], key=lambda v: (slots.order(v >> ENTRY_BITS), v))
        return [(key, slots.ledger(v >> ENTRY_BITS), v & ENTRY_MASK) for v in values]

    def _due(self, cutoff: int) -> Iterator[tuple[int, int, int]]:
        for key in list(self.buckets.irange(maximum=cutoff)):
            if self.cost is not None:
                self.cost.walk(1, _AVL_ENTRY)
                self.cost.visit(1)  # the bucket's RoaringBitmap
            yield from self._bucket_positions(key)

    def _remove(self, taken: list[tuple[int, int, int]]) -> None:
        for key, ledger, entry in taken:
            bitmap = self.buckets[key]
            bitmap.discard(self.slots.slot(ledger) << ENTRY_BITS | entry)
            if self.cost is not None:
                self.cost.stream(2)  # the value read from its container
            if not bitmap:
                del self.buckets[key]

    def _clear(self) -> None:
        self.buckets.clear()

    # ------------------------------------------------------------------ sizes

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """The AVL map, one ``RoaringBitmap`` per bucket (as ``add`` builds it: container and
        key-array capacities depend on cardinalities and counts only) and the slot table.
        O(values)."""
        return (
            jc.fastutil_avl_tree_map(len(self.buckets), layout=layout)
            + counts.roaring_bitmaps_bytes(list(self.buckets.values()), layout=layout)
            + self.slots.jvm_bytes(layout)
        )


def build(tracker: T, request: SizeRequest) -> T:
    """Feed the request's messages to ``tracker`` (each dispatched as published); a workload
    whose positions cannot be packed is a one-line UsageError."""
    w = request.workload
    if w.entries_per_ledger > MAX_ENTRY_ID + 1:
        raise UsageError(
            f"--entries-per-ledger: the proposals pack entry ids in 16 bits, so it must be in "
            f"1..65536, got {w.entries_per_ledger}"
        )
    ledgers = -(-w.messages // (w.batch_size * w.entries_per_ledger))
    if ledgers > MAX_WINDOW:
        raise UsageError(
            f"--messages: the proposals hold at most 65536 live ledgers; {w.messages:,} messages "
            f"fill {ledgers:,} ledgers of {w.entries_per_ledger} entries"
        )
    for chunk in request.workload.chunks():
        tracker.add_chunk(chunk)
    return tracker


def size_flat_buckets(request: SizeRequest) -> SizeResult:
    """The index built from the workload's messages. O(n log n)."""
    tracker = build(FlatBucketTracker(request.tick_ms), request)
    return counts.built_result("time-buckets-flat", tracker, request, buckets=len(tracker.buckets))


def flat_from_counts(c: PointCounts, shape: str | None, layout: JvmLayout) -> SizeResult:
    """From a reducer's aggregates: the AVL map, one ``RoaringBitmap`` per bucket with a key
    array sized by its ledger count (the histogram), the containers as ``add`` builds them (the
    index's own container bytes), the slot table. O(distinct ledger counts)."""
    return counts.bitmap_buckets_result("time-buckets-flat", c, "plain", layout)


DESIGN = Design(
    tracker=DELAYED,
    summary="proposal: one 32-bit RoaringBitmap per time bucket of (ledger slot << 16 | entryId)",
    java="Long2ObjectAVLTreeMap<RoaringBitmap> + slot table (long[], int[])",
    source="lib/trackerlab/models/proposals/flat_buckets.py",
    prs=(),
    releases="proposal",
    memory="heap",
    options=("tick_ms", "layout"),
    build=size_flat_buckets,
    from_counts=flat_from_counts,
    columns=("python", "jvm"),
    proposal=True,
)
