"""The time-bucket index shared by PIP-393's nack tracker and the time-bucketed delayed tracker.

Java (#23600 ``NegativeAcksTracker``, #23611 ``InMemoryDelayedDeliveryTracker``, both in
apache/pulsar)::

    Long2ObjectSortedMap<Long2ObjectMap<Roaring64Bitmap>> map = new Long2ObjectAVLTreeMap<>();
    map.computeIfAbsent(trimLowerBit(ts, bits), k -> new Long2ObjectOpenHashMap<>())
       .computeIfAbsent(ledgerId, k -> new Roaring64Bitmap()).add(entryId);

with ``trimLowerBit(ts, bits) = ts & (-1L << bits)``: a bucket holds the entries whose
timestamp falls in one aligned window of ``2^bits`` ms. Later versions replace the inner map
by a sorted one (``TreeMap`` after #25413, ``Long2ObjectRBTreeMap`` once fastutil returned),
which changes only the order ledgers are visited in (``inner="sorted"``).

The Python model keeps the same shape: a ``SortedDict`` of bucket → ``dict`` of ledger →
``pyroaring.BitMap64``. Entries are added in ascending order per (bucket, ledger) by the
bulk path, with ``optimize=False`` so each bitmap has the containers Java's incremental
``add`` would pick (array up to 4096 values per 2^16 chunk, then bitset; never run unless
``run_optimize=True``, the explicitly named *improvement* variant).
"""

from __future__ import annotations

import array
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, overload

import numpy as np
from pyroaring import BitMap64
from sortedcontainers import SortedDict

from trackerlab.core.params import check_choice, check_int
from trackerlab.models.primitives.fastutil_order import FastutilLongKeyTable, iteration_order

INNER_KINDS = ("open-hash", "sorted")


@overload
def trim_lower_bits(timestamp_ms: int, bits: int) -> int: ...
@overload
def trim_lower_bits(timestamp_ms: np.integer[Any], bits: int) -> np.integer[Any]: ...
@overload
def trim_lower_bits(timestamp_ms: np.ndarray, bits: int) -> np.ndarray: ...
def trim_lower_bits(
    timestamp_ms: int | np.integer[Any] | np.ndarray, bits: int
) -> int | np.integer[Any] | np.ndarray:
    """``timestamp & (-1L << bits)``: the bucket key (floor to a multiple of ``2^bits``)."""
    mask = ~((1 << bits) - 1)
    if isinstance(timestamp_ms, np.ndarray):
        return timestamp_ms & np.int64(mask)  # a numpy scalar avoids a slow int conversion
    return timestamp_ms & mask


