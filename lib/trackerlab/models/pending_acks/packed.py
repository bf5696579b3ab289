"""``PendingAcksMap`` as fastutil ``Long2ObjectSortedMap<Long2LongSortedMap>`` with packed values.

Java: apache/pulsar ``PendingAcksMap.java`` after #26030 (merged; with #26019's cached
``volatile long size``): outer ``Long2ObjectRBTreeMap``, inner ``Long2LongRBTreeMap`` with
``defaultReturnValue(PendingAckValues.PACKED_NOT_FOUND)`` (= ``-1L << 32``); #26522 (merged
2026-09) swapped the inner map for ``Long2LongAVLTreeMap``. Values are packed ``long``s
(``PendingAckValues.pack`` rejects a negative count; ``updateRemainingUnacked`` refuses a
negative result). ``removeAllUpTo`` removes through ``headMap`` iterators, no copy.

Python: a ``SortedDict`` of ``SortedDict[int, int]`` (packed values). JVM size: fastutil
RB map 416 B empty (object + ``boolean[64] dirPath`` + ``Entry[64] nodePath``), AVL map
128 B empty (object + ``boolean[48] dirPath``), 40 B per entry in both; no boxed keys and no
value objects.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from sortedcontainers import SortedDict

from trackerlab.models.pending_acks.common import (
    LedgerBucketsModel,
    Pair,
    Removed,
    pack,
    to_int64,
    tree_depth,
    unpack,
)
from trackerlab.sizing.jvm import JvmLayout
from trackerlab.sizing.jvm_collections import fastutil_avl_tree_map, fastutil_rb_tree_map

#: Bytes an in-order walk streams per fastutil ``Long2LongXTreeMap.Entry``.
_ENTRY_BYTES = 40
#: Inner tree kinds: #26030 red-black, #26522 AVL.
INNER_TREES = {"rb": fastutil_rb_tree_map, "avl": fastutil_avl_tree_map}


class PackedSortedPendingAcks(LedgerBucketsModel):
    """fastutil RB outer map, RB (``inner="rb"``) or AVL (``"avl"``) inner ``Long2LongSortedMap``.

    Lookups O(log L + log n); one 40-B tree entry per pending ack.
    """

    name: ClassVar[str] = "pending-acks-packed-rb"
    java: ClassVar[str] = "Long2ObjectRBTreeMap<Long2LongRBTreeMap> (#26030, #26019 size)"
    OUTER_BOXED: ClassVar[bool] = False
    refuses_negative_update: ClassVar[bool] = True
    inner: ClassVar[str] = "rb"

    # ----------------------------------------------------------------- cost helpers
    def _search(self, bucket: SortedDict) -> None:
        if self._cost is not None:
            self._cost.search(tree_depth(len(bucket)))

    # ----------------------------------------------------------------- bucket hooks
    def _new_bucket(self) -> SortedDict:
        if self._cost is not None:
            objects = 4 if self.inner == "rb" else 3  # map, dirPath (, nodePath), outer Entry
            self._cost.allocate(
                objects,
                INNER_TREES[self.inner](0, kind="Long2Long")
                + fastutil_rb_tree_map(1)
                - fastutil_rb_tree_map(0),
            )
        return SortedDict()

    def _bucket_get(self, bucket: SortedDict, entry_id: int) -> Pair | None:
        self._search(bucket)
        packed = bucket.get(entry_id)
        return None if packed is None else unpack(packed)

    def _bucket_put(self, bucket: SortedDict, entry_id: int, pair: Pair) -> bool:
        self._search(bucket)
        new = entry_id not in bucket
        if new and self._cost is not None:
            self._cost.visit(1)
            self._cost.allocate(1, fastutil_rb_tree_map(1) - fastutil_rb_tree_map(0))
        bucket[entry_id] = pack(*pair)
        return new

    def _bucket_remove(self, bucket: SortedDict, entry_id: int) -> Pair | None:
        self._search(bucket)
        packed = bucket.pop(entry_id, None)
        if packed is not None and self._cost is not None:
            self._cost.visit(1)  # the fix-up after the unlink (amortized)
        return None if packed is None else unpack(packed)

    def _bucket_len(self, bucket: SortedDict) -> int:
        return len(bucket)

    def _bucket_items(self, bucket: SortedDict) -> Iterator[tuple[int, Pair]]:
        if self._cost is not None:
            self._cost.walk(len(bucket), _ENTRY_BYTES)
        return ((e, unpack(p)) for e, p in bucket.items())

    def _bucket_remove_all(self, ledger_id: int, bucket: SortedDict) -> list[Removed]:
        if self._cost is not None:  # walk + iterator.remove per entry
            self._cost.walk(len(bucket), _ENTRY_BYTES)
            self._cost.visit(len(bucket))
        return [(ledger_id, e, unpack(p)) for e, p in bucket.items()]

    def _bucket_remove_up_to(self, ledger_id: int, bucket: SortedDict, entry_id: int):
        stop = bucket.bisect_left(to_int64(entry_id + 1))  # headMap(entryId + 1)
        keys = list(bucket.islice(0, stop))
        if self._cost is not None and keys:
            self._cost.search(tree_depth(len(bucket)))
            self._cost.walk(len(keys), _ENTRY_BYTES)
            self._cost.visit(len(keys))
        return [(ledger_id, e, unpack(bucket.pop(e))) for e in keys]

    def _copy_bucket(self, bucket: SortedDict) -> SortedDict:
        return bucket.copy()

    # ----------------------------------------------------------------- sizes
    def _outer_jvm_bytes(self, layout: JvmLayout) -> int:
        return fastutil_rb_tree_map(len(self._ledgers), layout=layout)

    def _bucket_jvm_bytes(self, bucket: SortedDict, layout: JvmLayout) -> int:
        return INNER_TREES[self.inner](len(bucket), kind="Long2Long", layout=layout)

    # ----------------------------------------------------------------- bulk path
    @classmethod
    def from_arrays(cls, ledger_ids, entry_ids, remaining, hashes) -> PackedSortedPendingAcks:
        """The state ``addPendingAckIfAllowed`` over the arrays in order gives; no handlers.
        Bulk path: O(n log n)."""
        from trackerlab.models.pending_acks.bulk import pack_array, split_by_ledger

        model = cls()
        for ledger_id, (_, e, r, h) in split_by_ledger(ledger_ids, entry_ids, remaining, hashes):
            model._ledgers[ledger_id] = SortedDict(
                zip(e.tolist(), pack_array(r, h).tolist(), strict=True)
            )
        model._size = sum(len(b) for b in model._ledgers.values())
        return model


class PackedAvlPendingAcks(PackedSortedPendingAcks):
    """#26522: the inner map is a ``Long2LongAVLTreeMap`` (128 B empty instead of 416 B)."""

    name: ClassVar[str] = "pending-acks-packed-avl"
    java: ClassVar[str] = "Long2ObjectRBTreeMap<Long2LongAVLTreeMap> (#26522)"
    inner: ClassVar[str] = "avl"
