"""Iteration order of a fastutil ``Long2ObjectOpenHashMap`` (8.x ``OpenHashMap.drv``).

Pulsar's time-bucket trackers iterate the inner ``ledgerId -> bitmap`` map in its hash
order (#23600, #23611 variant a), so which ledger's entries come first depends on
fastutil's table: ``pos = HashCommon.mix(k) & mask`` with linear probing; the iterator walks
positions from ``n - 1`` down to 0 (the null key 0, kept at ``n``, comes first).
``mix(x) = h ^ (h >>> 32) ^ (h >>> 16)`` with ``h = x * 0x9E3779B97F4A7C15`` (64-bit).
"""

from __future__ import annotations

from collections.abc import Iterable

from trackerlab.sizing.jvm_collections import fastutil_capacity

_PHI = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1


def fastutil_mix(key: int) -> int:
    """``HashCommon.mix(long)`` as an unsigned 64-bit value."""
    h = (key * _PHI) & _MASK64
    h ^= h >> 32
    return h ^ (h >> 16)


def iteration_order(
    keys_in_insertion_order: Iterable[int], n_slots: int | None = None
) -> list[int]:
    """Keys in the order fastutil's iterator returns them after inserting them in this order.

    ``n_slots`` is the table size (default: the size after these inserts into a new map).
    O(k) expected for k keys.
    """
    keys = list(keys_in_insertion_order)
    n = n_slots or fastutil_capacity(len(keys))
    mask = n - 1
    table: list[int | None] = [None] * n
    has_null = False
    for key in keys:
        if key == 0:
            has_null = True
            continue
        pos = fastutil_mix(key) & mask
        while table[pos] is not None:
            pos = (pos + 1) & mask
        table[pos] = key
    ordered = [0] if has_null else []
    ordered += [k for k in reversed(table) if k is not None]
    return ordered
