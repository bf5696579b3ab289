"""Event loop of the modelled harness: entries, Flows and reads in a heap; deliveries in runs.

Heap events, in this order at equal times: a Flow reaching the broker, the dispatcher's
10 ms re-check, the notification of a waiting cursor, a read completing (the entries are
dispatched and arrive one network hop later), entries arriving at the client, a Java
batch-receive timeout, a sample. Between two heap events the application takes messages
in closed-form runs (:meth:`SmoothBurstyLimiter.run`): a run ends where the next Flow or
queue expansion is due, so every Flow enters the heap in time order (a Flow needs a
network hop, a read and another hop before it can change what the client receives).

Receipt (``MessageReceived`` in Go, the IO thread in Java) is handled for the whole entry at
its arrival instant, before the application's next take at the same instant.

The application: the Go perf consumer drains ``consumer.Chan()`` with no limit
(perf-consumer.go:102-110), one message per ``app_message_us`` (all partition consumers
share the channel, so one FIFO); Java takes from ``ConsumerImpl`` (or the multi-topics
parent) and finds it empty -> ``expectMoreIncomingMessages``. With ``app_rate`` the
application is paced by a Guava ``SmoothBursty`` limiter instead.

Cost: O(entries + Flows + expansions + samples) heap operations, independent of the
message count; 60 s at 20,000 msg/s is about 30,000 events.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Sequence
from heapq import heappop, heappush
from itertools import count
from typing import TypedDict

from trackerlab.models.receiver_queue.dispatcher import Dispatcher
from trackerlab.models.receiver_queue.go import GoPartitionConsumer
from trackerlab.models.receiver_queue.harness import NS, HarnessConfig, HarnessResult
from trackerlab.models.receiver_queue.java import JavaConsumer
from trackerlab.models.receiver_queue.memory_limit import MemoryLimitController
from trackerlab.models.receiver_queue.multi_topics import MultiTopicsConsumer
from trackerlab.models.receiver_queue.overshoot import SHARED
from trackerlab.models.receiver_queue.perf_producer import ProducerEntries
from trackerlab.models.receiver_queue.rate_limiter import SmoothBurstyLimiter

#: Heap event kinds, in the order they run at equal times.
FLOW, RECHECK, NOTIFY, READ, ARRIVAL, BATCH_TIMEOUT, SAMPLE = range(7)
_BROKER_KINDS = {"recheck": RECHECK, "notify": NOTIFY, "read": READ}


class _ConsumerArgs(TypedDict):
    """Keyword arguments shared by :class:`GoPartitionConsumer` and :class:`JavaConsumer`."""

    auto: bool
    memory: MemoryLimitController
    message_bytes: int
    flows: list[tuple[int, int, int]]
    size_log: list[tuple[int, int, int]]


class HarnessEngine:
    """One run of :func:`trackerlab.models.receiver_queue.simulator.simulate`."""

    def __init__(self, cfg: HarnessConfig, entries: ProducerEntries):
        self.cfg = cfg
        parts = cfg.partitions
        self.entries = entries
        self.end = round(cfg.duration_s * NS)
        self.one_way = max(1, round(cfg.one_way_us * 1e3))
        self.start_t = -round(cfg.consumer_lead_s * NS)
        self.sample_ns = max(1, round(cfg.sample_ms * 1e6))
        self.heap: list[tuple] = []
        self.seq = count()
        self.flows: list[tuple[int, int, int]] = []
        self.flow_count = 0
        self.size_log: list[tuple[int, int, int]] = []
        self.memory = MemoryLimitController(
            cfg.memory_limit_bytes, java_rounding=cfg.client == "java"
        )
        self.disp = self._dispatchers()
        self.msgs = entries.messages
        self._build_client()
        rate = cfg.app_rate if cfg.app_rate is not None else 1e6 / cfg.app_message_us
        burst = cfg.app_burst_s if cfg.app_rate is not None else 0.0
        self.app = SmoothBurstyLimiter(rate, burst, created_at_ns=self.start_t)
        self.app_ready = self.start_t
        self.waiting = True
        self.queue: deque[list[int]] = deque()  # Go: [partition, messages] in arrival order
        self.held = 0
        #: Go: messages each partition consumer received and has not delivered (queueCh +
        #: the dispatcher's slice), counted here: the client counts them only when auto-scaling
        self.held_q = [0] * parts
        self.consumed = 0
        self.last_take = -1
        self.peak = [0] * parts
        self.peak_client = 0
        self.peak_memory = 0
        self.samples: dict[str, list] = {k: [] for k in self._sample_columns()}

    # ------------------------------------------------------------------ set-up

    def _dispatchers(self) -> list[Dispatcher]:
        """One broker dispatcher per partition, its cursor at the latest entry when the
        consumer subscribes (SubscriptionPositionLatest)."""
        cfg, entries = self.cfg, self.entries
        read_ns = max(1, round(cfg.read_us * 1e3))
        subscribed = self.start_t + self.one_way
        disp = []
        for q in range(cfg.partitions):
            d = Dispatcher(
                entries.ready_ns[q],
                entries.messages[q],
                entries.entry_bytes[q],
                self._emitter(q),
                read_ns=read_ns,
                read_batch=cfg.read_batch_size,
                max_read_bytes=cfg.max_read_bytes,
                check_delay_ms=cfg.new_entries_check_delay_ms,
                shared=cfg.subscription_type == SHARED,
            )
            d.cursor = bisect_left(d.ready, subscribed)  # SubscriptionPositionLatest
            disp.append(d)
        return disp

    def _sample_columns(self) -> list[str]:
        """The sampled time series' columns (a parent size for a multi-topics consumer)."""
        return [
            "t_s",
            "total_size",
            *(f"size_{q}" for q in range(self.cfg.partitions)),
            *(["parent_size"] if self.parent is not None else []),
            "queued",
            "prefetch_bytes",
            "memory_bytes",
            "broker_permits",
            "consumed",
        ]

    def _emitter(self, q: int):
        heap, seq = self.heap, self.seq

        def emit(t: int, kind: str, a: int, b: int) -> None:
            heappush(heap, (t, _BROKER_KINDS[kind], q, next(seq), a, b))

        return emit

    def _build_client(self) -> None:
        cfg = self.cfg
        common = _ConsumerArgs(
            auto=cfg.auto_scale,
            memory=self.memory,
            message_bytes=cfg.message_bytes,
            flows=self.flows,
            size_log=self.size_log,
        )
        pmax = cfg.partition_max_size
        #: the partition consumers of one client (``cfg.client``): the other list stays empty
        self.go_cons: list[GoPartitionConsumer] = []
        self.java_cons: list[JavaConsumer] = []
        self.parent: MultiTopicsConsumer | None = None
        self._advance: Callable[[int], None]
        if cfg.client == "go":
            self.go_cons = [GoPartitionConsumer(q, pmax, **common) for q in range(cfg.partitions)]
            self.cons: Sequence[GoPartitionConsumer | JavaConsumer] = self.go_cons
            self._advance = self._advance_go
            return
        self.java_cons = [JavaConsumer(q, pmax, **common) for q in range(cfg.partitions)]
        self.cons = self.java_cons
        if cfg.partitions > 1:
            self.parent = MultiTopicsConsumer(
                self.java_cons,
                cfg.receiver_queue_size,
                auto=cfg.auto_scale,
                memory=self.memory,
                message_bytes=cfg.message_bytes,
                size_log=self.size_log,
                drain=cfg.java_drain,
                batch_max_messages=cfg.java_batch_max_messages,
                batch_max_bytes=cfg.java_batch_max_bytes,
                batch_timeout_ms=cfg.java_batch_timeout_ms,
                arm_timeout=self._arm_timeout,
            )
            self._advance = self._advance_java_multi
        else:
            self._advance = self._advance_java
        fronts: list[JavaConsumer | MultiTopicsConsumer] = [
            *self.java_cons,
            *([self.parent] if self.parent is not None else []),
        ]
        self.memory.triggers.extend(c.reduce for c in fronts)

    def _arm_timeout(self, q: int, token: int, at: int) -> None:
        heappush(self.heap, (at, BATCH_TIMEOUT, q, next(self.seq), token, 0))

    def _schedule_flows(self) -> None:
        heap, seq, one_way = self.heap, self.seq, self.one_way
        self.flow_count += len(self.flows)
        for t, q, n in self.flows:
            heappush(heap, (t + one_way, FLOW, q, next(seq), n, 0))
        self.flows.clear()

    # ------------------------------------------------------------------ client

    def _arrival(self, q: int, first: int, k: int, t: int) -> None:
        sizes = self.msgs[q]
        total = 0
        if self.cfg.client == "go":
            g = self.go_cons[q]
            queue = self.queue
            for i in range(first, first + k):
                n = sizes[i]
                g.messages_received(n, t)
                queue.append([q, n])
                total += n
            self.held_q[q] += total
            mine = self.held_q[q]
        else:
            c = self.java_cons[q]
            if self.parent is None:
                for i in range(first, first + k):
                    c.enqueue(sizes[i], t)
                    total += sizes[i]
            else:
                parent = self.parent
                for i in range(first, first + k):
                    parent.child_arrival(c, sizes[i], t)
                    total += sizes[i]
            mine = c.incoming
        self.held += total
        if mine > self.peak[q]:
            self.peak[q] = mine
        if self.held > self.peak_client:
            self.peak_client = self.held
        if self.memory.usage > self.peak_memory:
            self.peak_memory = self.memory.usage
        if self.waiting and (self.parent is None or self.parent.incoming):
            self.waiting = False
            if self.app_ready < t:
                self.app_ready = t

    def _took(self, k: int, last: int, nxt: int) -> None:
        self.consumed += k
        self.held -= k
        self.last_take = last
        self.app_ready = nxt

    def _advance_go(self, limit: int) -> None:
        """The Go perf consumer until ``limit``, an empty channel, or a Flow."""
        queue, app, flows, held_q = self.queue, self.app, self.flows, self.held_q
        cons = self.go_cons
        taken = 0
        last = self.last_take
        while queue:
            t0 = self.app_ready
            if t0 >= limit:
                break
            head = queue[0]
            c = cons[head[0]]
            hinted = c.hint
            if hinted:
                k = 1
            else:  # deliveries up to the next Flow (GoPartitionConsumer.to_flow, inline)
                threshold = (c.size if c.auto else c.max_size) // 2
                k = (threshold if threshold > 1 else 1) - c.permits
                if k < 1:
                    k = 1
                if head[1] < k:
                    k = head[1]
                if k > 1:
                    k = min(k, app.takes_before(t0, limit))
            last, self.app_ready = app.run(t0, k)
            if hinted:
                c.deliver(last)
            else:
                c.deliver_many(k, last)
            head[1] -= k
            held_q[head[0]] -= k
            if not head[1]:
                queue.popleft()
            taken += k
            if flows:
                break
        else:
            self.waiting = True
        if taken:
            self.consumed += taken
            self.held -= taken
            self.last_take = last

    def _advance_java(self, limit: int) -> None:
        """A Java application on one ``ConsumerImpl``: receive until empty, a limit or a Flow."""
        c, app, flows = self.java_cons[0], self.app, self.flows
        while True:
            t0 = self.app_ready
            if t0 >= limit:
                return
            if not c.incoming:
                c.expect_more(t0)  # the receive finds the queue empty
                self.waiting = True
                return
            k = min(c.incoming, c.to_flow())
            if k > 1:
                k = min(k, app.takes_before(t0, limit))
            last, nxt = app.run(t0, k)
            c.take_many(k, last)
            self._took(k, last, nxt)
            if flows:
                return

    def _advance_java_multi(self, limit: int) -> None:
        """A Java application on the multi-topics parent."""
        p, app, flows, heap = self.parent, self.app, self.flows, self.heap
        assert p is not None, "only set as _advance when there is a parent"
        while True:
            t0 = self.app_ready
            if t0 >= limit:
                return
            if not p.incoming:
                p.expect_more(t0)  # a larger queue may resume paused children at once
                if not p.incoming:
                    self.waiting = True
                    return
            k = p.incoming
            if p.paused:  # stop where the resume threshold is crossed
                k = min(k, max(1, p.incoming - p.size // 2))
            if k > 1:
                k = min(k, app.takes_before(t0, limit))
            last, nxt = app.run(t0, k)
            p.take_many(k, last)  # may resume children: Flows, batch-receive timeouts
            self._took(k, last, nxt)
            if flows or (heap and heap[0][0] < limit):
                return

    # ------------------------------------------------------------------ run

    def _sample(self, t: int) -> None:
        s = self.samples
        s["t_s"].append(t / NS)
        sizes = [c.size for c in self.cons]
        for q, size in enumerate(sizes):
            s[f"size_{q}"].append(size)
        s["total_size"].append(sum(sizes))
        if self.parent is not None:
            s["parent_size"].append(self.parent.size)
        s["queued"].append(self.held)
        s["prefetch_bytes"].append(self.held * self.cfg.message_bytes)
        s["memory_bytes"].append(self.memory.usage)
        s["broker_permits"].append(sum(d.permits for d in self.disp))
        s["consumed"].append(self.consumed)

    def _start(self) -> None:
        """The consumer connects (initial Flows); a multi-topics parent asks its children."""
        heap, seq = self.heap, self.seq
        for q, c in enumerate(self.cons):
            heappush(heap, (self.start_t + self.one_way, FLOW, q, next(seq), c.connect(), 0))
        if self.parent is not None:
            self.parent.start(self.start_t)
            self._schedule_flows()
        heappush(heap, (0, SAMPLE, -1, next(seq), 0, 0))

    def _handle(self, t: int, kind: int, q: int, a: int, b: int) -> None:
        """One heap event (the client and broker side; the application runs between)."""
        disp = self.disp
        if kind == FLOW:
            disp[q].flow(a, t)
        elif kind == ARRIVAL:
            self._arrival(q, a, b, t)
        elif kind == READ:
            d = disp[q]
            d.read_done(a, b, t)
            heappush(self.heap, (t + self.one_way, ARRIVAL, q, next(self.seq), a, d.sent_entries))
        elif kind == RECHECK:
            disp[q].recheck(a, t)
        elif kind == NOTIFY:
            disp[q].notify(a, t)
        elif kind == BATCH_TIMEOUT:
            parent = self.parent
            assert parent is not None, "batch timeouts are armed by a multi-topics parent only"
            parent.batch_timeout(q, a, t)
            if self.waiting and parent.incoming:
                self.waiting = False
                self.app_ready = max(self.app_ready, t)
        else:
            self._sample(t)
            if t + self.sample_ns < self.end:
                heappush(self.heap, (t + self.sample_ns, SAMPLE, -1, next(self.seq), 0, 0))
        if self.flows:
            self._schedule_flows()

    def run(self) -> HarnessResult:
        """Run to the end: heap events, application runs between them; the result.
        O((entries + Flows) log events).
        """
        heap, end = self.heap, self.end
        self._start()
        while True:
            t_next = heap[0][0] if heap else end
            if t_next > end:
                t_next = end
            if not self.waiting and self.app_ready < t_next:
                self._advance(t_next)
                if self.flows:
                    self._schedule_flows()
                continue
            if t_next >= end:
                break
            t, kind, q, _, a, b = heappop(heap)
            self._handle(t, kind, q, a, b)
        self._sample(end)
        return self._result()

    def _published_by(self, t: int) -> int:
        """Messages in entries readable at the broker by ``t`` (and after the subscription)."""
        total = 0
        for d in self.disp:
            first = bisect_left(d.ready, self.start_t + self.one_way)
            total += d.msg_prefix[bisect_right(d.ready, t)] - d.msg_prefix[first]
        return total

    def _result(self) -> HarnessResult:
        cons, parent = self.cons, self.parent
        fronts: list[GoPartitionConsumer | JavaConsumer | MultiTopicsConsumer] = [
            *cons,
            *([parent] if parent is not None else []),
        ]
        return HarnessResult(
            config=self.cfg,
            final_sizes=tuple(c.size for c in cons),
            parent_size=parent.size if parent is not None else None,
            produced=self.entries.produced,
            entries=sum(len(m) for m in self.entries.messages),
            consumed=self.consumed,
            dispatched=sum(d.dispatched for d in self.disp),
            flows=self.flow_count,
            expansions=sum(c.expansions for c in fronts),
            shrinks=sum(c.shrinks for c in fronts),
            peak_prefetched=tuple(self.peak),
            peak_client_messages=self.peak_client,
            peak_memory_bytes=self.peak_memory,
            last_consumed_s=self.last_take / NS if self.last_take >= 0 else -1.0,
            published_by_last_tenth=self._published_by(round(0.9 * self.end)),
            producer_hung_s=(
                self.entries.hung_at_ns / NS if self.entries.hung_at_ns is not None else None
            ),
            size_log=self.size_log,
            samples=self.samples,
        )
