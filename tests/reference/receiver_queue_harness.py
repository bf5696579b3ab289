"""A per-message reference for the modelled harness's event loop.

The engine (``trackerlab.models.receiver_queue.harness_engine``) takes messages in
closed-form runs (``SmoothBurstyLimiter.run``, ``GoPartitionConsumer.deliver_many``,
``JavaConsumer.take_many``, the parent's ``take_many`` up to the resume threshold). Here
every take is its own heap event, after every network/broker event of the same instant,
and uses the per-message rules (``deliver``, ``take``) and ``acquire`` once per message.
The producer's entries and the dispatcher are shared (each has its own hand-trace tests).
"""

from __future__ import annotations

from collections import deque
from heapq import heappop, heappush

from trackerlab.models.receiver_queue.harness import HarnessConfig, HarnessResult
from trackerlab.models.receiver_queue.harness_engine import HarnessEngine
from trackerlab.models.receiver_queue.simulator import produce

APP = 7  # after every other kind at the same instant


class NaiveHarness(HarnessEngine):
    """The engine's state and set-up; a per-message main loop."""

    def _push_app(self) -> None:
        heappush(self.heap, (self.app_ready, APP, -1, next(self.seq), 0, 0))

    def _take_one(self, t: int) -> bool:
        """One application step at ``t``; False when it found nothing (now waiting)."""
        app = self.app
        if self.cfg.client == "go":
            if not self.queue:
                return False
            head = self.queue[0]
            self.cons[head[0]].deliver(t)
            self.held_q[head[0]] -= 1
            head[1] -= 1
            if not head[1]:
                self.queue.popleft()
        elif self.parent is None:
            c = self.cons[0]
            if not c.incoming:
                c.expect_more(t)
                return False
            c.take(t)
        else:
            if not self.parent.incoming:
                self.parent.expect_more(t)
                if not self.parent.incoming:
                    return False
            self.parent.take_many(1, t)
        self.consumed += 1
        self.held -= 1
        self.last_take = t
        self.app_ready = app.acquire(t)
        return True

    def run(self) -> HarnessResult:
        heap, end = self.heap, self.end
        self._start()
        app_pending = False  # an APP event is in the heap
        while heap and heap[0][0] < end:
            t, kind, q, _, a, b = heappop(heap)
            if kind == APP:
                app_pending = False
                if not self._take_one(t):
                    self.waiting = True
            else:
                self._handle(t, kind, q, a, b)
            if self.flows:
                self._schedule_flows()
            if not self.waiting and not app_pending:
                self._push_app()
                app_pending = True
        self._sample(end)
        return self._result()


def simulate_naive(cfg: HarnessConfig) -> HarnessResult:
    cfg = cfg.validated()
    engine = NaiveHarness(cfg, produce(cfg))
    engine.queue = deque()
    return engine.run()
