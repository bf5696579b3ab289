"""The Go perf producer's rate limiters, in closed form over runs of sends.

**Token bucket** (``golang.org/x/time/rate``, the limiter of ``perf/perf-producer.go``
since #989, ``bcbac9f2``, 2023-03-13, and at the #976 merge ``b8563cd8``):
``rate.NewLimiter(rate.Every(1s / Rate), Rate)`` (perf-producer.go:110-111 @ b8563cd8):
a bucket of ``Rate`` tokens, "initially full and refilled at rate r tokens per second"
(x/time ``rate/rate.go:33-34`` @ 555d28b2, the version go.mod:29 pins). The send loop
(perf-producer.go:113-137) calls ``Wait`` then ``SendAsync``; ``Wait`` reserves one token
and sleeps until it exists (``reserveN``, rate.go:309-358; ``advance`` caps the tokens at
the burst, rate.go:362-383). So the first ``Rate`` sends go out at start-up, then one
every ``1/Rate`` s.

The model is the equivalent virtual-time form (GCRA): ``tokens(t) = min(B, (t - D) / I)``
with ``I`` the interval and ``B`` the burst. A call at ``c`` sets ``D = max(D, c - B*I) + I``
and acts at ``max(c, D)``. A run of sends made back to back from ``c`` acts at
``max(c, D* + (j + 1) I)`` for the ``j``-th send, ``D* = max(D, c - B*I)``: O(1) per run.

**Sliding window** (the limiter before #989, e.g. ``6a8e7f39`` perf-producer.go:103-125,
PR #799): a channel of ``Rate`` timestamps; each send waits until the send ``Rate``
places earlier is one second old. Sends therefore leave in bursts of ``Rate`` once per
second. Which limiter produced PR #976's table is not established (#989 merged between
#976's opening and its last push); both are here.
"""

from __future__ import annotations

import math

NS = 1_000_000_000

#: Limiter kinds: ``token-bucket`` (x/time/rate, since #989) and ``window`` (before #989).
LIMITERS = ("token-bucket", "window")


class TokenBucket:
    """``rate.NewLimiter(rate.Every(1s / rate), burst)`` starting full at time 0 (ns floats).

    ``interval_ns`` follows ``rate.Every(time.Duration(float64(time.Second) / rate))``:
    the interval is truncated to whole nanoseconds (perf-producer.go:110).
    """

    __slots__ = ("burst", "interval", "virtual")

    def __init__(self, rate: float, burst: int, start_ns: float = 0.0):
        self.interval = float(int(NS / rate))
        self.burst = burst
        #: ``D``: the time at which the bucket would be empty (full at ``start_ns``).
        self.virtual = start_ns - burst * self.interval

    def run_start(self, caller_ns: float) -> float:
        """``D*`` for a run of back-to-back sends whose first ``Wait`` is at ``caller_ns``. O(1)."""
        floor = caller_ns - self.burst * self.interval
        return self.virtual if self.virtual > floor else floor

    def act_ns(self, caller_ns: float, j: int) -> float:
        """When the ``j``-th send (0-based) of a run started at ``caller_ns`` leaves. O(1)."""
        t = self.run_start(caller_ns) + (j + 1) * self.interval
        return caller_ns if caller_ns > t else t

    def sends_before(self, caller_ns: float, limit_ns: float) -> int:
        """How many sends of a run started at ``caller_ns`` act strictly before ``limit_ns``.
        O(1).
        """
        if limit_ns <= caller_ns:
            return 0
        d = self.run_start(caller_ns)
        # act_j < limit  <=>  d + (j + 1) I < limit  (or act_j == caller < limit)
        n = math.ceil((limit_ns - d) / self.interval) - 1
        immediate = math.floor((caller_ns - d) / self.interval)  # tokens ready at caller_ns
        return max(n, immediate, 0)

    def take(self, caller_ns: float, count: int) -> None:
        """Consume the tokens of ``count`` sends of a run started at ``caller_ns``. O(1)."""
        if count > 0:
            self.virtual = self.run_start(caller_ns) + count * self.interval


class SlidingWindow:
    """The pre-#989 limiter (``6a8e7f39`` perf-producer.go:103-125): a channel of ``rate``
    send timestamps, drained by a goroutine that takes the oldest and sleeps until it is
    one second old.

    The sender blocks while the channel is full, so send ``k >= rate`` waits until the
    drainer has taken timestamp ``k - rate``; the drainer takes timestamp ``j`` at
    ``tau_j = max(send_{j-1} + 1 s, send_j)`` (``tau_0 = send_0``). Hence ``rate + 1``
    sends at start-up, then bursts of ``rate + 1`` once per second. O(1) per send; the
    last ``rate + 1`` send times are kept.
    """

    __slots__ = ("rate", "sends")

    def __init__(self, rate: float, start_ns: float = 0.0):
        self.rate = max(1, int(rate))
        self.sends: list[float] = []

    def _next(self, caller_ns: float, pending: list[float]) -> float:
        k = len(self.sends) + len(pending)
        if k < self.rate:
            return caller_ns
        j = k - self.rate

        def send(i: int) -> float:
            return self.sends[i] if i < len(self.sends) else pending[i - len(self.sends)]

        tau = send(j) if j == 0 else max(send(j - 1) + NS, send(j))
        return caller_ns if caller_ns > tau else tau

    def act_ns(self, caller_ns: float, j: int) -> float:
        """When the ``j``-th send of a run started at ``caller_ns`` leaves (no blocking). O(j)."""
        pending: list[float] = []
        t = caller_ns
        for _ in range(j + 1):
            t = self._next(t, pending)
            pending.append(t)
        return t

    def sends_before(self, caller_ns: float, limit_ns: float) -> int:
        """Sends of a run from ``caller_ns`` that act strictly before ``limit_ns``.
        O(sends counted).
        """
        pending: list[float] = []
        t = caller_ns
        while True:
            t = self._next(t, pending)
            if t >= limit_ns:
                return len(pending)
            pending.append(t)

    def take(self, caller_ns: float, count: int) -> None:
        """Record ``count`` sends of a run from ``caller_ns``. O(count)."""
        pending: list[float] = []
        t = caller_ns
        for _ in range(count):
            t = self._next(t, pending)
            pending.append(t)
        self.sends.extend(pending)
        if len(self.sends) > 4 * (self.rate + 1):  # keep only what _next can look back to
            del self.sends[: len(self.sends) - (self.rate + 1)]


def make_limiter(kind: str, rate: float) -> TokenBucket | SlidingWindow:
    """The limiter ``kind`` (:data:`LIMITERS`) for ``-r rate`` (burst = rate)."""
    if kind == "token-bucket":
        return TokenBucket(rate, max(1, int(rate)))
    return SlidingWindow(rate)
