"""Reproducers for the non-bucket structures: ``ConcurrentLongLongPairHashMap`` (PIP-393,
N01–N03) and the ``TripleLongPriorityQueue`` delayed index (TimeBucket blog N11–N13, #15500
N44–N45). Every value comes from the models (bulk builds of the seeds' workloads); the
theory columns from :mod:`trackerlab.sizing.theory`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from trackerlab.experiments.reproduce.number_registry import Reproduction, reproduces
from trackerlab.experiments.reproduce.published import PublishedNumber
from trackerlab.models.delayed.heap import InMemoryDelayedDeliveryTracker
from trackerlab.models.primitives.pair_hash_map import ConcurrentLongLongPairHashMap, float_times
from trackerlab.models.primitives.triple_heap import (
    ITEMS_COUNT,
    capacity_after_adds,
    jvm_triple_queue_bytes,
)
from trackerlab.sizing import theory
from trackerlab.sizing.python import python_real_bytes

MIB = 1024**2
SEGMENT_MIB = 16


def _unit(row: PublishedNumber) -> int:
    unit = row.unit_bytes
    if unit is None:
        raise ValueError(f"{row.id} is not in bytes ({row.unit})")
    return unit


# ------------------------------------------------------------------ pair map (PIP-393)


def _nack_map(
    entries: int, entries_per_ledger: int = 50_000, concurrency_level: int = 1
) -> ConcurrentLongLongPairHashMap:
    """An autoShrink map after puts of ``(10000 + i / perLedger, i % perLedger) -> (0, i)``
    (by default NegativeAcksTracker v.B's map: 1 section)."""
    i = np.arange(entries, dtype=np.int64)
    return ConcurrentLongLongPairHashMap.from_arrays(
        10_000 + i // entries_per_ledger,
        i % entries_per_ledger,
        np.zeros(entries),
        i,
        assume_unique=True,
        auto_shrink=True,
        concurrency_level=concurrency_level,
    )


def _table_per_entry(
    row: PublishedNumber,
    pair_map: ConcurrentLongLongPairHashMap,
    published_theory: float,
    explanation: str,
) -> Reproduction:
    """Bytes per entry of ``pair_map`` in the three columns; the row is the table at the
    fill point that defines it, so matching it is an identity."""
    n = pair_map.size()
    return Reproduction(
        row.id,
        row.published,
        row.unit,
        jvm_model=pair_map.jvm_bytes() / n,
        python_real=python_real_bytes(pair_map) / n,
        theory_published=published_theory,
        theory_corrected=pair_map.table_bytes() / n,
        values={"entries": pair_map.size(), "buckets": pair_map.capacity()},
        explanation=explanation,
    )


@reproduces("N01")
def best_case_bytes_per_entry(row: PublishedNumber) -> Reproduction:
    """A table at its fill threshold: 2^16 buckets holding (int)(65536 × 0.66f) entries."""
    capacity = 1 << 16
    n = float_times(capacity, 0.66)
    pair_map = _nack_map(n)
    assert pair_map.capacity() == capacity
    best, _ = theory.pip393_open_addressing_bytes_per_entry()
    return _table_per_entry(
        row,
        pair_map,
        best,
        f"best case = a table just below its fill threshold: {n:,} entries in {capacity:,} "
        f"buckets = {32 * capacity / n:.2f} B/entry of table; one insert later it doubles "
        f"to {32 * 2 * capacity / (n + 1):.1f} B/entry, so maps that only grow sit between "
        "48.5 and 97 B/entry",
    )


@reproduces("N02")
def worst_case_bytes_per_entry(row: PublishedNumber) -> Reproduction:
    """Grow to 2^14 buckets, then remove (per operation) down to the shrink threshold."""
    capacity = 1 << 14
    grown = float_times(capacity, 0.66)
    floor = float_times(capacity, 0.15)
    pair_map = _nack_map(grown)
    assert pair_map.capacity() == capacity
    for i in range(grown - floor):
        pair_map.remove(10_000 + i // 50_000, i % 50_000)
    assert pair_map.size() == floor and pair_map.capacity() == capacity
    _, worst = theory.pip393_open_addressing_bytes_per_entry()
    return _table_per_entry(
        row,
        pair_map,
        worst,
        f"worst case holds only with autoShrink: {capacity:,} buckets shrink when size drops "
        f"below (int)({capacity} × 0.15f) = {floor:,}, where the table costs "
        f"{32 * capacity / floor:.1f} B/entry; with the builder default autoShrink=false "
        "nothing bounds it (a map keeps its largest table after removals)",
    )


@reproduces("N03")
def pip393_test_map(row: PublishedNumber) -> Reproduction:
    """PIP-393's test: 1e6 puts (ledgerId 10000 + i/1000, entryId i%1000) into a map built
    with ``autoShrink(true).concurrencyLevel(16)``."""
    n = 1_000_000
    pair_map = _nack_map(n, entries_per_ledger=1000, concurrency_level=16)
    unit = _unit(row)
    capacities = {s.capacity for s in pair_map.sections}
    payload = 32 * n
    return Reproduction(
        row.id,
        row.published,
        row.unit,
        jvm_model=pair_map.jvm_bytes() / unit,
        python_real=python_real_bytes(pair_map) / unit,
        theory_published=payload / unit,
        theory_corrected=pair_map.table_bytes() / unit,
        explanation=(
            "the measurement is the retained heap of the map in the PIP's heap dump: "
            f"16 sections × long[4 × {max(capacities):,}] = {pair_map.table_bytes():,} B "
            f"(64 MiB) + {pair_map.jvm_bytes() - pair_map.table_bytes():,} B of objects; each "
            "section holds ~62,500 keys > (int)(65,536 × 0.66f) = 43,253, hence 2^17 buckets; "
            f"payload {payload:,} B = {payload / MIB:.1f} MiB, utilisation "
            f"{n / pair_map.capacity():.3f} (the PIP's 0.46 is 30/64 truncated); theory_published "
            "is that payload"
        ),
    )


# ------------------------------------------------------------------ heap (TimeBucket, #15500)


@dataclass(frozen=True)
class HeapSizes:
    entries: int
    jvm_heap: int
    jvm_direct: int
    python: int
    bytes_capacity: int
    segments: int

    @property
    def jvm_total(self) -> int:
        return self.jvm_heap + self.jvm_direct


@functools.lru_cache(maxsize=4)
def delayed_heap_sizes(entries: int, entries_per_ledger: int = 50_000) -> HeapSizes:
    """Sizes of an ``InMemoryDelayedDeliveryTracker`` (v2 queue) after ``entries`` adds at
    1 entry/ms (the blog's loop: timestamp + 1 per entry, ledger rollover at 50,000)."""
    i = np.arange(entries, dtype=np.int64)
    tracker = InMemoryDelayedDeliveryTracker.from_arrays(
        10_000 + i // entries_per_ledger, i % entries_per_ledger, 100_000 + i, now_ms=0
    )
    queue = tracker.queue
    return HeapSizes(
        entries=entries,
        jvm_heap=tracker.jvm_bytes(),
        jvm_direct=tracker.jvm_direct_bytes(),
        python=python_real_bytes(tracker),
        bytes_capacity=queue.bytes_capacity(),
        segments=len(queue.array.segments),
    )


def _per_entry(row: PublishedNumber, entries: int, source: str) -> Reproduction:
    sizes = delayed_heap_sizes(entries)
    payload = theory.triple_bytes_per_entry()
    return Reproduction(
        row.id,
        row.published,
        row.unit,
        jvm_model=sizes.jvm_total / entries,
        python_real=sizes.python / entries,
        theory_published=payload,
        theory_corrected=sizes.bytes_capacity / entries,
        values={"entries": entries, "capacity_per_entry_bytes": sizes.bytes_capacity / entries},
        explanation=(
            f"24 B is the payload (3 longs); {source}: at {entries:,} entries the queue holds "
            f"{sizes.segments} segments of 16 MiB = {sizes.bytes_capacity:,} B = "
            f"{sizes.bytes_capacity / entries:.2f} B/entry (direct memory, ByteBuf versions), "
            f"+ {sizes.jvm_heap:,} B of heap objects"
        ),
    )


@reproduces("N11")
def triple_bytes(row: PublishedNumber) -> Reproduction:
    return _per_entry(row, 10_000_000, "the blog's 10M-entry experiment")


@reproduces("N44")
def time_wheel_bytes(row: PublishedNumber) -> Reproduction:
    return _per_entry(row, 10_000_000, "#15500's 10 million delayed messages")


def _total(row: PublishedNumber, entries: int, what: str, version: str = "v2") -> Reproduction:
    """A memory figure the seed derived as ``entries x 24 B``, against the queue the seed's
    broker ran: ``v2`` (#16490's segmented queue: whole 16 MiB segments, as the seed's own
    N13 measures) or ``v1`` (one direct ByteBuf grown x2 up to 256 tuples, then x1.5)."""
    sizes = delayed_heap_sizes(entries)
    unit = _unit(row)
    payload = theory.triple_bytes_per_entry() * entries
    v1_bytes = 8 * capacity_after_adds(entries, version="v1")
    direct = sizes.jvm_direct if version == "v2" else v1_bytes
    heap = sizes.jvm_heap if version == "v2" else jvm_triple_queue_bytes("v1", [])
    held = (direct + heap) / unit
    return Reproduction(
        row.id,
        row.published,
        row.unit,
        jvm_model=held,
        python_real=sizes.python / unit,
        theory_published=payload / unit,
        theory_corrected=direct / unit,
        values={
            "payload_mib": payload / MIB,
            "segments": sizes.segments,
            "v1_mib": v1_bytes / MIB,
            "v1_tuples": v1_bytes // (8 * ITEMS_COUNT),
            "v2_mib": sizes.bytes_capacity / MIB,
            "entries": entries,
        },
        explanation=(
            f"{what}: the published number is the payload {entries:,} × 24 B = {payload:,} B = "
            f"{payload / MIB:.2f} MiB; the {version} queue holds {direct:,} B = "
            f"{direct / MIB:.1f} MiB (+ {heap:,} B heap). v1 (one ByteBuf, "
            f"{v1_bytes // (8 * ITEMS_COUNT):,} tuples after x2 then x1.5 growth): "
            f"{v1_bytes / MIB:.1f} MiB; v2 (#16490, {sizes.segments} × {SEGMENT_MIB} MiB "
            f"segments): {sizes.bytes_capacity / MIB:.0f} MiB"
        ),
    )


@reproduces("N12")
def one_day_subscription(row: PublishedNumber) -> Reproduction:
    """1 day × 10,000 msg/s in batches of 100 = 8,640,000 entries in one subscription."""
    rep = _total(row, 86_400 * 10_000 // 100, "1 day at 10,000 msg/s, batch 100")
    v2_mib = rep.values["v2_mib"]
    if not isinstance(v2_mib, float):  # _total stores bytes / MIB
        raise TypeError(f"{row.id}: v2_mib is {v2_mib!r}, not a float")
    rep.explanation += (
        f"; two shared subscriptions hold twice that ({2 * v2_mib:.0f} MiB, "
        f"not {2 * float(row.published):.0f})"
    )
    return rep


@reproduces("N45")
def ten_million_off_heap(row: PublishedNumber) -> Reproduction:
    """#15500 (2022-05) predates #16490 (2022-07): its broker ran the v1 single ByteBuf
    (data/pulsar_releases.yaml, heap_v1), so the figure is judged against v1."""
    rep = _total(row, 10_000_000, "10 million delayed messages", version="v1")
    rep.explanation += (
        f"; the published {row.published} is {rep.values['payload_mib']:.2f} MiB truncated; "
        "off-heap until #26183 moved the segments to the heap (long[][]: the same bytes)"
    )
    return rep


@reproduces("N13")
def bytes_capacity_ten_million(row: PublishedNumber) -> Reproduction:
    """``bytesCapacity()`` after the blog's 1e7 adds (1 msg/ms, 50,000 entries per ledger)."""
    entries = 10_000_000
    sizes = delayed_heap_sizes(entries)
    unit = _unit(row)
    return Reproduction(
        row.id,
        row.published,
        row.unit,
        jvm_model=sizes.bytes_capacity / unit,
        python_real=sizes.python / unit,
        theory_published=theory.triple_bytes_per_entry() * entries / unit,
        theory_corrected=sizes.bytes_capacity / unit,
        explanation=(
            f"the queue needs 3 × 1e7 = 30,000,000 longs; past the first 2M-long segment it grows "
            f"one 2,097,152-long segment at a time: {sizes.segments} segments = "
            f"{sizes.bytes_capacity:,} B = {sizes.bytes_capacity / MIB:g} MiB exactly; the "
            f"payload is {theory.triple_bytes_per_entry() * entries / MIB:.2f} MiB"
        ),
    )
