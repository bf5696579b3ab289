"""``java.util.BitSet`` (OpenJDK 17/25 ``java/util/BitSet.java``) with its ``long[]`` words.

Rules kept, because they decide the JVM size:

- ``new BitSet()`` allocates ``long[1]``; ``wordsInUse`` starts at 0;
- ``set(i)`` needs ``i / 64 + 1`` words; ``ensureCapacity`` grows the array to
  ``max(2 * words.length, wordsRequired)``;
- ``clear(i)``, ``clear(from, to)`` and ``clear()`` zero words and lower ``wordsInUse``
  but **never shrink the array**;
- ``nextSetBit(from)`` scans words from ``from / 64`` up to ``wordsInUse``.

The words live in an ``array('Q')`` of the same length as the Java array, so
:meth:`JavaBitSet.jvm_bytes` is the size of the model's actual state.
"""

from __future__ import annotations

from array import array

import numpy as np

from trackerlab.models.primitives.op_cost import OpCost
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.jvm_collections import bit_set

_WORD = (1 << 64) - 1


def grown_length(length: int, word_index: int) -> int:
    """``ensureCapacity(word_index + 1)``: the array length after setting a bit there."""
    required = word_index + 1
    return max(2 * length, required) if required > length else length


class JavaBitSet:
    """A ``java.util.BitSet``; ``set``/``clear``/``get`` O(1), ``next_set_bit`` O(words)."""

    __slots__ = ("cost", "words", "words_in_use")

    def __init__(self) -> None:
        self.words = array("Q", [0])
        self.words_in_use = 0
        self.cost: OpCost | None = None

    @property
    def length_words(self) -> int:
        """``words.length`` (what the heap holds, used or not). O(1)."""
        return len(self.words)

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """JVM size: BitSet object (24 B) + ``long[words.length]``. O(1)."""
        return bit_set(len(self.words), layout)

    def set(self, i: int) -> None:
        """``set(bitIndex)``. O(1); O(words) when ``ensureCapacity`` grows the array."""
        w = i >> 6
        if w >= self.words_in_use:
            if w >= len(self.words):
                new_length = grown_length(len(self.words), w)
                if self.cost is not None:
                    self.cost.allocate(1, COMPRESSED.array(new_length, "J"))
                self.words.extend([0] * (new_length - len(self.words)))
            self.words_in_use = w + 1
        self.words[w] |= 1 << (i & 63)
        if self.cost is not None:
            self.cost.visit(1)

    def get(self, i: int) -> bool:
        """``get(bitIndex)``. O(1)."""
        w = i >> 6
        return w < self.words_in_use and bool(self.words[w] >> (i & 63) & 1)

    def clear(self, i: int) -> None:
        """``clear(bitIndex)``, then ``recalculateWordsInUse``. O(1); O(words) when the
        highest words empty."""
        w = i >> 6
        if w >= self.words_in_use:
            return
        self.words[w] &= ~(1 << (i & 63)) & _WORD
        if self.cost is not None:
            self.cost.visit(1)
        self._recalculate_words_in_use()

    def clear_range(self, start: int, end: int) -> None:
        """``clear(fromIndex, toIndex)``: bits ``start .. end - 1``. O(words spanned)."""
        if start >= end:
            return
        first = start >> 6
        if first >= self.words_in_use:
            return
        last = (end - 1) >> 6
        if last >= self.words_in_use:
            end = self.length()
            last = self.words_in_use - 1
        first_mask = (_WORD << (start & 63)) & _WORD
        last_mask = _WORD >> (-end & 63)
        words = self.words
        if first == last:
            words[first] &= ~(first_mask & last_mask) & _WORD
        else:
            words[first] &= ~first_mask & _WORD
            for w in range(first + 1, last):
                words[w] = 0
            words[last] &= ~last_mask & _WORD
        if self.cost is not None:
            self.cost.stream(8 * (last - first + 1))
        self._recalculate_words_in_use()

    def clear_all(self) -> None:
        """``clear()``: zero the words in use; the array keeps its length. O(words in use)."""
        if self.cost is not None:
            self.cost.stream(8 * self.words_in_use)
        for w in range(self.words_in_use):
            self.words[w] = 0
        self.words_in_use = 0

    def length(self) -> int:
        """Index of the highest set bit + 1 (``length()``). O(1)."""
        if self.words_in_use == 0:
            return 0
        return 64 * (self.words_in_use - 1) + self.words[self.words_in_use - 1].bit_length()

    def next_set_bit(self, start: int) -> int:
        """``nextSetBit(fromIndex)``: the first set bit ``>= start``, or -1. O(words scanned)."""
        u = start >> 6
        if u >= self.words_in_use:
            return -1
        words = self.words
        word = words[u] & ((_WORD << (start & 63)) & _WORD)
        scanned = 1
        while word == 0:
            u += 1
            if u == self.words_in_use:
                if self.cost is not None:
                    self.cost.stream(8 * scanned)
                return -1
            word = words[u]
            scanned += 1
        if self.cost is not None:
            self.cost.stream(8 * scanned)
        return 64 * u + ((word & -word).bit_length() - 1)

    def _recalculate_words_in_use(self) -> None:
        i = self.words_in_use - 1
        while i >= 0 and self.words[i] == 0:
            i -= 1
        self.words_in_use = i + 1

    def copy(self) -> JavaBitSet:
        """``clone()``: an independent copy of the words. O(words)."""
        clone = JavaBitSet()
        clone.words, clone.words_in_use = array("Q", self.words), self.words_in_use
        return clone

    def cardinality(self) -> int:
        """``cardinality()``. O(words in use)."""
        return sum(w.bit_count() for w in self.words[: self.words_in_use])

    @classmethod
    def from_sets(
        cls, bit_indices: np.ndarray, keep: np.ndarray | list[int] | None = None
    ) -> JavaBitSet:
        """The BitSet ``set(i)`` for every index in order would give, then bits not in
        ``keep`` cleared (default: keep all). Growth replayed with numpy; O(n).
        """
        bs = cls()
        idx = np.asarray(bit_indices, dtype=np.int64)
        if idx.size == 0:
            return bs
        required = np.maximum.accumulate(idx >> 6) + 1
        length = 1
        while True:  # one step per growth event: O(log n) steps
            k = int(np.searchsorted(required, length, side="right"))
            if k == required.size:
                break
            length = max(2 * length, int(required[k]))
        words = np.zeros(length, dtype=np.uint64)
        kept = idx if keep is None else np.asarray(keep, dtype=np.int64)
        np.bitwise_or.at(
            words, kept >> 6, np.left_shift(np.uint64(1), (kept & 63).astype(np.uint64))
        )
        bs.words = array("Q", words.tobytes())
        bs.words_in_use = int(required[-1])
        bs._recalculate_words_in_use()
        return bs
