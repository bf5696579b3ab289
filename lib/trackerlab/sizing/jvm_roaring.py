"""JVM layout model of Java RoaringBitmap: deep heap sizes of ``RoaringBitmap`` (32-bit),
``Roaring64Bitmap`` (ART) and ``Roaring64NavigableMap``.

Followed version: **RoaringBitmap 1.6.10**, the jar pyspark 4.3 ships (release commit 126d213d
of github.com/RoaringBitmap/RoaringBitmap, ``roaringbitmap/src/main/java/org/roaringbitmap``).
Pulsar's master pins 1.6.9 (``gradle/libs.versions.toml``); ``git diff`` 1.6.9..1.6.10 of every
class modelled here is empty, and so is 1.6.10..1.6.20 as far as fields and growth rules go.
Releases **before 1.5.3** had a heavier ART (PRs #786 "split non-leaf BranchNode from leaf
nodes", #787, #788 "remove prefixLength", #794 "empty arrays", July-Aug 2025): in 1.3.0 every
node, leaves included, carried ``nodeType, prefixLength, prefix, count`` and its own
``byte[0]``, so a leaf cost 40 + 16 B instead of 32 B. Pulsar pins 1.2.0 up to 4.1.x (read from
the released jars); ``JvmLayout.roaring_art = "1.2"`` sizes that ART (:func:`art_size`), checked
byte for byte against Pulsar 4.0.x's own trackers by ``trackerlab jvm-check --pulsar``.

Two ways in:

1. a **content description** -- per high key a :class:`Chunk` (key, cardinality, run count) --
   turned into containers by Java's own rules (:func:`container`), then sized:
   :func:`roaring_bitmap_bytes`, :func:`roaring64_bitmap_bytes`,
   :func:`roaring64_navigable_map_bytes`. Callers that never build a bitmap (time-bucket
   trackers, a Spark job that knows per-chunk cardinalities and run counts) use this;
2. from a **pyroaring** ``BitMap``/``BitMap64`` (:func:`roaring_bitmap_bytes_of` and friends),
   sized as if Java had built it with incremental ``add`` in ascending order.

Java's incremental ``add`` leaves array-container capacity slack (growth rule below) and never
creates run containers; only ``runOptimize()`` converts, and only ``trim()`` removes slack.
Sizes are for the layout given (:data:`~trackerlab.sizing.jvm.COMPRESSED` by default) and are
checked against a real JVM by ``trackerlab jvm-check``.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.jvm_collections import tree_map

if TYPE_CHECKING:
    from pyroaring import BitMap, BitMap64

#: ``ArrayContainer.DEFAULT_MAX_SIZE``: an array container holds at most 4096 values; the
#: 4097th ``add`` converts it to a bitmap container (``ArrayContainer.add``).
ARRAY_MAX_CARDINALITY = 4096
#: ``BitmapContainer``: ``long[1024]`` = 2^16 bits, whatever the cardinality.
BITMAP_WORDS = 1024
#: ``RoaringArray.INITIAL_CAPACITY``: keys/values arrays of a new RoaringBitmap.
ROARING_ARRAY_INITIAL_CAPACITY = 4
#: ``Integer.valueOf`` caches -128..127 (``java.lang.Integer.IntegerCache``, JDK 17 default).
INTEGER_CACHE = range(-128, 128)

CONTAINER_KINDS = ("array", "bitmap", "run")


# --------------------------------------------------------------------------- growth rules


def _compute_capacity(old: int) -> int:
    """``ArrayContainer.computeCapacity`` / ``RunContainer.computeCapacity`` (identical):
    0 -> 4, below 64 doubles, below 1024 grows x1.5, then x1.25 (integer arithmetic)."""
    if old == 0:
        return 4
    if old < 64:
        return old * 2
    if old < 1024:
        return old * 3 // 2
    return old * 5 // 4


def array_growth(old: int) -> int:
    """Next ``content.length`` of an ``ArrayContainer`` (``increaseCapacity``, 1.6.10):
    ``computeCapacity``, clamped to 4096, and set to 4096 when within 1/16 of it (> 3840)."""
    new = _compute_capacity(old)
    if new > ARRAY_MAX_CARDINALITY - ARRAY_MAX_CARDINALITY // 16:
        new = ARRAY_MAX_CARDINALITY
    return new


def _array_capacities() -> tuple[int, ...]:
    caps = [4]  # new ArrayContainer() allocates char[DEFAULT_INIT_SIZE = 4]
    while caps[-1] < ARRAY_MAX_CARDINALITY:
        caps.append(array_growth(caps[-1]))
    return tuple(caps)


#: Every ``content.length`` an incrementally built array container goes through:
#: 4, 8, 16, 32, 64, 96, 144, 216, 324, 486, 729, 1093, 1366, 1707, 2133, 2666, 3332, 4096.
ARRAY_CAPACITIES = _array_capacities()


def array_capacity(cardinality: int) -> int:
    """``content.length`` of an ``ArrayContainer`` after ``cardinality`` distinct ``add`` calls
    (in any order: ``add`` grows only when ``cardinality >= content.length``). O(log 18)."""
    if not 0 <= cardinality <= ARRAY_MAX_CARDINALITY:
        raise ValueError(f"array cardinality must be in 0..4096, got {cardinality}")
    return ARRAY_CAPACITIES[bisect.bisect_left(ARRAY_CAPACITIES, cardinality)]


def _range_add_capacities() -> tuple[int, ...]:
    """``content.length`` after n single-value range adds, n = 1..4096 (index n - 1)."""
    caps, cap = [1], 1  # Container.rangeOfOnes -> new ArrayContainer(start, start + 1)
    for new_card in range(2, ARRAY_MAX_CARDINALITY + 1):
        if new_card >= cap:  # ArrayContainer.iadd: grows when newcardinality >= length
            cap = max(_compute_capacity(cap), new_card)  # calculateCapacity(newcardinality)
            if cap > ARRAY_MAX_CARDINALITY - ARRAY_MAX_CARDINALITY // 16:
                cap = ARRAY_MAX_CARDINALITY
        caps.append(cap)
    return tuple(caps)


#: ``content.length`` of an array container built by ``RoaringBitmap.add(x, x + 1)`` of
#: ``n`` distinct values (index ``n - 1``): 1, 2, 4, 8, 8, 8, 8, 16, ...
RANGE_ADD_CAPACITIES = _range_add_capacities()


def array_capacity_range_adds(cardinality: int) -> int:
    """``content.length`` of an ``ArrayContainer`` built by one-value range adds
    (``RoaringBitmap.add(long, long)``, PIP-195's ``Bucket.putIndexBit``): the first value makes
    ``char[1]`` (``Container.rangeOfOnes``), then ``iadd`` grows the array to
    ``max(computeCapacity(length), newCardinality)`` whenever ``newCardinality >= length``
    (1.2.0 and 1.6.9 alike). O(1)."""
    if not 1 <= cardinality <= ARRAY_MAX_CARDINALITY:
        raise ValueError(f"array cardinality must be in 1..4096, got {cardinality}")
    return RANGE_ADD_CAPACITIES[cardinality - 1]


def run_capacity(runs: int) -> int:
    """Run capacity (``valueslength.length / 2``) of a ``new RunContainer()`` (``char[8]``) grown
    by ``add`` to ``runs`` runs: ``makeRoomAtIndex`` applies ``computeCapacity`` to the char
    array length, without the array container's 4096 clamp. Containers made by ``runOptimize``
    are exact (``new char[2 * nbrRuns]``) and do not use this."""
    chars = 8
    while chars < 2 * runs:
        chars = _compute_capacity(chars)
    return chars // 2


def roaring_array_capacity(n_keys: int) -> int:
    """``keys.length`` (= ``values.length``) of a ``RoaringArray`` after ``n_keys`` new high keys
    were inserted one at a time (``extendArray(1)``: below 1024 the capacity becomes
    ``2 * (size + 1)``, else ``5 * (size + 1) / 4``); starts at 4. O(log n)."""
    cap = ROARING_ARRAY_INITIAL_CAPACITY
    while cap < n_keys:  # the insertion made when size == cap triggers the growth
        cap = 2 * (cap + 1) if cap < 1024 else 5 * (cap + 1) // 4
    return cap


def art_container_array_capacity(n_containers: int) -> int:
    """Length of the ``Container[]`` of ``org.roaringbitmap.art.Containers`` after
    ``n_containers`` ``addContainer`` calls: created as ``new Container[1]``, then ``grow``
    gives ``old + (old >> 1)``, at least ``old + 1`` (1, 2, 3, 4, 6, 9, 13, 19, 28, ...).
    0 when empty (no array yet). O(log n)."""
    if n_containers <= 0:
        return 0
    cap = 1
    while cap < n_containers:
        cap = max(cap + (cap >> 1), cap + 1)
    return cap


def cumulative_cache_length(n_highs: int) -> int:
    """Length of ``Roaring64NavigableMap.sortedHighs`` / ``sortedCumulatedCardinality`` once the
    cardinalities of ``n_highs`` buckets are cached (``ensureOne``: ``newSize = 2 * len + 1``,
    from 0): the smallest ``2^m - 1 >= n_highs``."""
    size = 0
    while size < n_highs:
        size = 2 * size + 1
    return size


# --------------------------------------------------------------------------- containers


@dataclass(frozen=True)
class Chunk:
    """Content of one 2^16-value chunk of a bitmap: what a container will hold.

    ``key`` is the value's high part (``value >> 16``): 16 bits for ``RoaringBitmap``, 48 bits
    for the 64-bit bitmaps. ``runs`` (maximal runs of consecutive values) is needed only when
    ``runOptimize()`` is modelled.
    """

    key: int
    cardinality: int
    runs: int | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.cardinality <= 1 << 16:
            raise ValueError(f"chunk cardinality must be in 1..65536, got {self.cardinality}")
        if self.runs is not None and not 1 <= self.runs <= min(self.cardinality, 1 << 15):
            raise ValueError(f"runs must be in 1..min(cardinality, 32768), got {self.runs}")


@dataclass(frozen=True)
class Container:
    """One Java container as it sits in the heap.

    ``capacity`` is the backing array's length in elements: ``content.length`` (chars) for an
    array container, runs (``valueslength.length / 2``) for a run container; ignored for a
    bitmap container (always ``long[1024]``).
    """

    kind: str
    cardinality: int
    runs: int = 0
    capacity: int = 0

    def __post_init__(self) -> None:
        if self.kind not in CONTAINER_KINDS:
            raise ValueError(f"container kind must be one of {CONTAINER_KINDS}, got {self.kind!r}")
        if self.kind == "array" and self.capacity < self.cardinality:
            raise ValueError("array capacity must be >= cardinality")
        if self.kind == "run" and self.capacity < self.runs:
            raise ValueError("run capacity must be >= runs")


def container(chunk: Chunk, *, run_optimize: bool = False, trim: bool = False) -> Container:
    """The container Java holds for ``chunk`` after incremental ``add`` calls (then optionally
    ``runOptimize()`` and ``trim()``), by RoaringBitmap 1.6.10's rules:

    - ``add`` builds an array container (capacity :func:`array_capacity`) and converts it to a
      bitmap container on the 4097th value (``ArrayContainer.add``); never a run container;
    - ``runOptimize()`` converts to a run container only when strictly smaller serialized:
      array if ``2 * card > 2 + 4 * runs`` (``ArrayContainer.runOptimize``), bitmap if
      ``8192 > 2 + 4 * runs`` (``BitmapContainer.runOptimize``); the run container is exact,
      ``new char[2 * nbrRuns]``;
    - ``trim()`` copies ``content`` to ``char[cardinality]`` (``ArrayContainer.trim``).
    """
    card = chunk.cardinality
    kind = "array" if card <= ARRAY_MAX_CARDINALITY else "bitmap"
    if run_optimize:
        if chunk.runs is None:
            raise ValueError(f"runOptimize needs the run count of chunk {chunk.key}")
        run_size = 2 + 4 * chunk.runs  # RunContainer.serializedSizeInBytes
        current = 2 * card if kind == "array" else 8192
        if current > run_size:
            return Container("run", card, chunk.runs, chunk.runs)
    if kind == "bitmap":
        return Container("bitmap", card)
    return Container("array", card, 0, card if trim else array_capacity(card))


def container_bytes(c: Container, layout: JvmLayout = COMPRESSED) -> int:
    """Deep size of one container (``Container`` itself declares no instance fields).

    - ``ArrayContainer``: ``cardinality`` (int), ``content`` (char[]): 24 B + ``char[cap]``;
    - ``BitmapContainer``: ``bitmap`` (long[]), ``cardinality`` (int): 24 B + ``long[1024]``;
    - ``RunContainer``: ``valueslength`` (char[]), ``nbrruns`` (int): 24 B + ``char[2 * cap]``.
    """
    if c.kind == "array":
        return layout.instance("IL") + layout.array(c.capacity, "C")
    if c.kind == "bitmap":
        return layout.instance("LI") + layout.array(BITMAP_WORDS, "J")
    return layout.instance("LI") + layout.array(2 * c.capacity, "C")


# --------------------------------------------------------------------------- RoaringBitmap


def roaring_bitmap_from_containers(
    containers: Sequence[Container],
    key_capacity: int | None = None,
    layout: JvmLayout = COMPRESSED,
) -> int:
    """Deep size of a ``RoaringBitmap`` holding ``containers``.

    ``RoaringBitmap``: ``highLowContainer`` (16 B). ``RoaringArray``: ``keys`` (char[]),
    ``values`` (Container[]), ``size`` (int) = 24 B, plus ``char[cap]`` and ``Container[cap]``
    with ``cap = key_capacity`` (default :func:`roaring_array_capacity`; ``trim()`` makes it
    the number of containers). Empty: 16 + 24 + 24 + 32 = 96 B. O(containers).
    """
    cap = roaring_array_capacity(len(containers)) if key_capacity is None else key_capacity
    if cap < len(containers):
        raise ValueError("key_capacity must be >= the number of containers")
    return (
        layout.instance("L")
        + layout.instance("LLI")
        + layout.array(cap, "C")
        + layout.array(cap, "L")
        + sum(container_bytes(c, layout) for c in containers)
    )


def roaring_bitmap_bytes(
    chunks: Iterable[Chunk],
    *,
    run_optimize: bool = False,
    trim: bool = False,
    layout: JvmLayout = COMPRESSED,
) -> int:
    """Deep size of a ``RoaringBitmap`` built by ``add`` with this content (then optionally
    ``runOptimize()``, then ``trim()``, which also cuts ``keys``/``values`` to ``size``
    (``RoaringArray.trim``)). Chunk keys must be 16-bit and distinct. O(chunks)."""
    containers = _containers(chunks, 16, run_optimize, trim)
    return roaring_bitmap_from_containers(containers, len(containers) if trim else None, layout)


# --------------------------------------------------------------------------- Roaring64Bitmap


class _Branch:
    """An ART inner node during the insertion replay of :func:`art_bytes`."""

    __slots__ = ("children", "own_prefix", "prefix")

    def __init__(self, prefix: bytes, own_prefix: bool) -> None:
        self.prefix = prefix
        self.own_prefix = own_prefix  # False: the shared static Art.EMPTY_BYTES
        self.children: dict[int, _Branch | bytes] = {}


_NODE_CAPACITY = (4, 16, 48, 256)


def _node_kind(n_children: int) -> int:
    """Node4/16/48/256 holding ``n_children`` after inserts only (``Node4.insert`` grows to a
    Node16 on the 5th child, Node16 to Node48 on the 17th, Node48 to Node256 on the 49th)."""
    return next(cap for cap in _NODE_CAPACITY if n_children <= cap)


def _common_length(a: bytes, b: bytes, depth: int) -> int:
    """How many bytes two distinct keys share from ``depth`` on (a leaf split). O(6)."""
    common = 0
    while a[depth + common] == b[depth + common]:
        common += 1
    return common


def _mismatch(prefix: bytes, key: bytes, depth: int) -> int:
    """Where ``key`` from ``depth`` leaves a node's compressed ``prefix`` (``len(prefix)``: it
    does not). O(len(prefix))."""
    mismatch = 0
    while mismatch < len(prefix) and prefix[mismatch] == key[depth + mismatch]:
        mismatch += 1
    return mismatch


def _art_insert(node: _Branch | bytes | None, key: bytes, depth: int) -> _Branch | bytes:
    """Replay of ``Art.insert(Node, byte[], int, long)`` (1.6.10) on node shapes only."""
    if node is None:
        return key  # a LeafNode
    if isinstance(node, bytes):  # leaf: split into a Node4 over the common part
        common = _common_length(node, key, depth)
        n4 = _Branch(key[depth : depth + common], common > 0)
        n4.children[node[depth + common]] = node
        n4.children[key[depth + common]] = key
        return n4
    p = len(node.prefix)
    if p:
        mismatch = _mismatch(node.prefix, key, depth)
        if mismatch != p:  # split the compressed path
            n4 = _Branch(node.prefix[:mismatch], mismatch > 0)
            n4.children[node.prefix[mismatch]] = node
            node.prefix = node.prefix[mismatch + 1 :]
            node.own_prefix = True  # Arrays.copyOfRange: a fresh array, even of length 0
            n4.children[key[depth + mismatch]] = key
            return n4
        depth += p
    byte = key[depth]
    child = node.children.get(byte)
    before = _node_kind(len(node.children))
    node.children[byte] = key if child is None else _art_insert(child, key, depth + 1)
    if _node_kind(len(node.children)) != before:  # grown: new BranchNode(prefixLength)
        node.own_prefix = p > 0
    return node


def _art_node_bytes(kind: int, layout: JvmLayout) -> int:
    """An ART inner node with its fixed arrays (``BranchNode``: ``prefix`` byte[], ``count``
    short). Node4: ``key`` int, ``children`` Node[4]. Node16: ``firstV, secondV`` longs,
    ``children`` Node[16]. Node48: ``childIndex`` long[32], ``children`` Node[48]. Node256:
    ``children`` Node[256], ``bitmapMask`` long[4]."""
    if kind == 4:
        return layout.instance("LSIL") + layout.array(4, "L")
    if kind == 16:
        return layout.instance("LSJJL") + layout.array(16, "L")
    if kind == 48:
        return layout.instance("LSLL") + layout.array(32, "J") + layout.array(48, "L")
    return layout.instance("LSLL") + layout.array(256, "L") + layout.array(4, "J")


@dataclass(frozen=True)
class ArtSize:
    """An ART's bytes: ``own`` (its nodes and arrays) and the ``shared`` static objects it
    points to, which a walk of a structure holding many bitmaps counts once
    (:func:`art_shared_bytes`): ``empty-bytes`` (``Art.EMPTY_BYTES``, a static ``byte[0]``)
    and, before 1.5.3, ``type:NAME`` (the ``NodeType`` enum constants every node points to)."""

    own: int
    shared: frozenset[str]


def art_size(keys: Iterable[int], layout: JvmLayout = COMPRESSED) -> ArtSize:
    """The ART nodes of a ``Roaring64Bitmap`` whose distinct 48-bit high keys were inserted in
    this order, without ``Art`` itself, for the layout's RoaringBitmap generation
    (``layout.roaring_art``).

    **1.6** (1.5.3 and later, ``org.roaringbitmap.art`` of 1.6.10):

    - ``LeafNode``: ``keyHigh`` int, ``keyLow`` char, ``containerIdx`` long = 32 B per key;
    - inner nodes, path-compressed (a node's ``prefix`` holds the bytes all keys below it
      share), grown Node4 -> 16 -> 48 -> 256 by child count, see :func:`_art_node_bytes`;
    - ``prefix`` arrays: ``new byte[p]``, or the shared static ``Art.EMPTY_BYTES`` when a node
      is created with ``p = 0``; a node whose prefix was split down to length 0 keeps its own
      ``byte[0]`` (``Arrays.copyOfRange``) until it grows.

    **1.2** (0.9.40 – 1.5.2; 1.2.0's ``Art.insert``, ``Node``, ``LeafNode``): every node also
    has ``nodeType`` (a shared enum constant) and ``prefixLength``; a leaf is 40 B with its own
    ``byte[0]`` prefix, which becomes the static ``EMPTY_BYTES`` when the leaf is split under a
    new Node4 (before 0.9.40, generations ``0.9.36`` and ``0.9``, it keeps its own); a node whose prefix is split keeps its array (same length) unless the rest is
    empty (then a fresh ``byte[0]``); a grown node gets ``new byte[prefixLength]``.

    The shape depends on the keys' bytes, so this replays the insertions: O(keys * 6).
    """
    if layout.roaring_art != "1.6":
        return _art_size_12(keys, layout)
    root: _Branch | bytes | None = None
    n_keys = 0
    for k in keys:
        _check_key(k)
        root = _art_insert(root, k.to_bytes(6, "big"), 0)
        n_keys += 1
    own = n_keys * layout.instance("ICJ")
    shared: set[str] = set()
    stack = [root] if isinstance(root, _Branch) else []
    while stack:
        node = stack.pop()
        own += _art_node_bytes(_node_kind(len(node.children)), layout)
        if node.own_prefix:
            own += layout.array(len(node.prefix), "B")
        else:
            shared.add("empty-bytes")
        stack.extend(c for c in node.children.values() if isinstance(c, _Branch))
    return ArtSize(own, frozenset(shared))


def art_bytes(keys: Iterable[int], layout: JvmLayout = COMPRESSED) -> int:
    """Deep size of one bitmap's ART nodes (:func:`art_size`), its shared statics counted."""
    size = art_size(keys, layout)
    return size.own + art_shared_bytes(size.shared, layout)


def _check_key(k: int) -> None:
    if not 0 <= k < 1 << 48:
        raise ValueError(f"high keys must be 48-bit, got {k}")


#: ``NodeType`` constants of RoaringBitmap before 1.5.3 (``org.roaringbitmap.art.NodeType``).
_NODE_TYPE = {4: "NODE4", 16: "NODE16", 48: "NODE48", 256: "NODE256"}


def art_shared_bytes(shared: Iterable[str], layout: JvmLayout = COMPRESSED) -> int:
    """Bytes of the static objects named by :attr:`ArtSize.shared`, each once: ``byte[0]``
    for ``empty-bytes``; for ``type:NAME`` the enum constant (``name`` String, ``ordinal``
    int), its ``String`` (``value``, ``hash``, ``coder``, ``hashIsZero``) and the name's
    Latin-1 ``byte[]``. O(len(shared))."""
    total = 0
    for item in set(shared):
        if item == "empty-bytes":
            total += layout.array(0, "B")
        elif item.startswith("type:"):
            name = item.removeprefix("type:")
            total += layout.instance("LI") + layout.instance("LIBZ") + layout.array(len(name), "B")
        else:
            raise ValueError(f"unknown shared ART object {item!r}")
    return total


class _Branch12:
    """A 1.2 ART inner node during the replay of :func:`_art_size_12`: its logical prefix and
    the length of the ``prefix`` array it owns (never the static one)."""

    __slots__ = ("array_length", "children", "prefix")

    def __init__(self, prefix: bytes) -> None:
        self.prefix = prefix
        self.array_length = len(prefix)
        self.children: dict[int, _Branch12 | _Leaf12] = {}


class _Leaf12:
    __slots__ = ("key", "own_prefix")

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.own_prefix = True  # new LeafNode: super(LEAF_NODE, 0) -> new byte[0]


def _art_insert_12(
    node: _Branch12 | _Leaf12 | None, key: bytes, depth: int, split_takes_empty: bool = True
):
    """Replay of 1.2.0's ``Art.insert(Node, byte[], int, long)`` on node shapes only (before
    0.9.40, ``split_takes_empty=False``: a split leaf keeps its own prefix array)."""
    if node is None:
        return _Leaf12(key)
    if isinstance(node, _Leaf12):  # split: the old leaf takes EMPTY_BYTES (0.9.40+)
        common = _common_length(node.key, key, depth)
        node.own_prefix = not split_takes_empty
        n4 = _Branch12(key[depth : depth + common])
        n4.children[node.key[depth + common]] = node
        n4.children[key[depth + common]] = _Leaf12(key)
        return n4
    p = len(node.prefix)
    if p:
        mismatch = _mismatch(node.prefix, key, depth)
        if mismatch != p:
            n4 = _Branch12(node.prefix[:mismatch])
            n4.children[node.prefix[mismatch]] = node
            node.prefix = node.prefix[mismatch + 1 :]
            if not node.prefix:  # "node.prefix = new byte[0]"; else the same array
                node.array_length = 0
            n4.children[key[depth + mismatch]] = _Leaf12(key)
            return n4
        depth += p
    byte = key[depth]
    child = node.children.get(byte)
    before = _node_kind(len(node.children))
    node.children[byte] = (
        _Leaf12(key) if child is None else _art_insert_12(child, key, depth + 1, split_takes_empty)
    )
    if _node_kind(len(node.children)) != before:  # grown: new NodeX(prefixLength)
        node.array_length = len(node.prefix)
    return node


def _art_node_bytes_12(kind: int, layout: JvmLayout) -> int:
    """A 1.2 inner node: ``Node``'s ``nodeType, prefixLength, prefix, count`` and the same
    per-kind fields and arrays as 1.6 (:func:`_art_node_bytes`)."""
    base = "LBLS"
    if kind == 4:
        return layout.instance(base + "IL") + layout.array(4, "L")
    if kind == 16:
        return layout.instance(base + "JJL") + layout.array(16, "L")
    if kind == 48:
        return layout.instance(base + "LL") + layout.array(32, "J") + layout.array(48, "L")
    return layout.instance(base + "LL") + layout.array(256, "L") + layout.array(4, "J")


def _art_size_12(keys: Iterable[int], layout: JvmLayout) -> ArtSize:
    root = None
    split_takes_empty = layout.roaring_art == "1.2"
    for k in keys:
        _check_key(k)
        root = _art_insert_12(root, k.to_bytes(6, "big"), 0, split_takes_empty)
    own, shared = 0, set()
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, _Leaf12):
            own += layout.instance("LBLSJJ")
            shared.add("type:LEAF_NODE")
            if node.own_prefix:
                own += layout.array(0, "B")
            else:
                shared.add("empty-bytes")
            continue
        kind = _node_kind(len(node.children))
        own += _art_node_bytes_12(kind, layout) + layout.array(node.array_length, "B")
        shared.add(f"type:{_NODE_TYPE[kind]}")
        stack.extend(node.children.values())
    return ArtSize(own, frozenset(shared))


