"""Go and Java receiver-queue rules: hand-computed traces and state machines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from trackerlab.models.receiver_queue.go import GoPartitionConsumer
from trackerlab.models.receiver_queue.java import (
    JavaConsumer,
    JavaMultiTopicsConsumer,
    partition_max_size,
)
from trackerlab.models.receiver_queue.memory_limit import MemoryLimitController
from trackerlab.models.receiver_queue.rate_limiter import SmoothBurstyLimiter


def go(max_size=1000, auto=True, limit=None, message_bytes=1):
    flows, log = [], []
    memory = MemoryLimitController(limit)
    c = GoPartitionConsumer(
        0,
        max_size,
        auto=auto,
        memory=memory,
        message_bytes=message_bytes,
        flows=flows,
        size_log=log,
    )
    return c, flows, memory


def java(max_size=1000, auto=True, limit=None, batch_max=-1, partition=0, memory=None):
    flows, log = [], []
    memory = memory or MemoryLimitController(limit, java_rounding=True)
    c = JavaConsumer(
        partition,
        max_size,
        auto=auto,
        memory=memory,
        message_bytes=1,
        flows=flows,
        size_log=log,
        batch_max=batch_max,
    )
    return c, flows, memory


def amounts(flows):
    return [n for _, _, n in flows]


# ----------------------------------------------------------------------------- Go traces


def test_go_trace_from_spec_slow_producer_ends_at_2():
    """Spec §5.1: consumer always waiting, max 3."""
    c, flows, _ = go(max_size=3)
    assert (c.size, c.connect()) == (1, 1)
    c.messages_received(1, 0)
    assert c.hint  # 0 permits + 1 incoming >= 1
    c.deliver(0)  # permits 1 >= max(1/2, 1) -> Flow(1); expand 1 -> 2, +1 permit -> Flow(1)
    assert (c.size, c.permits, c.incoming, c.hint) == (2, 0, 0, False)
    assert amounts(flows) == [1, 1]
    for _ in range(5):  # later messages: 0 + 1 >= 2 is false, no growth
        c.messages_received(1, 0)
        assert not c.hint
        c.deliver(0)
    assert c.size == 2 and amounts(flows) == [1, 1] + [1] * 5


def test_go_full_queue_expands_on_next_delivery_capped_at_max():
    c, flows, _ = go(max_size=3)
    c.connect()
    c.messages_received(1, 0)
    c.deliver(0)  # -> size 2
    c.messages_received(2, 0)  # both credits in the queue: 0 + 2 >= 2
    assert c.hint
    c.deliver(0)  # Flow(1) for the permit, then 2 -> min(3, 4) = 3, +1 permit -> Flow(1)
    assert (c.size, c.permits, c.incoming) == (3, 0, 1)
    c.deliver(0)  # threshold max(3 / 2, 1) = 1: every permit flows
    assert c.size == 3 and amounts(flows) == [1, 1, 1, 1, 1]


def test_go_flow_threshold_is_half_the_size():
    c, flows, _ = go(max_size=8, auto=False)
    assert c.connect() == 8 and c.size == 8
    for _ in range(3):
        c.deliver(0)
    assert flows == [] and c.permits == 3
    c.deliver(0)  # 4 >= 8 / 2
    assert amounts(flows) == [4] and c.permits == 0


def test_go_no_expansion_at_75_percent_memory_and_the_hint_is_spent():
    c, _, memory = go(max_size=100, limit=100)
    c.connect()
    memory.force_reserve(75, 0)  # other users of the client hold 75 %
    c.messages_received(1, 0)
    assert c.hint
    c.deliver(0)  # usage back to 75 % after the release: no expansion, hint consumed
    assert (c.size, c.hint) == (1, False)
    memory.release(1)
    c.expect_more(0)
    assert c.size == 1  # Go consumed the hint: nothing left to expand on


def test_go_shrink_at_95_percent_halves_and_delays_the_next_flow():
    c, flows, memory = go(max_size=64, limit=100)
    c.size, c.permits, c.incoming = 16, 3, 8
    memory.force_reserve(94, 0)
    assert c.size == 16
    c.messages_received(1, 0)  # 94 -> 95: crosses 0.95 upward, shrink 16 -> 8
    assert (c.size, c.permits, c.shrinks) == (8, 3 - 8, 1)
    memory.force_reserve(1, 0)  # no new crossing
    assert c.size == 8
    for _ in range(5 + 4):  # -5 .. 4 permits before Flow(4)
        c.deliver(0)
    assert amounts(flows) == [4]


def test_go_shrink_floor_is_one():
    c, _, _ = go(max_size=4)
    for expected in (1, 1):
        c.shrink(0)
        assert c.size == expected


def test_go_fixed_queue_never_changes():
    c, flows, memory = go(max_size=10, auto=False, limit=10)
    c.connect()
    c.messages_received(10, 0)
    assert memory.usage == 0  # Go reserves consumer memory only in auto mode
    for _ in range(10):
        c.deliver(0)
    c.shrink(0)
    assert c.size == 10 and amounts(flows) == [5, 5]


# ----------------------------------------------------------------------------- Java traces


def test_java_hint_only_on_enqueue_expansion_only_on_empty_receive():
    c, flows, _ = java(max_size=3)
    assert (c.size, c.connect()) == (1, 1)
    c.enqueue(1, 0)  # 0 + 1 >= 1
    assert c.hint
    c.take(0)  # permits 1 >= 1 / 2 = 0 -> Flow(1)
    assert c.size == 1 and amounts(flows) == [1]
    c.expect_more(0)  # the application finds the queue empty: 1 -> 2, +1 permit -> Flow(1)
    assert (c.size, c.hint) == (2, False) and amounts(flows) == [1, 1]
    c.enqueue(1, 0)  # 0 + 1 >= 2 is false
    c.take(0)
    c.expect_more(0)
    assert c.size == 2


def test_java_completed_pending_receive_never_sets_the_hint():
    c, flows, _ = java()
    c.connect()
    c.pending = True
    c.complete_pending(0)
    assert not c.hint and amounts(flows) == [1]
    c.expect_more(0)
    assert c.size == 1


def test_java_memory_blocks_expansion_but_keeps_the_hint():
    c, _, memory = java(max_size=8, limit=100)
    c.connect()
    c.enqueue(1, 0)
    c.take(0)
    memory.force_reserve(80, 0)
    c.expect_more(0)
    assert (c.size, c.hint) == (1, True)
    memory.release(10)  # 70 % < 75 %
    c.expect_more(0)
    assert (c.size, c.hint) == (2, False)


def test_java_flow_rule_integer_half_and_negative_delta():
    c, flows, _ = java(max_size=8, auto=False)
    assert c.connect() == 8
    for _ in range(3):
        c.increase_available_permits(1, 0)
    assert flows == []
    c.increase_available_permits(1, 0)  # 4 >= 8 / 2
    assert amounts(flows) == [4]
    c2, flows2, _ = java(max_size=16)
    c2.size, c2.permits = 8, 2
    c2.reduce(0)  # 8 -> 4, permits 2 - 4 = -2
    assert (c2.size, c2.permits, flows2) == (4, -2, [])
    for _ in range(3):
        c2.increase_available_permits(1, 0)
    assert c2.permits == 1 and flows2 == []
    c2.increase_available_permits(1, 0)
    assert amounts(flows2) == [2]


@pytest.mark.parametrize(("batch_max", "expected"), [(-1, 1), (1, 1), (2, 2), (5, 8), (600, 1198)])
def test_java_min_receiver_queue_size_with_batch_receive(batch_max, expected):
    """``max(min(1, max), 2 * batchMax - 2)``; Java does not cap it at the maximum."""
    c, _, _ = java(batch_max=batch_max)
    assert c.min_size() == expected and c.size == expected
    c.size = 4096
    c.reduce(0)
    assert c.size == max(expected, 2048)


def test_java_batch_receive_counts():
    c, _, _ = java(batch_max=3)
    c.enqueue(2, 0)
    assert not c.has_enough_for_batch() and c.batch_take_count() == 2
    c.enqueue(2, 0)
    assert c.has_enough_for_batch() and c.batch_take_count() == 3


def test_java_partition_max_uses_the_cross_partition_total():
    assert partition_max_size(1000, 50000, 3) == 1000
    assert partition_max_size(1000, 1200, 3) == 400
    assert partition_max_size(1000, 1200, 1) == 1000


def test_java_multi_topics_pump_pause_resume_and_child_growth():
    memory = MemoryLimitController(None)
    children = [java(memory=memory, partition=q)[0] for q in range(3)]
    parent = JavaMultiTopicsConsumer(
        children, 1000, auto=True, memory=memory, message_bytes=1, size_log=[]
    )
    assert parent.size == 3  # max(1, #partitions)
    for ch in children:
        ch.connect()
        parent.pump(ch, 0)
        assert ch.pending
    child = children[0]
    parent.child_arrival(child, 3, 0)  # first completes the pending receive, 2 enqueued
    assert child.hint  # 1 permit + 2 queued >= 1
    assert (parent.incoming, child.incoming, parent.paused) == (3, 0, [child])
    assert not child.pending
    parent.take(0)  # 2 > 3 / 2: stays paused
    assert parent.paused == [child]
    parent.take(0)  # 1 <= 1: resume; the child is empty -> expectMore -> 1 -> 2
    assert parent.paused == [] and child.pending and child.size == 2
    parent.take(0)
    parent.expect_more(0)  # parent hint was set when it filled to 3
    assert parent.size == 6


# ----------------------------------------------------------------------------- closed forms


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 64),
    st.integers(0, 40),
    st.integers(0, 40),
    st.integers(1, 30),
    st.integers(0, 200),
    st.sampled_from(["go", "java"]),
)
def test_frame_of_k_equals_k_single_messages(size, permits, incoming, k, used, client):
    make = go if client == "go" else java
    pair = []
    for _ in range(2):
        c, flows, memory = make(max_size=64, limit=200)
        c.size, c.permits, c.incoming = size, permits, incoming
        memory.force_reserve(used, 0)
        pair.append((c, flows, memory))
    (a, fa, ma), (b, fb, mb) = pair
    (a.messages_received if client == "go" else a.enqueue)(k, 0)
    for _ in range(k):
        (b.messages_received if client == "go" else b.enqueue)(1, 0)
    assert (a.size, a.permits, a.incoming, a.hint, a.shrinks) == (
        b.size,
        b.permits,
        b.incoming,
        b.hint,
        b.shrinks,
    )
    assert fa == fb and ma.usage == mb.usage


def test_guava_limiter_pays_later_and_stores_idle_permits():
    lim = SmoothBurstyLimiter(10, 1.0, created_at_ns=0)  # 100 ms per permit
    assert [lim.acquire(0) for _ in range(3)] == [0, 100_000_000, 200_000_000]
    lim = SmoothBurstyLimiter(10, 1.0, created_at_ns=-250_000_000)  # idle 250 ms: 2.5 stored
    got = [lim.acquire(0) for _ in range(5)]
    assert got == [0, 0, 0, 50_000_000, 150_000_000]
    lim = SmoothBurstyLimiter(10, 1.0, created_at_ns=-(10**10))  # stored capped at 1 s = 10
    assert [lim.acquire(0) for _ in range(12)][-2:] == [0, 100_000_000]


# ----------------------------------------------------------------------------- state machines


class CreditMachine(RuleBasedStateMachine):
    """Any interleaving of broker deliveries, dispatches, receives and memory pressure.

    Credits are conserved: ``size == permits + queued + credits held by the broker``,
    where the broker holds every Flowed permit not yet used. Permits go negative only
    after a shrink, sizes stay in ``[1, max]``, every Flow asks for at least one message.
    A second consumer fed the same frames one message at a time must stay identical.
    """

    client = "go"

    def __init__(self):
        super().__init__()
        make = go if self.client == "go" else java
        self.max = 50
        self.a, self.flows, self.memory = make(max_size=self.max, limit=100)
        self.b, self.flows_b, self.memory_b = make(max_size=self.max, limit=100)
        self.flowed = self.a.connect()
        self.b.connect()
        self.received = 0
        self.shrunk = False

    def both(self, name, *args):
        getattr(self.a, name)(*args)
        getattr(self.b, name)(*args)

    @precondition(lambda self: self.flowed > self.received)
    @rule(data=st.data())
    def frame_arrives(self, data):
        k = data.draw(st.integers(1, self.flowed - self.received))
        if self.client == "go":
            self.a.messages_received(k, 0)
            for _ in range(k):
                self.b.messages_received(1, 0)
        else:
            self.a.enqueue(k, 0)
            for _ in range(k):
                self.b.enqueue(1, 0)
        self.received += k

    @precondition(lambda self: self.a.incoming > 0)
    @rule()
    def consumer_takes_one(self):
        self.both("deliver" if self.client == "go" else "take", 0)

    @precondition(lambda self: self.client == "java" and self.a.incoming == 0)
    @rule()
    def application_finds_queue_empty(self):
        self.both("expect_more", 0)

    @rule(n=st.integers(0, 100))
    def other_memory(self, n):
        for m in (self.memory, self.memory_b):
            m.release(m.usage)
            m.force_reserve(n, 0)

    @rule()
    def shrink_trigger(self):
        self.both("shrink" if self.client == "go" else "reduce", 0)

    @invariant()
    def credits_conserved(self):
        self.flowed += sum(n for _, _, n in self.flows)
        assert all(n > 0 for _, _, n in self.flows)
        self.flows.clear()
        self.flows_b.clear()
        a = self.a
        assert a.size == a.permits + a.incoming + (self.flowed - self.received)
        assert 1 <= a.size <= self.max
        if a.shrinks:
            self.shrunk = True
        assert a.permits >= 0 or self.shrunk
        # the queue never holds more than the size, except the negative permits of a shrink
        assert a.incoming <= a.size - min(a.permits, 0)
        b = self.b
        assert (a.size, a.permits, a.incoming, a.hint) == (b.size, b.permits, b.incoming, b.hint)


class GoCreditMachine(CreditMachine):
    client = "go"


class JavaCreditMachine(CreditMachine):
    client = "java"


TestGoCredits = GoCreditMachine.TestCase
TestJavaCredits = JavaCreditMachine.TestCase
TestGoCredits.settings = settings(max_examples=100, stateful_step_count=40, deadline=None)
TestJavaCredits.settings = settings(max_examples=100, stateful_step_count=40, deadline=None)
