"""The RoaringBitmap 1.6.10 layout model without a JVM: growth rules, container choice, sizes
computed by hand from the class fields, and step-by-step reference simulations.

Hand arithmetic uses compressed oops: header 12 B, reference 4 B, arrays 16 B + elements,
everything padded to 8 B. Measured values are those of spec/memory-measurement.md §C (the real
JVM comparison is tests/sizing/test_jvm_probe.py)."""

from __future__ import annotations

import array
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from pyroaring import BitMap, BitMap64

from tests.reference.roaring import NaiveRoaringBitmap
from trackerlab.jvmcheck.probe_cases import chunks_in_insertion_order
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.sizing.jvm import COMPRESSED, UNCOMPRESSED_OOPS


def chunks(values) -> list[jr.Chunk]:
    return jr.chunks_of(np.array(sorted(set(values)), dtype=np.uint64))


# --------------------------------------------------------------------------- growth rules


def test_array_capacity_sequence():
    # 4, x2 below 64, x1.5 below 1024, x1.25 after; 3332 * 5 / 4 = 4165 is clamped to 4096
    assert jr.ARRAY_CAPACITIES == (
        4, 8, 16, 32, 64, 96, 144, 216, 324, 486, 729, 1093, 1366, 1707, 2133, 2666, 3332, 4096,
    )  # fmt: skip
    assert [jr.array_capacity(c) for c in (0, 1, 4, 5, 64, 65, 1000, 3333, 4096)] == [
        4, 4, 4, 8, 64, 96, 1093, 4096, 4096,
    ]  # fmt: skip


def test_array_growth_snaps_to_max_within_one_sixteenth():
    assert jr.array_growth(3100) == 4096  # 3875 > 4096 - 4096 / 16 = 3840: snaps to 4096
    assert jr.array_growth(3072) == 3840  # exactly 3840 stays
    with pytest.raises(ValueError, match=r"0\.\.4096"):
        jr.array_capacity(4097)


@given(st.integers(0, 4096))
def test_array_capacity_matches_add_by_add(card):
    """ArrayContainer.add, one value at a time: grow when cardinality >= content.length."""
    ref = NaiveRoaringBitmap()
    for low in range(card):
        ref.add(low)
    assert jr.array_capacity(card) == ref.capacity.get(0, 4)


@given(st.integers(0, 20_000))
def test_roaring_array_capacity_matches_insert_by_insert(n):
    """RoaringArray.extendArray(1) before each insertNewKeyValueAt."""
    ref = NaiveRoaringBitmap()
    for key in range(n):
        ref.add(key << 16)
    assert jr.roaring_array_capacity(n) == ref.keys_length(trim=False)


def test_roaring_array_and_art_container_sequences():
    assert [jr.roaring_array_capacity(n) for n in (0, 4, 5, 10, 11, 16, 100, 1000)] == [
        4, 4, 10, 10, 22, 22, 190, 1534,
    ]  # fmt: skip
    caps = sorted({jr.art_container_array_capacity(n) for n in range(1, 142)})
    assert caps == [1, 2, 3, 4, 6, 9, 13, 19, 28, 42, 63, 94, 141]
    assert jr.art_container_array_capacity(0) == 0
    assert jr.art_container_array_capacity(1000) == 1066


def test_run_capacity_and_cumulative_cache():
    assert [jr.run_capacity(r) for r in (1, 4, 5, 9, 33, 50)] == [4, 4, 8, 16, 48, 72]
    assert [jr.cumulative_cache_length(n) for n in (0, 1, 2, 3, 4, 100, 1000)] == [
        0, 1, 3, 3, 7, 127, 1023,
    ]  # fmt: skip


# --------------------------------------------------------------------------- containers


