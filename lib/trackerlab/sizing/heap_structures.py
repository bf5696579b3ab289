"""``trackerlab size`` builders for the non-bucket trackers: the pair map, version A/B negative
ack trackers and the heap-based delayed tracker. Each returns the three columns:

- ``python_bytes``: :func:`trackerlab.sizing.python.python_real_bytes` of the Python model
  (numpy tables; for the ``HashMap`` model a dict, measured up to :data:`PYTHON_DICT_LIMIT`
  entries only: asizeof walks every object at ~1 µs each);
- ``jvm_bytes`` (heap) and ``jvm_direct_bytes`` (the ByteBuf queue's off-heap buffers);
- ``theory_bytes`` as the seeds publish it (PIP-393 ``32/0.66`` B per entry; 24 B per triple)
  and ``theory_corrected_bytes``: the same payload on the power-of-two table / the segmented
  capacity the growth rules really allocate.

The entries come from ``trackerlab.workloads`` (:func:`entry_stream`); the trackers hold
one key per entry. For the nack maps only the entries matter (their count, and their ids
for the 16-section hash spread); the delayed heap also drops the messages due within one
tick (``addMessage`` returns false), so ``--delay`` changes its size.
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
_ENTRY_OPTIONS = (
    "messages",
    "rate_per_ms",
    "batch_size",
    "entries_per_ledger",
    "start_ledger",
    "pattern",
    "seed",
    "layout",
)


def entry_stream(request: SizeRequest) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(ledgerId, entryId, publish_ms, deliver_at_ms)`` per entry holding a selected message.

    The messages come from :class:`trackerlab.workloads.Workload` (rate, batching, ledger
    rollover, delay, pattern, seed); messages of one entry are consecutive, and the entry
    keeps its last selected message (a second nack overwrites; a batch has one deliverAt).
    O(messages), in the workload's chunks.
    """
    parts = [(c.ledger, c.entry, c.publish_ms, c.deliver_at) for c in request.workload().chunks()]
    if not parts:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, empty, empty
    ledger, entry, publish, deliver_at = (np.concatenate(col) for col in zip(*parts, strict=True))
    last = np.ones(len(ledger), dtype=bool)
    last[:-1] = (ledger[1:] != ledger[:-1]) | (entry[1:] != entry[:-1])
    return ledger[last], entry[last], publish[last], deliver_at[last]


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
    ledger, entry, _, deliver_at = entry_stream(request)
    pair_map = ConcurrentLongLongPairHashMap.from_arrays(
        ledger,
        entry,
        np.full(len(ledger), NON_PARTITIONED_TOPIC_PARTITION_INDEX, dtype=np.int64),
        deliver_at * 1_000_000,  # nanoTime + delay
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
    ledger, entry, _, deliver_at = entry_stream(request)
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
        structure="nack-hashmap",
        entries=n,
        python_bytes=python_bytes,
        jvm_bytes=jvm_hash_map_tracker_bytes(n, layout=request.jvm_layout),
        details=details,
    )


@structure(
    "delayed-heap",
    "InMemoryDelayedDeliveryTracker v1: TripleLongPriorityQueue on SegmentedLongArray (direct)",
    (*_ENTRY_OPTIONS, "delay", "tick_ms"),
)
def size_delayed_heap(request: SizeRequest) -> SizeResult:
    """Each entry added when published; those due within a tick are not tracked."""
    ledger, entry, publish, deliver_at = entry_stream(request)
    tracker = InMemoryDelayedDeliveryTracker.from_arrays(
        ledger, entry, deliver_at, now_ms=publish, tick_time_ms=request.tick_ms
    )
    queue = tracker.queue
    n = queue.size()
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