def roaring64_bitmap_from_containers(
    keys: Sequence[int], containers: Sequence[Container], layout: JvmLayout = COMPRESSED
) -> int:
    """Deep size of one ``Roaring64Bitmap`` whose high keys were inserted in this order, its
    shared statics counted (:func:`roaring64_bitmap_parts`). O(keys * 6)."""
    parts = roaring64_bitmap_parts(keys, containers, layout)
    return parts.own + art_shared_bytes(parts.shared, layout)


def roaring64_bitmap_parts(
    keys: Sequence[int], containers: Sequence[Container], layout: JvmLayout = COMPRESSED
) -> ArtSize:
    """A ``Roaring64Bitmap`` whose high keys were inserted in this order, as its own bytes and
    the ART's shared statics, which a structure of many bitmaps counts once.

    ``Roaring64Bitmap``: ``highLowContainer`` (16 B); ``HighLowContainer``: ``art, containers``
    (24 B); ``Art``: ``root``, ``keySize`` long (24 B); ``Containers``: ``containerArrays``
    (List), ``containerSize`` long, ``firstLevelIdx, secondLevelIdx`` ints (32 B);
    ``ArrayList``: ``elementData``, ``size``, ``modCount`` (24 B), created by
    ``new ArrayList<>(0)`` so its array is the shared empty ``Object[0]`` (16 B) until the first
    container makes it ``Object[1]``; one ``Container[]`` (:func:`art_container_array_capacity`);
    the ART (:func:`art_size`); the containers. Empty 136 B; one value 248 B (1.6).
    """
    if len(keys) != len(containers):
        raise ValueError("one container per key")
    n = len(keys)
    dense = "L" if layout.roaring_art == "0.9" else ""  # Containers.denseContainerIdxList
    fixed = (
        layout.instance("L")
        + layout.instance("LL")
        + layout.instance("LJ")
        + layout.instance("LJII" + dense)
        + layout.instance("LII")
        + layout.array(1 if n else 0, "L")
    )
    container_array = layout.array(art_container_array_capacity(n), "L") if n else 0
    art = art_size(keys, layout)
    own = fixed + container_array + art.own + sum(container_bytes(c, layout) for c in containers)
    return ArtSize(own, art.shared)


