"""The real-JVM check: named cases that build a Java structure in the probe JVM and size the
same structure with the layout model (:mod:`~trackerlab.sizing.jvm`,
:mod:`~trackerlab.sizing.jvm_collections`, :mod:`~trackerlab.sizing.jvm_roaring`).

``trackerlab jvm-check`` and ``tests/sizing/test_jvm_probe.py`` run them. A case passes when
the model is within :data:`TOLERANCE` (2%) of the measurement; with the exact agent every case
here matches to the byte on OpenJDK 17.

Boxed keys are chosen outside the ``Long``/``Integer`` caches (-128..127) unless a case says
otherwise: cached boxes are shared objects, which a deep size counts once.
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import pairwise
from typing import Any, TypedDict

import numpy as np

from trackerlab.jvmcheck.probe import FASTUTIL_PACKAGE, JvmProbe
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing import jvm_long_bitmap as jl
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.sizing.jvm import JvmLayout
from trackerlab.workloads.stream import DEFAULT_START_MS

TOLERANCE = 0.02
#: What each group's Java objects are: library classes (JDK, RoaringBitmap, fastutil) the
#: layout model sizes, or trackerlab's stand-ins for Pulsar structures, which stay only where
#: no released class exists (``trackerlab jvm-check --pulsar`` checks the released ones).
SOURCES = {
    "java-util": "library",
    "treemap-of-treemaps": "library",
    "roaring": "library",
    "roaring64": "library",
    "navmap": "library",
    "fastutil": "library",
    "jdk-concurrent": "library",
    "timebuckets": "stand-in of a released form (real: --pulsar)",
    "long-bitmap": "stand-in: master only",
    "timebuckets-long-bitmap": "stand-in: master only",
    "pip448": "stand-in: unmerged PIP-448",
    "proposal": "trackerlab proposal",
}
GROUPS = ("java-util", "treemap-of-treemaps", "roaring", "roaring64", "navmap", "fastutil",
          "timebuckets", "jdk-concurrent", "long-bitmap", "timebuckets-long-bitmap",
          "pip448", "proposal")  # fmt: skip


@dataclass(frozen=True)
class Values:
    """The long values a case adds, in insertion order: ``start + i * step`` or an array."""

    start: int = 0
    count: int = 0
    step: int = 1
    array: Callable[[], np.ndarray] | None = None

    def numpy(self) -> np.ndarray:
        if self.array is not None:
            return np.asarray(self.array(), dtype=np.int64)
        return self.start + np.arange(self.count, dtype=np.int64) * self.step

    def java(self, probe: JvmProbe) -> Any:
        if self.array is not None:
            return probe.longs(self.numpy())
        return probe.seq(self.start, self.count, self.step)


def chunks_in_insertion_order(values: np.ndarray) -> list[jr.Chunk]:
    """Chunks of these values (any order, repeats allowed), ordered by each high key's first
    appearance: the order in which Java inserts the keys into a ``Roaring64Bitmap``'s ART."""
    v = np.asarray(values, dtype=np.int64).view(np.uint64)
    chunks = jr.chunks_of(jr.sorted_distinct(v))
    keys = v >> np.uint64(16)
    by_key = np.argsort(keys, kind="stable")  # first index of each key comes first
    sorted_keys = keys[by_key]
    first = by_key[np.r_[True, sorted_keys[1:] != sorted_keys[:-1]]] if v.size else by_key
    return [chunks[i] for i in np.argsort(first, kind="stable")]


@dataclass(frozen=True)
class ProbeCase:
    """A Java structure built in the probe JVM and its layout-model size."""

    name: str
    group: str
    description: str
    build: Callable[[JvmProbe], Any]
    model: Callable[[JvmLayout], int]
    needs_fastutil: bool = False


@dataclass(frozen=True)
class CaseResult:
    name: str
    model: int
    measured: int | None
    skipped: str | None = None

    @property
    def diff(self) -> float | None:
        """(model - measured) / measured, or None when skipped."""
        if self.measured is None:
            return None
        return (self.model - self.measured) / self.measured if self.measured else 0.0

    @property
    def ok(self) -> bool:
        return self.diff is not None and abs(self.diff) <= TOLERANCE

    @property
    def verdict(self) -> str:
        if self.skipped:
            return "SKIP"
        return "OK" if self.ok else "FAIL"


