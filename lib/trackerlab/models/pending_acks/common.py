"""What every ``PendingAcksMap`` layout shares: packing, validation, handlers and the API.

Java: ``org.apache.pulsar.broker.service.PendingAcksMap``
(``pulsar-broker/src/main/java/org/apache/pulsar/broker/service/PendingAcksMap.java``), one
per broker-side consumer, tracking entries dispatched but not fully acknowledged. The API
is the same in every version since PIP-379 (4.0); :class:`PendingAcksModel` mirrors it in
snake case and each layout module supplies the storage:

- ``addPendingAckIfAllowed``: false once closed or when the add handler (Key_Shared
  ``DrainingHashesTracker``) refuses the hash; otherwise insert or replace;
- ``size`` is a cached counter (#26019): +1 on a new key, -1 per removal, 0 on clear; O(1);
- ``contains`` / ``get`` / ``getRemainingUnacked`` (-1 when absent);
- ``remove(l, e)`` and the conditional ``remove(l, e, batchSize, stickyKeyHash)``, which
  removes only when the stored pair is equal; ``removeAndGet*``; the remove handler is
  called for every removal and an emptied ledger bucket is dropped;
- ``updateRemainingUnacked(l, e, ackedDelta)``: ``remaining - delta`` in Java ``int``
  arithmetic; the packed versions (#26030) refuse a negative result;
- ``removeAllUpTo(ledger, entry, callback)``: inclusive, ledgers ascending; per entry the
  remove handler runs before the callback, inside one ``startBatch``/``endBatch``;
- ``forEach`` (ledgers ascending; entries ascending in the sorted layouts, in table order in
  the hash layouts), ``forEachAndClose`` (closes first) and ``forEachAndClear``.

Packing (#26030 ``PendingAckValues``, also the #26024 draft): ``remainingUnacked`` in the high
32 bits, ``stickyKeyHash`` in the low 32 bits; signed hashes round-trip and a packed 0 is a
valid value. Locks are not modelled: every call is atomic here, as under Pulsar's
``ReentrantReadWriteLock``.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from typing import ClassVar, Protocol

from sortedcontainers import SortedDict

from trackerlab.core.params import check_int
from trackerlab.models.primitives.op_cost import OpCost
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
#: ``getRemainingUnacked`` / ``removeAndGetRemainingUnacked`` when the entry is absent.
NOT_FOUND = -1
#: ``Long.valueOf`` returns shared instances for -128..127 (``Long.LongCache``).
LONG_CACHE_LOW, LONG_CACHE_HIGH = -128, 127

Pair = tuple[int, int]
"""``(remainingUnacked, stickyKeyHash)``, the Python form of ``IntIntPair``."""
AddHandler = Callable[[int, int, int], bool]
"""``handleAdding(ledgerId, entryId, stickyKeyHash) -> allowed``."""
PendingAckConsumer = Callable[[int, int, int, int], None]
"""``accept(ledgerId, entryId, remainingUnacked, stickyKeyHash)``."""
Removed = tuple[int, int, Pair]
"""``(ledgerId, entryId, pair)`` of an entry removed by ``removeAllUpTo``."""


class RemoveHandler(Protocol):
    """``PendingAcksRemoveHandler`` (Key_Shared ``DrainingHashesTracker``)."""

    def handle_removing(
        self, ledger_id: int, entry_id: int, sticky_key_hash: int, closing: bool
    ) -> None:
        """``handleRemoving(consumer, ...)``: once per removed entry; O(1) for the map."""

    def start_batch(self) -> None:
        """``startBatch()``: before the first removal of a batch. O(1) for the map."""

    def end_batch(self) -> None:
        """``endBatch()``: after the last removal of a batch. O(1) for the map."""


# --------------------------------------------------------------------------- Java ints


def to_int32(value: int) -> int:
    """Java ``int`` wrap-around."""
    return (value - INT32_MIN) % (1 << 32) + INT32_MIN


def to_int64(value: int) -> int:
    """Java ``long`` wrap-around (``markDeleteLedgerId + 1`` overflows at Long.MAX_VALUE)."""
    return (value - INT64_MIN) % (1 << 64) + INT64_MIN


def pack(remaining_unacked: int, sticky_key_hash: int) -> int:
    """``((long) remaining << 32) | (hash & 0xFFFFFFFFL)`` as a signed ``long``."""
    return to_int64((remaining_unacked << 32) | (sticky_key_hash & 0xFFFF_FFFF))


def unpack(packed: int) -> Pair:
    """``(int) (packed >> 32)`` and ``(int) packed``."""
    return packed >> 32, to_int32(packed)


# --------------------------------------------------------------------------- validation


def check_remaining_unacked(value: object, name: str = "remaining_unacked") -> int:
    """A remaining-unacked count: a Java ``int`` >= 0 (``PendingAckValues.pack`` rejects
    negatives with IllegalArgumentException; here a one-line UsageError)."""
    return check_int(name, value, 0, INT32_MAX)


def check_sticky_key_hash(value: object) -> int:
    return check_int("sticky_key_hash", value, INT32_MIN, INT32_MAX)


def check_position(ledger_id: object, entry_id: object) -> tuple[int, int]:
    return (
        check_int("ledger_id", ledger_id, INT64_MIN, INT64_MAX),
        check_int("entry_id", entry_id, INT64_MIN, INT64_MAX),
    )


# --------------------------------------------------------------------------- tree costs


def tree_depth(n: int) -> int:
    """Nodes on a search path of a balanced tree of ``n`` entries: ``floor(log2 n) + 1``.

    The cost unit for the sorted maps. It is the height of a perfectly balanced tree; a
    red-black tree may be up to ``2 log2 n`` deep and an AVL tree ``1.44 log2 n``, which this
    unit does not separate (the Python models use ``SortedDict`` for both).
    """
    return max(1, n.bit_length())


def boxed_long_bytes(value: int, layout: JvmLayout = COMPRESSED) -> int:
    """Bytes ``Long.valueOf(value)`` allocates: 0 inside the cache, else one ``Long``."""
    return 0 if LONG_CACHE_LOW <= value <= LONG_CACHE_HIGH else layout.boxed("J")


# --------------------------------------------------------------------------- the API


class PendingAcksModel(ABC):
    """The ``PendingAcksMap`` API over a layout's storage (see the module docstring).

    O(lookup) below is one keyed access of the layout: O(log n) in the sorted layouts,
    O(log ledgers) + O(1) expected in the open-hash layouts, O(1) expected in pair-hash.
    """

    #: Layout name used by the CLI, the notebooks and the reproducers.
    name: ClassVar[str]
    #: The Java field and the version or PR followed.
    java: ClassVar[str]
    #: True when ``forEach`` visits the entries of a ledger in ascending order.
    sorted_entries: ClassVar[bool] = True
    #: True when ``forEach`` and ``removeAllUpTo`` visit ledgers in ascending order.
    ledger_ordered: ClassVar[bool] = True
    #: True when ``updateRemainingUnacked`` refuses a negative result (#26030).
    refuses_negative_update: ClassVar[bool] = False

    def __init__(
        self,
        add_handler: AddHandler | None = None,
        remove_handler: RemoveHandler | None = None,
    ) -> None:
        self.add_handler = add_handler
        self.remove_handler = remove_handler
        self.closed = False
        self._size = 0
        self._cost: OpCost | None = None

    @classmethod
    @abstractmethod
    def from_arrays(cls, ledger_ids, entry_ids, remaining, hashes) -> PendingAcksModel:
        """The state ``addPendingAckIfAllowed`` over the arrays in order gives (bulk path).
        O(n log n) in each layout."""

    @abstractmethod
    def copy(self) -> PendingAcksModel:
        """An independent model in the same state (handlers shared, no cost counter). O(n)."""

    # ----------------------------------------------------------------- cost counting
    @property
    def cost(self) -> OpCost | None:
        """Attach an :class:`OpCost` to count what each call touches (None: off). O(1)."""
        return self._cost

    @cost.setter
    def cost(self, cost: OpCost | None) -> None:
        """Attach the counter here and to the sub-structures that count. O(ledgers)."""
        self._cost = cost
        self._propagate_cost(cost)

    def _propagate_cost(self, cost: OpCost | None) -> None:  # noqa: B027 - optional hook
        """Hand the counter to sub-structures that count for themselves."""

    # ----------------------------------------------------------------- storage hooks
    @abstractmethod
    def _get(self, ledger_id: int, entry_id: int) -> Pair | None: ...

    @abstractmethod
    def _contains(self, ledger_id: int, entry_id: int) -> bool: ...

    @abstractmethod
    def _put(self, ledger_id: int, entry_id: int, pair: Pair) -> bool:
        """Insert or replace; True when the key is new."""

    @abstractmethod
    def _replace(self, ledger_id: int, entry_id: int, pair: Pair) -> None:
        """Replace the value of a present key (``updateRemainingUnacked``)."""

    @abstractmethod
    def _remove(self, ledger_id: int, entry_id: int) -> Pair | None:
        """Remove and return the pair; drop the ledger bucket when it empties."""

    @abstractmethod
    def _remove_up_to(self, ledger_id: int, entry_id: int) -> list[Removed]:
        """Remove every entry up to the position, in callback order."""

    @abstractmethod
    def _clear(self) -> None: ...

    @abstractmethod
    def items(self) -> Iterator[tuple[int, int, int, int]]:
        """``(ledgerId, entryId, remainingUnacked, stickyKeyHash)`` in ``forEach`` order. O(n)
        (pair-hash: O(capacity))."""

    @abstractmethod
    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """Deep JVM size of the Java structure in the model's current state (JOL
        ``GraphLayout.totalSize`` semantics: every reachable object once). O(ledgers)."""

    @abstractmethod
    def ledger_count(self) -> int:
        """Ledger buckets held (0 for layouts without buckets). O(1)."""

    # ----------------------------------------------------------------- PendingAcksMap API
    def add_pending_ack_if_allowed(
        self, ledger_id: int, entry_id: int, remaining_unacked: int, sticky_key_hash: int
    ) -> bool:
        """``addPendingAckIfAllowed``: True when added or replaced. O(lookup)."""
        ledger_id, entry_id = check_position(ledger_id, entry_id)
        remaining_unacked = check_remaining_unacked(remaining_unacked)
        sticky_key_hash = check_sticky_key_hash(sticky_key_hash)
        if self.closed:
            return False
        if self.add_handler is not None and not self.add_handler(
            ledger_id, entry_id, sticky_key_hash
        ):
            return False
        if self._put(ledger_id, entry_id, (remaining_unacked, sticky_key_hash)):
            self._size += 1
        return True

    def size(self) -> int:
        """Entries held (cached counter, O(1))."""
        return self._size

    def __len__(self) -> int:
        return self._size

    def contains(self, ledger_id: int, entry_id: int) -> bool:
        """``contains``. O(lookup)."""
        return self._contains(ledger_id, entry_id)

    def get(self, ledger_id: int, entry_id: int) -> Pair | None:
        """``get``: ``(remainingUnacked, stickyKeyHash)`` or None. O(lookup)."""
        return self._get(ledger_id, entry_id)

    def get_remaining_unacked(self, ledger_id: int, entry_id: int) -> int:
        """``getRemainingUnacked``: the count, or -1 when absent. O(lookup)."""
        pair = self._get(ledger_id, entry_id)
        return NOT_FOUND if pair is None else pair[0]

    def remove(
        self,
        ledger_id: int,
        entry_id: int,
        batch_size: int | None = None,
        sticky_key_hash: int | None = None,
    ) -> bool:
        """``remove(l, e)``, or with both ``batch_size`` and ``sticky_key_hash`` the
        conditional ``remove(l, e, batchSize, stickyKeyHash)``. O(lookup)."""
        if (batch_size is None) != (sticky_key_hash is None):
            raise TypeError("give both batch_size and sticky_key_hash, or neither")
        if batch_size is not None:
            expected = (
                check_remaining_unacked(batch_size, "batch_size"),
                check_sticky_key_hash(sticky_key_hash),
            )
            if self._get(ledger_id, entry_id) != expected:
                return False
        return self._take(ledger_id, entry_id) is not None

    def remove_and_get(self, ledger_id: int, entry_id: int) -> Pair | None:
        """``removeAndGet``: the removed pair, or None. O(lookup)."""
        return self._take(ledger_id, entry_id)

    def remove_and_get_remaining_unacked(self, ledger_id: int, entry_id: int) -> int:
        """``removeAndGetRemainingUnacked``: the removed count, or -1. O(lookup)."""
        pair = self._take(ledger_id, entry_id)
        return NOT_FOUND if pair is None else pair[0]

    def _take(self, ledger_id: int, entry_id: int) -> Pair | None:
        pair = self._remove(ledger_id, entry_id)
        if pair is not None:
            self._size -= 1
            if self.remove_handler is not None:
                self.remove_handler.handle_removing(ledger_id, entry_id, pair[1], self.closed)
        return pair

    def update_remaining_unacked(self, ledger_id: int, entry_id: int, acked_delta: int) -> bool:
        """``updateRemainingUnacked``: subtract ``acked_delta`` from the remaining count; False
        when absent (or, in the packed layouts, when the result would be negative).
        O(lookup)."""
        acked_delta = check_int("acked_delta", acked_delta, INT32_MIN, INT32_MAX)
        pair = self._get(ledger_id, entry_id)
        if pair is None:
            return False
        remaining = to_int32(pair[0] - acked_delta)
        if remaining < 0 and self.refuses_negative_update:
            return False
        self._replace(ledger_id, entry_id, (remaining, pair[1]))
        return True

    def remove_all_up_to(
        self,
        mark_delete_ledger_id: int,
        mark_delete_entry_id: int,
        callback: PendingAckConsumer | None = None,
    ) -> int:
        """``removeAllUpTo``: remove every entry ``<= (ledger, entry)``; returns how many.

        Per removed entry the remove handler runs, then ``callback``, in the layout's order
        (ledgers ascending). The handler batch starts at the first removal. O(k log n) for k
        removed in the sorted layouts; the hash layouts' costs are on their classes.
        """
        ledger_id, entry_id = check_position(mark_delete_ledger_id, mark_delete_entry_id)
        removed = self._remove_up_to(ledger_id, entry_id)
        self._size -= len(removed)
        self._notify(removed, callback)
        return len(removed)

    def _notify(self, removed: Iterable[Removed], callback: PendingAckConsumer | None) -> None:
        handler = self.remove_handler
        started = False
        try:
            for ledger_id, entry_id, (remaining, hash_) in removed:
                if handler is not None:
                    if not started:
                        handler.start_batch()
                        started = True
                    handler.handle_removing(ledger_id, entry_id, hash_, self.closed)
                if callback is not None:
                    callback(ledger_id, entry_id, remaining, hash_)
        finally:
            if started and handler is not None:  # started only with a handler
                handler.end_batch()

    def for_each(self, processor: PendingAckConsumer) -> None:
        """``forEach``. O(n) (pair-hash: O(capacity))."""
        for row in self.items():
            processor(*row)

    def for_each_and_close(self, processor: PendingAckConsumer) -> None:
        """``forEachAndClose``: close (no more adds), process and remove every entry. O(n)
        (pair-hash: O(capacity))."""
        self._for_each_and_clear(processor, close=True)

    def for_each_and_clear(self, processor: PendingAckConsumer) -> None:
        """``forEachAndClear``: process and remove every entry; adds stay allowed. O(n)
        (pair-hash: O(capacity))."""
        self._for_each_and_clear(processor, close=False)

    def _for_each_and_clear(self, processor: PendingAckConsumer, close: bool) -> None:
        if close:
            self.closed = True
        handler = self.remove_handler
        if handler is not None:
            handler.start_batch()
            try:
                for ledger_id, entry_id, remaining, hash_ in self.items():
                    processor(ledger_id, entry_id, remaining, hash_)
                    handler.handle_removing(ledger_id, entry_id, hash_, self.closed)
            finally:
                handler.end_batch()
        else:
            self.for_each(processor)
        self._clear()
        self._size = 0


# --------------------------------------------------------------------------- ledger buckets


class LedgerBucketsModel(PendingAcksModel):
    """Layouts with an ordered outer map ``ledgerId -> bucket`` (every version since 4.0).

    The outer map is a ``SortedDict``; subclasses supply the per-ledger bucket. Costs of the
    outer lookup: ``OUTER_BOXED`` (``java.util.TreeMap<Long, ...>``: each call boxes the
    ledger id and each node visit also reads a ``Long`` key) or a fastutil tree (primitive
    keys).
    """

    OUTER_BOXED: ClassVar[bool] = True
    #: ``headMap(markDeleteLedgerId + 1)`` (overflows at Long.MAX_VALUE: nothing removed)
    #: in the TreeMap and packed versions; ``headMap(ledgerId, true)`` in #26024.
    INCLUSIVE_HEAD_MAP: ClassVar[bool] = False

    def __init__(
        self,
        add_handler: AddHandler | None = None,
        remove_handler: RemoveHandler | None = None,
    ) -> None:
        super().__init__(add_handler, remove_handler)
        self._ledgers: SortedDict = SortedDict()
        #: ``entrySet()`` of the outer map has been called: Java caches that 16-B view
        #: object in the map's ``entrySet`` field (``java.util.TreeMap``) or ``entries``
        #: field (fastutil) for the map's lifetime; JOL counts it.
        self.entry_set_view = False

    # ----------------------------------------------------------------- bucket hooks
    @abstractmethod
    def _new_bucket(self): ...

    @abstractmethod
    def _bucket_get(self, bucket, entry_id: int) -> Pair | None: ...

    def _bucket_contains(self, bucket, entry_id: int) -> bool:
        return self._bucket_get(bucket, entry_id) is not None

    @abstractmethod
    def _bucket_put(self, bucket, entry_id: int, pair: Pair) -> bool: ...

    @abstractmethod
    def _bucket_remove(self, bucket, entry_id: int) -> Pair | None: ...

    @abstractmethod
    def _bucket_len(self, bucket) -> int: ...

    @abstractmethod
    def _bucket_items(self, bucket) -> Iterator[tuple[int, Pair]]: ...

    @abstractmethod
    def _bucket_remove_all(self, ledger_id: int, bucket) -> list[Removed]:
        """Every entry of a ledger below the mark-delete ledger, in callback order."""

    @abstractmethod
    def _bucket_remove_up_to(self, ledger_id: int, bucket, entry_id: int) -> list[Removed]:
        """Entries ``<= entry_id`` of the mark-delete ledger, removed, in callback order."""

    @abstractmethod
    def _bucket_jvm_bytes(self, bucket, layout: JvmLayout) -> int: ...

    @abstractmethod
    def _copy_bucket(self, bucket): ...

    def copy(self):
        """An independent model in the same state (handlers shared, no cost counter; no Java
        method). O(n)."""
        clone = copy.copy(self)
        clone._cost = None
        clone._ledgers = SortedDict((k, self._copy_bucket(b)) for k, b in self._ledgers.items())
        return clone

    @abstractmethod
    def _outer_jvm_bytes(self, layout: JvmLayout) -> int: ...

    # ----------------------------------------------------------------- outer map costs
    def _outer_lookup(self, ledger_id: int) -> None:
        cost = self._cost
        if cost is not None:
            cost.search(tree_depth(len(self._ledgers)), 2 if self.OUTER_BOXED else 1)
            box = boxed_long_bytes(ledger_id) if self.OUTER_BOXED else 0
            if box:
                cost.allocate(1, box)

    def _bucket(self, ledger_id: int):
        self._outer_lookup(ledger_id)
        return self._ledgers.get(ledger_id)

    # ----------------------------------------------------------------- storage hooks
    def _get(self, ledger_id: int, entry_id: int) -> Pair | None:
        bucket = self._bucket(ledger_id)
        return None if bucket is None else self._bucket_get(bucket, entry_id)

    def _contains(self, ledger_id: int, entry_id: int) -> bool:
        bucket = self._bucket(ledger_id)
        return bucket is not None and self._bucket_contains(bucket, entry_id)

    def _put(self, ledger_id: int, entry_id: int, pair: Pair) -> bool:
        bucket = self._bucket(ledger_id)
        if bucket is None:
            bucket = self._ledgers[ledger_id] = self._new_bucket()
        return self._bucket_put(bucket, entry_id, pair)

    def _replace(self, ledger_id: int, entry_id: int, pair: Pair) -> None:
        self._bucket_put(self._ledgers[ledger_id], entry_id, pair)

    def _remove(self, ledger_id: int, entry_id: int) -> Pair | None:
        bucket = self._bucket(ledger_id)
        if bucket is None:
            return None
        pair = self._bucket_remove(bucket, entry_id)
        if pair is not None and self._bucket_len(bucket) == 0:
            self._outer_lookup(ledger_id)
            del self._ledgers[ledger_id]
        return pair

    def _head_ledgers(self, ledger_id: int) -> list[int]:
        """Ledger ids of ``headMap``: ``< ledgerId + 1`` (Java overflow) or ``<= ledgerId``."""
        if self.INCLUSIVE_HEAD_MAP:
            return list(self._ledgers.irange(maximum=ledger_id))
        bound = to_int64(ledger_id + 1)
        return list(self._ledgers.irange(maximum=bound, inclusive=(True, False)))

    def _remove_up_to(self, ledger_id: int, entry_id: int) -> list[Removed]:
        removed: list[Removed] = []
        for lid in self._head_ledgers(ledger_id):
            bucket = self._ledgers[lid]
            if self._cost is not None:
                self._cost.visit(2 if self.OUTER_BOXED else 1)
            if lid < ledger_id:
                removed += self._bucket_remove_all(lid, bucket)
                del self._ledgers[lid]
            else:
                removed += self._bucket_remove_up_to(lid, bucket, entry_id)
                if self._bucket_len(bucket) == 0:
                    del self._ledgers[lid]
        return removed

    def _clear(self) -> None:
        self._ledgers.clear()

    def items(self) -> Iterator[tuple[int, int, int, int]]:
        """Rows in ``forEach`` order: ledgers ascending, then the bucket's order. O(n)."""
        self.entry_set_view = True
        for ledger_id, bucket in self._ledgers.items():
            if self._cost is not None:
                self._cost.visit(2 if self.OUTER_BOXED else 1)
            for entry_id, (remaining, hash_) in self._bucket_items(bucket):
                yield ledger_id, entry_id, remaining, hash_

    def ledger_count(self) -> int:
        """Ledger buckets in the outer map (``pendingAcks.size()``). O(1)."""
        return len(self._ledgers)

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """Outer map + cached ``entrySet`` view + every bucket. O(ledgers)."""
        view = layout.instance("L") if self.entry_set_view else 0  # outer-class reference
        return (
            self._outer_jvm_bytes(layout)
            + view
            + sum(self._bucket_jvm_bytes(b, layout) for b in self._ledgers.values())
        )
