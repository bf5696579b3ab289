"""``trackerlab size`` builders for the non-bucket trackers: the pair map, version A/B negative
ack trackers and the heap-based delayed tracker. Each returns the three columns:

- ``python_bytes``: :func:`trackerlab.sizing.python.python_real_bytes` of the Python model
  (numpy tables; for the ``HashMap`` model a dict, measured up to :data:`PYTHON_DICT_LIMIT`
  entries only: asizeof walks every object at ~1 µs each);
- ``jvm_bytes`` (heap) and ``jvm_direct_bytes`` (the ByteBuf queue's off-heap buffers);
- ``theory_bytes`` as the seeds publish it (PIP-393 ``32/0.66`` B per entry; 24 B per triple)
  and ``theory_corrected_bytes``: the same payload on the power-of-two table / the segmented
  capacity the growth rules really allocate.

The entries follow the workload conventions of ``trackerlab.workloads`` (message ``i``
published at ``floor(i / rate)`` ms, entry ``i // batch``, ledger rollover every
``entries_per_ledger`` entries); the trackers hold one key per entry, so only the entry
count and the ids matter here, never the delay distribution.
"""

from __future__ import annotations

import numpy as np

from trackerlab.models.delayed_heap_tracker import InMemoryDelayedDeliveryTracker
from trackerlab.models.nack_trackers import (
    NON_PARTITIONED_TOPIC_PARTITION_INDEX,
    NegativeAcksTrackerHashMap,
    jvm_hash_map_tracker_bytes,
)
from trackerlab.models.pair_hash_map import (
    ConcurrentLongLongPairHashMap,
    capacity_after_inserts,
)
from trackerlab.models.triple_heap import ITEMS_COUNT, capacity_after_adds
from trackerlab.sizing import theory
from trackerlab.sizing.python import python_real_bytes
from trackerlab.sizing.registry import SizeRequest, SizeResult, structure

#: Above this many entries the dict model's Python bytes are not measured (seconds per 1e6).
PYTHON_DICT_LIMIT = 1_000_000
#: Nack redelivery delay used for timestamps (the client default, 60 s); sizes ignore it.
NACK_DELAY_MS = 60_000
_ENTRY_OPTIONS = ("messages", "batch_size", "entries_per_ledger", "start_ledger", "layout")


