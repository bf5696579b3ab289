"""pulsar-common Long2LongOpenHashMap model against the naive map, its growth rules and Java
hashes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from tests.reference.primitives import NaiveLong2LongMap
from trackerlab.models.primitives.long2long_open_hash import (
    Long2LongOpenHashMap,
    build_many,
    capacity_after_inserts,
    fibonacci_hash,
    initial_capacity,
    jvm_bytes_for_capacity,
)

LONGS = st.integers(-(2**63), 2**63 - 1)
KEYS = st.one_of(st.integers(-40, 200), LONGS)


@pytest.mark.parametrize(
    ("key", "java_int_hash"),
    [
        (0, 0),
        (1, -511900244),
        (2, -1023800488),
        (-1, -511900243),
        (12345, -269127034),
        (1 << 40, 1249645824),
        (-(2**63), -(2**31)),
    ],
)
def test_fibonacci_hash_matches_java(key, java_int_hash):
    """Values printed by OpenJDK 17 for ``(int) (h ^ (h >>> 32))``, ``h = key * 0x9E37...``."""
    assert fibonacci_hash(key) & 0xFFFF_FFFF == java_int_hash & 0xFFFF_FFFF


def test_default_capacity_is_32_and_growth_doubles_at_threshold():
    m = Long2LongOpenHashMap()
    assert initial_capacity() == 32 and m.capacity == 32
    for k in range(24):
        m.put(k, k)
    assert m.capacity == 32  # size 24 == threshold: the next new key doubles first
    m.put(24, 24)
    assert m.capacity == 64
    m.put(24, 7)  # replacing never grows
    assert (m.capacity, len(m), m.get(24)) == (64, 25, 7)


@pytest.mark.parametrize(
    ("n", "cap"),
    [
        (0, 32),
        (24, 32),
        (25, 64),
        (100, 256),
        (1000, 2048),
        (2500, 4096),
        (5000, 8192),
        (10_000, 16384),
        (50_000, 131_072),
    ],
)
def test_capacity_closed_form(n, cap):
    assert capacity_after_inserts(n) == cap


def test_jvm_bytes_of_default_and_seed_capacities():
    assert jvm_bytes_for_capacity(32) == 632  # 40 + 2 * 272 + 48
    assert jvm_bytes_for_capacity(2048) == 34_904
    assert jvm_bytes_for_capacity(131_072) == 2_228_312  # 17 B per slot + 88


def test_never_shrinks_and_zero_value_is_distinguishable():
    m = Long2LongOpenHashMap()
    for k in range(1000):
        m.put(k, 0)
    assert m.get(5) == 0 and m.contains_key(5) and m.get_or_default(5, -1) == 0
    assert m.get(5000) == 0 and not m.contains_key(5000) and m.get_or_default(5000, -1) == -1
    for k in range(1000):
        m.remove(k)
    assert len(m) == 0 and m.capacity == 2048
    m.put(1, 1)
    m.clear()
    assert m.capacity == 2048 and m.is_empty()


def test_iteration_follows_slots():
    m = Long2LongOpenHashMap()
    for k in (1, 2, 12345):
        m.put(k, k)
    # homes in a 32-slot table: 12, 24, 6 (Java: hash & 31)
    assert [m.slot_of(k) for k in (1, 2, 12345)] == [12, 24, 6]
    assert [k for k, _ in m.items()] == [12345, 1, 2]


def test_backward_shift_keeps_every_key_reachable():
    m = Long2LongOpenHashMap()
    colliding = [k for k in range(5000) if fibonacci_hash(k) & 31 == 12][:6]
    for k in colliding:
        m.put(k, k)
    assert [m.slot_of(k) for k in colliding] == list(range(12, 18))
    m.remove(colliding[1])
    assert [m.slot_of(k) for k in colliding[2:]] == list(range(13, 17))
    assert all(m.get(k) == k for k in colliding if k != colliding[1])


def test_remove_if_removes_exactly_the_matching_keys():
    m = Long2LongOpenHashMap()
    for k in range(300):
        m.put(k * 7, k)
    seen = []
    removed = m.remove_if(lambda k, v: (seen.append(k) or True) if v % 3 == 0 else False)
    assert removed == 100 and sorted(seen) == [k * 7 for k in range(0, 300, 3)]
    assert dict(m.items()) == {k * 7: k for k in range(300) if k % 3}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(KEYS, LONGS), max_size=120))
def test_bulk_build_equals_sequential_puts(pairs):
    seq = Long2LongOpenHashMap()
    for k, v in pairs:
        seq.put(k, v)
    keys = [k for k, _ in pairs]
    bulk = Long2LongOpenHashMap.from_items(keys, [v for _, v in pairs])
    assert bulk.capacity == seq.capacity and len(bulk) == len(seq)
    assert list(bulk.items()) == list(seq.items())


def test_bulk_build_many_tables_equals_sequential():
    rng = np.random.default_rng(5)
    groups = rng.integers(0, 7, 3000)
    keys = rng.integers(0, 2000, 3000)
    maps = build_many(groups, keys, keys * 3, 7)
    for g in range(7):
        seq = Long2LongOpenHashMap()
        for k in keys[groups == g].tolist():
            seq.put(k, 3 * k)
        assert list(maps[g].items()) == list(seq.items()) and maps[g].capacity == seq.capacity


class OpenHashVsNaive(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.map = Long2LongOpenHashMap()
        self.ref = NaiveLong2LongMap()
        self.peak_capacity = self.map.capacity

    @rule(k=KEYS, v=LONGS)
    def put(self, k, v):
        assert self.map.put(k, v) == self.ref.put(k, v)

    @rule(start=st.integers(-40, 200), n=st.integers(1, 60))
    def put_range(self, start, n):
        """Enough new keys at once to cross the resize threshold."""
        for k in range(start, start + n):
            assert self.map.put(k, -k) == self.ref.put(k, -k)

    @rule(k=KEYS)
    def remove(self, k):
        assert self.map.remove(k) == self.ref.remove(k)

    @rule(k=KEYS)
    def lookups(self, k):
        assert self.map.contains_key(k) == self.ref.contains_key(k)
        assert self.map.get_or_default(k, 99) == self.ref.get_or_default(k, 99)
        assert self.map.get(k) == self.ref.get(k)

    @rule(bound=st.integers(-40, 200))
    def remove_if(self, bound):
        removed = []
        n = self.map.remove_if(lambda k, v: (removed.append(k) or True) if k <= bound else False)
        expected = self.ref.remove_if(lambda k, v: k <= bound)
        assert n == len(expected) and sorted(removed) == expected

    @precondition(lambda self: len(self.ref) > 0)
    @rule()
    def clear(self):
        self.map.clear()
        self.ref.clear()

    @invariant()
    def same_content_and_capacity_rules(self):
        assert len(self.map) == len(self.ref)
        assert dict(self.map.items()) == self.ref.entries
        cap = self.map.capacity
        assert cap == self.ref.capacity
        assert cap >= self.peak_capacity and cap & (cap - 1) == 0  # never shrinks
        assert len(self.ref) <= cap * 3 // 4
        self.peak_capacity = cap


OpenHashVsNaive.TestCase.settings = settings(max_examples=40, stateful_step_count=60, deadline=None)
TestOpenHashVsNaive = OpenHashVsNaive.TestCase
