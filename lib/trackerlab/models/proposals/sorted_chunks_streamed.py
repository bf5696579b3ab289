"""The sorted build of ``sorted-chunks`` streamed through disk: exact at 10^7..10^9 messages in
bounded memory (issue 27, item 1: the realistic matrix's large sizes).

:func:`~trackerlab.models.proposals.sorted_chunks.workload_sorted_build` holds every tracked
position in memory (about 48 B per message while sorting). :func:`streamed_sorted_build` gives
the same :class:`~trackerlab.models.proposals.sorted_chunks.SortedBuild` (same ``jvm_bytes``,
``entries``, ``chunks``, every field; tests hold them equal) with memory bounded by
``run_keys`` and ``range_keys``, not by the workload:

1. **Pass over the stream** (the workload's publish-order chunks, as
   :func:`~trackerlab.models.proposals.sorted_chunks.tracked_arrays` reads them, with the
   re-add rule carried across chunks): tracked keys ``(tickKey, ledgerId, entryId)`` are
   buffered up to ``run_keys``, sorted (publish order is ``(ledger, entry)`` order, so a
   stable sort on ``tickKey`` sorts by key) and spilled as one sorted run, a ``.npy`` per
   column (offset from the run's minimum, ``uint32`` where it fits), with every
   ``sample_every``-th key kept as a sample. The bitmaps need no sort: the positions arrive in
   ``(ledger, entry)`` order, so each ``(ledger, entryId >> 16)`` container's cardinality and
   run count are summed as they come (carried across chunks).
2. **Ranges in key order**: boundaries are every ``range_keys / sample_every``-th key of the
   merged samples (full keys, so a boundary can fall inside a tick and inside a chunk); a
   range holds at most ``range_keys + runs x sample_every`` keys. For each range the runs'
   slices (three-level binary search) are read, sorted (one ``uint64`` sort when the range's
   key fits 64 bits, else ``lexsort``), token lengths are computed against the previous
   range's last key, :func:`~trackerlab.models.proposals.sorted_chunks.chunk_lengths` runs
   with the open chunk's ``carry``, and the runOptimize rule (the ledger of the key before
   each ledger's first key) is applied with the previous range's last ledger.
3. Capacities, :func:`~trackerlab.models.proposals.sorted_chunks.chunks_bytes`, the bitmaps
   from the container sums (:func:`bitmaps_jvm_bytes_from_containers`: the sums
   ``bitmaps_jvm_bytes`` computes, from the same cardinalities and run counts, so the model's
   sizing rules and their exactness claims are unchanged) and ``fixed_bytes``.

Temporary files live in one folder under ``spill_root`` (default: the system's temporary
folder) named by :func:`trackerlab.core.durable.own_name` (``.trackerlab-PID-RANDOM.staging``),
removed when the build returns or raises; a folder left by a killed build (SIGKILL, power cut)
is removed by the next build under the same root (:func:`trackerlab.core.durable.remove_leftovers`:
only trackerlab's own names whose pid no longer runs). Disk: at most 12 B per tracked message (24 B when a run's
tick or ledger span exceeds 2^32). Stated limit: entry ids below 2^32 (a
:class:`~trackerlab.workloads.stream.Workload` never exceeds 2^31 - 1; the in-memory build's
``Roaring64Bitmap`` path is not streamed): a larger id is a ValueError.

Cost: O(n log n) numpy, O(n / sample_every) memory for samples, the peak set by
``run_keys`` and ``range_keys`` (about 1.5 GB with the defaults), not by n.

Measured by helper h43 (2 shared cores, a broker running, ``nice -n 19``: wall seconds are
mostly waiting, CPU seconds are the work), 100 msg/s, 1 s tick, the command below with
``--out``; "build" is the sorted-chunks build alone, RSS the process's peak (the shared
reducer pass of ``size_cell`` included):

================================  ======  ============  ==========  ===========
cell                              build   build CPU     size_cell   peak RSS
================================  ======  ============  ==========  ===========
10^7 uniform 0-1 h, all           11.6 s  6.0 s         23.0 s      1.31 GB
10^7 80/20 mix, 5% delayed        0.8 s   0.4 s         1.8 s       0.30 GB
10^8 uniform 0-1 h, all           270 s   84.3 s        402 s       1.81 GB
10^8 80/20 mix, 5% delayed        9.5 s   6.0 s         19.4 s      0.88 GB
10^9 80/20 mix, 5% delayed        44.9 s  44.7 s        286 s       1.79 GB
================================  ======  ============  ==========  ===========

10^9 messages, uniform 0-1 h, every message delayed, is a command a user runs (not run
here: about 45 min wall / 14 min CPU for the build and ~22 min for the reducer pass on this
loaded machine, extrapolated linearly from 10^8; 12 GB of spill under ``--spill-root`` or the
system's temporary folder; peak RSS expected near 1.8 GB, the ranges being bounded)::

    nice -n 19 python -m trackerlab.experiments.design_lab_large \\
        --messages 1e9 --delay uniform:0:1h --pattern all --rate-per-s 100 --tick 1s \\
        --out data/design_lab/realistic-sorted-chunks-large.parquet
"""

