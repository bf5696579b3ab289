"""Naive references for the primitive Java collections of ``trackerlab.models.primitives``.

Each is a plain ``heapq``, dict or set with the Java method's semantics written out, one call
at a time; where the Java class's capacity rule decides memory, it is replayed call by call
too (the Java constants are restated here, not imported from the models).
"""

from __future__ import annotations

import heapq

import numpy as np

#: ``SegmentedLongArray.MAX_SEGMENT_SIZE``: 2M longs (16 MiB) per segment.
MAX_SEGMENT_SIZE = 2 * 1024 * 1024


class NaiveTripleHeap:
    """``TripleLongPriorityQueue``: a ``heapq`` of ``(n1, n2, n3)`` plus its capacity in longs
    and ``shrinkThreshold``, replayed add by add and pop by pop (pulsar-common
    ``TripleLongPriorityQueue.java``, ``SegmentedLongArray.java``; v1 is the 2.x ByteBuf
    queue that grows in tuples and never shrinks). ``add``/``pop`` O(log n)."""

    def __init__(self, initial_capacity: int = 16, version: str = "v2") -> None:
        self.heap: list[tuple[int, int, int]] = []
        self.version = version
        self.initial_longs = 3 * initial_capacity
        self.capacity_longs = self.initial_longs
        self.shrink_factor = np.float32(0.5)  # DEFAULT_SHRINK_FACTOR
        # (long) (initialCapacity * shrinkFactor)
        self.shrink_threshold = int(np.float32(initial_capacity) * self.shrink_factor)

    def add(self, triple: tuple[int, int, int]) -> None:
        """``add(n1, n2, n3)``: v1 grows when ``size == capacity`` (tuples), v2/v3 when
        ``tuplesCount * 3 + 2 >= array.getCapacity()`` (longs); then push."""
        count = len(self.heap)
        if self.version == "v1":
            tuples = self.capacity_longs // 3
            if count == tuples:
                tuples += tuples if tuples <= 256 else tuples // 2
                self.capacity_longs = 3 * tuples
        elif count * 3 + 2 >= self.capacity_longs:
            self._increase_capacity()
        heapq.heappush(self.heap, triple)

    def _increase_capacity(self) -> None:
        """``SegmentedLongArray.increaseCapacity()``: grow the first segment (x2 up to 256
        longs, then x1.5, at most one segment), then add one whole segment."""
        cap = self.capacity_longs
        if cap < MAX_SEGMENT_SIZE:
            self.capacity_longs = min(cap + (cap if cap <= 256 else cap // 2), MAX_SEGMENT_SIZE)
        else:
            self.capacity_longs = cap + MAX_SEGMENT_SIZE

    def pop(self) -> tuple[int, int, int]:
        """``pop()`` (after ``peekN1..3``): the smallest triple, then ``shrinkCapacity()``."""
        top = heapq.heappop(self.heap)
        self._shrink_capacity()
        return top

    def peek(self) -> tuple[int, int, int]:
        return self.heap[0]

    def clear(self) -> None:
        """``clear()``: count 0, then ``shrinkCapacity()``."""
        self.heap.clear()
        self._shrink_capacity()

    def _shrink_capacity(self) -> None:
        if self.version == "v1":  # the ByteBuf queue never shrinks
            return
        cap, initial = self.capacity_longs, self.initial_longs
        if not (len(self.heap) <= self.shrink_threshold and cap > initial):
            return
        # (long) (array.getCapacity() * shrinkFactor * RESERVATION_FACTOR), float arithmetic
        size_to_shrink = int(np.float32(cap) * self.shrink_factor * np.float32(0.9))
        if size_to_shrink == 0:
            return
        new_capacity = initial if cap - size_to_shrink <= initial else cap - size_to_shrink
        self._segmented_shrink(new_capacity)
        # (long) (array.getCapacity() / (double) ITEMS_COUNT * shrinkFactor)
        self.shrink_threshold = int(self.capacity_longs / 3 * float(self.shrink_factor))

    def _segmented_shrink(self, new_capacity: int) -> None:
        """``SegmentedLongArray.shrink(newCapacity)``: drop whole trailing segments while the
        reduction is at least one segment and more than one is left; copy a lone segment
        into a smaller one."""
        cap = self.capacity_longs
        if new_capacity >= cap or new_capacity < self.initial_longs:
            return
        segments = 1 if cap <= MAX_SEGMENT_SIZE else cap // MAX_SEGMENT_SIZE
        reduce = cap - new_capacity
        while reduce >= MAX_SEGMENT_SIZE and segments > 1:
            segments -= 1
            cap -= MAX_SEGMENT_SIZE
            reduce -= MAX_SEGMENT_SIZE
        if segments == 1:
            cap -= reduce
        self.capacity_longs = cap

    def __len__(self) -> int:
        return len(self.heap)


class NaivePairHashMap:
    """``ConcurrentLongLongPairHashMap``: a dict ``(key1, key2) -> (value1, value2)``.
    Every method O(1)."""

    def __init__(self) -> None:
        self.entries: dict[tuple[int, int], tuple[int, int]] = {}

    def put(self, key: tuple[int, int], value: tuple[int, int]) -> bool:
        """``put``: insert or overwrite; always true."""
        self.entries[key] = value
        return True

    def put_if_absent(self, key: tuple[int, int], value: tuple[int, int]) -> bool:
        """``putIfAbsent``: true (and stored) only when the key is absent."""
        if key in self.entries:
            return False
        self.entries[key] = value
        return True

    def remove(self, key: tuple[int, int], value: tuple[int, int] | None = None) -> bool:
        """``remove(k1, k2)``, or ``remove(k1, k2, v1, v2)`` only when the value matches."""
        if key not in self.entries or (value is not None and self.entries[key] != value):
            return False
        del self.entries[key]
        return True

    def get(self, key: tuple[int, int]) -> tuple[int, int] | None:
        """``get``: the value pair, or null."""
        return self.entries.get(key)

    def clear(self) -> None:
        self.entries.clear()

    def __len__(self) -> int:
        return len(self.entries)


class NaiveLong2LongMap:
    """pulsar-common ``Long2LongOpenHashMap``: a dict with ``defRetValue`` 0, and the slot
    count replayed put by put (32 slots by default; a new key first doubles the table when
    ``size >= (int)(capacity * 0.75f)``; nothing ever shrinks it). Every method O(1) except
    ``remove_if`` O(n)."""

    def __init__(self, capacity: int = 32) -> None:
        self.entries: dict[int, int] = {}
        self.capacity = capacity

    def put(self, key: int, value: int) -> int:
        """``put``: the previous value, or 0."""
        if key not in self.entries and len(self.entries) >= int(self.capacity * 0.75):
            self.capacity *= 2
        previous = self.entries.get(key, 0)
        self.entries[key] = value
        return previous

    def remove(self, key: int) -> int:
        """``remove``: the removed value, or 0."""
        return self.entries.pop(key, 0)

    def get(self, key: int) -> int:
        """``get``: the value, or 0 when absent."""
        return self.entries.get(key, 0)

    def get_or_default(self, key: int, default: int) -> int:
        return self.entries.get(key, default)

    def contains_key(self, key: int) -> bool:
        return key in self.entries

    def remove_if(self, predicate) -> list[int]:
        """``removeIf``: the removed keys, ascending."""
        gone = sorted(k for k, v in self.entries.items() if predicate(k, v))
        for k in gone:
            del self.entries[k]
        return gone

    def clear(self) -> None:
        """``clear()``: no entries; the capacity stays."""
        self.entries.clear()

    def __len__(self) -> int:
        return len(self.entries)


class NaiveBitSet:
    """``java.util.BitSet``: a set of bit indices, and ``words.length`` replayed call by call
    (``new BitSet()`` holds ``long[1]``; ``set(i)`` grows it to ``max(2 * length, i / 64 + 1)``
    when too short; nothing shrinks it). ``set``/``clear``/``get`` O(1), the rest O(n)."""

    def __init__(self) -> None:
        self.bits: set[int] = set()
        self.length_words = 1

    def set(self, i: int) -> None:
        required = i // 64 + 1  # ensureCapacity(wordsRequired)
        if required > self.length_words:
            self.length_words = max(2 * self.length_words, required)
        self.bits.add(i)

    def clear(self, i: int) -> None:
        self.bits.discard(i)

    def clear_range(self, start: int, end: int) -> None:
        """``clear(fromIndex, toIndex)``; ``start >= end`` clears nothing (Java throws
        ``IndexOutOfBoundsException`` when ``start > end``; the model ignores the call)."""
        self.bits -= set(range(start, end))

    def clear_all(self) -> None:
        """``clear()``."""
        self.bits.clear()

    def next_set_bit(self, start: int) -> int:
        """``nextSetBit(fromIndex)``: the first set bit ``>= start``, or -1."""
        after = [i for i in self.bits if i >= start]
        return min(after) if after else -1

    def cardinality(self) -> int:
        return len(self.bits)

    def length(self) -> int:
        """``length()``: the highest set bit + 1, or 0."""
        return max(self.bits) + 1 if self.bits else 0
