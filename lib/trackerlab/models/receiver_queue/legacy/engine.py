"""Event loop of the legacy simulator (kept for the benchmark): coarse events in a heap, a per-message loop.

Coarse events (a heap keyed by ``(time, kind, partition, seq)``) are the broker's Flow
arrivals, dispatcher wake-ups (end of a read, or a new publish), the arrival of a read's
messages at the client, the Go dispatcher running after its wake-up delay, Java
batch-receive timeouts and samples. Between two coarse events the
application's receives run in a tight loop over integers (``_advance_*``); a Flow sent by
the client ends the loop so that the broker sees it in time order. The arrival of the
``k`` messages of one read is applied in closed form (one frame, received before the Go
dispatcher or the Java application runs). At equal times coarse events go first, in
``kind`` order, then the application.

Semantics are pinned by ``tests/reference/receiver_queue.py``, a per-event
simulator (every message, delivery and receive is a heap event) that must give identical
results on random small cases (the reference also keeps an explicit read-completion
event, which the engine folds into the dispatcher's next wake-up). Cost: O(messages)
Python steps of a few attribute updates, plus O(log events) per coarse event — at most
about three per message when a caught-up consumer gets every message in its own read;
1.2 M messages take about 4 s (``trackerlab bench receiver-queue``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from heapq import heappop, heappush
from itertools import count

from trackerlab.models.receiver_queue.go import GoPartitionConsumer
from trackerlab.models.receiver_queue.java import JavaConsumer, JavaMultiTopicsConsumer
from trackerlab.models.receiver_queue.legacy.config import (
    NS,
    ReceiverQueueConfig,
    ReceiverQueueResult,
)
from trackerlab.models.receiver_queue.memory_limit import MemoryLimitController
from trackerlab.models.receiver_queue.rate_limiter import SmoothBurstyLimiter

#: Coarse event kinds, in the order they run at equal times.
FLOW, WAKE, ARRIVAL, DISPATCH, BATCH_TIMEOUT, SAMPLE = range(6)


def split_backlog(total: int, partitions: int) -> list[int]:
    """Round-robin share of ``total`` messages per partition."""
    return [total // partitions + (1 if q < total % partitions else 0) for q in range(partitions)]


class Sampler:
    """The sampled time series: sizes, queued messages, prefetched bytes, consumption."""

    def __init__(self, cfg: ReceiverQueueConfig, cons: list, parent):
        self.cons, self.parent, self.message_bytes = cons, parent, cfg.message_bytes
        names = ["t_s", "total_size", "queued", "prefetch_bytes", "memory_bytes"]
        names += [f"size_{q}" for q in range(len(cons))]
        names += ["parent_size"] if parent is not None else []
        self.data: dict[str, list] = {k: [] for k in [*names, "consumed"]}

    def record(self, t: int, held: int, memory_bytes: int, consumed: int) -> None:
        s = self.data
        s["t_s"].append(t / NS)
        sizes = [c.size for c in self.cons]
        for q, size in enumerate(sizes):
            s[f"size_{q}"].append(size)
        s["total_size"].append(sum(sizes))
        if self.parent is not None:
            s["parent_size"].append(self.parent.size)
        s["queued"].append(held)
        s["prefetch_bytes"].append(held * self.message_bytes)
        s["memory_bytes"].append(memory_bytes)
        s["consumed"].append(consumed)


def build_client(cfg: ReceiverQueueConfig, flows: list, size_log: list):
    """The memory controller, the partition consumers and the queue the application reads.

    Returns ``(memory, consumers, front)``; ``front`` is None for Go (the application reads
    the shared ``messageCh``), the ``JavaConsumer`` of a non-partitioned topic, or the
    ``JavaMultiTopicsConsumer`` parent.
    """
    memory = MemoryLimitController(cfg.memory_limit_bytes, java_rounding=cfg.client == "java")
    common = dict(auto=cfg.auto_scale, memory=memory, message_bytes=cfg.message_bytes)
    pmax = cfg.partition_max_size
    if cfg.client == "go":
        cons = [
            GoPartitionConsumer(q, pmax, flows=flows, size_log=size_log, **common)
            for q in range(cfg.partitions)
        ]
        return memory, cons, None
    batch = cfg.batch_max_messages
    cons = [
        JavaConsumer(
            q,
            pmax,
            flows=flows,
            size_log=size_log,
            batch_max=batch if cfg.partitions == 1 else -1,
            **common,
        )
        for q in range(cfg.partitions)
    ]
    if cfg.partitions == 1:
        front = cons[0]
    else:
        front = JavaMultiTopicsConsumer(
            cons, cfg.receiver_queue_size, size_log=size_log, batch_max=batch, **common
        )
    targets = [front] if cfg.partitions > 1 else []
    memory.triggers.extend(c.reduce for c in [*cons, *targets])
    return memory, cons, front


class Engine:
    """One run of :func:`trackerlab.models.receiver_queue.simulator.simulate`."""

    def __init__(self, cfg: ReceiverQueueConfig, schedule: list[list[int]] | None):
        self.cfg = cfg
        parts = cfg.partitions
        self.end = round(cfg.duration_s * NS)
        self.one_way = cfg.one_way_ns
        self.dispatch = cfg.dispatch_ns
        self.sample_ns = max(1, round(cfg.sample_ms * 1e6))
        self.heap: list[tuple] = []
        self.seq = count(1)
        self.flow_count = 0
        self.flows: list[tuple[int, int, int]] = []
        self.size_log: list[tuple[int, int, int]] = []
        self.memory, self.cons, self.front = build_client(cfg, self.flows, self.size_log)
        # broker, per partition
        self.schedule = schedule
        self.backlog0 = split_backlog(cfg.initial_backlog, parts)
        self.permits = [0] * parts
        self.dispatched = [0] * parts
        self.busy_until = [-1] * parts  # a read in progress ends then
        self.wake_at: list[int | None] = [None] * parts  # the live WAKE event, if any
        self.max_read = cfg.max_read_entries
        # client side
        self.next_arrival = [0] * parts
        self.taken = [0] * parts
        self.held = 0
        self.peak = 0
        self.consumed = 0
        self.fifo: deque[list[int]] = deque()  # Go: received, not yet in messageCh
        self.fifo_count = 0
        self.mch: deque[list[int]] = deque()  # Go: messageCh
        self.mch_count = 0
        self.cap = cfg.message_channel_capacity
        self.batch = cfg.client == "java" and cfg.receive_mode == "batch"
        self.batch_id = 0
        self.batch_timeout = max(1, round(cfg.batch_timeout_ms * 1e6))
        self.consumption: list | None = [] if cfg.record_consumption else None
        self.sampler = Sampler(cfg, self.cons, self.front if parts > 1 else None)
        # application: Guava limiter created limiter_idle_s before the consumer connects;
        # it acquires before every receive.
        self.limiter = SmoothBurstyLimiter(
            cfg.rate, cfg.app_burst_s, created_at_ns=-round(cfg.limiter_idle_s * NS)
        )
        self.app_ready = self.limiter.acquire(0)
        self.waiting = False
        self.wakeup = round(cfg.app_wakeup_us * 1e3)
        self.dispatch_pending = False
        self._advance = self._advance_go if cfg.client == "go" else self._advance_java

    # ------------------------------------------------------------------ bookkeeping

    def push(self, t: int, kind: int, q: int, a: int = 0, b: int = 0) -> None:
        heappush(self.heap, (t, kind, q, next(self.seq), a, b))

    def schedule_flows(self) -> None:
        self.flow_count += len(self.flows)
        for t, q, n in self.flows:
            self.push(t + self.one_way, FLOW, q, n)
        self.flows.clear()

    def sample(self, t: int) -> None:
        self.sampler.record(t, self.held, self.memory.usage, self.consumed)

    # ------------------------------------------------------------------ broker

    def published(self, q: int, t: int) -> int:
        """Messages of partition ``q`` in the topic at ``t`` (a large number if endless)."""
        if self.schedule is None:
            return self.dispatched[q] + self.max_read
        return self.backlog0[q] + bisect_right(self.schedule[q], t)

    def wake(self, q: int, when: int) -> None:
        """Make sure the dispatcher of ``q`` looks again at ``when``."""
        pending = self.wake_at[q]
        if pending is None or when < pending:
            self.wake_at[q] = when
            self.push(when, WAKE, q)

    def next_publish(self, q: int) -> int | None:
        idx = self.dispatched[q] - self.backlog0[q]
        schedule = self.schedule[q]
        return schedule[idx] if idx < len(schedule) else None

    def try_dispatch(self, q: int, t: int) -> None:
        """Start a read of ``min(permits, available, max_read)`` entries if idle.

        The read's messages are scheduled to arrive at once. Instead of a read-completion
        event the dispatcher sets its next look: at the end of the read if permits and
        messages remain then, at the next publish if only permits remain, never if the
        permits are used up (the next Flow wakes it). This is the reference's
        "read done, then try again" without an event per read.
        """
        permits = self.permits[q]
        if permits <= 0:
            return
        if self.busy_until[q] >= t:  # a read ending at t is done only when its wake runs,
            self.wake(q, self.busy_until[q])  # after every Flow arriving at t
            return
        schedule, dispatched = self.schedule, self.dispatched[q]
        if schedule is None:
            available = self.max_read
        else:
            available = self.backlog0[q] + bisect_right(schedule[q], t) - dispatched
        if available > 0:
            k = min(permits, available, self.max_read)
            self.permits[q] = permits - k
            done = t + self.dispatch
            heappush(self.heap, (done + self.one_way, ARRIVAL, q, next(self.seq), dispatched, k))
            self.dispatched[q] = dispatched + k
            self.busy_until[q] = done
            if permits > k:
                if self.published(q, done) > dispatched + k:
                    self.wake(q, done)
                elif (tp := self.next_publish(q)) is not None:
                    self.wake(q, tp)
        elif (tp := self.next_publish(q)) is not None:
            self.wake(q, tp)

    # ------------------------------------------------------------------ client arrivals

    def arrival(self, q: int, seq: int, k: int, t: int) -> None:
        if seq != self.next_arrival[q]:
            raise RuntimeError(f"partition {q}: message {seq} arrived, {self.next_arrival[q]} due")
        self.next_arrival[q] = seq + k
        self.held += k
        if self.held > self.peak:
            self.peak = self.held
        if self.front is None:  # Go
            self.cons[q].messages_received(k, t)
            self.fifo.append([q, seq, k])
            self.fifo_count += k
            if self.mch_count < self.cap and not self.dispatch_pending:
                # the idle dispatcher goroutine runs app_wakeup_us later
                self.dispatch_pending = True
                self.push(t + self.wakeup, DISPATCH, -1)
            return
        front = self.front
        if len(self.cons) == 1:
            front.enqueue(k, t)
        else:
            front.child_arrival(self.cons[q], k, t)
        if self.waiting:
            if self.batch:
                if front.has_enough_for_batch():
                    self.waiting = False
                    self.take_batch(t, t + self.wakeup)
            elif front.incoming:
                self.waiting = False
                self.app_ready = t + self.wakeup

    def fill_channel(self, t: int) -> None:
        """Go dispatcher: move received messages into ``messageCh`` while it has room."""
        fifo, mch, cons = self.fifo, self.mch, self.cons
        while self.mch_count < self.cap and self.fifo_count:
            run = fifo[0]
            q, s = run[0], run[1]
            if run[2] == 1:
                fifo.popleft()
            else:
                run[1] = s + 1
                run[2] -= 1
            self.fifo_count -= 1
            if mch and mch[-1][0] == q and mch[-1][1] + mch[-1][2] == s:
                mch[-1][2] += 1
            else:
                mch.append([q, s, 1])
            self.mch_count += 1
            cons[q].deliver(t)

    # ------------------------------------------------------------------ application

    def _advance_go(self, limit: int) -> None:
        """Application reads ``messageCh`` until ``limit``, a wait, or a Flow."""
        mch, flows, acquire, record = self.mch, self.flows, self.limiter.acquire, self.consumption
        while not self.waiting and self.app_ready < limit:
            t = self.app_ready
            if not self.mch_count:
                self.waiting = True
                return
            run = mch[0]
            if record is not None:
                record.append((t, run[0], run[1]))
            if run[2] == 1:
                mch.popleft()
            else:
                run[1] += 1
                run[2] -= 1
            self.mch_count -= 1
            self.held -= 1
            self.consumed += 1
            if self.fifo_count and not self.dispatch_pending:
                self.fill_channel(t)  # the dispatcher was blocked on the full channel
            self.app_ready = acquire(t)
            if flows:
                self.schedule_flows()
                return

    def take_one(self, t: int) -> None:
        q = self.front.take(t)
        if self.consumption is not None:
            self.consumption.append((t, q, self.taken[q]))
        self.taken[q] += 1
        self.held -= 1
        self.consumed += 1

    def take_batch(self, t: int, resume: int | None = None) -> None:
        """Complete a batch receive at ``t`` with what the queue holds (maybe nothing).

        The application continues at ``resume`` (default ``t``): a batch completed by the
        IO thread wakes the waiting application thread ``app_wakeup_us`` later.
        """
        n = self.front.batch_take_count()
        for _ in range(n):
            self.take_one(t)
        resume = t if resume is None else resume
        self.app_ready = self.limiter.acquire(resume, n) if n else resume

    def _advance_java(self, limit: int) -> None:
        """Application ``receive()`` / ``batchReceive()`` until ``limit``, a wait, or a Flow."""
        front, flows, acquire = self.front, self.flows, self.limiter.acquire
        while not self.waiting and self.app_ready < limit:
            t = self.app_ready
            if self.batch:
                if front.has_enough_for_batch():
                    self.take_batch(t)
                else:
                    front.expect_more(t)
                    self.waiting = True
                    self.batch_id += 1
                    self.push(t + self.batch_timeout, BATCH_TIMEOUT, -1, self.batch_id)
            elif front.incoming:
                self.take_one(t)
                self.app_ready = acquire(t)
            else:
                front.expect_more(t)
                self.waiting = True
            if flows:
                self.schedule_flows()
                return

    # ------------------------------------------------------------------ main loop

    def start(self) -> None:
        for q, c in enumerate(self.cons):
            self.push(self.one_way, FLOW, q, c.connect())
        if self.front is not None and len(self.cons) > 1:
            for c in self.cons:  # receiveMessageFromConsumer on every child
                self.front.pump(c, 0)
        self.schedule_flows()
        self.push(0, SAMPLE, -1)

    def handle(self, t: int, kind: int, q: int, a: int, b: int) -> None:
        """Run one coarse event (the main loop inlines the two most frequent kinds)."""
        if kind == FLOW:
            self.permits[q] += a
            self.try_dispatch(q, t)
        elif kind == WAKE:  # (inlined in run)
            if t == self.wake_at[q]:
                self.wake_at[q] = None
                if self.busy_until[q] <= t:
                    self.busy_until[q] = -1
                self.try_dispatch(q, t)
        elif kind == ARRIVAL:
            self.arrival(q, a, b, t)
        elif kind == DISPATCH:
            self.dispatch_pending = False
            self.fill_channel(t)
            if self.waiting and self.mch_count:
                self.waiting = False
                self.app_ready = t
        elif kind == BATCH_TIMEOUT:
            if self.waiting and a == self.batch_id:
                self.waiting = False
                self.take_batch(t, t + self.wakeup)
        else:  # SAMPLE
            self.sample(t)
            if t + self.sample_ns < self.end:
                self.push(t + self.sample_ns, SAMPLE, -1)

    def run(self) -> ReceiverQueueResult:
        self.start()
        heap, end, wake_at, flows = self.heap, self.end, self.wake_at, self.flows
        while True:
            t_next = heap[0][0] if heap else end
            if t_next > end:
                t_next = end
            if not self.waiting and self.app_ready < t_next:
                self._advance(t_next)
                continue
            if t_next >= end:
                break
            t, kind, q, _, a, b = heappop(heap)
            if kind == ARRIVAL:
                self.arrival(q, a, b, t)
            elif kind == WAKE:
                if t == wake_at[q]:
                    wake_at[q] = None
                    if self.busy_until[q] <= t:
                        self.busy_until[q] = -1
                    self.try_dispatch(q, t)
            else:
                self.handle(t, kind, q, a, b)
            if flows:
                self.schedule_flows()
        self.sample(end)
        return self.result()

    def result(self) -> ReceiverQueueResult:
        cfg = self.cfg
        if self.schedule is None:
            produced = None
        else:
            produced = sum(
                self.backlog0[q] + bisect_right(self.schedule[q], self.end - 1)
                for q in range(cfg.partitions)
            )
        parent = self.front.size if (self.front is not None and cfg.partitions > 1) else None
        expansions = sum(c.expansions for c in self.cons)
        shrinks = sum(c.shrinks for c in self.cons)
        if parent is not None:
            expansions += self.front.expansions
            shrinks += self.front.shrinks
        return ReceiverQueueResult(
            config=cfg,
            final_sizes=tuple(c.size for c in self.cons),
            parent_size=parent,
            consumed=self.consumed,
            produced=produced,
            flows=self.flow_count,
            expansions=expansions,
            shrinks=shrinks,
            peak_queued=self.peak,
            size_log=self.size_log,
            samples=self.sampler.data,
            consumption=self.consumption,
        )