from __future__ import annotations

import itertools
import math
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

import trackerlab.models.proposals.sorted_chunks as sc
from trackerlab.core.durable import own_name, remove_leftovers
from trackerlab.models.delayed.bucketed_tracker import precision_bits_for_tick
from trackerlab.models.proposals.counts import roaring_fixed_bytes
from trackerlab.models.time_buckets import shapes as tbs
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

if TYPE_CHECKING:
    from trackerlab.workloads.stream import Workload

#: Keys sorted and spilled at once in the stream pass (~40 B each while sorting).
RUN_KEYS = 1 << 23
#: Keys per range in the key-order pass (~100 B each while sorting and tokenizing).
RANGE_KEYS = 1 << 23
#: Every this many keys of a run is a sample for the range boundaries.
SAMPLE_EVERY = 1024
#: Upper bound of tick, run and range parameters accepted.
MAX_TICK_MS = (1 << 31) - 1

_U32 = (1 << 32) - 1


def check_in_range(name: str, value: int, low: int, high: int) -> int:
    """``value`` when it is an integer in ``low..high``, else ValueError naming ``name``. O(1)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer in {low}..{high}, got {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} must be in {low}..{high}, got {value}")
    return int(value)


def parse_count(name: str, text: str) -> int:
    """A count written as ``1000000`` or ``1e9``: an integer in 1..10^12, else ValueError.
    O(1)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value != int(value):
        raise ValueError(f"{name} must be an integer in 1..{10**12}, got {text!r}")
    return check_in_range(name, int(value), 1, 10**12)


# --------------------------------------------------------------------------- bitmaps


def bitmaps_jvm_bytes_from_containers(
    owner: np.ndarray,
    card: np.ndarray,
    runs: np.ndarray,
    optimized: np.ndarray,
    layout: JvmLayout = COMPRESSED,
) -> int:
    """:func:`~trackerlab.models.proposals.sorted_chunks.bitmaps_jvm_bytes` from per-container
    sums: one row per ``(ledger, entryId >> 16)`` container in (ledger, high bits) order with
    its ledger ``owner``, cardinality and run count; ``optimized``: the run-optimized ledgers.
    The same container and fixed-byte formulas. O(containers)."""
    if len(owner) == 0:
        return 0
    owner = np.asarray(owner, dtype=np.int64)
    card = np.asarray(card, dtype=np.int64)
    runs = np.asarray(runs, dtype=np.int64)
    conts = tbs.container_bytes(card, runs, False, layout)
    opt = np.isin(owner, np.asarray(optimized, dtype=np.int64))
    if opt.any():
        conts = np.where(opt, tbs.container_bytes(card, runs, True, layout), conts)
    first = np.r_[True, owner[1:] != owner[:-1]]
    per_bitmap = np.diff(np.r_[np.flatnonzero(first), len(owner)])
    k, n = np.unique(per_bitmap, return_counts=True)
    fixed = sum(int(c) * roaring_fixed_bytes(int(d), layout) for d, c in zip(k, n, strict=True))
    return int(conts.sum()) + fixed


