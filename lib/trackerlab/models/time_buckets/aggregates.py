"""Sizes of a time-bucket index from additive aggregates, without building it.

A Spark sweep never holds an index: it knows, per (bucket, ledger, 2^16 chunk), the
cardinality and the number of runs (:mod:`trackerlab.models.time_buckets.reducer`). The sizes
decompose into sums over chunks, over bitmaps and over buckets, so this module turns

- each chunk's ``(card, runs)`` into additive columns (:func:`chunk_columns`: container
  kinds, JVM container bytes, CRoaring payload bytes, for both variants),
- each bitmap's column sums into its bytes (:func:`bitmap_bytes`),
- the histogram "buckets holding k ledgers" into the maps' bytes (:func:`index_bytes`),

with the same rules as the single-process path: JVM bytes as
:func:`trackerlab.models.time_buckets.shapes.jvm_bytes_from_content` (RoaringBitmap 1.6.10,
fastutil/TreeMap shapes), Python bytes as
:func:`trackerlab.sizing.python.python_real_bytes` with ``exact=False`` (pympler's
``asizeof`` of the dicts, CRoaring's allocation rules of ``_estimate_bytes`` per bitmap).
tests/models/test_time_bucket_aggregates.py holds them equal on built indexes.

Two variants come out of one pass: ``plain`` (Java's incremental ``add``: array up to 4096
values per chunk, then bitset) and ``runs`` (after ``runOptimize()``: a run container where
``2 + 4 runs`` is strictly smaller than the array's ``2 card`` or the bitset's 8192 B; CRoaring
applies the same rule). With entry ids below 2^24 a bitmap's chunk keys differ only in their
last byte, which fixes the ART's shape by the number of keys alone
(:func:`~trackerlab.models.time_buckets.shapes.roaring64_fixed_bytes`). Larger ledgers (a
partition above ~28k msg/s writes 2^24 entries in the 10-minute minimum rollover) have keys
past one byte: their ART is sized as if the keys were consecutive, which the per-bitmap
aggregates cannot tell apart (``tests/models/time_buckets/test_big_ledgers.py`` bounds the
difference from the real layout).
Everything is vectorized numpy, O(rows), plus O(distinct counts) Python calls for tables.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import numpy as np

import trackerlab.models.time_buckets.shapes as tbs
from trackerlab.models.time_buckets.lab_stats import LabHistograms
from trackerlab.sizing import theory
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.jvm_roaring import ARRAY_MAX_CARDINALITY
from trackerlab.sizing.request import SizeResult

#: Largest number of 2^16 chunks per bitmap (entry ids below 2^32: any ledger Pulsar writes).
MAX_CHUNKS = 1 << 16
#: Above this many chunks a bitmap's keys reach past one byte: its ART is sized as if its keys
#: were consecutive (:func:`~trackerlab.models.time_buckets.shapes.roaring64_fixed_bytes`).
EXACT_ART_CHUNKS = 256
#: Additive per-chunk columns; a bitmap's row is their sum over its chunks.
CHUNK_FIELDS = (
    "chunks",
    "entries",
    "runs",
    "array_plain",
    "bitset_plain",
    "array_runs",
    "bitset_runs",
    "run_runs",
    "array_payload_plain",
    "array_payload_runs",
    "run_payload",
    "jvm_containers_plain",
    "jvm_containers_runs",
)
VARIANTS = ("plain", "runs")
_BITSET_PAYLOAD = 8192
_ROARING64_STRUCT = 192  # sizeof(roaring64_bitmap_t), as trackerlab.sizing.python
_ART_HEADER = 56
_CONTAINER_STRUCT = 16


def malloc_chunks(n: np.ndarray) -> np.ndarray:
    """Vectorized :func:`trackerlab.sizing.python.malloc_chunk`: glibc's chunk for ``n`` bytes."""
    n = np.asarray(n, dtype=np.int64)
    return np.where(n > 0, np.maximum(32, (n + 8 + 15) & ~15), 0)


def chunk_columns(
    card: np.ndarray, runs: np.ndarray, layout: JvmLayout = COMPRESSED
) -> dict[str, np.ndarray]:
    """The :data:`CHUNK_FIELDS` of chunks with cardinalities ``card`` and run counts ``runs``."""
    card = np.asarray(card, dtype=np.int64)
    runs = np.asarray(runs, dtype=np.int64)
    array = card <= ARRAY_MAX_CARDINALITY
    run = 2 + 4 * runs < np.where(array, 2 * card, _BITSET_PAYLOAD)
    one = np.ones(len(card), dtype=np.int64)
    return {
        "chunks": one,
        "entries": card,
        "runs": runs,
        "array_plain": array.astype(np.int64),
        "bitset_plain": (~array).astype(np.int64),
        "array_runs": (array & ~run).astype(np.int64),
        "bitset_runs": (~array & ~run).astype(np.int64),
        "run_runs": run.astype(np.int64),
        "array_payload_plain": np.where(array, 2 * card, 0),
        "array_payload_runs": np.where(array & ~run, 2 * card, 0),
        "run_payload": np.where(run, 4 * runs, 0),
        "jvm_containers_plain": tbs.container_bytes(card, runs, False, layout),
        "jvm_containers_runs": tbs.container_bytes(card, runs, True, layout),
    }


