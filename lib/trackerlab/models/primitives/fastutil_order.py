"""Iteration order of a fastutil ``Long2ObjectOpenHashMap`` (8.x ``OpenHashMap.drv``).

Pulsar's time-bucket trackers iterate the inner ``ledgerId -> bitmap`` map in its hash
order (#23600, #23611 variant a), so which ledger's entries come first depends on
fastutil's table. :class:`FastutilLongKeyTable` replays it exactly:

- ``pos = HashCommon.mix(k) & mask``, linear probing; key 0 is the "null key", kept apart;
- the table starts at ``n = arraySize(16, 0.75) = 32`` and after an insert
  ``if (size++ >= maxFill) rehash(arraySize(size + 1, f))``;
- ``rehash`` re-inserts the old table's keys walking slots from ``n - 1`` down to 0, so
  colliding keys can change order;
- removal shifts the following cluster back (``shiftKeys``) and, when
  ``n > minN && size < maxFill / 4 && n > 16``, rehashes to ``n / 2``;
- the iterator returns the null key first, then slots from ``n - 1`` down to 0.

``mix(x) = h ^ (h >>> 32) ^ (h >>> 16)`` with ``h = x * 0x9E3779B97F4A7C15`` (64-bit).
tests/fixtures/fastutil_order_vectors.txt holds orders printed by the real fastutil 8.5.11
jar for inserts, growth and removals; the model reproduces them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from trackerlab.sizing.jvm_collections import (
    FASTUTIL_DEFAULT_EXPECTED,
    FASTUTIL_LOAD_FACTOR,
    fastutil_array_size,
    fastutil_max_fill,
)

_PHI = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1


def fastutil_mix(key: int) -> int:
    """``HashCommon.mix(long)`` as an unsigned 64-bit value."""
    h = (key * _PHI) & _MASK64
    h ^= h >> 32
    return h ^ (h >> 16)


class FastutilLongKeyTable:
    """The key table of a fastutil ``Long2*OpenHashMap``: insert, remove, iterate. O(1)
    expected per operation, O(n) per rehash."""

    def __init__(self, expected: int = FASTUTIL_DEFAULT_EXPECTED, f: float = FASTUTIL_LOAD_FACTOR):
        self.f = f
        self.n = self.min_n = fastutil_array_size(expected, f)
        self.keys = [0] * self.n
        self.max_fill = fastutil_max_fill(self.n, f)
        self.size = 0
        self.contains_null = False

    def _slot(self, key: int) -> int:
        return fastutil_mix(key) & (self.n - 1)

    def insert(self, key: int) -> bool:
        """``put`` of a key; False if it was already present. O(1) expected, O(n) if it rehashes."""
        if key == 0:
            if self.contains_null:
                return False
            self.contains_null = True
        else:
            mask, keys = self.n - 1, self.keys
            pos = self._slot(key)
            while keys[pos] != 0:
                if keys[pos] == key:
                    return False
                pos = (pos + 1) & mask
            keys[pos] = key
        self.size += 1
        if self.size - 1 >= self.max_fill:
            self._rehash(fastutil_array_size(self.size + 1, self.f))
        return True

    def remove(self, key: int) -> bool:
        """``remove`` of a key (backward shift, then the shrink rule); False if absent. O(1)
        expected, O(n) if it rehashes."""
        if key == 0:
            if not self.contains_null:
                return False
            self.contains_null = False
        else:
            mask, keys = self.n - 1, self.keys
            pos = self._slot(key)
            while keys[pos] != key:
                if keys[pos] == 0:
                    return False
                pos = (pos + 1) & mask
            self._shift_keys(pos)
        self.size -= 1
        if self.n > self.min_n and self.size < self.max_fill // 4 and self.n > 16:
            self._rehash(self.n // 2)
        return True

    def _shift_keys(self, pos: int) -> None:
        keys, mask = self.keys, self.n - 1
        while True:
            last = pos
            pos = (pos + 1) & mask
            while True:
                curr = keys[pos]
                if curr == 0:
                    keys[last] = 0
                    return
                slot = fastutil_mix(curr) & mask
                if (last >= slot or slot > pos) if last <= pos else (last >= slot and slot > pos):
                    break
                pos = (pos + 1) & mask
            keys[last] = curr

    def _rehash(self, new_n: int) -> None:
        mask = new_n - 1
        table = [0] * new_n
        for key in reversed(self.keys):  # old slots from n - 1 down to 0
            if key == 0:
                continue
            pos = fastutil_mix(key) & mask
            while table[pos] != 0:
                pos = (pos + 1) & mask
            table[pos] = key
        self.keys, self.n = table, new_n
        self.max_fill = fastutil_max_fill(new_n, self.f)

    def __iter__(self) -> Iterator[int]:
        if self.contains_null:
            yield 0
        for key in reversed(self.keys):
            if key != 0:
                yield key

    def __len__(self) -> int:
        return self.size


def iteration_order(keys_in_insertion_order: Iterable[int]) -> list[int]:
    """Keys in the order fastutil's iterator returns them after inserting them in this order
    into a new default map (growth replayed). O(k) expected."""
    table = FastutilLongKeyTable()
    for key in keys_in_insertion_order:
        table.insert(key)
    return list(table)
