"""Broker ``InMemoryDelayedDeliveryTracker``, version 1: a ``TripleLongPriorityQueue``.

Follows ``apache/pulsar`` ``pulsar-broker/src/main/java/org/apache/pulsar/broker/delayed/
InMemoryDelayedDeliveryTracker.java`` as in 2.x–4.0.x (before the time-bucketed rewrite
#23611; the timing rules moved to ``AbstractDelayedDeliveryTracker`` unchanged), spec
``pulsar-structures.md`` §3.1–§3.4:

- ``getCutoffTime() = strict ? now : now + tickTimeMillis`` (``delayedDeliveryTickTimeMillis``
  1000, ``isDelayedDeliveryDeliverAtTimeStrict`` false);
- ``addMessage`` returns false (deliver now) when ``deliverAt < 0 || deliverAt <= cutoff``,
  else pushes ``(deliverAt, ledgerId, entryId)``;
- ``hasMessageAvailable = !empty && peekN1() <= cutoff``; ``getScheduledMessages(max)`` pops
  while ``max`` is not used up and the head is due, and returns a ``TreeSet<Position>``
  (ascending, duplicates merged);
- ``getNumberOfDelayedMessages = size()``, ``getBufferMemoryUsage = bytesCapacity()``;
- fixed-delay detection: ``messagesHaveFixedDelay`` turns false when an add is rejected or
  ``deliverAt < highestDeliveryTimeTracked - tickTimeMillis``, back to true when the tracker
  empties; ``shouldPauseAllDeliveries = lookahead > 0 && fixed && size >= lookahead &&
  !hasMessageAvailable()`` (``delayedDeliveryFixedDelayDetectionLookahead`` 50,000);
- ``updateTimer``: cancel when empty; keep when the head time is the current target; do
  nothing when the head is already due (backlogged consumer); else fire after
  ``max(head - now, lastTickRun + tick - now)`` ms. A timer run only records ``lastTickRun``
  and asks the dispatcher to read more.

The clock is explicit (every call takes ``now_ms``). Non-strict mode hands a message out up to
one tick before its ``deliverAt``, strict mode never early.
"""

from __future__ import annotations

import numpy as np

from trackerlab.models.primitives.triple_heap import TripleLongPriorityQueue
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

DEFAULT_TICK_MS = 1000
DEFAULT_FIXED_DELAY_LOOKAHEAD = 50_000

Position = tuple[int, int]


