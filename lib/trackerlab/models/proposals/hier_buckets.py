"""Proposal ``time-buckets-hier``: two levels of coarse buckets whose gap-coded streams keep
each message's tick offset, split when they come due (hierarchical timing wheels).

Every time-bucket design so far pays per bucket (an AVL entry, a bitmap or array header) and
per (bucket, ledger) (a container): random delays, sparse subsets and long horizons leave a
few entries in each, and those fixed costs dominate (the heap's 24 B/entry beats them). Here a
bucket covers 256 or 65,536 ticks, so it holds many entries, and each entry keeps its tick
offset inside the bucket, so the precision delivered stays the tick's::

    Long2ObjectSortedMap<byte[]> delayed = new Long2ObjectAVLTreeMap<>();
    // level 0 (near): deliverAt - now < 2^(bits + 8): key trimLowerBit(deliverAt, bits + 8),
    //                 8-bit offset (deliverAt >> bits) & 0xFF
    // level 1 (far):  key trimLowerBit(deliverAt, bits + 16), 16-bit offset
    // map key = bucket start | level; value: a GapStream byte[] (gap_stream.py), or
    // Object[] {byte[], long[] late} when positions arrived out of order
    // + the slot table (ledger_slots.py)

A stream stores positions ``slot << 16 | entryId`` in ascending order as LEB128 tokens of
(gap to the previous entry id, offset), one token per run of consecutive ids at one offset:
a fixed delay's consecutive ids cost a few bytes per (tick, ledger); a random id costs about
``log2(gap) + w + 2`` bits, within a byte or two of the entropy of where it is
(:mod:`~trackerlab.models.proposals.gap_stream`).

Due scan (``getScheduledMessages``): a far bucket whose start has come (``start <= cutoff``) is
cascaded into near streams, a near bucket whose start has come is expanded into per-tick sorted
lists, and positions go out tick by tick, smallest first: each entry is moved at most twice, so
the work per entry is O(1) amortized (plus O(log buckets) per bucket). Nothing is split before
it is due, so a tracker whose dispatch is paused (the sizing snapshot every design uses) holds
streams only. Adds arrive in position order (the dispatcher reads in order): O(log buckets) and
an append; a position below a stream's last one goes to the bucket's ``late`` array, merged
when the bucket is split. Bounds: those of the slot table.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from sortedcontainers import SortedDict

import trackerlab.models.proposals.counts as counts
from trackerlab.models.design import DELAYED, Design, PointCounts
from trackerlab.models.proposals.base import ProposalTracker, tree_depth
from trackerlab.models.proposals.flat_buckets import build
from trackerlab.models.proposals.gap_stream import HEADER_BYTES, GapStream, stream_length
from trackerlab.models.time_buckets import lab_stats as lab
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.request import SizeRequest, SizeResult

NEAR, FAR = 0, 1
_SHIFTS = {NEAR: lab.NEAR_SHIFT, FAR: lab.FAR_SHIFT}


@dataclass
class StreamLeaf:
    """A bucket's stream and its out-of-order positions ``(order, slot, entry, offset)``."""

    stream: GapStream
    late: list[tuple[int, int, int, int]] = field(default_factory=list)

    @property
    def count(self) -> int:
        """Positions held: the stream's and the late ones. O(1)."""
        return self.stream.count + len(self.late)


