"""``TripleLongPriorityQueue``: a binary min-heap of ``(n1, n2, n3)`` long triples.

Follows ``apache/pulsar`` ``pulsar-common/src/main/java/org/apache/pulsar/common/util/
collections/TripleLongPriorityQueue.java`` and ``SegmentedLongArray.java`` (spec
``pulsar-structures.md`` §3.4). Three storage versions, one heap algorithm:

- ``"v1"`` (2.4–2.10): one pooled direct ``ByteBuf`` of ``capacity * 24`` bytes,
  ``DEFAULT_INITIAL_CAPACITY = 16`` tuples, grown when ``size == capacity`` by
  ``capacity += capacity <= 256 ? capacity : capacity / 2`` (tuples); no shrink. The byte size
  ``capacity * 24`` is a Java ``int``: past 2^31 - 1 the resize fails (#16490's ">1.5 GB").
- ``"v2"`` (#16490 onward): ``SegmentedLongArray`` of direct ``ByteBuf`` segments, capacity
  counted in longs from ``16 * 3 = 48``; ``add`` grows once when ``tuplesCount * 3 + 2 >=
  capacity``: the first segment by ``capacity <= 256 ? capacity : capacity / 2`` up to
  ``MAX_SEGMENT_SIZE = 2M`` longs (16 MiB), then one more 2M-long segment per step. ``pop``
  and ``clear`` shrink when ``tuplesCount <= shrinkThreshold`` (``shrinkFactor = 0.5f``,
  ``RESERVATION_FACTOR = 0.9f``); ``bytesCapacity() = capacity * 8``.
- ``"v3"`` (#26183): the same arithmetic over heap ``long[][]`` segments; ``bytesCapacity()``
  reports the allocated bytes, which equal ``capacity * 8`` for these growth rules.

Ordering: lexicographic ``(n1, n2, n3)``; ``siftUp`` to parent ``(i - 1) / 2``, ``siftDown`` to
the smaller of ``2i + 1`` and ``2i + 2`` only when strictly smaller (left first), ``pop`` moves
the last tuple to the root. The hole-based sift of #26010 makes the same comparisons, so this
model (hole-based) leaves the array exactly as Java's swap-based code does.

The Python model keeps the longs in numpy ``int64`` segments of the same lengths as Java's.
:meth:`TripleLongPriorityQueue.build` is the bulk path: a lexicographically sorted array is a
valid heap, and it is exactly what per-tuple ``add`` of the sorted triples leaves (each new
tuple is >= its parent, so nothing moves); :func:`capacity_after_adds` gives the capacity
after n adds in O(number of growth steps).
"""

from __future__ import annotations

import numpy as np

from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

VERSIONS = ("v1", "v2", "v3")
DEFAULT_INITIAL_CAPACITY = 16
DEFAULT_SHRINK_FACTOR = 0.5
RESERVATION_FACTOR = 0.9
ITEMS_COUNT = 3
#: ``SegmentedLongArray.MAX_SEGMENT_SIZE``: 2M longs = 16 MiB per segment.
MAX_SEGMENT_SIZE = 2 * 1024 * 1024
_INT_MAX = (1 << 31) - 1

#: ``TripleLongPriorityQueue`` v2/v3: ``array`` (ref), ``tuplesCount`` (long),
#: ``shrinkFactor`` (float), ``shrinkThreshold`` (long) = 40 B (measured, OpenJDK 17).
QUEUE_FIELDS = "LJFJ"
#: v1: ``buffer`` (ref), ``capacity``, ``size`` (ints) = 24 B (measured).
QUEUE_V1_FIELDS = "LII"
#: v2 ``SegmentedLongArray``: ``buffers`` (ArrayList ref), ``initialCapacity``, ``capacity``
#: (longs) = 32 B (measured); ``ArrayList`` = 24 B + ``Object[]`` elementData.
SEGMENTED_FIELDS = "LJJ"
#: v3 ``SegmentedLongArray`` fields are an estimate (``long[][] segments``, a segment count,
#: capacity, initial capacity, allocated bytes): the merged source was not retrieved.
SEGMENTED_V3_FIELDS = "LIJJJ"
#: Netty 4.1 ``PooledUnsafeDirectByteBuf`` heap object, from its field list (AbstractByteBuf
#: 5 ints, refCnt, PooledByteBuf recyclerHandle/chunk/memory/cache/tmpNioBuf/allocator refs,
#: handle long, offset/length/maxLength ints, memoryAddress long): an estimate, not measured.
BYTEBUF_FIELDS = "IIIII" + "I" + "LLLLLL" + "J" + "III" + "J"

