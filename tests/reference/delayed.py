"""A naive delayed-delivery index: a ``heapq`` of ``(deliverAt, ledgerId, entryId)``.

It delivers every tracked message exactly at its time, in time order, and counts exactly:
the ideal that each delayed-delivery design approximates (``AbstractDelayedDeliveryTracker``
rules: a message due within the cutoff is not tracked). A position added twice is pushed
twice, as the heap tracker does; machines of the bucketed designs, which track a position
once, skip a position the index ``tracks`` already.
``pop_due`` and ``get_scheduled_messages`` are the heap tracker's ``getScheduledMessages``
exactly; the bucketed trackers, which may hand a message out a little early, are compared
through ``deliver_at`` and ``remove``. The fixed-delay detection
(``messagesHaveFixedDelay``, ``highestDeliveryTimeTracked``) is written out as in
``InMemoryDelayedDeliveryTracker``.
"""

from __future__ import annotations

import heapq


class NaiveDelayedIndex:
    """``add`` O(log n), ``pop_due`` O(k log n)."""

    def __init__(self, tick_ms: int, strict: bool = False) -> None:
        self.tick_ms, self.strict = tick_ms, strict
        self.heap: list[tuple[int, int, int]] = []
        self.fixed_delay = True  # messagesHaveFixedDelay
        self.highest_tracked = 0  # highestDeliveryTimeTracked

    def cutoff(self, now_ms: int) -> int:
        """``getCutoffTime()``."""
        return now_ms if self.strict else now_ms + self.tick_ms

    def tracks(self, ledger: int, entry: int) -> bool:
        return any((led, e) == (ledger, entry) for _, led, e in self.heap)

    def add(self, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        """True when tracked (``addMessage`` semantics)."""
        if deliver_at < 0 or deliver_at <= self.cutoff(now_ms):
            self.fixed_delay = False
            return False
        heapq.heappush(self.heap, (deliver_at, ledger, entry))
        if deliver_at < self.highest_tracked - self.tick_ms:
            self.fixed_delay = False
        self.highest_tracked = max(self.highest_tracked, deliver_at)
        return True

    def has_message_available(self, now_ms: int) -> bool:
        """``hasMessageAvailable()``: the earliest message is due."""
        return bool(self.heap) and self.heap[0][0] <= self.cutoff(now_ms)

    def pop_due(self, max_messages: int, now_ms: int) -> list[tuple[int, int, int]]:
        """Pop due ``(deliverAt, ledger, entry)`` in time order while ``max_messages`` is not
        used up (a position tracked twice uses it twice); an emptied index resets the
        fixed-delay detection (``getScheduledMessages``)."""
        popped = []
        while len(popped) < max_messages and self.has_message_available(now_ms):
            popped.append(heapq.heappop(self.heap))
        self._reset_when_empty()
        return popped

    def get_scheduled_messages(self, max_messages: int, now_ms: int) -> list[tuple[int, int]]:
        """``getScheduledMessages(max)``: the popped positions as a ``TreeSet`` (sorted,
        distinct)."""
        return sorted({(led, e) for _, led, e in self.pop_due(max_messages, now_ms)})

    def deliver_at(self) -> dict[tuple[int, int], int]:
        return {(led, e): t for t, led, e in self.heap}

    def remove(self, positions: list[tuple[int, int]]) -> None:
        """Drop the positions a bucketed tracker's ``getScheduledMessages`` handed out; an
        emptied index resets the fixed-delay detection, as that call does."""
        gone = set(positions)
        self.heap = [item for item in self.heap if (item[1], item[2]) not in gone]
        heapq.heapify(self.heap)
        self._reset_when_empty()

    def clear(self) -> None:
        """``clear()``: no messages; the fixed-delay detection is left as it was."""
        self.heap.clear()

    def _reset_when_empty(self) -> None:
        if not self.heap:
            self.fixed_delay, self.highest_tracked = True, 0

    def __len__(self) -> int:
        return len(self.heap)
