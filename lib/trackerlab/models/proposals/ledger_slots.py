"""Ledger slots: the 16-bit ledger handle every proposal packs next to a 16-bit entry id.

A proposal stores a position as the 32-bit value ``slot << 16 | entryId``; ``slot`` is the
ledger's ordinal among the topic's ledgers, modulo 2^16. One small table per tracker maps
ordinals back to ledger ids::

    long[] slotLedgers = new long[16];   // ring: ledger id of ordinal o at o & (length - 1)
    int[] slotLive = new int[16];        // tracked positions per ordinal
    int firstOrdinal, endOrdinal;        // the live window [first, end)

A ledger id seen for the first time gets the next ordinal, and the ledgers between the last
known one and it (the managed ledger's ledger list, ``ManagedLedgerImpl.getLedgersInfo()``)
get theirs, so the window holds every ledger of the topic from the oldest tracked one to the
newest; the ring doubles (from 16) while the window outgrows it and never shrinks; the head
moves past ledgers whose count falls to 0. Bounds, checked: entry ids below 2^16, fewer than
2^16 ledgers in the window (with Pulsar's ``managedLedgerMinLedgerRolloverTimeMinutes`` = 10,
2^16 ledgers span 455 days). Within a bucket, values sorted from the window's first slot
(rotated at 2^16) are sorted by (ledger, entry): the order ``getScheduledMessages`` needs.

The workload model's ledger ids are consecutive, so an ordinal is ``ledgerId - origin``
(``origin``: the first ledger the tracker sees) and the window of a tracker that only added
is ``max - min + 1`` of the ledger ids it tracks: :func:`slot_table_bytes` sizes it from the
reducer's ledger range.
"""

from __future__ import annotations

import numpy as np

from trackerlab.core.errors import UsageError
from trackerlab.models.time_buckets.lab_stats import ENTRY_BITS, SLOT_MASK
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

MIN_CAPACITY = 16
MAX_WINDOW = 1 << 16
MAX_ENTRY_ID = (1 << ENTRY_BITS) - 1


def slot_capacity(window: int) -> int:
    """Ring length for a live window of ``window`` ledgers: 16, doubled until it fits."""
    cap = MIN_CAPACITY
    while cap < window:
        cap *= 2
    return cap


def slot_table_bytes(window: int, layout: JvmLayout = COMPRESSED) -> int:
    """``long[cap]`` + ``int[cap]`` of the slot table (0 before the first ledger). O(log)."""
    if window <= 0:
        return 0
    cap = slot_capacity(window)
    return layout.array(cap, "J") + layout.array(cap, "I")


def check_bounds(window: int, entry_max: int) -> None:
    """A one-line UsageError when a workload's positions do not fit 32-bit packed values."""
    if entry_max > MAX_ENTRY_ID:
        raise UsageError(
            f"entries_per_ledger: the proposals pack entry ids below 2^16 (1..65536 entries "
            f"per ledger), got entry id {entry_max}"
        )
    if window > MAX_WINDOW:
        raise UsageError(
            f"messages: the proposals pack fewer than 2^16 live ledgers, got a window of {window}"
        )


class LedgerSlots:
    """The slot table of one tracker (Python model). ``slot`` is O(1) amortized."""

    def __init__(self) -> None:
        self.origin: int | None = None
        self.first = self.end = 0  # live window of ordinals [first, end)
        self.capacity = 0
        self.live: dict[int, int] = {}

    def slot(self, ledger: int) -> int:
        """The slot of ``ledger``, registering it (and the ledgers before it) if new. O(1)."""
        if self.origin is None:
            self.origin = ledger
            self.first, self.end = 0, 1
        ordinal = ledger - self.origin
        self.first = min(self.first, ordinal)
        self.end = max(self.end, ordinal + 1)
        if self.end - self.first > MAX_WINDOW:
            raise ValueError(
                f"packed positions need fewer than 2^16 live ledgers, got {self.end - self.first}"
            )  # a tracker fed past its bound: a programming error, not a user's
        self.capacity = max(self.capacity, slot_capacity(self.end - self.first))
        return ordinal & SLOT_MASK

    def hold(self, ledger: int, n: int = 1) -> None:
        """``n`` more positions of ``ledger`` (registered by :meth:`slot`) are tracked. O(1)."""
        ordinal = ledger - self.origin  # type: ignore[operator]  # origin is set by slot(), which every held ledger went through
        self.live[ordinal] = self.live.get(ordinal, 0) + n

    def slots_of(self, ledger: np.ndarray) -> np.ndarray:
        """:meth:`slot` of many ledgers at once (vectorized). O(n)."""
        if len(ledger) == 0:
            return np.zeros(0, dtype=np.int64)
        self.slot(int(ledger[0]))
        self.slot(int(ledger.min()))
        self.slot(int(ledger.max()))
        return (ledger - self.origin) & SLOT_MASK

    def hold_many(self, ledger: np.ndarray) -> None:
        """:meth:`hold` once per element of ``ledger``. O(n log n)."""
        ledgers, counts = np.unique(ledger, return_counts=True)
        for led, n in zip(ledgers.tolist(), counts.tolist(), strict=True):
            self.hold(led, n)

    def release(self, ledger: int, n: int = 1) -> None:
        """``n`` positions of ``ledger`` left the tracker; the head moves past empty ledgers.
        O(1) amortized (the head only moves forward)."""
        ordinal = ledger - self.origin  # type: ignore[operator]  # origin is set by slot(), which every held ledger went through
        left = self.live[ordinal] - n
        if left:
            self.live[ordinal] = left
        else:
            del self.live[ordinal]
        while self.first < self.end and self.first not in self.live:
            self.first += 1
        if self.first == self.end:  # nothing tracked: the window starts afresh
            self.origin, self.first, self.end = None, 0, 0

    def ledger(self, slot: int) -> int:
        """The ledger id of a slot of the live window. O(1)."""
        ordinal = self.first + ((slot - self.first) & SLOT_MASK)
        return ordinal + self.origin  # type: ignore[operator]  # origin is set by slot(), which every held ledger went through

    def ledger_array(self, slots: np.ndarray) -> np.ndarray:
        """:meth:`ledger` of many slots (vectorized). O(slots) numpy."""
        return self.first + ((slots - self.first) & SLOT_MASK) + self.origin  # type: ignore[operator]  # origin is set by slot() before any slot exists

    def order(self, slot: int) -> int:
        """Sort key of a slot of the live window: its ordinal (Java compares the distances
        from the window's first slot, rotated at 2^16, which orders slots the same way). O(1)."""
        return self.first + ((slot - self.first) & SLOT_MASK)

    def clear(self) -> None:
        """Forget every ledger; the arrays stay allocated. O(live ledgers)."""
        self.origin, self.first, self.end = None, 0, 0
        self.live.clear()

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """The ``long[]`` of ledger ids and the ``int[]`` of counts, at capacity. O(1)."""
        if self.capacity == 0:
            return 0
        return layout.array(self.capacity, "J") + layout.array(self.capacity, "I")
