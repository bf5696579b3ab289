"""Proposal ``sorted-chunks`` (issue 27, item 2): one sorted sequence of bounded, delta-coded
chunks keyed by ``(tickKey, ledgerId, entryId)``, full 64-bit positions, a per-ledger bitmap for
membership. Source: the design document ``docs/design/sorted-chunks.md`` (the Python model and
the Java class ``trackerlab.delayed.SortedChunksTracker`` follow it byte for byte); nothing here
changes its encoding, split rule, capacity rule or object graph. Java shape::

    TreeSet<Chunk> chunks;                 // Chunk implements Comparable (first key)
    Chunk probe;                           // reused floor() probe, data == null
    HashMap<Long, Object> bitmaps;         // ledgerId -> RoaringBitmap | Roaring64Bitmap
    final class Chunk { long firstTick, firstLedger, firstEntry, lastTick, lastLedger,
                        lastEntry; int count, length, readOffset; byte[] data; }

``tickKey = deliverAt >> bits``, ``bits = floor(log2 tick)``; an entry is due when the last
millisecond of its tick is within the cutoff, ``(tickKey << bits) | (2^bits - 1) <= cutoff``
(:meth:`SortedChunksTracker.last_ms`), so everything handed out would be refused by
``addMessage`` (``deliverAt <= cutoff``): no replay loop. Not strict this is InMemory 4.2.4's
rule (``getBucketCutoffTime() = cutoff - 2^bits + 1``, InMemoryDelayedDeliveryTracker.java:172-174
at v4.2.4); strict, 4.2.4 rounds keys up instead (:163-170), here they stay rounded down and the
tick is due at its last ms (never early, at most ``2^bits - 1`` ms late). The other proposals keep
the base's rule (:mod:`~trackerlab.models.proposals.base`, due at ``tickKey << bits``).
Tokens (positions after a chunk's first, each relative to the previous ``(t, L, E)``), see
:func:`token`: same tick and ledger ``varint(dE << 2)``; same tick, new ledger
``varint(dL << 2 | 1) varint(E)``; new tick ``varint(dt << 2 | 2) varint(zigzag(dL))
varint(E)``; ``varint`` = unsigned LEB128 of a 64-bit value. A delta of 2^62 or more
(outside the design's stated limit) is a ValueError.

Add: on the append path (key above the last key of the last chunk) the token goes at the end,
or, when it would make ``length > 4096``, a new chunk holds the position alone. Elsewhere the
key is spliced into the floor chunk (the first chunk when the key is below every first key):
token(a -> b) around it becomes token(a -> k) token(k -> b), in place when ``readOffset +
length + g`` fits ``data`` (readOffset and capacity kept), else into ``capacity(length + g)``
bytes at offset 0, and above 4096 bytes its unread positions plus the new one are split into
``count // 2`` and the rest (the first half keeps the object, exact capacities). ``g >= 0``
always (:func:`splice_growth`). Capacity of ``data``: the smallest power of two >= 32 holding
``length``, at most 4096; a split allocates exactly that, an append or a splice that does not
fit grows to it (so, before any dispatch, every capacity is ``capacity(length)``).

Readings of the design chosen here where it is open (the simplest; also in the report):

1. an append that does not fit ``data`` (``readOffset + length + token > data.length``)
   allocates the capacity rule of the new ``length`` and copies only the unread bytes
   (``readOffset`` back to 0); with ``readOffset == 0`` that is the design's doubling;
2. ``runOptimize()`` rule: on the append path, when the added position's ledger has no bitmap
   yet and the previous last key's ledger differs, that previous ledger's bitmap is
   run-optimized. Sizing: a run-optimized ledger is sized as ``runOptimize()`` of its
   *current* content (exact when no add to it follows, the in-order case the rule targets; an
   approximation otherwise, stated);
3. bitmaps are sized as incremental ``add`` in ascending order builds them from their current
   content (removals give no array capacity back in Java; not modelled); a ledger switches to
   a ``Roaring64Bitmap`` when it holds an entry id >= 2^32 and stays one until emptied;
4. ``clear()`` is ``TreeSet.clear()`` and ``HashMap.clear()``: the map keeps its table; the
   ``HashMap`` table is the largest the ledger count ever needed (it never shrinks);
5. the probe is one ``Chunk`` with ``data == null`` (Java also uses its key fields as the
   splice's scan cursor: no scratch field; a split's temporary ``byte[]`` is a local, not
   retained); ``TreeSet``'s shared ``PRESENT`` value and the ``Long`` cache are statics, not
   counted; every key is a 24 B ``Long``.

:meth:`SortedChunksTracker.jvm_bytes` (compressed oops: ``Chunk`` = 80 B)::

    TreeSet 16 + TreeMap 48 + 40 x chunks + sum(Chunk 80 + byte[cap]) + probe 80
    + HashMap(ledgers, table never shrinking) + 24 x ledgers (Long keys) + the bitmaps

:meth:`SortedChunksTracker.buffer_memory_usage` (the design's ``getBufferMemoryUsage``)::

    sum(72 + 16 + data.length) + sum(bitmap.getLongSizeInBytes()) + 40 x chunks

with ``RoaringBitmap.getLongSizeInBytes() = 8 + sum(2 + container)`` (array ``2 card + 4``,
bitmap 8192, run ``4 runs + 4``; RoaringBitmap 1.6.10); a ``Roaring64Bitmap`` is given the same
per-container sum here (Java's is its serialized size: an approximation, stated).

The bulk path (:func:`sorted_build`, :func:`workload_sorted_build`) sizes a **sorted build**:
the tracked positions added in key order (every add on the append path), which is what the
realistic design-lab matrix reports; tests hold it equal to the per-message model fed in that
order. A tracker fed in publish order (the dispatcher's read order) splits chunks in halves
and is larger; the per-message model measures that.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from pyroaring import BitMap64

from trackerlab.models.delayed.bucketed_tracker import precision_bits_for_tick
from trackerlab.models.design import DELAYED, Design
from trackerlab.models.proposals.base import ProposalTracker, tree_depth
from trackerlab.models.proposals.counts import roaring_fixed_bytes
from trackerlab.models.proposals.gap_stream import read_varint, varint
from trackerlab.models.time_buckets import shapes as tbs
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.request import SizeRequest, SizeResult

CHUNK_MAX_BYTES = 4096
CHUNK_MIN_CAPACITY = 32
#: The design's stated limit on tick deltas, ledger deltas and entry gaps.
DELTA_LIMIT = 1 << 62
MAX_ID = (1 << 63) - 1
#: ``getBufferMemoryUsage``'s per-chunk and per-node constants (the design's formula).
BUFFER_CHUNK_BYTES = 72 + 16
TREE_NODE_BYTES = 40

Key = tuple[int, int, int]


# --------------------------------------------------------------------------- codec


def zigzag(x: int) -> int:
    """``(x << 1) ^ (x >> 63)`` on a Java long, as an unsigned 64-bit value. O(1)."""
    return ((x << 1) ^ (x >> 63)) & ((1 << 64) - 1)


def unzigzag(z: int) -> int:
    """The inverse of :func:`zigzag`. O(1)."""
    return (z >> 1) ^ -(z & 1)


def _checked(delta: int) -> int:
    if not 0 <= delta < DELTA_LIMIT:
        raise ValueError(f"sorted-chunks tokens need deltas in 0..2^62-1, got {delta}")
    return delta


def token(prev: Key, cur: Key) -> bytes:
    """The token of ``cur`` after ``prev`` (``cur > prev``), the design's three forms. O(1)."""
    (t0, l0, e0), (t, led, e) = prev, cur
    if t == t0 and led == l0:
        return varint(_checked(e - e0) << 2)
    if t == t0:
        return varint(_checked(led - l0) << 2 | 1) + varint(e)
    if abs(led - l0) >= DELTA_LIMIT:
        raise ValueError(f"sorted-chunks tokens need deltas in 0..2^62-1, got {led - l0}")
    return varint(_checked(t - t0) << 2 | 2) + varint(zigzag(led - l0)) + varint(e)