# --------------------------------------------------------------------------- case factories


_BITMAP_CLASSES = {
    "roaring": "RoaringBitmap",
    "roaring64": "Roaring64Bitmap",
    "navmap": "Roaring64NavigableMap",
}


class _RoaringOptions(TypedDict):
    """The keyword arguments every ``jvm_roaring`` bitmap size of :func:`_bitmap` takes."""

    run_optimize: bool
    trim: bool
    layout: JvmLayout


def _bitmap(
    group: str,
    name: str,
    desc: str,
    values: Values,
    run_optimize: bool = False,
    trim: bool = False,
    cardinality: bool = False,
) -> ProbeCase:
    """A RoaringBitmap / Roaring64Bitmap / Roaring64NavigableMap built by ``add`` of ``values``
    in order, then ``runOptimize()``, ``trim()`` or a cardinality query as asked."""

    def model(layout: JvmLayout) -> int:
        kw: _RoaringOptions = {"run_optimize": run_optimize, "trim": trim, "layout": layout}
        if group == "roaring":  # Java's (int) cast; the key order does not matter
            return jr.roaring_bitmap_bytes(
                jr.chunks_of(jr.sorted_distinct(values.numpy().astype(np.uint32))), **kw
            )
        chunks = chunks_in_insertion_order(values.numpy())
        if group == "roaring64":
            return jr.roaring64_bitmap_bytes(chunks, **kw)
        return jr.roaring64_navigable_map_bytes(chunks, cardinalities_cached=cardinality, **kw)

    def build(p: JvmProbe) -> Any:
        b = p.builders
        if group == "roaring":
            return b.roaring(values.java(p), run_optimize, trim)
        if group == "roaring64":
            return b.roaring64(values.java(p), run_optimize, trim)
        return b.navigable(values.java(p), run_optimize, cardinality)

    return ProbeCase(name, group, f"{_BITMAP_CLASSES[group]}, {desc}", build, model)


_roaring = partial(_bitmap, "roaring")
_roaring64 = partial(_bitmap, "roaring64")
_navmap = partial(_bitmap, "navmap")


def _treemap_of_treemaps(k: int) -> ProbeCase:
    def model(layout: JvmLayout) -> int:
        long_, pair = jc.boxed_long(layout), jc.int_int_pair(layout)
        inner = jc.tree_map(k, k * (long_ + pair), layout)
        return jc.tree_map(1, long_ + inner, layout)

    return ProbeCase(
        f"treemap-of-treemaps-{k}",
        "treemap-of-treemaps",
        f"TreeMap<Long, TreeMap<Long, IntIntImmutablePair>>, 1 ledger x {k} entries (ids >= 1000)",
        lambda p: p.builders.treeMapOfTreeMaps(p.seq(1 << 32, 1), p.seq(1000, k)),
        model,
    )


_FASTUTIL_MODELS: dict[str, Callable[[int, JvmLayout], int]] = {
    "Long2ObjectAVLTreeMap": lambda n, lay: jc.fastutil_avl_tree_map(n, layout=lay),
    "Long2ObjectRBTreeMap": lambda n, lay: jc.fastutil_rb_tree_map(n, layout=lay),
    "Long2LongAVLTreeMap": lambda n, lay: jc.fastutil_avl_tree_map(n, kind="Long2Long", layout=lay),
    "Long2LongRBTreeMap": lambda n, lay: jc.fastutil_rb_tree_map(n, kind="Long2Long", layout=lay),
    "Long2ObjectOpenHashMap": lambda n, lay: jc.fastutil_long2object_open_hash_map(
        jc.fastutil_capacity(n), layout=lay
    ),
    "Long2LongOpenHashMap": lambda n, lay: jc.fastutil_long2long_open_hash_map(
        jc.fastutil_capacity(n), layout=lay
    ),
}


