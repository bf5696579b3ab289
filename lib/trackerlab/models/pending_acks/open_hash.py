"""``PendingAcksMap`` as ``TreeMap<Long, LedgerPendingAcks>`` over pulsar-common's
``Long2LongOpenHashMap`` with a ``BitSet`` entry-id index (#26024, open draft).

Java: void-ptr974/pulsar branch ``pending-acks-local-primitive-map``,
``pulsar-broker/.../broker/service/PendingAcksMap.java``. Per ledger a
``LedgerPendingAcks`` holds ``Long2LongOpenHashMap entries`` (packed values; the draft's
not-found sentinel is ``Long.MIN_VALUE``), ``BitSet entryIdIndex``, ``boolean
entryIdIndexEnabled`` and ``long maxEntryId``:

- ``put`` raises ``maxEntryId`` and sets the entry's bit while ``0 <= entryId <= 1 << 20``;
  any other entry id clears the index and disables it for that ledger (the bucket then falls
  back to scanning its hash map);
- ``removeUpTo(md)``: nothing when ``md < 0``; everything (``forEach`` in slot order, then
  ``clear``) when ``md >= maxEntryId``; with the index, walk ``nextSetBit`` from 0 to ``md``
  and clear bits ``0..md``; without it, ``removeIf(entryId <= md)`` over the slots;
- whole ledgers below the mark-delete ledger: ``forEach`` in slot order, bucket dropped;
- the outer map is ``java.util.TreeMap`` and ``headMap(ledgerId, true)`` (no overflow).

Inside a ledger, ``forEach`` and ``removeAllUpTo`` follow the hash table's slot order, not
entry order (the PR: "replay ordering is rebuilt later by MessageRedeliveryController").

``indexed=False`` is the layout of seed 002's "primitive map" column: the bucket is the bare
``Long2LongOpenHashMap`` (the published +88 B for 100 entries is exactly a 32-B
``LedgerPendingAcks`` + a 24-B ``BitSet`` + its ``long[2]``), cleaned by ``removeIf``.
Neither array shrinks while a bucket lives: capacity retention (seed 002, N41-N43).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import numpy as np

from trackerlab.models.pending_acks.common import (
    INT64_MIN,
    LedgerBucketsModel,
    Pair,
    Removed,
    pack,
    unpack,
)
from trackerlab.models.primitives.java_bitset import JavaBitSet
from trackerlab.models.primitives.long2long_open_hash import Long2LongOpenHashMap, build_many
from trackerlab.models.primitives.op_cost import OpCost
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.jvm_collections import boxed_long, tree_map

#: ``LedgerPendingAcks.MAX_INDEXED_ENTRY_ID``.
MAX_INDEXED_ENTRY_ID = 1 << 20
#: The draft's ``PACKED_PENDING_ACK_NOT_FOUND``.
PACKED_NOT_FOUND = INT64_MIN


def can_index(entry_id: int) -> bool:
    return 0 <= entry_id <= MAX_INDEXED_ENTRY_ID


class LedgerPendingAcks:
    """One ledger's bucket: hash map + (optional) BitSet index; see the module docstring."""

    __slots__ = ("entries", "index", "index_enabled", "max_entry_id")

    def __init__(self, indexed: bool = True) -> None:
        self.entries = Long2LongOpenHashMap()
        self.index: JavaBitSet | None = JavaBitSet() if indexed else None
        self.index_enabled = indexed
        self.max_entry_id = INT64_MIN

    def attach_cost(self, cost: OpCost | None) -> None:
        """Count the map's and the index's work on ``cost`` (no Java method). O(1)."""
        self.entries.cost = cost
        if self.index is not None:
            self.index.cost = cost

    def __len__(self) -> int:
        return len(self.entries)

    def put(self, entry_id: int, packed: int) -> None:
        """``put(entryId, packedValue)``: the map, then the index bit (an id outside 0..2^20
        clears and disables the index). O(1) expected, O(words) when it disables it."""
        self.entries.put(entry_id, packed)
        if self.index is None:
            return
        self.max_entry_id = max(self.max_entry_id, entry_id)
        if not self.index_enabled:
            return
        if can_index(entry_id):
            self.index.set(entry_id)
        else:
            self.index.clear_all()
            self.index_enabled = False

    def get_or_default(self, entry_id: int, default: int) -> int:
        """``getOrDefault``. O(1) expected."""
        return self.entries.get_or_default(entry_id, default)

    def remove_present(self, entry_id: int) -> None:
        """``removePresent``: the map entry and its index bit. O(1) expected."""
        self.entries.remove(entry_id)
        if self.index is not None and self.index_enabled and can_index(entry_id):
            self.index.clear(entry_id)

    def has_entry_up_to(self, md: int) -> bool:
        """``hasEntryUpTo``: the read-lock probe of ``removeAllUpTo`` (index layout only).
        O(words before the first set bit)."""
        if self.entries.is_empty() or md < 0:
            return False
        if md >= self.max_entry_id or not self.index_enabled:
            return True
        assert self.index is not None  # index_enabled only with an index
        first = self.index.next_set_bit(0)
        return 0 <= first <= md

    def remove_up_to(self, md: int) -> list[tuple[int, int]]:
        """``removeUpTo``: remove entries ``<= md``; ``(entryId, packed)`` in callback order.
        O(md / 64 + removed) through the index, O(capacity) by ``removeIf``."""
        removed: list[tuple[int, int]] = []

        def take(entry_id: int, packed: int) -> bool:
            if entry_id > md:
                return False
            removed.append((entry_id, packed))
            return True

        if self.index is None:
            self.entries.remove_if(take)
            return removed
        if not self.has_entry_up_to(md):
            return removed
        if md >= self.max_entry_id:
            removed.extend(self.entries.items())
            self.entries.clear()
            self.index.clear_all()
        elif self.index_enabled and can_index(md):
            bit = self.index.next_set_bit(0)
            while 0 <= bit <= md:
                packed = self.entries.get_or_default(bit, PACKED_NOT_FOUND)
                if packed != PACKED_NOT_FOUND:
                    self.entries.remove(bit)
                    removed.append((bit, packed))
                bit = self.index.next_set_bit(bit + 1)
            self.index.clear_range(0, md + 1)
        else:
            self.entries.remove_if(take)
        return removed

    def copy(self) -> LedgerPendingAcks:
        """An independent bucket (no Java method). O(capacity + words)."""
        clone = LedgerPendingAcks(self.index is not None)
        clone.entries = self.entries.copy()
        clone.index = None if self.index is None else self.index.copy()
        clone.index_enabled, clone.max_entry_id = self.index_enabled, self.max_entry_id
        return clone

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """Map (+ ``LedgerPendingAcks`` object ``LLZJ`` = 32 B + BitSet when indexed). O(1)."""
        size = self.entries.jvm_bytes(layout)
        if self.index is not None:
            size += layout.instance("LLZJ") + self.index.jvm_bytes(layout)
        return size


