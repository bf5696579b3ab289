"""The Go perf producer of PR #976's table: which batch entries reach the broker, and when.

``./pulsar-perf produce my-test -r RATE -s 128 -b 0`` with ``perf/perf-producer.go`` @
b8563cd8 (the producer side of the table is the Go tool in this reading; spec §9):

- ``-r`` is the publish rate (:64-65), ``-s`` the payload (:72-73), ``-b`` the batching
  delay in ms (:66-67); ``-b 0`` becomes the 10 ms default and batching stays on
  (producer_impl.go:90-92; ``DisableBatching`` is never set, :92-98);
- one goroutine loops ``Wait`` on the limiter then ``SendAsync`` (:113-137); the limiter is
  :mod:`~trackerlab.models.receiver_queue.token_bucket`;
- ``SendAsync`` routes (:mod:`~trackerlab.models.receiver_queue.sticky_router`), then
  blocks until the partition producer's event loop has handled the request
  (producer_partition.go:1094-1099); that loop acquires the ``MaxPendingMessages`` = 1000
  semaphore (:499, :1353; :138-143 and perf-producer.go:74-75,94) — blocking the loop,
  its ticker included, until a send receipt frees a slot (:1102-1140) — and adds the
  message to the open batch, flushing first when it does not fit (:684-690,
  :mod:`~trackerlab.models.receiver_queue.batch_container`);
- a free-running ticker per partition producer flushes the open batch every 10 ms
  (:156, :466-467; ticks missed while the loop was blocked fire once after it, Go
  tickers keep one pending tick).

What the code leaves open is a :class:`ProducerTiming`: the ticker phases, the router's
start partition and age at the first send, how long a flushed batch takes to become
readable at the broker (network + bookie write) and to be acknowledged, and how late the
event loop runs each tick (Go scheduling latency: the ticker sends on time, the loop
receives it when it is scheduled; seeded exponential delays, 0 for an exact ticker).
Ties: a tick at the same instant as a send runs first.

Cost: one loop step per run of sends that share a partition, a batch and a tick window
(about ``rate / 100 + 100 x partitions`` steps per second), O(1) each.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from trackerlab.core import rng
from trackerlab.models.receiver_queue.batch_container import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_DELAY_MS,
    DEFAULT_MAX_MESSAGES,
    BatchContainer,
)
from trackerlab.models.receiver_queue.sticky_router import StickyRouter
from trackerlab.models.receiver_queue.token_bucket import TokenBucket, make_limiter

#: ``MaxPendingMessages``: perf-producer.go:74-75 (``-q``, default 1000), passed at :94.
DEFAULT_MAX_PENDING_MESSAGES = 1000


@dataclass(frozen=True)
class ProducerTiming:
    """The producer-side numbers the code does not fix (ns; ticker phases per partition)."""

    tick_phases_ns: tuple[float, ...]
    router_start: int  #: ``rand.Uint32()`` (default_router.go:46), modulo partitions
    router_age_ns: float  #: router created this long before the first send (:47)
    ready_ns: float  #: batch flushed -> entry readable by the dispatcher
    receipt_ns: float  #: batch flushed -> send receipt back at the producer
    tick_latency_ns: float = 0.0  #: mean of the exponential delay of each tick's flush
    seed: int = 0  #: seeds the tick delays (counter-based: tick j of partition q)


@dataclass
class ProducerEntries:
    """Batch entries per partition, in publish order: readable time, messages, bytes."""

    ready_ns: list[list[int]]
    messages: list[list[int]]
    entry_bytes: list[list[int]]
    produced: int  #: messages sent before the end of the run
    router_switches: int
    blocked_sends: int  #: sends that waited for the pending-messages semaphore
    #: the send loop hung here: the semaphore was full of messages in the unflushed batch
    hung_at_ns: float | None = None


class _PartitionProducer:
    """One ``partitionProducer``: open batch, flush tick, pending (unacknowledged) sends."""

    __slots__ = (
        "batch",
        "bytes",
        "delay",
        "first_add",
        "flush_at",
        "latency",
        "max_pending",
        "messages",
        "pending",
        "pending_count",
        "phase",
        "ready",
        "timing",
    )

    def __init__(
        self,
        phase: float,
        delay_ns: float,
        payload: int,
        max_messages: int,
        max_bytes: int,
        max_pending: int,
        timing: ProducerTiming,
        latency: list[float] | None,
    ) -> None:
        self.phase = phase
        self.latency = latency
        self.delay = delay_ns
        self.batch = BatchContainer(payload, max_messages, max_bytes)
        self.flush_at: float | None = None
        self.max_pending = max_pending
        self.pending: deque[list[float]] = deque()  # [receipt time, messages]
        self.pending_count = 0
        self.timing = timing
        self.ready: list[int] = []
        self.messages: list[int] = []
        self.bytes: list[int] = []

    def next_tick_after(self, t: float) -> float:
        """When the first tick strictly after ``t`` (ticks at ``phase + j * delay``) flushes:
        the tick time plus that tick's scheduling delay. O(1)."""
        j = (t - self.phase) // self.delay + 1
        tick = self.phase + j * self.delay
        latency = self.latency
        if latency is not None and 0 <= j < len(latency):
            return tick + latency[int(j)]
        return tick

    def flush(self, t: float) -> None:
        """Close the open batch at ``t``: one entry, readable and acknowledged later. O(1)."""
        n_bytes = self.batch.buffer
        n = self.batch.flush()
        self.flush_at = None
        if n:
            self.ready.append(round(t + self.timing.ready_ns))
            self.messages.append(n)
            self.bytes.append(n_bytes)
            self.pending.append([t + self.timing.receipt_ns, n])

    def flush_due(self, t: float) -> None:
        """Run the ticker up to ``t``: a tick at ``t`` itself runs before a send at ``t``. O(1)."""
        if self.flush_at is not None and self.flush_at <= t:
            self.flush(self.flush_at)

    def release(self, t: float) -> None:
        """Send receipts up to ``t`` free their semaphore slots. O(receipts released)."""
        pending = self.pending
        while pending and pending[0][0] <= t:
            self.pending_count -= int(pending.popleft()[1])

    def room(self) -> int:
        """Free slots of the pending-messages semaphore. O(1)."""
        return self.max_pending - self.pending_count

    def add(self, count: int, t_first: float) -> None:
        """``count`` sends join the open batch, the first at ``t_first``. O(1)."""
        if self.batch.messages == 0:
            self.flush_at = self.next_tick_after(t_first)
        self.batch.add(count)
        self.pending_count += count


