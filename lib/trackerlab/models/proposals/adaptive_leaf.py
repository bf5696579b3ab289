"""Proposal ``time-buckets-adaptive``: per time bucket, a packed sorted ``int[]`` for each
ledger's first entries and a ``RoaringBitmap`` for a ledger's entries beyond them.

A bucket under random delays holds a few entry ids of many ledgers; a container per ledger
(``time-buckets-flat``) then costs ~46 B fixed for a handful of 2-B values. This leaf stores a
ledger's first :data:`~trackerlab.models.time_buckets.lab_stats.SPILL_AT` (= 23) entries of a
bucket as 4-B packed values and *spills* the rest into an array or bitset container::

    Long2ObjectSortedMap<Object> delayed = new Long2ObjectAVLTreeMap<>();
    // value: int[] packed, or Object[] {int[] packed, RoaringBitmap spill} once a ledger spilled
    // packed: [count, v0, v1, ...] sorted (rotated at the slot table's first slot), v = slot << 16 | entryId
    // addMessage(v): if v > last packed value and the ledger has < 23 packed values: append,
    //                else spill.add(v)

The threshold is a ski-rental bound derived from the layouts, not tuned: a packed value costs
4 B, a container value 2 B, a container 46 B fixed, so paying the 2-B premium 23 times before
buying the container is never worse than twice the better choice in hindsight
(:func:`~trackerlab.models.time_buckets.lab_stats.spill_threshold`). Why spill rather than move
a ledger's values into the bitmap: its first 23 values stay put, so the structure after any
sequence of adds depends on each (bucket, ledger)'s count alone, and the ``int[]`` only ever
appends. Growth of the ``int[]``: length ``8``, then ``+ max(length >> 3, 4)`` (at most 12.5%
slack; each append copies 8 values amortized). Out-of-order adds (below the last packed value)
go to the bitmap: O(log) instead of a shift.

What it does not fix: every bucket still costs an AVL entry (40 B) and an ``int[]`` (16 B + 4 B
count), which sparse buckets (a few entries per bucket: random delays at fine ticks, long
horizons) pay per entry. ``time-buckets-hier`` removes that.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from pyroaring import BitMap
from sortedcontainers import SortedDict

import trackerlab.models.proposals.counts as counts
from trackerlab.models.design import DELAYED, Design, PointCounts
from trackerlab.models.proposals.base import GrowthRule, ProposalTracker, tree_depth
from trackerlab.models.proposals.flat_buckets import ENTRY_MASK, build, plain_bitmap
from trackerlab.models.time_buckets.lab_stats import ENTRY_BITS, SPILL_AT
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.request import SizeRequest, SizeResult

PACKED_GROWTH = GrowthRule(8, 4)


def packed_length(values: int) -> int:
    """``int[]`` length of a packed array holding ``values`` (plus its count slot). O(log)."""
    return PACKED_GROWTH.length(values + 1)


def packed_bytes(values: int, layout: JvmLayout = COMPRESSED) -> int:
    return layout.array(packed_length(values), "I")


@dataclass
class Leaf:
    """One bucket: packed values (rotated order) and the spill bitmap (None until needed)."""

    packed: list[int] = field(default_factory=list)
    order: list[int] = field(default_factory=list)  # sort keys of ``packed``
    spill: BitMap | None = None


class AdaptiveBucketTracker(ProposalTracker):
    """Bucket key -> :class:`Leaf` (Python model of the Java above)."""

    def __init__(self, tick_ms: int = 1000, strict: bool = False) -> None:
        super().__init__(tick_ms, strict)
        self.buckets: SortedDict = SortedDict()

    def _sort_key(self, value: int) -> int:
        return self.slots.order(value >> ENTRY_BITS) << ENTRY_BITS | (value & ENTRY_MASK)

    def _add(self, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        """O(log buckets + log packed) (binary searches), plus the amortized ``int[]`` copy."""
        key = self.bucket_of(deliver_at)
        cost = self.cost
        if cost is not None:
            cost.search(tree_depth(len(self.buckets)))
        leaf = self.buckets.get(key)
        if leaf is None:
            leaf = self.buckets[key] = Leaf()
            if cost is not None:
                cost.allocate(2, 40 + packed_bytes(0))
        slot = self.slots.slot(ledger)
        value = slot << ENTRY_BITS | entry
        order = self._sort_key(value)
        i = bisect_left(leaf.order, order)
        if cost is not None:
            cost.visit(1)  # the int[] (its tail: in-order adds append)
        if i < len(leaf.order) and leaf.order[i] == order:
            return False
        if leaf.spill is not None and value in leaf.spill:
            return False
        low = bisect_left(leaf.order, self.slots.order(slot) << ENTRY_BITS)
        if i == len(leaf.order) and len(leaf.order) - low < SPILL_AT:
            before = packed_length(len(leaf.packed))
            leaf.packed.append(value)
            leaf.order.append(order)
            after = packed_length(len(leaf.packed))
            if after != before and cost is not None:
                cost.stream(4 * before)
                cost.allocate(1, packed_bytes(len(leaf.packed)))
        else:
            if leaf.spill is None:
                leaf.spill = BitMap()
                if cost is not None:
                    cost.allocate(5, 24 + counts.roaring_fixed_bytes(0))
            if cost is not None:
                cost.visit(2)
            leaf.spill.add(value)
        self.slots.hold(ledger)
        return True

    def _bucket_positions(self, key: int) -> list[tuple[int, int, int]]:
        leaf = self.buckets[key]
        values = list(leaf.packed) + (list(leaf.spill) if leaf.spill is not None else [])
        values.sort(key=self._sort_key)
        slots = self.slots
        return [(key, slots.ledger(v >> ENTRY_BITS), v & ENTRY_MASK) for v in values]

    def _due(self, cutoff: int) -> Iterator[tuple[int, int, int]]:
        for key in list(self.buckets.irange(maximum=cutoff)):
            if self.cost is not None:
                self.cost.walk(1, 40)
                self.cost.visit(1)  # the bucket's int[] (and its spill, visited with it)
            yield from self._bucket_positions(key)

    def _remove(self, taken: list[tuple[int, int, int]]) -> None:
        for key, ledger, entry in taken:
            leaf = self.buckets[key]
            value = self.slots.slot(ledger) << ENTRY_BITS | entry
            i = bisect_left(leaf.order, self._sort_key(value))
            if i < len(leaf.packed) and leaf.packed[i] == value:
                del leaf.packed[i], leaf.order[i]  # Java: the head index advances
                if self.cost is not None:
                    self.cost.stream(4)
            else:
                leaf.spill.discard(value)
                if self.cost is not None:
                    self.cost.stream(2)
            if not leaf.packed and not leaf.spill:
                del self.buckets[key]

    def _clear(self) -> None:
        self.buckets.clear()

    def _add_arrays(
        self, ledger: np.ndarray, entry: np.ndarray, deliver_at: np.ndarray, now: np.ndarray
    ) -> None:
        """Bulk adds of a chunk in (ledger, entry) order (a workload's stream; else one add per
        message): per bucket, values new to it, each ledger's ranks continuing its packed count
        there, the first 23 packed and the rest spilled. Same result as per-message adds."""
        if len(ledger) < 2 or np.any(
            (np.diff(ledger) < 0) | ((np.diff(ledger) == 0) & (np.diff(entry) < 0))
        ):
            super()._add_arrays(ledger, entry, deliver_at, now)
            return
        keys = self.bucket_of(deliver_at)
        values = (self.slots.slots_of(ledger) << ENTRY_BITS) | entry
        order = np.lexsort((np.arange(len(keys)), keys))  # by bucket, arrival kept
        keys, values, ledger = keys[order], values[order], ledger[order]
        bstarts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        bends = np.r_[bstarts[1:], len(keys)]
        added = []
        for lo, hi in zip(bstarts.tolist(), bends.tolist(), strict=True):
            added.append(self._merge_bucket(int(keys[lo]), values[lo:hi], ledger[lo:hi]))
        new_ledgers = np.concatenate(added)
        self.count += len(new_ledgers)
        self.slots.hold_many(new_ledgers)

    def _merge_bucket(self, key: int, values: np.ndarray, ledger: np.ndarray) -> np.ndarray:
        """In-order values of one bucket (with repeats); returns the ledgers of those added."""
        keep = np.r_[True, values[1:] != values[:-1]]
        values, ledger = values[keep], ledger[keep]
        leaf = self.buckets.get(key)
        if leaf is None:
            leaf = self.buckets[key] = Leaf()
        elif leaf.packed or leaf.spill is not None:
            old = set(leaf.packed[-SPILL_AT:])
            if leaf.spill is not None:
                old |= {v for v in values.tolist() if v in leaf.spill}
            fresh = np.array([v not in old for v in values.tolist()], dtype=bool)
            values, ledger = values[fresh], ledger[fresh]
        if len(values) == 0:
            return ledger
        group = np.r_[True, ledger[1:] != ledger[:-1]]
        starts = np.flatnonzero(group)
        rank = np.arange(len(values)) - np.repeat(starts, np.diff(np.r_[starts, len(values)]))
        first_slot = int(values[0]) >> ENTRY_BITS
        lowest = bisect_left(leaf.order, self.slots.order(first_slot) << ENTRY_BITS)
        rank[: starts[1] if len(starts) > 1 else len(values)] += len(leaf.order) - lowest
        packed = rank < SPILL_AT
        new_packed = values[packed].tolist()
        leaf.packed += new_packed
        leaf.order += [self._sort_key(v) for v in new_packed]
        if not packed.all():
            spill = plain_bitmap(values[~packed])
            leaf.spill = spill if leaf.spill is None else leaf.spill | spill
        return ledger

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """AVL map + per bucket the packed ``int[]`` (+ the ``Object[2]`` holder and the spill
        bitmap) + the slot table. O(values)."""
        spills = [leaf.spill for leaf in self.buckets.values() if leaf.spill is not None]
        holder = layout.array(2, "L")
        return (
            jc.fastutil_avl_tree_map(len(self.buckets), layout=layout)
            + sum(packed_bytes(len(leaf.packed), layout) for leaf in self.buckets.values())
            + len(spills) * holder
            + counts.roaring_bitmaps_bytes(spills, layout=layout)
            + self.slots.jvm_bytes(layout)
        )

    @property
    def spilled_ledgers(self) -> int:
        """Ledgers with spilled positions, summed over the buckets (a statistic, no Java
        method). O(spilled positions)."""
        return sum(
            len({v >> ENTRY_BITS for v in leaf.spill})
            for leaf in self.buckets.values()
            if leaf.spill is not None
        )


def size_adaptive_leaf(request: SizeRequest) -> SizeResult:
    """Built from the workload's messages. O(n log n)."""
    tracker = build(AdaptiveBucketTracker(request.tick_ms), request)
    spilled = sum(leaf.spill is not None for leaf in tracker.buckets.values())
    return counts.built_result(
        "time-buckets-adaptive",
        tracker,
        request,
        buckets=len(tracker.buckets),
        spilled_buckets=spilled,
        spill_at=SPILL_AT,
    )


