"""Proposal ``time-buckets-flat``: one Roaring64Bitmap per bucket, against the naive index."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tests.reference.delayed import NaiveDelayedIndex
from trackerlab.catalog import CATALOG, SizeRequest, size
from trackerlab.models.proposals.flat_buckets import FlatBucketTracker, pack
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.workloads.stream import Workload


class FlatMachine(RuleBasedStateMachine):
    """Same messages as the naive index, never earlier than ``tick + 2^bits - 1`` ms (strict:
    ``2^bits - 1``), never later than due, sorted, at most ``n``, counts equal."""

    @initialize(strict=st.booleans(), tick=st.sampled_from([1, 4, 10, 100]))
    def setup(self, strict, tick):
        self.tracker = FlatBucketTracker(tick, strict)
        self.ref = NaiveDelayedIndex(tick, strict)
        self.now = 10_000
        self.early = (0 if strict else tick) + (1 << self.tracker.bits) - 1

    @rule(ledger=st.integers(1, 3), entry=st.integers(0, 20), dt=st.integers(-5, 300))
    def add(self, ledger, entry, dt):
        if self.ref.tracks(ledger, entry):
            return  # Pulsar never tracks one position twice
        expected = self.ref.add(ledger, entry, self.now + dt, self.now)
        assert self.tracker.add_message(ledger, entry, self.now + dt, self.now) == expected

    @rule(dt=st.integers(0, 200))
    def advance(self, dt):
        self.now += dt

    @rule(n=st.integers(1, 30))
    def get_scheduled(self, n):
        got = self.tracker.get_scheduled_messages(n, self.now)
        assert got == sorted(got) and len(got) <= n
        due = self.ref.deliver_at()
        for pos in got:
            assert due[pos] - self.now <= self.early, "handed out too early"
        self.ref.remove(got)
        if len(got) < n:  # not limited by n: nothing due is left behind
            assert all(t > self.now for t, _, _ in self.ref.heap)

    @invariant()
    def counts_agree(self):
        if hasattr(self, "tracker"):
            assert self.tracker.number_of_delayed_messages() == len(self.ref)


TestFlatMachine = FlatMachine.TestCase
TestFlatMachine.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)


def test_bulk_equals_per_message():
    workload = Workload.from_options(20_000, 2.0, delay="uniform:0:30s", entries_per_ledger=3000)
    bulk, single = FlatBucketTracker(100), FlatBucketTracker(100)
    for chunk in workload.chunks():
        bulk.add_chunk(chunk)
        columns = (chunk.ledger, chunk.entry, chunk.deliver_at, chunk.publish_ms)
        for led, e, at, now in zip(*columns, strict=True):
            single.add_message(int(led), int(e), int(at), int(now))
    assert bulk.count == single.count > 0
    assert list(bulk.buckets) == list(single.buckets)
    assert all(bulk.buckets[k] == single.buckets[k] for k in bulk.buckets)


def test_jvm_bytes_by_hand():
    """Two buckets: ledger 7 entries 0..2 in one, ledger 7 entry 5 and ledger 8 entry 1 in the
    other: the AVL map of 2 entries plus one Roaring64Bitmap per bucket."""
    tracker = FlatBucketTracker(1)
    for ledger, entry, at in ((7, 0, 100), (7, 1, 100), (7, 2, 100), (7, 5, 200), (8, 1, 200)):
        assert tracker.add_message(ledger, entry, at, 0)
    first = jr.roaring64_bitmap_bytes([jr.Chunk(7 << 8, 3)])
    second = jr.roaring64_bitmap_bytes([jr.Chunk(7 << 8, 1), jr.Chunk(8 << 8, 1)])
    assert tracker.jvm_bytes() == jc.fastutil_avl_tree_map(2) + first + second
    assert first == 200 + jr.container_bytes(jr.container(jr.Chunk(0, 3)))


def test_bounds_are_checked():
    with pytest.raises(ValueError, match="entry ids must be <= 16777215"):
        pack(1, 1 << 24)
    assert pack(3, 5) == (3 << 24) | 5


def test_random_delays_cost_less_than_the_inner_map_design():
    """Uniform delays over an hour at a 1 s tick: most (bucket, ledger) pairs hold a handful of
    entries, so dropping the per-pair bitmap and inner-map entry saves most of the bytes."""
    workload = Workload.from_options(200_000, 10.0, delay="uniform:0:1h")
    flat = size("time-buckets-flat", SizeRequest(workload))
    nested = size("time-buckets", SizeRequest(workload))
    assert flat.entries == nested.entries
    assert flat.jvm_bytes < 0.6 * nested.jvm_bytes
    assert CATALOG["time-buckets-flat"].proposal


def test_per_entry_sizes_are_positive_for_fixed_delays():
    workload = Workload.from_options(100_000, 8.0, delay="fixed:1h")
    flat = size("time-buckets-flat", SizeRequest(workload))
    assert flat.entries == 100_000
    assert 0 < flat.jvm_bytes / flat.entries < 3  # consecutive ids: one container per 2^16
    assert np.isfinite(flat.python_bytes)