class OpenHashPendingAcks(LedgerBucketsModel):
    """#26024 with the BitSet index (``indexed=True``) or the bare primitive map.

    Exact lookups O(1) expected; whole-ledger removal O(capacity) sequential;
    boundary cleanup O(md / 64 + removed) with the index, O(capacity) without.
    """

    name: ClassVar[str] = "pending-acks-open-hash-bitset"
    java: ClassVar[str] = (
        "TreeMap<Long, LedgerPendingAcks> + Long2LongOpenHashMap + BitSet (#26024)"
    )
    sorted_entries: ClassVar[bool] = False
    OUTER_BOXED: ClassVar[bool] = True
    INCLUSIVE_HEAD_MAP: ClassVar[bool] = True
    indexed: ClassVar[bool] = True

    def _propagate_cost(self, cost: OpCost | None) -> None:
        for bucket in self._ledgers.values():
            bucket.attach_cost(cost)

    def _visit_bucket(self) -> None:
        if self._cost is not None:
            self._cost.visit(2 if self.indexed else 1)  # LedgerPendingAcks + map objects

    # ----------------------------------------------------------------- bucket hooks
    def _new_bucket(self) -> LedgerPendingAcks:
        bucket = LedgerPendingAcks(self.indexed)
        if self._cost is not None:
            objects = 7 if self.indexed else 5  # (+ bucket, BitSet, long[1]) map, 3 arrays, Entry
            self._cost.allocate(objects, bucket.jvm_bytes() + tree_map(1) - tree_map(0))
            bucket.attach_cost(self._cost)
        return bucket

    def _bucket_get(self, bucket: LedgerPendingAcks, entry_id: int) -> Pair | None:
        self._visit_bucket()
        packed = bucket.get_or_default(entry_id, PACKED_NOT_FOUND)
        return None if packed == PACKED_NOT_FOUND else unpack(packed)

    def _bucket_contains(self, bucket: LedgerPendingAcks, entry_id: int) -> bool:
        self._visit_bucket()
        return bucket.entries.contains_key(entry_id)

    def _bucket_put(self, bucket: LedgerPendingAcks, entry_id: int, pair: Pair) -> bool:
        self._visit_bucket()
        before = len(bucket)
        bucket.put(entry_id, pack(*pair))
        if self.indexed and self._cost is not None:
            self._cost.visit(1)  # the BitSet object; set() counts its word
        return len(bucket) > before

    def _bucket_remove(self, bucket: LedgerPendingAcks, entry_id: int) -> Pair | None:
        pair = self._bucket_get(bucket, entry_id)
        if pair is not None:
            bucket.remove_present(entry_id)
            if self.indexed and self._cost is not None:
                self._cost.visit(1)
        return pair

    def _bucket_len(self, bucket: LedgerPendingAcks) -> int:
        return len(bucket)

    def _bucket_items(self, bucket: LedgerPendingAcks) -> Iterator[tuple[int, Pair]]:
        self._visit_bucket()
        return ((e, unpack(p)) for e, p in bucket.entries.items())

    def _bucket_remove_all(self, ledger_id: int, bucket: LedgerPendingAcks) -> list[Removed]:
        return [(ledger_id, e, pair) for e, pair in self._bucket_items(bucket)]

    def _bucket_remove_up_to(self, ledger_id: int, bucket: LedgerPendingAcks, entry_id: int):
        self._visit_bucket()
        return [(ledger_id, e, unpack(p)) for e, p in bucket.remove_up_to(entry_id)]

    # ----------------------------------------------------------------- sizes
    def _outer_jvm_bytes(self, layout: JvmLayout) -> int:
        """``TreeMap<Long, ...>``: one distinct ``Long`` per ledger key."""
        n = len(self._ledgers)
        return tree_map(n, n * boxed_long(layout), layout)

    def _bucket_jvm_bytes(self, bucket: LedgerPendingAcks, layout: JvmLayout) -> int:
        return bucket.jvm_bytes(layout)

    def _copy_bucket(self, bucket: LedgerPendingAcks) -> LedgerPendingAcks:
        return bucket.copy()

    def capacities(self) -> dict[int, int]:
        """Hash-table capacity per ledger (never shrinks while the bucket lives; no Java method).
        O(ledgers)."""
        return {lid: b.entries.capacity for lid, b in self._ledgers.items()}

    # ----------------------------------------------------------------- bulk path
    @classmethod
    def from_arrays(cls, ledger_ids, entry_ids, remaining, hashes) -> OpenHashPendingAcks:
        """The state ``addPendingAckIfAllowed`` over the arrays in order gives; no handlers.

        Hash tables through :func:`build_many` (same slots as sequential puts), BitSet growth
        replayed by :meth:`JavaBitSet.from_sets`. O(n log n), no per-entry loop.
        """
        from trackerlab.models.pending_acks.bulk import pack_array, split_by_ledger

        model = cls()
        parts = list(split_by_ledger(ledger_ids, entry_ids, remaining, hashes))
        if not parts:
            return model
        groups = np.concatenate([np.full(len(p[1][1]), i) for i, p in enumerate(parts)])
        keys = np.concatenate([p[1][1] for p in parts])
        values = np.concatenate([pack_array(p[1][2], p[1][3]) for p in parts])
        maps = build_many(groups, keys, values, len(parts))
        for (ledger_id, (_, entries, _, _)), table in zip(parts, maps, strict=True):
            bucket = LedgerPendingAcks(cls.indexed)
            bucket.entries = table
            if cls.indexed:
                bucket.max_entry_id = int(entries.max())
                out = np.flatnonzero((entries < 0) | (entries > MAX_INDEXED_ENTRY_ID))
                if out.size:  # the first out-of-range put cleared and disabled the index
                    bucket.index = JavaBitSet.from_sets(entries[: out[0]], keep=[])
                    bucket.index_enabled = False
                else:
                    bucket.index = JavaBitSet.from_sets(entries)
            model._ledgers[ledger_id] = bucket
        model._size = sum(len(b) for b in model._ledgers.values())
        return model


class PrimitiveMapPendingAcks(OpenHashPendingAcks):
    """Seed 002's "primitive map": ``TreeMap<Long, Long2LongOpenHashMap>``, no BitSet index."""

    name: ClassVar[str] = "pending-acks-open-hash"
    java: ClassVar[str] = "TreeMap<Long, Long2LongOpenHashMap> (#26024 without its index)"
    indexed: ClassVar[bool] = False