def _is_lex_sorted(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> bool:
    """True if rows (a, b, c) are in non-decreasing lexicographic order. O(n)."""
    da, db, dc = np.diff(a), np.diff(b), np.diff(c)
    return bool(np.all((da > 0) | ((da == 0) & ((db > 0) | ((db == 0) & (dc >= 0))))))


def _bitmap(values: np.ndarray) -> BitMap64:
    """A BitMap64 from sorted unique uint64 values via the ``array('Q')`` bulk constructor."""
    arr = array.array("Q")
    arr.frombytes(np.ascontiguousarray(values, dtype=np.uint64).tobytes())
    return BitMap64(arr, optimize=False)


@dataclass(frozen=True)
class BucketStats:
    """Counts describing an index: buckets, (bucket, ledger) bitmaps, entries, containers."""

    buckets: int
    bitmaps: int
    entries: int
    array_containers: int
    bitset_containers: int
    run_containers: int


class TimeBucketIndex:
    """``trimmed timestamp -> ledgerId -> entryIds`` with Pulsar's ordering rules.

    ``add`` is O(log buckets); ``add_arrays`` groups numpy arrays and builds each
    (bucket, ledger) bitmap with one bulk call, O(n log n) for the sort.
    """

    def __init__(
        self, trim_bits: int, inner: str = "open-hash", run_optimize: bool = False
    ) -> None:
        self.trim_bits = check_int("trim bits", trim_bits, 0, 62)
        self.inner = check_choice("inner map", inner, INNER_KINDS)
        self.run_optimize = run_optimize
        self.buckets: SortedDict = SortedDict()
        # replayed fastutil tables of open-hash buckets a ledger was removed from
        self._tables: dict[int, FastutilLongKeyTable] = {}

    # ------------------------------------------------------------------ per message

    def bucket_of(self, timestamp_ms: int) -> int:
        """``trimLowerBit(timestamp, bits)``: the bucket key of a time. O(1)."""
        return int(trim_lower_bits(timestamp_ms, self.trim_bits))

    def add(self, bucket: int, ledger: int, entry: int) -> bool:
        """``computeIfAbsent(bucket).computeIfAbsent(ledger).add(entry)`` (``addMessage``,
        ``negativeAcknowledge``); True if it was not there yet. O(log buckets)."""
        ledgers = self.buckets.get(bucket)
        if ledgers is None:
            ledgers = self.buckets[bucket] = {}
        bitmap = ledgers.get(ledger)
        if bitmap is None:
            bitmap = ledgers[ledger] = BitMap64()
        if entry in bitmap:
            return False
        bitmap.add(entry)
        return True

    # ------------------------------------------------------------------ bulk

    def add_arrays(self, buckets: np.ndarray, ledgers: np.ndarray, entries: np.ndarray) -> int:
        """Add many entries at once: one bulk bitmap call per (bucket, ledger) group; returns
        how many were not in the index yet.

        Input already in (bucket, ledger, entry) order — any stream with a fixed delay — is
        not sorted again. Groups new to the index are inserted in order of first appearance
        in the input, so the inner maps see ledgers in the same order the per-message path
        would. O(n) for ordered input, O(n log n) otherwise, plus O(groups) Python calls.
        """
        if len(entries) == 0:
            return 0
        order = (
            None
            if _is_lex_sorted(buckets, ledgers, entries)
            else np.lexsort((entries, ledgers, buckets))
        )
        if order is None:
            b, led, e = buckets, ledgers, entries
        else:
            b, led, e = buckets[order], ledgers[order], entries[order]
        same_group = (b[1:] == b[:-1]) & (led[1:] == led[:-1])
        duplicate = same_group & (e[1:] == e[:-1])  # batched messages share an entry
        if duplicate.any():
            keep = np.r_[True, ~duplicate]
            b, led, e = b[keep], led[keep], e[keep]
            order = None if order is None else order[keep]
            same_group = (b[1:] == b[:-1]) & (led[1:] == led[:-1])
        starts = np.flatnonzero(np.r_[True, ~same_group])
        ends = np.r_[starts[1:], len(b)]
        values = e.astype(np.uint64)
        groups = range(len(starts))
        if order is not None:
            groups = np.argsort(np.minimum.reduceat(order, starts), kind="stable").tolist()
        added = 0
        for g in groups:
            lo, hi = starts[g], ends[g]
            added += self._merge(int(b[lo]), int(led[lo]), values[lo:hi])
        return added

    def _merge(self, bucket: int, ledger: int, values: np.ndarray) -> int:
        """Add sorted unique ``values`` to one bitmap; returns how many were new."""
        ledgers = self.buckets.get(bucket)
        if ledgers is None:
            ledgers = self.buckets[bucket] = {}
        bitmap = ledgers.get(ledger)
        if bitmap is None:
            ledgers[ledger] = _bitmap(values)
            return len(values)
        before = len(bitmap)
        arr = array.array("Q")
        arr.frombytes(np.ascontiguousarray(values, dtype=np.uint64).tobytes())
        bitmap.update(arr)
        return len(bitmap) - before

    def seal(self) -> None:
        """Release capacity slack (``shrink_to_fit``) and, for the improvement variant,
        convert to run containers where smaller (``runOptimize``). O(entries)."""
        for ledgers in self.buckets.values():
            for bitmap in ledgers.values():
                if self.run_optimize:
                    bitmap.run_optimize()
                bitmap.shrink_to_fit()

    # ------------------------------------------------------------------ queries

    def ledgers_in_order(self, bucket: int) -> list[int]:
        """The ledgers of a bucket in the order Pulsar's inner map iterates them
        (``long2ObjectEntrySet()``). O(ledgers) expected; sorted: O(ledgers log ledgers).

        An open-hash inner map is replayed from its insertion order (exact while nothing was
        removed from it); after :meth:`remove_ledger` its replayed table is kept until the
        bucket goes, so removals' backward shifts are exact too.
        """
        ledgers = self.buckets[bucket]
        if self.inner == "sorted":
            return sorted(ledgers)
        table = self._tables.get(bucket)
        return list(table) if table is not None else iteration_order(ledgers)

    def remove_ledger(self, bucket: int, ledger: int) -> None:
        """``ledgerMap.remove(ledgerId)``: the bucket stays, maybe empty. O(1) expected; O(ledgers)
        to replay an open-hash table the first time."""
        if self.inner == "open-hash":
            table = self._tables.get(bucket)
            if table is None:
                table = self._tables[bucket] = FastutilLongKeyTable()
                for key in self.buckets[bucket]:
                    table.insert(key)
            table.remove(ledger)
        del self.buckets[bucket][ledger]

    def first_bucket(self) -> int | None:
        """``firstLongKey()``, or None when empty. O(1)."""
        return self.buckets.keys()[0] if self.buckets else None

    def pop_bucket(self, bucket: int) -> dict[int, BitMap64]:
        """``remove(timestamp)`` of a whole bucket; its ledger map. O(log buckets)."""
        self._tables.pop(bucket, None)
        return self.buckets.pop(bucket)

    def __len__(self) -> int:
        """Entries stored, counting an entry once per bucket it is in (as Pulsar counts)."""
        return sum(len(bm) for ledgers in self.buckets.values() for bm in ledgers.values())

    def iter_bitmaps(self) -> Iterator[tuple[int, int, BitMap64]]:
        """``(bucket, ledger, bitmap)`` in bucket order (no Java method). O(bitmaps)."""
        for bucket, ledgers in self.buckets.items():
            for ledger, bitmap in ledgers.items():
                yield bucket, ledger, bitmap

    def stats(self) -> BucketStats:
        """Bucket, bitmap, entry and container counts. O(bitmaps)."""
        bitmaps = entries = arrays = bitsets = runs = 0
        for _, _, bm in self.iter_bitmaps():
            s = bm.get_statistics()
            bitmaps += 1
            entries += s["cardinality"]
            arrays += s["n_array_containers"]
            bitsets += s["n_bitset_containers"]
            runs += s["n_run_containers"]
        return BucketStats(len(self.buckets), bitmaps, entries, arrays, bitsets, runs)

    def content(self, runs: bool = True) -> np.ndarray:
        """One row per (bucket, ledger, 2^16 chunk): bucket, ledger, chunk key, cardinality,
        runs, insertion rank of the ledger in its bucket. Feeds the JVM layout model.

        With ``runs=True`` each bitmap's values are exported to count its runs exactly.
        With ``runs=False`` single-chunk bitmaps (entry ids below 65,536, the usual case)
        cost O(1) each and the run column says only what sizing needs: 0 in a plain index
        (Java's ``add`` never builds runs); in a sealed run-optimized index the run count of
        a run container, or the cardinality where CRoaring kept an array or bitset (its
        ``run_optimize`` uses Java's "strictly smaller" rule, so Java keeps it too).
        """
        rows: list[tuple[int, int, int, int, int, int]] = []
        blocks: list[np.ndarray] = []
        for bucket, ledgers in self.buckets.items():
            for rank, (ledger, bm) in enumerate(ledgers.items()):
                key = bm.min() >> 16
                if runs or key != bm.max() >> 16:
                    values = np.frombuffer(bm.to_array(), dtype=np.uint64)
                    blocks.append(_chunk_rows(bucket, ledger, rank, values))
                else:
                    card, n_runs = len(bm), 0
                    if self.run_optimize:
                        stats = bm.get_statistics()
                        n_runs = card
                        if stats["n_run_containers"]:
                            n_runs = (stats["n_bytes_run_containers"] - 2) // 4
                    rows.append((bucket, ledger, key, card, n_runs, rank))
        if rows:
            blocks.append(np.array(rows, dtype=np.int64))
        if not blocks:
            return np.zeros((0, 6), dtype=np.int64)
        table = np.concatenate(blocks)
        return table[np.lexsort((table[:, 2], table[:, 5], table[:, 0]))]


def _chunk_rows(bucket: int, ledger: int, rank: int, values: np.ndarray) -> np.ndarray:
    """Per-2^16-chunk cardinality and run count of one bitmap's sorted values."""
    keys = (values >> np.uint64(16)).astype(np.int64)
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    card = np.diff(np.r_[starts, len(keys)])
    breaks = np.r_[True, (np.diff(values.astype(np.int64)) != 1) | (keys[1:] != keys[:-1])]
    runs = np.add.reduceat(breaks.astype(np.int64), starts)
    out = np.empty((len(starts), 6), dtype=np.int64)
    out[:, 0], out[:, 1], out[:, 2] = bucket, ledger, keys[starts]
    out[:, 3], out[:, 4], out[:, 5] = card, runs, rank
    return out
