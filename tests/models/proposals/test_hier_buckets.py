"""Proposal ``time-buckets-hier``: two levels of gap-coded streams (state machine in
test_machines.py)."""

from __future__ import annotations

import pytest

from tests.models.proposals.helpers import built_both_ways, drain
from trackerlab.catalog import SizeRequest, size
from trackerlab.models.proposals.gap_stream import HEADER_BYTES, GapStream
from trackerlab.models.proposals.hier_buckets import FAR, NEAR, HierBucketTracker
from trackerlab.sizing import jvm_collections as jc
from trackerlab.workloads.stream import Workload


@pytest.mark.parametrize(
    ("delay", "batch"),
    [("uniform:0:300s", 1), ("uniform:0:300s", 4), ("fixed:20s", 3), ("fixed:1h", 1)],
)
def test_bulk_equals_per_message(delay, batch):
    bulk, single = built_both_ways(lambda: HierBucketTracker(64), delay, batch, epl=2000)
    assert list(bulk.streams) == list(single.streams)
    for key, leaf in bulk.streams.items():
        assert bytes(leaf.stream.tokens) == bytes(single.streams[key].stream.tokens)
        assert not leaf.late
    assert drain(bulk) == drain(single)


def test_levels_and_offsets():
    """Tick 1000 ms: 9 bits, near buckets of 2^17 ms with 8-bit offsets for messages due within
    2^17 ms, far buckets of 2^25 ms with 16-bit offsets beyond."""
    tracker = HierBucketTracker(1000)
    assert tracker.level_of(10_000 + (1 << 17) - 1, 10_000) == NEAR
    assert tracker.level_of(10_000 + (1 << 17), 10_000) == FAR
    at = (7 << 25) + (300 << 9) + 5
    assert tracker.place(at, FAR) == ((7 << 25) | FAR, 300)
    assert tracker.place(at, NEAR) == ((at >> 17 << 17) | NEAR, (at >> 9) & 0xFF)


def test_jvm_bytes_by_hand():
    """One far stream holding 3 consecutive entries of ledger 9 at one tick: a switch head, the
    slot and a run count (3 bytes for head (0 << 16 | 44) << 2 | 3 ...), header 24 B."""
    tracker = HierBucketTracker(1)
    now, at = 0, 100_000  # delay 100 s > 2^8 ms: far
    for entry in (0, 1, 2):
        assert tracker.add_message(9, entry, at, now)
    (leaf,) = tracker.streams.values()
    stream = GapStream(16)
    for entry in (0, 1, 2):
        stream.append(0, entry, at & 0xFFFF)
    assert bytes(leaf.stream.tokens) == bytes(stream.tokens)
    assert leaf.stream.used == HEADER_BYTES + len(stream.tokens)
    assert leaf.stream.length == 32
    slots = (16 + 8 * 16) + (16 + 4 * 16)
    assert tracker.jvm_bytes() == jc.fastutil_avl_tree_map(1) + (16 + 32) + slots


def test_out_of_order_positions_wait_in_the_late_array_and_go_out_in_order():
    tracker = HierBucketTracker(1)
    for ledger, entry in ((5, 10), (5, 11), (5, 3), (4, 7)):
        assert tracker.add_message(ledger, entry, 10_100, 10_000)
    (leaf,) = tracker.streams.values()
    assert leaf.stream.count == 2 and len(leaf.late) == 2
    assert tracker.get_scheduled_messages(10, 10_100) == [(4, 7), (5, 3), (5, 10), (5, 11)]
    assert tracker.number_of_delayed_messages() == 0 and not tracker.streams


def test_due_scan_splits_a_far_bucket_tick_by_tick():
    """Far messages go out at their own tick, not the far bucket's."""
    tracker = HierBucketTracker(1)
    for entry, at in ((0, 50_000), (1, 50_000), (2, 50_003), (3, 70_000)):
        tracker.add_message(1, entry, at, 0)
    assert all(k & 1 == FAR for k in tracker.streams)
    assert tracker.get_scheduled_messages(10, 50_000 - 1) == [(1, 0), (1, 1)]  # cutoff now + 1
    assert tracker.get_scheduled_messages(10, 50_001) == []
    assert tracker.get_scheduled_messages(10, 50_002) == [(1, 2)]
    assert tracker.number_of_delayed_messages() == 1


@pytest.mark.parametrize("delay", ["uniform:0:1h", "mix:0.8*uniform:0:60s+0.2*uniform:1d:30d"])
def test_random_delays_and_long_tails_cost_a_few_bytes(delay):
    """Where every other bucket design pays tens or hundreds of bytes per entry."""
    workload = Workload.from_options(100_000, 2.0, delay=delay)
    hier = size("time-buckets-hier", SizeRequest(workload, tick_ms=64))
    flat = size("time-buckets-flat", SizeRequest(workload, tick_ms=64))
    assert hier.jvm_bytes / hier.entries < 5 < 25 < flat.jvm_bytes / flat.entries
