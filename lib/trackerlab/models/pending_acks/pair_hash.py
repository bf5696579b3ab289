"""Pre-4.0 pending acks: the broker ``Consumer.pendingAcks`` ``ConcurrentLongLongPairHashMap``.

Java: apache/pulsar ``pulsar-broker/.../broker/service/Consumer.java`` before PIP-379 (4.0):
``ConcurrentLongLongPairHashMap.newBuilder().autoShrink(conf.isAutoShrinkForConsumerPendingAcksMap())
.expectedItems(256).concurrencyLevel(1).build()``, key ``(ledgerId, entryId)``, value
``(batchSize, stickyKeyHash)`` (spec pulsar-structures.md §2 and §4.1). The map itself is
:mod:`trackerlab.models.primitives.pair_hash_map` (one section: 512 buckets of 32 B at first, doubled
when the used buckets pass 337; with ``auto_shrink`` it halves again below 15% use).

The map rejects ``key1 < 0`` and ``value1 < 0`` (``IllegalArgumentException``), so ledger ids
must be >= 0 and a partial ack that would leave a negative count is refused, as in #26030.
The 4.0 API did not exist then: ``forEach`` visits the table in bucket order, and
``removeAllUpTo`` is modelled as a scan of the whole table that removes the matching keys in
that order (what a ``removeIf`` would do). There are no ledger buckets.

Costs: the map model exposes no probe counter, so every keyed operation counts one random
access (a 32-B bucket holds key and value) and no further probes; scans stream 32 B per
bucket; a rehash allocates the new ``long[4 * capacity]``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import ClassVar

from trackerlab.models.pending_acks.common import (
    AddHandler,
    Pair,
    PendingAcksModel,
    Removed,
    RemoveHandler,
)
from trackerlab.models.primitives.pair_hash_map import ConcurrentLongLongPairHashMap
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

#: The pre-4.0 broker's builder settings.
EXPECTED_ITEMS = 256
CONCURRENCY_LEVEL = 1
BUCKET_BYTES = 32


class PairHashPendingAcks(PendingAcksModel):
    """``ConcurrentLongLongPairHashMap`` (1 section); keyed operations O(1) expected,
    ``removeAllUpTo`` and ``forEach`` O(capacity)."""

    name: ClassVar[str] = "pending-acks-pair-hash"
    java: ClassVar[str] = "ConcurrentLongLongPairHashMap (pre-4.0 Consumer.pendingAcks)"
    sorted_entries: ClassVar[bool] = False
    ledger_ordered: ClassVar[bool] = False
    refuses_negative_update: ClassVar[bool] = True

    def __init__(
        self,
        add_handler: AddHandler | None = None,
        remove_handler: RemoveHandler | None = None,
        auto_shrink: bool = False,
    ) -> None:
        super().__init__(add_handler, remove_handler)
        self.auto_shrink = auto_shrink
        self._map = ConcurrentLongLongPairHashMap(
            expected_items=EXPECTED_ITEMS,
            concurrency_level=CONCURRENCY_LEVEL,
            auto_shrink=auto_shrink,
        )

    # ----------------------------------------------------------------- cost helpers
    def _keyed(self) -> None:
        if self._cost is not None:
            self._cost.visit(1)

    def _scan(self) -> None:
        if self._cost is not None:
            self._cost.stream(BUCKET_BYTES * self._map.capacity())

    def _watch_growth(self, before: int) -> None:
        after = self._map.capacity()
        if self._cost is not None and after != before:
            self._cost.allocate(1, COMPRESSED.array(4 * after, "J"))

    # ----------------------------------------------------------------- storage hooks
    def _get(self, ledger_id: int, entry_id: int) -> Pair | None:
        if ledger_id < 0:
            return None
        self._keyed()
        return self._map.get(ledger_id, entry_id)

    def _contains(self, ledger_id: int, entry_id: int) -> bool:
        return self._get(ledger_id, entry_id) is not None

    def _put(self, ledger_id: int, entry_id: int, pair: Pair) -> bool:
        from trackerlab.core.params import check_int

        check_int("ledger_id", ledger_id, 0)  # key1 >= 0 in ConcurrentLongLongPairHashMap
        new = self._get(ledger_id, entry_id) is None
        before = self._map.capacity()
        self._map.put(ledger_id, entry_id, *pair)
        self._watch_growth(before)
        return new

    def _replace(self, ledger_id: int, entry_id: int, pair: Pair) -> None:
        self._keyed()
        self._map.put(ledger_id, entry_id, *pair)

    def _remove(self, ledger_id: int, entry_id: int) -> Pair | None:
        pair = self._get(ledger_id, entry_id)
        if pair is not None:
            before = self._map.capacity()
            self._map.remove(ledger_id, entry_id)
            self._watch_growth(before)
        return pair

    def _remove_up_to(self, ledger_id: int, entry_id: int) -> list[Removed]:
        self._scan()
        rows = self._map.to_arrays()
        if rows.size == 0:
            return []
        hit = (rows[:, 0] < ledger_id) | ((rows[:, 0] == ledger_id) & (rows[:, 1] <= entry_id))
        removed = [(l1, l2, (v1, v2)) for l1, l2, v1, v2 in rows[hit].tolist()]
        for l1, l2, _ in removed:
            self._keyed()
            self._map.remove(l1, l2)
        return removed

    def _clear(self) -> None:
        self._map.clear()

    def items(self) -> Iterator[tuple[int, int, int, int]]:
        """``forEach`` order: the table in bucket order. O(capacity)."""
        self._scan()
        return iter(self._map.items())

    def ledger_count(self) -> int:
        """No ledger buckets: 0. O(1)."""
        return 0

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """Map object + ``Section[1]`` + the Section (a StampedLock) + ``long[4 * capacity]``.
        O(1)."""
        return self._map.jvm_bytes(layout)

    def capacity(self) -> int:
        """``capacity()``: buckets in the table (32 B each). O(1)."""
        return self._map.capacity()

    def copy(self) -> PairHashPendingAcks:
        """An independent model in the same state (same tables; no cost counter; no Java
        method). O(capacity)."""
        clone = copy.copy(self)
        clone._cost = None
        clone._map = copy.deepcopy(self._map)
        return clone

    # ----------------------------------------------------------------- bulk path
    @classmethod
    def from_arrays(cls, ledger_ids, entry_ids, remaining, hashes) -> PairHashPendingAcks:
        """``put`` of every row in order (``ConcurrentLongLongPairHashMap.from_arrays``: same
        capacity and bucket set; colliding keys in a canonical order). O(n log n)."""
        from trackerlab.core.errors import UsageError
        from trackerlab.models.pending_acks.bulk import check_arrays

        ledgers, entries, rem, hsh = check_arrays(ledger_ids, entry_ids, remaining, hashes)
        if ledgers.size and int(ledgers.min()) < 0:
            raise UsageError(f"ledger_ids must be >= 0 for pair-hash, got {int(ledgers.min())}")
        model = cls()
        model._map = ConcurrentLongLongPairHashMap.from_arrays(
            ledgers,
            entries,
            rem,
            hsh,
            expected_items=EXPECTED_ITEMS,
            concurrency_level=CONCURRENCY_LEVEL,
        )
        model._size = len(model._map)
        return model
