"""A naive RoaringBitmap (1.6.10) filled by ``add``, one value at a time, for the layout model
of ``trackerlab.sizing.jvm_roaring``.

It keeps a set of low 16 bits per high key and replays what Java's ``add`` does to the arrays
that decide the heap size: ``ArrayContainer`` growth (``increaseCapacity``), conversion to a
``BitmapContainer`` when a 4097th value arrives, ``RoaringArray.extendArray`` for a new key,
and the key order (``Roaring64Bitmap``'s ART sees keys in insertion order). Then it states
what ``runOptimize()`` and ``trim()`` would leave, container by container.
"""

from __future__ import annotations

import itertools

from trackerlab.sizing.jvm_roaring import Container

#: ``ArrayContainer.DEFAULT_INIT_SIZE`` and ``DEFAULT_MAX_SIZE``.
ARRAY_INIT_SIZE, ARRAY_MAX_SIZE = 4, 4096
#: ``RoaringArray.INITIAL_CAPACITY``.
KEYS_INIT_SIZE = 4


def increase_capacity(length: int) -> int:
    """``ArrayContainer.increaseCapacity()``: x2 below 64, x1.5 below 1024, x1.25 after; at
    most 4096, and 4096 when within 1/16 of it."""
    new = length * 2 if length < 64 else length * 3 // 2 if length < 1024 else length * 5 // 4
    new = min(new, ARRAY_MAX_SIZE)
    return ARRAY_MAX_SIZE if new > ARRAY_MAX_SIZE - ARRAY_MAX_SIZE // 16 else new


class NaiveRoaringBitmap:
    """``add`` O(1) (a set insert); ``containers`` O(values)."""

    def __init__(self) -> None:
        self.values: list[int] = []  # every value added, in order
        self.lows: dict[int, set[int]] = {}  # key -> low 16 bits present
        self.capacity: dict[int, int] = {}  # key -> content.length (array) or -1 (bitmap)
        self.keys_in_order: list[int] = []
        self.key_capacity = KEYS_INIT_SIZE  # keys.length of the RoaringArray

    def add(self, v: int) -> None:
        """``add(x)``."""
        self.values.append(v)
        key, low = v >> 16, v & 0xFFFF
        present = self.lows.setdefault(key, set())
        if low in present:
            return
        card = len(present)  # before this add
        present.add(low)
        if key not in self.capacity:  # extendArray(1), then a new ArrayContainer
            size = len(self.keys_in_order)
            if size + 1 > self.key_capacity:
                self.key_capacity = (
                    2 * (size + 1) if self.key_capacity < 1024 else 5 * (size + 1) // 4
                )
            self.keys_in_order.append(key)
            self.capacity[key] = ARRAY_INIT_SIZE
        elif self.capacity[key] > 0:
            if card >= ARRAY_MAX_SIZE:
                self.capacity[key] = -1  # toBitmapContainer()
            elif card >= self.capacity[key]:
                self.capacity[key] = increase_capacity(self.capacity[key])

    def containers(self, run_optimize: bool, trim: bool) -> list[Container]:
        """The containers in key-insertion order, after ``runOptimize()`` (a run container
        wherever it is strictly smaller: array ``2 * card``, bitmap 8192 bytes vs run
        ``2 + 4 * runs``) and ``trim()`` (array content cut to the cardinality)."""
        out = []
        for key in self.keys_in_order:
            lows = sorted(self.lows[key])
            card = len(lows)
            runs = 1 + sum(1 for a, b in itertools.pairwise(lows) if b != a + 1)
            cap = self.capacity[key]
            size = 2 * card if cap > 0 else 8192
            if run_optimize and size > 2 + 4 * runs:
                out.append(Container("run", card, runs, runs))
            elif cap < 0:
                out.append(Container("bitmap", card))
            else:
                out.append(Container("array", card, 0, card if trim else cap))
        return out

    def keys_length(self, trim: bool) -> int:
        """``keys.length`` of the RoaringArray (``trim()`` cuts it to the key count)."""
        return len(self.keys_in_order) if trim else self.key_capacity
