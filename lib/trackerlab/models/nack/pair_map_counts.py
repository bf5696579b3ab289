"""Sizes of the pre-PIP-393 negative-ack map from its entry count alone (Spark sweeps).

``NegativeAcksTracker`` version B (:class:`~trackerlab.models.nack.map_trackers.NegativeAcksTrackerPairMap`,
Pulsar #23582: 3.0.8, 3.3.3, 4.0.1) keeps ``(ledgerId, entryId) -> (partitionIndex,
timestamp)`` in a ``ConcurrentLongLongPairHashMap`` with one section, autoShrink on and the
builder's defaults (expectedItems 256, fill factor 0.66). Growing from empty, its capacity
depends only on how many distinct keys were put (``put`` rehashes after the insert that passes
``resizeThresholdUp``; :func:`~trackerlab.models.primitives.pair_hash_map.capacity_after_inserts`), never
on their values or hashes, so a sweep counts distinct (ledger, entry) pairs and sizes the map
here, O(growth steps), with no table allocated:

- JVM heap: :func:`~trackerlab.models.primitives.pair_hash_map.jvm_pair_map_bytes` of the one section;
- Python: ``python_real_bytes`` of the Python model, i.e. an empty map with its table swapped
  for one of the grown capacity (pympler counts a numpy array as its ``getsizeof`` plus 16:
  header plus data). The counters of a grown map (size, used buckets, thresholds) are int
  objects of their own where the empty map's are small cached ones or shared, and pympler's
  count of shared objects moves with the process's history, so the figure is within about
  100 B of a grown map's (under 1% of the 16 KiB minimum; tested at 1%).

Java bounds the section: ``new long[4 * capacity]`` must fit an array, so capacity stops at
2^28 buckets and the map holds at most :data:`MAX_ENTRIES` keys (the rehash after that would
throw). :func:`pair_map_sizes` refuses more, and the sweep grid checks it up front.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache

import numpy as np

from trackerlab.models.primitives.pair_hash_map import (
    DEFAULT_EXPAND_FACTOR,
    DEFAULT_FILL_FACTOR,
    MAX_SECTION_CAPACITY,
    capacity_after_inserts,
    float_times,
    jvm_pair_map_bytes,
)
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

#: Keys a one-section map holds before its next rehash would need ``long[2^31]``.
MAX_ENTRIES = float_times(MAX_SECTION_CAPACITY, DEFAULT_FILL_FACTOR)


@dataclass(frozen=True)
class PairMapSizes:
    entries: int
    capacity: int
    jvm_heap_bytes: int
    python_bytes: int


def _table_python_bytes(capacity: int) -> int:
    """``sys.getsizeof`` of the section's ``int64[4 * capacity]`` table."""
    return sys.getsizeof(np.zeros(0, dtype=np.int64)) + 32 * capacity


@cache
def _initial_capacity() -> int:
    from trackerlab.models.nack.map_trackers import NegativeAcksTrackerPairMap

    return NegativeAcksTrackerPairMap.new_map().sections[0].capacity


@cache
def _reference_python_bytes() -> int:
    """``python_real_bytes`` of the tracker's empty map, minus its table."""
    from trackerlab.models.nack.map_trackers import NegativeAcksTrackerPairMap
    from trackerlab.sizing.python import python_real_bytes

    empty = NegativeAcksTrackerPairMap.new_map()
    return python_real_bytes(empty) - _table_python_bytes(empty.sections[0].capacity)


def pair_map_sizes(n: int, layout: JvmLayout = COMPRESSED) -> PairMapSizes:
    """The byte counts of the version-B nack map after ``n`` distinct puts. O(log n)."""
    if not 0 <= n <= MAX_ENTRIES:
        raise ValueError(f"pair-hash-map entries must be in 0..{MAX_ENTRIES:,}, got {n:,}")
    capacity = capacity_after_inserts(
        n, _initial_capacity(), DEFAULT_FILL_FACTOR, DEFAULT_EXPAND_FACTOR
    )
    return PairMapSizes(
        entries=n,
        capacity=capacity,
        jvm_heap_bytes=jvm_pair_map_bytes([capacity], layout),
        python_bytes=_reference_python_bytes() + _table_python_bytes(capacity),
    )