def test_container_choice_rules():
    assert jr.container(jr.Chunk(0, 4096)).kind == "array"
    assert jr.container(jr.Chunk(0, 4097)) == jr.Container("bitmap", 4097)
    # runOptimize only when strictly smaller: array 2*card vs run 2 + 4*runs
    assert jr.container(jr.Chunk(0, 3, 1), run_optimize=True).kind == "array"  # 6 vs 6
    assert jr.container(jr.Chunk(0, 4, 1), run_optimize=True) == jr.Container("run", 4, 1, 1)
    assert jr.container(jr.Chunk(0, 4, 2), run_optimize=True).kind == "array"  # 8 vs 10
    # bitmap 8192 vs 2 + 4*runs
    assert jr.container(jr.Chunk(0, 40_000, 2047), run_optimize=True).kind == "run"
    assert jr.container(jr.Chunk(0, 40_000, 2048), run_optimize=True).kind == "bitmap"
    assert jr.container(jr.Chunk(0, 1000), trim=True) == jr.Container("array", 1000, 0, 1000)
    with pytest.raises(ValueError, match="run count"):
        jr.container(jr.Chunk(7, 10), run_optimize=True)


def test_container_bytes_by_hand():
    assert jr.container_bytes(jr.Container("array", 1, 0, 4)) == 24 + 24  # char[4]: 16 + 8
    assert jr.container_bytes(jr.Container("array", 1000, 0, 1093)) == 24 + 2208  # 16 + 2186
    assert jr.container_bytes(jr.Container("bitmap", 5000)) == 24 + 8208  # long[1024]
    assert jr.container_bytes(jr.Container("run", 100, 1, 1)) == 24 + 24  # char[2]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"key": 0, "cardinality": 0}, "cardinality"),
        ({"key": 0, "cardinality": 5, "runs": 6}, "runs"),
    ],
)
def test_chunk_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        jr.Chunk(**kwargs)


def test_keys_must_be_distinct_and_in_range():
    with pytest.raises(ValueError, match="distinct"):
        jr.roaring_bitmap_bytes([jr.Chunk(1, 1), jr.Chunk(1, 2)])
    with pytest.raises(ValueError, match="16-bit"):
        jr.roaring_bitmap_bytes([jr.Chunk(1 << 16, 1)])
    with pytest.raises(ValueError, match="sorted"):
        jr.chunks_of(np.array([3, 1], dtype=np.uint64))


# --------------------------------------------------------------------------- spec §C by hand


def test_roaring_bitmap_spec_numbers():
    # RoaringBitmap 16 + RoaringArray 24 + char[4] 24 + Container[4] 32
    assert jr.roaring_bitmap_bytes([]) == 96
    assert jr.roaring_bitmap_bytes(chunks([5])) == 96 + 48  # ArrayContainer 24 + char[4] 24
    assert jr.roaring_bitmap_bytes(chunks(range(0, 3000, 3))) == 96 + 24 + 2208 == 2328
    assert jr.roaring_bitmap_bytes(chunks(range(0, 65536, 2))) == 96 + 8232 == 8328
    # 0..999,999: 16 keys (RoaringArray 4 -> 10 -> 22), 16 run containers of one run each
    run = jr.roaring_bitmap_bytes(chunks(range(10**6)), run_optimize=True)
    assert run == 16 + 24 + (16 + 2 * 22 + 4) + (16 + 4 * 22) + 16 * (24 + 24) == 976
    assert (
        jr.roaring_bitmap_bytes(chunks(range(0, 3000, 3)), trim=True)
        == 16 + 24 + 24 + 24 + 24 + 2016
    )


def test_roaring64_bitmap_spec_numbers():
    # R64 16 + HighLowContainer 24 + Art 24 + Containers 32 + ArrayList 24 + Object[0] 16
    assert jr.roaring64_bitmap_bytes([]) == 136
    # ... + Object[1] 24 (not 16) + Container[1] 24 + LeafNode 32 + ArrayContainer 24 + char[4] 24
    one = 16 + 24 + 24 + 32 + 24 + 24 + 24 + 32 + 24 + 24
    assert jr.roaring64_bitmap_bytes(chunks([5])) == one == 248
    assert jr.roaring64_bitmap_bytes(chunks(range(1000)), run_optimize=True) == 248  # char[2]
    assert jr.roaring64_bitmap_bytes(chunks(range(0, 3000, 3))) == 248 - 24 + 2208 == 2432


