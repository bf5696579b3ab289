"""A naive ``LongBitmap``: a Python set with ``ConcurrentRoaringBitmap``'s rules written out.

Values are 0..2^32-1; ``checkedAdd`` says whether a value was new; ``remove`` whether it was
there; ``drainTo(n)`` removes and returns the ``n`` smallest values in order. The wrapping
shapes count removals since the last trim: ``remove`` adds one, ``drainTo`` adds its count
but never past 10,000; a trim happens when the count reaches 10,000 or the set is empty, and
resets it. ``serializedSize`` is the portable format: 8 B, then per 2^16 chunk 8 B plus 2 B per
value (at most 4,096 values) or 8,192 B.
"""

from __future__ import annotations

TRIM_AFTER = 10_000


class NaiveLongBitmap:
    def __init__(self, trims: bool = True) -> None:
        self.values: set[int] = set()
        self.trims = trims
        self.removes_since_trim = 0
        self.trim_count = 0

    def checked_add(self, value: int) -> bool:
        if not 0 <= value < 1 << 32:
            raise ValueError(value)
        if value in self.values:
            return False
        self.values.add(value)
        return True

    def _after_removal(self) -> None:
        if self.trims and (self.removes_since_trim >= TRIM_AFTER or not self.values):
            self.trim_count += 1
            self.removes_since_trim = 0

    def remove(self, value: int) -> bool:
        if value not in self.values:
            return False
        self.values.discard(value)
        if self.trims:
            self.removes_since_trim += 1
        self._after_removal()
        return True

    def drain_to(self, limit: int) -> list[int]:
        taken = sorted(self.values)[: max(limit, 0)]
        for v in taken:
            self.values.discard(v)
        if taken:
            if self.trims:
                self.removes_since_trim = min(self.removes_since_trim + len(taken), TRIM_AFTER)
            self._after_removal()
        return taken

    def serialized_size(self) -> int:
        chunks: dict[int, int] = {}
        for v in self.values:
            chunks[v >> 16] = chunks.get(v >> 16, 0) + 1
        return 8 + sum(8 + (2 * c if c <= 4096 else 8192) for c in chunks.values())
