"""A naive delayed-delivery index: a ``heapq`` of ``(deliverAt, ledgerId, entryId)``.

It delivers every tracked message exactly at its time, in time order, and counts exactly:
the ideal that each delayed-delivery design approximates (``AbstractDelayedDeliveryTracker``
rules: a message due within the cutoff is not tracked, one position is tracked once).
"""

from __future__ import annotations

import heapq


class NaiveDelayedIndex:
    """``add`` O(log n), ``pop_due`` O(k log n)."""

    def __init__(self, tick_ms: int, strict: bool = False) -> None:
        self.tick_ms, self.strict = tick_ms, strict
        self.heap: list[tuple[int, int, int]] = []

    def cutoff(self, now_ms: int) -> int:
        return now_ms if self.strict else now_ms + self.tick_ms

    def tracks(self, ledger: int, entry: int) -> bool:
        return any((led, e) == (ledger, entry) for _, led, e in self.heap)

    def add(self, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        """True when tracked (``addMessage`` semantics)."""
        if deliver_at < 0 or deliver_at <= self.cutoff(now_ms):
            return False
        heapq.heappush(self.heap, (deliver_at, ledger, entry))
        return True

    def deliver_at(self) -> dict[tuple[int, int], int]:
        return {(led, e): t for t, led, e in self.heap}

    def remove(self, positions: list[tuple[int, int]]) -> None:
        gone = set(positions)
        self.heap = [item for item in self.heap if (item[1], item[2]) not in gone]
        heapq.heapify(self.heap)

    def __len__(self) -> int:
        return len(self.heap)


class NaiveTopicDelayedIndex:
    """PIP-448's shared index, naively: a set of ``(bucket, ledger, entry)`` and one mark-delete
    position per subscription. A subscription sees the due entries past its mark-delete position
    in (bucket, ledger, entry) order; pruning drops what every subscription has passed."""

    def __init__(self, tick_ms: int, bits: int, strict: bool = False) -> None:
        self.tick_ms, self.bits, self.strict = tick_ms, bits, strict
        self.items: set[tuple[int, int, int]] = set()
        self.marks: dict[str, tuple[int, int] | None] = {}

    def cutoff(self, now_ms: int) -> int:
        return now_ms if self.strict else now_ms + self.tick_ms

    def tracks(self, ledger: int, entry: int) -> bool:
        return any((led, e) == (ledger, entry) for _, led, e in self.items)

    def add(self, sub: str, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        self.marks.setdefault(sub, None)
        if deliver_at < 0 or deliver_at <= self.cutoff(now_ms):
            return False
        self.items.add((deliver_at >> self.bits << self.bits, ledger, entry))
        return True

    def scheduled(self, sub: str, n: int, now_ms: int) -> list[tuple[int, int]]:
        mark = self.marks.get(sub)
        due = sorted(i for i in self.items if i[0] <= self.cutoff(now_ms))
        visible = [(led, e) for _, led, e in due if mark is None or (led, e) > mark]
        return sorted(set(visible[:n]))

    def prune(self) -> None:
        marks = [m for m in self.marks.values() if m is not None]
        if marks:
            low = min(marks)
            self.items = {i for i in self.items if (i[1], i[2]) > low}

    def __len__(self) -> int:
        return len(self.items)
