"""TripleLongPriorityQueue: growth and shrink traces, segments, a state machine against the
naive heap, and the bulk build against per-tuple adds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from tests.reference.primitives import NaiveTripleHeap
from trackerlab.models.primitives import triple_heap as th
from trackerlab.models.primitives.triple_heap import (
    MAX_SEGMENT_SIZE,
    TripleLongPriorityQueue,
    array_list_capacity,
    capacity_after_adds,
    grow_segmented,
    grow_v1,
    is_sorted,
    jvm_triple_queue_bytes,
    sort_triples,
)

Queue = TripleLongPriorityQueue


def test_capacity_sequence_from_48():
    seq = [48]
    while seq[-1] < MAX_SEGMENT_SIZE + 2 * MAX_SEGMENT_SIZE:
        seq.append(grow_segmented(seq[-1]))
    assert seq[:13] == [48, 96, 192, 384, 576, 864, 1296, 1944, 2916, 4374, 6561, 9841, 14761]
    i = seq.index(MAX_SEGMENT_SIZE)
    assert seq[i - 1] < MAX_SEGMENT_SIZE and seq[i + 1 :] == [
        2 * MAX_SEGMENT_SIZE,
        3 * MAX_SEGMENT_SIZE,
    ]


@pytest.mark.parametrize(
    ("n", "longs"),
    [
        (0, 48),
        (16, 48),
        (17, 96),
        (32, 96),
        (33, 192),
        (100, 384),
        (10_000_000, 15 * MAX_SEGMENT_SIZE),
        (8_640_000, 13 * MAX_SEGMENT_SIZE),
    ],
)
def test_capacity_after_adds(n, longs):
    """The add check is ``tuplesCount * 3 + 2 >= capacity``: 16 tuples fit 48 longs."""
    assert capacity_after_adds(n) == longs


def test_capacity_after_adds_v1_and_overflow():
    assert (
        capacity_after_adds(16, version="v1") == 48 and capacity_after_adds(17, version="v1") == 96
    )
    assert capacity_after_adds(1000, version="v1") == 3 * 1152  # 16, 32, ..., 512, 768, 1152
    seq = [16]
    with pytest.raises(OverflowError, match="int"):
        while True:
            seq.append(grow_v1(seq[-1]))
    assert seq[-1] * 24 <= (1 << 31) - 1 < (seq[-1] + seq[-1] // 2) * 24
    assert seq[-1] * 24 == 1_570_782_168  # 1.57e9 B: the ">1.5 GB" of #16490
    with pytest.raises(OverflowError):
        capacity_after_adds(100_000_000, version="v1")


def _add_all(queue: Queue, triples) -> Queue:
    for t in triples:
        queue.add(*t)
    return queue


def test_add_pop_order_and_errors():
    q = _add_all(Queue(), [(5, 1, 1), (3, 9, 9), (3, 2, 7), (3, 2, 1), (9, 0, 0)])
    assert q.peek() == (3, 2, 1) and (q.peek_n1(), q.peek_n2(), q.peek_n3()) == (3, 2, 1)
    assert [q.pop() for _ in range(5)] == [(3, 2, 1), (3, 2, 7), (3, 9, 9), (5, 1, 1), (9, 0, 0)]
    with pytest.raises(ValueError, match="empty"):
        q.pop()
    with pytest.raises(ValueError, match="empty"):
        q.peek_n1()
    for bad in ({"initial_capacity": 0}, {"shrink_factor": 0}, {"version": "v4"}):
        with pytest.raises(ValueError):
            Queue(**bad)


def test_java_layout_after_adds_and_pop():
    """Array layout computed by hand with Java's swap-based siftUp/siftDown."""
    q = _add_all(Queue(), [(4, 0, 0), (3, 0, 0), (2, 0, 0), (1, 0, 0), (5, 0, 0)])
    # add 4: [4]; 3: [3,4]; 2: [2,4,3]; 1: [1,2,3,4]; 5: [1,2,3,4,5]
    assert q.to_array()[:, 0].tolist() == [1, 2, 3, 4, 5]
    q.pop()  # 5 to the root, then swap with 2, then with 4: [2,4,3,5]
    assert q.to_array()[:, 0].tolist() == [2, 4, 3, 5]
    q = _add_all(Queue(), [(v, 0, 0) for v in (1, 2, 2, 5, 3, 4, 9)])
    assert q.to_array()[:, 0].tolist() == [1, 2, 2, 5, 3, 4, 9]
    q.pop()  # equal children: Java keeps the left one (compare(left, right) > 0 is false)
    assert q.to_array()[:, 0].tolist() == [2, 3, 2, 5, 9, 4]