def adaptive_from_counts(c: PointCounts, shape: str | None, layout: JvmLayout) -> SizeResult:
    """From a reducer's aggregates: per bucket the packed ``int[]`` of its packed count and, for
    buckets with spilled ledgers, the holder and a ``RoaringBitmap`` keyed by their number (the
    lab histogram); the spilled containers (a total); the slot table. O(distinct counts)."""
    totals, agg = c.totals, c.aggregates
    lab = counts.lab_histograms(c, "time-buckets-adaptive")
    window = counts.checked_window(totals)
    if window > counts.ADAPTIVE_MAX_WINDOW:
        raise ValueError(
            f"time-buckets-adaptive's count-only statistics hold at most "
            f"{counts.ADAPTIVE_MAX_WINDOW} ledgers per bucket, got a window of {window}"
        )
    holder = layout.array(2, "L")
    jvm = jc.fastutil_avl_tree_map(agg.buckets, layout=layout)
    jvm += counts.per_bucket_sum(lab.packed, lab.bucket_counts, lambda n: packed_bytes(n, layout))
    jvm += counts.per_bucket_sum(
        lab.spilled,
        lab.bucket_counts,
        lambda d: holder + counts.roaring_fixed_bytes(d, layout) if d else 0,
    )
    jvm += int(totals["lab_spill_jvm"]) + counts.slot_table_bytes(window, layout)
    spilled_buckets = int(lab.bucket_counts[lab.spilled > 0].sum())
    return SizeResult(
        structure="time-buckets-adaptive",
        entries=int(totals["entries"]),
        jvm_bytes=int(jvm),
        jvm_direct_bytes=0,
        details={
            "buckets": agg.buckets,
            "bitmaps": spilled_buckets,
            "spilled_ledgers": int((lab.spilled * lab.bucket_counts).sum()),
            "ledger_window": window,
            "spill_at": SPILL_AT,
            "theory_published_per_entry": float("nan"),
        },
    )


DESIGN = Design(
    tracker=DELAYED,
    summary="proposal: per bucket a packed int[] of each ledger's first 23 entries, the rest "
    "spilled to a RoaringBitmap",
    java="Long2ObjectAVLTreeMap<int[] | Object[]{int[], RoaringBitmap}> + slot table",
    source="lib/trackerlab/models/proposals/adaptive_leaf.py",
    prs=(),
    releases="proposal",
    memory="heap",
    options=("tick_ms", "layout"),
    build=size_adaptive_leaf,
    from_counts=adaptive_from_counts,
    columns=("python", "jvm"),
    proposal=True,
)
