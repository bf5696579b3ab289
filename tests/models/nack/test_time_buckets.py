"""PIP-393 NegativeAcksTracker against the naive reference (the list of nack requests)."""

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from tests.reference.nack import NaiveNackRequests, trim_lower_bit
from trackerlab.models.nack.pip393_tracker import MIN_NACK_DELAY_MS, BucketNackTracker
from trackerlab.workloads.stream import Workload


class NackTrackerMachine(RuleBasedStateMachine):
    """Rules: nack an entry now, let time pass. Checks after every step:

    - exactly the reference's messages are redelivered: each (entry, bucket) pending in the
      reference comes out once, duplicates within a bucket once, across buckets twice;
    - never later than the reference: after advancing to ``now`` nothing due is left;
    - never earlier than the bound: at most ``2^bits - 1`` ms before the requested time.
    """

    def __init__(self):
        super().__init__()
        self.bits = 4
        self.delay = 150
        self.tracker = BucketNackTracker(self.bits, self.delay)
        self.now = 1_000_000
        self.ref = NaiveNackRequests()  # (ledger, entry, requested time)

    @rule(ledger=st.integers(1, 3), entry=st.integers(0, 5))
    def nack(self, ledger, entry):
        self.tracker.add(ledger, entry, self.now)
        self.ref.nack(ledger, entry, self.now + self.delay)

    @rule(dt=st.integers(0, 400))
    def advance(self, dt):
        self.now += dt
        for fired in self.tracker.advance_to(self.now):
            due = self.ref.pop_due_buckets(self.bits, fired.time_ms)
            # one redelivery per (entry, bucket): duplicates in one bucket collapse
            stored = {(led, e, trim_lower_bit(t, self.bits)) for led, e, t in due}
            assert Counter((led, e) for led, e, _ in stored) == Counter(fired.messages)
            for _, _, t in due:
                assert t - fired.time_ms <= (1 << self.bits) - 1  # never earlier than the bound

    @invariant()
    def nothing_due_is_left(self):
        assert all(t > self.now for _, _, t in self.ref)  # never later than requested

    @invariant()
    def count_matches(self):
        assert self.tracker.count() == len(self.ref.stored(self.bits))


TestNackTracker = NackTrackerMachine.TestCase
TestNackTracker.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)


def test_duplicate_nack_in_another_bucket_is_stored_twice():
    tracker = BucketNackTracker(precision_bits=8, delay_ms=1000)
    tracker.add(7, 3, now_ms=0)  # requested 1000, bucket [768, 1024)
    tracker.add(7, 3, now_ms=10)  # requested 1010, same bucket: stored once
    tracker.add(7, 3, now_ms=400)  # requested 1400, bucket 1280: stored again
    assert tracker.count() == 2
    fired = tracker.advance_to(10_000)
    assert [(f.time_ms, f.messages) for f in fired] == [(1000, [(7, 3)]), (1280, [(7, 3)])]


def test_redelivery_up_to_2k_minus_1_early_and_min_delay():
    tracker = BucketNackTracker(precision_bits=8, delay_ms=10)  # raised to 100 ms
    assert tracker.delay_ms == MIN_NACK_DELAY_MS
    tracker.add(1, 1, now_ms=1000 - 100 + 255)  # requested 1255, bucket 1024
    tracker.add(1, 2, now_ms=2000)  # requested 2100, bucket 2048
    fired = tracker.advance_to(3000)
    assert [f.time_ms for f in fired] == [1255, 2048]  # first timer: the untrimmed delay
    assert fired[1].messages == [(1, 2)] and 2100 - 2048 == 52


def test_bulk_chunk_equals_per_message():
    w = Workload.from_options(20_000, 8, delay="fixed:0", entries_per_ledger=5000)
    bulk, slow = BucketNackTracker(10, 60_000), BucketNackTracker(10, 60_000)
    for chunk in w.chunks():
        bulk.add_chunk(chunk)
        for led, e, t in zip(
            chunk.ledger.tolist(), chunk.entry.tolist(), chunk.publish_ms.tolist(), strict=True
        ):
            slow.add(led, e, t)
    assert bulk.count() == slow.count() == 20_000
    assert bulk.timeout_at == slow.timeout_at
    end = int(w.start_ms + w.duration_ms + 70_000)
    a, b = bulk.advance_to(end), slow.advance_to(end)
    assert [(f.time_ms, f.messages) for f in a] == [(f.time_ms, f.messages) for f in b]
    assert sum(len(f.messages) for f in a) == 20_000


def test_ledgers_come_out_in_fastutil_hash_order():
    tracker = BucketNackTracker(precision_bits=10, delay_ms=1000)
    ledgers = np.arange(10_000, 10_020)
    for led in ledgers.tolist():
        tracker.add(led, 0, now_ms=0)
    order = [led for led, _ in tracker.advance_to(5000)[0].messages]
    assert sorted(order) == ledgers.tolist() and order != ledgers.tolist()


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 3000),
    st.sampled_from(["fixed:0", "uniform:0:400ms", "exponential:150ms"]),
    st.booleans(),
)
def test_bulk_equals_per_message_with_backoffs(n, delay, backoff):
    w = Workload.from_options(n, 2, delay=delay, entries_per_ledger=500, seed=9)
    bulk, slow = BucketNackTracker(6, 1000), BucketNackTracker(6, 1000)
    for chunk in w.chunks():
        bulk.add_chunk(chunk, backoff=backoff)
        for led, e, t, d in zip(
            chunk.ledger.tolist(),
            chunk.entry.tolist(),
            chunk.publish_ms.tolist(),
            chunk.delay_ms.tolist(),
            strict=True,
        ):
            slow.add(led, e, t, d if backoff else None)
    assert list(bulk.index.buckets) == list(slow.index.buckets)
    assert bulk.count() == slow.count() and bulk.timeout_at == slow.timeout_at
    end = int(w.start_ms + w.duration_ms + 5000)
    assert [(f.time_ms, f.messages) for f in bulk.advance_to(end)] == [
        (f.time_ms, f.messages) for f in slow.advance_to(end)
    ]
