"""Time-bucketed InMemoryDelayedDeliveryTracker against the naive delayed index."""

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tests.reference.delayed import NaiveDelayedIndex
from trackerlab.models.delayed.bucketed_tracker import BucketDelayedTracker, precision_bits_for_tick
from trackerlab.workloads.stream import Workload


def early_bound(variant: str, strict: bool, tick: int) -> int:
    """How much earlier than deliverAt a message may be handed out (documented contracts)."""
    bits = precision_bits_for_tick(tick)
    if variant == "a":
        return (1 << bits) - 1 + (0 if strict else tick)
    return 0 if strict else tick


def late_bound(variant: str, strict: bool, tick: int) -> int:
    """How much later than the ideal heap (deliverAt <= now): strict c rounds keys up."""
    return (1 << precision_bits_for_tick(tick)) - 1 if (variant, strict) == ("c", True) else 0


class DelayedTrackerMachine(RuleBasedStateMachine):
    @initialize(
        variant=st.sampled_from(["a", "c"]),
        strict=st.booleans(),
        tick=st.sampled_from([1, 4, 10, 100]),
    )
    def setup(self, variant, strict, tick):
        self.variant, self.strict, self.tick = variant, strict, tick
        self.tracker = BucketDelayedTracker(tick, strict, variant)
        self.now = 10_000
        self.ref = NaiveDelayedIndex(tick, strict)

    def _scaled(self, steps: int) -> int:
        """Durations in eighths of the tick, so every tick sees its bucket edges."""
        return steps * max(self.tick, 8) // 8

    @rule(ledger=st.integers(1, 3), entry=st.integers(0, 20), steps=st.integers(-1, 40))
    def add(self, ledger, entry, steps):
        deliver_at = self.now + self._scaled(steps)
        cutoff = self.now if self.strict else self.now + self.tick
        expected = not (deliver_at < 0 or deliver_at <= cutoff)
        if self.ref.tracks(ledger, entry):
            return  # Pulsar never tracks one position twice; keep the reference simple
        assert self.tracker.add_message(ledger, entry, deliver_at, self.now) == expected
        assert self.ref.add(ledger, entry, deliver_at, self.now) == expected

    @rule(steps=st.integers(0, 20))
    def advance(self, steps):
        self.now += self._scaled(steps) + steps % 3

    @rule(n=st.integers(1, 30))
    def get_scheduled(self, n):
        got = self.tracker.get_scheduled_messages(n, self.now)
        assert got == sorted(got) and len(got) <= n
        by_pos = self.ref.deliver_at()
        for pos in got:
            assert pos in by_pos, "handed out a message that is not tracked"
            assert by_pos[pos] - self.now <= early_bound(self.variant, self.strict, self.tick)
        self.ref.remove(got)
        if len(got) < n:  # not limited by n: nothing due may be left behind
            late = late_bound(self.variant, self.strict, self.tick)
            assert all(t > self.now - late for t, _, _ in self.ref.heap)

    @invariant()
    def counts_agree(self):
        if hasattr(self, "tracker"):
            assert self.tracker.number_of_delayed_messages() == len(self.ref)
            assert self.tracker.fixed_delay == self.ref.fixed_delay
            assert self.tracker.highest_tracked == self.ref.highest_tracked


TestDelayedTracker = DelayedTrackerMachine.TestCase
TestDelayedTracker.settings = settings(max_examples=80, stateful_step_count=40, deadline=None)


def test_precision_bits_for_tick():
    assert [precision_bits_for_tick(t) for t in (0, 1, 2, 100, 1000, 1024)] == [0, 0, 1, 6, 9, 10]


def test_get_scheduled_takes_smallest_entries_of_a_partial_ledger():
    tracker = BucketDelayedTracker(tick_ms=1, variant="c")
    for e in (5, 1, 9, 3):
        assert tracker.add_message(7, e, deliver_at=100, now_ms=0)
    assert tracker.get_scheduled_messages(2, now_ms=200) == [(7, 1), (7, 3)]
    assert tracker.get_scheduled_messages(10, now_ms=200) == [(7, 5), (7, 9)]
    assert tracker.number_of_delayed_messages() == 0


def test_variant_a_early_delivery_and_variant_c_fix():
    # tick 1000 -> 9 bits (512 ms buckets); deliverAt 2047 sits in bucket 1536
    a = BucketDelayedTracker(tick_ms=1000, variant="a")
    c = BucketDelayedTracker(tick_ms=1000, variant="c")
    for t in (a, c):
        assert t.add_message(1, 1, deliver_at=2047, now_ms=0)
    assert a.get_scheduled_messages(10, now_ms=536) == [(1, 1)]  # 1511 ms early: tick + 511
    assert c.get_scheduled_messages(10, now_ms=536) == []
    assert c.get_scheduled_messages(10, now_ms=1047) == [(1, 1)]  # exactly tick early


def test_strict_c_rounds_up_and_saturates():
    c = BucketDelayedTracker(tick_ms=8, strict=True, variant="c")
    assert c.bucket_key(17) == 24 and c.bucket_key(16) == 16
    huge = (1 << 63) - 3
    assert c.bucket_key(huge) == ((1 << 63) - 1) & ~7
    assert c.bucket_key(np.array([17, 16])).tolist() == [24, 16]


def test_fixed_delay_detection_pauses_deliveries():
    t = BucketDelayedTracker(tick_ms=10, lookahead=3)
    for i in range(3):
        t.add_message(1, i, deliver_at=1000 + i, now_ms=i)
    assert t.should_pause_all_deliveries(now_ms=5)
    t.add_message(1, 9, deliver_at=900, now_ms=6)  # 101 ms before the highest tracked time
    assert not t.should_pause_all_deliveries(now_ms=6)
    t.get_scheduled_messages(100, now_ms=5000)  # empties -> detection resets
    assert t.fixed_delay and t.highest_tracked == 0


@pytest.mark.parametrize("variant", ["a", "c"])
def test_bulk_chunk_equals_per_message(variant):
    w = Workload.from_options(30_000, 4, delay="uniform:2s:8s", entries_per_ledger=7000, seed=3)
    bulk = BucketDelayedTracker(100, variant=variant)
    slow = BucketDelayedTracker(100, variant=variant)
    tracked = 0
    for chunk in w.chunks():
        tracked += bulk.add_chunk(chunk)
        for led, e, pub, d in zip(
            chunk.ledger.tolist(),
            chunk.entry.tolist(),
            chunk.publish_ms.tolist(),
            chunk.deliver_at.tolist(),
            strict=True,
        ):
            slow.add_message(led, e, d, pub)
    assert (
        tracked == 30_000 == bulk.number_of_delayed_messages() == slow.number_of_delayed_messages()
    )
    assert bulk.fixed_delay == slow.fixed_delay is False  # random delays break the detection
    now = int(w.start_ms + 5000)
    for _ in range(5):
        assert bulk.get_scheduled_messages(1000, now) == slow.get_scheduled_messages(1000, now)
        now += 700
