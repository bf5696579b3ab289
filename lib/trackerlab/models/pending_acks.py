"""``PendingAcksMap`` layouts by name, the seed's datasets, and ``trackerlab size`` entries.

Layouts (spec pulsar-structures.md §4.1; each module names its Java version):

==================== ======================================================================
``treemap``          ``TreeMap<Long, TreeMap<Long, IntIntPair>>`` (#25413; seed 002's "old")
``packed-rb``        fastutil ``Long2ObjectRBTreeMap<Long2LongRBTreeMap>``, packed (#26030)
``packed-avl``       the same with a ``Long2LongAVLTreeMap`` inner map (#26522)
``open-hash``        ``TreeMap<Long, Long2LongOpenHashMap>`` (seed 002's "primitive map")
``open-hash-bitset`` ``TreeMap<Long, LedgerPendingAcks>`` + BitSet index (#26024 draft)
``pair-hash``        pre-4.0 ``Consumer.pendingAcks``: ``ConcurrentLongLongPairHashMap``
==================== ======================================================================

Datasets follow ``PendingAcksMapBenchmark`` (#26024/#26027): entries are appended one
ledger at a time, ``entriesInLedger(l) = N / L (+1 for the first N % L ledgers)``, entry ids
from 0, ``remaining = (i & 15) + 1``, ``stickyKeyHash = (int) (i * 31)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trackerlab.models.pending_acks_common import PendingAcksModel
from trackerlab.models.pending_acks_open_hash import OpenHashPendingAcks, PrimitiveMapPendingAcks
from trackerlab.models.pending_acks_packed import PackedAvlPendingAcks, PackedSortedPendingAcks
from trackerlab.models.pending_acks_pair_hash import PairHashPendingAcks
from trackerlab.models.pending_acks_treemap import TreeMapPendingAcks
from trackerlab.params import check_choice, check_int

LAYOUTS: dict[str, type[PendingAcksModel]] = {
    cls.name: cls
    for cls in (
        TreeMapPendingAcks,
        PackedSortedPendingAcks,
        PackedAvlPendingAcks,
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
        base, extra = divmod(self.entries, self.ledgers)
        return base + (1 if ledger_index < extra else 0)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(ledger ids, entry ids, remaining, sticky-key hashes)`` in append order."""
        counts = np.array([self.entries_in_ledger(i) for i in range(self.ledgers)])
        ledgers = np.repeat(np.arange(self.ledgers, dtype=np.int64) + self.first_ledger, counts)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        index = np.arange(self.entries, dtype=np.int64)
        return ledgers, index - starts, benchmark_remaining(index), benchmark_hash(index)

    def build(self, layout: str) -> PendingAcksModel:
        return build(layout, *self.arrays())


def benchmark_remaining(index: np.ndarray) -> np.ndarray:
    """``PendingAcksMapBenchmark.remaining(i) = (int) (i & 15) + 1``."""
    return (np.asarray(index, dtype=np.int64) & 15) + 1


def benchmark_hash(index: np.ndarray) -> np.ndarray:
    """``PendingAcksMapBenchmark.stickyKeyHash(i) = (int) (i * 31)`` (a signed Java int)."""
    h = (np.asarray(index, dtype=np.int64) * 31) & 0xFFFF_FFFF
    return np.where(h >= 1 << 31, h - (1 << 32), h)


# --------------------------------------------------------------------------- trackerlab size


def _register_sizes() -> None:
    from trackerlab.sizing.python import python_real_bytes
    from trackerlab.sizing.registry import SizeRequest, SizeResult, structure

    def builder(layout: str):
        def build_and_size(req: SizeRequest) -> SizeResult:
            dataset = Dataset(req.messages, req.ledgers, req.start_ledger)
            model = dataset.build(layout)
            return SizeResult(
                structure=f"pending-acks-{layout}",
                entries=len(model),
                python_bytes=python_real_bytes(model),
                jvm_bytes=model.jvm_bytes(req.jvm_layout),
                details={"java": model.java, "ledger buckets": model.ledger_count()},
            )

        return build_and_size

    for layout, cls in LAYOUTS.items():
        structure(
            f"pending-acks-{layout}",
            f"PendingAcksMap, {cls.java}: --messages entries over --ledgers ledgers",
            uses=("messages", "ledgers", "start_ledger", "layout"),
        )(builder(layout))


_register_sizes()
