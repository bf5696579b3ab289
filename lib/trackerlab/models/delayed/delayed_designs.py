"""The delayed-delivery index designs (broker, one per Shared subscription), as catalog entries.

Each :class:`~trackerlab.models.design.Design` names the Java it follows and wires the model
functions that size it: from messages (``trackerlab size``), from a reducer's counts (Spark
sweeps) and over days (:mod:`trackerlab.models.delayed.aggregated`, ``trackerlab simulate
delayed``); :mod:`trackerlab.catalog` registers them by name.
"""

from __future__ import annotations

import trackerlab.models.delayed.aggregated as aggregated
import trackerlab.models.delayed.pip195_mutable as pip195_mutable
from trackerlab.core.errors import UsageError
from trackerlab.models.delayed.heap import InMemoryDelayedDeliveryTracker
from trackerlab.models.delayed.heap_counts import heap_sizes
from trackerlab.models.delayed.time_bucket_runs import BucketRun, size_result
from trackerlab.models.design import DELAYED, Design, PointCounts
from trackerlab.models.primitives.triple_heap import ITEMS_COUNT, capacity_after_adds
from trackerlab.models.time_buckets import aggregates as tba
from trackerlab.models.time_buckets.shapes import SHAPES
from trackerlab.sizing import theory
from trackerlab.sizing.jvm import JvmLayout
from trackerlab.sizing.python import python_real_bytes
from trackerlab.sizing.request import SizeRequest, SizeResult
from trackerlab.workloads.stream import last_message_per_entry

DIR = "pulsar-broker/src/main/java/org/apache/pulsar/broker/delayed/"


# --------------------------------------------------------------------------- the triple heap


def size_heap(request: SizeRequest) -> SizeResult:
    """Each entry added when published; those due within a tick are not tracked. O(n log n)."""
    ledger, entry, publish, deliver_at = last_message_per_entry(request.workload)
    tracker = InMemoryDelayedDeliveryTracker.from_arrays(
        ledger, entry, deliver_at, now_ms=publish, tick_time_ms=request.tick_ms
    )
    queue = tracker.queue
    n = queue.size()
    capacity = queue.capacity_longs
    return SizeResult(
        structure="triple-heap",
        entries=n,
        python_bytes=python_real_bytes(tracker),
        jvm_bytes=tracker.jvm_bytes(request.jvm_layout),
        jvm_direct_bytes=tracker.jvm_direct_bytes(),
        theory_bytes=float(theory.triple_bytes_per_entry() * n),
        theory_corrected_bytes=8 * capacity_after_adds(n),
        details={
            "bytes_capacity": queue.bytes_capacity(),
            "capacity_longs": capacity,
            "segments": len(queue.array.segments),
            "payload_bytes": 8 * ITEMS_COUNT * n,
            "entries_not_tracked": len(ledger) - n,
            "v1_bytebuf_bytes": _v1_bytes(n),
        },
    )


def _v1_bytes(n: int) -> int | str:
    """Direct bytes of the single-ByteBuf queue (v1), or why Java fails to grow it."""
    try:
        return 8 * capacity_after_adds(n, version="v1")
    except OverflowError:
        return "fails: buffer beyond 2^31 - 1 bytes"


def heap_from_counts(counts: PointCounts, shape: str | None, layout: JvmLayout) -> SizeResult:
    """The heap from its tracked-entry count alone (a nack point tracks every entry). O(log n)."""
    tick = counts.tick_ms if counts.tick_ms is not None else 0
    h = heap_sizes(counts.totals["heap_entries"], tick, layout=layout)
    published = float(theory.triple_bytes_per_entry())
    return SizeResult(
        structure="triple-heap",
        entries=h.entries,
        python_bytes=h.python_bytes,
        jvm_bytes=h.jvm_heap_bytes,
        jvm_direct_bytes=h.jvm_direct_bytes,
        theory_bytes=published * h.entries,
        details={"theory_published_per_entry": published, "capacity_longs": h.capacity_longs},
    )


# --------------------------------------------------------------------------- time buckets


def _bucket_run(request: SizeRequest, run_optimize: bool) -> BucketRun:
    return BucketRun.delayed(
        request.workload,
        request.tick_ms,
        run_optimize=run_optimize or request.run_optimize,
        layout=request.layout,
        roaring=request.roaring,
        shape=request.shape or SHAPES[0],
        formula="timebucket",
    )


def size_time_buckets(request: SizeRequest) -> SizeResult:
    """The #23611 index built by the tracker's bulk ``addMessage``. O(messages log messages)."""
    return size_result("time-buckets", _bucket_run(request, False))


def size_time_buckets_runs(request: SizeRequest) -> SizeResult:
    """The same index after ``runOptimize()``. O(messages log messages)."""
    return size_result("time-buckets-runs", _bucket_run(request, True))


