"""Proposal ``time-buckets-sealed``: runOptimize once per bucket when a fixed delay seals it
(state machine in test_machines.py)."""

from __future__ import annotations

import pytest

from tests.models.proposals.helpers import add_bulk, add_one_by_one, drain
from trackerlab.catalog import SizeRequest, size
from trackerlab.models.primitives.op_cost import OpCost
from trackerlab.models.proposals.sealed_buckets import SealedBucketTracker
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.workloads.stream import Workload


def test_a_bucket_seals_when_now_plus_the_delay_passes_it():
    tracker = SealedBucketTracker(1, fixed_delay_ms=100)
    for entry in range(10):  # bits 0: one bucket per ms
        tracker.add_message(3, entry, 100, 0)
    (key,) = tracker.buckets
    assert not tracker.is_sealed(key)
    tracker.add_message(3, 10, 101, 1)
    assert tracker.is_sealed(key) and not tracker.is_sealed(101)
    run = jr.roaring_bitmap_bytes([jr.Chunk(0, 10, 1)], run_optimize=True)
    plain = jr.roaring_bitmap_bytes([jr.Chunk(0, 1)])
    flat = 128 + 40 * 2 + (16 + 8 * 16) + (16 + 4 * 16)
    assert tracker.jvm_bytes() == flat + run + plain
    with pytest.raises(ValueError, match="fixed-delay policy"):
        tracker.add_message(3, 11, 500, 2)


def test_bulk_equals_per_message_and_each_bucket_is_read_once():
    workload = Workload.from_options(20_000, 4.0, delay="fixed:30s", entries_per_ledger=3000)
    bulk = add_bulk(SealedBucketTracker(100, fixed_delay_ms=30_000), workload)
    single = SealedBucketTracker(100, fixed_delay_ms=30_000)
    single.cost = OpCost()
    add_one_by_one(single, workload)
    assert bulk.sealed_before == single.sealed_before
    assert bulk.jvm_bytes() == single.jvm_bytes()
    sealed = [k for k in single.buckets if single.is_sealed(k)]
    assert single.cost.streamed_bytes == 2 * sum(len(single.buckets[k]) for k in sealed)
    assert drain(bulk) == drain(single)


@pytest.mark.parametrize(("delay", "runs"), [("fixed:1h", True), ("uniform:0:1h", False)])
def test_fixed_delays_become_runs_random_ones_stay_flat(delay, runs):
    workload = Workload.from_options(100_000, 8.0, delay=delay)
    sealed = size("time-buckets-sealed", SizeRequest(workload))
    flat = size("time-buckets-flat", SizeRequest(workload))
    if runs:
        assert sealed.jvm_bytes < 0.05 * flat.jvm_bytes
        assert sealed.details["sealed_buckets"] == sealed.details["buckets"]
    else:
        assert sealed.jvm_bytes == flat.jvm_bytes and sealed.details["fixed_delay_ms"] is None