#: Stream of the counter-based generator (:mod:`trackerlab.core.rng`) for the tick delays.
TICK_LATENCY_STREAM = 0x51


def _tick_latencies(
    timing: ProducerTiming, partition: int, duration_ns: float, delay_ns: float
) -> list[float] | None:
    """Exponential delays (mean ``tick_latency_ns``) of ticks 0.. of one partition producer."""
    if timing.tick_latency_ns <= 0:
        return None
    n = int(duration_ns // delay_ns) + 3
    u = rng.uniforms(timing.seed * 1000 + partition, TICK_LATENCY_STREAM, 0, n)
    return (-timing.tick_latency_ns * np.log1p(-u)).tolist()


def _partition_producers(
    partitions: int,
    duration_ns: float,
    delay_ns: float,
    payload_bytes: int,
    timing: ProducerTiming,
    max_messages: int,
    max_bytes: int,
    max_pending: int,
) -> list[_PartitionProducer]:
    """One partition producer per partition, each with its ticker phase and tick latencies."""
    return [
        _PartitionProducer(
            timing.tick_phases_ns[q] % delay_ns,
            delay_ns,
            payload_bytes,
            max_messages,
            max_bytes,
            max_pending,
            timing,
            _tick_latencies(timing, q, duration_ns, delay_ns),
        )
        for q in range(partitions)
    ]


def _close_and_collect(
    parts: list[_PartitionProducer],
    produced: int,
    router_switches: int,
    blocked: int,
    hung_at: float | None,
) -> ProducerEntries:
    """Flush every open batch at its next tick and gather the entries of all partitions."""
    for pp in parts:  # open batches go out at their next tick
        if pp.flush_at is not None:
            pp.flush(pp.flush_at)
    return ProducerEntries(
        ready_ns=[pp.ready for pp in parts],
        messages=[pp.messages for pp in parts],
        entry_bytes=[pp.bytes for pp in parts],
        produced=produced,
        router_switches=router_switches,
        blocked_sends=blocked,
        hung_at_ns=hung_at,
    )


def perf_producer(
    rate: float,
    partitions: int,
    duration_ns: float,
    payload_bytes: int,
    timing: ProducerTiming,
    *,
    limiter: str = "token-bucket",
    batching_delay_ms: float = DEFAULT_MAX_DELAY_MS,
    max_messages: int = DEFAULT_MAX_MESSAGES,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_pending: int = DEFAULT_MAX_PENDING_MESSAGES,
    batching: bool = True,
) -> ProducerEntries:
    """Every batch entry the perf producer publishes in ``duration_ns`` (see module doc).

    ``batching=False`` is ``DisableBatching``: every send is its own entry, flushed at once
    (producer_partition.go:702-705 path), routed round-robin; one loop step per message.
    """
    delay_ns = batching_delay_ms * 1e6
    lim = make_limiter(limiter, rate)
    router = StickyRouter(
        partitions,
        timing.router_start,
        -timing.router_age_ns,
        payload_bytes,
        max_messages,
        max_bytes,
        delay_ns,
        batching=batching,
    )
    parts = _partition_producers(
        partitions,
        duration_ns,
        delay_ns,
        payload_bytes,
        timing,
        max_messages,
        max_bytes,
        max_pending,
    )
    # the loop below stays in one function: it runs once per run of sends (once per message
    # with batching off), and a helper call per step would slow the simulator
    caller = 0.0  # when the loop next calls Wait
    produced = blocked = 0
    hung_at = None
    end = float(duration_ns)
    # the token bucket's closed form inline (TokenBucket.act_ns / sends_before / take);
    # `bucket` is the limiter when it is a TokenBucket, else None
    bucket = lim if isinstance(lim, TokenBucket) else None
    interval = bucket.interval if bucket is not None else 0.0
    burst_ns = bucket.burst * interval if bucket is not None else 0.0
    single = partitions == 1
    while True:
        if bucket is not None:
            virtual, floor = bucket.virtual, caller - burst_ns
            base = virtual if virtual > floor else floor  # D* of a run starting at caller
            act = base + interval
            if caller > act:
                act = caller
        else:
            act = lim.act_ns(caller, 0)
        if act >= end:
            break
        plain = (1 << 62) if single else router.plain_run()
        pp = parts[router.partition]
        if pp.flush_at is not None and pp.flush_at <= act:
            pp.flush(pp.flush_at)
        if pp.pending and pp.pending[0][0] <= act:
            pp.release(act)
        m = min(plain, pp.max_pending - pp.pending_count) if batching else 0
        if m > 0:
            batch = pp.batch
            if batch.messages and not batch.room(1):
                pp.flush(act)  # the next message does not fit: flush, then add it
            m = batch.room(m)
            limit = pp.flush_at if pp.flush_at is not None else pp.next_tick_after(act)
            if limit > end:
                limit = end
            if bucket is not None:  # sends of this run acting strictly before limit
                n = math.ceil((limit - base) / interval) - 1
                ready = math.floor((caller - base) / interval)
                n = n if n > ready else ready
            else:
                n = lim.sends_before(caller, limit)
            if n < m:
                m = n
        if m > 0:
            if bucket is not None:
                last = base + m * interval
                if caller > last:
                    last = caller
                bucket.virtual = base + m * interval
            else:
                last = lim.act_ns(caller, m - 1)
                lim.take(caller, m)
            if not single:
                router.advance(m)
            pp.add(m, act)
            produced += m
            caller = last
            continue
        q = router.partition
        # one send decided on its own: a router decision, or a full semaphore
        if plain == 0:
            q = router.decide(act)
        else:
            router.advance(1)
        pp = parts[q]
        pp.flush_due(act)
        pp.release(act)
        t_add = act
        if pp.room() <= 0:  # the event loop blocks in Acquire until a receipt
            if not pp.pending:
                # every pending send sits in the open batch, which only this blocked loop
                # could flush: the producer hangs (MaxPendingMessages <= messages per batch)
                hung_at = act
                break
            blocked += 1
            t_add = max(act, pp.pending[0][0])
            ticked = pp.flush_at is not None and pp.flush_at <= t_add
            pp.release(t_add)
            if ticked:  # the tick that fell in the block fires right after this add
                if pp.batch.room(1) == 0:
                    pp.flush(t_add)
                pp.add(1, t_add)
                pp.flush(t_add)
                lim.take(caller, 1)
                produced += 1
                caller = t_add
                continue
        if pp.batch.room(1) == 0:
            pp.flush(t_add)
        pp.add(1, t_add)
        if not batching:
            pp.flush(t_add)
        lim.take(caller, 1)
        produced += 1
        caller = t_add
    return _close_and_collect(parts, produced, router.switches, blocked, hung_at)
