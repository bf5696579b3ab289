"""``ConcurrentLongLongPairHashMap``: open addressing, linear probing, ``(long, long) -> (long, long)``.

Follows ``apache/pulsar`` ``pulsar-common/src/main/java/org/apache/pulsar/common/util/collections/
ConcurrentLongLongPairHashMap.java`` (the version with auto-shrink, ported from BookKeeper
#3061; the BookKeeper class is the same). Used by the client ``NegativeAcksTracker`` from
#23582 (3.0.8 / 3.3.3 / 4.0.1) and by the broker's ``Consumer.pendingAcks`` before 4.0.

Rules kept exactly (spec ``pulsar-structures.md`` §2):

- Builder defaults ``expectedItems = 256``, ``concurrencyLevel = 16``, ``mapFillFactor = 0.66f``,
  ``mapIdleFactor = 0.15f``, ``expandFactor = shrinkFactor = 2``, ``autoShrink = false`` and the
  constructor's ``checkArgument`` checks (a ``ValueError`` here).
- ``numSections = concurrencyLevel`` (not rounded to a power of two: the section mask is
  ``sections - 1``, so with 3 sections only sections 0 and 2 are ever used, as in Java);
  ``perSectionCapacity = (int)((expectedItems / numSections) / fill)``, each section's capacity
  ``alignToPowerOfTwo`` of it. Every factor is a Java ``float``: products such as
  ``(int)(capacity * mapFillFactor)`` are computed in float32 (512 buckets → threshold 337).
- One ``long[4 * capacity]`` per section, buckets ``[key1, key2, value1, value2]``, filled with
  ``EmptyKey = -1``; removed buckets hold ``DeletedKey = -2`` tombstones (``cleanBucket`` turns a
  bucket followed by an empty one, and the tombstones before it, back into empty buckets).
- Hash: MurmurHash-style mix with 64-bit wraparound; section ``(int)(h >>> 32) & (sections-1)``;
  start bucket ``(int)h & (capacity-1)``; linear probing, 4 longs per step, wrapping.
- ``put`` rehashes to ``alignToPowerOfTwo((int)(capacity * expandFactor))`` when
  ``usedBuckets > resizeThresholdUp`` (live + tombstone buckets); ``remove`` shrinks when
  ``autoShrink && size < resizeThresholdBelow`` and the smaller table would stay below its
  fill threshold; ``clear`` goes back to the initial capacity only with ``autoShrink``.

The Python model keeps each section's table in one numpy ``int64`` array (so Python-real bytes
are the table bytes plus small objects). The per-operation API mirrors the Java methods;
:meth:`ConcurrentLongLongPairHashMap.from_arrays` builds a map from millions of entries with
numpy only: linear probing without removals fills the same set of buckets whatever the insert
order, so capacities, ``usedBuckets`` and the set of used buckets equal those of per-entry
``put`` calls; keys that collide are laid out in one canonical order (see
:func:`place_linear_probing`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

EMPTY_KEY = -1
DELETED_KEY = -2
VALUE_NOT_FOUND = -1

DEFAULT_EXPECTED_ITEMS = 256
DEFAULT_CONCURRENCY_LEVEL = 16
DEFAULT_FILL_FACTOR = 0.66
DEFAULT_IDLE_FACTOR = 0.15
DEFAULT_EXPAND_FACTOR = 2.0
DEFAULT_SHRINK_FACTOR = 2.0

HASH_MIXER = 0xC6A4A7935BD1E995
HASH_SHIFT = 47
_MASK64 = (1 << 64) - 1
#: ``new long[4 * capacity]`` overflows a Java int beyond 2^28 buckets per section.
MAX_SECTION_CAPACITY = 1 << 28

#: Section fields: StampedLock's ``head, tail, readLockView, writeLockView,
#: readWriteLockView`` (refs), ``state`` (long), ``readerOverflow`` (int) (OpenJDK 17,
#: ``javap -p``), then Section's ``table`` (ref), ``capacity, initCapacity, size, usedBuckets,
#: resizeThresholdUp, resizeThresholdBelow`` (ints), four float factors and ``autoShrink``.
SECTION_FIELDS = "LLLLLJI" + "L" + "IIIIII" + "FFFF" + "Z"


# ------------------------------------------------------------------ arithmetic helpers


def align_to_power_of_two(n: int) -> int:
    """``alignToPowerOfTwo``: ``2^(32 - nlz(n - 1))``, the next power of two >= ``n`` (>= 1)."""
    if n < 1:
        raise ValueError(f"alignToPowerOfTwo needs n >= 1, got {n}")
    return 1 << (n - 1).bit_length()


def float_times(value: int | float, factor: float) -> int:
    """Java ``(int)(value * factor)`` with ``value`` an int and ``factor`` a ``float``.

    The int is converted to float32 and the product rounded to float32, then truncated, as
    the JVM does (``512 * 0.66f`` = 337.92 → 337).
    """
    return int(np.float32(value) * np.float32(factor))


def float_divide(value: int | float, factor: float | np.floating) -> int:
    """Java ``(int)(value / factor)`` with an int ``value`` and a ``float`` ``factor``."""
    return int(np.float32(value) / np.float32(factor))


def pair_hash(key1: int, key2: int) -> int:
    """``ConcurrentLongLongPairHashMap.hash(key1, key2)`` as an unsigned 64-bit int. O(1)."""
    h = (key1 * HASH_MIXER) & _MASK64
    h ^= h >> HASH_SHIFT
    h = (h * HASH_MIXER) & _MASK64
    h = (h + 31 + key2 * HASH_MIXER) & _MASK64
    h ^= h >> HASH_SHIFT
    return (h * HASH_MIXER) & _MASK64


def pair_hash_array(key1: np.ndarray, key2: np.ndarray) -> np.ndarray:
    """:func:`pair_hash` of int64 arrays, as uint64 (numpy wraps modulo 2^64). O(n)."""
    m = np.uint64(HASH_MIXER)
    shift = np.uint64(HASH_SHIFT)
    k1 = np.ascontiguousarray(key1, dtype=np.int64).view(np.uint64)
    k2 = np.ascontiguousarray(key2, dtype=np.int64).view(np.uint64)
    h = k1 * m
    h ^= h >> shift
    h *= m
    h += np.uint64(31) + k2 * m
    h ^= h >> shift
    h *= m
    return h


def section_of(h: int | np.ndarray, sections: int) -> int | np.ndarray:
    """``(int)(h >>> 32) & (sections - 1)``."""
    if isinstance(h, np.ndarray):
        return ((h >> np.uint64(32)) & np.uint64(sections - 1)).astype(np.int64)
    return (h >> 32) & (sections - 1)


def grow_capacity(capacity: int, expand_factor: float) -> int:
    """``alignToPowerOfTwo((int)(capacity * expandFactor))``."""
    return align_to_power_of_two(float_times(capacity, expand_factor))


def capacity_after_inserts(
    n: int,
    initial_capacity: int,
    fill_factor: float = DEFAULT_FILL_FACTOR,
    expand_factor: float = DEFAULT_EXPAND_FACTOR,
) -> int:
    """Section capacity after ``n`` puts of distinct keys into an empty section. O(log n).

    ``put`` rehashes at most once, after the insert that makes ``usedBuckets`` exceed
    ``resizeThresholdUp``; the next rehash can come at the earliest one insert later. So the
    k-th rehash happens at insert ``max(previous + 1, threshold(capacity) + 1)``.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    capacity = initial_capacity
    last = 0
    while True:
        trigger = max(last + 1, float_times(capacity, fill_factor) + 1)
        if trigger > n:
            return capacity
        capacity = grow_capacity(capacity, expand_factor)
        last = trigger


