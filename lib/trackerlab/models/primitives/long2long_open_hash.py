"""pulsar-common's own ``Long2LongOpenHashMap``: primitive ``long -> long`` open addressing.

Follows ``org.apache.pulsar.common.util.collections.Long2LongOpenHashMap``
(``pulsar-common/src/main/java/org/apache/pulsar/common/util/collections/Long2LongOpenHashMap.java``,
added by the #26024 draft and the closed #26028; not fastutil's class of the same name):

- three parallel arrays ``long[] keys``, ``long[] values``, ``boolean[] used`` (17 B per slot);
- capacity a power of two, at least ``MIN_CAPACITY = 16``; the default constructor is
  ``this(16)``, i.e. ``tableSizeFor(max(16, (int)(16 / 0.75f) + 1)) = 32`` slots;
- ``threshold = (int)(capacity * 0.75f)``; ``put`` of a new key first rehashes to
  ``2 * capacity`` when ``size >= threshold`` (reinserting in old slot order), then inserts;
- Fibonacci hashing ``h = key * 0x9E3779B97F4A7C15L; (int)(h ^ (h >>> 32))`` (the static
  ``Long2ObjectOpenHashMap.hash`` of pulsar-common), masked by ``capacity - 1``;
- linear probing; removal by backward shift (no tombstones); ``clear`` only resets ``used``:
  **the arrays never shrink**;
- ``get`` returns 0 for a missing key (``getOrDefault``/``containsKey`` tell them apart);
  ``forEach`` and ``removeIf`` walk the slots in index order.

The Python arrays mirror the Java ones (``array('q')`` keys and values, ``bytearray`` used),
so the JVM size (:meth:`Long2LongOpenHashMap.jvm_bytes`) and the iteration order follow from
the model's actual state. :meth:`Long2LongOpenHashMap.from_items` builds the same state as
a sequence of ``put`` calls, with numpy instead of a per-key loop.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from trackerlab.models.primitives.op_cost import OpCost
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

LOAD_FACTOR = 0.75
MIN_CAPACITY = 16
DEFAULT_EXPECTED_ITEMS = 16
FIBONACCI = 0x9E3779B97F4A7C15
#: Bytes of one slot across the three arrays: ``long`` key, ``long`` value, ``boolean`` used.
SLOT_BYTES = 17
_MASK64 = (1 << 64) - 1


def table_size_for(cap: int) -> int:
    """``tableSizeFor``: the next power of two ``>= cap``, at least ``MIN_CAPACITY``."""
    return max(MIN_CAPACITY, 1 << (cap - 1).bit_length()) if cap > 1 else MIN_CAPACITY


def initial_capacity(expected_items: int = DEFAULT_EXPECTED_ITEMS) -> int:
    """Capacity of ``new Long2LongOpenHashMap(expectedItems)``: 32 for the default 16."""
    return table_size_for(max(MIN_CAPACITY, int(expected_items / LOAD_FACTOR) + 1))


def threshold(capacity: int) -> int:
    """``(int)(capacity * 0.75f)``."""
    return int(capacity * LOAD_FACTOR)


def capacity_after_inserts(n_keys: int, expected_items: int = DEFAULT_EXPECTED_ITEMS) -> int:
    """Capacity after ``n_keys`` distinct puts into a new map (the put rule in closed form).

    Inserting the k-th key (k = 1..n) with ``size = k - 1`` doubles first if
    ``k - 1 >= threshold``, so the final capacity is the smallest one reachable by doubling
    with ``n - 1 < threshold``. O(log n).
    """
    cap = initial_capacity(expected_items)
    while n_keys - 1 >= threshold(cap):
        cap *= 2
    return cap


def fibonacci_hash(key: int) -> int:
    """pulsar-common ``Long2ObjectOpenHashMap.hash(long)`` as an unsigned 64-bit value.

    Only the low bits are used (``& mask``), so the Java ``(int)`` cast does not matter.
    """
    h = (key * FIBONACCI) & _MASK64
    return h ^ (h >> 32)


def fibonacci_hash_array(keys: np.ndarray) -> np.ndarray:
    """:func:`fibonacci_hash` of an int64 array (wrapping uint64 arithmetic)."""
    h = keys.astype(np.int64).view(np.uint64) * np.uint64(FIBONACCI)
    return h ^ (h >> np.uint64(32))


def table_arrays_bytes(capacity: int, layout: JvmLayout = COMPRESSED) -> int:
    """``long[capacity]`` x 2 + ``boolean[capacity]``: what a rehash allocates."""
    return 2 * layout.array(capacity, "J") + layout.array(capacity, "Z")


def jvm_bytes_for_capacity(capacity: int, layout: JvmLayout = COMPRESSED) -> int:
    """Deep JVM size of a map with ``capacity`` slots.

    Object: ``keys, values, used`` (refs) + ``size, capacity, threshold`` (ints) = 40 B
    (compressed oops); arrays ``long[capacity]`` x 2 and ``boolean[capacity]``. The default
    map (32 slots) is 40 + 2 * 272 + 48 = 632 B; 2048 slots = 34,904 B (seed 002's
    "primitive map", 1,000 entries, is 34.2 KiB with the outer TreeMap).
    """
    return layout.instance("LLLIII") + table_arrays_bytes(capacity, layout)


class Long2LongOpenHashMap:
    """pulsar-common ``Long2LongOpenHashMap``; every operation is O(1) expected.

    ``cost`` (an :class:`OpCost`, optional) counts hash lookups, slots examined and the
    arrays a rehash allocates.
    """

    __slots__ = ("_capacity", "_keys", "_last", "_size", "_threshold", "_used", "_values", "cost")

    def __init__(self, expected_items: int = DEFAULT_EXPECTED_ITEMS) -> None:
        self._alloc(initial_capacity(expected_items))
        self.cost: OpCost | None = None
        self._last: int | None = None  # key of the last lookup (its lines are cached)

    def _alloc(self, capacity: int) -> None:
        self._capacity = capacity
        self._keys = array("q", bytes(8 * capacity))
        self._values = array("q", bytes(8 * capacity))
        self._used = bytearray(capacity)
        self._threshold = threshold(capacity)
        self._size = 0

    # ------------------------------------------------------------------ state
    @property
    def capacity(self) -> int:
        """The ``capacity`` field: slots in each of the three arrays (never shrinks). O(1)."""
        return self._capacity

    def __len__(self) -> int:
        return self._size

    def is_empty(self) -> bool:
        """``isEmpty()``. O(1)."""
        return self._size == 0

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """Deep JVM size of this map in its current state (capacity retained). O(1)."""
        return jvm_bytes_for_capacity(self._capacity, layout)

    # ------------------------------------------------------------------ probing
    def _count_lookup(self, key: int, probes: int, arrays: int) -> None:
        assert self.cost is not None  # called only while a counter is attached
        self.cost.lookup(probes, arrays, SLOT_BYTES, repeat=key == self._last)
        self._last = key

    def _index_of(self, key: int, reads_value: bool = True) -> int:
        mask = self._capacity - 1
        idx = fibonacci_hash(key) & mask
        used, keys = self._used, self._keys
        probes = 1
        while used[idx]:
            if keys[idx] == key:
                break
            idx = (idx + 1) & mask
            probes += 1
        else:
            idx = -1
        if self.cost is not None:
            self._count_lookup(key, probes, 3 if idx >= 0 and reads_value else 2)
        return idx

    def _insert_new(self, key: int, value: int) -> None:
        mask = self._capacity - 1
        idx = fibonacci_hash(key) & mask
        used = self._used
        probes = 1
        while used[idx]:
            idx = (idx + 1) & mask
            probes += 1
        self._keys[idx] = key
        self._values[idx] = value
        used[idx] = 1
        self._size += 1
        if self.cost is not None:
            self._count_lookup(key, probes, 3)

    def _remove_at(self, idx: int) -> None:
        """Backward-shift deletion (``removeAt``)."""
        mask = self._capacity - 1
        keys, values, used = self._keys, self._values, self._used
        self._size -= 1
        nxt = (idx + 1) & mask
        scanned = 1
        while used[nxt]:
            natural = fibonacci_hash(keys[nxt]) & mask
            if (nxt > idx and (natural <= idx or natural > nxt)) or (
                nxt < idx and (natural <= idx and natural > nxt)
            ):
                keys[idx] = keys[nxt]
                values[idx] = values[nxt]
                idx = nxt
            nxt = (nxt + 1) & mask
            scanned += 1
        used[idx] = 0
        if self.cost is not None:
            self.cost.stream(scanned * SLOT_BYTES)

    def _rehash(self, new_capacity: int) -> None:
        old_keys, old_values, old_used = self._keys, self._values, self._used
        old_capacity = self._capacity
        self._alloc(new_capacity)
        if self.cost is not None:
            self.cost.allocate(3, table_arrays_bytes(new_capacity))
            self.cost.stream(old_capacity * SLOT_BYTES)
        for i in range(old_capacity):
            if old_used[i]:
                self._insert_new(old_keys[i], old_values[i])

    # ------------------------------------------------------------------ Long2LongMap API
    def get(self, key: int) -> int:
        """``get``: the value, or 0 when ``key`` is absent. O(1) expected."""
        idx = self._index_of(key)
        return self._values[idx] if idx >= 0 else 0

    def get_or_default(self, key: int, default: int) -> int:
        """``getOrDefault``. O(1) expected."""
        idx = self._index_of(key)
        return self._values[idx] if idx >= 0 else default

    def contains_key(self, key: int) -> bool:
        """``containsKey``. O(1) expected."""
        return self._index_of(key, reads_value=False) >= 0

    def put(self, key: int, value: int) -> int:
        """``put``: insert or replace; the previous value or 0. O(1) expected, O(capacity) when
        it rehashes."""
        idx = self._index_of(key)
        if idx >= 0:
            old = self._values[idx]
            self._values[idx] = value
            return old
        if self._size >= self._threshold:
            self._rehash(self._capacity * 2)
        self._insert_new(key, value)
        return 0

    def remove(self, key: int) -> int:
        """``remove``: its value, or 0 when absent (backward shift). O(1) expected."""
        idx = self._index_of(key)
        if idx < 0:
            return 0
        old = self._values[idx]
        self._remove_at(idx)
        return old

    def clear(self) -> None:
        """``clear()``: reset ``used`` only (``Arrays.fill(used, false)``); the capacity is kept.
        O(capacity)."""
        if self._size > 0:
            if self.cost is not None:
                self.cost.stream(self._capacity)  # Arrays.fill(used, false)
            self._used[:] = bytes(self._capacity)
            self._size = 0

    def items(self) -> Iterator[tuple[int, int]]:
        """``(key, value)`` in slot order, as ``forEach`` visits them. O(capacity)."""
        if self.cost is not None:
            self.cost.stream(self._capacity * SLOT_BYTES)
        keys, values = self._keys, self._values
        for i in self._used_slots():
            yield keys[i], values[i]

    def _used_slots(self) -> list[int]:
        return np.flatnonzero(np.frombuffer(self._used, dtype=np.uint8)).tolist()

    def for_each(self, consumer: Callable[[int, int], None]) -> None:
        """``forEach``: slots in index order. O(capacity)."""
        for key, value in self.items():
            consumer(key, value)

    def remove_if(self, predicate: Callable[[int, int], bool]) -> int:
        """``removeIf``: walk slots in order; a removal re-tests the slot it shifted into.

        An entry shifted from the wrapped-around start of the table may be tested twice, as
        in Java; a deterministic predicate cannot tell. Returns the number removed.
        O(capacity) expected.
        """
        removed = 0
        i = 0
        used, keys, values = self._used, self._keys, self._values
        scanned = 0
        while i < self._capacity:
            scanned += 1
            if not used[i]:
                i += 1
                continue
            if predicate(keys[i], values[i]):
                self._remove_at(i)
                removed += 1
            else:
                i += 1
        if self.cost is not None:
            self.cost.stream(scanned * SLOT_BYTES)
        return removed

    def copy(self) -> Long2LongOpenHashMap:
        """An independent map with the same arrays (no cost counter; no Java method).
        O(capacity)."""
        clone = Long2LongOpenHashMap.__new__(Long2LongOpenHashMap)
        clone._capacity, clone._threshold, clone._size = self._capacity, self._threshold, self._size
        clone._keys, clone._values = array("q", self._keys), array("q", self._values)
        clone._used = bytearray(self._used)
        clone.cost, clone._last = None, None
        return clone

    def slot_of(self, key: int) -> int:
        """The slot ``key`` occupies, or -1 (for tests of the probing rules; no Java method).
        O(1) expected."""
        cost, self.cost = self.cost, None
        try:
            return self._index_of(key)
        finally:
            self.cost = cost

    # ------------------------------------------------------------------ bulk path
    @classmethod
    def from_items(
        cls, keys: Sequence[int] | np.ndarray, values: Sequence[int] | np.ndarray
    ) -> Long2LongOpenHashMap:
        """The map ``put(keys[i], values[i])`` for i in order would build, without a loop.

        Same capacity, same slot of every key (so the same ``forEach`` order) and the last
        value of a repeated key. See :func:`place_in_tables`. O(n log n).
        """
        keys = np.asarray(keys, dtype=np.int64)
        values = np.asarray(values, dtype=np.int64)
        return build_many(np.zeros(len(keys), dtype=np.int64), keys, values, 1)[0]


# ---------------------------------------------------------------------- bulk placement


def _dedupe(groups: np.ndarray, keys: np.ndarray, values: np.ndarray):
    """First-occurrence order of distinct (group, key) pairs, with the last value of each."""
    n = len(keys)
    if n == 0:
        return groups, keys, values
    order = np.lexsort((np.arange(n), keys, groups))
    g, k = groups[order], keys[order]
    starts = np.ones(n, dtype=bool)
    starts[1:] = (g[1:] != g[:-1]) | (k[1:] != k[:-1])
    first = order[starts]
    ends = np.ones(n, dtype=bool)
    ends[:-1] = starts[1:]
    last = order[ends]
    keep = np.argsort(first, kind="stable")
    return groups[first[keep]], keys[first[keep]], values[last[keep]]


def place_in_tables(
    offsets: np.ndarray, masks: np.ndarray, table_of: np.ndarray, homes: np.ndarray
) -> np.ndarray:
    """Slots that inserting keys in array order into empty linear-probing tables gives them.

    Key ``i`` goes to table ``table_of[i]`` (slots ``offsets[t] .. offsets[t] + masks[t]``)
    starting at local slot ``homes[i]``. Sequential insertion puts every key in the first
    free slot of its probe sequence; that is the unique stable assignment when slots prefer
    earlier keys, which deferred acceptance finds in parallel rounds: each pending key
    proposes to its current slot, a slot keeps its earliest proposer (evicting a later
    holder), the others move one slot on. Returns global slots; O(n log n) per round, the
    number of rounds is about the longest probe sequence.
    """
    n = len(homes)
    total = int(offsets[-1] + masks[-1] + 1) if len(offsets) else 0
    owner = np.full(total, -1, dtype=np.int64)
    base = offsets[table_of]
    mask = masks[table_of]
    pos = base + homes
    pending = np.arange(n, dtype=np.int64)
    while pending.size:
        cand = pending[np.argsort(pos[pending] * n + pending)]  # by slot, then key order
        slots = pos[cand]
        first = np.ones(cand.size, dtype=bool)
        first[1:] = slots[1:] != slots[:-1]
        best, best_slot = cand[first], slots[first]
        holder = owner[best_slot]
        wins = (holder < 0) | (best < holder)
        owner[best_slot[wins]] = best[wins]
        evicted = holder[wins & (holder >= 0)]
        movers = np.concatenate((cand[~first], best[~wins], evicted))
        pos[movers] = base[movers] + ((pos[movers] - base[movers] + 1) & mask[movers])
        pending = movers
    slot_of = np.empty(n, dtype=np.int64)
    placed = np.flatnonzero(owner >= 0)
    slot_of[owner[placed]] = placed
    return slot_of


def build_many(
    groups: np.ndarray, keys: np.ndarray, values: np.ndarray, n_groups: int
) -> list[Long2LongOpenHashMap]:
    """One default map per group, each holding the puts of its group in array order.

    Replays the growth history phase by phase for all maps at once: in phase p a map of
    capacity ``32 * 2**p`` holds its first ``threshold`` keys; entering the phase rehashes
    the previous table in slot order, then inserts the next keys in order. Only the maps that
    grow take part in a phase. O(n log n).
    """
    groups, keys, values = _dedupe(
        np.asarray(groups, np.int64), np.asarray(keys, np.int64), np.asarray(values, np.int64)
    )
    counts = np.bincount(groups, minlength=n_groups)[:n_groups]
    by_group = np.argsort(groups, kind="stable")
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank = np.empty(len(keys), dtype=np.int64)  # insertion rank of each key in its group
    rank[by_group] = np.arange(len(keys)) - np.repeat(starts, counts)
    hashes = fibonacci_hash_array(keys)
    final_caps = np.array([capacity_after_inserts(int(c)) for c in counts], dtype=np.int64)
    cap = np.full(n_groups, initial_capacity(), dtype=np.int64)
    active = counts > 0
    slot = np.full(len(keys), -1, dtype=np.int64)  # local slot in the current table
    while active.any():
        thr = (cap * 3) // 4  # (int)(cap * 0.75f), exact for powers of two
        members = np.flatnonzero(active[groups] & (rank < thr[groups]))
        old = members[slot[members] >= 0]
        new = members[slot[members] < 0]
        # per group: rehashed keys first, in old slot order; then new keys in insertion order
        seq = np.concatenate(
            (old[np.lexsort((slot[old], groups[old]))], new[np.lexsort((rank[new], groups[new]))])
        )
        seq = seq[np.argsort(groups[seq], kind="stable")]
        offsets = np.concatenate(([0], np.cumsum(cap)[:-1]))
        masks = cap - 1
        g = groups[seq]
        homes = (hashes[seq] & masks[g].astype(np.uint64)).astype(np.int64)
        slot[seq] = place_in_tables(offsets, masks, g, homes) - offsets[g]
        active = cap < final_caps
        cap = np.where(active, cap * 2, cap)
    maps = []
    for gi, start in enumerate(starts.tolist()):
        m = Long2LongOpenHashMap()
        c = int(cap[gi])
        mine = by_group[start : start + int(counts[gi])]
        if mine.size:
            k_arr = np.zeros(c, dtype=np.int64)
            v_arr = np.zeros(c, dtype=np.int64)
            u_arr = np.zeros(c, dtype=np.uint8)
            k_arr[slot[mine]] = keys[mine]
            v_arr[slot[mine]] = values[mine]
            u_arr[slot[mine]] = 1
            m._capacity, m._threshold, m._size = c, threshold(c), int(mine.size)
            m._keys = array("q", k_arr.tobytes())
            m._values = array("q", v_arr.tobytes())
            m._used = bytearray(u_arr.tobytes())
        maps.append(m)
    return maps