def test_roaring64_high_keys_by_hand():
    fixed = 16 + 24 + 24 + 32 + 24 + 24  # the empty bitmap with Object[1]
    per_key = 32 + 48  # LeafNode + ArrayContainer with char[4]
    # 100 keys i << 16: one Node256 (32 + Node[256] 1040 + long[4] 48) with prefix byte[5] 24,
    # Container[141]: 16 + 564 -> 584
    assert (
        jr.roaring64_bitmap_bytes(chunks(i << 16 for i in range(100)))
        == (fixed + 584 + 100 * per_key + 1120 + 24)
        == 9872
    )
    # 1000 keys: root Node4 (32 + Node[4] 32 + byte[4] 24) over four Node256; the first one's
    # prefix was split to length 0 by key 256 (its own byte[0], 16 B), the others share
    # Art.EMPTY_BYTES (16 B once); Container[1066]: 16 + 4264 = 4280
    assert (
        jr.roaring64_bitmap_bytes(chunks(i << 16 for i in range(1000)))
        == (fixed + 4280 + 1000 * per_key + 88 + 4 * 1120 + 16 + 16)
        == 89_024
    )
    # about 90 B per extra high key (spec: "about 90 B per extra high-48 key")
    assert 85 < (89_024 - 248) / 999 < 95


def test_roaring64_node_growth_steps():
    sizes = {
        n: jr.roaring64_bitmap_bytes(chunks(i << 16 for i in range(n))) for n in (4, 5, 16, 17)
    }
    containers = {4: 32, 5: 40, 16: 96, 17: 96}  # Container[4], [6], [19], [19]
    for n, size in sizes.items():
        node = {4: 32 + 32, 5: 40 + 80, 16: 40 + 80, 17: 32 + 272 + 208}[n]
        assert size == 16 + 24 + 24 + 32 + 24 + 24 + containers[n] + n * 80 + node + 24, n


def test_navigable_map_spec_numbers():
    # map 40 + TreeMap 48 + comparator 16 + supplier 16 + int[0] 16 + long[0] 16
    assert jr.roaring64_navigable_map_bytes([]) == 152
    # + Entry 40 + Integer 16 + RoaringBitmap 144 + SimpleImmutableEntry 24 (cached Integer 0)
    assert jr.roaring64_navigable_map_bytes(chunks([5])) == 152 + 40 + 16 + 144 + 24 == 376
    # getLongCardinality(): int[1] and long[1], 24 B each instead of 16
    assert jr.roaring64_navigable_map_bytes(chunks([5]), cardinalities_cached=True) == 392
    thousand = chunks(i << 32 for i in range(1000))
    # the last high (999) is outside the Integer cache: its entry holds a second box
    assert jr.roaring64_navigable_map_bytes(thousand) == 152 + 1000 * 200 + 24 + 16 == 200_192
    # runOptimize() iterates TreeMap.values(), which caches a 16 B view
    assert jr.roaring64_navigable_map_bytes(thousand, run_optimize=True) == 200_208


def test_uncompressed_oops_by_hand():
    lay = UNCOMPRESSED_OOPS  # references 8 B, header still 12 B
    # RoaringBitmap 24 + RoaringArray 12+8+8+4 = 32 + char[4] 24 + Container[4] 16 + 32 = 48
    assert jr.roaring_bitmap_bytes([], layout=lay) == 24 + 32 + 24 + 48 == 128
    assert jr.roaring64_bitmap_bytes(chunks([5]), layout=lay) == 288


# --------------------------------------------------------------------------- ART


def _naive_art(keys: list[bytes], depth: int = 0) -> tuple[int, int, int]:
    """Canonical path-compressed trie of distinct 6-byte keys, independent of insertion order:
    (bytes without prefix arrays, own prefix bytes, zero-length-prefix nodes)."""
    if len(keys) == 1:
        return 32, 0, 0
    d = depth
    while len({k[d] for k in keys}) == 1:
        d += 1
    groups: dict[int, list[bytes]] = {}
    for k in keys:
        groups.setdefault(k[d], []).append(k)
    kind = next(c for c in (4, 16, 48, 256) if len(groups) <= c)
    node = {4: 64, 16: 120, 48: 512, 256: 1120}[kind]
    prefix = 16 + (d - depth + 7) // 8 * 8 if d > depth else 0
    zero = 1 if d == depth else 0
    for group in groups.values():
        n, p, z = _naive_art(group, d + 1)
        node, prefix, zero = node + n, prefix + p, zero + z
    return node, prefix, zero


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, (1 << 48) - 1) | st.integers(0, 2000), min_size=1, max_size=300))
def test_art_replay_against_canonical_trie(raw):
    keys = list(dict.fromkeys(raw))  # distinct, in insertion order
    nodes, own_prefixes, zero_prefix_nodes = _naive_art([k.to_bytes(6, "big") for k in keys])
    replay = jr.art_bytes(keys)
    # the shape is canonical; only whether a zero-length prefix is the shared EMPTY_BYTES or a
    # node's own byte[0] (left by a split) depends on the insertion order: 16 B steps
    extra = replay - nodes - own_prefixes
    assert extra % 16 == 0
    assert (16 if zero_prefix_nodes else 0) <= extra <= 16 * zero_prefix_nodes