def roaring64_bitmap_bytes(
    chunks: Iterable[Chunk],
    *,
    run_optimize: bool = False,
    trim: bool = False,
    layout: JvmLayout = COMPRESSED,
) -> int:
    """Deep size of a ``Roaring64Bitmap`` built by ``addLong`` with this content, chunks given in
    insertion order of their 48-bit keys (then optionally ``runOptimize()``/``trim()``; both
    act on containers only). ``runOptimize`` replaces containers in place
    (``ContainerIterator.replace``), so the ART and ``Container[]`` are unchanged.

    A bitmap with one high key (a ledger's entry ids below 65,536) costs 200 B + its container:
    248 B with one value. Each further key adds a 32 B leaf, a container, ``Container[]``
    growth and its share of the inner nodes: about 90 B per key with one value each
    (89,024 B for keys 0..999). O(chunks * 6).
    """
    chunks = list(chunks)
    containers = _containers(chunks, 48, run_optimize, trim)
    return roaring64_bitmap_from_containers([c.key for c in chunks], containers, layout)


def roaring64_bitmap_size(
    chunks: Iterable[Chunk], *, run_optimize: bool = False, layout: JvmLayout = COMPRESSED
) -> ArtSize:
    """:func:`roaring64_bitmap_bytes` as own bytes and shared statics. O(chunks * 6)."""
    chunks = list(chunks)
    containers = _containers(chunks, 48, run_optimize, False)
    return roaring64_bitmap_parts([c.key for c in chunks], containers, layout)