class InMemoryDelayedDeliveryTracker:
    """Per-subscription delayed-message index. ``add`` and each popped message O(log n)."""

    def __init__(
        self,
        tick_time_ms: int = DEFAULT_TICK_MS,
        strict: bool = False,
        fixed_delay_lookahead: int = DEFAULT_FIXED_DELAY_LOOKAHEAD,
        queue_version: str = "v2",
    ) -> None:
        if tick_time_ms < 0:
            raise ValueError(f"tick_time_ms must be >= 0, got {tick_time_ms}")
        self.tick_time_ms = tick_time_ms
        self.strict = strict
        self.fixed_delay_lookahead = fixed_delay_lookahead
        self.queue = TripleLongPriorityQueue(version=queue_version)
        self.highest_delivery_time_tracked = 0
        self.messages_have_fixed_delay = True
        self.current_timeout_target = -1
        self.timer_deadline_ms: int | None = None
        self.last_tick_run = 0

    def cutoff_time(self, now_ms: int) -> int:
        """``getCutoffTime()``. O(1)."""
        return now_ms if self.strict else now_ms + self.tick_time_ms

    def add_message(self, ledger_id: int, entry_id: int, deliver_at: int, now_ms: int) -> bool:
        """``addMessage``: False if the message is due already (dispatch it now). O(log n)."""
        if deliver_at < 0 or deliver_at <= self.cutoff_time(now_ms):
            self.messages_have_fixed_delay = False
            return False
        self.queue.add(deliver_at, ledger_id, entry_id)
        self._update_timer(now_ms)
        if deliver_at < self.highest_delivery_time_tracked - self.tick_time_ms:
            self.messages_have_fixed_delay = False
        self.highest_delivery_time_tracked = max(self.highest_delivery_time_tracked, deliver_at)
        return True

    def has_message_available(self, now_ms: int) -> bool:
        """``hasMessageAvailable`` (updates the timer when nothing is due). O(1)."""
        available = not self.queue.is_empty() and self.queue.peek_n1() <= self.cutoff_time(now_ms)
        if not available:
            self._update_timer(now_ms)
        return available

    def get_scheduled_messages(self, max_messages: int, now_ms: int) -> list[Position]:
        """``getScheduledMessages(max)``: due positions, ascending and distinct. O(k log n) for
        k popped."""
        n = max_messages
        positions: set[Position] = set()
        cutoff = self.cutoff_time(now_ms)
        queue = self.queue
        while n > 0 and not queue.is_empty():
            if queue.peek_n1() > cutoff:
                break
            _, ledger_id, entry_id = queue.pop()
            positions.add((ledger_id, entry_id))
            n -= 1
        if queue.is_empty():
            self.highest_delivery_time_tracked = 0
            self.messages_have_fixed_delay = True
        self._update_timer(now_ms)
        return sorted(positions)

    def number_of_delayed_messages(self) -> int:
        """``getNumberOfDelayedMessages()``: the queue's size. O(1)."""
        return self.queue.size()

    def buffer_memory_usage(self) -> int:
        """``getBufferMemoryUsage() = priorityQueue.bytesCapacity()``. O(1)."""
        return self.queue.bytes_capacity()

    def should_pause_all_deliveries(self, now_ms: int) -> bool:
        """``shouldPauseAllDeliveries()``. O(1)."""
        return (
            self.fixed_delay_lookahead > 0
            and self.messages_have_fixed_delay
            and self.queue.size() >= self.fixed_delay_lookahead
            and not self.has_message_available(now_ms)
        )

    def clear(self) -> None:
        """``clear()``: empties the queue (one shrink step); the timer stays as it was. O(1),
        plus the copy of a shrink."""
        self.queue.clear()

    # ---------------------------------------------------------------- timer

    def _update_timer(self, now_ms: int) -> None:
        if self.queue.is_empty():
            if self.timer_deadline_ms is not None:
                self.current_timeout_target = -1
                self.timer_deadline_ms = None
            return
        timestamp = self.queue.peek_n1()
        if timestamp == self.current_timeout_target:
            return
        self.timer_deadline_ms = None  # cancel
        delay = timestamp - now_ms
        if delay < 0:
            return
        remaining_tick = self.last_tick_run + self.tick_time_ms - now_ms
        self.current_timeout_target = timestamp
        self.timer_deadline_ms = now_ms + max(delay, remaining_tick)

    def run_timer(self, now_ms: int) -> None:
        """``run(Timeout)``: the timer fired, ``lastTickRun = now``; the dispatcher then reads
        more entries. O(1)."""
        self.last_tick_run = now_ms
        self.current_timeout_target = -1
        self.timer_deadline_ms = None

    # ---------------------------------------------------------------- bulk path and sizes

    @classmethod
    def from_arrays(
        cls,
        ledger_id: np.ndarray,
        entry_id: np.ndarray,
        deliver_at: np.ndarray,
        now_ms: int | np.ndarray,
        **config: object,
    ) -> InMemoryDelayedDeliveryTracker:
        """The tracker after ``add_message`` of every message at ``now_ms`` (one time, or one
        non-decreasing time per message): the same rejections, fixed-delay flag and queue
        (bulk heap build); the timer as updated at the last time (per-message adds at
        different times may have scheduled it earlier). Bulk path, no Java method:
        O(n log n)."""
        tracker = cls(**config)  # type: ignore[arg-type]  # config is dict[str, object] of the tracker's constructor options
        ledger = np.asarray(ledger_id, dtype=np.int64)
        entry = np.asarray(entry_id, dtype=np.int64)
        at = np.asarray(deliver_at, dtype=np.int64)
        now = np.asarray(now_ms, dtype=np.int64)
        accepted = (at >= 0) & (at > (now if tracker.strict else now + tracker.tick_time_ms))
        kept = at[accepted]
        if len(kept):
            highest_before = np.maximum.accumulate(np.concatenate(([0], kept[:-1])))
            out_of_order = bool((kept < highest_before - tracker.tick_time_ms).any())
            tracker.highest_delivery_time_tracked = int(max(0, kept.max()))
        else:
            out_of_order = False
        tracker.messages_have_fixed_delay = not (out_of_order or not accepted.all())
        tracker.queue = TripleLongPriorityQueue.build(
            kept, ledger[accepted], entry[accepted], version=tracker.queue.version
        )
        if len(at):
            tracker._update_timer(int(now.max()))
        return tracker

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """Heap bytes of the queue's objects (the tracker object itself is not counted).
        O(segments)."""
        return self.queue.jvm_bytes(layout)

    def jvm_direct_bytes(self) -> int:
        """Off-heap bytes (ByteBuf queue versions): ``bytesCapacity()``. O(1)."""
        return self.queue.jvm_direct_bytes()
