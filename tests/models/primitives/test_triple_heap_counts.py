"""The capacity-only queue follows the full TripleLongPriorityQueue model and the naive heap
(Java's capacity rules replayed tuple by tuple) add for add."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tests.reference.primitives import NaiveTripleHeap
from trackerlab.models.primitives.triple_heap import MAX_SEGMENT_SIZE, TripleLongPriorityQueue
from trackerlab.models.primitives.triple_heap_counts import (
    TripleHeapCapacity,
    _segmented_shrink,
    capacity_for_counts,
    capacity_series,
)


class CapacityMachine(RuleBasedStateMachine):
    @initialize(version=st.sampled_from(["v1", "v2", "v3"]))
    def setup(self, version):
        self.full = TripleLongPriorityQueue(version=version)
        self.light = TripleHeapCapacity(version)
        self.ref = NaiveTripleHeap(version=version)
        self.next = 0

    @rule(n=st.integers(0, 700))
    def add(self, n):
        for _ in range(n):
            self.full.add(self.next % 97, 1, self.next)
            self.ref.add((self.next % 97, 1, self.next))
            self.next += 1
        self.light.add_many(n)

    @rule(fraction=st.floats(0, 1))
    def pop(self, fraction):
        n = int(self.full.size() * fraction)
        for _ in range(n):
            self.full.pop()
            self.ref.pop()
        self.light.pop_many(n)

    @rule()
    def clear(self):
        self.full.clear()
        self.ref.clear()
        self.light.clear()

    @invariant()
    def same_numbers(self):
        if hasattr(self, "full"):
            assert self.light.count == self.full.size()
            assert self.light.capacity == self.full.capacity_longs
            assert self.light.bytes_capacity() == self.full.bytes_capacity()
            assert (self.light.count, self.light.capacity) == (
                len(self.ref),
                self.ref.capacity_longs,
            )
            if self.full.version != "v1":
                assert self.light.threshold == self.full.shrink_threshold
                assert self.light.threshold == self.ref.shrink_threshold


TestCapacityMachine = CapacityMachine.TestCase
TestCapacityMachine.settings = settings(max_examples=60, stateful_step_count=25, deadline=None)


def test_growth_sequence_and_drain():
    q = TripleHeapCapacity()
    q.add_many(10_000_000)
    # 30,000,000 longs need 15 segments of 2M longs: 240 MiB (N13)
    assert q.capacity == 15 * MAX_SEGMENT_SIZE
    assert q.bytes_capacity() == 240 * 1024 * 1024
    q.pop_many(10_000_000)
    # a drained queue keeps two 16 MiB segments: 45% of 4M longs is less than one segment
    assert q.count == 0
    assert q.capacity == 2 * MAX_SEGMENT_SIZE


def test_segmented_shrink_rules():
    assert (
        _segmented_shrink(6 * MAX_SEGMENT_SIZE, 3 * MAX_SEGMENT_SIZE + 5, 48)
        == 4 * MAX_SEGMENT_SIZE
    )
    assert _segmented_shrink(1000, 600, 48) == 600
    assert _segmented_shrink(1000, 40, 48) == 1000  # below the initial capacity: no-op


@given(st.lists(st.tuples(st.integers(0, 400), st.integers(0, 400)), max_size=12))
@settings(max_examples=40, deadline=None)
def test_series_matches_the_per_step_loop(steps):
    adds = np.array([a for a, _ in steps], dtype=np.int64)
    pops = np.array([p for _, p in steps], dtype=np.int64)
    counts, caps = capacity_series(adds, pops)
    full = TripleLongPriorityQueue()
    for k, (a, p) in enumerate(steps):
        for i in range(a):
            full.add(i, 0, i)
        for _ in range(min(p, full.size())):
            full.pop()
        assert counts[k] == full.size()
        assert caps[k] == full.bytes_capacity()


def test_capacity_for_counts_goes_through_the_peak():
    caps = capacity_for_counts(np.array([100, 10]), np.array([1000, 10]))
    q = TripleHeapCapacity()
    q.add_many(1000)
    q.pop_many(900)
    assert caps[0] == q.bytes_capacity()
    with pytest.raises(ValueError):
        TripleHeapCapacity("v9")
