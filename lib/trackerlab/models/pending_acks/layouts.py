"""``PendingAcksMap`` layouts by catalog name, and the seed's datasets.

Layouts (spec pulsar-structures.md §4.1; each module names its Java version):

================================= =========================================================
``pending-acks-treemap``          ``TreeMap<Long, TreeMap<Long, IntIntPair>>`` (#25413; seed
                                  002's "old")
``pending-acks-packed-rb``        fastutil ``Long2ObjectRBTreeMap<Long2LongRBTreeMap>``,
                                  packed (#26030)
``pending-acks-packed-avl``       the same with a ``Long2LongAVLTreeMap`` inner map (#26522)
``pending-acks-open-hash``        ``TreeMap<Long, Long2LongOpenHashMap>`` (seed 002's
                                  "primitive map")
``pending-acks-open-hash-bitset`` ``TreeMap<Long, LedgerPendingAcks>`` + BitSet index
                                  (#26024 draft)
``pending-acks-pair-hash``        pre-4.0 ``Consumer.pendingAcks``:
                                  ``ConcurrentLongLongPairHashMap``
================================= =========================================================

Datasets follow ``PendingAcksMapBenchmark`` (#26024/#26027): entries are appended one
ledger at a time, ``entriesInLedger(l) = N / L (+1 for the first N % L ledgers)``, entry ids
from 0, ``remaining = (i & 15) + 1``, ``stickyKeyHash = (int) (i * 31)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trackerlab.core.params import check_choice, check_int
from trackerlab.models.pending_acks.common import PendingAcksModel
from trackerlab.models.pending_acks.open_hash import OpenHashPendingAcks, PrimitiveMapPendingAcks
from trackerlab.models.pending_acks.packed import (
    PackedAvlPendingAcks,
    PackedSortedPendingAcks,
    PairValuesPendingAcks,
)
from trackerlab.models.pending_acks.pair_hash import PairHashPendingAcks
from trackerlab.models.pending_acks.treemap import TreeMapPendingAcks

LAYOUTS: dict[str, type[PendingAcksModel]] = {
    cls.name: cls
    for cls in (
        TreeMapPendingAcks,
        PackedSortedPendingAcks,
        PackedAvlPendingAcks,
        PairValuesPendingAcks,
        PrimitiveMapPendingAcks,
        OpenHashPendingAcks,
        PairHashPendingAcks,
    )
}


def check_layout(layout: object, name: str = "layout") -> str:
    """A known layout name, or a one-line UsageError listing them."""
    return check_choice(name, layout, LAYOUTS)


def new_pending_acks(layout: str, **kwargs) -> PendingAcksModel:
    """An empty model of ``layout`` (kwargs: ``add_handler``, ``remove_handler``...)."""
    return LAYOUTS[check_layout(layout)](**kwargs)


def build(layout: str, ledger_ids, entry_ids, remaining, hashes) -> PendingAcksModel:
    """The model ``addPendingAckIfAllowed`` over the arrays, in order, gives (bulk path)."""
    return LAYOUTS[check_layout(layout)].from_arrays(ledger_ids, entry_ids, remaining, hashes)


@dataclass(frozen=True)
class Dataset:
    """``entries`` pending acks appended over ``ledgers`` ledgers, ids from ``first_ledger``."""

    entries: int
    ledgers: int
    first_ledger: int = 0

    def __post_init__(self) -> None:
        check_int("entries", self.entries, 0)
        check_int("ledgers", self.ledgers, 1)
        check_int("first_ledger", self.first_ledger, 0)

    def entries_in_ledger(self, ledger_index: int) -> int:
        """Entries of the ``ledger_index``-th ledger (the first ones get the remainder). O(1)."""
        base, extra = divmod(self.entries, self.ledgers)
        return base + (1 if ledger_index < extra else 0)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(ledger ids, entry ids, remaining, sticky-key hashes)`` in append order.
        O(entries + ledgers), numpy."""
        counts = np.array([self.entries_in_ledger(i) for i in range(self.ledgers)])
        ledgers = np.repeat(np.arange(self.ledgers, dtype=np.int64) + self.first_ledger, counts)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        index = np.arange(self.entries, dtype=np.int64)
        return ledgers, index - starts, benchmark_remaining(index), benchmark_hash(index)

    def build(self, layout: str) -> PendingAcksModel:
        """The ``layout`` model holding these acks (its bulk path). O(n log n)."""
        return build(layout, *self.arrays())


def benchmark_remaining(index: np.ndarray) -> np.ndarray:
    """``PendingAcksMapBenchmark.remaining(i) = (int) (i & 15) + 1``."""
    return (np.asarray(index, dtype=np.int64) & 15) + 1


def benchmark_hash(index: np.ndarray) -> np.ndarray:
    """``PendingAcksMapBenchmark.stickyKeyHash(i) = (int) (i * 31)`` (a signed Java int)."""
    h = (np.asarray(index, dtype=np.int64) * 31) & 0xFFFF_FFFF
    return np.where(h >= 1 << 31, h - (1 << 32), h)
