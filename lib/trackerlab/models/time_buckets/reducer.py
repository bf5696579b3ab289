"""The exact content of a time-bucket index, reduced from message arrays as they stream by.

A :class:`~trackerlab.models.time_buckets.time_bucket_index.TimeBucketIndex` is fully described, for sizing,
by its (bucket, ledger, 2^16 chunk) rows: cardinality and number of runs. This module
derives them from ``(bucket, ledger, entry)`` arrays with numpy and folds them, as soon as
a ledger is finished, into additive totals (:data:`TOTAL_FIELDS`) and per-bucket ledger
counts, so memory stays bounded by one piece of messages plus one open ledger.

The order argument that makes this exact: messages come in index order, and a ledger's
messages are one contiguous index range (ledger = entry_seq // entries_per_ledger). Pieces
cut at entry boundaries split a (bucket, ledger, chunk) group's entries into disjoint,
increasing ranges, so two pieces merge by adding cardinalities and runs and removing one
run where the first piece's last entry + 1 is the next piece's first entry
(:func:`merge_pieces`). A reducer that saw all of a ledger's messages (the caller's task
range covers it) owns its bitmaps; a ledger cut by a task boundary leaves per-bitmap
partial sums (:data:`~trackerlab.models.time_buckets.aggregates.CHUNK_FIELDS`, additive
because task ranges are cut at 2^16-entry chunk boundaries) for the engine to add up.

Costs per piece of n messages: O(n) for input in (bucket, ledger, entry) order (fixed
delays), else one ``np.sort`` of packed 64-bit keys (``np.lexsort`` when the key ranges do
not fit 63 bits); O(rows) for the rest.

The design lab's proposals (:mod:`trackerlab.models.proposals`) are sized from the same pass:
each bitmap's per-bucket value packs its ledger with its packed and spilled counts
(:func:`~trackerlab.models.time_buckets.lab_stats.group_values`), delayed-tracker points add
the token bytes of the ``time-buckets-hier`` streams under tagged keys (messages of a ledger
are held until the ledger is complete, since a ledger's runs span pieces), and the totals
gain the tracked delays' and entry ids' range (:mod:`~trackerlab.models.time_buckets.lab_stats`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

import trackerlab.models.time_buckets.aggregates as tba
import trackerlab.models.time_buckets.lab_stats as lab
import trackerlab.models.time_buckets.shapes as tbs
from trackerlab.models.time_buckets.time_bucket_index import trim_lower_bits
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.workloads.stream import MessageChunk, Workload

#: Columns of a chunk table (one row per (bucket, ledger, chunk) group, or a piece of one).
CHUNK_COLUMNS = ("bucket", "ledger", "chunk", "card", "runs", "first", "last")
#: Additive totals of a reducer; ``*_min``/``*_max`` combine by min/max.
SUM_FIELDS = (
    "messages",
    "selected",
    "index_messages",
    "heap_entries",
    "bitmaps",
    *tba.CHUNK_FIELDS,
    "jvm_plain",
    "jvm_runs",
    "python_plain",
    "python_runs",
    "lab_spill_jvm",
    "lab_stream_elements",
    "lab_stream_runs",
    "lab_stream_bytes",
)
MIN_FIELDS = ("bucket_min", "ledger_min", "delay_min")
MAX_FIELDS = ("bucket_max", "ledger_max", "delay_max", "entry_max", *tba.ART_STATIC_FIELDS.values())
TOTAL_FIELDS = SUM_FIELDS + MIN_FIELDS + MAX_FIELDS
_I64_MAX = np.iinfo(np.int64).max
_I64_MIN = np.iinfo(np.int64).min


def _width(x: int) -> int:
    return max(int(x).bit_length(), 1)


def sort_distinct(
    bucket: np.ndarray, ledger: np.ndarray, entry: np.ndarray, trim_bits: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (bucket, ledger, entry) triples in lexicographic order.

    Already ordered input (checked, O(n)) is only deduplicated. Otherwise one ``np.sort`` of
    ``(bucket - min) >> trim_bits | ledger - min | entry`` packed into an int64 when the three
    widths sum to at most 63 bits, else ``np.lexsort``. Buckets must be multiples of
    ``2^trim_bits``."""
    if len(entry) == 0:
        return bucket, ledger, entry
    db, dl, de = np.diff(bucket), np.diff(ledger), np.diff(entry)
    ordered = bool(np.all((db > 0) | ((db == 0) & ((dl > 0) | ((dl == 0) & (de >= 0))))))
    if not ordered:
        b0, l0 = int(bucket.min()), int(ledger.min())
        wb = _width((int(bucket.max()) - b0) >> trim_bits)
        wl = _width(int(ledger.max()) - l0)
        we = _width(int(entry.max()))
        if entry.min() >= 0 and wb + wl + we <= 63:
            key = ((bucket - b0) >> trim_bits) << (wl + we)
            key |= (ledger - l0) << we
            key |= entry
            key.sort()
            bucket = ((key >> (wl + we)) << trim_bits) + b0
            ledger = ((key >> we) & ((1 << wl) - 1)) + l0
            entry = key & ((1 << we) - 1)
        else:
            order = np.lexsort((entry, ledger, bucket))
            bucket, ledger, entry = bucket[order], ledger[order], entry[order]
    keep = np.r_[True, (bucket[1:] != bucket[:-1]) | (ledger[1:] != ledger[:-1])]
    keep[1:] |= entry[1:] != entry[:-1]
    if not keep.all():
        bucket, ledger, entry = bucket[keep], ledger[keep], entry[keep]
    return bucket, ledger, entry