# --------------------------------------------------------------------------- state machine


class JavaRoaringAdds(RuleBasedStateMachine):
    """Replays Java's incremental add value by value (the naive RoaringBitmap: ArrayContainer
    growth, conversion to a bitmap at the 4097th value, RoaringArray.extendArray,
    art.Containers.grow) and checks the closed-form model of the final content against it,
    for RoaringBitmap and Roaring64Bitmap, as built, after runOptimize() and after trim()."""

    def __init__(self) -> None:
        super().__init__()
        self.ref = NaiveRoaringBitmap()

    @rule(key=st.integers(0, 5), low=st.integers(0, 9000))
    def add_one(self, key, low):
        self.ref.add((key << 16) | low)

    @rule(key=st.integers(0, 5), start=st.integers(0, 60_000), n=st.integers(1, 3000))
    def add_run(self, key, start, n):
        for low in range(start, min(start + n, 1 << 16)):
            self.ref.add((key << 16) | low)

    @invariant()
    def model_matches_replay(self):
        content = chunks_in_insertion_order(np.array(self.ref.values, dtype=np.int64))
        assert [c.key for c in content] == self.ref.keys_in_order
        for run_optimize, trim in ((False, False), (True, False), (False, True), (True, True)):
            naive = self.ref.containers(run_optimize, trim)
            expected = jr.roaring_bitmap_from_containers(naive, self.ref.keys_length(trim))
            kw = {"run_optimize": run_optimize, "trim": trim}
            assert jr.roaring_bitmap_bytes(sorted(content, key=lambda c: c.key), **kw) == expected
            expected64 = jr.roaring64_bitmap_from_containers(self.ref.keys_in_order, naive)
            assert jr.roaring64_bitmap_bytes(content, **kw) == expected64


JavaRoaringAdds.TestCase.settings = settings(max_examples=30, stateful_step_count=15, deadline=None)
TestJavaRoaringAdds = JavaRoaringAdds.TestCase


# --------------------------------------------------------------------------- pyroaring


def test_from_pyroaring_bitmaps():
    assert jr.roaring_bitmap_bytes_of(BitMap([5])) == 144
    assert jr.roaring_bitmap_bytes_of(BitMap(range(0, 3000, 3))) == 2328
    # pyroaring's constructor made run containers; Java's add would not, until runOptimize
    consecutive = BitMap(range(10**6))
    assert consecutive.get_statistics()["n_run_containers"] == 16
    assert jr.roaring_bitmap_bytes_of(consecutive, run_optimize=True) == 976
    # 16 chunks of more than 4096 values: all bitmaps; RoaringArray capacity 22
    assert jr.roaring_bitmap_bytes_of(consecutive) == 16 + 24 + 64 + 104 + 16 * 8232
    assert jr.roaring64_bitmap_bytes_of(BitMap64([5])) == 248
    keys = array.array("Q", [i << 16 for i in range(1000)])
    assert jr.roaring64_bitmap_bytes_of(BitMap64(keys)) == 89_024
    assert jr.roaring64_navigable_map_bytes_of(BitMap64([5]), cardinalities_cached=True) == 392


def test_chunks_of_counts_runs_per_chunk():
    values = np.array([0, 1, 2, 5, 65535, 65536, 65537, 70000], dtype=np.uint64)
    assert jr.chunks_of(values) == [jr.Chunk(0, 5, 3), jr.Chunk(1, 3, 2)]
    assert jr.chunks_of(np.array([], dtype=np.uint64)) == []


