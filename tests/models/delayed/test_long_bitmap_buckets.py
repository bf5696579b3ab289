"""The current time-bucketed tracker (form c: AVL -> RB -> LongBitmap) against the naive heap,
its memoryUsage counter against the serialized sizes, and its JVM bytes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant
from pyroaring import BitMap

from tests.models.delayed.test_time_buckets import DelayedTrackerMachine
from tests.reference.delayed import NaiveDelayedIndex
from trackerlab.catalog import SizeRequest, size
from trackerlab.models.delayed.buffer_metric import serialized_delta
from trackerlab.models.delayed.long_bitmap_buckets import (
    LongBitmapBucketTracker,
    build,
    build_content,
)
from trackerlab.models.primitives.long_bitmap import SHAPES
from trackerlab.models.time_buckets.shapes import jvm_bytes_from_content
from trackerlab.sizing import jvm_collections as jc
from trackerlab.workloads.stream import Workload


def serialized_minus_header(tracker: LongBitmapBucketTracker) -> int:
    """Σ over live leaves of CRoaring's portable size minus the 8-B empty header."""
    return sum(len(BitMap(leaf.bitmap).serialize()) - 8 for leaf in tracker.index.leaves())


class FormCMachine(DelayedTrackerMachine):
    """The time-bucket machine's rules and invariants on form c, in every leaf shape, plus
    the ``memoryUsage`` counter against the serialized sizes."""

    @initialize(
        strict=st.booleans(), tick=st.sampled_from([1, 4, 10, 100]), shape=st.sampled_from(SHAPES)
    )
    def setup(self, strict, tick, shape):
        self.variant, self.strict, self.tick = "c", strict, tick
        self.tracker = LongBitmapBucketTracker(tick, strict, shape=shape)
        self.now = 10_000
        self.ref = NaiveDelayedIndex(tick, strict)

    @invariant()
    def counters_agree(self):
        if not hasattr(self, "tracker"):
            return
        assert self.tracker.number_of_delayed_messages() == len(self.ref)
        assert self.tracker.buffer_memory_usage() == serialized_minus_header(self.tracker)


TestFormC = FormCMachine.TestCase
TestFormC.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)


@pytest.mark.parametrize("delay", ["fixed:60s", "uniform:0:10m"])
def test_content_path_equals_the_per_leaf_sum(delay):
    """The fast path (variant-c BitMap64 index, vectorized sizes) against the stateful model
    with LongBitmap leaves: same content, same JVM bytes, same memoryUsage."""
    w = Workload.from_options(20_000, 2.0, delay=delay, entries_per_ledger=5000)
    fast, content = build_content(SizeRequest(w))
    assert fast.number_of_delayed_messages() == 20_000 or delay != "fixed:60s"
    for shape in SHAPES:
        tracker = build(SizeRequest(w, shape=shape))
        index = tracker.index
        assert np.array_equal(index.content()[:, :4], content[:, :4])
        vectorized = jvm_bytes_from_content(content, len(fast.index.buckets), "avl-rb", leaf=shape)
        assert vectorized == index.jvm_bytes()
        assert serialized_delta(content) == tracker.buffer_memory_usage()


def test_one_message_by_hand():
    """One delayed message: AVL map with one entry, RB map with one entry, one leaf with one
    value: wraps-roaring leaf 224 B (jvm-check long-bitmap-wraps-roaring-1)."""
    tracker = LongBitmapBucketTracker(1000)
    assert tracker.add_message(7, 3, 100_000, 0)
    avl = jc.fastutil_avl_tree_map(1)
    rb = jc.fastutil_rb_tree_map(1)
    assert tracker.index.jvm_bytes() == avl + rb + 224
    assert tracker.buffer_memory_usage() == 8 + 2  # one container: 8 B header, 2 B payload
    assert tracker.get_scheduled_messages(5, 100_000) == [(7, 3)]
    assert tracker.buffer_memory_usage() == 0 and not tracker.index.buckets


def test_catalog_size_reports_the_metric_and_counters():
    w = Workload.from_options(10_000, 1.0, delay="fixed:60s")
    r = size("time-buckets-long-bitmap", SizeRequest(w))
    assert r.entries == 10_000 and r.details["counters_jvm_bytes"] == 48
    # ascending entry ids of one ledger, 512 per bucket: each leaf one array container
    assert r.details["buffer_memory_usage"] == pytest.approx(10_000 * 2 + r.details["bitmaps"] * 8)
    mutable = size("time-buckets-long-bitmap", SizeRequest(w, shape="wraps-mutable"))
    assert mutable.jvm_bytes - r.jvm_bytes == r.details["bitmaps"] * 56  # one NIO buffer each
