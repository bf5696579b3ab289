"""Delay-level topics, the design proposed in apache/pulsar issue #15500 (never implemented).

Seed ``003_92bcb584a56c7811.txt``: the producer sends a message whose delay is at least one
*unit* to an internal partitioned "delay level topic"; partition ``i`` holds delays in
``[i + 1, i + 2)`` units ("partition-0 stores delayed messages with time >= 1 day and < 2
days"); delays under one unit go to the real topic, whose in-memory index ("time wheel") then
only ever holds the current level. A synchronisation task moves the messages that are about
to expire back to the real topic ("a complete consumption and production process").

The proposal's client class (``DelayLevelTopicPartitionStrategy``)::

    private long messageMaximumDelayTimeSeconds = 60 * 60 * 24 * 30;
    private PartitionBy partitionBy = PartitionBy.DAY;   // YEAR, MONTH, DAY, HOUR

What the seed leaves open, and how this model fills it:

- *how many partitions*: ``ceil(max / unit) - 1`` (a year by DAY gives the seed's 364);
  delays of ``max`` and beyond go to the last partition. Months are 30 days, years 365.
- *when a message moves*: partition ``i`` is read in publish order and each message is
  re-published ``(i + 1)`` units after it was published, with its original ``deliverAt``;
  its remaining delay is then below one unit, so the real topic's index only holds messages
  due within one unit. Every level partition is a FIFO queue with a fixed lag: a cursor, no
  index.
- *the real topic's index*: the in-memory ``TripleLongPriorityQueue`` tracker
  (:class:`~trackerlab.models.delayed.heap.InMemoryDelayedDeliveryTracker`).

Bad input: a maximum delay of 0 or less, an unknown ``PartitionBy``, and more than
:data:`MAX_PARTITIONS` partitions (the seed's question 3: "an unreasonable policy ... may lead
to too many partitions") are :class:`~trackerlab.core.errors.UsageError`.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from trackerlab.core.errors import UsageError
from trackerlab.core.params import check_choice, check_positive
from trackerlab.models.delayed.heap import InMemoryDelayedDeliveryTracker

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
#: ``PartitionBy`` units in ms (a month is 30 days, a year 365).
PARTITION_UNITS_MS = {"HOUR": HOUR_MS, "DAY": DAY_MS, "MONTH": 30 * DAY_MS, "YEAR": 365 * DAY_MS}
#: The most level partitions this toolkit accepts for one topic.
MAX_PARTITIONS = 10_000
#: ``messageMaximumDelayTimeSeconds`` default: 30 days.
DEFAULT_MAX_DELAY_S = 60 * 60 * 24 * 30


@dataclass(frozen=True)
class DelayLevelTopicPartitionStrategy:
    """The seed's strategy: a maximum delay and a partition unit. Validated on creation."""

    message_maximum_delay_time_seconds: float = DEFAULT_MAX_DELAY_S
    partition_by: str = "DAY"

    def __post_init__(self) -> None:
        check_positive(
            "--max-delay (in s)",
            self.message_maximum_delay_time_seconds,
        )
        unit = str(self.partition_by).strip().upper()
        check_choice("--partition-by", unit, tuple(PARTITION_UNITS_MS))
        object.__setattr__(self, "partition_by", unit)
        if self.partitions > MAX_PARTITIONS:
            raise UsageError(
                f"delay level topic: {self.partitions:,} level partitions "
                f"(maximum delay {self.message_maximum_delay_time_seconds:g} s by {unit}); "
                f"at most {MAX_PARTITIONS:,} are allowed: use a coarser --partition-by or a "
                "smaller --max-delay"
            )

    @property
    def unit_ms(self) -> int:
        """The ``PartitionBy`` unit in ms. O(1)."""
        return PARTITION_UNITS_MS[self.partition_by]

    @property
    def max_delay_ms(self) -> float:
        """``messageMaximumDelayTimeSeconds`` in ms. O(1)."""
        return self.message_maximum_delay_time_seconds * 1000.0

    @property
    def partitions(self) -> int:
        """``ceil(max / unit) - 1`` level partitions (0: everything goes to the real topic).
        O(1)."""
        return max(0, math.ceil(self.max_delay_ms / self.unit_ms - 1e-12) - 1)

    def partition_of(self, delay_ms: np.ndarray) -> np.ndarray:
        """The level partition of each delay, or -1 for the real topic (delay < one unit).
        O(n), numpy."""
        level = np.floor_divide(np.asarray(delay_ms, dtype=np.int64), self.unit_ms) - 1
        if self.partitions == 0:
            return np.full(level.shape, -1, dtype=np.int64)
        return np.where(level < 0, -1, np.minimum(level, self.partitions - 1))

    def lag_ms(self, partition: np.ndarray | int) -> np.ndarray | int:
        """How long after publication a message of ``partition`` is re-published. O(1) per
        partition."""
        return (np.asarray(partition) + 1) * self.unit_ms


