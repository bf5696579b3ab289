"""``PendingAcksMap`` as ``TreeMap<Long, TreeMap<Long, IntIntPair>>`` (#25413, "current" in
seed 002; with #26019's cached size).

Java: apache/pulsar ``pulsar-broker/.../broker/service/PendingAcksMap.java`` after #25413
removed fastutil: ``java.util.TreeMap`` outer and inner maps, boxed ``Long`` keys and the
pulsar-common ``record IntIntPair(int leftInt, int rightInt)`` as value. ``removeAllUpTo``
copies the boundary ledger's head (``new TreeMap<>(ledgerMap.headMap(entryId + 1))``) and
removes each entry from the copy and the original; whole ledgers below the mark-delete
ledger are emptied through their iterator.

Python: a ``SortedDict`` of ``SortedDict[int, tuple]``. JVM size (:meth:`jvm_bytes`):
TreeMap 48 B + 40 B per ``TreeMap.Entry``, ``IntIntPair`` 24 B, and one 24-B ``Long`` per
key — except that ``Long.valueOf`` shares its cached instances for -128..127, which JOL's
``GraphLayout`` counts once: ledger ids and the entry ids 0..127 of every ledger point to the
same objects. That sharing is why seed 002's sizes shrink with more ledgers (4.20, 4.18, 4.17,
4.14 MiB for 50,000 entries over 1, 5, 10, 20 ledgers).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from sortedcontainers import SortedDict

from trackerlab.models.pending_acks.common import (
    LONG_CACHE_HIGH,
    LONG_CACHE_LOW,
    LedgerBucketsModel,
    Pair,
    Removed,
    boxed_long_bytes,
    to_int64,
    tree_depth,
)
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.jvm_collections import boxed_long, int_int_pair, tree_map

#: Objects read per visited ``TreeMap.Entry``: the entry and its boxed ``Long`` key.
_NODE_OBJECTS = 2
#: Bytes an in-order walk streams per entry: ``TreeMap.Entry`` 40 + ``Long`` 24 +
#: ``IntIntPair`` 24, allocated together by each put.
_ENTRY_BYTES = 88


class TreeMapPendingAcks(LedgerBucketsModel):
    """``TreeMap<Long, TreeMap<Long, IntIntPair>>``; lookups O(log L + log n).

    ``jmh_old_store=True`` follows ``PendingAcksMapBenchmark.OldProductionPendingAckStore``
    (the "old" column of seed 002's JMH tables) in ``removeAllUpTo``: it removes through the
    boundary ledger's ``headMap`` iterator without the copy and drops whole ledgers without
    removing their entries one by one. Results are the same; only costs differ.
    """

    name: ClassVar[str] = "pending-acks-treemap"
    java: ClassVar[str] = "TreeMap<Long, TreeMap<Long, IntIntPair>> (#25413, #26019 size)"
    OUTER_BOXED: ClassVar[bool] = True

    def __init__(self, add_handler=None, remove_handler=None, jmh_old_store: bool = False):
        super().__init__(add_handler, remove_handler)
        self.jmh_old_store = jmh_old_store

    # ----------------------------------------------------------------- cost helpers
    def _search(self, bucket: SortedDict, entry_id: int) -> None:
        cost = self._cost
        if cost is not None:
            cost.search(tree_depth(len(bucket)), _NODE_OBJECTS)
            box = boxed_long_bytes(entry_id)
            if box:
                cost.allocate(1, box)

    def _new_pair_cost(self) -> None:
        if self._cost is not None:
            self._cost.allocate(1, int_int_pair())

    # ----------------------------------------------------------------- bucket hooks
    def _new_bucket(self) -> SortedDict:
        if self._cost is not None:  # new TreeMap + outer Entry
            self._cost.allocate(2, tree_map(1))
        return SortedDict()

    def _bucket_get(self, bucket: SortedDict, entry_id: int) -> Pair | None:
        self._search(bucket, entry_id)
        pair = bucket.get(entry_id)
        if pair is not None and self._cost is not None:
            self._cost.visit(1)  # the IntIntPair
        return pair

    def _bucket_put(self, bucket: SortedDict, entry_id: int, pair: Pair) -> bool:
        self._search(bucket, entry_id)
        self._new_pair_cost()
        new = entry_id not in bucket
        if new and self._cost is not None:
            self._cost.visit(1)
            self._cost.allocate(1, tree_map(1) - tree_map(0))
        bucket[entry_id] = pair
        return new

    def _bucket_remove(self, bucket: SortedDict, entry_id: int) -> Pair | None:
        self._search(bucket, entry_id)
        pair = bucket.pop(entry_id, None)
        if pair is not None and self._cost is not None:
            self._cost.visit(2)  # the pair + the fix-up after the unlink (amortized)
        return pair

    def _bucket_len(self, bucket: SortedDict) -> int:
        return len(bucket)

    def _bucket_items(self, bucket: SortedDict) -> Iterator[tuple[int, Pair]]:
        if self._cost is not None:
            self._cost.walk(len(bucket), _ENTRY_BYTES)
        return iter(bucket.items())

    def _bucket_remove_all(self, ledger_id: int, bucket: SortedDict) -> list[Removed]:
        if self._cost is not None:
            self._cost.walk(len(bucket), _ENTRY_BYTES)
            if not self.jmh_old_store:  # the real class unlinks entry by entry
                self._cost.visit(len(bucket))
        return [(ledger_id, e, p) for e, p in bucket.items()]

    def _bucket_remove_up_to(self, ledger_id: int, bucket: SortedDict, entry_id: int):
        bound = to_int64(entry_id + 1)  # headMap(entryId + 1): overflows at Long.MAX_VALUE
        stop = bucket.bisect_left(bound)
        keys = list(bucket.islice(0, stop))
        cost = self._cost
        if cost is not None and keys:
            cost.search(tree_depth(len(bucket)), _NODE_OBJECTS)  # headMap's first entry
            cost.walk(len(keys), _ENTRY_BYTES)
            cost.visit(len(keys))  # iterator.remove: fix-up per entry
            if not self.jmh_old_store:
                # the copy: new TreeMap + one Entry per key, written and walked; then
                # ledgerMap.remove(entryId) re-boxes the key and searches the original
                cost.allocate(1 + len(keys), tree_map(len(keys)))
                cost.walk(len(keys), tree_map(1) - tree_map(0))
                for e in keys:
                    self._search(bucket, e)
                    cost.visit(1)
        removed = [(ledger_id, e, bucket.pop(e)) for e in keys]
        return removed

    def _copy_bucket(self, bucket: SortedDict) -> SortedDict:
        return bucket.copy()

    # ----------------------------------------------------------------- sizes
    def _outer_jvm_bytes(self, layout: JvmLayout) -> int:
        # outer TreeMap and its entries; the Long keys are counted in jvm_bytes
        return tree_map(len(self._ledgers), layout=layout)

    def _bucket_jvm_bytes(self, bucket: SortedDict, layout: JvmLayout) -> int:
        return tree_map(len(bucket), len(bucket) * int_int_pair(layout), layout)

    def boxed_long_count(self) -> int:
        """Distinct ``Long`` objects reachable: one per key outside the cache, one per
        distinct cached value. O(ledgers x 256)."""
        cached: set[int] = set()
        uncached = 0
        for ledger_id, bucket in self._ledgers.items():
            if LONG_CACHE_LOW <= ledger_id <= LONG_CACHE_HIGH:
                cached.add(ledger_id)
            else:
                uncached += 1
            small = list(bucket.irange(LONG_CACHE_LOW, LONG_CACHE_HIGH))
            cached.update(small)
            uncached += len(bucket) - len(small)
        return uncached + len(cached)

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """The maps' objects plus every distinct ``Long`` key box. O(ledgers x 256)."""
        return super().jvm_bytes(layout) + self.boxed_long_count() * boxed_long(layout)

    # ----------------------------------------------------------------- bulk path
    @classmethod
    def from_arrays(cls, ledger_ids, entry_ids, remaining, hashes) -> TreeMapPendingAcks:
        """The state ``addPendingAckIfAllowed`` over the arrays in order gives; no handlers.
        Bulk path: O(n log n)."""
        from trackerlab.models.pending_acks.bulk import sorted_buckets

        model = cls()
        for ledger_id, keys, rem, hsh in sorted_buckets(ledger_ids, entry_ids, remaining, hashes):
            model._ledgers[ledger_id] = SortedDict(
                zip(keys, zip(rem, hsh, strict=True), strict=True)
            )
        model._size = sum(len(b) for b in model._ledgers.values())
        return model
