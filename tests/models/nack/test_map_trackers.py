"""NegativeAcksTracker versions A (HashMap) and B (pair map): timer algorithm, a state machine
against the naive nack requests, bulk builds and JVM sizes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tests.reference.nack import NaiveNackRequests
from trackerlab.models.nack.map_trackers import (
    MIN_NACK_DELAY_NS,
    MessageId,
    NegativeAcksTrackerHashMap,
    NegativeAcksTrackerPairMap,
    jvm_hash_map_tracker_bytes,
)
from trackerlab.sizing import jvm_collections as jc

MS = 1_000_000
TRACKERS = (NegativeAcksTrackerHashMap, NegativeAcksTrackerPairMap)


@pytest.mark.parametrize("cls", TRACKERS)
def test_timer_interval_and_min_delay(cls):
    t = cls()
    assert t.nack_delay_ns == 60_000 * MS and t.timer_interval_ns == 20_000 * MS
    assert cls(delay_micros=10_000).nack_delay_ns == MIN_NACK_DELAY_NS  # max(10 ms, 100 ms)
    assert cls(delay_micros=10_000).timer_interval_ns == 33_333_333
    backoff = cls(backoff_ms=lambda count: 30 * 2**count)
    assert backoff.timer_interval_ns == MIN_NACK_DELAY_NS // 3  # max(next(0)=30 ms, 100 ms)/3


@pytest.mark.parametrize("cls", TRACKERS)
def test_trace_first_add_schedules_full_scan_and_stop(cls):
    """delay 300 ms → interval 100 ms; runs at 100, 200, 300 (ts 300 not < 300), 400."""
    t = cls(delay_micros=300_000, timer_tick_ns=0)
    t.add(5, 1, now_ns=0)
    assert t.next_run_ns() == 100 * MS
    t.add(5, 2, now_ns=50 * MS)  # timer already pending: not rescheduled
    assert t.next_run_ns() == 100 * MS
    t.add(5, 1, now_ns=60 * MS)  # overwrite: (5, 1) now due at 360 ms
    assert t.advance(399 * MS) == []
    assert t.next_run_ns() == 400 * MS
    runs = t.advance(400 * MS)
    assert runs == [(400 * MS, [MessageId(5, 1), MessageId(5, 2)])]
    assert t.nacked_count() == 0 and t.next_run_ns() == 500 * MS
    assert t.advance(500 * MS) == [] and t.next_run_ns() is None  # empty map stops the timer
    t.add(6, 0, now_ns=510 * MS)
    assert t.next_run_ns() == 610 * MS


def test_tick_rounds_run_times_up():
    t = NegativeAcksTrackerPairMap(delay_micros=1_000, timer_tick_ns=MS)  # 100 ms floor
    t.add(1, 1, now_ns=123_456)
    assert t.next_run_ns() == 34 * MS  # deadline 33.456789 ms → next 1 ms tick


def test_add_before_pending_run_is_refused():
    t = NegativeAcksTrackerHashMap(delay_micros=300_000)
    t.add(1, 1, now_ns=0)
    with pytest.raises(ValueError, match="advance"):
        t.add(1, 2, now_ns=200 * MS)


def test_partition_index_round_trip_version_b():
    t = NegativeAcksTrackerPairMap(delay_micros=300_000, timer_tick_ns=0)
    t.add(1, 1, now_ns=0)  # non-partitioned: stored as Long.MAX_VALUE
    t.add(1, 2, now_ns=0, partition_index=3)
    assert t.nacked.get(1, 1)[0] == (1 << 63) - 1
    (run,) = t.advance(400 * MS)
    assert run.message_ids == [MessageId(1, 1, -1), MessageId(1, 2, 3)]


class NackMachine(RuleBasedStateMachine):
    """Both versions against the naive requests (the last nack of a position wins): same
    messages, never early, at most interval + tick late."""

    @initialize(
        delay_ms=st.sampled_from([50, 300, 1000]),
        tick_ms=st.sampled_from([0, 1]),
        partition=st.sampled_from([-1, 0, 7]),
    )
    def setup(self, delay_ms, tick_ms, partition):
        config = dict(delay_micros=delay_ms * 1000, timer_tick_ns=tick_ms * MS)
        self.trackers = [cls(**config) for cls in TRACKERS]
        self.partition = partition
        self.now = 0
        self.ref = NaiveNackRequests()
        self.interval = self.trackers[0].timer_interval_ns
        self.tick = tick_ms * MS

    @rule(ledger=st.integers(0, 3), entry=st.integers(0, 6))
    def nack(self, ledger, entry):
        for t in self.trackers:
            t.add(ledger, entry, self.now, partition_index=self.partition)
        self.ref.nack(ledger, entry, self.now + self.trackers[0].nack_delay_ns)

    @rule(dt_ms=st.integers(0, 700))
    def advance(self, dt_ms):
        # never skip past a timer run: adds always follow the runs that precede them
        self.now += dt_ms * MS
        runs_a, runs_b = (t.advance(self.now) for t in self.trackers)
        assert runs_a == runs_b
        for at, ids in runs_a:
            for mid in ids:
                ts = self.ref.pop_position(mid.ledger_id, mid.entry_id)
                assert mid.partition_index == self.partition
                assert ts < at <= ts + self.interval + self.tick
        # the trackers' clocks must not lag behind a pending run before the next add
        for t in self.trackers:
            run_at = t.next_run_ns()
            assert run_at is None or run_at > self.now

    @invariant()
    def nothing_overdue(self):
        latest = self.ref.latest()
        assert all(ts + self.interval + self.tick >= self.now for ts in latest.values())
        for t in self.trackers:
            assert t.nacked_count() == len(latest)
        assert (self.trackers[1].next_run_ns() is None) == (self.trackers[0].next_run_ns() is None)


TestNackMachine = NackMachine.TestCase
TestNackMachine.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)


@pytest.mark.parametrize("cls", TRACKERS)
def test_bulk_equals_per_message_adds(cls):
    rng = np.random.default_rng(3)
    n = 3000
    ledger = 100 + rng.integers(0, 5, n)
    entry = rng.integers(0, 400, n)  # with repeats: the last nack wins
    ts = np.arange(n) * 10 + 60_000 * MS
    per_op = cls(timer_tick_ns=0)
    for i in range(n):
        per_op.add(int(ledger[i]), int(entry[i]), now_ns=i * 10, partition_index=2)
    bulk = cls.from_arrays(ledger, entry, ts, partition_index=2, timer_tick_ns=0)
    bulk.timeout_deadline_ns = per_op.timeout_deadline_ns
    assert bulk.nacked_count() == per_op.nacked_count()
    assert bulk.jvm_bytes() == per_op.jvm_bytes()
    assert bulk.advance(61_000 * MS) == per_op.advance(61_000 * MS)


def test_jvm_sizes():
    """A: 48 + Node[cap] + 88 B per entry; B: 16 + Section[1] 24 + 96 + long[4·cap]."""
    assert jvm_hash_map_tracker_bytes(0) == 0
    n = 1_000_000
    cap = jc.hash_map_capacity(n)
    assert cap == 1 << 21
    assert jvm_hash_map_tracker_bytes(n) == 48 + (16 + 4 * cap) + 88 * n
    b = NegativeAcksTrackerPairMap()
    assert b.jvm_bytes() == 0
    b.add(1, 1, now_ns=0)
    assert b.jvm_bytes() == 16 + 24 + 96 + 16 + 32 * 512
