"""The engine's closed forms against the per-message rules they replace."""

from __future__ import annotations

import copy
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from trackerlab.models.receiver_queue.go import GoPartitionConsumer
from trackerlab.models.receiver_queue.java import JavaConsumer
from trackerlab.models.receiver_queue.memory_limit import MemoryLimitController
from trackerlab.models.receiver_queue.rate_limiter import SmoothBurstyLimiter


def _go(size, permits, incoming, max_size=1000):
    c = GoPartitionConsumer(
        0, max_size, auto=True, memory=MemoryLimitController(None), message_bytes=1,
        flows=[], size_log=[],
    )  # fmt: skip
    c.size, c.permits, c.incoming = size, permits, incoming
    return c


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 1000), st.integers(-50, 499), st.integers(1, 3000), st.integers(1, 600))
def test_go_deliver_many_equals_single_deliveries(size, permits, incoming, k):
    bulk = _go(size, min(permits, max(size // 2, 1) - 1), incoming)
    k = min(k, bulk.to_flow(), incoming)
    one = copy.deepcopy(bulk)
    for _ in range(k):
        one.deliver(7)
    bulk.deliver_many(k, 7)
    assert (bulk.permits, bulk.incoming, bulk.size, bulk.flows) == (
        one.permits, one.incoming, one.size, one.flows,
    )  # fmt: skip


def test_go_one_entry_sets_the_hint_once():
    """#976 (b8563cd8 :1113-1116): incoming += len(entry), then one markScaleIfNeed."""
    c = _go(2, 0, 0)
    c.messages_received(1, 0)
    assert c.incoming == 1 and not c.hint  # 0 + 1 < 2
    c.messages_received(3, 0)
    assert c.incoming == 4 and c.hint
    # the next delivery returns its permit (Flow(1) at max(2 / 2, 1) = 1), then consumes
    # the hint: 2 -> 4, +2 permits, Flow(2) at 4 / 2 = 2
    c.deliver(0)
    assert (c.size, c.permits, c.flows) == (4, 0, [(0, 0, 1), (0, 0, 2)])


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 1000), st.integers(-60, 499), st.integers(1, 2000), st.integers(1, 900))
def test_java_take_many_equals_single_takes(size, permits, incoming, k):
    bulk = JavaConsumer(
        0, 1000, auto=True, memory=MemoryLimitController(None), message_bytes=1, flows=[],
        size_log=[],
    )  # fmt: skip
    bulk.size, bulk.incoming = size, incoming
    bulk.permits = min(permits, size // 2 - 1) if size >= 2 else min(permits, -1)
    k = min(k, incoming)
    one = copy.deepcopy(bulk)
    for _ in range(k):
        one.take(3)
    bulk.take_many(k, 3)
    assert (bulk.permits, bulk.incoming, bulk.flows) == (one.permits, one.incoming, one.flows)


def test_guava_run_equals_acquire_one_by_one():
    rnd = random.Random(5)
    for _ in range(500):
        rate = rnd.choice([3, 100, 20_000])
        burst = rnd.choice([0.0, 0.01, 1.0])
        a = SmoothBurstyLimiter(rate, burst, created_at_ns=-rnd.randint(0, 10**9))
        b = copy.deepcopy(a)
        t = rnd.randint(0, 10**9)
        count = rnd.randint(1, 40)
        takes, cur = [t], t
        for _ in range(count):
            cur = a.acquire(cur)
            takes.append(cur)
        assert b.run(t, count) == (takes[count - 1], takes[count])
        assert (a.next_free, a.stored) == (b.next_free, b.stored)
        limit = t + rnd.randint(1, 10**9)
        c = copy.deepcopy(b)
        n = c.takes_before(cur, limit)
        later, x = [cur], cur
        for _ in range(n + 1):
            x = c.acquire(x)
            later.append(x)
        assert sum(v < limit for v in later) == n


def test_guava_run_by_hand():
    """10 msg/s, 1 s burst, idle 350 ms: 3.5 permits stored. Pay later: take 0 is free,
    acquires 0..3 return 350 ms (0, 100, 200, 300 ms of need <= 350 of credit), acquire 4
    needs 400 - 350 = 50 ms more, acquire 5 150 ms: takes 0-4 at 350, 5 at 400, 6 at 500."""
    g = SmoothBurstyLimiter(10, 1.0, created_at_ns=0)
    ms = 1_000_000
    assert g.run(350 * ms, 6) == (400 * ms, 500 * ms)
    assert g.stored == 0 and g.next_free == 600 * ms