def entry_ids(request: SizeRequest) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ledgerId, entryId, time_ms)`` of every entry: the messages grouped by batch, the time
    being that of the entry's last message. O(entries), vectorized."""
    entries = -(-request.messages // request.batch_size)
    seq = np.arange(entries, dtype=np.int64)
    last_message = np.minimum((seq + 1) * request.batch_size, request.messages) - 1
    time_ms = np.floor(last_message / request.rate_per_ms).astype(np.int64)
    ledger = request.start_ledger + seq // request.entries_per_ledger
    return ledger, seq % request.entries_per_ledger, time_ms


def open_addressing_table_bytes(
    entries: int, initial_capacity: int = 512, fill_factor: float = 0.66, payload: int = 32
) -> int:
    """Corrected PIP-393 formula: ``payload`` B per bucket of the power-of-two table that
    ``entries`` inserts grow to (one section): between ``32/0.66 = 48.5`` and ``32/0.33 = 97``
    B per entry for inserts; 213 B only after removals with autoShrink."""
    return payload * capacity_after_inserts(entries, initial_capacity, fill_factor)


def _pair_map_result(
    name: str, pair_map: ConcurrentLongLongPairHashMap, request: SizeRequest
) -> SizeResult:
    n = pair_map.size()
    best, worst = theory.pip393_open_addressing_bytes_per_entry()
    sections = len(pair_map.sections)
    init = pair_map.sections[0].init_capacity
    corrected = sections * open_addressing_table_bytes(-(-n // sections), init)
    return SizeResult(
        structure=name,
        entries=n,
        python_bytes=python_real_bytes(pair_map),
        jvm_bytes=pair_map.jvm_bytes(request.jvm_layout),
        theory_bytes=best * n,
        theory_corrected_bytes=corrected,
        details={
            "buckets": pair_map.capacity(),
            "sections": len(pair_map.sections),
            "load": round(n / pair_map.capacity(), 4),
            "table_bytes": pair_map.table_bytes(),
            "theory_worst_bytes": worst * n,
        },
    )


def _pair_map(request: SizeRequest, name: str, concurrency_level: int) -> SizeResult:
    """The map after a put per entry: ``(ledgerId, entryId) -> (partition, timestamp)``."""
    ledger, entry, time_ms = entry_ids(request)
    pair_map = ConcurrentLongLongPairHashMap.from_arrays(
        ledger,
        entry,
        np.full(len(ledger), NON_PARTITIONED_TOPIC_PARTITION_INDEX, dtype=np.int64),
        (time_ms + NACK_DELAY_MS) * 1_000_000,
        assume_unique=True,
        auto_shrink=True,
        concurrency_level=concurrency_level,
    )
    return _pair_map_result(name, pair_map, request)


@structure(
    "nack-pair-map",
    "NegativeAcksTracker v.B (#23582): ConcurrentLongLongPairHashMap, 1 section, autoShrink",
    _ENTRY_OPTIONS,
)
def size_nack_pair_map(request: SizeRequest) -> SizeResult:
    """The map ``NegativeAcksTrackerPairMap.from_arrays`` builds (non-partitioned topic)."""
    return _pair_map(request, "nack-pair-map", 1)


@structure(
    "pair-map-16",
    "ConcurrentLongLongPairHashMap as in PIP-393's test: autoShrink, concurrencyLevel 16",
    _ENTRY_OPTIONS,
)
def size_pair_map_16(request: SizeRequest) -> SizeResult:
    return _pair_map(request, "pair-map-16", 16)


@structure(
    "nack-hashmap",
    "NegativeAcksTracker v.A (<= 4.0.0): HashMap<MessageIdImpl, Long>",
    _ENTRY_OPTIONS,
)
def size_nack_hashmap(request: SizeRequest) -> SizeResult:
    ledger, entry, time_ms = entry_ids(request)
    n = len(ledger)
    details: dict[str, object] = {"bytes_per_entry_formula": "88 + 4 * table / n (Node, id, Long)"}
    python_bytes = None
    if n <= PYTHON_DICT_LIMIT:
        tracker = NegativeAcksTrackerHashMap.from_arrays(
            ledger, entry, (time_ms + NACK_DELAY_MS) * 1_000_000, assume_unique=True
        )
        python_bytes = python_real_bytes(tracker.nacked)
    else:
        details["python_bytes"] = f"not measured above {PYTHON_DICT_LIMIT:,} entries"
    return SizeResult(
        structure="nack-hashmap",
        entries=n,
        python_bytes=python_bytes,
        jvm_bytes=jvm_hash_map_tracker_bytes(n, layout=request.jvm_layout),
        details=details,
    )


@structure(
    "delayed-heap",
    "InMemoryDelayedDeliveryTracker v1: TripleLongPriorityQueue on SegmentedLongArray (direct)",
    (*_ENTRY_OPTIONS, "rate_per_ms", "tick_ms"),
)
def size_delayed_heap(request: SizeRequest) -> SizeResult:
    ledger, entry, time_ms = entry_ids(request)
    n = len(ledger)
    deliver_at = time_ms + request.tick_ms + 60_000  # all in the future at time 0
    tracker = InMemoryDelayedDeliveryTracker.from_arrays(
        ledger, entry, deliver_at, now_ms=0, tick_time_ms=request.tick_ms
    )
    queue = tracker.queue
    capacity = queue.capacity_longs
    return SizeResult(
        structure="delayed-heap",
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
            "v1_bytebuf_bytes": _v1_bytes(n),
        },
    )


def _v1_bytes(n: int) -> int | str:
    """Direct bytes of the single-ByteBuf queue (v1), or why Java fails to grow it."""
    try:
        return 8 * capacity_after_adds(n, version="v1")
    except OverflowError:
        return "fails: buffer beyond 2^31 - 1 bytes"