# --------------------------------------------------------------------------- NavigableMap


def roaring64_navigable_map_from_bitmaps(
    bitmaps: Sequence[tuple[int, Sequence[Container], int | None]],
    *,
    last_added_high: int | None = None,
    cardinalities_cached: bool = False,
    values_view: bool = False,
    layout: JvmLayout = COMPRESSED,
) -> int:
    """Deep size of a ``Roaring64NavigableMap`` (1.6.10, default constructor: unsigned order,
    cardinalities cached, ``RoaringBitmapSupplier``).

    ``bitmaps``: per 32-bit high part (signed Java int), its containers and the key capacity of
    its ``RoaringArray`` (None: grown by incremental inserts).

    - the map: ``highToBitmap, supplier, sortedCumulatedCardinality, sortedHighs,
      latestAddedHigh`` (refs), ``signedLongs, doCacheCardinalities, allValid`` (booleans),
      ``firstHighNotValid`` (int) = 40 B; the ``TreeMap`` with its unsigned comparator (an
      anonymous class without fields, 16 B); the supplier (16 B);
    - ``sortedHighs`` int[] and ``sortedCumulatedCardinality`` long[]: empty until a
      cardinality query caches them (``cardinalities_cached``: length
      :func:`cumulative_cache_length`);
    - per high: a ``TreeMap.Entry`` (40 B), a boxed ``Integer`` (16 B), a ``RoaringBitmap``;
    - ``latestAddedHigh``: the ``AbstractMap.SimpleImmutableEntry`` made by ``addLong`` for the
      last high it switched to (24 B) holding a second boxed ``Integer`` unless the high is in
      the ``Integer`` cache (-128..127), where both boxes are the same object;
    - ``values_view``: ``TreeMap.values()`` caches a ``Values`` view (16 B); ``runOptimize()``
      and ``trim()`` create it.

    Empty 152 B; one value 376 B (392 B once the cardinality was asked for).
    """
    n = len(bitmaps)
    total = layout.instance("LZLZIZLLL") + tree_map(n, layout=layout)
    total += 2 * layout.instance("")  # comparator, supplier
    cache = cumulative_cache_length(n) if cardinalities_cached else 0
    total += layout.array(cache, "I") + layout.array(cache, "J")
    boxed_int = layout.boxed("I")
    for _high, containers, key_capacity in bitmaps:
        total += boxed_int + roaring_bitmap_from_containers(containers, key_capacity, layout)
    if last_added_high is not None:
        total += layout.instance("LL")
        if last_added_high not in INTEGER_CACHE:
            total += boxed_int
    if values_view:
        total += layout.instance("L")
    return total


