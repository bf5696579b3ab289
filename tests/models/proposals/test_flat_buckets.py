"""Proposal ``time-buckets-flat``: one 32-bit RoaringBitmap per bucket (state machine in
test_machines.py)."""

from __future__ import annotations

import pytest

from tests.models.proposals.helpers import built_both_ways, drain
from trackerlab.catalog import CATALOG, SizeRequest, size
from trackerlab.models.proposals.flat_buckets import FlatBucketTracker
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.workloads.stream import Workload


@pytest.mark.parametrize("delay", ["uniform:0:30s", "fixed:5s"])
def test_bulk_equals_per_message(delay):
    bulk, single = built_both_ways(lambda: FlatBucketTracker(100), delay, batch=3)
    assert list(bulk.buckets) == list(single.buckets)
    assert all(bulk.buckets[k] == single.buckets[k] for k in bulk.buckets)
    assert drain(bulk) == drain(single)


def test_jvm_bytes_by_hand():
    """Two buckets: ledger 7 entries 0..2 in one, ledger 7 entry 5 and ledger 8 entry 1 in the
    other: the AVL map of 2 entries, a RoaringBitmap per bucket (one and two containers: key
    arrays of 4), the slot table (2 ledgers: 16 slots)."""
    tracker = FlatBucketTracker(1)
    for ledger, entry, at in ((7, 0, 100), (7, 1, 100), (7, 2, 100), (7, 5, 200), (8, 1, 200)):
        assert tracker.add_message(ledger, entry, at, 0)
    empty = 16 + 24 + 24 + 32  # RoaringBitmap, RoaringArray, char[4], Container[4]
    container = {n: 24 + 24 for n in (1, 3)}  # ArrayContainer + char[4]
    bitmaps = (empty + container[3]) + (empty + 2 * container[1])
    slots = (16 + 8 * 16) + (16 + 4 * 16)
    assert tracker.jvm_bytes() == jc.fastutil_avl_tree_map(2) + bitmaps + slots
    assert jr.roaring_bitmap_bytes([jr.Chunk(0, 3)]) == empty + container[3]
    assert tracker.slots.ledger(tracker.slots.slot(8)) == 8


def test_bounds_are_checked():
    tracker = FlatBucketTracker(1)
    with pytest.raises(ValueError, match="entry ids below 2"):
        tracker.add_message(1, 1 << 16, 100, 0)
    tracker.add_message(1, 5, 100, 0)
    with pytest.raises(ValueError, match="fewer than 2"):
        tracker.add_message(1 + (1 << 16), 5, 100, 0)


def test_random_delays_cost_less_than_the_inner_map_design():
    """Uniform delays over an hour at a 1 s tick: most (bucket, ledger) pairs hold a handful of
    entries; a 46-B container instead of a ~250-B bitmap and inner-map entry per pair."""
    workload = Workload.from_options(200_000, 10.0, delay="uniform:0:1h")
    flat = size("time-buckets-flat", SizeRequest(workload))
    nested = size("time-buckets", SizeRequest(workload))
    assert flat.entries == nested.entries
    assert flat.jvm_bytes < 0.35 * nested.jvm_bytes
    assert CATALOG["time-buckets-flat"].proposal


def test_fixed_delays_cost_array_containers():
    """8 msg/ms in 512-ms buckets: 4096 consecutive ids per bucket, one full array container
    (2 B per id) each; CRoaring holds the same in the Python model."""
    workload = Workload.from_options(100_000, 8.0, delay="fixed:1h")
    flat = size("time-buckets-flat", SizeRequest(workload))
    assert flat.entries == 100_000
    assert 2.0 < flat.jvm_bytes / flat.entries < 2.1
    assert 2.0 < flat.python_bytes / flat.entries < 2.5
