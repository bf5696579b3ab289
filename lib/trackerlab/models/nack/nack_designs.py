"""The negative-ack tracker's designs (Java client ``NegativeAcksTracker``), as catalog entries.

Each :class:`~trackerlab.models.design.Design` names the Java it follows and wires the model
functions that size it; :mod:`trackerlab.catalog` registers them by name. The entries a
tracker holds come from :func:`~trackerlab.workloads.stream.last_message_per_entry`: the
maps keep one key per entry (a second nack overwrites), the time buckets one bit per
(bucket, entry).
"""

from __future__ import annotations

import numpy as np

from trackerlab.models.delayed.time_bucket_runs import BucketRun, size_result
from trackerlab.models.design import NACK, Design, PointCounts
from trackerlab.models.nack.map_trackers import (
    NON_PARTITIONED_TOPIC_PARTITION_INDEX,
    NegativeAcksTrackerHashMap,
    jvm_hash_map_tracker_bytes,
)
from trackerlab.models.nack.pair_map_counts import pair_map_sizes
from trackerlab.models.primitives.pair_hash_map import (
    ConcurrentLongLongPairHashMap,
    capacity_after_inserts,
)
from trackerlab.models.time_buckets import aggregates as tba
from trackerlab.models.time_buckets.shapes import SHAPES
from trackerlab.sizing import theory
from trackerlab.sizing.jvm import JvmLayout
from trackerlab.sizing.python import python_real_bytes
from trackerlab.sizing.request import SizeRequest, SizeResult
from trackerlab.workloads.stream import last_message_per_entry

#: Above this many entries the dict model's Python bytes are not measured (seconds per 1e6).
PYTHON_DICT_LIMIT = 1_000_000
FILE = "pulsar-client/src/main/java/org/apache/pulsar/client/impl/NegativeAcksTracker.java"


# --------------------------------------------------------------------------- maps (A and B)


def open_addressing_table_bytes(
    entries: int, initial_capacity: int = 512, fill_factor: float = 0.66, payload: int = 32
) -> int:
    """Corrected PIP-393 formula: ``payload`` B per bucket of the power-of-two table that
    ``entries`` inserts grow to (one section): between ``32/0.66 = 48.5`` and ``32/0.33 = 97``
    B per entry for inserts; 213 B only after removals with autoShrink. O(log entries)."""
    return payload * capacity_after_inserts(entries, initial_capacity, fill_factor)