def splice_growth(a: Key | None, k: Key, b: Key | None) -> int:
    """Bytes a splice adds: ``token(a, k) + token(k, b) - token(a, b)`` (``a`` None: ``k`` is
    a chunk's new first key; ``b`` None: ``k`` goes at the end). Never negative: every token
    field is a varint of a sum of the two new tokens' fields (tick and ledger deltas add up;
    an entry gap or an absolute entry id is at most the new gap plus the new absolute id), and
    ``len(varint(x + y)) <= len(varint(x)) + len(varint(y))``; zero is possible (the
    test ``test_a_splice_never_shrinks``). O(1)."""
    if a is None or b is None:
        return len(token(k, b) if a is None else token(a, k))  # type: ignore[arg-type]  # only one of a, b is None here; mypy does not narrow the other
    return len(token(a, k)) + len(token(k, b)) - len(token(a, b))


def encode(keys: list[Key]) -> bytes:
    """Tokens of ``keys[1:]`` (sorted, distinct); the first key is the chunk's ``first*``."""
    return b"".join(token(a, b) for a, b in itertools.pairwise(keys))


def decode_one(prev: Key, buf: bytes | bytearray, pos: int) -> tuple[Key, int]:
    """The key whose token starts at ``pos`` and the position after it. O(1)."""
    head, pos = read_varint(buf, pos)
    kind, delta = head & 3, head >> 2
    t, led, e = prev
    if kind == 0:
        return (t, led, e + delta), pos
    if kind == 1:
        entry, pos = read_varint(buf, pos)
        return (t, led + delta, entry), pos
    if kind != 2:
        raise ValueError(f"bad token kind {kind} at byte {pos}")
    z, pos = read_varint(buf, pos)
    entry, pos = read_varint(buf, pos)
    return (t + delta, led + unzigzag(z), entry), pos


