"""JVM layouts of the collections Pulsar's trackers are built from.

Each function returns the **deep** heap size in bytes of a collection *excluding* the keys
and values it holds, which the caller adds (``payload_bytes``) because they differ per use
(boxed ``Long`` keys in a ``TreeMap``, nested maps, bitmaps). Field lists are read from the
class sources named in each docstring; :mod:`trackerlab.jvmcheck.probe` checks them
against a real JVM (``trackerlab jvm-check``).

Growth rules that decide array capacities are modelled exactly:

- ``java.util.HashMap``: table allocated on the first ``put`` with 16 slots, doubled when
  ``size > 0.75 * capacity`` (OpenJDK 17 ``HashMap.resize``); never shrinks.
- fastutil open hash maps (8.x ``*OpenHashMap.drv``): ``n = arraySize(expected, f)`` =
  ``nextPowerOfTwo(ceil(expected / f))`` (at least 2); arrays have ``n + 1`` slots (the
  last one holds the null key); ``maxFill = min(ceil(n * f), n - 1)``; after an insert
  ``if (size++ >= maxFill) rehash(arraySize(size + 1, f))``; after a removal
  ``if (n > minN && size < maxFill / 4 && n > 16) rehash(n / 2)``.
- ``java.util.BitSet``: ``long[ceil(nbits / 64)]`` (64 bits by default); ``ensureCapacity``
  grows to ``max(2 * words.length, wordsRequired)``; never shrinks on ``clear``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

# --------------------------------------------------------------------------- java.util


def boxed_long(layout: JvmLayout = COMPRESSED) -> int:
    """``java.lang.Long``: header + 4 B gap + 8 B value = 24 B (compressed oops)."""
    return layout.boxed("J")


def tree_map(n_entries: int, payload_bytes: int = 0, layout: JvmLayout = COMPRESSED) -> int:
    """``java.util.TreeMap`` with ``n_entries`` entries (OpenJDK 17 ``TreeMap.java``).

    TreeMap: ``comparator, root, entrySet, navigableKeySet, descendingMap`` + AbstractMap's
    ``keySet, values`` (7 refs) + ``size, modCount`` (2 ints) = 48 B.
    ``TreeMap.Entry``: ``key, value, left, right, parent`` (5 refs) + ``color`` = 40 B.
    O(1).
    """
    return layout.instance("LLLLLLLII") + n_entries * layout.instance("LLLLLZ") + payload_bytes


def hash_map_capacity(n_entries: int) -> int:
    """Table length of a default ``java.util.HashMap`` after ``n_entries`` puts (0 if none).

    OpenJDK 17 ``HashMap.resize``: first put allocates 16 slots; the table doubles when
    ``++size > threshold`` with ``threshold = 0.75 * capacity``.
    """
    if n_entries <= 0:
        return 0
    capacity = 16
    while n_entries > capacity * 3 // 4:
        capacity *= 2
    return capacity


def hash_map(
    n_entries: int,
    payload_bytes: int = 0,
    capacity: int | None = None,
    layout: JvmLayout = COMPRESSED,
) -> int:
    """``java.util.HashMap``: object 48 B + ``Node[capacity]`` + 32 B per ``Node``.

    HashMap fields: ``table, entrySet`` + AbstractMap's ``keySet, values`` (4 refs),
    ``size, modCount, threshold`` (ints), ``loadFactor`` (float). ``Node``: ``hash`` (int),
    ``key, value, next`` (refs). Tree bins (8+ collisions in one slot) are not modelled.
    """
    cap = hash_map_capacity(n_entries) if capacity is None else capacity
    table = layout.array(cap, "L") if cap else 0
    return layout.instance("LLLLIIIF") + table + n_entries * layout.instance("ILLL") + payload_bytes


def int_int_pair(layout: JvmLayout = COMPRESSED) -> int:
    """pulsar-common ``record IntIntPair(int, int)`` (and fastutil ``IntIntImmutablePair``)."""
    return layout.instance("II")


def bit_set(words: int, layout: JvmLayout = COMPRESSED) -> int:
    """``java.util.BitSet`` backed by ``long[words]``: ``words`` (ref), ``wordsInUse`` (int),
    ``sizeIsSticky`` (boolean) = 24 B + the array. ``new BitSet()`` has 1 word (48 B)."""
    return layout.instance("LIZ") + layout.array(words, "J")


def bit_set_words(nbits: int) -> int:
    """Words of ``new BitSet(nbits)``: ``ceil(nbits / 64)``."""
    return max(0, math.ceil(nbits / 64))


@dataclass
class BitSetWords:
    """Tracks the ``long[]`` length of a ``java.util.BitSet`` under ``set``/``clear``.

    ``set(i)`` needs ``i // 64 + 1`` words; growth is ``max(2 * length, required)``
    (OpenJDK 17 ``BitSet.ensureCapacity``). ``clear`` never shrinks the array.
    """

    length: int = 1

    def set(self, bit_index: int) -> None:
        required = bit_index // 64 + 1
        if required > self.length:
            self.length = max(2 * self.length, required)

    def set_many(self, bit_indices: Iterable[int]) -> None:
        """``set`` for each index, in the given order. O(k)."""
        for i in bit_indices:
            self.set(i)


# --------------------------------------------------------------------------- fastutil


FASTUTIL_DEFAULT_EXPECTED = 16
FASTUTIL_LOAD_FACTOR = 0.75


def fastutil_array_size(expected: int, f: float = FASTUTIL_LOAD_FACTOR) -> int:
    """``HashCommon.arraySize``: ``max(2, nextPowerOfTwo(ceil(expected / f)))``."""
    need = max(2, math.ceil(expected / f))
    return 1 << (need - 1).bit_length()


def fastutil_max_fill(n: int, f: float = FASTUTIL_LOAD_FACTOR) -> int:
    """``HashCommon.maxFill``: ``min(ceil(n * f), n - 1)``."""
    return min(math.ceil(n * f), n - 1)


def fastutil_capacity(
    n_items: int, expected: int = FASTUTIL_DEFAULT_EXPECTED, f: float = FASTUTIL_LOAD_FACTOR
) -> int:
    """Table size ``n`` after ``n_items`` inserts into a new fastutil open hash map.

    Closed form of the insert rule: the smallest power of two ``>= arraySize(expected)`` with
    ``n_items <= maxFill(n)``. O(log n).
    """
    n = fastutil_array_size(expected, f)
    while n_items > fastutil_max_fill(n, f):
        n *= 2
    return n


@dataclass
class FastutilHashCapacity:
    """Table size of a fastutil open hash map under inserts and removals (8.x rules)."""

    expected: int = FASTUTIL_DEFAULT_EXPECTED
    f: float = FASTUTIL_LOAD_FACTOR
    size: int = 0
    n: int = field(init=False)
    min_n: int = field(init=False)

    def __post_init__(self) -> None:
        self.n = self.min_n = fastutil_array_size(self.expected, self.f)

    def insert(self) -> None:
        """A put of a new key: ``if (size++ >= maxFill) rehash(arraySize(size + 1, f))``."""
        self.size += 1
        if self.size - 1 >= fastutil_max_fill(self.n, self.f):
            self.n = fastutil_array_size(self.size + 1, self.f)

    def remove(self) -> None:
        """A removal: ``if (n > minN && size < maxFill / 4 && n > 16) rehash(n / 2)``."""
        self.size -= 1
        if (
            self.n > self.min_n
            and self.size < fastutil_max_fill(self.n, self.f) // 4
            and self.n > 16
        ):
            self.n //= 2


def fastutil_long2object_open_hash_map(
    n_slots: int, payload_bytes: int = 0, layout: JvmLayout = COMPRESSED
) -> int:
    """fastutil ``Long2ObjectOpenHashMap`` with table size ``n_slots`` (``n``).

    Fields: ``defRetValue`` (ref, from AbstractLong2ObjectFunction), ``key, value, entries,
    keys, values`` (refs), ``mask, n, maxFill, minN, size`` (ints), ``f`` (float),
    ``containsNullKey`` = 64 B; arrays ``long[n + 1]`` and ``Object[n + 1]``. Default
    (n = 32): 64 + 280 + 152 = 496 B.
    """
    return (
        layout.instance("LLLLLLIIIIIFZ")
        + layout.array(n_slots + 1, "J")
        + layout.array(n_slots + 1, "L")
        + payload_bytes
    )


def fastutil_long2long_open_hash_map(n_slots: int, layout: JvmLayout = COMPRESSED) -> int:
    """fastutil ``Long2LongOpenHashMap``: 72 B (``defRetValue`` is a long) + two ``long[n + 1]``.

    16 B per slot; the default map (n = 32) is 72 + 2 * 280 = 632 B. fastutil has had no
    ``used[]`` array since 7.0 (commit 8a33ca6a, 2015).
    """
    return layout.instance("JLLLLLIIIIIFZ") + 2 * layout.array(n_slots + 1, "J")


def _tree_map_object(kind: str) -> str:
    """Fields of a fastutil ``Long2{Object,Long}{AVL,RB}TreeMap`` object (without paths)."""
    default_return = "J" if kind == "Long2Long" else "L"
    # defRetValue, tree, firstEntry, lastEntry, entries, keys, values, storedComparator,
    # actualComparator, dirPath (+ nodePath for RB), count, modified
    return default_return + "L" * 9


def fastutil_avl_tree_map(
    n_entries: int,
    payload_bytes: int = 0,
    kind: str = "Long2Object",
    layout: JvmLayout = COMPRESSED,
) -> int:
    """fastutil ``Long2ObjectAVLTreeMap`` / ``Long2LongAVLTreeMap`` (8.x ``AVLTreeMap.drv``).

    Map object: ``defRetValue, tree, firstEntry, lastEntry, entries, keys, values,
    storedComparator, actualComparator, dirPath`` + ``count`` + ``modified`` = 64 B, plus
    ``boolean[48] dirPath`` (64 B) allocated by the constructor: 128 B empty.
    Entry: ``BasicEntry{long key; V/long value}`` + ``left, right`` + ``int info`` = 40 B.
    """
    _check_kind(kind)
    obj = layout.instance(_tree_map_object(kind) + "IZ")
    entry = layout.instance("J" + ("J" if kind == "Long2Long" else "L") + "LLI")
    return obj + layout.array(48, "Z") + n_entries * entry + payload_bytes


def fastutil_rb_tree_map(
    n_entries: int,
    payload_bytes: int = 0,
    kind: str = "Long2Object",
    layout: JvmLayout = COMPRESSED,
) -> int:
    """fastutil ``Long2ObjectRBTreeMap`` / ``Long2LongRBTreeMap`` (8.x ``RBTreeMap.drv``).

    As the AVL map plus a ``nodePath`` reference; the constructor allocates ``boolean[64]
    dirPath`` (80 B) and ``Entry[64] nodePath`` (272 B): 416 B empty. Entry: 40 B.
    """
    _check_kind(kind)
    obj = layout.instance(_tree_map_object(kind) + "LIZ")
    entry = layout.instance("J" + ("J" if kind == "Long2Long" else "L") + "LLI")
    return obj + layout.array(64, "Z") + layout.array(64, "L") + n_entries * entry + payload_bytes


def _check_kind(kind: str) -> None:
    if kind not in ("Long2Object", "Long2Long"):
        raise ValueError(f"kind must be Long2Object or Long2Long, got {kind!r}")
