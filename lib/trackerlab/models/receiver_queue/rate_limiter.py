"""Guava ``RateLimiter.create(rate)`` (``SmoothBursty``), the limiter ``pulsar-perf`` uses.

Source: Guava ``com.google.common.util.concurrent.SmoothRateLimiter.SmoothBursty``
(``reserveEarliestAvailable``, ``resync``). The limiter stores unused permits while idle, up
to ``maxBurstSeconds`` (1.0 for ``RateLimiter.create``) worth of rate, and makes the *next*
caller pay for the current one ("pay later"): the first ``acquire`` after an idle period
returns at once.

Time is integer nanoseconds and stored permits are kept as nanoseconds of credit
(``permits * interval``), so two simulators calling the same sequence get identical
answers. O(1) per call.
"""

from __future__ import annotations


class SmoothBurstyLimiter:
    """A SmoothBursty limiter of ``rate`` permits/s created at ``created_at_ns``."""

    __slots__ = ("interval", "max_stored", "next_free", "stored")

    def __init__(self, rate: float, max_burst_s: float = 1.0, created_at_ns: int = 0):
        #: Nanoseconds per permit (Guava's ``stableIntervalMicros``).
        self.interval = max(1, round(1e9 / rate))
        #: Most credit stored while idle: ``maxPermits * interval`` = ``maxBurstSeconds``.
        self.max_stored = round(max_burst_s * 1e9)
        self.stored = 0
        self.next_free = created_at_ns

    def acquire(self, now: int, permits: int = 1) -> int:
        """Reserve ``permits`` at ``now``; return the time the caller may proceed (>= now). O(1)."""
        next_free = self.next_free
        if now > next_free:  # resync: credit the idle time
            stored = self.stored + now - next_free
            self.stored = stored if stored < self.max_stored else self.max_stored
            next_free = now
        need = permits * self.interval
        spend = need if need < self.stored else self.stored
        self.stored -= spend
        self.next_free = next_free + need - spend
        return next_free

    def _resync(self, start: int) -> tuple[int, int]:
        """``(base, stored)`` after Guava's ``resync`` at ``start`` (not committed)."""
        if start > self.next_free:
            stored = self.stored + start - self.next_free
            return start, stored if stored < self.max_stored else self.max_stored
        return self.next_free, self.stored

    def takes_before(self, start: int, limit: int) -> int:
        """Takes of a back-to-back run from ``start`` (take, ``acquire``, take, ...) that
        happen strictly before ``limit``; at least 1 when ``start < limit``. O(1).

        After the resync, the ``j``-th ``acquire`` of the run returns
        ``base + max(0, j * interval - stored)``.
        """
        if start >= limit:
            return 0
        base, stored = self._resync(start)
        if base >= limit:
            return 1
        return 1 + -(-(limit - base + stored) // self.interval)

    def run(self, start: int, count: int) -> tuple[int, int]:
        """Commit ``count`` takes from ``start``: return (last take, next take time). O(1)."""
        base, stored = self._resync(start)
        need = count * self.interval
        spend = need if need < stored else stored
        self.stored = stored - spend
        self.next_free = base + need - spend
        last = start if count == 1 else base + max(0, (count - 2) * self.interval - stored)
        return last, base + max(0, (count - 1) * self.interval - stored)