class _Containers:
    """Per-container (ledger, high 16 bits) cardinality and run count of positions arriving in
    (ledger, entry) order, in blocks; a container cut by a block boundary is summed. O(n)."""

    def __init__(self) -> None:
        self.parts: list[tuple[np.ndarray, ...]] = []
        self.prev: tuple[int, int] | None = None  # last (ledger, entry)

    def add(self, led: np.ndarray, e: np.ndarray) -> None:
        """Sum one block of positions (in (ledger, entry) order after the previous block).
        O(block)."""
        if len(led) == 0:
            return
        hi = e >> 16
        pl = np.r_[self.prev[0] if self.prev else -1, led[:-1]]
        pe = np.r_[self.prev[1] if self.prev else -2, e[:-1]]
        new = (led != pl) | (hi != (pe >> 16))
        breaks = new | (e != pe + 1)
        starts = np.flatnonzero(np.r_[True, new[1:]])
        card = np.diff(np.r_[starts, len(e)])
        runs = np.add.reduceat(breaks.astype(np.int64), starts)
        self.parts.append((led[starts], hi[starts], card, runs))
        self.prev = (int(led[-1]), int(e[-1]))

    def result(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(owner ledger, cardinality, runs) per container, containers cut by blocks merged.
        O(containers)."""
        if not self.parts:
            z = np.zeros(0, dtype=np.int64)
            return z, z, z
        led, hi, card, runs = (np.concatenate(c) for c in zip(*self.parts, strict=True))
        first = np.r_[True, (led[1:] != led[:-1]) | (hi[1:] != hi[:-1])]
        starts = np.flatnonzero(first)
        return led[starts], np.add.reduceat(card, starts), np.add.reduceat(runs, starts)


# --------------------------------------------------------------------------- spilled runs


def _pack(col: np.ndarray) -> tuple[int, np.ndarray]:
    base = int(col.min()) if len(col) else 0
    span = int(col.max()) - base if len(col) else 0
    off = col - base
    return base, off.astype(np.uint32) if span <= _U32 else off.astype(np.uint64)


@dataclass
class _Run:
    """One sorted run on disk: three columns stored as offsets from their bases."""

    paths: tuple[Path, Path, Path]
    bases: tuple[int, int, int]
    n: int
    cols: tuple[np.ndarray, ...] | None = None

    def open(self) -> tuple[np.ndarray, ...]:
        """The three columns, memory-mapped (read-only). O(1)."""
        if self.cols is None:
            self.cols = tuple(np.load(p, mmap_mode="r") for p in self.paths)
        return self.cols

    def close(self) -> None:
        """Drop the maps (the pages go back to the OS). O(1)."""
        self.cols = None

    def _ss(self, col: int, lo: int, hi: int, value: int, side: Literal["left", "right"]) -> int:
        arr = self.open()[col]
        v = value - self.bases[col]
        if v < 0:
            return lo
        if v > int(np.iinfo(arr.dtype).max):
            return hi
        return lo + int(np.searchsorted(arr[lo:hi], arr.dtype.type(v), side=side))

    def lower_bound(self, key: tuple[int, int, int]) -> int:
        """How many of the run's keys are below ``key``: three binary searches. O(log n)."""
        lo, hi = 0, self.n
        for col in range(3):
            a = self._ss(col, lo, hi, key[col], "left")
            if col == 2:
                return a
            b = self._ss(col, lo, hi, key[col], "right")
            if a == b:
                return a
            lo, hi = a, b
        return lo  # pragma: no cover

    def read(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Keys ``lo:hi`` as int64 columns (tick, ledger, entry). O(hi - lo)."""
        (t, led, e), (bt, bl, be) = self.open(), self.bases
        return (
            np.asarray(t[lo:hi]).astype(np.int64) + bt,
            np.asarray(led[lo:hi]).astype(np.int64) + bl,
            np.asarray(e[lo:hi]).astype(np.int64) + be,
        )


def _spill(folder: Path, index: int, t, led, e) -> _Run:
    """Three columns written as one sorted run (offsets from their bases). O(len(t))."""
    (pt, bt), (pl, bl), (pe, be) = (
        _spill_column(folder / f"run{index:06d}-{name}.npy", col)
        for name, col in (("t", t), ("l", led), ("e", e))
    )
    return _Run((pt, pl, pe), (bt, bl, be), len(t))


def _spill_column(path: Path, col) -> tuple[Path, int]:
    """One column stored packed at ``path``, with its base. O(len(col))."""
    base, packed = _pack(col)
    np.save(path, packed)
    return path, base


def sort_keys(
    t: np.ndarray, led: np.ndarray, e: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The keys sorted by (tick, ledger, entry): one ``uint64`` sort of the packed offsets when
    the three spans fit 64 bits together, else ``lexsort``. O(n log n)."""
    if len(t) == 0:
        return t, led, e
    bases = [int(c.min()) for c in (t, led, e)]
    widths = [
        max(1, (int(c.max()) - b).bit_length()) for c, b in zip((t, led, e), bases, strict=True)
    ]
    if sum(widths) > 64:
        order = np.lexsort((e, led, t))
        return t[order], led[order], e[order]
    u = np.uint64
    packed = (t - bases[0]).astype(u) << u(widths[1] + widths[2])
    packed |= (led - bases[1]).astype(u) << u(widths[2])
    packed |= (e - bases[2]).astype(u)
    packed.sort()
    em, lm = u((1 << widths[2]) - 1), u((1 << widths[1]) - 1)
    se = (packed & em).astype(np.int64) + bases[2]
    sl = ((packed >> u(widths[2])) & lm).astype(np.int64) + bases[1]
    st = (packed >> u(widths[1] + widths[2])).astype(np.int64) + bases[0]
    return st, sl, se


# --------------------------------------------------------------------------- the build


@dataclass(frozen=True)
class StreamStats:
    """How a streamed build ran: runs spilled, ranges processed, range boundaries that fell
    inside a tick (the boundary key's tick also holds keys of the range before) and inside a
    chunk (the range's first key joins the chunk the range before left open), the largest
    range, bytes spilled and the temporary folder (already removed)."""

    runs: int
    ranges: int
    boundaries_inside_tick: int
    boundaries_inside_chunk: int
    largest_range_keys: int
    spilled_bytes: int
    spill_dir: str


def _tracked_blocks(workload, tick_ms: int) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """:func:`~trackerlab.models.proposals.sorted_chunks.tracked_arrays` chunk by chunk: the
    same keep and re-add rules, the previous chunk's last kept position carried. O(n)."""
    bits = precision_bits_for_tick(tick_ms)
    prev: tuple[int, int] | None = None
    for c in workload.chunks():
        keep = c.deliver_at > c.publish_ms + tick_ms
        t, led, e = c.deliver_at[keep] >> bits, c.ledger[keep], c.entry[keep]
        if len(t) == 0:
            continue
        pl = np.r_[prev[0] if prev else -1, led[:-1]]
        pe = np.r_[prev[1] if prev else -1, e[:-1]]
        if np.any((led < pl) | ((led == pl) & (e < pe))):
            raise ValueError("the workload's chunks must come in (ledger, entry) order")
        first = (led != pl) | (e != pe)
        prev = (int(led[-1]), int(e[-1]))
        yield t[first], led[first], e[first]


def _staging_folder(spill_root: str | Path | None) -> Path:
    """A new staging folder of this process under ``spill_root`` (default: the temporary
    folder), after removing those of killed builds."""
    root = Path(tempfile.gettempdir() if spill_root is None else spill_root)
    root.mkdir(parents=True, exist_ok=True)
    remove_leftovers(root)  # folders of killed builds (their pid no longer runs)
    folder = root / own_name("staging")
    folder.mkdir()
    return folder


def _spill_sorted_runs(
    workload: Workload,
    tick_ms: int,
    folder: Path,
    run_keys: int,
    sample_every: int,
    runs: list[_Run],
) -> tuple[_Containers, list[tuple[np.ndarray, ...]]]:
    """Spill the tracked keys to ``folder`` in runs of ``run_keys`` sorted by deliverAt
    (appended to ``runs`` as written, so the caller closes them); the containers of every
    (ledger, entry) and every ``sample_every``-th key of each run."""
    containers = _Containers()
    samples: list[tuple[np.ndarray, ...]] = []
    buf: list[tuple[np.ndarray, ...]] = []
    buffered = 0

    def flush() -> None:
        nonlocal buf, buffered
        if not buffered:
            return
        t, led, e = (np.concatenate(c) for c in zip(*buf, strict=True))
        buf, buffered = [], 0
        order = np.argsort(t, kind="stable")  # publish order is (ledger, entry) order
        t, led, e = t[order], led[order], e[order]
        runs.append(_spill(folder, len(runs), t, led, e))
        # copies: a strided view would keep the whole run in memory
        samples.append(tuple(c[::sample_every].copy() for c in (t, led, e)))

    for t, led, e in _tracked_blocks(workload, tick_ms):
        if int(e.max()) > _U32:
            raise ValueError(f"entry ids must be in 0..2^32-1 here, got {int(e.max())}")
        containers.add(led, e)
        buf.append((t, led, e))
        buffered += len(t)
        if buffered >= run_keys:
            flush()
    flush()
    return containers, samples


def streamed_sorted_build(
    workload,
    tick_ms: int,
    layout: JvmLayout = COMPRESSED,
    run_keys: int = RUN_KEYS,
    range_keys: int = RANGE_KEYS,
    sample_every: int = SAMPLE_EVERY,
    spill_root: str | Path | None = None,
) -> tuple[sc.SortedBuild, StreamStats]:
    """:func:`~trackerlab.models.proposals.sorted_chunks.workload_sorted_build` through
    sorted runs on disk (module docstring): the same :class:`SortedBuild`. Raises ValueError
    naming the parameter for messages outside 1..10^12, a tick outside 1..2^31-1, run, range
    or sample sizes below 1, an entry id of 2^32 or more. O(n log n) numpy, bounded memory."""
    check_in_range("messages", workload.messages, 1, 10**12)
    check_in_range("tick (ms)", tick_ms, 1, MAX_TICK_MS)
    check_in_range("run size (keys)", run_keys, 1, 1 << 30)
    check_in_range("range size (keys)", range_keys, 1, 1 << 30)
    check_in_range("sample interval (keys)", sample_every, 1, 1 << 30)
    sample_every = min(sample_every, range_keys)
    folder = _staging_folder(spill_root)
    runs: list[_Run] = []
    try:
        containers, samples = _spill_sorted_runs(
            workload, tick_ms, folder, run_keys, sample_every, runs
        )
        spilled = sum(p.stat().st_size for r in runs for p in r.paths)
        build, ranges, inside, in_chunk, largest = _key_order_pass(
            runs, samples, range_keys // sample_every, containers, layout
        )
        stats = StreamStats(len(runs), ranges, inside, in_chunk, largest, spilled, str(folder))
        return build, stats
    finally:
        for r in runs:
            r.close()
        shutil.rmtree(folder, ignore_errors=True)


def _boundaries(samples: list[tuple[np.ndarray, ...]], every: int) -> list[tuple[int, int, int]]:
    if not samples:
        return []
    t, led, e = (np.concatenate(c) for c in zip(*samples, strict=True))
    t, led, e = sort_keys(t, led, e)
    pick = np.arange(max(every, 1), len(t), max(every, 1))
    return list(zip(t[pick].tolist(), led[pick].tolist(), e[pick].tolist(), strict=True))


def _key_order_pass(
    runs: list[_Run],
    samples: list[tuple[np.ndarray, ...]],
    every: int,
    containers: _Containers,
    layout: JvmLayout,
) -> tuple[sc.SortedBuild, int, int, int, int]:
    bounds = _boundaries(samples, every)
    cuts = [[0] * len(runs)]
    cuts += [[r.lower_bound(b) for r in runs] for b in bounds]
    cuts.append([r.n for r in runs])
    closed: list[np.ndarray] = []
    carry: int | None = None
    last: tuple[int, int, int] | None = None
    seen = np.zeros(0, dtype=np.int64)
    optimized: set[int] = set()
    entries = ranges = inside = in_chunk = largest = 0
    for lo_cut, hi_cut in itertools.pairwise(cuts):
        parts = [r.read(a, b) for r, a, b in zip(runs, lo_cut, hi_cut, strict=True) if b > a]
        for r in runs:
            r.close()  # unmapped: the spill pages read leave the resident set
        if not parts:
            continue
        t, led, e = sort_keys(*(np.concatenate(c) for c in zip(*parts, strict=True)))
        ranges += 1
        largest = max(largest, len(t))
        if last is not None:
            inside += int(last[0] == int(t[0]))
            tok = sc.token_lengths(np.r_[last[0], t], np.r_[last[1], led], np.r_[last[2], e])[1:]
            in_chunk += int(carry is not None and carry + int(tok[0]) <= sc.CHUNK_MAX_BYTES)
        else:
            tok = sc.token_lengths(t, led, e)
        done, carry = sc.chunk_lengths(tok, carry)
        closed.append(np.asarray(done, dtype=np.int64))
        # runOptimize rule: the key before each ledger's first key (in key order)
        uniq, first_at = np.unique(led, return_index=True)
        fresh = ~np.isin(uniq, seen)
        at = first_at[fresh]
        before = led[at[at > 0] - 1].tolist()
        if last is not None and np.any(at == 0):
            before.append(last[1])
        optimized.update(before)
        seen = np.union1d(seen, uniq)
        last = (int(t[-1]), int(led[-1]), int(e[-1]))
        entries += len(t)
    lengths = np.concatenate([*closed, np.asarray([carry] if entries else [], dtype=np.int64)])
    owner, card, runs_ = containers.result()
    bitmaps = bitmaps_jvm_bytes_from_containers(
        owner, card, runs_, np.asarray(sorted(optimized), dtype=np.int64), layout
    )
    build = sc.SortedBuild.of(entries, lengths, len(seen), bitmaps, layout)
    return build, ranges, inside, in_chunk, largest
