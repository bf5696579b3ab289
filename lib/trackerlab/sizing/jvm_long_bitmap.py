"""JVM layout of Pulsar's ``LongBitmap`` leaf (``ConcurrentRoaringBitmap``) in each of its
shapes, and of the JDK objects around it (``StampedLock``, ``AtomicLong``, ``ReentrantLock``,
heap NIO buffers, ``ConcurrentSkipListMap``, ``ConcurrentHashMap``).

``pulsar-common/src/main/java/org/apache/pulsar/common/util/collections/
ConcurrentRoaringBitmap.java`` has had three shapes (:data:`LEAF_SHAPES`):

- ``extends-roaring`` — ``class ConcurrentRoaringBitmap extends RoaringBitmap`` with
  ``private final StampedLock lock`` (stored versions without a licence header and at
  9d09de11): the inherited ``highLowContainer`` and the lock, 24 B;
- ``wraps-mutable`` — ``implements LongBitmap`` (#26117, stored at 006d9f64): fields ``bitmap``
  (a ``buffer.MutableRoaringBitmap``), ``lock``, ``long removesSinceTrim``, 32 B; every
  container is a ``Mappeable*Container`` whose array sits behind a ``HeapCharBuffer`` /
  ``HeapLongBuffer`` (56 B each on JDK 17);
- ``wraps-roaring`` — the same fields over a plain ``RoaringBitmap`` (#26500, "Back LongBitmap
  with the on-heap RoaringBitmap").

The bitmap underneath is RoaringBitmap 1.6.10 (:mod:`trackerlab.sizing.jvm_roaring`): a
``RoaringArray``/``MutableRoaringArray`` (``char[] keys``, ``Container[] values``, ``int size``,
24 B) and containers whose growth rules are the same in both flavours (``ArrayContainer`` and
``MappeableArrayContainer`` grow 4, 8, 16, 32, 64, 96, ... to 4096 on ``add``). Every size here
is checked against real objects by ``trackerlab jvm-check`` (``long-bitmap-*`` cases); the
Pulsar class is not on the probe's class path, so the probe builds the same object graph from
the real parts (``jvmcheck/java/LongBitmapProbe.java``, fields in Pulsar's declaration order).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

import trackerlab.sizing.jvm_roaring as jr
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

#: The shapes of ``ConcurrentRoaringBitmap``, newest first (the first is the default).
LEAF_SHAPES = ("wraps-roaring", "wraps-mutable", "extends-roaring")
#: ``ConcurrentRoaringBitmap`` (wrapping shapes): ``bitmap``, ``lock``, ``removesSinceTrim``.
WRAPPER_FIELDS = "LLJ"
#: JDK 17 ``StampedLock``: head, tail, readLockView, writeLockView, readWriteLockView (refs),
#: state (long), readerOverflow (int); the views stay null until asked for. 48 B.
STAMPED_LOCK_FIELDS = "LLLLLJI"
#: A heap NIO buffer (``HeapCharBuffer``, ``HeapLongBuffer``, JDK 17): ``Buffer``'s mark,
#: position, limit, capacity (ints), address (long), segment (ref); the typed buffer's hb
#: (array ref), offset (int), isReadOnly (boolean). 56 B.
NIO_BUFFER_FIELDS = "IIIIJLLIZ"
#: ``ConcurrentRoaringBitmap.TRIM_AFTER_REMOVES``: ``maybeTrim()`` calls ``trim()`` once this
#: many values were removed since the last trim (or when the bitmap is empty).
TRIM_AFTER_REMOVES = 10_000


def check_shape(shape: str) -> str:
    if shape not in LEAF_SHAPES:
        raise ValueError(f"leaf shape must be one of {LEAF_SHAPES}, got {shape!r}")
    return shape


# --------------------------------------------------------------------------- JDK objects


def stamped_lock(layout: JvmLayout = COMPRESSED) -> int:
    """A fresh ``java.util.concurrent.locks.StampedLock`` (no waiters, no views): 48 B."""
    return layout.instance(STAMPED_LOCK_FIELDS)


def atomic_long(layout: JvmLayout = COMPRESSED) -> int:
    """``java.util.concurrent.atomic.AtomicLong`` (one volatile long): 24 B."""
    return layout.instance("J")


def reentrant_lock(layout: JvmLayout = COMPRESSED) -> int:
    """An unlocked ``ReentrantLock`` with its ``NonfairSync`` (AQS: head, tail, state,
    exclusiveOwnerThread): 16 + 32 B."""
    return layout.instance("L") + layout.instance("LLIL")


def nio_buffer(layout: JvmLayout = COMPRESSED) -> int:
    """A ``HeapCharBuffer``/``HeapLongBuffer`` object, its array excluded: 56 B."""
    return layout.instance(NIO_BUFFER_FIELDS)


def concurrent_skip_list_map(
    n: int, index_nodes: int, value_bytes: int = 0, layout: JvmLayout = COMPRESSED
) -> int:
    """``ConcurrentSkipListMap<Long, V>`` (JDK 17) holding ``n`` keys, values excluded.

    The map: ``head, comparator, adder, keySet, values, entrySet, descendingMap`` plus
    ``AbstractMap``'s ``keySet, values`` (9 refs, 48 B). The first put creates the base header
    ``Node`` (key, val, next: 24 B), the head ``Index`` and the ``LongAdder`` (cells, base,
    cellsBusy: 32 B); then one ``Node`` and one boxed ``Long`` per key and ``index_nodes``
    ``Index`` objects (node, down, right: 24 B), the head's levels included.

    The number of ``Index`` objects is random (``ThreadLocalRandom`` in ``doPut``: a quarter of
    the puts add a tower); :func:`expected_index_nodes` gives its mean and the ``jvm-check``
    case reads the real count from the map. O(1)."""
    base = layout.instance("L" * 9)
    if n == 0:
        return base
    node = layout.instance("LLL")
    return (
        base
        + layout.instance("LJI")  # LongAdder
        + (n + 1) * node
        + n * layout.boxed("J")
        + index_nodes * layout.instance("LLL")
        + value_bytes
    )


def expected_index_nodes(n: int) -> float:
    """Mean ``Index`` objects of a ``ConcurrentSkipListMap`` after ``n`` puts: one head plus,
    per put, probability 1/4 of a tower of mean height about 2 (``doPut``). O(1)."""
    return 1.0 + n * 0.25 * 2.0 if n else 0.0


def concurrent_hash_map(n: int, value_bytes: int = 0, layout: JvmLayout = COMPRESSED) -> int:
    """``ConcurrentHashMap<Long, V>`` with ``n`` entries (default capacity 16, resized at
    0.75 load to the next power of two), values excluded: the map (table, nextTable, baseCount,
    sizeCtl, transferIndex, cellsBusy, counterCells, keySet, values, entrySet and
    ``AbstractMap``'s keySet, values: 64 B), the table (created by the first put),
    one ``Node`` (hash, key, val, next: 32 B) and one boxed ``Long`` per entry. O(1)."""
    base = layout.instance("LLLLLLLLJIII")  # 8 refs, baseCount, 3 ints
    if n == 0:
        return base
    cap = 16
    while n >= cap * 3 // 4:
        cap *= 2
    entries = n * (layout.instance("ILLL") + layout.boxed("J"))
    return base + layout.array(cap, "L") + entries + value_bytes


# --------------------------------------------------------------------------- containers


def mappeable(shape: str) -> bool:
    """True when the shape's containers are ``Mappeable*Container`` (an NIO buffer each)."""
    return check_shape(shape) == "wraps-mutable"


def container_bytes(c: jr.Container, shape: str, layout: JvmLayout = COMPRESSED) -> int:
    """One container of a leaf: the plain container of :func:`jvm_roaring.container_bytes`,
    plus a heap NIO buffer for the Mappeable flavour (same fields, same array)."""
    extra = nio_buffer(layout) if mappeable(shape) else 0
    return jr.container_bytes(c, layout) + extra


def container_bytes_array(
    cardinality: np.ndarray,
    capacity: np.ndarray | None,
    shape: str,
    layout: JvmLayout = COMPRESSED,
) -> np.ndarray:
    """Vectorized :func:`container_bytes` of array (card <= 4096) and bitmap containers.
    ``capacity``: the array containers' ``content`` length (None: as ``add`` grew them,
    :func:`jvm_roaring.array_capacity`). Zero for cardinality 0 (no container). O(rows)."""
    card = np.asarray(cardinality, dtype=np.int64)
    if capacity is None:
        table = _capacity_table()
        cap = table[np.minimum(card, jr.ARRAY_MAX_CARDINALITY)]
    else:
        cap = np.asarray(capacity, dtype=np.int64)
    header = layout.array_header
    arrays = layout.instance("IL") + ((header + 2 * cap + 7) // 8) * 8
    bitmap = layout.instance("LI") + layout.array(jr.BITMAP_WORDS, "J")
    out = np.where(card <= jr.ARRAY_MAX_CARDINALITY, arrays, bitmap)
    if mappeable(shape):
        out = out + nio_buffer(layout)
    return np.where(card > 0, out, 0)


@cache
def _capacity_table() -> np.ndarray:
    return np.array([0] + [jr.array_capacity(c) for c in range(1, 4097)], dtype=np.int64)


# --------------------------------------------------------------------------- the leaf


def fixed_bytes(
    n_containers: int,
    shape: str = "wraps-roaring",
    key_capacity: int | None = None,
    layout: JvmLayout = COMPRESSED,
) -> int:
    """Bytes of one leaf besides its containers: the ``ConcurrentRoaringBitmap`` (24 or 32 B),
    its ``StampedLock`` (48 B), the bitmap object (16 B, absent for ``extends-roaring``), the
    ``RoaringArray``/``MutableRoaringArray`` (24 B) and its ``char[cap]`` + ``Container[cap]``
    (``cap`` = ``key_capacity``, default :func:`jvm_roaring.roaring_array_capacity`).
    Empty ``wraps-roaring``: 32 + 48 + 16 + 24 + 24 + 32 = 176 B. O(log n)."""
    check_shape(shape)
    cap = jr.roaring_array_capacity(n_containers) if key_capacity is None else key_capacity
    if cap < n_containers:
        raise ValueError("key_capacity must be >= the number of containers")
    arrays = layout.instance("LLI") + layout.array(cap, "C") + layout.array(cap, "L")
    if shape == "extends-roaring":
        own = layout.instance("LL")  # inherited highLowContainer + lock
    else:
        own = layout.instance(WRAPPER_FIELDS) + layout.instance("L")  # + the bitmap object
    return own + stamped_lock(layout) + arrays


def leaf_bytes(
    containers: Sequence[jr.Container],
    shape: str = "wraps-roaring",
    key_capacity: int | None = None,
    layout: JvmLayout = COMPRESSED,
) -> int:
    """Deep size of one ``ConcurrentRoaringBitmap`` holding ``containers``. O(containers)."""
    return fixed_bytes(len(containers), shape, key_capacity, layout) + sum(
        container_bytes(c, shape, layout) for c in containers
    )


def leaf_bytes_of(
    chunks: Sequence[jr.Chunk],
    shape: str = "wraps-roaring",
    trim: bool = False,
    layout: JvmLayout = COMPRESSED,
) -> int:
    """A leaf built by ``add``/``checkedAdd`` with this content (16-bit chunk keys), then
    optionally ``trim()`` (containers and key arrays cut to size). O(chunks)."""
    containers = [jr.container(c, trim=trim) for c in chunks]
    return leaf_bytes(containers, shape, len(containers) if trim else None, layout)


@cache
def fixed_bytes_table(shape: str, layout: JvmLayout = COMPRESSED) -> np.ndarray:
    """:func:`fixed_bytes` for 0..65,536 containers grown by inserts (index = count)."""
    return np.array([fixed_bytes(n, shape, None, layout) for n in range(1 << 16 | 1)])


# --------------------------------------------------------------------------- layout state


class LeafLayout:
    """The JVM-side state of one ``ConcurrentRoaringBitmap``: per 16-bit key its container's
    kind, cardinality and array capacity, the key arrays' capacity and ``removesSinceTrim``.

    It follows RoaringBitmap 1.6.10 under the calls Pulsar makes (values are tracked by the
    caller, which says what is new or present):

    - ``checkedAdd`` of a new value: a new key inserts a ``new ArrayContainer()`` (capacity 4)
      after ``extendArray(1)`` (capacity ``2 (size + 1)`` below 1024 keys, else ``5/4``); an
      array container grows (:func:`jvm_roaring.array_growth`) when full and becomes a bitmap
      container on its 4097th value;
    - ``checkedRemove``: in place; an emptied container leaves the key arrays (which never
      shrink); a bitmap container falling to 4096 becomes an exact ``ArrayContainer(4096)``;
    - ``drainTo(n)``: ``andNot`` of the ``n`` smallest values: array containers shrink in place,
      emptied ones go, bitmap containers left with at most 4096 values become exact arrays;
    - the wrapping shapes' trim rule (``maybeTrim``): after a removal that took
      ``removesSinceTrim`` to 10,000 (``drainTo`` clamps it there) or emptied the bitmap,
      ``trim()`` cuts the key arrays to ``size`` and every array container to its cardinality.
      ``extends-roaring`` has no such rule.
    """

    def __init__(self, shape: str = "wraps-roaring") -> None:
        self.shape = check_shape(shape)
        self.keys: dict[int, list] = {}  # key -> [kind, cardinality, capacity]
        self.key_capacity = jr.ROARING_ARRAY_INITIAL_CAPACITY
        self.removes_since_trim = 0

    @property
    def trims(self) -> bool:
        return self.shape != "extends-roaring"

    def add(self, key: int, count: int = 1) -> None:
        """``count`` new values in chunk ``key`` (any order: growth depends on counts only)."""
        state = self.keys.get(key)
        if state is None:
            size = len(self.keys)
            if size + 1 > self.key_capacity:
                cap = self.key_capacity
                self.key_capacity = 2 * (size + 1) if cap < 1024 else 5 * (size + 1) // 4
            state = self.keys[key] = ["array", 0, 4]
        if state[0] == "bitmap":
            state[1] += count
            return
        card = state[1] + count
        if card > jr.ARRAY_MAX_CARDINALITY:
            state[:] = ["bitmap", card, 0]
            return
        cap = state[2]
        while cap < card:
            cap = jr.array_growth(cap)
        state[1], state[2] = card, cap

    def remove(self, key: int) -> None:
        """One present value of chunk ``key`` removed (``checkedRemove``), then the trim rule."""
        self._take(key, 1)
        if self.trims:
            self.removes_since_trim += 1
            self._maybe_trim()

    def _take(self, key: int, count: int, drained: bool = False) -> None:
        state = self.keys[key]
        card = state[1] - count
        if card <= 0:
            del self.keys[key]
        elif state[0] == "bitmap" and card <= jr.ARRAY_MAX_CARDINALITY:
            if drained or card == jr.ARRAY_MAX_CARDINALITY:
                state[:] = ["array", card, card]
            else:  # checkedRemove converts only on the 4097 -> 4096 step
                state[1] = card
        else:
            state[1] = card

    def drain(self, limit: int) -> int:
        """``drainTo(limit)``: the ``limit`` smallest values go; returns how many."""
        collected = 0
        for key in sorted(self.keys):
            if collected >= limit:
                break
            take = min(self.keys[key][1], limit - collected)
            self._take(key, take, drained=True)
            collected += take
        if collected and self.trims:
            self.removes_since_trim = min(self.removes_since_trim + collected, TRIM_AFTER_REMOVES)
            self._maybe_trim()
        return collected

    def _maybe_trim(self) -> None:
        if self.removes_since_trim >= TRIM_AFTER_REMOVES or not self.keys:
            self.trim()
            self.removes_since_trim = 0

    def trim(self) -> None:
        """``trim()``: key arrays and array containers cut to size."""
        self.key_capacity = len(self.keys)
        for state in self.keys.values():
            if state[0] == "array":
                state[2] = state[1]

    def cardinality(self) -> int:
        return sum(s[1] for s in self.keys.values())

    def containers(self) -> list[jr.Container]:
        out = []
        for key in sorted(self.keys):
            kind, card, cap = self.keys[key]
            out.append(jr.Container(kind, card, 0, cap if kind == "array" else 0))
        return out

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """Deep size of the leaf in this state."""
        return leaf_bytes(self.containers(), self.shape, self.key_capacity, layout)

    def serialized_size(self) -> int:
        """``serializedSizeInBytes()`` of the live bitmap (portable format, no run containers:
        the live bitmap is never run-optimized): 8 + per container 8 B + payload."""
        return 8 + sum(
            8 + (2 * card if kind == "array" else 8192) for kind, card, _ in self.keys.values()
        )


def replay_leaf(
    shape: str, adds: np.ndarray, removes: np.ndarray | tuple[()] = (), drain: int = 0
) -> LeafLayout:
    """The layout after ``checkedAdd`` of ``adds`` (in order; repeats ignored), ``remove`` of
    ``removes`` (absent values ignored), then ``drainTo(drain)``: what ``jvm-check`` builds.
    O(n) Python: for checks and tests, not for large streams."""
    leaf = LeafLayout(shape)
    present: set[int] = set()
    for v in np.asarray(adds, dtype=np.int64).tolist():
        v &= 0xFFFFFFFF
        if v not in present:
            present.add(v)
            leaf.add(v >> 16)
    for v in np.asarray(removes, dtype=np.int64).tolist():
        v &= 0xFFFFFFFF
        if v in present:
            present.discard(v)
            leaf.remove(v >> 16)
    if drain > 0:
        leaf.drain(drain)
    return leaf
