"""The JVM layout model against sizes measured on OpenJDK 17 (Instrumentation.getObjectSize
summed over the graph; spec/memory-measurement.md §C) and against the seeds' JOL tables."""

import pytest

from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing.jvm import COMPRESSED, UNCOMPRESSED, UNCOMPRESSED_OOPS, align

L = COMPRESSED


@pytest.mark.parametrize(
    ("what", "model", "measured"),
    [
        ("Long", L.boxed("J"), 24),
        ("Integer", L.boxed("I"), 16),
        ("Boolean", L.boxed("Z"), 16),
        ("int[1]", L.array(1, "I"), 24),
        ("TreeMap empty", jc.tree_map(0), 48),
        ("TreeMap<Long,Long> x1000", jc.tree_map(1000, 1000 * 2 * jc.boxed_long()), 88_048),
        ("HashMap empty", jc.hash_map(0), 48),
        ("HashMap Node[16]", L.array(16, "L"), 80),
        ("IntIntPair", jc.int_int_pair(), 24),
        ("BitSet()", jc.bit_set(1), 48),
        ("BitSet(65536)", jc.bit_set(jc.bit_set_words(65536)), 8232),
        ("Long2ObjectAVLTreeMap empty", jc.fastutil_avl_tree_map(0), 128),
        ("Long2ObjectRBTreeMap empty", jc.fastutil_rb_tree_map(0), 416),
        ("AVL Entry", jc.fastutil_avl_tree_map(1) - jc.fastutil_avl_tree_map(0), 40),
        ("RB Entry", jc.fastutil_rb_tree_map(1) - jc.fastutil_rb_tree_map(0), 40),
        ("Long2ObjectOpenHashMap default", jc.fastutil_long2object_open_hash_map(32), 496),
        ("Long2LongOpenHashMap default", jc.fastutil_long2long_open_hash_map(32), 632),
    ],
)
def test_sizes_measured_on_jdk17(what, model, measured):
    assert model == measured, what


@pytest.mark.parametrize(("k", "expected"), [(100, 8_960), (1_000, 88_160), (50_000, 4_400_160)])
def test_seed_treemap_of_treemaps_one_ledger(k, expected):
    """PendingAcksMap TreeMap<Long, TreeMap<Long, IntIntPair>>: 160 + 88k (seed 002: 8.7 KiB,
    86.1 KiB, 4.20 MiB)."""
    inner = jc.tree_map(k, k * (jc.boxed_long() + jc.int_int_pair()))
    outer = jc.tree_map(1, jc.boxed_long() + inner)
    assert outer == expected


@pytest.mark.parametrize(
    ("items", "n"), [(0, 32), (24, 32), (25, 64), (100, 256), (1000, 2048), (50_000, 131_072)]
)
def test_fastutil_capacity_closed_form(items, n):
    assert jc.fastutil_capacity(items) == n


def test_fastutil_capacity_tracker_matches_closed_form_and_shrinks():
    cap = jc.FastutilHashCapacity()
    for i in range(1, 5001):
        cap.insert()
        assert cap.n == jc.fastutil_capacity(i)
    assert cap.n == 8192
    while cap.size > 0:
        cap.remove()
    assert cap.n == 32  # shrinks back to minN, never below


def test_hash_map_capacity():
    assert [jc.hash_map_capacity(n) for n in (0, 1, 12, 13, 24, 25, 96, 97)] == [
        0,
        16,
        16,
        32,
        32,
        64,
        128,
        256,
    ]


def test_bitset_growth():
    words = jc.BitSetWords()
    words.set(63)
    assert words.length == 1
    words.set(64)
    assert words.length == 2
    words.set(1000)  # required 16 > 2 * 2
    assert words.length == 16
    words.set(1100)  # required 18 <= 32
    assert words.length == 32


def test_uncompressed_oops():
    assert UNCOMPRESSED_OOPS.instance("LLLLLZ") == 56  # TreeMap.Entry, 8-byte refs, 12-byte header
    assert UNCOMPRESSED.instance("LLLLLZ") == 64  # and a 16-byte header (pre-JDK 15)
    assert UNCOMPRESSED_OOPS.boxed("J") == 24 and UNCOMPRESSED.boxed("J") == 24
    assert UNCOMPRESSED_OOPS.array(16, "L") == 16 + 128
    assert UNCOMPRESSED.array(1, "J") == 32 and UNCOMPRESSED.array(1, "I") == 24


def test_field_packing_fills_header_gap():
    assert L.instance("J") == 24  # gap left
    assert L.instance("JI") == 24  # int fills the gap
    assert L.instance("JZ") == 24
    assert L.instance("JSS") == 24
    assert L.instance("") == 16
    assert align(17) == 24 and align(16) == 16
    with pytest.raises(ValueError):
        L.array(-1, "J")