@cache
def _jvm_fixed(n: int, layout: JvmLayout) -> int:
    return tbs.roaring64_fixed_bytes(n, layout)


@cache
def _croaring_art(n: int) -> int:
    """``art_size_in_bytes`` of a shrunk ``BitMap64`` with ``n`` chunk keys below 256, measured
    on a real bitmap: CRoaring's ART node arrays depend on the count only."""
    from pyroaring import BitMap64

    from trackerlab.sizing.python import _croaring

    bm = BitMap64([k << 16 for k in range(n)])
    bm.shrink_to_fit()
    return int(_croaring().art_size_in_bytes(bm.raw_pointer))


def _by_count(n: np.ndarray, fn) -> np.ndarray:
    """``fn(k)`` for every entry of ``n``, calling ``fn`` once per distinct value."""
    if len(n) == 0:
        return np.zeros(0, dtype=np.int64)
    values, inverse = np.unique(n, return_inverse=True)
    return np.array([fn(int(v)) for v in values], dtype=np.int64)[inverse.ravel()]


@cache
def _python_bitmap_object() -> int:
    """The pymalloc-rounded ``BitMap64`` object (``bitmap_bytes``' first term)."""
    from pyroaring import BitMap64

    bm = BitMap64()
    obj = type(bm).__basicsize__ + (16 if gc.is_tracked(bm) else 0)
    return (obj + 15) & ~15


def _malloc(n: int) -> int:
    return int(malloc_chunks(np.array([n]))[0])


@cache
def _python_fixed(n: int) -> int:
    """Python bytes of a shrunk ``BitMap64`` with n chunk keys, payloads excluded: the object,
    ``roaring64_bitmap_t``, ART nodes, the containers and typecodes arrays, n container
    structs (``_estimate_bytes``' terms that depend on n only)."""
    return (
        _python_bitmap_object()
        + _malloc(_ROARING64_STRUCT)
        + _malloc(max(_croaring_art(n) - _ART_HEADER, 0))
        + _malloc(8 * n)
        + _malloc(n)
        + n * _malloc(_CONTAINER_STRUCT)
    )