class HierBucketTracker(ProposalTracker):
    """Map key (start | level) -> :class:`StreamLeaf`; due ticks expanded into sorted lists."""

    def __init__(self, tick_ms: int = 1000, strict: bool = False) -> None:
        super().__init__(tick_ms, strict)
        self.streams: SortedDict = SortedDict()
        self.expanded: SortedDict = SortedDict()  # tick key -> sorted [(order, slot, entry)]

    # ------------------------------------------------------------------ placement

    def level_of(self, deliver_at: int, now_ms: int) -> int:
        """``NEAR`` when due within ``2^(bits + NEAR_SHIFT)`` ms of ``now``, else ``FAR``. O(1)."""
        return NEAR if deliver_at - now_ms < 1 << (self.bits + lab.NEAR_SHIFT) else FAR

    def place(self, deliver_at: int, level: int) -> tuple[int, int]:
        """Map key and tick offset of a message at ``level``. O(1)."""
        shift = self.bits + _SHIFTS[level]
        start = deliver_at >> shift << shift
        return start | level, (deliver_at >> self.bits) & ((1 << (shift - self.bits)) - 1)

    def _leaf(self, key: int) -> StreamLeaf:
        leaf = self.streams.get(key)
        if self.cost is not None:
            self.cost.search(tree_depth(len(self.streams)))
        if leaf is None:
            level = key & 1
            leaf = self.streams[key] = StreamLeaf(GapStream(_SHIFTS[level]))
            if self.cost is not None:
                self.cost.allocate(2, 40 + COMPRESSED.array(leaf.stream.length, "B"))
        return leaf

    def _add(self, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        """O(log buckets) + an append (the last token, one header): in-order adds."""
        key, offset = self.place(deliver_at, self.level_of(deliver_at, now_ms))
        leaf = self._leaf(key)
        slot = self.slots.slot(ledger)
        stream = leaf.stream
        order = self.slots.order(slot)
        if self.cost is not None:
            self.cost.visit(1)  # the stream's header and tail (one line)
        if stream.count == 0 or (order, entry) >= (
            self.slots.order(stream.last_slot),
            stream.last_entry,
        ):
            before, length = len(stream.tokens), stream.length
            if not stream.append(slot, entry, offset):
                return False
            if self.cost is not None:
                self.cost.stream(len(stream.tokens) - before)
                if stream.length != length:
                    self.cost.stream(length)
                    self.cost.allocate(1, COMPRESSED.array(stream.length, "B"))
        else:
            item = (order, slot, entry, offset)
            if item in leaf.late:
                return False
            insort(leaf.late, item)
            if self.cost is not None:
                self.cost.stream(8 * len(leaf.late))  # the exact-size long[] copy
                self.cost.allocate(1, COMPRESSED.array(len(leaf.late), "J"))
        self.slots.hold(ledger)
        return True

    # ------------------------------------------------------------------ due scan

    def _elements(self, key: int, leaf: StreamLeaf) -> list[tuple[int, int, int, int]]:
        """A leaf's elements ``(tick key, order, slot, entry)``; each decoded once."""
        start = key & ~1
        out = [
            (start + (off << self.bits), self.slots.order(s), s, e)
            for s, e, off in leaf.stream.elements()
        ]
        out += [(start + (off << self.bits), o, s, e) for o, s, e, off in leaf.late]
        if self.cost is not None:
            self.cost.stream(leaf.stream.used + 8 * len(leaf.late))
        return out

    def _split_due(self, cutoff: int) -> None:
        """Cascade far buckets that have come into near streams, then expand near buckets that
        have come into per-tick lists. Each element moves at most twice."""
        for key in list(self.streams.irange(maximum=cutoff | 1)):
            if key & 1 != FAR or (key & ~1) > cutoff:
                continue
            leaf = self.streams.pop(key)
            for tick, _, slot, entry in sorted(self._elements(key, leaf), key=lambda x: x[1:]):
                near, offset = self.place(tick, NEAR)
                self._readd(near, slot, entry, offset)
        for key in list(self.streams.irange(maximum=cutoff | 1)):
            if key & 1 != NEAR or (key & ~1) > cutoff:
                continue
            leaf = self.streams.pop(key)
            for tick, order, slot, entry in self._elements(key, leaf):
                bucket = self.expanded.setdefault(tick, [])
                if (order, slot, entry) not in bucket:
                    insort(bucket, (order, slot, entry))
                else:
                    self.count -= 1  # the same position reached one tick twice
                    self.slots.release(self.slots.ledger(slot))

    def _readd(self, key: int, slot: int, entry: int, offset: int) -> None:
        leaf = self.streams.get(key)
        if leaf is None:
            leaf = self.streams[key] = StreamLeaf(GapStream(lab.NEAR_SHIFT))
        stream, order = leaf.stream, self.slots.order(slot)
        if stream.count == 0 or (order, entry) >= (
            self.slots.order(stream.last_slot),
            stream.last_entry,
        ):
            if stream.append(slot, entry, offset):
                return
        elif (order, slot, entry, offset) not in leaf.late:
            insort(leaf.late, (order, slot, entry, offset))
            return
        self.count -= 1  # already there
        self.slots.release(self.slots.ledger(slot))

    def _due(self, cutoff: int) -> Iterator[tuple[int, int, int]]:
        self._split_due(cutoff)
        for tick in list(self.expanded.irange(maximum=cutoff)):
            for _, slot, entry in list(self.expanded[tick]):
                if self.cost is not None:
                    self.cost.stream(8)
                yield tick, self.slots.ledger(slot), entry

    def _remove(self, taken: list[tuple[int, int, int]]) -> None:
        for tick, _ledger, _entry in taken:
            bucket = self.expanded[tick]
            del bucket[0]  # positions leave in the order _due yielded them
            if not bucket:
                del self.expanded[tick]

    def _clear(self) -> None:
        self.streams.clear()
        self.expanded.clear()

    def next_key(self) -> int:
        """The earliest expanded tick or stream start (a stream splits when its start is due).
        O(1): the first key of each map."""
        keys = [int(k) & ~1 for k in self.streams.keys()[:1]]
        keys += [int(k) for k in self.expanded.keys()[:1]]
        return min(keys)

    # ------------------------------------------------------------------ bulk

    def _add_arrays(
        self, ledger: np.ndarray, entry: np.ndarray, deliver_at: np.ndarray, now: np.ndarray
    ) -> None:
        """Adds of a chunk grouped per bucket in stream order: the same streams as one add per
        message (each bucket's elements arrive in the same relative order)."""
        level = lab.stream_levels(deliver_at - now, self.bits)
        keys, offsets = lab.stream_keys(deliver_at, level, self.bits)
        slots = self.slots.slots_of(ledger)
        order = lab.stream_order(keys, self.bits)
        if order is not None:
            keys, ledger, entry = keys[order], ledger[order], entry[order]
            offsets, slots = offsets[order], slots[order]
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        bounds = zip(starts.tolist(), np.r_[starts[1:], len(keys)].tolist(), strict=True)
        added = []
        for lo, hi in bounds:
            key = int(keys[lo])
            leaf = self.streams.get(key)
            if leaf is None:
                leaf = self.streams[key] = StreamLeaf(GapStream(_SHIFTS[key & 1]))
            if leaf.stream.count and (
                self.slots.order(int(slots[lo])),
                int(entry[lo]),
            ) < (self.slots.order(leaf.stream.last_slot), leaf.stream.last_entry):
                for i in range(lo, hi):  # out of order for this stream: the per-message path
                    if self._add_to(leaf, int(slots[i]), int(entry[i]), int(offsets[i])):
                        added.append(int(ledger[i]))
                continue
            append = leaf.stream.append
            for s, e, o, led in zip(
                slots[lo:hi].tolist(),
                entry[lo:hi].tolist(),
                offsets[lo:hi].tolist(),
                ledger[lo:hi].tolist(),
                strict=True,
            ):
                if append(s, e, o):
                    added.append(led)
        self.count += len(added)
        self.slots.hold_many(np.asarray(added, dtype=np.int64))

    def _add_to(self, leaf: StreamLeaf, slot: int, entry: int, offset: int) -> bool:
        stream, order = leaf.stream, self.slots.order(slot)
        if stream.count == 0 or (order, entry) >= (
            self.slots.order(stream.last_slot),
            stream.last_entry,
        ):
            return stream.append(slot, entry, offset)
        item = (order, slot, entry, offset)
        if item in leaf.late:
            return False
        insort(leaf.late, item)
        return True

    # ------------------------------------------------------------------ sizes

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """AVL map, one ``byte[]`` per stream (+ ``Object[2]`` and an exact ``long[]`` for late
        positions), the expanded ticks (an AVL map of ``long[]``), the slot table. O(buckets)."""
        total = jc.fastutil_avl_tree_map(len(self.streams), layout=layout)
        for leaf in self.streams.values():
            total += layout.array(leaf.stream.length, "B")
            if leaf.late:
                total += layout.array(2, "L") + layout.array(len(leaf.late), "J")
        if self.expanded:
            total += jc.fastutil_avl_tree_map(len(self.expanded), layout=layout)
            total += sum(layout.array(len(b), "J") for b in self.expanded.values())
        return total + self.slots.jvm_bytes(layout)


def size_hier_buckets(request: SizeRequest) -> SizeResult:
    """Built from the workload's messages. O(n log n)."""
    tracker = build(HierBucketTracker(request.tick_ms), request)
    near = sum(1 for k in tracker.streams if k & 1 == NEAR)
    return counts.built_result(
        "time-buckets-hier",
        tracker,
        request,
        buckets=len(tracker.streams),
        near_buckets=near,
        far_buckets=len(tracker.streams) - near,
        token_bytes=sum(len(leaf.stream.tokens) for leaf in tracker.streams.values()),
    )


def hier_from_counts(c: PointCounts, shape: str | None, layout: JvmLayout) -> SizeResult:
    """From a reducer's aggregates: the AVL map of streams, each stream's ``byte[]`` from its
    token bytes (the lab histogram: header, growth), the slot table. O(distinct lengths)."""
    totals = c.totals
    lab_hist = counts.lab_histograms(c, "time-buckets-hier")
    window = counts.checked_window(totals)
    streams = int(lab_hist.stream_counts.sum())
    jvm = jc.fastutil_avl_tree_map(streams, layout=layout)
    jvm += counts.per_bucket_sum(
        lab_hist.stream_bytes,
        lab_hist.stream_counts,
        lambda b: layout.array(stream_length(HEADER_BYTES + b), "B"),
    )
    jvm += counts.slot_table_bytes(window, layout)
    return SizeResult(
        structure="time-buckets-hier",
        entries=int(totals["lab_stream_elements"]),
        jvm_bytes=int(jvm),
        jvm_direct_bytes=0,
        details={
            "buckets": streams,
            "token_bytes": int(totals["lab_stream_bytes"]),
            "runs": int(totals["lab_stream_runs"]),
            "ledger_window": window,
            "theory_published_per_entry": float("nan"),
        },
    )


DESIGN = Design(
    tracker=DELAYED,
    summary="proposal: 256- and 65,536-tick buckets of gap-coded byte[] streams keeping each "
    "message's tick offset, split when due",
    java="Long2ObjectAVLTreeMap<byte[]> (two levels) + slot table",
    source="lib/trackerlab/models/proposals/hier_buckets.py",
    prs=(),
    releases="proposal",
    memory="heap",
    options=("tick_ms", "layout"),
    build=size_hier_buckets,
    from_counts=hier_from_counts,
    columns=("python", "jvm"),
    proposal=True,
)
