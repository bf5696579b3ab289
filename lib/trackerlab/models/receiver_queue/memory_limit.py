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
#: client_impl.go:36 @ 20291f5c; Java's ``memoryLimit`` is 64 MB since PIP-120, #13306:
#: ``memoryLimitBytes = 64 * 1024 * 1024``, pulsar-client/.../conf/ClientConfigurationData.java:367
#: @ apache/pulsar 534a635d, v4.2.4).
DEFAULT_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024
MIB = 1024 * 1024


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


def memory_verdict(peak_bytes: int, limit_bytes: int | None) -> list[str]:
    """The verdict on a run: the client's peak of prefetched bytes against its ``memoryLimit``.

    Returns one line with the peak in MiB and its share of the limit. A WARNING line follows
    when the peak is above the limit. Consumers reserve memory for each message they receive
    without waiting (Java ``ConsumerBase.java:985`` @ 534a635d, ``forceReserveMemory``; Go
    ``ForceReserveMemory``), so a limit never stops prefetching: it only triggers the shrinking
    of auto-scaled queues. Producers on the same client then block, or fail when
    ``blockIfQueueFull`` is false (``ProducerImpl.canEnqueueRequest``,
    ``ProducerImpl.java:1101-1121``). With ``limit_bytes`` None the run set no limit, and the share is of
    :data:`DEFAULT_MEMORY_LIMIT_BYTES`, the default of the Go (#991) and Java clients. O(1)."""
    limit = DEFAULT_MEMORY_LIMIT_BYTES if limit_bytes is None else limit_bytes
    whose = " (the Go #991 and Java default; this run set none)" if limit_bytes is None else ""
    lines = [
        f"verdict: peak {peak_bytes / MIB:.2f} MiB prefetched by the client = "
        f"{100 * peak_bytes / limit:.1f}% of memoryLimit {limit / MIB:.4g} MiB{whose}"
    ]
    if peak_bytes > limit:
        lines.append(
            f"WARNING: the peak passes memoryLimit by {(peak_bytes - limit) / MIB:.2f} MiB: "
            "consumers reserve memory for every message they receive without waiting "
            "(forceReserveMemory), so the client holds more than its limit; producers on the "
            "same client then wait, or fail with MemoryBufferIsFullError"
        )
    return lines