def _mean_chunk(payload: np.ndarray, count: np.ndarray) -> np.ndarray:
    """``count * malloc_chunk(payload // count)``: _estimate_bytes' per-kind average."""
    return count * malloc_chunks(payload // np.maximum(count, 1))


def bitmap_bytes(sums: dict[str, np.ndarray], layout: JvmLayout = COMPRESSED) -> dict:
    """Per-bitmap bytes from its :data:`CHUNK_FIELDS` sums: ``jvm_plain``, ``jvm_runs``
    (a ``Roaring64Bitmap`` built by ascending ``addLong``, then ``runOptimize()``) and
    ``python_plain``, ``python_runs`` (``bitmap_bytes(bm, exact=False)`` of the shrunk
    ``BitMap64``). O(bitmaps)."""
    n = np.asarray(sums["chunks"], dtype=np.int64)
    if len(n) and (n.min() < 1 or n.max() > MAX_CHUNKS):
        raise ValueError(f"bitmaps must have 1..{MAX_CHUNKS} chunks (entry ids below 2^32)")
    jvm_fixed = _by_count(n, lambda k: _jvm_fixed(k, layout))
    python_fixed = _by_count(n, _python_fixed)
    bitset = _malloc(_BITSET_PAYLOAD)
    out = {}
    for variant in VARIANTS:
        python = python_fixed + bitset * sums[f"bitset_{variant}"]
        python += _mean_chunk(sums[f"array_payload_{variant}"], sums[f"array_{variant}"])
        if variant == "runs":
            python += _mean_chunk(sums["run_payload"], sums["run_runs"])
        out[f"jvm_{variant}"] = jvm_fixed + sums[f"jvm_containers_{variant}"]
        out[f"python_{variant}"] = python
    return out


# --------------------------------------------------------------------------- Python dicts


def _usable(log2_size: int) -> int:
    return ((1 << log2_size) << 1) // 3  # USABLE_FRACTION


def dict_getsizeof(n_items: int) -> int:
    """``sys.getsizeof`` of a CPython 3.11 dict after ``n_items`` inserts of new keys (no
    deletions): 64 B object (GC header included) + keys object (32 B header, ``2^l`` index
    bytes of 1/2/4/8 B, ``USABLE_FRACTION(2^l)`` 24-byte entries). The table starts at
    ``2^3`` and, when full, resizes to the next power of two >= ``3 * used``
    (``insertion_resize``, Objects/dictobject.c). O(log n)."""
    if n_items <= 0:
        return 64
    log2 = 3
    while n_items > _usable(log2):
        log2 = max(3, (3 * _usable(log2) - 1).bit_length())
    index = 1 if log2 < 8 else 2 if log2 < 16 else 4 if log2 < 32 else 8
    return 64 + 32 + (1 << log2) * index + _usable(log2) * 24


@cache
def _sorted_dict_extra() -> int:
    """``SortedDict`` is a dict subclass whose own ``getsizeof`` adds a fixed part (24 B); pympler
    sees the dict and its items but not the ``SortedList`` of keys."""
    from sortedcontainers import SortedDict

    return sys.getsizeof(SortedDict({0: None})) - sys.getsizeof({0: None})


def python_int_bytes(value: int) -> int:
    """``asizeof`` of an int: ``sys.getsizeof`` aligned to 8 (28 B + 4 B per 30-bit digit)."""
    return (sys.getsizeof(int(value)) + 7) & ~7


# --------------------------------------------------------------------------- whole index


@dataclass(frozen=True)
class IndexAggregates:
    """What sizing a whole index needs: counts, per-variant bitmap byte sums, the
    histogram of ledgers per bucket (``ledger_counts[i]`` ledgers in ``bucket_counts[i]``
    buckets) and the key ranges (Python int sizes); ``lab``: the design lab's per-bucket
    histograms, when a reducer collected them (:mod:`~trackerlab.models.time_buckets.lab_stats`)."""

    bitmaps: int
    bitmap_bytes: dict[str, int]  # jvm_plain, jvm_runs, python_plain, python_runs
    ledger_counts: np.ndarray
    bucket_counts: np.ndarray
    bucket_range: tuple[int, int]
    ledger_range: tuple[int, int]
    lab: LabHistograms | None = None
    #: the ART's static objects the bitmaps point to (``jvm_roaring.ArtSize.shared``), counted
    #: once per index; None: not collected (the statics of single-key bitmaps are assumed)
    art_statics: frozenset[str] | None = None

    @property
    def buckets(self) -> int:
        """Buckets in the index (no Java method). O(histogram bins)."""
        return int(np.sum(self.bucket_counts))


def _same_int_size(name: str, lo: int, hi: int) -> int:
    size = python_int_bytes(lo)
    if python_int_bytes(hi) != size or (lo <= 256 and hi >= -5):
        raise ValueError(f"{name} keys {lo}..{hi} do not share one Python int size above 256")
    return size


def index_bytes(
    agg: IndexAggregates,
    variant: str = "plain",
    shape: str = "avl-openhash",
    layout: JvmLayout = COMPRESSED,
) -> tuple[int, int]:
    """``(jvm_bytes, python_bytes)`` of the whole index: outer map + inner maps + bitmaps.

    Python: ``asizeof(SortedDict)`` = its ``getsizeof`` + one int per bucket; each inner dict
    its ``getsizeof`` + one int per ledger (a distinct object per bucket); each bitmap as
    :func:`bitmap_bytes`. O(distinct ledger counts)."""
    nb = agg.buckets
    jvm = tbs.outer_map_bytes(shape, nb, layout) + agg.bitmap_bytes[f"jvm_{variant}"]
    if agg.bitmaps:  # the ART statics the bitmaps share, once
        statics = (
            agg.art_statics if agg.art_statics is not None else art_statics(np.array([1]), layout)
        )
        jvm += art_shared_bytes(statics, layout)
    python = agg.bitmap_bytes[f"python_{variant}"]
    python += dict_getsizeof(nb) + _sorted_dict_extra()
    if nb:
        python += nb * _same_int_size("bucket", *agg.bucket_range)
        ledger_int = _same_int_size("ledger", *agg.ledger_range)
        for k, count in zip(agg.ledger_counts.tolist(), agg.bucket_counts.tolist(), strict=True):
            jvm += count * tbs.inner_map_bytes(shape, k, layout)
            python += count * (dict_getsizeof(k) + k * ledger_int)
    return int(jvm), int(python)


def aggregates_of_content(
    content: np.ndarray,
    layout: JvmLayout = COMPRESSED,
    cols: dict[str, np.ndarray] | None = None,
) -> IndexAggregates:
    """:class:`IndexAggregates` of a :meth:`TimeBucketIndex.content` table (rows of one bitmap
    adjacent, ``runs=True``): the single-process route into :func:`index_bytes`. ``cols``: the
    table's :func:`chunk_columns`, when the caller has them already. O(rows)."""
    from trackerlab.models.time_buckets.shapes import BUCKET, CARD, LEDGER, RUNS

    if len(content) == 0:
        empty = np.zeros(0, dtype=np.int64)
        zero = {f"{s}_{v}": 0 for s in ("jvm", "python") for v in VARIANTS}
        return IndexAggregates(0, zero, empty, empty, (0, 0), (0, 0))
    if cols is None:
        cols = chunk_columns(content[:, CARD], content[:, RUNS], layout)
    ids = content[:, [BUCKET, LEDGER]]
    starts = np.flatnonzero(np.r_[True, np.any(ids[1:] != ids[:-1], axis=1)])
    sums = {k: np.add.reduceat(v, starts) for k, v in cols.items()}
    per_bitmap = bitmap_bytes(sums, layout)
    buckets = content[starts, BUCKET]
    bucket_starts = np.flatnonzero(np.r_[True, buckets[1:] != buckets[:-1]])
    ledgers_per_bucket = np.diff(np.r_[bucket_starts, len(buckets)])
    k, count = np.unique(ledgers_per_bucket, return_counts=True)
    return IndexAggregates(
        bitmaps=len(starts),
        bitmap_bytes={key: int(v.sum()) for key, v in per_bitmap.items()},
        ledger_counts=k,
        bucket_counts=count,
        bucket_range=(int(content[:, BUCKET].min()), int(content[:, BUCKET].max())),
        ledger_range=(int(content[:, LEDGER].min()), int(content[:, LEDGER].max())),
        art_statics=art_statics(sums["chunks"], layout),
    )


#: Reducer total fields (max-merged 0/1 flags) for :data:`ART_STATICS`.
ART_STATIC_FIELDS = {
    "empty-bytes": "art_empty_bytes",
    "type:LEAF_NODE": "art_leaf_node",
    "type:NODE4": "art_node4",
    "type:NODE16": "art_node16",
    "type:NODE48": "art_node48",
    "type:NODE256": "art_node256",
}


def art_statics(chunk_counts: np.ndarray, layout: JvmLayout = COMPRESSED) -> frozenset[str]:
    """The ART statics bitmaps of these chunk counts point to (keys as
    :func:`~trackerlab.models.time_buckets.shapes.roaring64_fixed_bytes` lays them out).
    O(distinct counts)."""
    found: set[str] = set()
    for n in np.unique(np.asarray(chunk_counts, dtype=np.int64)).tolist():
        found |= tbs.art_statics_of(int(n), layout)
    return frozenset(found)


def art_shared_bytes(statics: frozenset[str], layout: JvmLayout = COMPRESSED) -> int:
    from trackerlab.sizing.jvm_roaring import art_shared_bytes as shared

    return shared(statics, layout)


def sizer_from_counts(name: str, variant: str, formula: str):
    """A design's ``from_counts``: :func:`size_from_counts` of a ``PointCounts`` with the
    seed's published formula for M = x · 2^y (``pip393`` or ``timebucket``)."""
    published_formula = {
        "pip393": theory.pip393_bytes_per_entry,
        "timebucket": theory.timebucket_bytes_per_entry,
    }[formula]

    def from_counts(counts, shape: str | None, layout: JvmLayout) -> SizeResult:
        m = theory.pip393_messages_per_bucket(counts.rate_per_ms, counts.trim_bits)
        return size_from_counts(
            name,
            counts.totals,
            counts.aggregates,
            variant,
            shape or tbs.SHAPES[0],
            published_formula(m),
            layout,
        )

    return from_counts


def size_from_counts(
    name: str,
    totals: Mapping[str, int],
    agg: IndexAggregates,
    variant: str,
    shape: str,
    published_per_entry: float,
    layout: JvmLayout = COMPRESSED,
) -> SizeResult:
    """The index's three columns from a reducer's ``totals`` and aggregates, with its
    structure counts in ``details``. O(distinct ledger counts)."""
    jvm, python = index_bytes(agg, variant, shape, layout)
    entries = int(totals["entries"])
    return SizeResult(
        structure=name,
        entries=entries,
        python_bytes=python,
        jvm_bytes=jvm,
        jvm_direct_bytes=0,
        theory_bytes=published_per_entry * entries,
        details={
            "theory_published_per_entry": published_per_entry,
            "buckets": agg.buckets,
            "bitmaps": totals["bitmaps"],
            "chunks": totals["chunks"],
            "runs": totals["runs"],
            "array_containers": totals[f"array_{variant}"],
            "bitset_containers": totals[f"bitset_{variant}"],
            "run_containers": totals["run_runs"] if variant == "runs" else 0,
            "java_shape": shape,
        },
    )
