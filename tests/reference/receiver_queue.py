"""A straightforward per-event reference for the receiver-queue simulator.

Every message arrival, every application receive and every Go dispatcher run is its own
heap event keyed ``(time, class, kind, partition, seq)``; network and broker events have
class 0 and the application class 1, so at equal times the network goes first. Messages
of one broker read arrive as separate events at the same instant and are received one by
one with the per-message rules (``messages_received(1)``, ``enqueue(1)``); the consumer
side reacts after the last of them. Nothing is batched, nothing is computed in closed
form, and the loop never stops early: it is the specification the fast engine in
``trackerlab.models.receiver_queue.engine`` must match exactly.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from heapq import heappop, heappush

from trackerlab.models.receiver_queue.config import (
    NS,
    ReceiverQueueConfig,
    ReceiverQueueResult,
    producer_schedule,
)
from trackerlab.models.receiver_queue.engine import Sampler, build_client, split_backlog
from trackerlab.models.receiver_queue.rate_limiter import SmoothBurstyLimiter

FLOW, READ_DONE, WAKE, ARRIVAL, DISPATCH, BATCH_TIMEOUT, SAMPLE = range(7)
APP = 0


class NaiveReceiverQueue:
    def __init__(self, cfg: ReceiverQueueConfig):
        cfg = cfg.validated()
        self.cfg = cfg
        self.schedule = producer_schedule(cfg)
        n = cfg.partitions
        self.end = round(cfg.duration_s * NS)
        self.heap: list = []
        self.seq = 0
        self.flows: list = []
        self.size_log: list = []
        self.memory, self.cons, self.front = build_client(cfg, self.flows, self.size_log)
        self.go = cfg.client == "go"
        self.batch = cfg.client == "java" and cfg.receive_mode == "batch"
        self.backlog0 = split_backlog(cfg.initial_backlog, n)
        self.permits = [0] * n
        self.dispatched = [0] * n
        self.reading = [False] * n
        self.waking = [False] * n
        self.flow_count = 0
        self.taken = [0] * n
        self.held = self.peak = self.consumed = 0
        self.fifo: deque = deque()  # Go: (partition, seq) per message
        self.mch: deque = deque()
        self.dispatch_pending = False
        self.completed = False
        self.batch_id = 0
        self.waiting = False
        self.consumption: list = []
        parent = self.front if (cfg.client == "java" and n > 1) else None
        self.sampler = Sampler(cfg, self.cons, parent)
        self.limiter = SmoothBurstyLimiter(
            cfg.rate, cfg.app_burst_s, created_at_ns=-round(cfg.limiter_idle_s * NS)
        )
        self.wakeup = round(cfg.app_wakeup_us * 1e3)

    def push(self, t, cls, kind, q=-1, a=0, b=0):
        self.seq += 1
        heappush(self.heap, (t, cls, kind, q, self.seq, a, b))

    def send_flows(self):
        for t, q, n in self.flows:
            self.flow_count += 1
            self.push(t + self.cfg.one_way_ns, 0, FLOW, q, n)
        self.flows.clear()

    def sample(self, t):
        self.sampler.record(t, self.held, self.memory.usage, self.consumed)

    def try_dispatch(self, q, t):
        if self.reading[q] or self.permits[q] <= 0:
            return
        if self.schedule is None:
            available = 10**18
        else:
            available = self.backlog0[q] + bisect_right(self.schedule[q], t) - self.dispatched[q]
        if available > 0:
            k = min(self.permits[q], available, self.cfg.max_read_entries)
            self.permits[q] -= k
            self.push(t + self.cfg.dispatch_ns, 0, READ_DONE, q, self.dispatched[q], k)
            self.dispatched[q] += k
            self.reading[q] = True
        elif not self.waking[q]:
            idx = self.dispatched[q] - self.backlog0[q]
            if idx < len(self.schedule[q]):
                self.waking[q] = True
                self.push(self.schedule[q][idx], 0, WAKE, q)

    def app_at(self, t):
        self.push(t, 1, APP)

    def take_one(self, t):
        if self.go:
            q, s = self.mch.popleft()
        else:
            q = self.front.take(t)
            s = self.taken[q]
        self.consumption.append((t, q, s))
        self.taken[q] += 1
        self.held -= 1
        self.consumed += 1

    def deliver_one(self, t):
        q, s = self.fifo.popleft()
        self.mch.append((q, s))
        self.cons[q].deliver(t)

    def take_batch(self, t, resume):
        n = self.front.batch_take_count()
        for _ in range(n):
            self.take_one(t)
        self.app_at(self.limiter.acquire(resume, n) if n else resume)

    def app_step(self, t):
        if self.go:
            if not self.mch:
                self.waiting = True
                return
            self.take_one(t)
            if self.fifo and not self.dispatch_pending:
                self.deliver_one(t)
            self.app_at(self.limiter.acquire(t))
        elif self.batch:
            if self.front.has_enough_for_batch():
                self.take_batch(t, t)
            else:
                self.front.expect_more(t)
                self.waiting = True
                self.batch_id += 1
                self.push(
                    t + round(self.cfg.batch_timeout_ms * 1e6), 0, BATCH_TIMEOUT, -1, self.batch_id
                )
        elif self.front.incoming:
            self.take_one(t)
            self.app_at(self.limiter.acquire(t))
        else:
            self.front.expect_more(t)
            self.waiting = True

    def arrival(self, t, q, s, first, last):
        self.held += 1
        self.peak = max(self.peak, self.held)
        if self.go:
            self.cons[q].messages_received(1, t)
            self.fifo.append((q, s))
            cap = self.cfg.message_channel_capacity
            if last and len(self.mch) < cap and not self.dispatch_pending:
                self.dispatch_pending = True
                self.push(t + self.wakeup, 0, DISPATCH)
            return
        child = self.cons[q]
        if len(self.cons) > 1:
            if first and child.pending:
                child.complete_pending(t)
                self.completed = True
            elif first:
                self.completed = False
                child.enqueue(1, t)
            else:
                child.enqueue(1, t)
            if last and self.completed:
                self.front.accept_from(child, t)
        else:
            child.enqueue(1, t)
        if last and self.waiting:
            if self.batch:
                if self.front.has_enough_for_batch():
                    self.waiting = False
                    self.take_batch(t, t + self.wakeup)
            elif self.front.incoming:
                self.waiting = False
                self.app_at(t + self.wakeup)

    def run(self) -> ReceiverQueueResult:
        cfg = self.cfg
        for q, c in enumerate(self.cons):
            self.push(cfg.one_way_ns, 0, FLOW, q, c.connect())
        if cfg.client == "java" and len(self.cons) > 1:
            for c in self.cons:
                self.front.pump(c, 0)
        self.send_flows()
        self.push(0, 0, SAMPLE)
        self.app_at(self.limiter.acquire(0))
        sample_ns = max(1, round(cfg.sample_ms * 1e6))
        while self.heap and self.heap[0][0] < self.end:
            t, cls, kind, q, _, a, b = heappop(self.heap)
            if cls == 1:
                self.app_step(t)
            elif kind == FLOW:
                self.permits[q] += a
                self.try_dispatch(q, t)
            elif kind == READ_DONE:
                self.reading[q] = False
                for i in range(b):
                    self.push(
                        t + cfg.one_way_ns, 0, ARRIVAL, q, a + i, (i == 0) | (i == b - 1) << 1
                    )
                self.try_dispatch(q, t)
            elif kind == WAKE:
                self.waking[q] = False
                self.try_dispatch(q, t)
            elif kind == ARRIVAL:
                self.arrival(t, q, a, bool(b & 1), bool(b & 2))
            elif kind == DISPATCH:
                self.dispatch_pending = False
                while self.fifo and len(self.mch) < cfg.message_channel_capacity:
                    self.deliver_one(t)
                if self.waiting and self.mch:
                    self.waiting = False
                    self.app_at(t)
            elif kind == BATCH_TIMEOUT:
                if self.waiting and a == self.batch_id:
                    self.waiting = False
                    self.take_batch(t, t + self.wakeup)
            else:
                self.sample(t)
                if t + sample_ns < self.end:
                    self.push(t + sample_ns, 0, SAMPLE)
            self.send_flows()
        self.sample(self.end)
        parent = self.front.size if (cfg.client == "java" and len(self.cons) > 1) else None
        extra = [self.front] if parent is not None else []
        return ReceiverQueueResult(
            config=cfg,
            final_sizes=tuple(c.size for c in self.cons),
            parent_size=parent,
            consumed=self.consumed,
            produced=None,
            flows=self.flow_count,
            expansions=sum(c.expansions for c in [*self.cons, *extra]),
            shrinks=sum(c.shrinks for c in [*self.cons, *extra]),
            peak_queued=self.peak,
            size_log=self.size_log,
            samples=self.sampler.data,
            consumption=self.consumption,
        )


def simulate_naive(cfg: ReceiverQueueConfig) -> ReceiverQueueResult:
    return NaiveReceiverQueue(cfg.with_(record_consumption=True)).run()