def place_linear_probing(homes: np.ndarray, capacity: int) -> np.ndarray:
    """Buckets that linear probing gives keys with start buckets ``homes``, inserted in the
    canonical order. O(n log n + capacity), numpy only.

    Without removals the set of used buckets does not depend on the insert order. Rotate the
    table so that it starts at a bucket no run of keys wraps into (the minimum of the prefix
    sums of ``count - 1``), then insert keys by ascending rotated start bucket (ties: input
    order): key k lands at ``p_k = max(home_k, p_{k-1} + 1) = k + max_{j<=k}(home_j - j)``.
    Per-entry puts in that order give exactly these buckets; any other order gives the same
    set of buckets.
    """
    order, slots = probe_order(homes, capacity)
    buckets = np.empty(len(order), dtype=np.int64)
    buckets[order] = slots
    return buckets


def probe_order(homes: np.ndarray, capacity: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`place_linear_probing` as ``(order, slots)``: key ``order[k]`` goes to bucket
    ``slots[k]``, slots ascending from the rotation point (sequential writes)."""
    n = len(homes)
    if capacity < 1 or capacity & (capacity - 1):
        raise ValueError(f"capacity must be a power of two, got {capacity}")
    if n >= capacity:
        raise ValueError(f"{n} keys cannot fit {capacity} buckets with one left empty")
    if n == 0:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    homes = np.asarray(homes, dtype=np.int64)
    prefix = np.bincount(homes, minlength=capacity)
    prefix -= 1
    np.cumsum(prefix, out=prefix)
    # prefix[t] = sum(count - 1) over buckets < t + 1; the start minimizes it over t = 0..cap-1
    start = 0 if prefix[:-1].min(initial=0) >= 0 else int(np.argmin(prefix[:-1])) + 1
    index_bits = max(1, int(n - 1).bit_length())
    combined = ((homes - start) & (capacity - 1)).astype(np.uint64)
    combined <<= np.uint64(index_bits)
    combined |= np.arange(n, dtype=np.uint64)
    combined.sort()
    order = (combined & np.uint64((1 << index_bits) - 1)).astype(np.int64)
    positions = (combined >> np.uint64(index_bits)).astype(np.int64)
    k = np.arange(n, dtype=np.int64)
    positions -= k
    np.maximum.accumulate(positions, out=positions)
    positions += k
    positions += start
    positions &= capacity - 1
    return order, positions


def first_and_last_occurrence(
    key1: np.ndarray, key2: np.ndarray, hashes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For each distinct ``(key1, key2)``: the index of its first and of its last occurrence.

    Sorts by the 64-bit hash (equal keys have equal hashes); only runs of equal hashes are
    resolved by comparing the keys. Returned by ascending first occurrence. O(n log n).
    """
    n = len(hashes)
    if n == 0:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    order = np.argsort(hashes)  # ties between equal keys are resolved below
    hs = hashes[order]
    tied = np.zeros(n, dtype=bool)
    eq = hs[1:] == hs[:-1]
    tied[1:] |= eq
    tied[:-1] |= eq
    if not tied.any():
        everything = np.arange(n, dtype=np.int64)
        return everything, everything
    single = order[~tied]
    first, last = [single], [single]
    sub = order[tied]
    sub_order = np.lexsort((sub, key2[sub], key1[sub]))
    s = sub[sub_order]
    new_key = np.ones(len(s), dtype=bool)
    new_key[1:] = (key1[s][1:] != key1[s][:-1]) | (key2[s][1:] != key2[s][:-1])
    starts = np.flatnonzero(new_key)
    ends = np.append(starts[1:], len(s)) - 1
    first.append(s[starts])
    last.append(s[ends])
    last_of = np.full(n, -1, dtype=np.int64)
    last_of[np.concatenate(first)] = np.concatenate(last)
    first_idx = np.flatnonzero(last_of >= 0)
    return first_idx, last_of[first_idx]


_FULL_TABLE = (
    "section table has no empty bucket (Java would probe forever); an expandFactor below 2 "
    "can leave a 1-bucket table full"
)


def _check_non_negative(name: str, value: int) -> None:
    if value < 0:
        raise ValueError(f"{name} must be >= 0 (Keys and values must be >= 0), got {value}")


# ------------------------------------------------------------------ section


class Section:
    """One ``Section``: a ``long[4 * capacity]`` table and its counters (not thread-safe here:
    the StampedLock only matters for its 48 bytes of fields)."""

    __slots__ = (
        "auto_shrink",
        "capacity",
        "expand_factor",
        "fill_factor",
        "idle_factor",
        "init_capacity",
        "resize_threshold_below",
        "resize_threshold_up",
        "shrink_factor",
        "size",
        "table",
        "used_buckets",
    )

    def __init__(
        self,
        capacity: int,
        fill_factor: float,
        idle_factor: float,
        auto_shrink: bool,
        expand_factor: float,
        shrink_factor: float,
    ) -> None:
        self.capacity = align_to_power_of_two(capacity)
        self.init_capacity = self.capacity
        self.fill_factor = fill_factor
        self.idle_factor = idle_factor
        self.auto_shrink = auto_shrink
        self.expand_factor = expand_factor
        self.shrink_factor = shrink_factor
        self._reset_table(self.capacity)

    def _reset_table(self, capacity: int) -> None:
        if capacity > MAX_SECTION_CAPACITY:
            raise OverflowError(f"new long[4 * {capacity}] exceeds a Java array")
        self.table = np.full(4 * capacity, EMPTY_KEY, dtype=np.int64)
        self.capacity = capacity
        self.size = 0
        self.used_buckets = 0
        self._set_thresholds()

    def _set_thresholds(self) -> None:
        self.resize_threshold_up = float_times(self.capacity, self.fill_factor)
        self.resize_threshold_below = float_times(self.capacity, self.idle_factor)

    def _start(self, h: int) -> int:
        return (h & (self.capacity - 1)) << 2

    def get(self, key1: int, key2: int, h: int) -> tuple[int, int] | None:
        """Probe from the start bucket until the key or an empty bucket. O(probe length)."""
        table = self.table
        mask = len(table) - 1
        bucket = start = self._start(h)
        while True:
            k1, k2, v1, v2 = table[bucket : bucket + 4].tolist()
            if k1 == key1 and k2 == key2:
                return v1, v2
            if k1 == EMPTY_KEY:
                return None
            bucket = (bucket + 4) & mask
            if bucket == start:
                raise RuntimeError(_FULL_TABLE)

    def put(
        self, key1: int, key2: int, value1: int, value2: int, h: int, only_if_absent: bool
    ) -> bool:
        """``Section.put``: overwrite, or insert at the first tombstone seen before an empty
        bucket; rehash when ``usedBuckets > resizeThresholdUp``. O(probe length), O(capacity)
        when it rehashes."""
        table = self.table
        mask = len(table) - 1
        bucket = start = self._start(h)
        first_deleted = -1
        try:
            while True:
                k1 = int(table[bucket])
                k2 = int(table[bucket + 1])
                if k1 == key1 and k2 == key2:
                    if only_if_absent:
                        return False
                    table[bucket + 2] = value1
                    table[bucket + 3] = value2
                    return True
                if k1 == EMPTY_KEY:
                    if first_deleted != -1:
                        bucket = first_deleted
                    else:
                        self.used_buckets += 1
                    table[bucket : bucket + 4] = (key1, key2, value1, value2)
                    self.size += 1
                    return True
                if k1 == DELETED_KEY and first_deleted == -1:
                    first_deleted = bucket
                bucket = (bucket + 4) & mask
                if bucket == start:
                    raise RuntimeError(_FULL_TABLE)
        finally:
            if self.used_buckets > self.resize_threshold_up:
                self.rehash(grow_capacity(self.capacity, self.expand_factor))

    def remove(self, key1: int, key2: int, value1: int, value2: int, h: int) -> bool:
        """``Section.remove``: only if the values match unless ``value1 == -1``; then maybe
        shrink (autoShrink). O(probe length), O(capacity) when it rehashes."""
        table = self.table
        mask = len(table) - 1
        bucket = start = self._start(h)
        try:
            while True:
                k1, k2, v1, v2 = table[bucket : bucket + 4].tolist()
                if k1 == key1 and k2 == key2:
                    if value1 == VALUE_NOT_FOUND or (value1 == v1 and value2 == v2):
                        self.size -= 1
                        self._clean_bucket(bucket)
                        return True
                    return False
                if k1 == EMPTY_KEY:
                    return False
                bucket = (bucket + 4) & mask
                if bucket == start:
                    raise RuntimeError(_FULL_TABLE)
        finally:
            if self.auto_shrink and self.size < self.resize_threshold_below:
                new_capacity = max(
                    align_to_power_of_two(max(1, float_divide(self.capacity, self.shrink_factor))),
                    self.init_capacity,
                )
                new_threshold_up = float_times(new_capacity, self.fill_factor)
                if new_capacity < self.capacity and new_threshold_up > self.size:
                    self.rehash(new_capacity)

    def _clean_bucket(self, bucket: int) -> None:
        table = self.table
        mask = len(table) - 1
        if table[(bucket + 4) & mask] == EMPTY_KEY:
            table[bucket : bucket + 4] = EMPTY_KEY
            self.used_buckets -= 1
            bucket = (bucket - 4) & mask
            while table[bucket] == DELETED_KEY:
                table[bucket : bucket + 4] = EMPTY_KEY
                self.used_buckets -= 1
                bucket = (bucket - 4) & mask
        else:
            table[bucket : bucket + 2] = DELETED_KEY
            table[bucket + 2 : bucket + 4] = VALUE_NOT_FOUND

    def clear(self) -> None:
        """``Section.clear``: back to ``initCapacity`` with autoShrink, else refill with -1.
        O(capacity)."""
        if self.auto_shrink and self.capacity > self.init_capacity:
            self._reset_table(self.init_capacity)
        else:
            self.table.fill(EMPTY_KEY)
            self.size = 0
            self.used_buckets = 0

    def live(self) -> np.ndarray:
        """The live buckets' rows ``(k1, k2, v1, v2)``, in table order (``Section.forEach``).
        O(capacity)."""
        rows = self.table.reshape(-1, 4)
        return rows[rows[:, 0] >= 0]

    def rehash(self, new_capacity: int) -> None:
        """``Section.rehash``: reinsert the live entries, in table order, into a new table.
        O(capacity)."""
        old = self.live()
        self._reset_table(new_capacity)
        table = self.table
        mask = len(table) - 1
        for k1, k2, v1, v2 in old.tolist():
            bucket = self._start(pair_hash(k1, k2))
            while table[bucket] != EMPTY_KEY:
                bucket = (bucket + 4) & mask
            table[bucket : bucket + 4] = (k1, k2, v1, v2)
        self.size = self.used_buckets = len(old)

    def fill_from(self, columns: tuple[np.ndarray, ...], hashes: np.ndarray, capacity: int) -> None:
        """Bulk: a table of ``capacity`` holding the entries ``(k1, k2, v1, v2)`` given as four
        columns (distinct keys), in the canonical layout. One column copy at a time; no Java
        method. O(n log n + capacity)."""
        self._reset_table(capacity)
        homes = (hashes & np.uint64(capacity - 1)).astype(np.int64)
        order, slots = probe_order(homes, capacity)
        del homes
        buckets = self.table.reshape(-1, 4)
        for j, column in enumerate(columns):
            buckets[slots, j] = column[order]
        self.size = self.used_buckets = len(hashes)


# ------------------------------------------------------------------ map


class ConcurrentLongLongPairHashMap:
    """``(key1, key2) -> (value1, value2)`` with ``key1 >= 0`` and ``value1 >= 0``.

    Keyword arguments are the Java builder's (``newBuilder().expectedItems(..)...build()``).
    Operations are O(1) expected (O(probe length)); a rehash is O(capacity).
    """

    def __init__(
        self,
        expected_items: int = DEFAULT_EXPECTED_ITEMS,
        concurrency_level: int = DEFAULT_CONCURRENCY_LEVEL,
        map_fill_factor: float = DEFAULT_FILL_FACTOR,
        map_idle_factor: float = DEFAULT_IDLE_FACTOR,
        auto_shrink: bool = False,
        expand_factor: float = DEFAULT_EXPAND_FACTOR,
        shrink_factor: float = DEFAULT_SHRINK_FACTOR,
    ) -> None:
        fill, idle = np.float32(map_fill_factor), np.float32(map_idle_factor)
        checks = [
            (expected_items > 0, f"expectedItems must be > 0, got {expected_items}"),
            (concurrency_level > 0, f"concurrencyLevel must be > 0, got {concurrency_level}"),
            (
                expected_items >= concurrency_level,
                f"expectedItems ({expected_items}) must be >= concurrencyLevel "
                f"({concurrency_level})",
            ),
            (0 < fill < 1, f"mapFillFactor must be in (0, 1), got {map_fill_factor}"),
            (0 < idle < 1, f"mapIdleFactor must be in (0, 1), got {map_idle_factor}"),
            (fill > idle, f"mapFillFactor ({map_fill_factor}) must be > mapIdleFactor"),
            (np.float32(expand_factor) > 1, f"expandFactor must be > 1, got {expand_factor}"),
            (np.float32(shrink_factor) > 1, f"shrinkFactor must be > 1, got {shrink_factor}"),
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        self.expected_items = int(expected_items)
        self.concurrency_level = int(concurrency_level)
        self.map_fill_factor = float(map_fill_factor)
        self.map_idle_factor = float(map_idle_factor)
        self.auto_shrink = bool(auto_shrink)
        self.expand_factor = float(expand_factor)
        self.shrink_factor = float(shrink_factor)
        per_section = float_divide(self.expected_items // self.concurrency_level, fill)
        self.sections = [
            Section(
                per_section,
                self.map_fill_factor,
                self.map_idle_factor,
                self.auto_shrink,
                self.expand_factor,
                self.shrink_factor,
            )
            for _ in range(self.concurrency_level)
        ]

    # ---------------------------------------------------------------- per-operation API

    def _section(self, h: int) -> Section:
        return self.sections[section_of(h, len(self.sections))]

    def get(self, key1: int, key2: int) -> tuple[int, int] | None:
        """``get``: the value pair, or None if absent. O(1) expected."""
        _check_non_negative("key1", key1)
        h = pair_hash(key1, key2)
        return self._section(h).get(key1, key2, h)

    def contains_key(self, key1: int, key2: int) -> bool:
        """``containsKey``. O(1) expected."""
        return self.get(key1, key2) is not None

    def put(self, key1: int, key2: int, value1: int, value2: int) -> bool:
        """``put``: insert or overwrite; always True. O(1) expected, O(capacity) when it
        rehashes."""
        _check_non_negative("key1", key1)
        _check_non_negative("value1", value1)
        h = pair_hash(key1, key2)
        return self._section(h).put(key1, key2, value1, value2, h, False)

    def put_if_absent(self, key1: int, key2: int, value1: int, value2: int) -> bool:
        """``putIfAbsent``: False (and no change) if the key is present. O(1) expected, O(capacity)
        when it rehashes."""
        _check_non_negative("key1", key1)
        _check_non_negative("value1", value1)
        h = pair_hash(key1, key2)
        return self._section(h).put(key1, key2, value1, value2, h, True)

    def remove(
        self, key1: int, key2: int, value1: int | None = None, value2: int | None = None
    ) -> bool:
        """``remove(k1, k2)``, or ``remove(k1, k2, v1, v2)`` only if the values match. O(1)
        expected, O(capacity) when it shrinks."""
        _check_non_negative("key1", key1)
        if value1 is None:
            value1, value2 = VALUE_NOT_FOUND, VALUE_NOT_FOUND
        else:
            _check_non_negative("value1", value1)
            if value2 is None:
                raise ValueError("remove with value1 needs value2 as well")
        h = pair_hash(key1, key2)
        return self._section(h).remove(key1, key2, value1, value2, h)

    def clear(self) -> None:
        """``clear()``. O(capacity)."""
        for section in self.sections:
            section.clear()

    def for_each(self, processor: Callable[[int, int, int, int], None]) -> None:
        """``forEach``: sections in order, buckets in table order (hash order, unordered).
        O(capacity)."""
        for key1, key2, value1, value2 in self.items():
            processor(key1, key2, value1, value2)

    def items(self) -> Iterator[tuple[int, int, int, int]]:
        """``(key1, key2, value1, value2)`` in ``forEach`` order. O(capacity)."""
        for section in self.sections:
            yield from (tuple(row) for row in section.live().tolist())

    def to_arrays(self) -> np.ndarray:
        """All live rows ``(k1, k2, v1, v2)`` as an ``(n, 4)`` int64 array, ``forEach`` order.
        O(capacity)."""
        parts = [section.live() for section in self.sections]
        return np.concatenate(parts) if parts else np.empty((0, 4), dtype=np.int64)

    def size(self) -> int:
        """``size()``. O(sections)."""
        return sum(s.size for s in self.sections)

    def __len__(self) -> int:
        return self.size()

    def is_empty(self) -> bool:
        """``isEmpty()``. O(sections)."""
        return all(s.size == 0 for s in self.sections)

    def capacity(self) -> int:
        """Total buckets over all sections (``capacity()``). O(sections)."""
        return sum(s.capacity for s in self.sections)

    def used_bucket_count(self) -> int:
        """Live plus tombstone buckets (``getUsedBucketCount``). O(sections)."""
        return sum(s.used_buckets for s in self.sections)

    # ---------------------------------------------------------------- bulk path

    @classmethod
    def from_arrays(
        cls,
        key1: np.ndarray,
        key2: np.ndarray,
        value1: np.ndarray,
        value2: np.ndarray,
        *,
        assume_unique: bool = False,
        **builder: object,
    ) -> ConcurrentLongLongPairHashMap:
        """A new map as after ``put(key1[i], key2[i], value1[i], value2[i])`` for every i.

        A repeated key keeps the value of its last put. Per section the capacity follows the
        growth rule (:func:`capacity_after_inserts`) and the table is filled by
        :func:`place_linear_probing`. ``assume_unique`` skips the duplicate search. O(n log n),
        no per-entry Python loop.
        """
        k1 = np.asarray(key1, dtype=np.int64)
        k2 = np.asarray(key2, dtype=np.int64)
        v1 = np.asarray(value1, dtype=np.int64)
        v2 = np.asarray(value2, dtype=np.int64)
        if not (len(k1) == len(k2) == len(v1) == len(v2)):
            raise ValueError("key1, key2, value1 and value2 must have the same length")
        if len(k1) and int(k1.min()) < 0:
            raise ValueError(f"key1 must be >= 0, got {int(k1.min())}")
        if len(v1) and int(v1.min()) < 0:
            raise ValueError(f"value1 must be >= 0, got {int(v1.min())}")
        result = cls(**builder)  # type: ignore[arg-type]  # builder is dict[str, object] of the map's constructor fields
        hashes = pair_hash_array(k1, k2)
        first, last = None, None
        if not assume_unique:
            first, last = first_and_last_occurrence(k1, k2, hashes)
        if first is None or len(first) == len(k1):  # no repeated key
            columns: tuple[np.ndarray, ...] = (k1, k2, v1, v2)
        else:
            columns = (k1[first], k2[first], v1[last], v2[last])
            hashes = hashes[first]
        sections = section_of(hashes, len(result.sections))
        for index, section in enumerate(result.sections):
            if len(result.sections) == 1:
                mine_columns, mine_hashes = columns, hashes
            else:
                mine = np.flatnonzero(sections == index)
                mine_columns, mine_hashes = tuple(c[mine] for c in columns), hashes[mine]
            capacity = capacity_after_inserts(
                len(mine_hashes), section.init_capacity, section.fill_factor, section.expand_factor
            )
            section.fill_from(mine_columns, mine_hashes, capacity)
        return result

    # ---------------------------------------------------------------- sizes

    def table_bytes(self) -> int:
        """Payload arrays only: 32 B per bucket (what PIP-393 calls the map's size). O(sections)."""
        return 32 * self.capacity()

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """Deep heap size: map object, ``Section[]``, each Section and its ``long[]``.

        Section = StampedLock + own fields = 96 B (compressed oops; 120 B without), measured
        with ``Instrumentation.getObjectSize`` on a field-exact subclass of StampedLock
        (OpenJDK 17). O(sections).
        """
        return jvm_pair_map_bytes([s.capacity for s in self.sections], layout)


def jvm_pair_map_bytes(section_capacities: list[int], layout: JvmLayout = COMPRESSED) -> int:
    """:meth:`ConcurrentLongLongPairHashMap.jvm_bytes` from the sections' capacities."""
    section = layout.instance(SECTION_FIELDS)
    return (
        layout.instance("L")
        + layout.array(len(section_capacities), "L")
        + sum(section + layout.array(4 * c, "J") for c in section_capacities)
    )
