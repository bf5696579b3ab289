"""Pulsar's ``LongBitmap`` leaf: ``ConcurrentRoaringBitmap``, a 32-bit Roaring bitmap plus a
``StampedLock``, in each of its shapes.

Follows ``pulsar-common/src/main/java/org/apache/pulsar/common/util/collections/
ConcurrentRoaringBitmap.java`` and ``LongBitmaps.java`` (``create()`` returns a new
``ConcurrentRoaringBitmap``); stored versions compared in the research notes of this round:

- ``extends-roaring``: ``class ConcurrentRoaringBitmap extends RoaringBitmap`` + ``StampedLock``
  (apache/pulsar @9d09de11 and an earlier draft): no trim policy;
- ``wraps-mutable``: ``implements LongBitmap`` over ``buffer.MutableRoaringBitmap`` (#26117, read
  at 006d9f64): ``removesSinceTrim`` and ``maybeTrim()`` (trim after 10,000 removals or when
  empty);
- ``wraps-roaring``: the same over an on-heap ``RoaringBitmap`` (#26500, master 2026).

Values are unsigned 32-bit (``validateRange``: 0..2^32-1; out of range raises ValueError as
Java's ``IllegalArgumentException``). The live bitmap is never run-optimized (``serialize()``
run-optimizes a clone), so containers are arrays and bitmaps only. Python holds the values in a
``pyroaring.BitMap`` and the JVM state (container kinds, capacities, key capacity, trim counter)
in :class:`~trackerlab.sizing.jvm_long_bitmap.LeafLayout`, which ``trackerlab jvm-check`` holds
to real objects byte for byte.
"""

from __future__ import annotations

import array

import numpy as np
from pyroaring import BitMap

from trackerlab.sizing import jvm_long_bitmap as jl
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

MAX_UINT32 = (1 << 32) - 1
SHAPES = jl.LEAF_SHAPES
FILE = "pulsar-common/src/main/java/org/apache/pulsar/common/util/collections/"


def _check(value: int) -> int:
    """``validateRange``: a LongBitmap holds 0..2^32-1."""
    if not 0 <= value <= MAX_UINT32:
        raise ValueError(f"LongBitmap values must be in 0..{MAX_UINT32}, got {value}")
    return value


class ConcurrentRoaringBitmap:
    """One leaf. Per-message calls are O(log n) (pyroaring) plus O(1) layout bookkeeping;
    :meth:`add_sorted` is the bulk path (one pyroaring call, O(chunks) bookkeeping)."""

    def __init__(self, shape: str = "wraps-roaring") -> None:
        self.bitmap = BitMap()
        self.layout = jl.LeafLayout(shape)

    @property
    def shape(self) -> str:
        """The leaf's shape (``LEAF_SHAPES``). O(1)."""
        return self.layout.shape

    # ------------------------------------------------------------------ per message

    def checked_add(self, value: int) -> bool:
        """``checkedAdd(long)``: True if the value was new. O(log n)."""
        value = _check(value)
        if value in self.bitmap:
            return False
        self.bitmap.add(value)
        self.layout.add(value >> 16)
        return True

    def add(self, value: int) -> None:
        """``add(long)``. O(log n)."""
        self.checked_add(value)

    def remove(self, value: int) -> bool:
        """``remove(long)`` (``checkedRemove`` then the trim rule); True if it was present. O(log n)."""
        value = _check(value)
        if value not in self.bitmap:
            return False
        self.bitmap.discard(value)
        self.layout.remove(value >> 16)
        return True

    def contains(self, value: int) -> bool:
        """``contains(long)``: False outside 0..2^32-1. O(log n)."""
        return 0 <= value <= MAX_UINT32 and value in self.bitmap

    def cardinality(self) -> int:
        """``cardinality()``. O(1)."""
        return len(self.bitmap)

    def is_empty(self) -> bool:
        """``isEmpty()``. O(1)."""
        return not self.bitmap

    def drain_to(self, limit: int) -> list[int]:
        """``drainTo(limit, action)``: the ``limit`` smallest values, removed and returned in
        ascending order; the trim counter grows by their number (clamped at 10,000). O(k)."""
        if limit <= 0 or not self.bitmap:
            return []
        taken = self.bitmap[:limit] if limit < len(self.bitmap) else BitMap(self.bitmap)
        values = list(taken)
        self.bitmap.difference_update(taken)
        self.layout.drain(len(values))
        return values

    def serialized_size(self) -> int:
        """``serializedSize()``: RoaringBitmap's portable format of the live bitmap. O(containers)."""
        return self.layout.serialized_size()

    # ------------------------------------------------------------------ bulk

    def add_sorted(self, values: np.ndarray) -> int:
        """``checkedAdd`` of many values (any order, repeats allowed): one pyroaring update and
        one layout step per 2^16 chunk. Returns how many were new. O(n log n) numpy."""
        v = np.unique(np.asarray(values, dtype=np.int64))
        if v.size and (v[0] < 0 or v[-1] > MAX_UINT32):
            raise ValueError(f"LongBitmap values must be in 0..{MAX_UINT32}")
        before = len(self.bitmap)
        arr = array.array("I")
        arr.frombytes(v.astype(np.uint32).tobytes())
        new = BitMap(arr) - self.bitmap
        if not new:
            return 0
        self.bitmap |= new
        fresh = np.frombuffer(new.to_array(), dtype=np.uint32) >> np.uint32(16)
        keys, counts = np.unique(fresh, return_counts=True)
        for key, count in zip(keys.tolist(), counts.tolist(), strict=True):
            self.layout.add(key, count)
        return len(self.bitmap) - before

    # ------------------------------------------------------------------ sizes

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """Deep heap bytes of the Java object in its current state. O(containers)."""
        return self.layout.jvm_bytes(layout)

    def __len__(self) -> int:
        return len(self.bitmap)

    def __iter__(self):
        return iter(self.bitmap)