def decode(first: Key, buf: bytes | bytearray) -> list[Key]:
    """Every key of a chunk: ``first`` and the keys of ``buf``'s tokens. O(bytes)."""
    out, pos = [first], 0
    while pos < len(buf):
        k, pos = decode_one(out[-1], buf, pos)
        out.append(k)
    return out


def capacity(length: int) -> int:
    """``data.length`` for ``length`` bytes: the smallest power of two >= 32 holding it, at most
    4096. O(1)."""
    if not 0 <= length <= CHUNK_MAX_BYTES:
        raise ValueError(f"chunk length must be in 0..4096, got {length}")
    return max(CHUNK_MIN_CAPACITY, 1 << max(0, length - 1).bit_length())


# --------------------------------------------------------------------------- the model


class Chunk:
    """One ``Chunk`` (Python model): ``data[read_offset:read_offset + length]`` holds the
    tokens of the unread positions after ``first``."""

    __slots__ = ("capacity", "count", "data", "first", "last", "length", "read_offset")

    def __init__(self, keys: list[Key]) -> None:
        self.rewrite(keys)

    def rewrite(self, keys: list[Key], data: bytes | None = None) -> None:
        """Re-encode into an exact-capacity ``data`` (drops the consumed prefix). O(bytes)."""
        data = encode(keys) if data is None else data
        self.first, self.last, self.count = keys[0], keys[-1], len(keys)
        self.data = bytearray(data)
        self.length, self.read_offset = len(data), 0
        self.capacity = capacity(len(data))

    def unread(self) -> bytes:
        """The unread tokens. O(bytes)."""
        return bytes(self.data[self.read_offset : self.read_offset + self.length])

    def keys(self) -> list[Key]:
        """The unread keys, decoded. O(bytes)."""
        return decode(self.first, self.unread())