@dataclass
class LevelStats:
    published: int = 0
    direct: int = 0
    to_levels: int = 0
    republished: int = 0
    beyond_max: int = 0
    dispatched_on_arrival: int = 0  # due when written to the real topic: never indexed


class DelayLevelTopics:
    """One real topic with its level partitions and one subscription's in-memory index.

    ``publish`` routes new entries, ``move`` re-publishes what is due to move, ``deliver``
    hands out due messages. The real topic's positions are assigned in write order (direct
    publications and re-publications interleave) with ``entries_per_ledger`` rollover.
    O(log n) per indexed message.
    """

    def __init__(
        self,
        strategy: DelayLevelTopicPartitionStrategy,
        tick_ms: int = 1000,
        entries_per_ledger: int = 50_000,
        start_ledger: int = 10_000,
    ) -> None:
        self.strategy = strategy
        self.tracker = InMemoryDelayedDeliveryTracker(tick_ms, fixed_delay_lookahead=0)
        self.entries_per_ledger = entries_per_ledger
        self.start_ledger = start_ledger
        self.written = 0  # entries written to the real topic
        self.levels: list[deque[tuple[int, int]]] = [deque() for _ in range(strategy.partitions)]
        self.stats = LevelStats()

    def _append(self) -> tuple[int, int]:
        i = self.written
        self.written += 1
        return self.start_ledger + i // self.entries_per_ledger, i % self.entries_per_ledger

    def _index(self, deliver_at: int, now_ms: int) -> None:
        """Write to the real topic; the index refuses what is due already (dispatched)."""
        ledger, entry = self._append()
        if not self.tracker.add_message(ledger, entry, deliver_at, now_ms):
            self.stats.dispatched_on_arrival += 1

    def publish(self, publish_ms: np.ndarray, delay_ms: np.ndarray) -> None:
        """The producer sends entries (in publish order) with these delays. O(n log n): one
        ``addMessage`` per direct entry."""
        partitions = self.strategy.partition_of(delay_ms)
        self.stats.published += len(publish_ms)
        self.stats.beyond_max += int((np.asarray(delay_ms) >= self.strategy.max_delay_ms).sum())
        for t, d, p in zip(
            publish_ms.tolist(), delay_ms.tolist(), partitions.tolist(), strict=True
        ):
            if p < 0:
                self.stats.direct += 1
                self._index(t + d, t)
            else:
                self.stats.to_levels += 1
                self.levels[p].append((t, t + d))

    def move(self, now_ms: int) -> int:
        """The synchronisation task: re-publish every level message whose lag has passed.
        O(partitions + m log n) for m moved."""
        moved = 0
        for p, queue in enumerate(self.levels):
            lag = int(self.strategy.lag_ms(p))
            while queue and queue[0][0] + lag <= now_ms:
                _, deliver_at = queue.popleft()
                self._index(deliver_at, now_ms)
                moved += 1
        self.stats.republished += moved
        return moved

    def deliver(self, now_ms: int) -> list[tuple[int, int]]:
        """The real topic's ``getScheduledMessages``, unbounded. O(k log n) for k due."""
        return self.tracker.get_scheduled_messages(1 << 62, now_ms)

    def level_backlog(self) -> int:
        """Entries waiting in level partitions. O(partitions)."""
        return sum(len(q) for q in self.levels)

    def memory_bytes(self) -> int:
        """The real topic's index: ``bytesCapacity()`` of its queue. O(1)."""
        return self.tracker.buffer_memory_usage()