def test_sorted_distinct():
    v = np.array([5, 3, 5, 0, 3], dtype=np.uint64)
    assert jr.sorted_distinct(v).tolist() == [0, 3, 5]
    assert jr.sorted_distinct(np.array([], dtype=np.uint32)).size == 0


# --------------------------------------------------------------------------- RoaringBitmap 1.2


L12 = replace(COMPRESSED, roaring_art="1.2")


def test_roaring_1_2_leaf_is_heavier_by_its_own_prefix_and_node_type():
    """1.2.0's ``LeafNode`` keeps ``Node``'s ``nodeType`` (ref), ``prefixLength`` (byte),
    ``prefix`` (ref) and ``count`` (short) beside ``key`` and ``containerIdx`` (longs):
    12 + 4 + 4 + 2 + 1 -> 24, + 16 = 40 B (1.6: ``keyHigh`` int, ``keyLow`` char,
    ``containerIdx`` long = 32 B); its ``new byte[0]`` prefix is 16 B. The shared
    ``NodeType.LEAF_NODE`` constant: Enum (name, ordinal) 24 B + its String 24 B +
    ``byte[9]`` "LEAF_NODE" 32 B = 80 B, once per structure."""
    one = [jr.Chunk(0, 200, 1)]
    assert jr.roaring64_bitmap_bytes(one, layout=L12) - jr.roaring64_bitmap_bytes(one) == (
        (40 - 32) + 16 + 80
    )
    parts = jr.roaring64_bitmap_size(one, layout=L12)
    assert parts.shared == frozenset({"type:LEAF_NODE"})
    assert jr.art_shared_bytes(parts.shared, L12) == 80


def test_roaring_1_2_split_leaf_takes_the_static_empty_prefix():
    """Two keys under one Node4: ``Art.insert`` gives the split leaf the static
    ``EMPTY_BYTES`` and the new leaf its own ``byte[0]``; the Node4 gets ``byte[5]`` (16 + 5 ->
    24 B). Node4: Node's fields + ``key`` int + ``children`` ref = 32 B, ``Node[4]`` 32 B."""
    size = jr.art_size([0, 1], L12)
    assert size.own == 2 * 40 + 16 + (32 + 32) + 24
    assert size.shared == frozenset({"type:LEAF_NODE", "type:NODE4", "empty-bytes"})


def test_range_adds_grow_before_the_array_is_full():
    """``add(x, x + 1)``: ``char[1]``, then ``iadd`` grows when ``newCardinality >= length``
    to ``max(computeCapacity(length), newCardinality)``: 1, 2, 4, 8 (at the 4th value), 16 at
    the 8th, 32 at the 16th; 4096 within 1/16 of the maximum."""
    assert jr.RANGE_ADD_CAPACITIES[:9] == (1, 2, 4, 8, 8, 8, 8, 16, 16)
    assert jr.array_capacity_range_adds(16) == 32 and jr.array_capacity_range_adds(15) == 16
    assert jr.array_capacity_range_adds(4096) == 4096
    with pytest.raises(ValueError):
        jr.array_capacity_range_adds(0)


def test_roaring_0_9_split_leaves_keep_their_prefix_and_containers_has_one_more_field():
    """Before 0.9.40 ``Art.insert`` leaves a split leaf its own ``byte[0]`` (16 B more than
    1.2's static one); before 0.9.36 ``Containers`` also declares ``denseContainerIdxList``
    (``LJII`` + a reference: 32 -> 40 B). Read in 0.9.15's, 0.9.36's and 0.9.40's sources."""
    two = [jr.Chunk(0, 1, 1), jr.Chunk(1, 1, 1)]
    l09 = replace(COMPRESSED, roaring_art="0.9")
    l0936 = replace(COMPRESSED, roaring_art="0.9.36")
    assert jr.art_size([0, 1], l0936).own == jr.art_size([0, 1], L12).own + 16
    assert jr.art_size([0, 1], l0936).shared == frozenset({"type:LEAF_NODE", "type:NODE4"})
    assert (
        jr.roaring64_bitmap_bytes(two, layout=l09)
        == jr.roaring64_bitmap_bytes(two, layout=l0936) + 8
    )