Triple = tuple[int, int, int]


# ------------------------------------------------------------------ capacity arithmetic


def grow_segmented(capacity: int) -> int:
    """``SegmentedLongArray.increaseCapacity()``: the new capacity in longs."""
    if capacity < MAX_SEGMENT_SIZE:
        return min(capacity + (capacity if capacity <= 256 else capacity // 2), MAX_SEGMENT_SIZE)
    return capacity + MAX_SEGMENT_SIZE


def grow_v1(capacity_tuples: int) -> int:
    """v1 ``increaseCapacity()``: the new capacity in tuples; fails past a 2^31 - 1 byte buffer."""
    new = capacity_tuples + (capacity_tuples if capacity_tuples <= 256 else capacity_tuples // 2)
    if new * ITEMS_COUNT * 8 > _INT_MAX:
        raise OverflowError(
            f"v1 buffer.capacity({new} * 24) overflows a Java int (IllegalArgumentException; "
            "the >1.5 GB failure fixed by #16490)"
        )
    return new


def capacity_after_adds(
    n: int, initial_capacity: int = DEFAULT_INITIAL_CAPACITY, version: str = "v2"
) -> int:
    """Capacity **in longs** after ``n`` adds to an empty queue. O(growth steps).

    v2/v3: the add of tuple t grows once if ``3t + 2 >= capacity``; v1: if ``t == capacity``.
    """
    _check_version(version)
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if version == "v1":
        capacity = initial_capacity
        while capacity < n:
            capacity = grow_v1(capacity)
        return capacity * ITEMS_COUNT
    capacity = initial_capacity * ITEMS_COUNT
    t = 0
    while True:
        t = max(t, -(-(capacity - 2) // ITEMS_COUNT))  # first add that triggers a growth
        if t >= n:
            return capacity
        if capacity >= MAX_SEGMENT_SIZE:  # one full segment per trigger: jump to the last one
            steps = -(-(ITEMS_COUNT * n - capacity) // MAX_SEGMENT_SIZE)
            return capacity + steps * MAX_SEGMENT_SIZE
        capacity = grow_segmented(capacity)
        if ITEMS_COUNT * t + 2 >= capacity:
            raise IndexError(f"one growth to {capacity} longs cannot hold tuple {t} (Java fails)")
        t += 1


def array_list_capacity(elements: int) -> int:
    """``ArrayList`` elementData length after ``elements`` adds (JDK 17: 10, then ×1.5)."""
    capacity = 0
    while capacity < elements:
        capacity = 10 if capacity == 0 else capacity + max(1, capacity >> 1)
    return capacity


def _check_version(version: str) -> None:
    if version not in VERSIONS:
        raise ValueError(f"version must be one of {', '.join(VERSIONS)}, got {version!r}")


def is_sorted(n1: np.ndarray, n2: np.ndarray, n3: np.ndarray) -> bool:
    """Whether the triples are in lexicographic non-decreasing order. O(n)."""
    if len(n1) < 2:
        return True
    a0, a1, b0, b1 = n1[:-1], n1[1:], n2[:-1], n2[1:]
    ok = (a1 > a0) | ((a1 == a0) & ((b1 > b0) | ((b1 == b0) & (n3[1:] >= n3[:-1]))))
    return bool(ok.all())


def sort_triples(
    n1: np.ndarray, n2: np.ndarray, n3: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The triples in lexicographic order. When the three value ranges fit 64 bits together
    (delivery times, ledger ids and entry ids usually do) one ``np.sort`` of packed uint64
    keys; otherwise ``np.lexsort``. O(n log n)."""
    cols = [np.asarray(x, dtype=np.int64) for x in (n1, n2, n3)]
    lows = [int(x.min()) for x in cols]
    bits = [(int(x.max()) - low).bit_length() for x, low in zip(cols, lows, strict=True)]
    if sum(bits) > 64:
        order = np.lexsort((cols[2], cols[1], cols[0]))
        return cols[0][order], cols[1][order], cols[2][order]
    shifts = (bits[1] + bits[2], bits[2], 0)
    key = np.zeros(len(cols[0]), dtype=np.uint64)
    for x, low, shift in zip(cols, lows, shifts, strict=True):
        # two's-complement wraparound gives the exact unsigned offset x - low
        key |= (x.view(np.uint64) - np.uint64(low & 0xFFFF_FFFF_FFFF_FFFF)) << np.uint64(shift)
    key.sort()
    out = []
    for low, shift, width in zip(lows, shifts, bits, strict=True):
        field = (key >> np.uint64(shift)) & np.uint64((1 << width) - 1)
        out.append((field + np.uint64(low & 0xFFFF_FFFF_FFFF_FFFF)).view(np.int64))
    return out[0], out[1], out[2]


def _load_triples(segments: list[np.ndarray], columns: tuple[np.ndarray, ...]) -> None:
    """Interleave three columns into consecutive segments (tuples may straddle two). O(n)."""
    total = ITEMS_COUNT * len(columns[0])
    start = 0
    for seg in segments:
        end = min(start + len(seg), total)
        for comp, column in enumerate(columns):
            first = start + (comp - start) % ITEMS_COUNT  # first offset of this component
            if first < end:
                count = (end - first + ITEMS_COUNT - 1) // ITEMS_COUNT
                seg[first - start : end - start : ITEMS_COUNT] = column[
                    first // ITEMS_COUNT : first // ITEMS_COUNT + count
                ]
        start = end
        if start >= total:
            break


# ------------------------------------------------------------------ storage


class SegmentedLongArray:
    """``SegmentedLongArray`` (v2 direct, v3 heap): capacity rules plus numpy segments.

    ``increase_capacity`` O(first segment) below 2M longs (the Java resize copies too), O(1)
    amortized above; ``shrink`` drops whole trailing segments, or copies a smaller first one.
    """

    def __init__(self, initial_capacity: int, heap: bool = False) -> None:
        if initial_capacity <= 0:
            raise ValueError(f"initial capacity must be > 0, got {initial_capacity}")
        self.heap = heap
        self.initial_capacity = initial_capacity
        first = min(initial_capacity, MAX_SEGMENT_SIZE)
        self.segments = [np.zeros(first, dtype=np.int64)]
        rest = initial_capacity - first
        while rest > 0:
            self.segments.append(np.zeros(MAX_SEGMENT_SIZE, dtype=np.int64))
            rest -= MAX_SEGMENT_SIZE
        self.capacity = initial_capacity
        self.list_capacity = array_list_capacity(len(self.segments))

    def increase_capacity(self) -> None:
        """``increaseCapacity()``. O(first segment) below 2M longs, else O(1) amortized."""
        if self.capacity < MAX_SEGMENT_SIZE:
            self.capacity = grow_segmented(self.capacity)
            first = np.zeros(self.capacity, dtype=np.int64)
            first[: len(self.segments[0])] = self.segments[0]
            self.segments[0] = first
        else:
            self.segments.append(np.zeros(MAX_SEGMENT_SIZE, dtype=np.int64))
            self.capacity += MAX_SEGMENT_SIZE
            self.list_capacity = max(self.list_capacity, array_list_capacity(len(self.segments)))

    def shrink(self, new_capacity: int) -> None:
        """``shrink(newCapacity)``. O(segments dropped), O(first segment) when it copies."""
        if new_capacity >= self.capacity or new_capacity < self.initial_capacity:
            return
        reduce = self.capacity - new_capacity
        while reduce >= MAX_SEGMENT_SIZE and len(self.segments) > 1:
            self.segments.pop()
            self.capacity -= MAX_SEGMENT_SIZE
            reduce -= MAX_SEGMENT_SIZE
        if len(self.segments) == 1 and reduce > 0:
            self.capacity -= reduce
            self.segments[0] = self.segments[0][: self.capacity].copy()

    def read(self, offset: int) -> int:
        """``readLong(offset)``. O(1)."""
        segment, index = divmod(offset, MAX_SEGMENT_SIZE)
        return int(self.segments[segment][index])

    def write(self, offset: int, value: int) -> None:
        """``writeLong(offset, value)``. O(1)."""
        segment, index = divmod(offset, MAX_SEGMENT_SIZE)
        self.segments[segment][index] = value

    def bytes_capacity(self) -> int:
        """``bytesCapacity()`` = ``capacity * 8`` (v3: the allocated bytes, the same number
        here). O(1)."""
        return self.capacity * 8

    def flat(self, longs: int) -> np.ndarray:
        """The first ``longs`` longs as one array (a copy when segmented; no Java method).
        O(1) for one segment, else O(capacity)."""
        if len(self.segments) == 1:
            return self.segments[0][:longs]
        return np.concatenate(self.segments)[:longs]

    def load_triples(self, n1: np.ndarray, n2: np.ndarray, n3: np.ndarray) -> None:
        """Write tuples ``(n1[i], n2[i], n3[i])`` from offset 0 (bulk build; no Java method).
        O(n)."""
        _load_triples(self.segments, (n1, n2, n3))


class _ByteBufArray:
    """v1 storage: one buffer of ``capacity`` tuples, grown, never shrunk."""

    heap = False

    def __init__(self, initial_tuples: int) -> None:
        if initial_tuples <= 0:
            raise ValueError(f"initial capacity must be > 0, got {initial_tuples}")
        self.capacity_tuples = initial_tuples
        self.segments = [np.zeros(initial_tuples * ITEMS_COUNT, dtype=np.int64)]
        self.capacity = initial_tuples * ITEMS_COUNT
        self.initial_capacity = self.capacity

    def increase_capacity(self) -> None:
        """v1 ``increaseCapacity()``: ``buffer.capacity(...)`` grown in tuples. O(capacity)."""
        self.capacity_tuples = grow_v1(self.capacity_tuples)
        self.capacity = self.capacity_tuples * ITEMS_COUNT
        grown = np.zeros(self.capacity, dtype=np.int64)
        grown[: len(self.segments[0])] = self.segments[0]
        self.segments[0] = grown

    def read(self, offset: int) -> int:
        """``buffer.getLong``. O(1)."""
        return int(self.segments[0][offset])

    def write(self, offset: int, value: int) -> None:
        """``buffer.setLong``. O(1)."""
        self.segments[0][offset] = value

    def bytes_capacity(self) -> int:
        """The buffer's capacity in bytes (v1 has no ``bytesCapacity()``). O(1)."""
        return self.capacity * 8

    def flat(self, longs: int) -> np.ndarray:
        """The first ``longs`` longs (a view; no Java method). O(1)."""
        return self.segments[0][:longs]

    def load_triples(self, n1: np.ndarray, n2: np.ndarray, n3: np.ndarray) -> None:
        """Write tuples from offset 0 (bulk build; no Java method). O(n)."""
        _load_triples(self.segments, (n1, n2, n3))


# ------------------------------------------------------------------ the queue


class TripleLongPriorityQueue:
    """Min-heap of long triples. ``add``/``pop`` O(log n) (+ growth copies), peeks O(1)."""

    def __init__(
        self,
        initial_capacity: int = DEFAULT_INITIAL_CAPACITY,
        shrink_factor: float = DEFAULT_SHRINK_FACTOR,
        version: str = "v2",
    ) -> None:
        _check_version(version)
        if initial_capacity <= 0:
            raise ValueError(f"initialCapacity must be > 0, got {initial_capacity}")
        if not np.float32(shrink_factor) > 0:
            raise ValueError(f"shrinkFactor must be > 0, got {shrink_factor}")
        self.version = version
        self.initial_capacity = initial_capacity
        self.shrink_factor = float(shrink_factor)
        self.tuples_count = 0
        if version == "v1":
            self.array: SegmentedLongArray | _ByteBufArray = _ByteBufArray(initial_capacity)
        else:
            self.array = SegmentedLongArray(initial_capacity * ITEMS_COUNT, heap=version == "v3")
        self.shrink_threshold = int(np.float32(initial_capacity) * np.float32(shrink_factor))

    # ---------------------------------------------------------------- element access

    def _get(self, i: int) -> Triple:
        off = i * ITEMS_COUNT
        segs = self.array.segments
        if len(segs) == 1:
            a, b, c = segs[0][off : off + 3].tolist()
            return a, b, c
        read = self.array.read
        return read(off), read(off + 1), read(off + 2)

    def _set(self, i: int, t: Triple) -> None:
        off = i * ITEMS_COUNT
        segs = self.array.segments
        if len(segs) == 1:
            segs[0][off : off + 3] = t
            return
        write = self.array.write
        write(off, t[0])
        write(off + 1, t[1])
        write(off + 2, t[2])

    # ---------------------------------------------------------------- operations

    def add(self, n1: int, n2: int, n3: int) -> None:
        """``add(n1, n2, n3)``: grow once if needed, append, sift up. O(log n), plus the copy
        of a growth."""
        count = self.tuples_count
        if self.version == "v1":
            if count == self.array.capacity_tuples:  # type: ignore[union-attr]  # version v1 always has an array (None only in v2)
                self.array.increase_capacity()
        elif count * ITEMS_COUNT + 2 >= self.array.capacity:
            self.array.increase_capacity()
            if count * ITEMS_COUNT + 2 >= self.array.capacity:
                raise IndexError(f"writeLong({count * 3 + 2}) beyond capacity (Java fails)")
        item = (n1, n2, n3)
        i = count
        while i > 0:  # hole-based siftUp: same comparisons as the swap-based original
            parent = (i - 1) // 2
            above = self._get(parent)
            if item >= above:
                break
            self._set(i, above)
            i = parent
        self._set(i, item)
        self.tuples_count = count + 1

    def _require_items(self) -> None:
        if self.tuples_count == 0:
            raise ValueError("priority queue is empty (Java: IllegalArgumentException)")

    def peek(self) -> Triple:
        """``(peekN1(), peekN2(), peekN3())``. O(1)."""
        self._require_items()
        return self._get(0)

    def peek_n1(self) -> int:
        """``peekN1()``. O(1)."""
        return self.peek()[0]

    def peek_n2(self) -> int:
        """``peekN2()``. O(1)."""
        return self.peek()[1]

    def peek_n3(self) -> int:
        """``peekN3()``. O(1)."""
        return self.peek()[2]

    def pop(self) -> Triple:
        """``pop``: move the last tuple to the root, sift down, maybe shrink. Returns the root.
        O(log n), plus the copy of a shrink."""
        self._require_items()
        top = self._get(0)
        n = self.tuples_count - 1
        self.tuples_count = n
        if n > 0:
            self._sift_down(self._get(n), n)
        self._shrink_capacity()
        return top

    def _sift_down(self, item: Triple, n: int) -> None:
        i = 0
        half = n // 2
        while i < half:
            left, right = 2 * i + 1, 2 * i + 2
            child, smaller = i, item
            left_item = self._get(left)
            if smaller > left_item:
                child, smaller = left, left_item
            if right < n:
                right_item = self._get(right)
                if smaller > right_item:
                    child, smaller = right, right_item
            if child == i:
                break
            self._set(i, smaller)
            i = child
        self._set(i, item)

    def clear(self) -> None:
        """``clear``: v1 keeps its buffer; v2/v3 reset the count and run the shrink check. O(1),
        plus the copy of a shrink."""
        self.tuples_count = 0
        self._shrink_capacity()

    def _shrink_capacity(self) -> None:
        array = self.array
        if self.version == "v1":
            return
        if self.tuples_count <= self.shrink_threshold and array.capacity > array.initial_capacity:
            size_to_shrink = int(
                np.float32(array.capacity)
                * np.float32(self.shrink_factor)
                * np.float32(RESERVATION_FACTOR)
            )
            if size_to_shrink == 0:
                return
            if array.capacity - size_to_shrink <= array.initial_capacity:
                new_capacity = array.initial_capacity
            else:
                new_capacity = array.capacity - size_to_shrink
            array.shrink(new_capacity)  # type: ignore[union-attr]  # version v1 always has an array (None only in v2)
            factor = float(np.float32(self.shrink_factor))
            self.shrink_threshold = int(array.capacity / ITEMS_COUNT * factor)

    def size(self) -> int:
        """``size()``. O(1)."""
        return self.tuples_count

    def __len__(self) -> int:
        return self.tuples_count

    def is_empty(self) -> bool:
        """``isEmpty()``. O(1)."""
        return self.tuples_count == 0

    @property
    def capacity_longs(self) -> int:
        """``array.getCapacity()``: the capacity in longs. O(1)."""
        return self.array.capacity

    def bytes_capacity(self) -> int:
        """``bytesCapacity()``: the backing memory in bytes (v1 has no such method in Java:
        this is its buffer's capacity). O(1)."""
        return self.array.bytes_capacity()

    def to_array(self) -> np.ndarray:
        """The heap array, ``(size, 3)`` int64, in Java's layout (no Java method). O(n)."""
        return self.array.flat(self.tuples_count * ITEMS_COUNT).reshape(-1, ITEMS_COUNT).copy()

    # ---------------------------------------------------------------- bulk path

    @classmethod
    def build(
        cls,
        n1: np.ndarray,
        n2: np.ndarray,
        n3: np.ndarray,
        *,
        presorted: bool = False,
        initial_capacity: int = DEFAULT_INITIAL_CAPACITY,
        shrink_factor: float = DEFAULT_SHRINK_FACTOR,
        version: str = "v2",
    ) -> TripleLongPriorityQueue:
        """The queue after ``add`` of every triple: same size, capacity and pop order for any
        input order, and the very array per-tuple adds of the sorted triples leave.

        ``np.lexsort`` unless the input is sorted (checked in O(n) unless ``presorted``);
        O(n log n), O(n) for sorted input, no Python loop.
        """
        a = np.asarray(n1, dtype=np.int64)
        b = np.asarray(n2, dtype=np.int64)
        c = np.asarray(n3, dtype=np.int64)
        if not (len(a) == len(b) == len(c)):
            raise ValueError("n1, n2 and n3 must have the same length")
        queue = cls(initial_capacity, shrink_factor, version)
        n = len(a)
        capacity = capacity_after_adds(n, initial_capacity, version)
        while queue.array.capacity < capacity:  # O(growth steps): the same segments as adds
            queue.array.increase_capacity()
        if n:
            if not (presorted or is_sorted(a, b, c)):
                a, b, c = sort_triples(a, b, c)
            queue.array.load_triples(a, b, c)
        queue.tuples_count = n
        return queue

    # ---------------------------------------------------------------- JVM sizes

    def jvm_direct_bytes(self) -> int:
        """Off-heap bytes of the ByteBuf versions (v1, v2): the buffers' capacities. Netty's
        pooled size classes are not modelled. 0 for v3. O(1)."""
        return 0 if self.version == "v3" else self.bytes_capacity()

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """Heap bytes: the queue object and its array object (+ ``ArrayList`` and one ByteBuf
        object per segment for v2, + ``long[][]`` and the ``long[]`` segments for v3).
        O(segments)."""
        return jvm_triple_queue_bytes(
            self.version,
            [len(s) for s in self.array.segments],
            getattr(self.array, "list_capacity", 1),
            layout,
        )


def jvm_triple_queue_bytes(
    version: str,
    segments: list[int],
    list_capacity: int | None = None,
    layout: JvmLayout = COMPRESSED,
) -> int:
    """Heap bytes of a queue whose segments hold ``segments`` longs each (see
    :meth:`TripleLongPriorityQueue.jvm_bytes`). ``list_capacity`` defaults to the ArrayList
    length reached by appending the segments. O(segments)."""
    _check_version(version)
    bytebuf = layout.instance(BYTEBUF_FIELDS)
    if version == "v1":
        return layout.instance(QUEUE_V1_FIELDS) + bytebuf
    queue = layout.instance(QUEUE_FIELDS)
    if version == "v2":
        length = list_capacity or array_list_capacity(len(segments))
        return (
            queue
            + layout.instance(SEGMENTED_FIELDS)
            + layout.instance("LII")  # ArrayList: elementData, size, modCount
            + layout.array(length, "L")
            + bytebuf * len(segments)
        )
    outer = 1 << (len(segments) - 1).bit_length()  # amortized doubling (rule not retrieved)
    return (
        queue
        + layout.instance(SEGMENTED_V3_FIELDS)
        + layout.array(outer, "L")
        + sum(layout.array(s, "J") for s in segments)
    )
