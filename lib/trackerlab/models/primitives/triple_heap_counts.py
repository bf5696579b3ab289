"""The capacity of a ``TripleLongPriorityQueue`` under bursts of adds and pops, without the heap.

Follows the same Java rules as :class:`trackerlab.models.primitives.triple_heap.TripleLongPriorityQueue`
(``pulsar-common`` ``TripleLongPriorityQueue.java`` + ``SegmentedLongArray.java``, spec
``pulsar-structures.md`` §3.4), but keeps only the numbers that decide memory: the tuple
count, the capacity in longs and the shrink threshold. Aggregated simulations that know only
how many indexes a queue gains and loses per time step use it to follow
``bytesCapacity()`` over days of traffic:

- ``add_many(n)`` equals ``n`` calls of ``add`` (one growth check per add, so the capacity
  reached is the first of the growth sequence above ``3 * (count - 1) + 2``). O(growths).
- ``pop_many(n)`` equals ``n`` calls of ``pop``: every pop runs the shrink check; between
  shrinks the count only has to reach the next threshold, so the loop is O(shrinks).

``tests/models/primitives/test_triple_heap_counts.py`` checks both against the full model.
"""

from __future__ import annotations

import numpy as np

from trackerlab.models.primitives.triple_heap import (
    DEFAULT_INITIAL_CAPACITY,
    DEFAULT_SHRINK_FACTOR,
    ITEMS_COUNT,
    MAX_SEGMENT_SIZE,
    RESERVATION_FACTOR,
    VERSIONS,
    grow_segmented,
    grow_v1,
)


class TripleHeapCapacity:
    """Tuple count, capacity (longs) and shrink threshold of one queue (v1, v2 or v3)."""

    def __init__(
        self,
        version: str = "v2",
        initial_capacity: int = DEFAULT_INITIAL_CAPACITY,
        shrink_factor: float = DEFAULT_SHRINK_FACTOR,
    ) -> None:
        if version not in VERSIONS:
            raise ValueError(f"version must be one of {', '.join(VERSIONS)}, got {version!r}")
        self.version = version
        self.count = 0
        self.initial = initial_capacity * ITEMS_COUNT
        self.capacity = self.initial
        self.shrink_factor = shrink_factor
        self.threshold = int(np.float32(initial_capacity) * np.float32(shrink_factor))
        self.peak_capacity = self.capacity

    # ------------------------------------------------------------------ operations

    def add_many(self, n: int) -> None:
        """``n`` calls of ``add``. O(growths)."""
        if n <= 0:
            return
        last = self.count + n - 1  # tuple index of the last add
        if self.version == "v1":
            tuples = self.capacity // ITEMS_COUNT
            while tuples <= last:
                tuples = grow_v1(tuples)
            self.capacity = tuples * ITEMS_COUNT
        else:
            while ITEMS_COUNT * last + 2 >= self.capacity:
                self.capacity = grow_segmented(self.capacity)
        self.count += n
        self.peak_capacity = max(self.peak_capacity, self.capacity)

    def pop_many(self, n: int) -> None:
        """``n`` calls of ``pop`` (each followed by ``shrinkCapacity``). O(shrinks)."""
        if n <= 0:
            return
        if n > self.count:
            raise ValueError(f"cannot pop {n} of {self.count} tuples")
        target = self.count - n
        if self.version == "v1":
            self.count = target
            return
        while self.count > target:
            # the first pop that leaves the count at or below the threshold
            after = min(self.count - 1, self.threshold)
            if after < target:
                self.count = target
                break
            self.count = after
            if not self._shrink():
                self.count = target  # nothing changes any more: the rest are plain pops
                break

    def set_count(self, count: int) -> None:
        """Adds or pops to reach ``count`` tuples (no Java method). O(growths or shrinks)."""
        if count >= self.count:
            self.add_many(count - self.count)
        else:
            self.pop_many(self.count - count)

    def clear(self) -> None:
        """``clear()``: count 0 and one shrink check (v2/v3). O(1)."""
        self.count = 0
        if self.version != "v1":
            self._shrink()

    def _shrink(self) -> bool:
        """``shrinkCapacity()`` at the current count; True if it changed capacity or threshold."""
        if not (self.count <= self.threshold and self.capacity > self.initial):
            return False
        size_to_shrink = int(
            np.float32(self.capacity)
            * np.float32(self.shrink_factor)
            * np.float32(RESERVATION_FACTOR)
        )
        if size_to_shrink == 0:
            return False
        new = max(self.capacity - size_to_shrink, self.initial)
        before = (self.capacity, self.threshold)
        self.capacity = _segmented_shrink(self.capacity, new, self.initial)
        self.threshold = int(self.capacity / ITEMS_COUNT * float(np.float32(self.shrink_factor)))
        return (self.capacity, self.threshold) != before

    # ------------------------------------------------------------------ sizes

    def bytes_capacity(self) -> int:
        """``bytesCapacity()`` = capacity in longs × 8. O(1)."""
        return self.capacity * 8

    @property
    def segments(self) -> int:
        """16 MiB segments once the first one is full (v2/v3), else 1. O(1)."""
        if self.version == "v1" or self.capacity <= MAX_SEGMENT_SIZE:
            return 1
        return -(-self.capacity // MAX_SEGMENT_SIZE)


def _segmented_shrink(capacity: int, new_capacity: int, initial: int) -> int:
    """``SegmentedLongArray.shrink(newCapacity)``: whole trailing segments go while the
    reduction is at least one segment and more than one is left; a lone segment is copied
    into a smaller one; otherwise nothing changes."""
    if new_capacity >= capacity or new_capacity < initial:
        return capacity
    segments = 1 if capacity <= MAX_SEGMENT_SIZE else capacity // MAX_SEGMENT_SIZE
    reduce = capacity - new_capacity
    while reduce >= MAX_SEGMENT_SIZE and segments > 1:
        segments -= 1
        capacity -= MAX_SEGMENT_SIZE
        reduce -= MAX_SEGMENT_SIZE
    if segments == 1 and reduce > 0:
        capacity -= reduce
    return capacity


def capacity_series(
    adds: np.ndarray, pops: np.ndarray, version: str = "v2"
) -> tuple[np.ndarray, np.ndarray]:
    """Count and ``bytesCapacity()`` after each step of ``adds[k]`` adds then ``pops[k]`` pops
    (rounded to whole tuples). O(steps + growths + shrinks), one Python iteration per step."""
    queue = TripleHeapCapacity(version)
    counts = np.empty(len(adds), dtype=np.int64)
    capacity = np.empty(len(adds), dtype=np.int64)
    for k, (a, p) in enumerate(zip(adds.tolist(), pops.tolist(), strict=True)):
        queue.add_many(int(a))
        queue.pop_many(min(int(p), queue.count))
        counts[k] = queue.count
        capacity[k] = queue.bytes_capacity()
    return counts, capacity


def capacity_for_counts(
    counts: np.ndarray, peaks: np.ndarray | None = None, version: str = "v2"
) -> np.ndarray:
    """``bytesCapacity()`` after each step of a queue whose count goes up to ``peaks[k]``
    (default: the count itself) and then down to ``counts[k]``. O(steps)."""
    queue = TripleHeapCapacity(version)
    out = np.empty(len(counts), dtype=np.int64)
    top = counts if peaks is None else np.maximum(peaks, counts)
    for k, (c, t) in enumerate(zip(counts.tolist(), top.tolist(), strict=True)):
        queue.set_count(max(int(t), queue.count))
        queue.set_count(int(c))
        out[k] = queue.bytes_capacity()
    return out