def roaring64_navigable_map_bytes(
    chunks: Iterable[Chunk],
    *,
    run_optimize: bool = False,
    trim: bool = False,
    cardinalities_cached: bool = False,
    layout: JvmLayout = COMPRESSED,
) -> int:
    """Deep size of a ``Roaring64NavigableMap`` built by ``addLong`` with this content (48-bit
    chunk keys, in insertion order), then optionally ``runOptimize()``/``trim()`` (either one
    caches the ``TreeMap.values()`` view) and a cardinality query (``getLongCardinality()``).
    The 32-bit high is ``key >> 16`` as a signed int (``RoaringIntPacking.high``). O(chunks).
    """
    chunks = list(chunks)
    groups: dict[int, list[Container]] = {}
    last_high = None
    for c, cont in zip(chunks, _containers(chunks, 48, run_optimize, trim), strict=True):
        high = _signed32(c.key >> 16)
        groups.setdefault(high, []).append(cont)
        last_high = high
    bitmaps = [(h, cs, len(cs) if trim else None) for h, cs in groups.items()]
    return roaring64_navigable_map_from_bitmaps(
        bitmaps,
        last_added_high=last_high,
        cardinalities_cached=cardinalities_cached,
        values_view=run_optimize or trim,
        layout=layout,
    )