def test_shrink_trace_on_pop_and_clear():
    """Grown to 384 longs by 100 adds; shrinkThreshold stays 8 tuples until the first shrink
    (it is only recomputed when shrinking), then (long)(cap/3 * 0.5)."""
    q = _add_all(Queue(), [(i, 0, 0) for i in range(100)])
    assert q.capacity_longs == 384 and q.shrink_threshold == 8
    caps = []
    while len(q):
        q.pop()
        caps.append(q.capacity_longs)
    assert caps[:91] == [384] * 91
    # (long)(384*.5f*.9f)=172 → 212; 95 → 117; 52 → 65; 29 → 36 <= 48 → 48
    assert caps[91:96] == [212, 117, 65, 48, 48]
    q = _add_all(Queue(), [(i, 0, 0) for i in range(100)])
    q.clear()  # one shrink step per clear
    assert (len(q), q.capacity_longs, q.shrink_threshold) == (0, 212, 35)
    v1 = _add_all(Queue(version="v1"), [(i, 0, 0) for i in range(100)])
    v1.clear()
    assert v1.capacity_longs == 3 * 128  # v1 never shrinks


def test_segments_with_a_small_segment_size(monkeypatch):
    """Segment logic with MAX_SEGMENT_SIZE = 100 longs (tuples straddle segments)."""
    monkeypatch.setattr(th, "MAX_SEGMENT_SIZE", 100)
    q = Queue(initial_capacity=2)  # 6 longs
    triples = [(i % 7, i, -i) for i in range(90)]
    _add_all(q, triples)
    assert q.capacity_longs == capacity_after_adds(90, 2) == 300
    assert [len(s) for s in q.array.segments] == [100, 100, 100]
    built = Queue.build(*np.array(triples).T, initial_capacity=2)
    assert [len(s) for s in built.array.segments] == [100, 100, 100]
    assert (built.to_array() == np.array(sorted(triples))).all()
    out = [q.pop() for _ in range(90)]
    assert out == sorted(triples)
    # at 1 tuple: (long)(300*.45)=135 → drop one segment (200); then 90 < one segment with
    # two segments left: SegmentedLongArray.shrink does nothing, for ever
    assert q.capacity_longs == 200 and len(q.array.segments) == 2
    q.clear()
    assert q.capacity_longs == 200


def test_segment_shrink_drops_whole_segments(monkeypatch):
    monkeypatch.setattr(th, "MAX_SEGMENT_SIZE", 100)
    arr = th.SegmentedLongArray(6)
    while arr.capacity < 500:
        arr.increase_capacity()
    assert arr.capacity == 500 and len(arr.segments) == 5 and arr.list_capacity == 10
    arr.shrink(275)  # reduce 225: drop two segments, 25 left over with 3 segments: kept
    assert arr.capacity == 300 and len(arr.segments) == 3
    arr.shrink(130)  # reduce 170: drop one, 70 left, 2 segments: kept
    assert arr.capacity == 200
    arr.shrink(60)  # reduce 140: drop one, then copy the first down to 60
    assert arr.capacity == 60 and [len(s) for s in arr.segments] == [60]
    arr.shrink(5)  # below the initial capacity: ignored
    assert arr.capacity == 60 and arr.list_capacity == 10


def test_jvm_sizes():
    assert Queue().jvm_bytes() == 40 + 32 + 24 + 56 + 88 and Queue().jvm_direct_bytes() == 384
    assert Queue(version="v1").jvm_bytes() == 24 + 88
    assert Queue(version="v3").jvm_bytes() == 40 + 48 + 24 + 16 + 8 * 48
    assert (
        Queue(version="v3").jvm_direct_bytes() == 0 and Queue(version="v3").bytes_capacity() == 384
    )
    segs = [MAX_SEGMENT_SIZE] * 15
    assert jvm_triple_queue_bytes("v2", segs) == 40 + 32 + 24 + (16 + 4 * 15 + 4) + 15 * 88
    assert [array_list_capacity(k) for k in (0, 1, 10, 11, 15, 16)] == [0, 10, 10, 15, 15, 22]


