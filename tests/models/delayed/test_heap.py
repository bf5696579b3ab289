"""InMemoryDelayedDeliveryTracker v1 (TripleLongPriorityQueue) against the naive index."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tests.reference.delayed import NaiveDelayedIndex
from trackerlab.models.delayed.heap import InMemoryDelayedDeliveryTracker as Tracker


def test_cutoff_and_rejections():
    t = Tracker(tick_time_ms=1000)
    assert not t.add_message(1, 1, deliver_at=-5, now_ms=0)
    assert not t.add_message(1, 1, deliver_at=1000, now_ms=0)  # <= now + tick
    assert not t.messages_have_fixed_delay
    assert t.add_message(1, 1, deliver_at=1001, now_ms=0)
    strict = Tracker(tick_time_ms=1000, strict=True)
    assert not strict.add_message(1, 1, deliver_at=0, now_ms=0)
    assert strict.add_message(1, 1, deliver_at=1, now_ms=0)


def test_scheduled_messages_order_max_and_duplicates():
    t = Tracker(tick_time_ms=10)
    for ledger, entry, at in [(3, 1, 100), (1, 5, 50), (1, 2, 50), (3, 1, 60), (2, 0, 500)]:
        assert t.add_message(ledger, entry, at, now_ms=0)
    assert not t.has_message_available(39)
    assert t.get_scheduled_messages(5, now_ms=39) == []  # 50 > 39 + tick
    assert t.has_message_available(40)  # 50 <= 40 + tick
    assert t.get_scheduled_messages(2, now_ms=40) == [(1, 2), (1, 5)]
    # (3,1) twice: two pops, one position; max counts pops
    assert t.get_scheduled_messages(10, now_ms=95) == [(3, 1)]
    assert t.number_of_delayed_messages() == 1
    assert t.get_scheduled_messages(10, now_ms=95) == []


def test_timer_updates():
    t = Tracker(tick_time_ms=1000, strict=True)
    t.add_message(1, 1, 5000, now_ms=0)
    assert (t.current_timeout_target, t.timer_deadline_ms) == (5000, 5000)
    t.add_message(1, 2, 3000, now_ms=100)
    assert t.timer_deadline_ms == 3000
    t.run_timer(3000)
    assert t.timer_deadline_ms is None and t.last_tick_run == 3000
    t.get_scheduled_messages(1, now_ms=3000)  # pops 3000; head 5000 → 5000
    assert t.timer_deadline_ms == 5000
    t.add_message(1, 3, 3500, now_ms=3100)  # head 3500, but not before lastTickRun + tick
    assert (t.current_timeout_target, t.timer_deadline_ms) == (3500, 4000)
    t.get_scheduled_messages(10, now_ms=9000)
    assert t.timer_deadline_ms is None and t.current_timeout_target == -1


def test_fixed_delay_detection_and_pause():
    t = Tracker(tick_time_ms=100, fixed_delay_lookahead=3)
    for i in range(3):
        t.add_message(1, i, 1000 + i, now_ms=i)
    assert t.messages_have_fixed_delay and t.should_pause_all_deliveries(now_ms=3)
    assert not t.should_pause_all_deliveries(now_ms=950)  # something is due
    t.add_message(1, 9, 850, now_ms=4)  # 850 < 1002 - 100: out of order
    assert not t.messages_have_fixed_delay and not t.should_pause_all_deliveries(now_ms=4)
    t.get_scheduled_messages(10, now_ms=2000)
    assert t.messages_have_fixed_delay and t.highest_delivery_time_tracked == 0
    assert not Tracker(fixed_delay_lookahead=0).should_pause_all_deliveries(0)


def test_buffer_memory_usage_is_bytes_capacity():
    t = Tracker()
    assert t.buffer_memory_usage() == 384 and t.jvm_direct_bytes() == 384
    for i in range(17):
        t.add_message(1, i, 10_000 + i, now_ms=0)
    assert t.buffer_memory_usage() == 768
    assert Tracker(queue_version="v3").jvm_direct_bytes() == 0


class DelayedMachine(RuleBasedStateMachine):
    """Same messages as the naive index; never earlier than deliverAt - tick (strict: 0)."""

    @initialize(
        tick=st.sampled_from([0, 1, 10]),
        strict=st.booleans(),
        version=st.sampled_from(["v1", "v2", "v3"]),
    )
    def setup(self, tick, strict, version):
        self.t = Tracker(
            tick_time_ms=tick, strict=strict, queue_version=version, fixed_delay_lookahead=4
        )
        self.ref = NaiveDelayedIndex(tick, strict)
        self.now = 0
        self.early = 0 if strict else tick

    @rule(ledger=st.integers(0, 3), entry=st.integers(0, 5), delay=st.integers(-2, 40))
    def add(self, ledger, entry, delay):
        at = self.now + delay
        accepted = self.t.add_message(ledger, entry, at, self.now)
        assert accepted == (at >= 0 and at > self.now + self.early)
        assert accepted == self.ref.add(ledger, entry, at, self.now)

    @rule(dt=st.integers(0, 12))
    def advance(self, dt):
        self.now += dt

    @rule(max_messages=st.integers(1, 8))
    def scheduled(self, max_messages):
        got = self.t.get_scheduled_messages(max_messages, self.now)
        popped = self.ref.pop_due(max_messages, self.now)
        assert got == sorted({(ledger, entry) for _, ledger, entry in popped})
        assert all(at - self.early <= self.now for at, _, _ in popped)

    @rule()
    def clear(self):
        self.t.clear()
        self.ref.clear()

    @invariant()
    def consistent(self):
        assert self.t.number_of_delayed_messages() == len(self.ref)
        due = bool(self.ref.heap) and self.ref.heap[0][0] <= self.now + self.early
        assert (
            self.t.has_message_available(self.now)
            == due
            == self.ref.has_message_available(self.now)
        )
        assert self.t.messages_have_fixed_delay == self.ref.fixed_delay
        assert self.t.highest_delivery_time_tracked == self.ref.highest_tracked
        assert self.t.should_pause_all_deliveries(self.now) == (
            self.ref.fixed_delay and len(self.ref) >= 4 and not due
        )
        assert self.t.buffer_memory_usage() == 8 * self.t.queue.capacity_longs


TestDelayedMachine = DelayedMachine.TestCase
TestDelayedMachine.settings = settings(max_examples=50, stateful_step_count=40, deadline=None)


@pytest.mark.parametrize("version", ["v1", "v2", "v3"])
def test_bulk_equals_per_message_adds(version):
    rng = np.random.default_rng(7)
    n = 2000
    ledger = rng.integers(0, 4, n)
    entry = rng.integers(0, 100, n)
    at = 5_000 + rng.integers(-3_000, 3_000, n)  # some rejected at now = 2,500
    per_op = Tracker(queue_version=version)
    for i in range(n):
        per_op.add_message(int(ledger[i]), int(entry[i]), int(at[i]), now_ms=2_500)
    bulk = Tracker.from_arrays(ledger, entry, at, now_ms=2_500, queue_version=version)
    for attr in (
        "messages_have_fixed_delay",
        "highest_delivery_time_tracked",
        "current_timeout_target",
        "timer_deadline_ms",
    ):
        assert getattr(bulk, attr) == getattr(per_op, attr), attr
    assert bulk.buffer_memory_usage() == per_op.buffer_memory_usage()
    assert bulk.jvm_bytes() == per_op.jvm_bytes()
    for now in (4_000, 6_000, 9_000):
        assert bulk.get_scheduled_messages(300, now) == per_op.get_scheduled_messages(300, now)
    fixed = Tracker.from_arrays(np.zeros(5), np.arange(5), 10_000 + np.arange(5), now_ms=0)
    assert fixed.messages_have_fixed_delay and fixed.highest_delivery_time_tracked == 10_004


def test_bulk_with_one_add_time_per_message():
    rng = np.random.default_rng(11)
    n = 1500
    now = np.sort(rng.integers(0, 10_000, n))
    at = now + rng.integers(-500, 3_000, n)
    ledger, entry = rng.integers(0, 3, n), np.arange(n)
    per_op = Tracker(tick_time_ms=100)
    accepted = [
        per_op.add_message(int(ledger[i]), int(entry[i]), int(at[i]), int(now[i])) for i in range(n)
    ]
    bulk = Tracker.from_arrays(ledger, entry, at, now_ms=now, tick_time_ms=100)
    assert bulk.number_of_delayed_messages() == sum(accepted) < n
    assert bulk.messages_have_fixed_delay == per_op.messages_have_fixed_delay is False
    assert bulk.highest_delivery_time_tracked == per_op.highest_delivery_time_tracked
    assert bulk.get_scheduled_messages(n, 20_000) == per_op.get_scheduled_messages(n, 20_000)
