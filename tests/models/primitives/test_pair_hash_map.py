"""ConcurrentLongLongPairHashMap: Java arithmetic, hand-computed traces, a state machine against
the naive map, and the bulk path against per-entry puts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from tests.reference.primitives import NaivePairHashMap
from trackerlab.models.primitives.pair_hash_map import (
    DELETED_KEY,
    EMPTY_KEY,
    ConcurrentLongLongPairHashMap,
    align_to_power_of_two,
    capacity_after_inserts,
    float_divide,
    float_times,
    pair_hash,
    pair_hash_array,
    place_linear_probing,
    section_of,
)
from trackerlab.sizing.jvm import COMPRESSED, UNCOMPRESSED_OOPS

Map = ConcurrentLongLongPairHashMap


# ------------------------------------------------------------------ Java arithmetic


def test_java_float_and_hash_arithmetic():
    """Values printed by OpenJDK 17 for the same expressions (float32 products, the mix)."""
    assert float_times(1 << 26, 0.66) == 44_291_852  # 44_291_850 in float64
    assert (float_times(512, 0.66), float_times(512, 0.15), float_times(1024, 0.15)) == (
        337,
        76,
        153,
    )
    assert (float_divide(256, 0.66), float_divide(16, 0.66)) == (387, 24)
    assert float_times(16_777_217, 0.66) == 11_072_963
    assert pair_hash(1, 2) == 8_472_862_597_713_257_141
    assert section_of(pair_hash(1, 2), 16) == 4 and pair_hash(1, 2) & 511 == 181
    assert pair_hash(10_000, -5) == 12_288_805_744_005_133_475
    arr = pair_hash_array(np.array([10_000, 1]), np.array([-5, 2]))
    assert arr.tolist() == [pair_hash(10_000, -5), pair_hash(1, 2)]


def test_align_to_power_of_two():
    assert [align_to_power_of_two(n) for n in (1, 2, 3, 24, 32, 33, 387)] == [
        1,
        2,
        4,
        32,
        32,
        64,
        512,
    ]
    with pytest.raises(ValueError):
        align_to_power_of_two(0)


# ------------------------------------------------------------------ builder and traces


def test_builder_defaults_and_sections():
    m = Map()
    assert len(m.sections) == 16 and m.capacity() == 16 * 32  # (int)(16 / 0.66f) = 24 → 32
    s = m.sections[0]
    assert (s.resize_threshold_up, s.resize_threshold_below, s.auto_shrink) == (21, 4, False)
    nack = Map(auto_shrink=True, concurrency_level=1)
    assert nack.capacity() == 512 and nack.sections[0].resize_threshold_up == 337
    assert len(nack.sections[0].table) == 4 * 512 and (nack.sections[0].table == EMPTY_KEY).all()


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"expected_items": 0}, "expectedItems"),
        ({"concurrency_level": 0}, "concurrencyLevel"),
        ({"expected_items": 8, "concurrency_level": 16}, "must be >= concurrencyLevel"),
        ({"map_fill_factor": 1.0}, "mapFillFactor"),
        ({"map_idle_factor": 0.0}, "mapIdleFactor"),
        ({"map_fill_factor": 0.1, "map_idle_factor": 0.2}, "must be > mapIdleFactor"),
        ({"expand_factor": 1.0}, "expandFactor"),
        ({"shrink_factor": 0.5}, "shrinkFactor"),
    ],
)
def test_builder_checks(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        Map(**kwargs)


def test_negative_key1_or_value1_rejected():
    m = Map(concurrency_level=1)
    for call in (
        lambda: m.put(-1, 0, 0, 0),
        lambda: m.put(0, 0, -1, 0),
        lambda: m.put_if_absent(0, 0, -3, 0),
        lambda: m.get(-2, 0),
        lambda: m.remove(-1, 0),
        lambda: m.remove(0, 0, -1, 0),
    ):
        with pytest.raises(ValueError, match=">= 0"):
            call()
    assert m.put(0, -7, 0, -9) and m.get(0, -7) == (0, -9)  # key2/value2 may be negative
    with pytest.raises(ValueError, match="key1"):
        Map.from_arrays([-1], [0], [0], [0])


def test_growth_trace_negative_acks_map():
    """NegativeAcksTracker v.B map: 512 buckets, threshold 337: the 338th insert doubles."""
    m = Map(auto_shrink=True, concurrency_level=1)
    for i in range(337):
        m.put(7, i, 1, i)
    assert (m.capacity(), m.used_bucket_count()) == (512, 337)
    m.put(7, 337, 1, 337)
    s = m.sections[0]
    assert (m.capacity(), s.resize_threshold_up, s.resize_threshold_below) == (1024, 675, 153)
    assert capacity_after_inserts(337, 512) == 512 and capacity_after_inserts(338, 512) == 1024
    assert capacity_after_inserts(676, 512) == 2048


def test_capacity_after_inserts_one_rehash_per_put():
    """Each put rehashes at most once: with expandFactor 1.01, (int)(8 × 1.01f) = 8, the
    table never grows (Java then fills it and spins; the bulk path refuses, see below)."""
    assert capacity_after_inserts(50, 8, 0.66, 1.01) == 8
    assert capacity_after_inserts(0, 8) == 8 and capacity_after_inserts(5, 8) == 8
    assert capacity_after_inserts(6, 8) == 16  # (int)(8 × .66f) = 5
    with pytest.raises(ValueError, match="cannot fit"):
        Map.from_arrays(
            np.zeros(20),
            np.arange(20),
            np.zeros(20),
            np.zeros(20),
            expected_items=4,
            concurrency_level=1,
            expand_factor=1.01,
        )


def test_auto_shrink_trace():
    """At 1024 buckets the map shrinks when size drops below 153, to 512 and never below it."""
    m = Map(auto_shrink=True, concurrency_level=1)
    for i in range(338):
        m.put(7, i, 1, i)
    for i in range(338 - 153):
        m.remove(7, i)
    assert (m.size(), m.capacity()) == (153, 1024)
    m.remove(7, 999)  # a miss: size stays 153, no shrink
    assert m.capacity() == 1024
    m.remove(7, 185)  # 152 < 153 → max(align(512), 512) = 512, (int)(512*.66) = 337 > 152
    assert (m.size(), m.capacity(), m.used_bucket_count()) == (152, 512, 152)
    for i in range(186, 338):
        m.remove(7, i)
    assert (m.size(), m.capacity()) == (0, 512)  # initCapacity is the floor


def test_no_shrink_without_auto_shrink_and_clear():
    m = Map(concurrency_level=1, expected_items=4)  # (int)(4/.66f) = 6 → 8 buckets
    assert m.capacity() == 8
    for i in range(100):
        m.put(1, i, 0, 0)
    grown = m.capacity()
    assert grown == 256  # 100 > (int)(128 * .66f) = 84
    for i in range(100):
        m.remove(1, i)
    assert m.capacity() == grown
    m.clear()
    assert m.capacity() == grown and m.is_empty()
    shrinking = Map(concurrency_level=1, expected_items=4, auto_shrink=True)
    for i in range(100):
        shrinking.put(1, i, 0, 0)
    shrinking.clear()
    assert shrinking.capacity() == 8 and shrinking.used_bucket_count() == 0


def _colliding_keys(capacity: int, count: int, home: int = 3) -> list[int]:
    """``count`` key2 values (key1 = 1) whose start bucket is ``home`` in a 1-section map."""
    found = [k for k in range(200_000) if pair_hash(1, k) & (capacity - 1) == home]
    return found[:count]


def test_tombstones_and_backward_cleanup():
    m = Map(concurrency_level=1, expected_items=64)  # 96 → 128 buckets
    a, b, c = _colliding_keys(128, 3)
    for k in (a, b, c):
        m.put(1, k, 0, k)
    t = m.sections[0].table.reshape(-1, 4)
    assert t[3:6, 1].tolist() == [a, b, c]
    assert m.remove(1, a) and t[3, 0] == DELETED_KEY  # next bucket used → tombstone
    assert m.remove(1, b) and t[4, 0] == DELETED_KEY
    assert m.used_bucket_count() == 3 and m.size() == 1
    assert m.remove(1, c)  # next bucket empty: clear it and the tombstones before it
    assert (t[3:6, 0] == EMPTY_KEY).all() and m.used_bucket_count() == 0
    m.put(1, a, 0, 1)
    m.put(1, b, 0, 2)
    m.remove(1, a)
    m.put(1, c, 0, 3)  # reuses the first tombstone without counting a new used bucket
    assert t[3, 1] == c and m.used_bucket_count() == 2 and m.get(1, b) == (0, 2)


def test_conditional_remove_and_put_if_absent():
    m = Map(concurrency_level=2, expected_items=2)
    assert m.put_if_absent(3, 4, 5, 6)
    assert not m.put_if_absent(3, 4, 7, 8) and m.get(3, 4) == (5, 6)
    assert m.put(3, 4, 7, 8) and m.get(3, 4) == (7, 8)
    assert not m.remove(3, 4, 5, 6) and m.contains_key(3, 4)
    assert m.remove(3, 4, 7, 8) and not m.contains_key(3, 4)
    assert not m.remove(3, 4)


def test_jvm_bytes_layout():
    """Section extends StampedLock: 96 B (120 B uncompressed oops), measured on OpenJDK 17."""
    m = Map()
    # 16 (map) + Section[16] 80 + 16 × (96 + long[128] 1040)
    assert m.jvm_bytes() == 16 + 80 + 16 * (96 + 16 + 8 * 128)
    assert COMPRESSED.instance("LLLLLJI" + "L" + "IIIIII" + "FFFF" + "Z") == 96
    assert UNCOMPRESSED_OOPS.instance("LLLLLJI" + "L" + "IIIIII" + "FFFF" + "Z") == 120
    assert m.table_bytes() == 32 * 512


# ------------------------------------------------------------------ state machine


class PairMapMachine(RuleBasedStateMachine):
    """Random puts/removes/clears on small key ranges (many collisions, rehashes, shrinks)."""

    def __init__(self) -> None:
        super().__init__()
        self.map: Map | None = None
        self.ref = NaivePairHashMap()

    @precondition(lambda self: self.map is None)
    @rule(
        concurrency=st.sampled_from([1, 2, 3, 4]),
        extra=st.integers(0, 40),
        auto_shrink=st.booleans(),
        fill=st.sampled_from([0.66, 0.5, 0.9]),
    )
    def create(self, concurrency, extra, auto_shrink, fill):
        self.map = Map(
            expected_items=concurrency + extra,
            concurrency_level=concurrency,
            auto_shrink=auto_shrink,
            map_fill_factor=fill,
        )

    keys = st.tuples(st.integers(0, 6), st.integers(-2, 40))
    values = st.tuples(st.integers(0, 5), st.integers(-3, 3))

    @precondition(lambda self: self.map is not None)
    @rule(key=keys, value=values)
    def put(self, key, value):
        section = self._section(key)
        before, new = section.capacity, self.ref.get(key) is None
        at_threshold = section.used_buckets == section.resize_threshold_up
        assert self.map.put(*key, *value) == self.ref.put(key, value)
        if section.capacity != before:  # only a new key filling the last allowed bucket
            assert new and at_threshold and section.capacity == 2 * before

    @precondition(lambda self: self.map is not None)
    @rule(key=keys, value=values)
    def put_if_absent(self, key, value):
        assert self.map.put_if_absent(*key, *value) == self.ref.put_if_absent(key, value)

    def _section(self, key):
        return self.map.sections[section_of(pair_hash(*key), len(self.map.sections))]

    def _check_shrink(self, section, capacity_before):
        """After any remove (hit or miss): one halving when size < (int)(cap × idle)."""
        if section.auto_shrink and section.size < float_times(capacity_before, 0.15):
            assert section.capacity == max(capacity_before // 2, section.init_capacity)
        else:
            assert section.capacity == capacity_before

    @precondition(lambda self: self.map is not None)
    @rule(key=keys)
    def remove(self, key):
        section = self._section(key)
        before = section.capacity
        assert self.map.remove(*key) == self.ref.remove(key)
        self._check_shrink(section, before)

    @precondition(lambda self: self.map is not None)
    @rule(key=keys, value=values, use_stored=st.booleans())
    def remove_if_value(self, key, value, use_stored):
        if use_stored and self.ref.get(key) is not None:
            value = self.ref.get(key)
        section = self._section(key)
        before = section.capacity
        assert self.map.remove(*key, *value) == self.ref.remove(key, value)
        self._check_shrink(section, before)

    @precondition(lambda self: self.map is not None)
    @rule(key=keys)
    def get(self, key):
        assert self.map.get(*key) == self.ref.get(key)

    @precondition(lambda self: self.map is not None)
    @rule()
    def clear(self):
        self.map.clear()
        self.ref.clear()

    @invariant()
    def matches_reference(self):
        if self.map is None:
            return
        assert self.map.size() == len(self.ref)
        rows = {(k1, k2): (v1, v2) for k1, k2, v1, v2 in self.map.items()}
        assert rows == self.ref.entries
        for s in self.map.sections:
            cap = s.capacity
            assert cap & (cap - 1) == 0 and cap >= s.init_capacity
            keys = s.table[0::4]
            assert s.size == int((keys >= 0).sum())
            assert s.used_buckets == int((keys != EMPTY_KEY).sum())
            assert s.used_buckets <= s.resize_threshold_up
            assert s.resize_threshold_up == float_times(cap, s.fill_factor)


TestPairMapMachine = PairMapMachine.TestCase
TestPairMapMachine.settings = settings(max_examples=60, stateful_step_count=60, deadline=None)


# ------------------------------------------------------------------ bulk path


def _naive_first_come(homes: list[int], capacity: int) -> list[int]:
    used = [False] * capacity
    out = []
    for h in homes:
        b = h
        while used[b]:
            b = (b + 1) % capacity
        used[b] = True
        out.append(b)
    return out


@st.composite
def homes_and_capacity(draw):
    """Start buckets, often crowded at the end of the table so that runs wrap around."""
    capacity = 1 << draw(st.integers(1, 7))
    low = draw(st.sampled_from([0, capacity // 2, capacity - 1]))
    homes = draw(st.lists(st.integers(low, capacity - 1), max_size=capacity - 1))
    return capacity, homes


@settings(max_examples=100, deadline=None)
@given(homes_and_capacity())
@example((4, [3, 3, 0]))
@example((8, [7, 7, 7, 1, 0, 6]))
def test_place_linear_probing_matches_first_come_occupancy(args):
    capacity, homes = args
    buckets = place_linear_probing(np.array(homes, dtype=np.int64), capacity).tolist()
    assert len(set(buckets)) == len(homes)
    assert set(buckets) == set(_naive_first_come(homes, capacity))
    used = set(buckets)
    for h, b in zip(homes, buckets, strict=True):  # every bucket on the probe path is used
        while h != b:
            assert h in used
            h = (h + 1) % capacity
    ordered = sorted(homes)
    naive = _naive_first_come(ordered, capacity)
    if all(b >= h for b, h in zip(naive, ordered, strict=True)):  # no wrap: canonical order
        assert place_linear_probing(np.array(ordered), capacity).tolist() == naive


def test_full_table_is_reported_not_spun():
    """expandFactor 1.5 on a 1-bucket section rehashes to (int)1.5 = 1 bucket: Java hangs."""
    m = Map(expected_items=1, concurrency_level=1, map_fill_factor=0.9, expand_factor=1.5)
    m.put(0, 0, 0, 0)
    assert m.capacity() == 1
    with pytest.raises(RuntimeError, match="no empty bucket"):
        m.put(0, 1, 0, 0)


def test_place_linear_probing_rejects_misuse():
    with pytest.raises(ValueError, match="power of two"):
        place_linear_probing(np.array([0]), 6)
    with pytest.raises(ValueError, match="cannot fit"):
        place_linear_probing(np.zeros(4, dtype=np.int64), 4)


entries = st.lists(
    st.tuples(st.integers(0, 30), st.integers(-5, 300), st.integers(0, 9), st.integers(-9, 9)),
    max_size=400,
)


@settings(max_examples=60, deadline=None)
@given(
    rows=entries,
    concurrency=st.sampled_from([1, 2, 3, 4, 16]),
    extra=st.integers(0, 50),
    fill=st.sampled_from([0.66, 0.3, 0.95, 0.12]),  # 0.12: one doubling is not enough
    expand=st.sampled_from([2.0, 1.5, 3.0]),
)
def test_bulk_equals_per_entry_puts(rows, concurrency, extra, fill, expand):
    builder = dict(
        expected_items=2 * concurrency + extra,  # >= 2 buckets per section: see below
        concurrency_level=concurrency,
        map_fill_factor=fill,
        map_idle_factor=0.1,
        expand_factor=expand,
    )
    per_op = Map(**builder)
    for row in rows:
        per_op.put(*row)
    arr = np.array(rows, dtype=np.int64).reshape(-1, 4)
    bulk = Map.from_arrays(arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3], **builder)
    assert dict(((a, b), (c, d)) for a, b, c, d in bulk.items()) == dict(
        ((a, b), (c, d)) for a, b, c, d in per_op.items()
    )
    for s_bulk, s_op in zip(bulk.sections, per_op.sections, strict=True):
        assert (s_bulk.capacity, s_bulk.size, s_bulk.used_buckets) == (
            s_op.capacity,
            s_op.size,
            s_op.used_buckets,
        )
        assert ((s_bulk.table[0::4] >= 0) == (s_op.table[0::4] >= 0)).all()
        assert s_bulk.resize_threshold_up == s_op.resize_threshold_up
    assert bulk.jvm_bytes() == per_op.jvm_bytes()
    unique = {(a, b): i for i, (a, b, _, _) in enumerate(rows)}
    if len(unique) == len(rows):
        fast = Map.from_arrays(
            arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3], assume_unique=True, **builder
        )
        for s_fast, s_bulk in zip(fast.sections, bulk.sections, strict=True):
            assert (s_fast.table == s_bulk.table).all()


def test_bulk_map_keeps_working_per_entry():
    n = 5000
    i = np.arange(n)
    m = Map.from_arrays(10_000 + i // 100, i % 100, np.zeros(n), i, concurrency_level=4)
    assert m.get(10_003, 7) == (0, 307) and m.size() == n
    assert m.remove(10_003, 7) and m.get(10_003, 7) is None
    m.put(10_003, 7, 1, 1)
    assert m.get(10_003, 7) == (1, 1) and m.size() == n


def test_bulk_pip393_test_map_is_64_mib():
    """PIP-393's test map: 1e6 entries, ``autoShrink(true).concurrencyLevel(16)``: every
    section holds ~62,500 keys > (int)(65536 × .66f) = 43,253, so 16 × 2^17 buckets."""
    n = 1_000_000
    i = np.arange(n)
    m = Map.from_arrays(
        10_000 + i // 1000,
        i % 1000,
        np.zeros(n),
        i,
        assume_unique=True,
        auto_shrink=True,
        concurrency_level=16,
    )
    assert [s.capacity for s in m.sections] == [1 << 17] * 16
    assert m.table_bytes() == 64 * 2**20
    assert m.jvm_bytes() == 16 + 80 + 16 * (96 + 16 + 32 * (1 << 17))
