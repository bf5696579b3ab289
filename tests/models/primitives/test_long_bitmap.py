"""ConcurrentRoaringBitmap (the LongBitmap leaf) against a naive set with its rules written out;
its JVM layout state against the trim rule; the bulk path against the per-message one."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from tests.reference.long_bitmap import NaiveLongBitmap
from trackerlab.models.primitives.long_bitmap import SHAPES, ConcurrentRoaringBitmap
from trackerlab.sizing import jvm_long_bitmap as jl

K16 = 1 << 16
# values over three chunks, some chunks dense enough to become bitmap containers
VALUES = st.one_of(
    st.integers(0, 5000), st.integers(K16, K16 + 40), st.integers(5 * K16, 5 * K16 + 3)
)


class LongBitmapMachine(RuleBasedStateMachine):
    @initialize(shape=st.sampled_from(SHAPES))
    def setup(self, shape):
        self.leaf = ConcurrentRoaringBitmap(shape)
        self.naive = NaiveLongBitmap(trims=shape != "extends-roaring")

    @rule(value=VALUES)
    def checked_add(self, value):
        assert self.leaf.checked_add(value) == self.naive.checked_add(value)

    @rule(start=st.integers(0, 4000), count=st.integers(1, 4500))
    def add_many(self, start, count):
        values = np.arange(start, start + count)
        new = len(set(values.tolist()) - self.naive.values)
        for v in values.tolist():
            self.naive.checked_add(v)
        assert self.leaf.add_sorted(values) == new

    @rule(value=VALUES)
    def remove(self, value):
        assert self.leaf.remove(value) == self.naive.remove(value)

    @rule(limit=st.integers(0, 6000))
    def drain(self, limit):
        assert self.leaf.drain_to(limit) == self.naive.drain_to(limit)

    @rule(value=st.integers(-3, (1 << 32) + 3))
    def contains(self, value):
        assert self.leaf.contains(value) == (value in self.naive.values)

    @invariant()
    def agree(self):
        if not hasattr(self, "leaf"):
            return
        assert set(self.leaf) == self.naive.values
        assert self.leaf.cardinality() == len(self.naive.values)
        assert self.leaf.layout.cardinality() == len(self.naive.values)
        assert self.leaf.serialized_size() == self.naive.serialized_size()
        assert self.leaf.layout.removes_since_trim == self.naive.removes_since_trim
        for kind, card, cap in self.leaf.layout.keys.values():
            assert card > 0 and (kind == "bitmap") == (card > 4096)
            assert kind == "bitmap" or cap >= card


TestLongBitmap = LongBitmapMachine.TestCase
TestLongBitmap.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)


def test_out_of_range_values_are_refused():
    leaf = ConcurrentRoaringBitmap()
    with pytest.raises(ValueError, match=r"0\.\.4294967295"):
        leaf.checked_add(1 << 32)
    assert not leaf.contains(-1)


@pytest.mark.parametrize("shape", SHAPES)
def test_bulk_path_builds_the_same_layout(shape):
    rng = np.random.default_rng(3)
    values = rng.integers(0, 3 * K16, 20_000)
    one, bulk = ConcurrentRoaringBitmap(shape), ConcurrentRoaringBitmap(shape)
    for v in values.tolist():
        one.checked_add(v)
    for part in np.array_split(values, 7):
        bulk.add_sorted(part)
    assert one.layout.keys == bulk.layout.keys
    assert one.jvm_bytes() == bulk.jvm_bytes()


def test_trim_after_ten_thousand_removals_by_hand():
    """12,000 consecutive values: a bitmap container (8,216 B); removing 9,999 leaves an array
    container of 2,001 values in a 4,096-char array; the 10,000th removal trims it to 2,000."""
    leaf = ConcurrentRoaringBitmap("wraps-roaring")
    leaf.add_sorted(np.arange(12_000))
    fixed = (
        32 + 48 + 16 + 24 + 24 + 32
    )  # wrapper, StampedLock, RoaringBitmap, array, char[4], Container[4]
    assert leaf.jvm_bytes() == fixed + 24 + 16 + 8192
    for v in range(9_999):
        leaf.remove(v)
    assert leaf.layout.keys[0] == ["array", 2_001, 4_096]
    assert leaf.jvm_bytes() == fixed + 24 + 16 + 2 * 4096
    leaf.remove(9_999)
    assert leaf.layout.keys[0] == ["array", 2_000, 2_000] and leaf.layout.key_capacity == 1
    trimmed = 32 + 48 + 16 + 24 + 24 + 24  # char[1], Container[1]
    assert leaf.jvm_bytes() == trimmed + 24 + 16 + 2 * 2000
    extends = ConcurrentRoaringBitmap("extends-roaring")  # no trim rule
    extends.add_sorted(np.arange(12_000))
    for v in range(10_000):
        extends.remove(v)
    assert extends.layout.keys[0] == ["array", 2_000, 4_096]


def test_mutable_containers_each_carry_an_nio_buffer():
    plain, mutable = (
        ConcurrentRoaringBitmap("wraps-roaring"),
        ConcurrentRoaringBitmap("wraps-mutable"),
    )
    for leaf in (plain, mutable):
        leaf.add_sorted(np.arange(0, 100 * K16, K16))  # 100 keys, one value each
    assert mutable.jvm_bytes() - plain.jvm_bytes() == 100 * jl.nio_buffer() == 5600
