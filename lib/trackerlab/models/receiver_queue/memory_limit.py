"""The client memory limit that drives receiver-queue shrinking (PIP-74).

Go: ``pulsar/internal/memory_limit_controller.go`` (PR #991): ``ForceReserveMemory`` adds
the bytes and runs every registered trigger when usage crosses the threshold upward
(``prev < 0.95 <= next``, ``defaultMemoryLimitTriggerThreshold``); ``CurrentUsagePercent`` =
usage / limit. Java: ``MemoryLimitController(memoryLimitBytes, (long)(limit * 0.95),
trigger)`` with the same upward-crossing test in bytes. Both run triggers asynchronously
(goroutine / executor); the model runs them at once. O(number of triggers) per crossing.
"""

from __future__ import annotations

import math
from collections.abc import Callable

#: Usage fraction at which triggers (queue shrinking) run (Go ``defaultMemoryLimitTriggerThreshold``,
#: client_impl.go:37 @ 20291f5c; Java ``PulsarClientImpl.THRESHOLD_FOR_CONSUMER_RECEIVER_QUEUE_SIZE_SHRINKING``).
SHRINK_TRIGGER_THRESHOLD = 0.95
#: Default client memory limit of the Go client (``defaultMemoryLimitBytes``, 64 MiB,
#: client_impl.go:36 @ 20291f5c; Java's ``memoryLimit`` is 64 MB since PIP-120, #13306).
DEFAULT_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024


class MemoryLimitController:
    """Bytes reserved by queued messages against ``limit_bytes`` (None: no limit)."""

    __slots__ = ("limit", "trigger_bytes", "triggers", "usage")

    def __init__(self, limit_bytes: int | None, *, java_rounding: bool = False):
        self.limit = limit_bytes
        self.usage = 0
        self.triggers: list[Callable[[int], None]] = []
        if limit_bytes is None:
            self.trigger_bytes = math.inf
        elif java_rounding:  # Java: (long) (memoryLimitBytes * 0.95)
            self.trigger_bytes = int(limit_bytes * SHRINK_TRIGGER_THRESHOLD)
        else:  # Go: next / limit >= 0.95
            self.trigger_bytes = math.ceil(limit_bytes * SHRINK_TRIGGER_THRESHOLD)

    def usage_percent(self) -> float:
        """``CurrentUsagePercent``; 0 without a limit (Java's ``orElse(0d)``). O(1)."""
        return self.usage / self.limit if self.limit else 0.0

    def force_reserve(self, n_bytes: int, now: int) -> None:
        """Add ``n_bytes``; run the triggers if usage crossed the threshold upward.
        O(1), O(triggers) on a crossing.
        """
        prev = self.usage
        self.usage = prev + n_bytes
        if prev < self.trigger_bytes <= self.usage:
            for trigger in self.triggers:
                trigger(now)

    def release(self, n_bytes: int) -> None:
        """Give back ``n_bytes`` (``ReleaseMemory``). O(1)."""
        self.usage -= n_bytes
