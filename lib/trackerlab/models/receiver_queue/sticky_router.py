"""Go's default message router with batching on: sticky to one partition per batch.

``pulsar/default_router.go`` @ b8563cd8, parameterised from the producer options after
the zero-to-default substitution (``producer_impl.go:113-122``): 1000 messages, 128 KiB,
10 ms, batching enabled. For a message without key or ordering key (perf-producer.go:126
sends only a payload) and more than one partition (``:52-55`` returns 0 for one):

- ``:45-48`` the cursor starts at ``rand.Uint32()`` and ``lastBatchTimestamp`` at the
  router's creation (``time.Now()``);
- ``:50`` the clock is read only every ``maxBatchingMessages / 10`` = 100th message;
- ``:80-92`` per message: ``messageCount += 1``, ``batchSize += len(payload)``; the switch
  conditions are ``messageCount > maxMessages``, ``batchSize > maxBytes`` and, on a clock
  read, ``now - lastBatchTimestamp > maxDelay`` (all strict);
- ``:93-106`` on a switch: cursor + 1, counters reset to 0, ``lastBatchTimestamp = now``,
  and the triggering message already goes to the new partition (uncounted there).

:class:`StickyRouter` gives the run of messages that stay on the current partition before
the next message that must be decided individually (:meth:`plain_run`), and decides that
message (:meth:`decide`). With batching disabled (``:68-72``) every message is decided:
plain round-robin from the same random cursor. O(1) per call.
"""

from __future__ import annotations

#: ``readClockAfterNumMessages = maxBatchingMessages / 10`` (default_router.go:50).
CLOCK_EVERY_DIVISOR = 10


class StickyRouter:
    """State of ``NewDefaultRouter`` for ``partitions`` > 1 (times in ns)."""

    __slots__ = (
        "clock_every",
        "count",
        "cursor",
        "last_switch_ns",
        "max_bytes",
        "max_delay_ns",
        "max_messages",
        "partitions",
        "payload",
        "round_robin",
        "size",
        "switches",
    )

    def __init__(
        self,
        partitions: int,
        start_cursor: int,
        created_ns: float,
        payload_bytes: int,
        max_messages: int,
        max_bytes: int,
        max_delay_ns: float,
        *,
        batching: bool = True,
    ):
        self.partitions = partitions
        self.round_robin = not batching
        self.cursor = start_cursor
        self.last_switch_ns = created_ns
        self.payload = payload_bytes
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self.max_delay_ns = max_delay_ns
        self.clock_every = max_messages // CLOCK_EVERY_DIVISOR
        self.count = 0  #: ``msgCounter``
        self.size = 0  #: ``cumulativeBatchSize``
        self.switches = 0

    @property
    def partition(self) -> int:
        """The partition the cursor points at. O(1)."""
        return self.cursor % self.partitions

    def plain_run(self) -> int:
        """Messages that certainly stay on :attr:`partition` before the next decision.

        A decision is due at the first count that is a multiple of the clock interval
        (clock read), exceeds ``max_messages``, or whose cumulative bytes exceed
        ``max_bytes``.
        O(1).
        """
        if self.partitions == 1:
            return 1 << 62
        if self.round_robin:
            return 0
        nxt = self.count + 1
        every = self.clock_every
        decision = self.max_messages + 1
        if every > 0:
            decision = min(decision, -(-nxt // every) * every)
        if self.payload > 0:
            decision = min(decision, self.max_bytes // self.payload + 1)
        return max(0, decision - nxt)

    def advance(self, count: int) -> None:
        """``count`` plain messages were routed to the current partition. O(1)."""
        if self.partitions > 1:
            self.count += count
            self.size += count * self.payload

    def decide(self, now_ns: float) -> int:
        """Route one message at ``now_ns`` (the decision message); return its partition. O(1)."""
        if self.partitions == 1:
            return 0
        if self.round_robin:  # default_router.go:68-72
            self.cursor += 1
            return (self.cursor - 1) % self.partitions
        self.count += 1
        self.size += self.payload
        clock_read = self.clock_every == 0 or self.count % self.clock_every == 0
        switch = (
            self.count > self.max_messages
            or self.size > self.max_bytes
            or (clock_read and now_ns - self.last_switch_ns > self.max_delay_ns)
        )
        if switch:
            self.cursor += 1
            self.count = 0
            self.size = 0
            self.last_switch_ns = now_ns
            self.switches += 1
        return self.partition
