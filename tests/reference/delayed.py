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
from dataclasses import dataclass


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

    def should_pause(self, lookahead: int, available: bool) -> bool:
        """``shouldPauseAllDeliveries()`` of the in-memory trackers
        (InMemoryDelayedDeliveryTracker.java:300 at v4.2.4, :175 at v4.0.8): a lookahead, all
        delays fixed so far, at least ``lookahead`` messages and nothing available."""
        return lookahead > 0 and self.fixed_delay and len(self) >= lookahead and not available

    def _reset_when_empty(self) -> None:
        if not self.heap:
            self.fixed_delay, self.highest_tracked = True, 0

    def __len__(self) -> int:
        return len(self.heap)


@dataclass(frozen=True)
class DeliveryWindow:
    """When a tracker hands a message out, relative to its ``deliverAt`` ``t``: it is keyed
    under ``key(t)`` and is available once ``key(t) <= bucket_cutoff(now)``. So it may go out
    at most ``early_ms`` before ``t`` and, when ``getScheduledMessages`` is not limited by
    ``n``, it is left behind at most ``late_ms`` after ``t``. ``getCutoffTime()`` is
    ``now`` when strict, else ``now + tick`` (AbstractDelayedDeliveryTracker.java:86 at
    v4.2.4, :81 at v4.0.8)."""

    tick_ms: int
    strict: bool
    mask: int  # key(t) = t & ~mask, rounded up first when ``round_up``
    round_up: bool
    cutoff_back_ms: int  # bucket_cutoff(now) = getCutoffTime() - cutoff_back_ms
    early_ms: int
    late_ms: int

    def cutoff(self, now_ms: int) -> int:
        return now_ms if self.strict else now_ms + self.tick_ms

    def key(self, deliver_at: int) -> int:
        return (deliver_at + self.mask if self.round_up else deliver_at) & ~self.mask

    def available(self, deliver_at: int, now_ms: int) -> bool:
        return self.key(deliver_at) <= self.cutoff(now_ms) - self.cutoff_back_ms

    @classmethod
    def exact(cls, tick_ms: int, strict: bool) -> DeliveryWindow:
        """``deliverAt`` kept exactly, available once ``deliverAt <= getCutoffTime()``: the
        triple heap (InMemoryDelayedDeliveryTracker.java:83, :108, :122 at v4.0.8) and PIP-195
        (MutableBucket.java:230, BucketDelayedDeliveryTracker.java:411, :583, :646 at v4.2.4).
        Early by up to the tick when not strict, never late."""
        return cls(tick_ms, strict, 0, False, 0, 0 if strict else tick_ms, 0)

    @classmethod
    def trimmed(cls, tick_ms: int, strict: bool, bits: int) -> DeliveryWindow:
        """Variant a of #23611 (the design lab's proposals, models/proposals/base.py): key
        ``trimLowerBit(t, bits)`` due at the cutoff, so up to ``tick + 2^bits - 1`` ms early
        (``2^bits - 1`` strict), never late."""
        mask = (1 << bits) - 1
        return cls(tick_ms, strict, mask, False, 0, (0 if strict else tick_ms) + mask, 0)

    @classmethod
    def whole_tick(cls, tick_ms: int, strict: bool, bits: int) -> DeliveryWindow:
        """``sorted-chunks`` (SortedChunksTracker.java, docs/design/sorted-chunks.md): key
        ``trimLowerBit(t, bits)``, due once the tick's last ms ``key + 2^bits - 1`` is within
        ``getCutoffTime()``. Not strict: :meth:`rounded`'s window (at most a tick early, never
        late); strict: never early, up to ``2^bits - 1`` ms late."""
        mask = (1 << bits) - 1
        if strict:
            return cls(tick_ms, True, mask, False, mask, 0, mask)
        return cls(tick_ms, False, mask, False, mask, tick_ms, 0)

    @classmethod
    def rounded(cls, tick_ms: int, strict: bool) -> DeliveryWindow:
        """InMemoryDelayedDeliveryTracker at v4.2.4 (#23611 with its later fix): precision
        ``p = 2^floor(log2 tick)``; not strict, the key is ``trimLowerBit(t)`` and a bucket is
        due once its last millisecond is within the cutoff (``getBucketCutoffTime() =
        getCutoffTime() - p + 1``, :172-173): at most a tick early, never late; strict, the
        key is ``t`` rounded up to ``p`` (:163-169) and due at ``now``: never early, up to
        ``p - 1`` ms late."""
        p = 1 << (max(tick_ms, 1).bit_length() - 1)
        if strict:
            return cls(tick_ms, True, p - 1, True, 0, 0, p - 1)
        return cls(tick_ms, False, p - 1, False, p - 1, tick_ms, 0)


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