TRIPLE_HEAP = Design(
    tracker=DELAYED,
    summary="InMemoryDelayedDeliveryTracker: a min-heap of (deliverAt, ledgerId, entryId)",
    java="TripleLongPriorityQueue over SegmentedLongArray (direct ByteBufs; heap long[][] "
    "after #26183)",
    source=DIR + "InMemoryDelayedDeliveryTracker.java",
    prs=("#4062", "#16490", "#26183"),
    releases="2.4 – 4.0.0, 4.0.6 – 4.0.x",
    memory="direct",
    options=("tick_ms", "layout"),
    build=size_heap,
    from_counts=heap_from_counts,
    simulate=aggregated.heap_design,
    # SegmentedLongArray grows on add and pop never shrinks it (spec pulsar-structures.md
    # §3.4); measured on 4.0.8's broker: 1,345,272 B held at 37,320 entries stayed at 22,878
    # (data/broker/delayed-fixed-20s-2k-4.0.8-samples.parquet)
    keeps_capacity=True,
)
TIME_BUCKETS = Design(
    tracker=DELAYED,
    summary="#23611: deliverAt trimmed to 2^floor(log2 tick) ms -> ledger -> entry-id bitmap",
    java="Long2ObjectAVLTreeMap<Long2ObjectOpenHashMap<Roaring64Bitmap>>",
    source=DIR + "InMemoryDelayedDeliveryTracker.java",
    prs=("#23611", "#24430"),
    releases="4.0.1 – 4.0.5, 4.1 and later",
    memory="heap",
    options=("tick_ms", "layout", "run_optimize"),
    build=size_time_buckets,
    from_counts=tba.sizer_from_counts("time-buckets", "plain", "timebucket"),
    simulate=aggregated.time_bucket_design,
    shapes=SHAPES,
)
TIME_BUCKETS_RUNS = Design(
    tracker=DELAYED,
    summary="#23611's index after runOptimize(): consecutive entry ids become runs",
    java="Long2ObjectAVLTreeMap<Long2ObjectOpenHashMap<Roaring64Bitmap>> + runOptimize()",
    source="trackerlab proposal",
    prs=(),
    releases="proposal",
    memory="heap",
    options=("tick_ms", "layout"),
    build=size_time_buckets_runs,
    from_counts=tba.sizer_from_counts("time-buckets-runs", "runs", "timebucket"),
    shapes=SHAPES,
    proposal=True,
)


def size_pip195(request: SizeRequest) -> SizeResult:
    """The released tracker's mutable bucket and shared queue before the first bucket seals
    (:mod:`~trackerlab.models.delayed.pip195_mutable`); a workload that seals one is refused:
    ``simulate delayed`` runs what follows. Entries due within a tick are not tracked.
    O(n log n)."""
    ledger, entry, publish, deliver_at = last_message_per_entry(request.workload)
    tracked = deliver_at > publish + request.tick_ms
    ledger, entry, deliver_at = ledger[tracked], entry[tracked], deliver_at[tracked]
    seal = pip195_mutable.first_seal(ledger)
    if seal is not None:
        raise UsageError(
            f"--messages {request.workload.messages:,}: too many for pip195-buckets, which "
            f"size builds only up to its first bucket seal; this workload seals at entry "
            f"{seal:,} (ledger {int(ledger[seal])}, after "
            f"{pip195_mutable.MIN_INDEX_COUNT_PER_BUCKET:,} indexes): give --messages below "
            f"{seal:,}, or run 'trackerlab simulate delayed --designs pip195-buckets' for the "
            "sealed buckets"
        )
    index = pip195_mutable.mutable_index(ledger, entry, deliver_at, request.jvm_layout)
    return SizeResult(
        structure="pip195-buckets",
        entries=index.entries,
        jvm_bytes=index.heap_bytes,
        jvm_direct_bytes=index.direct_bytes,
        details={
            "bytes_capacity": index.buffer_memory_usage_bytes,
            "queues_heap_bytes": index.queues_heap_bytes,
            "bitmaps_heap_bytes": index.bitmaps_heap_bytes,
            "entries_not_tracked": int((~tracked).sum()),
        },
    )


PIP195_BUCKETS = Design(
    tracker=DELAYED,
    summary="PIP-195: ledger-range buckets, snapshot segments in BookKeeper, one segment "
    "per bucket in memory",
    java="BucketDelayedDeliveryTracker (TripleLongPriorityQueue + RoaringBitmap per ledger)",
    source=DIR + "bucket/BucketDelayedDeliveryTracker.java",
    prs=("#16763", "#26251"),
    releases="3.0 and later (opt-in factory)",
    memory="direct + heap",
    options=("tick_ms", "layout"),
    build=size_pip195,
    simulate=aggregated.pip195_design,
    columns=("jvm",),
)
DELAY_LEVEL_TOPICS = Design(
    tracker=DELAYED,
    summary="#15500: one topic per delay level; the real topic indexes the current level only",
    java="(never implemented)",
    source="apache/pulsar issue #15500",
    prs=("#15500",),
    releases="not merged",
    memory="direct",
    simulate=aggregated.level_design,
    columns=("jvm",),
)