def _fastutil(cls: str, n: int) -> ProbeCase:
    model = _FASTUTIL_MODELS[cls]
    short = cls.replace("Long2Object", "l2o-").replace("Long2Long", "l2l-").replace("Map", "")
    return ProbeCase(
        f"fastutil-{short.lower()}-{n}",
        "fastutil",
        f"fastutil {cls} (Debian jar), {n} keys"
        + (", null values" if "Object" in cls else ", long values"),
        lambda p: p.builders.fastutilMap(FASTUTIL_PACKAGE + cls, p.seq(1000, n, 7)),
        lambda layout: model(n, layout),
        needs_fastutil=True,
    )


def _time_buckets(n_ts: int, n_ledgers: int, n_entries: int) -> ProbeCase:
    def model(layout: JvmLayout) -> int:
        entries = [jr.Chunk(0, n_entries, 1)]  # entry ids 1..n: one chunk, one run
        bitmap = jr.roaring64_bitmap_bytes(entries, layout=layout)
        inner = jc.fastutil_long2object_open_hash_map(
            jc.fastutil_capacity(n_ledgers), n_ledgers * bitmap, layout
        )
        return jc.fastutil_avl_tree_map(n_ts, n_ts * inner, layout=layout)

    def build(p: JvmProbe) -> Any:
        return p.builders.timeBuckets(
            FASTUTIL_PACKAGE + "Long2ObjectAVLTreeMap",
            FASTUTIL_PACKAGE + "Long2ObjectOpenHashMap",
            p.seq(1000, n_ts),
            p.seq(5000, n_ledgers),
            p.seq(1, n_entries),
        )

    return ProbeCase(
        f"timebuckets-{n_ts}x{n_ledgers}x{n_entries}",
        "timebuckets",
        "PIP-393 nack / #23611 delayed tracker: Long2ObjectAVLTreeMap -> Long2ObjectOpenHashMap"
        f" -> Roaring64Bitmap, {n_ts} ts x {n_ledgers} ledgers x {n_entries} entries",
        build,
        model,
        needs_fastutil=True,
    )