class SortedChunksTracker(ProposalTracker):
    """``SortedChunksTracker extends AbstractDelayedDeliveryTracker`` (the design doc, issue 27):
    a subclass of :class:`ProposalTracker` that overrides its position hooks (64-bit ids, no
    slot table). Add: O(log chunks) + O(1) amortized appending; out of order O(log chunks) +
    O(bytes of the chunk) scan and shift (Java allocates only on a capacity growth or a split);
    scan: O(n + chunks emptied); membership O(1)."""

    def __init__(self, tick_ms: int = 1000, strict: bool = False) -> None:
        super().__init__(tick_ms, strict)
        self.chunks: list[Chunk] = []
        self.bitmaps: dict[int, BitMap64] = {}
        self.wide: set[int] = set()  # ledgers held as Roaring64Bitmap
        self.optimized: set[int] = set()  # ledgers whose bitmap got runOptimize()
        self.map_capacity = 0  # HashMap table length (never shrinks)

    # ------------------------------------------------------------------ position hooks

    def _check_position(self, ledger: int, entry: int) -> None:
        if not (0 <= ledger <= MAX_ID and 0 <= entry <= MAX_ID):
            raise ValueError(
                f"positions need ledger and entry ids in 0..2^63-1, got {ledger}:{entry}"
            )

    def _check_entries(self, entry: np.ndarray) -> None:
        if int(entry.min()) < 0:
            raise ValueError(f"positions need entry ids in 0..2^63-1, got {int(entry.min())}")

    def _released(self, taken: list[tuple[int, int, int]]) -> None:
        """Dispatched positions leave their ledger's bitmap; an empty bitmap is removed."""
        for _, ledger, entry in taken:
            bm = self.bitmaps[ledger]
            bm.discard(entry)
            if not bm:
                del self.bitmaps[ledger]
                self.wide.discard(ledger)
                self.optimized.discard(ledger)

    # ------------------------------------------------------------------ membership

    def contains_message(self, ledger: int, entry: int) -> bool:
        """``containsMessage``: O(1) hash + bitmap."""
        bm = self.bitmaps.get(ledger)
        return bm is not None and entry in bm

    def _hold(self, ledger: int, entry: int) -> None:
        bm = self.bitmaps.get(ledger)
        if bm is None:
            bm = self.bitmaps[ledger] = BitMap64()
            self.map_capacity = max(self.map_capacity, jc.hash_map_capacity(len(self.bitmaps)))
        bm.add(entry)
        if entry >= 1 << 32:
            self.wide.add(ledger)

    # ------------------------------------------------------------------ add

    def _add(self, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        if self.contains_message(ledger, entry):
            return False  # held already: addMessage returns true, nothing counted
        key = (deliver_at >> self.bits, ledger, entry)
        if self.cost is not None:
            self.cost.search(tree_depth(len(self.chunks)))
        if not self.chunks or key > self.chunks[-1].last:
            self._append(key)
        else:
            self._insert(key)
        self._hold(ledger, entry)
        return True

    def _append(self, key: Key) -> None:
        """The fast path: the token at the end of the last chunk, or a new chunk. O(1)."""
        new_ledger = key[1] not in self.bitmaps
        if not self.chunks:
            self.chunks.append(Chunk([key]))
            return
        last = self.chunks[-1]
        prev_ledger = last.last[1]
        tok = token(last.last, key)
        if last.length + len(tok) > CHUNK_MAX_BYTES:
            self.chunks.append(Chunk([key]))
        else:
            if last.read_offset + last.length + len(tok) > last.capacity:
                last.data = bytearray(last.unread())
                last.read_offset = 0
                last.capacity = capacity(last.length + len(tok))
            del last.data[last.read_offset + last.length :]
            last.data += tok
            last.length += len(tok)
            last.last = key
            last.count += 1
        if new_ledger and prev_ledger != key[1]:
            self.optimized.add(prev_ledger)  # runOptimize() of the ledger being left

    def _insert(self, key: Key) -> None:
        """The out-of-order add, ``SortedChunksTracker.splice`` (the design's "Add"): the floor
        chunk's token(a -> b) around ``key`` becomes token(a -> key) token(key -> b) (a plain
        token at the end above its last key; below the first chunk's first key, ``key``
        becomes the first and token(key -> old first) goes in front). With ``g`` the growth:
        ``read_offset + length + g <= capacity``: in place (read_offset and capacity kept);
        else ``length + g <= 4096``: ``capacity(length + g)``, the unread bytes at offset 0;
        else the split in ``count // 2`` and the rest, exact capacities. ``g >= 0`` always
        (:func:`splice_growth`). The model decodes and re-encodes internally (the resulting
        bytes, capacity, read_offset, first, last and count are Java's); Java: O(log chunks) to
        find the chunk + O(bytes of the chunk) scan and shift, no allocation except on a
        capacity growth or a split (amortized)."""
        i = max(0, bisect_right(self.chunks, key, key=lambda c: c.first) - 1)
        chunk = self.chunks[i]
        keys = chunk.keys()
        keys.insert(bisect_right(keys, key), key)
        data = encode(keys)
        if self.cost is not None:
            self.cost.stream(2 * len(data))
        if len(data) > CHUNK_MAX_BYTES:
            half = len(keys) // 2
            low, high = keys[:half], keys[half:]
            chunk.rewrite(low, encode(low))
            self.chunks.insert(i + 1, Chunk(high))
            return
        if chunk.read_offset + len(data) <= chunk.capacity:
            start = chunk.read_offset
            chunk.data[start : start + chunk.length] = data  # the tail shifted by g, in place
        else:
            chunk.data = bytearray(data)
            chunk.read_offset = 0
            chunk.capacity = capacity(len(data))
        chunk.first, chunk.last, chunk.count = keys[0], keys[-1], len(keys)
        chunk.length = len(data)

    # ------------------------------------------------------------------ due scan

    def last_ms(self, tick_key: int) -> int:
        """The last millisecond of tick ``tick_key``: ``(tickKey << bits) | (2^bits - 1)``
        (``lastMillis`` in SortedChunksTracker.java). O(1)."""
        return (tick_key << self.bits) | ((1 << self.bits) - 1)

    def _due(self, cutoff: int) -> Iterator[tuple[int, int, int]]:
        """Keys from the front while their tick's last ms is within ``cutoff`` (``due`` in
        SortedChunksTracker.java; :meth:`has_message_available` and
        :meth:`get_scheduled_messages` use it). Lazy: decodes as it goes."""
        for chunk in self.chunks:
            pos, prev = chunk.read_offset, chunk.first
            end = chunk.read_offset + chunk.length
            while True:
                if self.last_ms(prev[0]) > cutoff:
                    return
                yield prev
                if pos >= end:
                    break
                prev, pos = decode_one(prev, chunk.data, pos)

    def _remove(self, taken: list[tuple[int, int, int]]) -> None:
        """Advance read cursors past ``taken`` (a prefix); emptied chunks leave the set."""
        left = len(taken)
        while left:
            chunk = self.chunks[0]
            if chunk.count <= left:
                left -= chunk.count
                self.chunks.pop(0)
                continue
            for _ in range(left):
                nxt, pos = decode_one(chunk.first, chunk.data, chunk.read_offset)
                chunk.length -= pos - chunk.read_offset
                chunk.read_offset, chunk.first = pos, nxt
                chunk.count -= 1
            left = 0

    def get_scheduled_messages(self, max_messages: int, now_ms: int) -> list[tuple[int, int]]:
        """``getScheduledMessages(n)``: at most ``n`` due positions, smallest keys first,
        returned sorted by (ledger, entry). O(n + chunks emptied)."""
        return super().get_scheduled_messages(max_messages, now_ms)

    def _clear(self) -> None:
        self.chunks.clear()
        self.bitmaps.clear()
        self.wide.clear()
        self.optimized.clear()

    def next_key(self) -> int:
        """``nextDeliveryTime()``: the last ms of the first chunk's first tick (when it is due,
        strict). O(1)."""
        return self.last_ms(self.chunks[0].first[0])

    # ------------------------------------------------------------------ sizes

    def _bitmap_parts(self, layout: JvmLayout) -> tuple[int, int]:
        """(JVM bytes, ``getLongSizeInBytes`` sum) of the ledgers' bitmaps. O(values)."""
        jvm = estimate = 0
        shared: set[str] = set()
        for ledger, bm in self.bitmaps.items():
            values = np.frombuffer(bm.to_array(), dtype=np.uint64)
            chunks = jr.chunks_of(values)
            opt = ledger in self.optimized
            if ledger in self.wide:
                parts = jr.roaring64_bitmap_size(chunks, run_optimize=opt, layout=layout)
                jvm += parts.own
                shared |= parts.shared
                conts = jr._containers(chunks, 48, opt, False)
            else:
                jvm += jr.roaring_bitmap_bytes(chunks, run_optimize=opt, layout=layout)
                conts = jr._containers(chunks, 16, opt, False)
            estimate += 8 + sum(2 + _estimate(c) for c in conts)
        return jvm + jr.art_shared_bytes(shared, layout), estimate

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """The design's object graph (formula in the module docstring). O(chunks + values)."""
        caps = [c.capacity for c in self.chunks]
        return (
            fixed_bytes(len(self.bitmaps), self.map_capacity, layout)
            + chunks_bytes(caps, layout)
            + self._bitmap_parts(layout)[0]
        )

    def buffer_memory_usage(self) -> int:
        """``getBufferMemoryUsage()`` (the broker's ``delayedMessageIndexSizeInBytes``), the
        design's formula. O(chunks + values)."""
        return sum(BUFFER_CHUNK_BYTES + c.capacity for c in self.chunks) + (
            self._bitmap_parts(COMPRESSED)[1] + TREE_NODE_BYTES * len(self.chunks)
        )


def _estimate(c: jr.Container) -> int:
    """``Container.getSizeInBytes()`` (RoaringBitmap 1.6.10): array ``2 card + 4``, bitmap
    8192, run ``4 runs + 4``."""
    if c.kind == "array":
        return 2 * c.cardinality + 4
    if c.kind == "bitmap":
        return 8 * jr.BITMAP_WORDS
    return 4 * c.runs + 4


def chunk_bytes(layout: JvmLayout = COMPRESSED) -> int:
    """One ``Chunk`` object without its array: 6 longs, 3 ints, a reference (80 B)."""
    return layout.instance("JJJJJJIIIL")


def fixed_bytes(ledgers: int, map_capacity: int, layout: JvmLayout = COMPRESSED) -> int:
    """TreeSet + its TreeMap (no nodes), the probe chunk, the HashMap with ``ledgers`` nodes and
    ``Long`` keys (bitmaps excluded). O(1)."""
    return (
        layout.instance("L")
        + jc.tree_map(0, layout=layout)
        + chunk_bytes(layout)
        + jc.hash_map(ledgers, capacity=map_capacity, layout=layout)
        + ledgers * jc.boxed_long(layout)
    )


def chunks_bytes(capacities, layout: JvmLayout = COMPRESSED) -> int:
    """TreeMap nodes, ``Chunk`` objects and their ``byte[]`` of these capacities, and the
    nodes' shared ``TreeSet.PRESENT``. O(chunks)."""
    caps = np.asarray(capacities, dtype=np.int64)
    per = jc.tree_map(1, layout=layout) - jc.tree_map(0, layout=layout) + chunk_bytes(layout)
    arrays = layout.array(0, "B") * len(caps) + int(caps.sum())  # byte[] lengths: 8-aligned
    if np.any(caps % 8):
        raise ValueError("chunk capacities are powers of two >= 32")
    # every node's value is TreeSet.PRESENT, one shared ``new Object()``: in the graph once
    # there is a node (JOL's class histogram: ``Object*1=16``)
    present = layout.instance("") if len(caps) else 0
    return len(caps) * per + arrays + present


# --------------------------------------------------------------------------- bulk path


def varint_lengths(x: np.ndarray) -> np.ndarray:
    """LEB128 byte length of each unsigned 64-bit value (vectorized). O(n)."""
    x = np.asarray(x, dtype=np.uint64)
    n = np.ones(x.shape, dtype=np.int64)
    for k in range(1, 10):
        n += x >= np.uint64(1 << (7 * k))
    return n


def token_lengths(tick: np.ndarray, ledger: np.ndarray, entry: np.ndarray) -> np.ndarray:
    """Byte length of each key's token after its predecessor (index 0: none, 0) for keys sorted
    by (tick, ledger, entry) and distinct: :func:`token` vectorized. O(n)."""
    t, led, e = (np.asarray(a, dtype=np.int64) for a in (tick, ledger, entry))
    out = np.zeros(len(t), dtype=np.int64)
    if len(t) < 2:
        return out
    dt, dl, de = t[1:] - t[:-1], led[1:] - led[:-1], e[1:] - e[:-1]
    same_t, same_l = dt == 0, dl == 0
    if np.any((dt < 0) | (dt >= DELTA_LIMIT) | (np.abs(dl) >= DELTA_LIMIT)):
        raise ValueError("sorted-chunks tokens need sorted keys and deltas below 2^62")
    u = np.uint64
    len_e = varint_lengths(e[1:].astype(u))
    gap = varint_lengths(np.where(same_t & same_l, de, 0).astype(u) << u(2))
    new_l = varint_lengths(np.where(same_t, dl, 0).astype(u) << u(2) | u(1)) + len_e
    zz = ((dl << 1) ^ (dl >> 63)).astype(u)
    new_t = varint_lengths(dt.astype(u) << u(2) | u(2)) + varint_lengths(zz) + len_e
    out[1:] = np.where(same_t, np.where(same_l, gap, new_l), new_t)
    return out


def chunk_lengths(tokens: np.ndarray, carry: int | None = None) -> tuple[list[int], int]:
    """Greedy append-path chunking: ``data`` lengths of the chunks closed in this block and the
    length of the open one (``carry``: the open chunk's length before the block; None: the first
    key starts a chunk). O(n) numpy + O(chunks) Python."""
    tok = np.asarray(tokens, dtype=np.int64)
    cum = np.concatenate(([0], np.cumsum(tok)))
    closed: list[int] = []
    i, run = 0, carry
    if run is None:
        run, i = 0, 1  # the first key opens a chunk: its token is not stored
        if len(tok) == 0:
            return closed, 0
    n = len(tok)
    while i < n:
        # the largest j with run + cum[j] - cum[i] <= 4096: keys i..j-1 join the open chunk
        j = int(np.searchsorted(cum, cum[i] + CHUNK_MAX_BYTES - run, side="right")) - 1
        run += int(cum[j] - cum[i])
        if j >= n:
            return closed, run
        closed.append(run)
        run, i = 0, j + 1  # key j opens the next chunk
    return closed, run


def chunk_capacities(lengths: np.ndarray) -> np.ndarray:
    """:func:`capacity` of each length (vectorized). O(n)."""
    length = np.asarray(lengths, dtype=np.int64)
    if np.any((length < 0) | (length > CHUNK_MAX_BYTES)):
        raise ValueError("chunk lengths must be in 0..4096")
    p = np.ceil(np.log2(np.maximum(length, 1))).astype(np.int64)
    return np.maximum(CHUNK_MIN_CAPACITY, np.left_shift(1, p))


@dataclass(frozen=True)
class SortedBuild:
    """A paused tracker built in key order: its counts and JVM bytes."""

    entries: int
    chunks: int
    ledgers: int
    data_bytes: int  # sum of chunk lengths
    chunk_jvm_bytes: int  # TreeMap nodes, Chunk objects, byte[]
    bitmap_jvm_bytes: int
    jvm_bytes: int

    @classmethod
    def of(cls, entries: int, lengths: np.ndarray, ledgers: int, bitmap_jvm_bytes: int,
           layout: JvmLayout = COMPRESSED) -> SortedBuild:  # fmt: skip
        """The build from its chunk lengths (in key order), ledger count and bitmap bytes: the
        chunks at the capacity rule, the fixed part (the ``HashMap`` table the ledgers need) and
        the bitmaps. O(chunks)."""
        chunk_part = chunks_bytes(chunk_capacities(lengths), layout)
        fixed = fixed_bytes(ledgers, jc.hash_map_capacity(ledgers), layout)
        return cls(
            entries=entries,
            chunks=len(lengths),
            ledgers=ledgers,
            data_bytes=int(lengths.sum()),
            chunk_jvm_bytes=chunk_part,
            bitmap_jvm_bytes=bitmap_jvm_bytes,
            jvm_bytes=fixed + chunk_part + bitmap_jvm_bytes,
        )


def bitmaps_jvm_bytes(
    ledger: np.ndarray, entry: np.ndarray, optimized: np.ndarray, layout: JvmLayout = COMPRESSED
) -> int:
    """The ledgers' ``RoaringBitmap``s (vectorized) for positions sorted by (ledger, entry),
    distinct, entry ids below 2^32; ``optimized``: the ledger ids run-optimized. O(n)."""
    if len(ledger) == 0:
        return 0
    led = np.asarray(ledger, dtype=np.int64)
    val = np.asarray(entry, dtype=np.int64)
    key = val >> 16
    new = np.r_[True, (led[1:] != led[:-1]) | (key[1:] != key[:-1])]
    starts = np.flatnonzero(new)
    card = np.diff(np.r_[starts, len(val)])
    breaks = new.copy()
    breaks[1:] |= val[1:] != val[:-1] + 1
    runs = np.add.reduceat(breaks.astype(np.int64), starts)
    conts = tbs.container_bytes(card, runs, False, layout)
    opt = np.isin(led[starts], np.asarray(optimized, dtype=np.int64))
    if opt.any():
        conts = np.where(opt, tbs.container_bytes(card, runs, True, layout), conts)
    owners = led[starts]
    first = np.r_[True, owners[1:] != owners[:-1]]
    per_bitmap = np.diff(np.r_[np.flatnonzero(first), len(owners)])
    k, n = np.unique(per_bitmap, return_counts=True)
    fixed = sum(int(c) * roaring_fixed_bytes(int(d), layout) for d, c in zip(k, n, strict=True))
    return int(conts.sum()) + fixed


def sorted_build(
    tick: np.ndarray, ledger: np.ndarray, entry: np.ndarray, layout: JvmLayout = COMPRESSED
) -> SortedBuild:
    """JVM bytes of a tracker that added these distinct positions in key order, vectorized
    (no per-message Python): token lengths, greedy chunking, capacities, bitmaps. Ledgers with
    an entry id >= 2^32 are sized one by one (``Roaring64Bitmap``). O(n log n)."""
    t, led, e = (np.asarray(a, dtype=np.int64) for a in (tick, ledger, entry))
    order = np.lexsort((e, led, t))
    t, led, e = t[order], led[order], e[order]
    closed, open_len = chunk_lengths(token_lengths(t, led, e))
    lengths = np.asarray(closed + ([open_len] if len(t) else []), dtype=np.int64)
    # runOptimize rule: the key before each ledger's first key, when another ledger
    uniq, first_at = np.unique(led, return_index=True)
    before = first_at[first_at > 0] - 1
    optimized = np.unique(led[before])
    by_pos = np.lexsort((e, led))
    bl, be = led[by_pos], e[by_pos]
    wide = np.unique(bl[be >= 1 << 32])
    narrow = ~np.isin(bl, wide)
    bitmaps = bitmaps_jvm_bytes(bl[narrow], be[narrow], optimized, layout)
    shared: set[str] = set()
    for w in wide.tolist():
        values = be[bl == w].astype(np.uint64)
        parts = jr.roaring64_bitmap_size(
            jr.chunks_of(values), run_optimize=bool(np.isin(w, optimized)), layout=layout
        )
        bitmaps += parts.own
        shared |= parts.shared
    bitmaps += jr.art_shared_bytes(shared, layout)
    return SortedBuild.of(len(t), lengths, len(uniq), bitmaps, layout)


def tracked_arrays(workload, tick_ms: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tickKey, ledger, entry) of the positions a paused tracker holds after every message was
    added as published (not strict, dispatch lag 0): ``deliverAt > publish + tick``, and a
    position re-added (a batch's further messages) keeps its first add. O(messages) numpy."""
    bits = precision_bits_for_tick(tick_ms)
    parts = []
    for c in workload.chunks():
        keep = c.deliver_at > c.publish_ms + tick_ms
        parts.append((c.deliver_at[keep] >> bits, c.ledger[keep], c.entry[keep]))
    if not parts:
        return tuple(np.zeros(0, dtype=np.int64) for _ in range(3))  # type: ignore[return-value]  # three empty columns: a 3-tuple; mypy sees tuple[ndarray, ...]
    t, led, e = (np.concatenate(col) for col in zip(*parts, strict=True))
    # publish order is (ledger, entry) order: a re-added position is the next one's neighbour
    first = np.r_[True, (led[1:] != led[:-1]) | (e[1:] != e[:-1])]
    return t[first], led[first], e[first]


def workload_sorted_build(workload, tick_ms: int, layout: JvmLayout = COMPRESSED) -> SortedBuild:
    """:func:`sorted_build` of a workload's tracked positions (:func:`tracked_arrays`). Memory:
    about 48 B per tracked message while sorting. O(n log n) numpy."""
    return sorted_build(*tracked_arrays(workload, tick_ms), layout=layout)


# --------------------------------------------------------------------------- the design


def size_sorted_chunks(request: SizeRequest) -> SizeResult:
    """The workload's messages added as published to a paused tracker, sized as a sorted build
    (:func:`workload_sorted_build`). O(n log n) numpy."""
    b = workload_sorted_build(request.workload, request.tick_ms, request.jvm_layout)
    return SizeResult(
        structure="sorted-chunks",
        entries=b.entries,
        jvm_bytes=b.jvm_bytes,
        jvm_direct_bytes=0,
        details={
            "chunks": b.chunks,
            "ledgers": b.ledgers,
            "token_bytes": b.data_bytes,
            "bitmap_jvm_bytes": b.bitmap_jvm_bytes,
            "build_order": "key order (sorted build)",
        },
    )


DESIGN = Design(
    tracker=DELAYED,
    summary="proposal: one sorted sequence of delta-coded byte[] chunks (at most 4 KiB) keyed "
    "by (tick, ledger, entry), 64-bit positions, per-ledger RoaringBitmap membership",
    java="TreeSet<Chunk> (byte[] data) + HashMap<Long, RoaringBitmap>",
    source="lib/trackerlab/models/proposals/sorted_chunks.py",
    prs=(),
    releases="proposal",
    memory="heap",
    options=("tick_ms", "layout"),
    build=size_sorted_chunks,
    columns=("jvm",),
    proposal=True,
)
