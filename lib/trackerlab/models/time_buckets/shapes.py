"""Sizes of a :class:`~trackerlab.models.time_buckets.time_bucket_index.TimeBucketIndex` in the three columns.

JVM shapes (the Java declarations each Pulsar version used):

- ``avl-openhash`` — ``Long2ObjectAVLTreeMap<Long2ObjectOpenHashMap<Roaring64Bitmap>>``:
  PIP-393's ``NegativeAcksTracker`` (#23600) and ``InMemoryDelayedDeliveryTracker`` (#23611);
- ``avl-avl`` — ``Long2ObjectAVLTreeMap<Long2ObjectAVLTreeMap<Roaring64Bitmap>>``: the
  TimeBucket blog's test (``Long2ObjectSortedMap<Long2ObjectSortedMap<...>>``);
- ``avl-rb`` — the latest tracker's maps (fastutil restored, inner ``Long2ObjectRBTreeMap``).
  Its leaf is a ``LongBitmap`` (``ConcurrentRoaringBitmap``): pass ``leaf=`` one of
  :data:`~trackerlab.sizing.jvm_long_bitmap.LEAF_SHAPES`; the default leaf is a
  ``Roaring64Bitmap`` (the PIP-393 / #23611 leaf);
- ``treemap`` — ``TreeMap<Long, TreeMap<Long, Roaring64Bitmap>>`` (#25413, boxed keys).

Bitmaps are sized by :mod:`trackerlab.sizing.jvm_roaring` from each bitmap's per-chunk
cardinality and run count, as Java's ascending ``addLong`` would build them (array
containers with capacity slack; run containers only in the run-optimized improvement
variant). The work is vectorized over the index's content table, so it also sizes
structures that were never built (Spark aggregates of the same table).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from trackerlab.core.params import check_choice
from trackerlab.models.time_buckets.time_bucket_index import TimeBucketIndex
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing import jvm_long_bitmap as jl
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

SHAPES = ("avl-openhash", "avl-avl", "avl-rb", "treemap")
#: Leaves of a bucket's ledger map: ``Roaring64Bitmap`` or a ``ConcurrentRoaringBitmap`` shape.
LEAVES = ("roaring64", *jl.LEAF_SHAPES)
# content columns (TimeBucketIndex.content)
BUCKET, LEDGER, CHUNK, CARD, RUNS, RANK = range(6)


def _outer(shape: str, n_buckets: int, layout: JvmLayout) -> int:
    """The outer sorted map with ``n_buckets`` entries (values excluded)."""
    if shape == "treemap":
        return jc.tree_map(n_buckets, n_buckets * jc.boxed_long(layout), layout)
    return jc.fastutil_avl_tree_map(n_buckets, layout=layout)


def _inner(shape: str, n_ledgers: int, layout: JvmLayout) -> int:
    """One inner map holding ``n_ledgers`` ledgers (bitmaps excluded)."""
    if shape == "avl-openhash":
        return jc.fastutil_long2object_open_hash_map(jc.fastutil_capacity(n_ledgers), layout=layout)
    if shape == "avl-avl":
        return jc.fastutil_avl_tree_map(n_ledgers, layout=layout)
    if shape == "avl-rb":
        return jc.fastutil_rb_tree_map(n_ledgers, layout=layout)
    return jc.tree_map(n_ledgers, n_ledgers * jc.boxed_long(layout), layout)


@cache
def _single_key_overhead(layout: JvmLayout) -> int:
    """A Roaring64Bitmap with one high key, minus its container and the ART's shared statics
    (200 B compressed, RoaringBitmap 1.6; 224 B with 1.2's heavier leaf)."""
    probe = jr.Container("bitmap", 1)
    parts = jr.roaring64_bitmap_parts([0], [probe], layout)
    return parts.own - jr.container_bytes(probe, layout)


@cache
def _single_key_shared(layout: JvmLayout) -> frozenset[str]:
    return jr.roaring64_bitmap_parts([0], [jr.Container("bitmap", 1)], layout).shared


@cache
def _multi_key_parts(n_keys: int, layout: JvmLayout) -> jr.ArtSize:
    """A Roaring64Bitmap with ``n_keys`` high keys below 256, minus its containers: the same
    ART (one Node4/16/48/256 with a 5-byte prefix over ``n_keys`` leaves) for any such keys.
    Shared statics apart."""
    chunks = [jr.Chunk(k, 1) for k in range(n_keys)]
    probe = jr.container_bytes(jr.container(jr.Chunk(0, 1)), layout)
    parts = jr.roaring64_bitmap_size(chunks, layout=layout)
    return jr.ArtSize(parts.own - n_keys * probe, parts.shared)


@cache
def _array_container_table(layout: JvmLayout) -> np.ndarray:
    """Deep bytes of an array container by cardinality 0..4096, as built by ``add``."""
    return np.array(
        [0] + [jr.container_bytes(jr.container(jr.Chunk(0, c)), layout) for c in range(1, 4097)],
        dtype=np.int64,
    )


def _container_bytes(
    card: np.ndarray, runs: np.ndarray, run_optimize: bool, layout: JvmLayout
) -> np.ndarray:
    """Vectorized :func:`jvm_roaring.container` + ``container_bytes`` over chunks."""
    arrays = _array_container_table(layout)
    bitmap = jr.container_bytes(jr.Container("bitmap", 4097), layout)
    out = np.where(card <= jr.ARRAY_MAX_CARDINALITY, arrays[np.minimum(card, 4096)], bitmap)
    if run_optimize:
        plain = np.where(card <= jr.ARRAY_MAX_CARDINALITY, 2 * card, 8192)
        run_bytes = layout.instance("LI") + ((16 + 4 * runs + 7) // 8) * 8
        out = np.where(plain > 2 + 4 * runs, run_bytes, out)
    return out


def jvm_bytes_from_content(
    content: np.ndarray,
    n_buckets: int,
    shape: str = "avl-openhash",
    run_optimize: bool = False,
    layout: JvmLayout = COMPRESSED,
    leaf: str = "roaring64",
) -> int:
    """Deep heap bytes of the Java structure holding ``content`` (one row per chunk).

    O(chunks) numpy work, plus one Python call per distinct inner-map size, per distinct
    key count of bitmaps with several chunks, and per bitmap with entry ids of 2^24 and more.
    A ``LongBitmap`` leaf (``leaf`` in :data:`~trackerlab.sizing.jvm_long_bitmap.LEAF_SHAPES`)
    holds 32-bit entry ids as ``add`` built them (never run-optimized): O(chunks) numpy.
    """
    check_choice("JVM shape", shape, SHAPES)
    check_choice("bitmap leaf", leaf, LEAVES)
    total = _outer(shape, n_buckets, layout)
    if len(content) == 0:
        return total
    bitmap_id = content[:, [BUCKET, LEDGER]]
    new_bitmap = np.r_[True, np.any(bitmap_id[1:] != bitmap_id[:-1], axis=1)]
    starts = np.flatnonzero(new_bitmap)
    chunks_per_bitmap = np.diff(np.r_[starts, len(content)])
    if leaf != "roaring64":
        if run_optimize:
            raise ValueError("a LongBitmap leaf is never run-optimized in place")
        total += int(jl.container_bytes_array(content[:, CARD], None, leaf, layout).sum())
        total += int(jl.fixed_bytes_table(leaf, layout)[chunks_per_bitmap].sum())
        return total + _inner_maps(content, new_bitmap, shape, layout)
    containers = _container_bytes(content[:, CARD], content[:, RUNS], run_optimize, layout)
    single = chunks_per_bitmap == 1
    total += int(containers[starts[single]].sum()) + int(single.sum()) * _single_key_overhead(
        layout
    )
    shared = set(_single_key_shared(layout)) if single.any() else set()
    # bitmaps whose high keys are all below 256 (entry ids below 2^24): the ART is one inner
    # node under a shared 5-byte prefix, so the overhead depends on the key count only
    max_key = np.maximum.reduceat(content[:, CHUNK], starts)
    small = ~single & (max_key < 256)
    if small.any():
        owner = np.repeat(small, chunks_per_bitmap)
        total += int(containers[owner].sum())
        keys, counts = np.unique(chunks_per_bitmap[small], return_counts=True)
        for k, c in zip(keys.tolist(), counts.tolist(), strict=True):
            parts = _multi_key_parts(int(k), layout)
            total += int(c) * parts.own
            shared |= parts.shared
    large = ~single & ~small
    for s, n in zip(starts[large].tolist(), chunks_per_bitmap[large].tolist(), strict=True):
        rows = content[s : s + n]
        chunks = [jr.Chunk(int(r[CHUNK]), int(r[CARD]), int(r[RUNS])) for r in rows]
        parts = jr.roaring64_bitmap_size(chunks, run_optimize=run_optimize, layout=layout)
        total += parts.own
        shared |= parts.shared
    # the ART's static objects (an empty byte[], the NodeType constants of RoaringBitmap
    # before 1.5.3) are shared by every bitmap: a walk of the structure counts each once
    total += jr.art_shared_bytes(shared, layout)
    return total + _inner_maps(content, new_bitmap, shape, layout)


def _inner_maps(content: np.ndarray, new_bitmap: np.ndarray, shape: str, layout: JvmLayout) -> int:
    """The inner maps of the buckets in ``content``, leaves excluded."""
    bucket_starts = np.flatnonzero(np.r_[True, content[1:, BUCKET] != content[:-1, BUCKET]])
    ledgers_per_bucket = np.add.reduceat(new_bitmap.astype(np.int64), bucket_starts)
    sizes, counts = np.unique(ledgers_per_bucket, return_counts=True)
    return sum(int(c) * _inner(shape, int(s), layout) for s, c in zip(sizes, counts, strict=True))


def jvm_bytes(
    index: TimeBucketIndex, shape: str = "avl-openhash", layout: JvmLayout = COMPRESSED
) -> int:
    """:func:`jvm_bytes_from_content` of a built index."""
    return jvm_bytes_from_content(
        index.content(runs=False),
        len(index.buckets),
        shape,
        index.run_optimize,
        layout,
    )


def per_bucket_overhead(shape: str = "avl-openhash", layout: JvmLayout = COMPRESSED) -> int:
    """Fixed bytes of one bucket with one ledger, bitmap excluded (outer entry + inner map)."""
    return _outer(shape, 1, layout) - _outer(shape, 0, layout) + _inner(shape, 1, layout)


def per_bitmap_overhead(layout: JvmLayout = COMPRESSED) -> int:
    """Fixed bytes of one single-chunk Roaring64Bitmap besides its container's payload array:
    the bitmap's objects, its ART leaf and the container object with its array header."""
    empty_array = jr.container_bytes(jr.Container("array", 0, 0, 0), layout)
    return _single_key_overhead(layout) + empty_array


def outer_map_bytes(shape: str, n_buckets: int, layout: JvmLayout = COMPRESSED) -> int:
    """The outer sorted map of ``shape`` holding ``n_buckets`` buckets, values excluded."""
    check_choice("JVM shape", shape, SHAPES)
    return _outer(shape, n_buckets, layout)


def inner_map_bytes(shape: str, n_ledgers: int, layout: JvmLayout = COMPRESSED) -> int:
    """One inner map of ``shape`` holding ``n_ledgers`` ledgers, bitmaps excluded."""
    check_choice("JVM shape", shape, SHAPES)
    return _inner(shape, n_ledgers, layout)


def container_bytes(
    card: np.ndarray, runs: np.ndarray, run_optimize: bool, layout: JvmLayout = COMPRESSED
) -> np.ndarray:
    """Deep bytes of each chunk's container as Java's ``add`` (then ``runOptimize()``) leaves it."""
    return _container_bytes(card, runs, run_optimize, layout)


def roaring64_fixed_bytes(n_chunks: int, layout: JvmLayout = COMPRESSED) -> int:
    """A ``Roaring64Bitmap`` with ``n_chunks`` high keys, its containers and the ART's shared
    statics excluded (:func:`art_statics_of`). Keys below 256 (entry ids below 2^24)
    share their first five bytes, so the ART is one inner node (Node4/16/48/256 by count) with
    a 5-byte prefix over the leaves, whatever the keys: exact. Above 256 keys the ART is that
    of the keys ``0 .. n_chunks - 1`` added in order: exact for consecutive keys, an estimate
    for others. O(1) after the first call per count."""
    if not 1 <= n_chunks <= 1 << 16:
        raise ValueError(f"n_chunks must be in 1..65536, got {n_chunks}")
    return _multi_key_parts(n_chunks, layout).own


def art_statics_of(n_chunks: int, layout: JvmLayout = COMPRESSED) -> frozenset[str]:
    """The ART statics a bitmap of ``n_chunks`` keys points to, laid out as
    :func:`roaring64_fixed_bytes` lays it out. O(1) after the first call per count."""
    return (
        _single_key_shared(layout) if n_chunks == 1 else _multi_key_parts(n_chunks, layout).shared
    )