def blog_time_buckets_bytes(
    per_ms: int,
    trim_bits: int,
    count: int,
    per_ledger: int,
    start_ms: int,
    layout: JvmLayout,
) -> int:
    """JVM bytes of the TimeBucket blog's ``Long2ObjectAVLTreeMap<Long2ObjectAVLTreeMap<
    Roaring64Bitmap>>`` after ``count`` in-order ``addLong`` calls (see ``Probe.blogTimeBuckets``).

    Message ``i`` has timestamp ``start_ms + i // per_ms`` (low ``trim_bits`` cleared) and
    entry ``i % per_ledger`` of ledger ``i // per_ledger``. Buckets and ledgers both change
    at computable message indexes, so every (bucket, ledger) bitmap holds one run of
    consecutive entry ids: one chunk per bitmap when ``per_ledger <= 2^16``. O(buckets +
    ledgers), no per-message work.
    """
    if per_ledger > 1 << 16:
        raise ValueError("per_ledger must be at most 65536 (one chunk per bitmap)")
    step = 1 << trim_bits
    first_bucket = start_ms // step * step
    cuts = {0, count}
    # bucket m starts when start_ms + i // per_ms reaches m * step
    m = first_bucket + step
    while (i := (m - start_ms) * per_ms) < count:
        cuts.add(i)
        m += step
    cuts.update(range(per_ledger, count, per_ledger))
    edges = sorted(cuts)
    bitmap_cache: dict[int, int] = {}
    inner_payload = 0
    inner_ledgers = 0
    outer_payload = 0
    buckets = 0
    current = None
    for lo, hi in pairwise(edges):
        bucket = (start_ms + lo // per_ms) & ~(step - 1)
        if bucket != current:
            if current is not None:
                outer_payload += jc.fastutil_avl_tree_map(
                    inner_ledgers, inner_payload, layout=layout
                )
                buckets += 1
            current, inner_payload, inner_ledgers = bucket, 0, 0
        card = hi - lo
        if card not in bitmap_cache:
            bitmap_cache[card] = jr.roaring64_bitmap_bytes([jr.Chunk(0, card, 1)], layout=layout)
        inner_payload += bitmap_cache[card]
        inner_ledgers += 1
    outer_payload += jc.fastutil_avl_tree_map(inner_ledgers, inner_payload, layout=layout)
    buckets += 1
    return jc.fastutil_avl_tree_map(buckets, outer_payload, layout=layout)


def _blog_time_buckets(per_ms: int, trim_bits: int, count: int = 10_000_000) -> ProbeCase:
    """The TimeBucket blog's measured structure at x = ``per_ms``, y = ``trim_bits`` (N14-N17)."""
    per_ledger, first_ledger = 50_000, 10_000

    def build(p: JvmProbe) -> Any:
        return p.builders.blogTimeBuckets(
            FASTUTIL_PACKAGE + "Long2ObjectAVLTreeMap",
            DEFAULT_START_MS,
            count,
            per_ms,
            trim_bits,
            per_ledger,
            first_ledger,
        )

    return ProbeCase(
        f"timebuckets-blog-x{per_ms}-y{trim_bits}",
        "timebuckets",
        "TimeBucket blog (seed 001): Long2ObjectAVLTreeMap<Long2ObjectAVLTreeMap<Roaring64Bitmap>>"
        f", {count:,} addLong at x={per_ms} msg/ms, y={trim_bits} bits, 50,000 entries/ledger",
        build,
        lambda layout: blog_time_buckets_bytes(
            per_ms, trim_bits, count, per_ledger, DEFAULT_START_MS, layout
        ),
        needs_fastutil=True,
    )


def _java_util() -> list[ProbeCase]:
    def tree(layout: JvmLayout) -> int:
        return jc.tree_map(1000, 1000 * 2 * jc.boxed_long(layout), layout)

    def hashed(layout: JvmLayout) -> int:
        return jc.hash_map(1000, 1000 * 2 * jc.boxed_long(layout), layout=layout)

    def bits(layout: JvmLayout) -> int:
        words = jc.BitSetWords()
        words.set_many(range(0, 65536, 64))
        return jc.bit_set(words.length, layout)

    return [
        ProbeCase(
            "java-util-treemap-1000",
            "java-util",
            "java.util.TreeMap<Long, Long>, 1000 keys from 2^32 (key and value boxed apart)",
            lambda p: p.builders.treeMap(p.seq(1 << 32, 1000)),
            tree,
        ),
        ProbeCase(
            "java-util-hashmap-1000",
            "java-util",
            "java.util.HashMap<Long, Long>, 1000 keys from 2^32 (table 2048)",
            lambda p: p.builders.hashMap(p.seq(1 << 32, 1000)),
            hashed,
        ),
        ProbeCase(
            "java-util-bitset-65536",
            "java-util",
            "java.util.BitSet(), bits 0, 64, ..., 65472 set in order (long[] doubling to 1024)",
            lambda p: p.builders.bitSet(p.seq(0, 1024, 64)),
            bits,
        ),
    ]


def _random_keys(seed: int, n: int, bits: int) -> Callable[[], np.ndarray]:
    def make() -> np.ndarray:
        rng = np.random.default_rng(seed)
        return rng.integers(0, 1 << bits, n, dtype=np.int64)

    return make


def _jdk_concurrent() -> list[ProbeCase]:
    """JDK objects the newer trackers hold (py4j would turn an ``AtomicLong`` into a Python int,
    so the probe returns them in an ``Object[]``; the model adds the array)."""

    def pair(p: JvmProbe, make: str) -> Any:
        return p.jvm.trackerlab.probe.LongBitmapProbe.two(make)

    def model(one: Callable[[JvmLayout], int]) -> Callable[[JvmLayout], int]:
        return lambda layout: layout.array(2, "L") + 2 * one(layout)

    return [
        ProbeCase(
            f"jdk-{name}-x2",
            "jdk-concurrent",
            f"Object[2] of two fresh {cls} ({why})",
            partial(pair, make=make),
            model(fn),
        )
        for name, cls, make, fn, why in (
            ("atomic-long", "AtomicLong", "atomicLong", jl.atomic_long,
             "#24430's delayedMessagesCount; form c's memoryUsage"),
            ("stamped-lock", "StampedLock", "stampedLock", jl.stamped_lock,
             "the LongBitmap leaf's lock"),
            ("reentrant-lock", "ReentrantLock", "reentrantLock", jl.reentrant_lock,
             "PIP-448's per-bucket locks"),
        )
    ]  # fmt: skip


def _long_bitmap(
    name: str, shape: str, desc: str, adds: Values, removes: Values = Values(), drain: int = 0
) -> ProbeCase:
    """A ``ConcurrentRoaringBitmap`` stand-in: ``checkedAdd`` of ``adds``, ``remove`` of
    ``removes`` (trim after 10,000 removals or when empty), then ``drainTo(drain)``; the model
    replays the same calls (:class:`~trackerlab.sizing.jvm_long_bitmap.LeafLayout`)."""

    def model(layout: JvmLayout) -> int:
        return _leaf_after(shape, adds.numpy(), removes.numpy(), drain, layout)

    def build(p: JvmProbe) -> Any:
        return p.jvm.trackerlab.probe.LongBitmapProbe.leaf(
            shape, adds.java(p), removes.java(p), drain
        )

    return ProbeCase(
        name, "long-bitmap", f"ConcurrentRoaringBitmap ({shape}), {desc}", build, model
    )


def _leaf_after(
    shape: str, adds: np.ndarray, removes: np.ndarray, drain: int, layout: JvmLayout
) -> int:
    return jl.replay_leaf(shape, adds, removes, drain).jvm_bytes(layout)


def _ts_ledger_entry_grid(
    n_ts: int, n_ledgers: int, n_entries: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (ts, ledger) pair holding entries 1..n: timestamps from 1000, ledgers from 5000.
    O(n_ts x n_ledgers x n_entries)."""
    ts = np.repeat(1000 + np.arange(n_ts), n_ledgers * n_entries)
    led = np.tile(np.repeat(5000 + np.arange(n_ledgers), n_entries), n_ts)
    ent = np.tile(1 + np.arange(n_entries), n_ts * n_ledgers)
    return ts, led, ent


def _time_buckets_long_bitmap(shape: str, n_ts: int, n_ledgers: int, n_entries: int) -> ProbeCase:
    """Form c of the delayed index: AVL of RB of leaves, every (ts, ledger) with entries 1..n."""

    def model(layout: JvmLayout) -> int:
        leaf = jl.leaf_bytes_of([jr.Chunk(0, n_entries, 1)], shape, layout=layout)
        inner = jc.fastutil_rb_tree_map(n_ledgers, n_ledgers * leaf, layout=layout)
        return jc.fastutil_avl_tree_map(n_ts, n_ts * inner, layout=layout)

    def build(p: JvmProbe) -> Any:
        ts, led, ent = _ts_ledger_entry_grid(n_ts, n_ledgers, n_entries)
        return p.jvm.trackerlab.probe.LongBitmapProbe.timeBucketsLongBitmap(
            FASTUTIL_PACKAGE, shape, p.longs(ts), p.longs(led), p.longs(ent)
        )

    return ProbeCase(
        f"timebuckets-lb-{shape}-{n_ts}x{n_ledgers}x{n_entries}",
        "timebuckets-long-bitmap",
        "delayed tracker form c: Long2ObjectAVLTreeMap -> Long2ObjectRBTreeMap -> LongBitmap "
        f"({shape}), {n_ts} ts x {n_ledgers} ledgers x {n_entries} entries",
        build,
        model,
        needs_fastutil=True,
    )


def _pip448(n_ts: int, n_ledgers: int, n_entries: int) -> ProbeCase:
    """PIP-448's shared index and its bucket locks; the skip list's random ``Index`` count is
    read from the built map, every other byte is modelled."""
    counted: dict[str, int] = {}

    def build(p: JvmProbe) -> Any:
        ts, led, ent = _ts_ledger_entry_grid(n_ts, n_ledgers, n_entries)
        b = p.jvm.trackerlab.probe.LongBitmapProbe
        built = b.topicIndex(FASTUTIL_PACKAGE, p.longs(ts), p.longs(led), p.longs(ent))
        counted["index_nodes"] = int(b.skipListIndexNodes(built[0]))
        return built

    def model(layout: JvmLayout) -> int:
        from trackerlab.sizing.jvm_long_bitmap import concurrent_hash_map, reentrant_lock

        bitmap = jr.roaring64_bitmap_bytes([jr.Chunk(0, n_entries, 1)], layout=layout)
        inner = jc.fastutil_rb_tree_map(n_ledgers, n_ledgers * bitmap, layout=layout)
        index = jl.concurrent_skip_list_map(
            n_ts, counted.get("index_nodes", round(jl.expected_index_nodes(n_ts))),
            n_ts * inner, layout,
        )  # fmt: skip
        locks = concurrent_hash_map(n_ts, n_ts * reentrant_lock(layout), layout)
        return layout.array(2, "L") + index + locks

    return ProbeCase(
        f"pip448-{n_ts}x{n_ledgers}x{n_entries}",
        "pip448",
        "PIP-448 topic index: ConcurrentSkipListMap<Long, Long2ObjectRBTreeMap<Roaring64Bitmap>>"
        f" + ConcurrentHashMap<Long, ReentrantLock>, {n_ts} ts x {n_ledgers} ledgers x "
        f"{n_entries} entries (skip-list Index count read from the map)",
        build,
        model,
        needs_fastutil=True,
    )


def _rb_of_rb_pairs(n_ledgers: int, n_entries: int) -> ProbeCase:
    """PIP-379's first PendingAcksMap: RB of RB of IntIntPair objects."""

    def model(layout: JvmLayout) -> int:
        inner = jc.fastutil_rb_tree_map(
            n_entries, n_entries * jc.int_int_pair(layout), layout=layout
        )
        return jc.fastutil_rb_tree_map(n_ledgers, n_ledgers * inner, layout=layout)

    def build(p: JvmProbe) -> Any:
        return p.jvm.trackerlab.probe.PendingAcksProbe.rbOfRbPairs(
            FASTUTIL_PACKAGE.removesuffix("longs."), p.seq(5000, n_ledgers), p.seq(0, n_entries)
        )

    return ProbeCase(
        f"pending-acks-rb-pairs-{n_ledgers}x{n_entries}",
        "fastutil",
        "PIP-379 PendingAcksMap: Long2ObjectRBTreeMap<Long2ObjectRBTreeMap<IntIntPair>>, "
        f"{n_ledgers} ledgers x {n_entries} entries (fastutil IntIntImmutablePair values)",
        build,
        model,
        needs_fastutil=True,
    )


def _roaring_cases() -> list[ProbeCase]:
    """RoaringBitmap: empty, array, bitmap and run containers, high keys, trim and runOptimize."""
    k16 = 1 << 16
    return [
        _roaring("roaring-empty", "empty", Values()),
        _roaring("roaring-1", "1 value", Values(5, 1)),
        _roaring("roaring-array-1000", "1000 values step 3 (array, capacity 1093)", Values(0, 1000, 3)),
        _roaring("roaring-array-1000-trim", "1000 values step 3, trim()", Values(0, 1000, 3), trim=True),
        _roaring("roaring-bitmap", "32768 values step 2 (bitmap container)", Values(0, 32768, 2)),
        _roaring("roaring-run", "0..999,999 then runOptimize (16 run containers)", Values(0, 10**6), run_optimize=True),
        _roaring("roaring-keys-100", "100 high keys x 1 value", Values(0, 100, k16)),
        _roaring("roaring-keys-1000", "1000 high keys x 1 value", Values(0, 1000, k16)),
        _roaring("roaring-mixed-runopt", "array + bitmap + run chunks, runOptimize", Values(
            array=lambda: np.r_[np.arange(0, 3000, 3), k16 + np.arange(0, 20000, 3),
                                2 * k16 + np.arange(5000)]), run_optimize=True),
    ]  # fmt: skip


def _roaring64_cases() -> list[ProbeCase]:
    """Roaring64Bitmap: containers, then high keys from a few to 1000, sparse and random."""
    k16, k32 = 1 << 16, 1 << 32
    cases = [
        _roaring64("roaring64-empty", "empty", Values()),
        _roaring64("roaring64-1", "1 value", Values(5, 1)),
        _roaring64("roaring64-array-1000", "1000 values step 3 (array)", Values(0, 1000, 3)),
        _roaring64("roaring64-bitmap", "32768 values step 2 (bitmap container)", Values(0, 32768, 2)),
        _roaring64("roaring64-run-1000", "1000 consecutive then runOptimize", Values(0, 1000), run_optimize=True),
        _roaring64("roaring64-array-1000-trim", "1000 values step 3, trim()", Values(0, 1000, 3), trim=True),
    ]  # fmt: skip
    cases += [
        _roaring64(f"roaring64-keys-{n}", f"{n} high keys (i << 16) x 1 value", Values(0, n, k16))
        for n in (2, 5, 17, 49, 100, 257, 1000)
    ]
    cases += [
        _roaring64("roaring64-keys-1000-ledgers", "1000 high keys (i << 32) x 1 value", Values(0, 1000, k32)),
        _roaring64("roaring64-keys-100-sparse", "100 high keys 10^12 apart (two ART levels)", Values(0, 100, 10**12)),
        _roaring64("roaring64-keys-random-1000", "1000 random 63-bit values, ascending",
                   Values(array=lambda: np.sort(_random_keys(7, 1000, 63)()))),
        _roaring64("roaring64-keys-shuffled-500", "500 random 40-bit values in random order",
                   Values(array=_random_keys(11, 500, 40))),
    ]  # fmt: skip
    return cases


def _navmap_cases() -> list[ProbeCase]:
    """Roaring64NavigableMap: containers and highs, runOptimize and cached cardinality."""
    k32 = 1 << 32
    return [
        _navmap("navmap-empty", "empty", Values()),
        _navmap("navmap-1", "1 value", Values(5, 1)),
        _navmap("navmap-1-cardinality", "1 value, getLongCardinality() cached", Values(5, 1), cardinality=True),
        _navmap("navmap-array-1000", "1000 values step 3", Values(0, 1000, 3)),
        _navmap("navmap-keys-100", "100 highs (i << 32) x 1 value", Values(0, 100, k32)),
        _navmap("navmap-keys-1000", "1000 highs (i << 32) x 1 value", Values(0, 1000, k32)),
        _navmap("navmap-keys-1000-runopt", "1000 highs x 1 value, runOptimize (values view)",
                Values(0, 1000, k32), run_optimize=True),
        _navmap("navmap-keys-100-cardinality", "100 highs x 1 value, cardinality cached",
                Values(0, 100, k32), cardinality=True),
    ]  # fmt: skip


def _long_bitmap_cases(shape: str) -> list[ProbeCase]:
    """The LongBitmap stand-in of leaf ``shape``: adds, removes with trim, and drainTo."""
    k16 = 1 << 16
    return [
        _long_bitmap(f"long-bitmap-{shape}-empty", shape, "empty", Values()),
        _long_bitmap(f"long-bitmap-{shape}-1", shape, "1 value", Values(5, 1)),
        _long_bitmap(f"long-bitmap-{shape}-array-1000", shape, "1000 values step 3 (capacity 1093)", Values(0, 1000, 3)),
        _long_bitmap(f"long-bitmap-{shape}-bitmap", shape, "5000 values (bitmap container)", Values(0, 5000)),
        _long_bitmap(f"long-bitmap-{shape}-keys-100", shape, "100 high keys x 1 value", Values(0, 100, k16)),
        _long_bitmap(f"long-bitmap-{shape}-remove-9999", shape, "12000 values, 9999 removed (no trim yet)",
                     Values(0, 12000), Values(0, 9999)),
        _long_bitmap(f"long-bitmap-{shape}-remove-10000", shape, "12000 values, 10000 removed (trim)",
                     Values(0, 12000), Values(0, 10000)),
        _long_bitmap(f"long-bitmap-{shape}-remove-all", shape, "3 keys, every value removed (trim when empty)",
                     Values(0, 30, k16 // 10), Values(0, 30, k16 // 10)),
        _long_bitmap(f"long-bitmap-{shape}-drain-300", shape, "1000 values over 2 keys, drainTo(300)",
                     Values(array=lambda: np.r_[np.arange(500), k16 + np.arange(500)]), drain=300),
        _long_bitmap(f"long-bitmap-{shape}-drain-bitmap", shape, "6000 values, drainTo(2500): bitmap -> array",
                     Values(0, 6000), drain=2500),
        _long_bitmap(f"long-bitmap-{shape}-drain-all", shape, "2 keys, drainTo(all): trimmed empty",
                     Values(array=lambda: np.r_[np.arange(50), k16 + np.arange(50)]), drain=100),
    ]  # fmt: skip


def build_cases() -> tuple[ProbeCase, ...]:
    """Every case, in display order. Cheap: values are generated when a case runs."""
    cases: list[ProbeCase] = [*_java_util()]
    cases += [_treemap_of_treemaps(k) for k in (1, 100, 1000)]
    cases += _roaring_cases()
    cases += _roaring64_cases()
    cases += _navmap_cases()
    cases += [_fastutil(cls, n) for cls in _FASTUTIL_MODELS for n in (0, 100, 1000)]
    cases += [
        _time_buckets(*shape) for shape in ((1, 1, 1), (1, 1000, 1), (10, 10, 100), (1, 1, 1000))
    ]
    cases += [_blog_time_buckets(8, 15)]  # N17: the seed's jmap figure, measured here
    cases += [_rb_of_rb_pairs(*dims) for dims in ((1, 1), (3, 1000))]
    cases += _jdk_concurrent()
    for shape in jl.LEAF_SHAPES:
        cases += _long_bitmap_cases(shape)
        cases += [_time_buckets_long_bitmap(shape, *dims) for dims in ((1, 1, 1), (10, 10, 100))]
    cases += [_pip448(*dims) for dims in ((1, 1, 1), (50, 1, 1), (200, 3, 10))]
    return tuple(cases)


CASES = build_cases()


def select_cases(patterns: Sequence[str] | None, cases: Sequence[Any] = CASES) -> list[Any]:
    """Cases whose name matches any pattern (exact name or shell glob such as ``roaring64-*``);
    all ``cases`` when ``patterns`` is empty. Raises ValueError naming an unmatched pattern.
    ``cases``: anything with a ``name``: this module's, or more (the design lab's
    ``proposal-*`` cases live with their models, a layer above, and ``trackerlab jvm-check``
    adds them; so do ``jvm-check --pulsar``'s real-class cases)."""
    if not patterns:
        return list(cases)
    chosen = []
    for pattern in patterns:
        hits = [c for c in cases if fnmatch.fnmatchcase(c.name, pattern)]
        if not hits:
            raise ValueError(pattern)
        chosen += [c for c in hits if c not in chosen]
    return [c for c in cases if c in chosen]


def run_case(probe: JvmProbe, case: ProbeCase, how: str = "exact") -> CaseResult:
    """Build the case in the JVM, measure it and compute the model for the JVM's layout (after
    the build: a case may read a random count, a skip list's towers, from the real object)."""
    if case.needs_fastutil and not probe.fastutil:
        model = case.model(probe.layout)
        return CaseResult(case.name, model, None, "fastutil jar not found (libfastutil-java)")
    measured = probe.measure(case.build(probe), how)
    return CaseResult(case.name, case.model(probe.layout), measured)


def run_cases(
    probe: JvmProbe, cases: Sequence[ProbeCase], how: str = "exact"
) -> tuple[list[CaseResult], float]:
    """Run the cases; return the results and the seconds they took."""
    t0 = time.perf_counter()
    results = [run_case(probe, c, how) for c in cases]
    return results, time.perf_counter() - t0