def _pair_map(request: SizeRequest, name: str, concurrency_level: int) -> SizeResult:
    """The map after a put per entry: ``(ledgerId, entryId) -> (partition, timestamp)``."""
    ledger, entry, _, deliver_at = last_message_per_entry(request.workload)
    pair_map = ConcurrentLongLongPairHashMap.from_arrays(
        ledger,
        entry,
        np.full(len(ledger), NON_PARTITIONED_TOPIC_PARTITION_INDEX, dtype=np.int64),
        deliver_at * 1_000_000,  # nanoTime + delay
        assume_unique=True,
        auto_shrink=True,
        concurrency_level=concurrency_level,
    )
    n = pair_map.size()
    best, worst = theory.pip393_open_addressing_bytes_per_entry()
    sections = len(pair_map.sections)
    init = pair_map.sections[0].init_capacity
    return SizeResult(
        structure=name,
        entries=n,
        python_bytes=python_real_bytes(pair_map),
        jvm_bytes=pair_map.jvm_bytes(request.jvm_layout),
        theory_bytes=best * n,
        theory_corrected_bytes=sections * open_addressing_table_bytes(-(-n // sections), init),
        details={
            "buckets": pair_map.capacity(),
            "sections": sections,
            "load": round(n / pair_map.capacity(), 4),
            "table_bytes": pair_map.table_bytes(),
            "theory_worst_bytes": worst * n,
        },
    )


def size_pair_map(request: SizeRequest) -> SizeResult:
    """Version B's map built from the messages (non-partitioned topic). O(entries)."""
    return _pair_map(request, "nack-pair-map", 1)


def size_pair_map_16(request: SizeRequest) -> SizeResult:
    """The map of PIP-393's memory test: autoShrink, concurrencyLevel 16. O(entries)."""
    return _pair_map(request, "nack-pair-map-16", 16)


def pair_map_from_counts(counts: PointCounts, shape: str | None, layout: JvmLayout) -> SizeResult:
    """Version B's map from the distinct-entry count alone. O(log entries)."""
    sizes = pair_map_sizes(counts.totals["heap_entries"], layout)
    published = theory.pip393_open_addressing_bytes_per_entry()[0]
    return SizeResult(
        structure="nack-pair-map",
        entries=sizes.entries,
        python_bytes=sizes.python_bytes,
        jvm_bytes=sizes.jvm_heap_bytes,
        jvm_direct_bytes=0,
        theory_bytes=published * sizes.entries,
        details={"theory_published_per_entry": published, "capacity_longs": 4 * sizes.capacity},
    )


def size_hash_map(request: SizeRequest) -> SizeResult:
    """Version A's ``HashMap<MessageIdImpl, Long>``; Python bytes up to 1e6 entries. O(entries)."""
    ledger, entry, _, deliver_at = last_message_per_entry(request.workload)
    n = len(ledger)
    details: dict[str, object] = {"bytes_per_entry_formula": "88 + 4 * table / n (Node, id, Long)"}
    python_bytes = None
    if n <= PYTHON_DICT_LIMIT:
        tracker = NegativeAcksTrackerHashMap.from_arrays(
            ledger, entry, deliver_at * 1_000_000, assume_unique=True
        )
        python_bytes = python_real_bytes(tracker.nacked)
    else:
        details["python_bytes"] = f"not measured above {PYTHON_DICT_LIMIT:,} entries"
    return SizeResult(
        structure="nack-hash-map",
        entries=n,
        python_bytes=python_bytes,
        jvm_bytes=jvm_hash_map_tracker_bytes(n, layout=request.jvm_layout),
        details=details,
    )


def hash_map_from_counts(counts: PointCounts, shape: str | None, layout: JvmLayout) -> SizeResult:
    """Version A's map from the tracked-entry count alone (JVM column only). O(1)."""
    n = int(counts.totals["heap_entries"])
    return SizeResult(
        structure="nack-hash-map",
        entries=n,
        jvm_bytes=jvm_hash_map_tracker_bytes(n, layout=layout),
        jvm_direct_bytes=0,
        details={"theory_published_per_entry": float("nan")},
    )


# --------------------------------------------------------------------------- PIP-393 buckets


def _bucket_run(request: SizeRequest, run_optimize: bool) -> BucketRun:
    return BucketRun(
        request.workload,
        request.trim_bits,
        run_optimize=run_optimize or request.run_optimize,
        layout=request.layout,
        roaring=request.roaring,
        shape=request.shape or SHAPES[0],
    )


def size_time_buckets(request: SizeRequest) -> SizeResult:
    """The PIP-393 index built from the messages (bulk path). O(messages log messages)."""
    return size_result("nack-time-buckets", _bucket_run(request, False))


def size_time_buckets_runs(request: SizeRequest) -> SizeResult:
    """The same index after ``runOptimize()``. O(messages log messages)."""
    return size_result("nack-time-buckets-runs", _bucket_run(request, True))


_MAP_OPTIONS = ("layout",)
_BUCKET_OPTIONS = ("trim_bits", "layout", "run_optimize")

HASH_MAP = Design(
    tracker=NACK,
    summary="version A: HashMap<MessageIdImpl, Long>, one boxed entry per nacked entry",
    java="HashMap<MessageId, Long> nackedMessages",
    source=FILE,
    prs=(),
    releases="up to 3.0.7, 3.3.2 and 4.0.0",
    memory="heap",
    options=_MAP_OPTIONS,
    build=size_hash_map,
    from_counts=hash_map_from_counts,
    columns=("python", "jvm"),
)
PAIR_MAP = Design(
    tracker=NACK,
    summary="version B: ConcurrentLongLongPairHashMap, 1 section, autoShrink",
    java="ConcurrentLongLongPairHashMap (concurrencyLevel 1, autoShrink)",
    source=FILE,
    prs=("#23582",),
    releases="3.0.8 – 3.0.x, 3.3.3 – 3.3.x, 4.0.1",
    memory="heap",
    options=_MAP_OPTIONS,
    build=size_pair_map,
    from_counts=pair_map_from_counts,
)
PAIR_MAP_16 = Design(
    tracker=NACK,
    summary="the pair map of PIP-393's memory test: autoShrink, concurrencyLevel 16",
    java="ConcurrentLongLongPairHashMap (concurrencyLevel 16, autoShrink)",
    source="pip/pip-393.md (test code)",
    prs=("#23601",),
    releases="test harness only",
    memory="heap",
    options=_MAP_OPTIONS,
    build=size_pair_map_16,
)
TIME_BUCKETS = Design(
    tracker=NACK,
    summary="PIP-393: trimmed timestamp -> ledger -> Roaring64Bitmap of entry ids",
    java="Long2ObjectAVLTreeMap<Long2ObjectOpenHashMap<Roaring64Bitmap>>",
    source=FILE,
    prs=("#23600", "#23804"),
    releases="4.0.2 and later",
    memory="heap",
    options=_BUCKET_OPTIONS,
    build=size_time_buckets,
    from_counts=tba.sizer_from_counts("nack-time-buckets", "plain", "pip393"),
    shapes=SHAPES,
)
TIME_BUCKETS_RUNS = Design(
    tracker=NACK,
    summary="PIP-393's index after runOptimize(): consecutive entry ids become runs",
    java="Long2ObjectAVLTreeMap<Long2ObjectOpenHashMap<Roaring64Bitmap>> + runOptimize()",
    source="trackerlab proposal",
    prs=(),
    releases="proposal",
    memory="heap",
    options=_BUCKET_OPTIONS,
    build=size_time_buckets_runs,
    from_counts=tba.sizer_from_counts("nack-time-buckets-runs", "runs", "pip393"),
    shapes=SHAPES,
    proposal=True,
)