class HeapMachine(RuleBasedStateMachine):
    """Adds, pops, peeks and clears against the naive heap, for each storage version."""

    @initialize(version=st.sampled_from(["v1", "v2", "v3"]), initial=st.sampled_from([1, 2, 16]))
    def setup(self, version, initial):
        self.q = Queue(initial_capacity=initial, version=version)
        self.ref = NaiveTripleHeap(initial, version)
        self.only_adds = True
        self.initial = initial

    @rule(
        t=st.tuples(st.integers(-3, 3), st.integers(0, 3), st.integers(0, 3)), k=st.integers(1, 30)
    )
    def add(self, t, k):
        for j in range(k):
            item = (t[0] + j % 2, t[1], t[2] + j)
            self.q.add(*item)
            self.ref.add(item)

    @precondition(lambda self: len(self.ref))
    @rule(k=st.integers(1, 40))
    def pop(self, k):
        for _ in range(min(k, len(self.ref))):
            assert self.q.pop() == self.ref.pop()
        self.only_adds = False

    @rule()
    def clear(self):
        self.q.clear()
        self.ref.clear()
        self.only_adds = False

    @invariant()
    def same_as_naive_heap(self):
        q = self.q
        assert len(q) == len(self.ref)
        if len(self.ref):
            assert q.peek() == self.ref.peek()
        arr = [tuple(r) for r in q.to_array().tolist()]
        assert all(arr[(i - 1) // 2] <= arr[i] for i in range(1, len(arr)))
        assert q.capacity_longs >= 3 * len(q) and q.bytes_capacity() == 8 * q.capacity_longs
        assert (q.capacity_longs, q.shrink_threshold) == (
            self.ref.capacity_longs,
            self.ref.shrink_threshold,
        )
        if self.only_adds:
            assert q.capacity_longs == capacity_after_adds(len(q), self.initial, q.version)


TestHeapMachine = HeapMachine.TestCase
TestHeapMachine.settings = settings(max_examples=50, stateful_step_count=30, deadline=None)


triples = st.lists(
    st.tuples(st.integers(-5, 5), st.integers(0, 4), st.integers(-2, 2)), max_size=300
)


@settings(max_examples=60, deadline=None)
@given(
    items=triples, version=st.sampled_from(["v1", "v2", "v3"]), initial=st.sampled_from([1, 3, 16])
)
def test_bulk_equals_per_tuple_adds(items, version, initial):
    arr = np.array(items, dtype=np.int64).reshape(-1, 3)
    bulk = Queue.build(arr[:, 0], arr[:, 1], arr[:, 2], initial_capacity=initial, version=version)
    per_op = _add_all(Queue(initial_capacity=initial, version=version), items)
    in_order = _add_all(Queue(initial_capacity=initial, version=version), sorted(items))
    assert (
        bulk.capacity_longs
        == per_op.capacity_longs
        == capacity_after_adds(len(items), initial, version)
    )
    assert (bulk.to_array() == in_order.to_array()).all()
    assert bulk.jvm_bytes() == per_op.jvm_bytes()
    assert [bulk.pop() for _ in items] == [per_op.pop() for _ in items] == sorted(items)


longs = st.integers(-(2**63), 2**63 - 1)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.integers(-3, 3), longs),
            st.integers(0, 9),
            st.one_of(st.integers(0, 2), longs),
        ),
        max_size=50,
    )
)
def test_sort_triples_packed_or_lexsort(items):
    arr = np.array(items, dtype=np.int64).reshape(-1, 3)
    if not len(arr):
        return
    out = sort_triples(arr[:, 0], arr[:, 1], arr[:, 2])
    assert [tuple(t) for t in np.stack(out, axis=1).tolist()] == sorted(items)


def test_is_sorted():
    assert is_sorted(np.array([1, 1, 2]), np.array([0, 1, 0]), np.array([5, 0, 0]))
    assert not is_sorted(np.array([1, 1]), np.array([1, 1]), np.array([2, 1]))
    assert is_sorted(np.array([], dtype=np.int64), np.array([]), np.array([]))


def test_drained_queue_keeps_two_segments():
    """With two or more 2M-long segments, 45% of the capacity is less than one segment at two
    segments: SegmentedLongArray.shrink does nothing, so a queue that once held 699,051
    tuples keeps 32 MiB however often it is cleared; 699,050 tuples shrink back to 48 longs."""
    for n, final in (
        (699_050, 48),
        (699_051, 2 * MAX_SEGMENT_SIZE),
        (2_000_000, 2 * MAX_SEGMENT_SIZE),
    ):
        i = np.arange(n)
        q = Queue.build(i, i, i)
        for _ in range(20):
            q.clear()
        assert q.capacity_longs == final
