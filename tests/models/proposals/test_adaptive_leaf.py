"""Proposal ``time-buckets-adaptive``: packed int[] with a bitmap spill (state machine in
test_machines.py)."""

from __future__ import annotations

import pytest

from tests.models.proposals.helpers import built_both_ways, drain
from trackerlab.models.proposals.adaptive_leaf import (
    AdaptiveBucketTracker,
    packed_bytes,
    packed_length,
)
from trackerlab.models.time_buckets.lab_stats import SPILL_AT, spill_threshold
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.sizing.jvm import COMPRESSED, UNCOMPRESSED_OOPS


def test_spill_threshold_is_the_ski_rental_bound_of_the_layouts():
    """A container's fixed bytes (24 + 16 + 2 + 4) over the 2-B premium of a packed value."""
    fixed = jr.container_bytes(jr.Container("array", 0, 0, 0)) + 2 + COMPRESSED.ref
    assert fixed == 46 and spill_threshold() == SPILL_AT == 23
    assert UNCOMPRESSED_OOPS.ref == 8  # the design fixes 23 whatever the heap size


def test_packed_growth():
    assert [packed_length(n) for n in (0, 7, 8, 11, 12, 100)] == [8, 8, 12, 12, 16, 109]
    assert packed_bytes(7) == 16 + 4 * 8


@pytest.mark.parametrize("delay", ["uniform:0:30s", "fixed:5s"])
def test_bulk_equals_per_message(delay):
    bulk, single = built_both_ways(lambda: AdaptiveBucketTracker(64), delay, batch=3)
    for key, leaf in bulk.buckets.items():
        other = single.buckets[key]
        assert leaf.packed == other.packed
        assert (leaf.spill is None) == (other.spill is None)
        assert leaf.spill is None or leaf.spill == other.spill
    assert drain(bulk) == drain(single)


def test_a_ledger_spills_after_23_entries_of_a_bucket():
    """30 entries of ledger 4 and 2 of ledger 5 in one bucket: 23 + 2 packed, 7 spilled into
    one array container; an out-of-order position goes to the bitmap too."""
    tracker = AdaptiveBucketTracker(1)
    for entry in range(30):
        tracker.add_message(4, entry, 100, 0)
    for entry in range(2):
        tracker.add_message(5, entry, 100, 0)
    tracker.add_message(4, 40, 100, 0)  # after ledger 5's values: not appendable
    (leaf,) = tracker.buckets.values()
    assert len(leaf.packed) == 25 and len(leaf.spill) == 8
    spill = jr.roaring_bitmap_bytes([jr.Chunk(0, 8)])
    slots = (16 + 8 * 16) + (16 + 4 * 16)
    expected = jc.fastutil_avl_tree_map(1) + packed_bytes(25) + (16 + 8) + spill + slots
    assert tracker.jvm_bytes() == expected
    assert tracker.get_scheduled_messages(100, 100)[:3] == [(4, 0), (4, 1), (4, 2)]
    assert tracker.number_of_delayed_messages() == 0