def chunk_table(
    bucket: np.ndarray, ledger: np.ndarray, entry: np.ndarray, trim_bits: int = 0
) -> dict[str, np.ndarray]:
    """One row per (bucket, ledger, chunk) group of the messages: cardinality, number of runs
    of consecutive entry ids, first and last entry id; rows in group order. O(n) after
    :func:`sort_distinct`."""
    b, led, e = sort_distinct(bucket, ledger, entry, trim_bits)
    if len(e) == 0:
        return {c: np.zeros(0, dtype=np.int64) for c in CHUNK_COLUMNS}
    chunk = e >> 16
    new = np.r_[True, (b[1:] != b[:-1]) | (led[1:] != led[:-1]) | (chunk[1:] != chunk[:-1])]
    starts = np.flatnonzero(new)
    ends = np.r_[starts[1:], len(e)]
    breaks = new.copy()
    breaks[1:] |= e[1:] != e[:-1] + 1
    return {
        "bucket": b[starts],
        "ledger": led[starts],
        "chunk": chunk[starts],
        "card": ends - starts,
        "runs": np.add.reduceat(breaks.astype(np.int64), starts),
        "first": e[starts],
        "last": e[ends - 1],
    }


def concat_tables(tables: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {c: np.concatenate([t[c] for t in tables]) for c in tables[0]}


def take(table: dict[str, np.ndarray], mask: np.ndarray) -> dict[str, np.ndarray]:
    return {c: v[mask] for c, v in table.items()}


def merge_pieces(table: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Merge rows of the same group given in piece order (disjoint, increasing entry ranges):
    cardinalities add up, and a run continues across two pieces when the first's last
    entry + 1 is the second's first entry. Stable sort by group, O(rows log rows)."""
    n = len(table["card"])
    if n < 2:
        return table
    order = np.lexsort((np.arange(n), table["chunk"], table["ledger"], table["bucket"]))
    t = {c: v[order] for c, v in table.items()}
    same = (
        (t["bucket"][1:] == t["bucket"][:-1])
        & (t["ledger"][1:] == t["ledger"][:-1])
        & (t["chunk"][1:] == t["chunk"][:-1])
    )
    if not same.any():
        return t
    joined = same & (t["first"][1:] == t["last"][:-1] + 1)
    starts = np.flatnonzero(np.r_[True, ~same])
    ends = np.r_[starts[1:], n]
    continued = np.add.reduceat(np.r_[joined, False].astype(np.int64), starts)
    return {
        "bucket": t["bucket"][starts],
        "ledger": t["ledger"][starts],
        "chunk": t["chunk"][starts],
        "card": np.add.reduceat(t["card"], starts),
        "runs": np.add.reduceat(t["runs"], starts) - continued,
        "first": t["first"][starts],
        "last": t["last"][ends - 1],
    }


def bitmap_sums(
    table: dict[str, np.ndarray], layout: JvmLayout = COMPRESSED
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Per-bitmap ``(bucket, ledger, CHUNK_FIELDS sums)`` of a merged chunk table in group
    order."""
    cols = tba.chunk_columns(table["card"], table["runs"], layout)
    b, led = table["bucket"], table["ledger"]
    starts = np.flatnonzero(np.r_[True, (b[1:] != b[:-1]) | (led[1:] != led[:-1])])
    if len(starts) == len(b):  # one chunk per bitmap (entry ids below 65,536): nothing to add
        return b, led, cols
    return b[starts], led[starts], {k: np.add.reduceat(v, starts) for k, v in cols.items()}


count_by_key = lab.count_by_key


@dataclass
class ReducerOutput:
    """What a reducer hands to the engine: totals, (bucket, ledger count) pairs of the
    bitmaps it owns, and per-bitmap partial sums of ledgers cut by its task boundaries."""

    totals: dict[str, int]
    bucket_keys: np.ndarray
    bucket_ledgers: np.ndarray
    partial_bucket: np.ndarray
    partial_ledger: np.ndarray
    partial_sums: dict[str, np.ndarray]


class ContentReducer:
    """Fold pieces of one task's messages into index totals.

    ``ledger_messages`` = entries per ledger x batch size; ledger ``L`` holds messages
    ``(L - start_ledger) * ledger_messages`` up to the next ledger's start (or the stream's
    end, ``total_messages``). The task covers messages ``task_lo .. task_hi - 1``; :meth:`add` takes its selected messages in index
    order, in pieces that end at entry boundaries. ``tick_ms``: the delayed tracker's
    ``addMessage`` drops messages due within one tick (``delay <= tick``), both from the index
    and from the heap; None tracks every selected message (negative acks).
    """

    #: compact the per-bucket counts when they grow past this many rows
    COMPACT_ROWS = 1 << 22

    def __init__(
        self,
        trim_bits: int,
        ledger_messages: int,
        start_ledger: int,
        task_lo: int,
        task_hi: int,
        total_messages: int,
        tick_ms: int | None = None,
        layout: JvmLayout = COMPRESSED,
    ) -> None:
        self.trim_bits = trim_bits
        self.ledger_messages = ledger_messages
        self.start_ledger = start_ledger
        self.task_lo, self.task_hi = task_lo, task_hi
        self.total_messages = total_messages
        self.tick_ms = tick_ms
        self.layout = layout
        self.totals = dict.fromkeys(SUM_FIELDS, 0)
        self.totals |= dict.fromkeys(MIN_FIELDS, _I64_MAX) | dict.fromkeys(MAX_FIELDS, _I64_MIN)
        self._pending: list[dict[str, np.ndarray]] = []
        self._carried = np.zeros(0, dtype=np.int64)  # ledgers whose rows span pieces
        self._keys: list[np.ndarray] = []
        self._counts: list[np.ndarray] = []
        self._count_rows = 0
        self._partials: list[tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]] = []
        self._streams: list[tuple[np.ndarray, ...]] = []  # messages of unfinished ledgers

    def add(
        self,
        bucket: np.ndarray,
        ledger: np.ndarray,
        entry: np.ndarray,
        delay: np.ndarray,
        generated: int = 0,
    ) -> None:
        """One piece of selected messages, in index order, ending at an entry boundary;
        ``generated`` messages were produced before selection (no Java method). O(n) for
        ordered input, else O(n log n), numpy only."""
        t = self.totals
        t["messages"] += generated
        t["selected"] += len(entry)
        if len(entry) == 0:
            return
        open_ledger = int(ledger[-1])
        last_of_entry = np.r_[(ledger[1:] != ledger[:-1]) | (entry[1:] != entry[:-1]), True]
        if self.tick_ms is None:
            t["heap_entries"] += int(last_of_entry.sum())
        else:
            t["heap_entries"] += int((last_of_entry & (delay > self.tick_ms)).sum())
            keep = delay > self.tick_ms
            if not keep.all():
                bucket, ledger, entry = bucket[keep], ledger[keep], entry[keep]
                delay = delay[keep]
        t["index_messages"] += len(entry)
        if len(entry):
            t["delay_min"] = min(t["delay_min"], int(delay.min()))
            t["delay_max"] = max(t["delay_max"], int(delay.max()))
            t["entry_max"] = max(t["entry_max"], int(entry.max()))
            self._pending.append(chunk_table(bucket, ledger, entry, self.trim_bits))
            if self.tick_ms is not None:
                levels = lab.stream_levels(delay, self.trim_bits)
                self._streams.append((bucket, ledger, entry, levels))
        self._fold(open_ledger)

    def finish(self) -> ReducerOutput:
        """Fold what is left and return the task's output (no Java method). O(rows log rows)."""
        self._fold(None)
        keys, counts = self._compact()
        if self._partials:
            pb = np.concatenate([p[0] for p in self._partials])
            pl = np.concatenate([p[1] for p in self._partials])
            ps = {f: np.concatenate([p[2][f] for p in self._partials]) for f in tba.CHUNK_FIELDS}
        else:
            pb = pl = np.zeros(0, dtype=np.int64)
            ps = {f: np.zeros(0, dtype=np.int64) for f in tba.CHUNK_FIELDS}
        return ReducerOutput(dict(self.totals), keys, counts, pb, pl, ps)

    # ------------------------------------------------------------------ internals

    def _fold(self, open_ledger: int | None) -> None:
        """Finalize the groups of every ledger before ``open_ledger`` (all if None)."""
        self._fold_streams(open_ledger)
        if not self._pending:
            return
        carried = self._carried  # ledgers with rows from an earlier piece
        table = concat_tables(self._pending) if len(self._pending) > 1 else self._pending[0]
        self._pending = []
        if open_ledger is not None:
            done = table["ledger"] < open_ledger
            if not done.all():
                self._pending = [take(table, ~done)]
                table = take(table, done)
        self._carried = np.unique(self._pending[0]["ledger"]) if self._pending else carried[:0]
        if len(table["card"]) == 0:
            return
        merged = _merge_carried(table, carried)
        bucket, ledger, sums = bitmap_sums(merged, self.layout)
        start = (ledger - self.start_ledger) * self.ledger_messages
        end = np.minimum(start + self.ledger_messages, self.total_messages)
        owned = (start >= self.task_lo) & (end <= self.task_hi)
        if not owned.all():
            self._partials.append(
                (bucket[~owned], ledger[~owned], {k: v[~owned] for k, v in sums.items()})
            )
            bucket, ledger = bucket[owned], ledger[owned]
            sums = {k: v[owned] for k, v in sums.items()}
        if len(bucket) == 0:
            return
        self._own(bucket, ledger, sums)

    def _own(self, bucket: np.ndarray, ledger: np.ndarray, sums: dict[str, np.ndarray]) -> None:
        """Add complete bitmaps to the totals and their buckets' packed values."""
        add_bitmaps(self.totals, bucket, ledger, sums, self.layout)
        self._add_keys(*count_by_key(bucket, lab.group_values(sums["entries"])))

    def _add_keys(self, keys: np.ndarray, values: np.ndarray) -> None:
        self._keys.append(keys)
        self._counts.append(values)
        self._count_rows += len(keys)
        if self._count_rows > self.COMPACT_ROWS:
            self._compact()

    def _fold_streams(self, open_ledger: int | None) -> None:
        """Token bytes of the ``time-buckets-hier`` streams of every finished ledger, added
        under their tagged keys (see :mod:`~trackerlab.models.time_buckets.lab_stats`)."""
        if not self._streams:
            return
        held = self._streams
        cols = [np.concatenate(c) for c in zip(*held, strict=True)] if len(held) > 1 else held[0]
        bucket, ledger, entry, level = cols
        self._streams = []
        if open_ledger is not None:  # messages in index order: ledgers never decrease
            cut = int(np.searchsorted(ledger, open_ledger))
            if cut < len(ledger):
                self._streams = [tuple(c[cut:] for c in cols)]
                bucket, ledger, entry, level = (c[:cut] for c in cols)
        if len(entry) == 0:
            return
        key, offset = lab.stream_keys(bucket, level, self.trim_bits)
        order = lab.stream_order(key, self.trim_bits)
        if order is not None:
            key, ledger, entry, offset = key[order], ledger[order], entry[order], offset[order]
        tokens = lab.stream_token_bytes(key, ledger, entry, offset)
        t = self.totals
        t["lab_stream_elements"] += tokens.elements
        t["lab_stream_runs"] += tokens.runs
        t["lab_stream_bytes"] += int(tokens.token_bytes.sum())
        self._add_keys(tokens.keys | lab.STREAM_TAG, tokens.token_bytes << lab.LEDGER_BITS)

    def _compact(self) -> tuple[np.ndarray, np.ndarray]:
        if not self._keys:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty
        keys, counts = count_by_key(np.concatenate(self._keys), np.concatenate(self._counts))
        self._keys, self._counts, self._count_rows = [keys], [counts], len(keys)
        return keys, counts


def _merge_carried(table: dict[str, np.ndarray], carried: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`merge_pieces` restricted to the ledgers in ``carried``: rows of other ledgers
    come from one piece, whole groups in group order already."""
    if len(carried) == 0:
        return table
    again = np.isin(table["ledger"], carried)
    if not again.any():
        return table
    if again.all():
        return merge_pieces(table)
    return concat_tables([take(table, ~again), merge_pieces(take(table, again))])


def add_bitmaps(
    totals: dict[str, int],
    bucket: np.ndarray,
    ledger: np.ndarray,
    sums: dict[str, np.ndarray],
    layout: JvmLayout = COMPRESSED,
) -> None:
    """Add complete bitmaps (their chunk-field sums) to ``totals``: counts, bytes, key ranges."""
    sized = tba.bitmap_bytes(sums, layout)
    spill = sums["entries"] - lab.SPILL_AT
    spilled = spill > 0
    if spilled.any():  # time-buckets-adaptive: one array container per spilled ledger
        cards = spill[spilled]
        totals["lab_spill_jvm"] += int(tbs.container_bytes(cards, cards, False, layout).sum())
    totals["bitmaps"] += len(bucket)
    for f in tba.CHUNK_FIELDS:
        totals[f] += int(sums[f].sum())
    for f, v in sized.items():
        totals[f] += int(v.sum())
    totals["bucket_min"] = min(totals["bucket_min"], int(bucket.min()))
    totals["bucket_max"] = max(totals["bucket_max"], int(bucket.max()))
    totals["ledger_min"] = min(totals["ledger_min"], int(ledger.min()))
    totals["ledger_max"] = max(totals["ledger_max"], int(ledger.max()))
    for name in tba.art_statics(sums["chunks"], layout):
        totals[tba.ART_STATIC_FIELDS[name]] = 1


def entry_aligned_pieces(
    lo: int, hi: int, batch_size: int, piece: int
) -> Iterator[tuple[int, int]]:
    """``[a, b)`` ranges covering ``lo .. hi - 1`` of at most ~``piece`` messages, cut at
    multiples of ``batch_size`` (entry boundaries) except at ``lo`` and ``hi``."""
    step = max(batch_size, piece // batch_size * batch_size)
    a = lo
    while a < hi:
        b = min(hi, (a // batch_size) * batch_size + step)
        if b <= a:
            b = min(hi, a + step)
        yield a, b
        a = b


# --------------------------------------------------------------------------- whole streams


def reduce_range(
    workload: Workload,
    trim_bits: int,
    tick_ms: int | None,
    lo: int,
    hi: int,
    piece: int = 1 << 22,
    layout: JvmLayout = COMPRESSED,
    keep: Callable[[MessageChunk, np.ndarray], np.ndarray | slice] | None = None,
) -> ReducerOutput:
    """Messages ``lo .. hi - 1`` of ``workload`` through one :class:`ContentReducer`, generated
    with :meth:`Workload.chunk` in entry-aligned pieces of about ``piece`` messages; ``keep``
    (given a chunk and its bucket keys, a boolean mask or a slice of the messages to keep)
    drops messages before the reducer sees them (the planner's snapshot: those already handed
    out). O(messages)."""
    reducer = ContentReducer(
        trim_bits,
        workload.entries_per_ledger * workload.batch_size,
        workload.start_ledger,
        lo,
        hi,
        workload.messages,
        tick_ms,
        layout,
    )
    for a, b in entry_aligned_pieces(lo, hi, workload.batch_size, piece):
        c = workload.chunk(a, b)
        bucket = trim_lower_bits(c.deliver_at, trim_bits)
        ledger, entry, delay = c.ledger, c.entry, c.delay_ms
        if keep is not None:
            sel = keep(c, bucket)
            bucket, ledger, entry, delay = bucket[sel], ledger[sel], entry[sel], delay[sel]
        reducer.add(bucket, ledger, entry, delay, generated=b - a)
    return reducer.finish()


def finish_partials(
    bucket: np.ndarray,
    ledger: np.ndarray,
    sums: dict[str, np.ndarray],
    layout: JvmLayout = COMPRESSED,
) -> ReducerOutput:
    """Complete bitmaps from partial sums of all tasks (any order): add them up per
    (bucket, ledger) and size them. O(rows log rows)."""
    totals = dict.fromkeys(SUM_FIELDS, 0)
    totals |= dict.fromkeys(MIN_FIELDS, _I64_MAX) | dict.fromkeys(MAX_FIELDS, _I64_MIN)
    empty = np.zeros(0, dtype=np.int64)
    if len(bucket) == 0:
        return ReducerOutput(totals, empty, empty, empty, empty, {})
    order = np.lexsort((ledger, bucket))
    b, led = bucket[order], ledger[order]
    starts = np.flatnonzero(np.r_[True, (b[1:] != b[:-1]) | (led[1:] != led[:-1])])
    summed = {k: np.add.reduceat(v[order], starts) for k, v in sums.items()}
    add_bitmaps(totals, b[starts], led[starts], summed, layout)
    keys, counts = count_by_key(b[starts], lab.group_values(summed["entries"]))
    return ReducerOutput(totals, keys, counts, empty, empty, {})


def combine(outputs: list[ReducerOutput]) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """Totals and the per-bucket ledger counts of several reducers' owned bitmaps."""
    totals = dict.fromkeys(SUM_FIELDS, 0)
    totals |= dict.fromkeys(MIN_FIELDS, _I64_MAX) | dict.fromkeys(MAX_FIELDS, _I64_MIN)
    for out in outputs:
        for f in SUM_FIELDS:
            totals[f] += out.totals[f]
        for f in MIN_FIELDS:
            totals[f] = min(totals[f], out.totals[f])
        for f in MAX_FIELDS:
            totals[f] = max(totals[f], out.totals[f])
    keys, counts = count_by_key(
        np.concatenate([o.bucket_keys for o in outputs]),
        np.concatenate([o.bucket_ledgers for o in outputs]),
    )
    return totals, keys, counts


def aggregates(totals: dict[str, int], values_per_key: np.ndarray) -> tba.IndexAggregates:
    """:class:`~trackerlab.models.time_buckets.aggregates.IndexAggregates` from combined
    totals and every key's summed value (a bucket's packed counts, a stream's bytes)."""
    k, count = np.unique(values_per_key, return_counts=True)
    return histogram_aggregates(totals, k, count)


def histogram_aggregates(
    totals: dict[str, int], key_values: np.ndarray, key_counts: np.ndarray
) -> tba.IndexAggregates:
    """:class:`~trackerlab.models.time_buckets.aggregates.IndexAggregates` from totals and the
    histogram "``key_counts[i]`` keys summed to ``key_values[i]``" (what the Spark engine
    collects), split by :func:`~trackerlab.models.time_buckets.lab_stats.split_histogram` into
    the buckets' ledger histogram and the proposals' histograms."""
    ledger_counts, bucket_counts, lab_hist = lab.split_histogram(key_values, key_counts)
    return tba.IndexAggregates(
        bitmaps=totals["bitmaps"],
        bitmap_bytes={
            f"{s}_{v}": totals[f"{s}_{v}"] for s in ("jvm", "python") for v in tba.VARIANTS
        },
        ledger_counts=np.asarray(ledger_counts, dtype=np.int64),
        bucket_counts=np.asarray(bucket_counts, dtype=np.int64),
        bucket_range=(totals["bucket_min"], totals["bucket_max"]),
        ledger_range=(totals["ledger_min"], totals["ledger_max"]),
        lab=lab_hist,
        art_statics=frozenset(n for n, f in tba.ART_STATIC_FIELDS.items() if totals.get(f, 0) > 0),
    )


def reduce_workload(
    workload: Workload,
    trim_bits: int,
    tick_ms: int | None = None,
    tasks: list[tuple[int, int]] | None = None,
    piece: int = 1 << 22,
    layout: JvmLayout = COMPRESSED,
    keep: Callable[[MessageChunk, np.ndarray], np.ndarray | slice] | None = None,
) -> tuple[dict[str, int], tba.IndexAggregates]:
    """The whole stream in one process, task by task, merged the way the Spark engine merges:
    the reference for the engine and the fallback when Spark is absent (``keep`` as in
    :func:`reduce_range`). O(messages)."""
    tasks = tasks or [(0, workload.messages)]
    outputs = [
        reduce_range(workload, trim_bits, tick_ms, a, b, piece, layout, keep) for a, b in tasks
    ]
    return merge_outputs(outputs, layout)


def merge_outputs(
    outputs: list[ReducerOutput], layout: JvmLayout = COMPRESSED
) -> tuple[dict[str, int], tba.IndexAggregates]:
    """Totals and aggregates of every task's output: bitmaps cut by task boundaries completed
    from their partial sums, then everything combined. O(rows)."""
    outputs = list(outputs)
    pb = np.concatenate([o.partial_bucket for o in outputs])
    if len(pb):
        pl = np.concatenate([o.partial_ledger for o in outputs])
        ps = {f: np.concatenate([o.partial_sums[f] for o in outputs]) for f in tba.CHUNK_FIELDS}
        outputs.append(finish_partials(pb, pl, ps, layout))
    totals, _, counts = combine(outputs)
    return totals, aggregates(totals, counts)


def plan_tasks(
    messages: int, ledger_messages: int, batch_size: int, target: int
) -> list[tuple[int, int]]:
    """Contiguous message ranges of about ``target`` messages (at least one ledger, or one
    2^16-entry chunk span of a ledger longer than ``target``), cut only at ledger boundaries
    or, inside a ledger, at chunk-span boundaries, so every (bucket, ledger, chunk) group is
    whole in one task. O(tasks)."""
    if messages <= 0:
        return []
    if ledger_messages <= target:
        step = ledger_messages * (target // ledger_messages)
        cuts = list(range(0, messages, step))
    else:
        span = (1 << 16) * batch_size
        step = span * max(1, target // span)
        cuts = [
            start + k
            for start in range(0, messages, ledger_messages)
            for k in range(0, min(ledger_messages, messages - start), step)
        ]
    cuts.append(messages)
    return list(itertools.pairwise(cuts))