# --------------------------------------------------------------------------- from pyroaring


def sorted_distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values by sort + neighbour compare: O(n log n), about 100x faster than
    ``np.unique`` on numpy 2.4 (whose hash-based path takes 0.6-0.8 s per 1e6 integers)."""
    v = np.sort(np.asarray(values))
    return v[np.r_[True, v[1:] != v[:-1]]] if v.size else v


def chunks_of(values: np.ndarray) -> list[Chunk]:
    """Per-chunk content (key, cardinality, runs) of sorted distinct unsigned values
    (``np.uint32`` or ``np.uint64``). Vectorized: O(n) numpy, O(chunks) Python."""
    v = np.asarray(values)
    if v.size == 0:
        return []
    v = v.astype(np.uint64, copy=False)
    if v.size > 1 and not bool(np.all(v[1:] > v[:-1])):
        raise ValueError("values must be sorted and distinct")
    keys = v >> np.uint64(16)
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    cards = np.diff(np.r_[starts, v.size])
    run_start = np.r_[True, (v[1:] - v[:-1] != 1) | (keys[1:] != keys[:-1])]
    runs = np.add.reduceat(run_start.astype(np.int64), starts)
    return [
        Chunk(int(k), int(c), int(r))
        for k, c, r in zip(keys[starts].tolist(), cards.tolist(), runs.tolist(), strict=True)
    ]


def _pyroaring_chunks(bm: BitMap | BitMap64, dtype: type) -> list[Chunk]:
    """Chunks of a pyroaring bitmap, checked against its ``get_statistics()``."""
    chunks = chunks_of(np.frombuffer(bm.to_array(), dtype=dtype))
    stats = bm.get_statistics()
    if stats["n_containers"] != len(chunks) or stats["cardinality"] != sum(
        c.cardinality for c in chunks
    ):
        raise AssertionError(f"chunking disagrees with get_statistics(): {stats}")
    return chunks


def roaring_bitmap_bytes_of(
    bm: BitMap,
    *,
    run_optimize: bool = False,
    trim: bool = False,
    layout: JvmLayout = COMPRESSED,
) -> int:
    """JVM size of the ``RoaringBitmap`` Java would build from ``bm``'s values with incremental
    ``add`` (pyroaring's own container kinds, e.g. run containers from its constructor, do not
    matter: Java builds arrays and bitmaps until ``runOptimize``). O(n) numpy."""
    return roaring_bitmap_bytes(
        _pyroaring_chunks(bm, np.uint32), run_optimize=run_optimize, trim=trim, layout=layout
    )


def roaring64_bitmap_bytes_of(
    bm: BitMap64,
    *,
    run_optimize: bool = False,
    trim: bool = False,
    layout: JvmLayout = COMPRESSED,
) -> int:
    """JVM size of the ``Roaring64Bitmap`` built from ``bm``'s values by ``addLong`` in ascending
    order. O(n) numpy + O(high keys * 6) for the ART."""
    return roaring64_bitmap_bytes(
        _pyroaring_chunks(bm, np.uint64), run_optimize=run_optimize, trim=trim, layout=layout
    )


def roaring64_navigable_map_bytes_of(
    bm: BitMap64,
    *,
    run_optimize: bool = False,
    trim: bool = False,
    cardinalities_cached: bool = False,
    layout: JvmLayout = COMPRESSED,
) -> int:
    """JVM size of the ``Roaring64NavigableMap`` built from ``bm``'s values by ``addLong`` in
    ascending order. O(n) numpy."""
    return roaring64_navigable_map_bytes(
        _pyroaring_chunks(bm, np.uint64),
        run_optimize=run_optimize,
        trim=trim,
        cardinalities_cached=cardinalities_cached,
        layout=layout,
    )


# --------------------------------------------------------------------------- helpers


def _signed32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def _containers(
    chunks: Iterable[Chunk], bits: int, run_optimize: bool, trim: bool
) -> list[Container]:
    """Java's containers for chunks with distinct ``bits``-bit keys."""
    chunks = list(chunks)
    keys = [c.key for c in chunks]
    if any(not 0 <= k < 1 << bits for k in keys):
        raise ValueError(f"chunk keys must be {bits}-bit")
    if len(set(keys)) != len(keys):
        raise ValueError("chunk keys must be distinct")
    return [container(c, run_optimize=run_optimize, trim=trim) for c in chunks]
