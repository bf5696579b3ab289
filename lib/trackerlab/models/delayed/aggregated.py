"""Aggregated models of four delayed-delivery designs for one topic, over a time grid.

Nothing here handles one message at a time. With a constant rate ``r`` of entries (one
``deliverAt`` per entry, the seeds' batches) and the closed forms of
:mod:`trackerlab.workloads.delay_forms`, the entries published in ``[a, b)`` that are still undelivered at
cutoff ``c`` number ``r * ((b - a) - (G(c - a) - G(c - b)))``. Each design turns such counts
into the sizes of the Java structures it keeps:

- ``heap``: ``InMemoryDelayedDeliveryTracker`` v1 over ``TripleLongPriorityQueue``; the count
  per step drives :class:`~trackerlab.models.primitives.triple_heap_counts.TripleHeapCapacity`;
- ``time-buckets``: the #23611 tracker (``Long2ObjectAVLTreeMap<Long2ObjectOpenHashMap<
  Roaring64Bitmap>>``, buckets of ``2^floor(log2 tick)`` ms). Its size depends on which entries
  share a (bucket, ledger, chunk), so at each sample time a systematic sample of bucket keys is
  filled with the entries that land in them (exact for point-mass delays, Poisson-drawn for
  densities) and sized by :func:`~trackerlab.models.time_buckets.shapes.jvm_bytes_from_content`,
  then scaled up;
- ``pip195``: :mod:`trackerlab.models.delayed.pip195_tracker`. Seals happen at ledger rollovers once
  the mutable bucket holds ``minIndexCountPerBucket`` indexes; every sealed bucket with the same
  ledger span has the same segment structure, cut once from its fluid deliverAt distribution;
  the per-bucket time profiles (shared-queue content, loads, liveness) are summed over seals by
  FFT convolution;
- ``levels``: :mod:`trackerlab.models.delayed.delay_levels`; the real topic receives one stream per
  delay band, each re-published ``(i + 1)`` units after publication with its remaining delay.

Storage retention (the seed's problem 2) follows the mark-delete position: a ledger is
deleted once every entry of it and of the ledgers before it is delivered; a ledger counts as
drained when its expected undelivered entries fall below one half. Recovery (problem 3) is
what a broker restart at the end of the run re-reads and re-indexes.

Approximations (documented in the report): counts are expectations (no sampling noise except
in the time-bucket sample); deliveries happen at step boundaries; a seal is placed on the first
step boundary after it; the transient growth of a shared queue inside one
``getScheduledMessages`` call is ignored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

import trackerlab.core.rng as rng_core
import trackerlab.models.delayed.pip195_tracker as bt
from trackerlab.models.delayed.bucketed_tracker import precision_bits_for_tick
from trackerlab.models.delayed.delay_levels import DelayLevelTopicPartitionStrategy
from trackerlab.models.primitives.triple_heap_counts import TripleHeapCapacity, capacity_for_counts
from trackerlab.models.time_buckets.shapes import jvm_bytes_from_content
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing.jvm_roaring import sorted_distinct
from trackerlab.workloads import delay_forms as delays
from trackerlab.workloads.delay_spec import DelaySpec
from trackerlab.workloads.ledger_rollover import LedgerRollover
from trackerlab.workloads.stream import DEFAULT_START_MS

CHUNK = 1 << 16
#: Sampled entries per sample time for the time-bucket design (bounds its cost).
TIME_BUCKET_ENTRY_BUDGET = 400_000


@dataclass(frozen=True)
class Topic:
    """One topic's traffic as the designs see it (times in ms from the start of the run)."""

    spec: DelaySpec
    rate: float  # entries per ms
    horizon_ms: float
    step_ms: float
    samples: int = 96
    tick_ms: int = 1000
    entries_per_ledger: int = 50_000
    entry_bytes: int = 1024
    start_ledger: int = 10_000
    seed: int = 0
    #: the share of the topic's entries that carry a delay (``rate`` counts those only): the
    #: others fill the same ledgers without being indexed (1.0: every entry is delayed)
    share: float = 1.0

    @property
    def dist(self) -> delays.SpecDelay:
        """The delay distribution with its closed forms. O(1)."""
        return delays.SpecDelay(self.spec)

    @property
    def ledger_ms(self) -> float:
        """How long one ledger takes to fill, in ms (all entries count). O(1)."""
        return self.entries_per_ledger * self.share / self.rate

    @property
    def steps(self) -> int:
        """Time steps K over the horizon. O(1)."""
        return max(1, math.ceil(self.horizon_ms / self.step_ms - 1e-9))

    @property
    def times(self) -> np.ndarray:
        """Step ends ``t_k = k * step`` for k = 1..K (the last one clipped to the horizon). O(K)."""
        return np.minimum(np.arange(1, self.steps + 1) * self.step_ms, self.horizon_ms)

    @property
    def sample_index(self) -> np.ndarray:
        """Steps (0-based into :attr:`times`) where sizes are sampled, ending at the last.
        O(samples log samples)."""
        k = self.steps
        n = min(self.samples, k)
        return np.unique(np.round(np.linspace(k / n, k, n)).astype(np.int64) - 1)

    def pending(self, a, b, c) -> np.ndarray:
        """Expected messages published in ``[a, b)`` still delayed at ``c`` (closed form).
        O(len(a)), numpy."""
        return delays.pending(self.dist, self.rate, a, b, c)

    @property
    def tracked_fraction(self) -> float:
        """Entries an index accepts: ``deliverAt > publish + tick``. O(1)."""
        return 1.0 - float(self.dist.cdf(self.tick_ms))


@dataclass
class DesignRun:
    """One design's results for one subscription (the caller scales by subscriptions)."""

    design: str
    times_ms: np.ndarray  # sample times
    memory_bytes: np.ndarray  # in-memory index bytes at the sample times
    indexed: np.ndarray  # entries held by the in-memory index
    retained_entries: np.ndarray  # entries the business topic's ledgers still hold
    persisted_bytes: np.ndarray  # extra bytes kept besides the topic (snapshots, level copies)
    extra_written: np.ndarray | None = None  # cumulative extra bytes written, at sample times
    extra_writes_bytes: float = 0.0  # cumulative extra bytes written by the end
    extra_bk_entries: float = 0.0  # cumulative extra BookKeeper entries written
    retention_max_ms: float = 0.0  # longest time a business-topic ledger outlives its close
    retention_mean_ms: float = 0.0
    recovery_entries_read: float = 0.0  # entries re-read from the topic by a restart at the end
    recovery_indexes: float = 0.0  # indexes rebuilt in memory by that restart
    recovery_bytes_read: float = 0.0  # snapshot bytes read by that restart
    early_ms: float = 0.0  # how much earlier than deliverAt a message may go out
    late_ms: float = 0.0  # how much later (by the design's rules, not the time step)
    shared_subscriptions: bool = False  # persisted/extra writes shared by subscriptions
    shared_memory: bool = False  # one in-memory index for all subscriptions (PIP-448)
    buckets: np.ndarray | None = None  # time buckets of the index at the sample times
    direct_bytes: np.ndarray | None = None  # the direct-memory part of memory_bytes (None: 0)
    extras: dict[str, float] = field(default_factory=dict)
    notes: str = ""


@dataclass(frozen=True)
class Settings:
    """The designs' own knobs for a time-stepped run (the traffic is the :class:`Topic`)."""

    bucket_samples: int = 2000  # time-bucket keys sized per sample time
    min_index_count: int = bt.DEFAULT_MIN_INDEX_COUNT_PER_BUCKET
    segment_ms: float = bt.DEFAULT_SEGMENT_TIME_STEP_MS
    max_indexes_per_segment: int = bt.DEFAULT_MAX_INDEXES_PER_SEGMENT
    strategy: DelayLevelTopicPartitionStrategy = field(
        default_factory=DelayLevelTopicPartitionStrategy
    )
    rollover: LedgerRollover = field(default_factory=LedgerRollover)


# --------------------------------------------------------------------------- helpers


def _fft_convolve(seals: np.ndarray, profile: np.ndarray) -> np.ndarray:
    """``sum_j seals[j] * profile[k - j]`` for k < len(seals). O(n log n)."""
    n = len(seals)
    m = min(len(profile), n)
    if m == 0 or not seals.any():
        return np.zeros(n)
    size = 1 << (n + m - 1).bit_length()
    out = np.fft.irfft(np.fft.rfft(seals, size) * np.fft.rfft(profile[:m], size), size)[:n]
    out[np.abs(out) < 1e-6] = 0.0
    return out


def _mean_entry_varint(entries_per_ledger: int) -> float:
    """Mean varint length of entry ids uniform over ``[0, entries_per_ledger)``."""
    total, lo = 0.0, 0
    for nbytes, hi in ((1, 128), (2, 16_384), (3, 2_097_152), (4, 268_435_456)):
        n = max(0, min(hi, entries_per_ledger) - lo)
        total += nbytes * n
        lo = hi
    return total / entries_per_ledger


def _heap_capacity(counts: np.ndarray, peaks: np.ndarray) -> np.ndarray:
    return capacity_for_counts(np.round(counts).astype(np.int64), np.round(peaks).astype(np.int64))


def drain_times(topic: Topic, a: np.ndarray, b: np.ndarray, dist=None, rate=None) -> np.ndarray:
    """For publication windows ``[a, b)``: the first time their expected undelivered entries
    drop below 1/2 (vectorized bisection, 1 ms). O(windows * 45)."""
    dist = dist or topic.dist
    rate = topic.rate if rate is None else rate
    lo = np.asarray(b, dtype=np.float64) - topic.tick_ms
    hi = lo + dist.support_max + topic.tick_ms + 1.0
    done = delays.pending(dist, rate, a, b, lo + topic.tick_ms) < 0.5
    for _ in range(60):
        if np.all(hi - lo <= 1.0):
            break
        mid = (lo + hi) / 2
        ok = delays.pending(dist, rate, a, b, mid + topic.tick_ms) < 0.5
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
    return np.where(done, np.asarray(b, dtype=np.float64), hi)


@dataclass
class Retention:
    """Mark-delete driven ledger deletion of one topic written at a constant rate."""

    retained_entries: np.ndarray  # at the sample times
    retained_ledgers: np.ndarray
    max_ms: float
    mean_ms: float
    entries_after_mark_delete: float  # at the end: what a restart re-reads


def single_topic_retention(topic: Topic, dist=None, rate=None, ledger_entries=None) -> Retention:
    """Retention of a topic whose entries (rate ``rate``, delays ``dist``) all stay in it."""
    dist = dist or topic.dist
    rate = topic.rate if rate is None else rate
    per_ledger = ledger_entries or topic.entries_per_ledger
    span = per_ledger / rate
    n = max(1, math.ceil(topic.horizon_ms / span))
    starts = np.arange(n) * span
    ends = np.minimum(starts + span, topic.horizon_ms)
    drained = drain_times(topic, starts, ends, dist, rate)
    deleted = np.maximum(np.maximum.accumulate(drained), ends)
    closed = ends < topic.horizon_ms
    life = (deleted - ends)[closed & (deleted <= topic.horizon_ms)]
    # ledgers still held at the end count with their age so far
    held = (topic.horizon_ms - ends)[closed & (deleted > topic.horizon_ms)]
    ages = np.concatenate([life, held]) if len(life) + len(held) else np.zeros(1)
    t = topic.times[topic.sample_index]
    first = np.searchsorted(deleted, t, side="right")
    retained = rate * t - first * per_ledger
    ledgers = np.ceil(t / span - 1e-9) - first
    return Retention(
        retained_entries=np.maximum(retained, 0.0),
        retained_ledgers=np.maximum(ledgers, 0.0),
        max_ms=float(ages.max()),
        mean_ms=float(ages.mean()),
        entries_after_mark_delete=float(max(retained[-1], 0.0)),
    )


# --------------------------------------------------------------------------- (a) heap


def heap_design(topic: Topic, retention: Retention, settings: Settings) -> DesignRun:
    """The triple heap: every tracked entry costs 24 B of ``bytesCapacity()`` with slack."""
    t = topic.times
    counts = topic.pending(0.0, t, t + topic.tick_ms)
    adds = topic.rate * topic.step_ms * topic.tracked_fraction
    peaks = np.r_[0.0, counts[:-1]] + adds
    capacity = _heap_capacity(counts, peaks)
    s = topic.sample_index
    return DesignRun(
        design="triple-heap",
        times_ms=t[s],
        memory_bytes=capacity[s].astype(np.float64),
        indexed=counts[s],
        retained_entries=retention.retained_entries,
        persisted_bytes=np.zeros(len(s)),
        retention_max_ms=retention.max_ms,
        retention_mean_ms=retention.mean_ms,
        recovery_entries_read=retention.entries_after_mark_delete,
        recovery_indexes=float(counts[-1]),
        early_ms=topic.tick_ms,
        extras={"peak_all_steps": float(capacity.max())},
        notes="TripleLongPriorityQueue (SegmentedLongArray v2), bytesCapacity()",
    )


# --------------------------------------------------------------------------- (b) time buckets


def _entries_for_keys(
    topic: Topic, keys: np.ndarray, width: int, t: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Entries (position in ``keys``, entry index) whose deliverAt falls in each bucket ``[key, key + width)``,
    published in ``[0, t]``. Point masses give exact publication windows (thinned by their
    probability); densities give a Poisson number of entries at drawn publication times."""
    r = topic.rate
    out_keys, out_idx = [], []
    last = math.floor(t * r)  # entries 0..last-1 published by t
    for cluster in delays.atom_clusters(delays.atoms(topic.spec), width):
        # a message takes one delay: within a group of atoms whose windows overlap, one
        # uniform per message (counter-based on its index) picks its atom: no id lands twice
        salt = int(rng.integers(1 << 62)) if len(cluster) > 1 else 0
        below = 0.0
        for delay, p in cluster:
            d = int(delay)
            lo = np.clip(keys - d, 0, t + 1)
            hi = np.clip(keys - d + width, 0, t + 1)
            i_lo = np.minimum(np.ceil(lo * r).astype(np.int64), last)
            i_hi = np.minimum(np.ceil(hi * r).astype(np.int64), last)
            counts = np.maximum(i_hi - i_lo, 0)
            total = int(counts.sum())
            if total > 0:
                owner = np.repeat(np.arange(len(keys)), counts)
                offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
                idx = i_lo[owner] + offsets
                if len(cluster) > 1:
                    u = rng_core.uniforms_at(salt, 0, idx)
                    keep = (u >= below) & (u < below + p)
                    owner, idx = owner[keep], idx[keep]
                elif p < 1.0:
                    keep = rng.random(total) < p
                    owner, idx = owner[keep], idx[keep]
                out_keys.append(owner)
                out_idx.append(idx)
            below += p
    for part, p in delays.continuous_parts(topic.spec):
        g = delays.SpecDelay(part).cdf_integral
        mu = r * p * (g(keys + width) - g(keys) - g(keys + width - t) + g(keys - t))
        counts = rng.poisson(np.maximum(mu, 0.0))
        total = int(counts.sum())
        if total == 0:
            continue
        owner = np.repeat(np.arange(len(keys)), counts)
        u = keys[owner] + width * rng.random(total)
        drawn = delays.sample_truncated(part, np.maximum(u - t, 0.0), u, rng.random(total))
        idx = np.floor((u - drawn) * r).astype(np.int64)
        ok = (idx >= 0) & (idx < last)
        out_keys.append(owner[ok])
        out_idx.append(idx[ok])
    if not out_keys:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(out_keys).astype(np.int64), np.concatenate(out_idx)


def time_bucket_bytes(
    topic: Topic,
    t: float,
    max_keys: int,
    rng: np.random.Generator,
    shape: str = "avl-openhash",
    leaf: str = "roaring64",
) -> tuple[float, float, float]:
    """``(bytes, buckets, entries)`` of the time-bucket index at time ``t`` (variant a:
    bucket keys ``<= now + tick`` are due), estimated from a systematic sample of keys."""
    bits = precision_bits_for_tick(topic.tick_ms)
    width = 1 << bits
    cutoff = t + topic.tick_ms
    first = (math.floor(cutoff / width) + 1) * width
    last_key = math.floor((t + topic.dist.support_max) / width) * width
    nothing = np.zeros((0, 6), dtype=np.int64)
    empty = float(jvm_bytes_from_content(nothing, 0, shape, leaf=leaf))
    if last_key < first:
        return empty, 0.0, 0.0
    n_keys = (last_key - first) // width + 1
    indexed = float(topic.pending(0.0, t, first - 1))
    per_key = max(indexed / n_keys, 1e-9)
    budget = int(min(max_keys, max(64, TIME_BUCKET_ENTRY_BUDGET / per_key)))
    if n_keys <= budget:
        keys = first + width * np.arange(n_keys, dtype=np.int64)
        weight = 1.0
    else:
        stride = n_keys / budget
        keys = first + width * np.floor((np.arange(budget) + rng.random()) * stride).astype(
            np.int64
        )
        weight = stride
    owner, idx = _entries_for_keys(topic, keys, width, t, rng)
    if len(idx) == 0:
        return empty, 0.0, 0.0
    # distinct entries per key, then (key, ledger, chunk) groups, via packed int64 keys
    published = math.floor(t * topic.rate) + 1
    entries = sorted_distinct(owner * published + idx)
    owner, idx = entries // published, entries % published
    per_ledger = topic.entries_per_ledger
    chunks = -(-per_ledger // CHUNK)
    slot = (idx // per_ledger) * chunks + (idx % per_ledger) // CHUNK
    packed = owner * (slot.max() + 1) + slot  # non-decreasing: entries are sorted
    starts = np.flatnonzero(np.r_[True, packed[1:] != packed[:-1]])
    groups, cards = packed[starts], np.diff(np.r_[starts, len(packed)])
    g_owner, g_slot = groups // (slot.max() + 1), groups % (slot.max() + 1)
    content = np.zeros((len(groups), 6), dtype=np.int64)
    content[:, 0] = keys[g_owner]
    content[:, 1] = topic.start_ledger + g_slot // chunks
    content[:, 2] = g_slot % chunks
    content[:, 3] = cards
    content[:, 4] = np.minimum(cards, 1 << 15)  # run count: unused without runOptimize
    n_buckets = int(np.count_nonzero(np.r_[True, g_owner[1:] != g_owner[:-1]]))
    sample_bytes = jvm_bytes_from_content(content, n_buckets, shape, leaf=leaf)
    outer_sample = jvm_bytes_from_content(nothing, n_buckets, shape, leaf=leaf)
    buckets = n_buckets * weight
    outer = float(jvm_bytes_from_content(nothing, round(buckets), shape, leaf=leaf))
    return outer + (sample_bytes - outer_sample) * weight, buckets, len(entries) * weight


def time_bucket_design(
    topic: Topic,
    retention: Retention,
    settings: Settings,
    leaf: str = "roaring64",
    shape: str | None = None,
) -> DesignRun:
    """The #23611 time-bucket tracker, sized at ``settings.bucket_samples`` bucket keys per
    sample time. With a ``LongBitmap`` ``leaf`` it is the current form (c): AVL of RB maps
    of ``ConcurrentRoaringBitmap`` leaves, never early beyond the tick."""
    max_keys = settings.bucket_samples
    rng = np.random.default_rng([topic.seed, 23611])
    s = topic.sample_index
    times = topic.times[s]
    if shape is None:
        shape = "avl-openhash" if leaf == "roaring64" else "avl-rb"
    sizes = np.array(
        [time_bucket_bytes(topic, float(t), max_keys, rng, shape, leaf) for t in times]
    )
    bits = precision_bits_for_tick(topic.tick_ms)
    t_end = float(times[-1])
    width = 1 << bits
    first = (math.floor((t_end + topic.tick_ms) / width) + 1) * width
    return DesignRun(
        design="time-buckets",
        times_ms=times,
        memory_bytes=sizes[:, 0],
        indexed=sizes[:, 2],
        retained_entries=retention.retained_entries,
        persisted_bytes=np.zeros(len(s)),
        retention_max_ms=retention.max_ms,
        retention_mean_ms=retention.mean_ms,
        recovery_entries_read=retention.entries_after_mark_delete,
        recovery_indexes=float(topic.pending(0.0, t_end, first - 1)),
        early_ms=topic.tick_ms + (width - 1 if leaf == "roaring64" else 0),
        extras={"buckets_end": float(sizes[-1, 1]), "bucket_ms": float(width)},
        buckets=sizes[:, 1],
        notes=(
            f"Long2ObjectAVLTreeMap<Long2ObjectOpenHashMap<Roaring64Bitmap>>, {width} ms buckets"
            if (leaf, shape) == ("roaring64", "avl-openhash")
            else f"{shape} maps, {leaf} leaves, {width} ms buckets"
        ),
    )


# --------------------------------------------------------------------------- (c) PIP-195


@dataclass
class BucketShape:
    """The segments of a sealed bucket covering ``span_ms`` of publication, relative to its
    seal: segment j holds ``sizes[j]`` indexes and is delivered (the next one loads) when the
    cutoff passes ``ends[j]``, the expected time of its last index."""

    span_ms: float
    ledgers: int
    ends: np.ndarray
    sizes: np.ndarray
    cum: np.ndarray  # indexes in segments 1..j
    total: float
    grid: np.ndarray
    cum_grid: np.ndarray  # indexes with deliverAt <= seal + grid
    snapshot_bytes: float
    metadata_bytes: float

    @property
    def segments(self) -> int:
        """Segments of the bucket's snapshot. O(1)."""
        return len(self.sizes)

    def profiles(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """At relative cutoffs ``x``: the shared-queue content, indexes loaded so far, the
        current segment's size and liveness. O(len(x) log segments), numpy."""
        done = np.interp(x, self.grid, self.cum_grid, left=0.0, right=self.total)
        j = np.searchsorted(self.ends, x, side="right")  # first segment not fully delivered
        alive = j < len(self.ends)
        jj = np.minimum(j, len(self.ends) - 1)
        top = self.cum[jj]
        bottom = top - self.sizes[jj]
        remaining = np.where(alive, top - np.clip(done, bottom, top), 0.0)
        loaded = np.where(alive, top, self.total)
        return {
            "shared": remaining,
            "loaded": loaded,
            "segment": np.where(alive, self.sizes[jj], 0.0),
            "alive": alive.astype(np.float64),
        }


def _bucket_index_curve(
    topic: Topic, span_ms: float, segment_ms: float, max_points: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """Expected indexes of a bucket of ``span_ms`` of publication that come due by each time
    of a grid from the tick on (non-decreasing): the grid, the curve and its spacing in ms."""
    dist, r, tick = topic.dist, topic.rate, topic.tick_ms
    x_max = dist.support_max + tick + 1.0
    spacing = max(1.0, min(segment_ms / 16, (x_max - tick) / max_points))
    grid = np.arange(tick, x_max + spacing, spacing)
    g = dist.cdf_integral
    base = g(tick + span_ms) - g(tick)
    cum_grid = np.maximum(r * (g(grid + span_ms) - g(grid) - base), 0.0)
    cum_grid = np.maximum.accumulate(cum_grid)
    return grid, cum_grid, spacing


def _cut_segments(
    grid: np.ndarray, cum_grid: np.ndarray, spacing: float, segment_ms: float, max_indexes: int
) -> tuple[list[float], list[float]]:
    """Cut the curve into segments (by time, or by count when ``max_indexes`` != -1): each
    segment's delivery time (its last index) and its expected indexes. O(segments log points)."""
    total = float(cum_grid[-1])

    def time_of(mass: float) -> float:
        i = int(np.searchsorted(cum_grid, mass, side="left"))
        if i <= 0:
            return float(grid[0])
        if i >= len(grid):
            return float(grid[-1])
        lo, hi = cum_grid[i - 1], cum_grid[i]
        return float(grid[i - 1] + (mass - lo) / max(hi - lo, 1e-300) * spacing)

    ends, sizes = [], []
    done = 0.0
    while total - done >= 0.5:
        start = time_of(min(done + 1.0, total))
        end = start + segment_ms - 1
        by_count = False
        if max_indexes != -1:
            full = time_of(min(done + max_indexes, total))
            by_count = full <= end
            end = min(end, full)
        reached = float(np.interp(end, grid, cum_grid))
        reached = min(max(reached, done + 1.0), total)
        # the segment is delivered with its last index: at the cut when it is full, else one
        # expected index before the time limit (the backward gap of a Poisson stream)
        last = end if by_count else max(start, time_of(max(reached - 1.0, done + 1.0)))
        ends.append(last)
        sizes.append(reached - done)
        done = reached
    return ends, sizes


def bucket_shape(
    topic: Topic,
    span_ms: float,
    segment_ms: float,
    max_indexes: int,
    max_points: int = 400_000,
) -> BucketShape:
    """Cut the segments of a bucket sealed at the end of ``span_ms`` of publication
    (fluid ``buildSnapshot``: a segment starts at its first index, ends ``segment_ms - 1``
    later or after ``max_indexes``; the next starts one expected index later, and a segment cut
    by time is done one expected index before its limit). O(points + segments)."""
    grid, cum_grid, spacing = _bucket_index_curve(topic, span_ms, segment_ms, max_points)
    total = float(cum_grid[-1])
    ends, sizes = _cut_segments(grid, cum_grid, spacing, segment_ms, max_indexes)
    if not ends:
        ends, sizes = [float(topic.tick_ms)], [0.0]
    sizes_arr = np.array(sizes)
    ledgers = max(1, round(span_ms / topic.ledger_ms))
    snapshot, metadata = _snapshot_bytes(topic, sizes_arr, ledgers)
    return BucketShape(
        span_ms,
        ledgers,
        np.array(ends),
        sizes_arr,
        np.cumsum(sizes_arr),
        total,
        grid,
        cum_grid,
        snapshot,
        metadata,
    )


def _snapshot_bytes(topic: Topic, sizes: np.ndarray, ledgers: int) -> tuple[float, float]:
    """``(total, metadata)`` bytes of a bucket snapshot with segments of ``sizes`` indexes
    spread over ``ledgers`` ledgers. Segment entries: one ``DelayedIndex`` per index (epoch-ms
    timestamp, ledger and entry varints). Metadata: per segment its two timestamps and, for
    each ledger present (Poisson), a run-optimized serialized bitmap: one run when every
    message has the same delay, else 2 B per entry id (array container)."""
    ts = bt.varint_bytes(DEFAULT_START_MS + int(topic.horizon_ms))
    ledger_v = bt.varint_bytes(topic.start_ledger + int(topic.horizon_ms / topic.ledger_ms))
    entry_v = _mean_entry_varint(topic.entries_per_ledger)
    per_index = 2 + 3 + ts + ledger_v + entry_v
    segments = float(sizes.sum() * per_index)
    present = np.where(sizes > 0, ledgers * -np.expm1(-sizes / ledgers), 0.0)
    per_ledger = sizes / np.maximum(present, 1e-300)
    if delays.is_deterministic(topic.spec):
        bitmap = np.full(len(sizes), float(bt.portable_serialized_bytes(1, 6, True)))
    else:
        bitmap = bt.portable_serialized_bytes(1, 0, False) + 2 * per_ledger
    entry = 1 + ledger_v + 1 + bt.varint_bytes(np.ceil(bitmap).astype(np.int64)) + bitmap
    body = 2 * (1 + ts) + present * (1 + bt.varint_bytes(np.ceil(entry).astype(np.int64)) + entry)
    metadata = float(np.sum(1 + bt.varint_bytes(np.ceil(body).astype(np.int64)) + body))
    return segments + metadata, metadata


def _ledger_bitmaps_bytes(topic: Topic, t: float, first_ledger: int) -> tuple[float, int]:
    """Heap bytes of the per-ledger ``LongBitmap`` objects of every ledger from
    ``first_ledger`` that still has undelivered entries at ``t`` (bucket and in-flight
    bitmaps alike), sized per 2^16-entry container. O(ledgers * chunks)."""
    per_ledger = topic.entries_per_ledger
    n_ledgers = math.ceil(t / topic.ledger_ms + 1e-9)
    if n_ledgers <= first_ledger:
        return 0.0, 0
    chunks = math.ceil(per_ledger / CHUNK)
    led = np.arange(first_ledger, n_ledgers)
    c = np.arange(chunks)
    lo_entry = led[:, None] * per_ledger + c[None, :] * CHUNK
    hi_entry = np.minimum(lo_entry + CHUNK, (led[:, None] + 1) * per_ledger)
    entry_rate = topic.rate / topic.share  # every entry, delayed or not
    a = lo_entry / entry_rate
    b = np.minimum(hi_entry / entry_rate, t)
    cards = np.round(topic.pending(a, b, t + topic.tick_ms))
    present = cards >= 1
    containers = bt.ledger_bitmap_bytes(np.where(present, cards, 0))
    n_containers = present.sum(axis=1)
    objects = sum(bt.bitmap_object_bytes(int(k)) for k in n_containers[n_containers > 0])
    return float(containers.sum() + objects), int((n_containers > 0).sum())


def _pip195_seals(topic: Topic, min_index_count: int) -> tuple[list[float], list[float]]:
    """Bucket seals at ledger rollovers: (seal times, start of each sealed bucket), in ms.
    O(ledgers)."""
    tick, span = topic.tick_ms, topic.ledger_ms
    seal_at, seal_start = [], []
    start = 0.0
    rollover = span
    while rollover < topic.horizon_ms:
        if float(topic.pending(start, rollover, rollover + tick)) >= min_index_count:
            seal_at.append(rollover)
            seal_start.append(start)
            start = rollover
        rollover += span
    return seal_at, seal_start


def _mutable_queue_capacity(
    seal_step: np.ndarray, sealed_sizes: np.ndarray | list, adds: float, mutable: np.ndarray
) -> np.ndarray:
    """The mutable bucket's TripleLongPriorityQueue buffer bytes per step: it grows to each
    sealed bucket's size, empties at the seal, and holds ``mutable`` after each step's adds.
    O(K + seals)."""
    k_steps = len(mutable)
    queue = TripleHeapCapacity()
    mutable_cap = np.empty(k_steps)
    seals_in_step: dict[int, list[float]] = {}
    for k, size in zip(seal_step.tolist(), np.atleast_1d(sealed_sizes).tolist(), strict=False):
        seals_in_step.setdefault(k, []).append(size)
    for k in range(k_steps):
        for size in seals_in_step.get(k, ()):
            queue.set_count(max(queue.count, round(size)))
            queue.set_count(0)
        queue.add_many(round(adds))
        queue.set_count(round(mutable[k]))
        mutable_cap[k] = queue.bytes_capacity()
    return mutable_cap


@dataclass
class _SealedBuckets:
    """Sums over the sealed buckets per step: each shape's profile convolved with its seals."""

    shapes: dict[float, BucketShape]
    shared: np.ndarray  # indexes loaded into the shared queue
    shared_adds: np.ndarray  # indexes added to the shared queue in the step
    alive: np.ndarray  # sealed buckets not yet fully delivered
    recovery_indexes: np.ndarray  # indexes a restart would load (first segments)
    bucket_bytes: np.ndarray  # per-bucket heap objects
    persisted: np.ndarray  # snapshot bytes of the live buckets
    written: np.ndarray  # cumulative snapshot bytes written
    bk_entries: np.ndarray  # cumulative BookKeeper entries written
    metadata_alive: np.ndarray  # snapshot metadata bytes of the live buckets


def _sealed_buckets(
    topic: Topic,
    seal_start: list[float],
    seal_at: list[float],
    seal_step: np.ndarray,
    settings: Settings,
) -> _SealedBuckets:
    """Group the seals by bucket shape and sum each shape's profiles over the run (FFT
    convolutions). O(shapes x K log K)."""
    k_steps = topic.steps
    x = (np.arange(k_steps) + 0.5) * topic.step_ms + topic.tick_ms
    shapes: dict[float, BucketShape] = {}
    seals_by_shape: dict[float, np.ndarray] = {}
    for a, b, k in zip(seal_start, seal_at, seal_step.tolist(), strict=True):
        key = round(b - a, 3)
        if key not in shapes:
            shapes[key] = bucket_shape(
                topic, b - a, settings.segment_ms, settings.max_indexes_per_segment
            )
            seals_by_shape[key] = np.zeros(k_steps)
        seals_by_shape[key][k] += 1
    out = _SealedBuckets(shapes, *(np.zeros(k_steps) for _ in range(9)))
    for key, shape in shapes.items():
        seals = seals_by_shape[key]
        prof = shape.profiles(x)
        loaded = prof["loaded"]
        live = _fft_convolve(seals, prof["alive"])
        out.shared += _fft_convolve(seals, prof["shared"])
        out.shared_adds += _fft_convolve(seals, np.diff(np.r_[0.0, loaded]))
        out.recovery_indexes += _fft_convolve(seals, prof["segment"])
        out.alive += live
        out.bucket_bytes += live * bt.bucket_heap_bytes(shape.segments, shape.ledgers)
        out.persisted += live * shape.snapshot_bytes
        out.metadata_alive += live * shape.metadata_bytes
        sealed = np.cumsum(seals)
        out.written += sealed * shape.snapshot_bytes
        out.bk_entries += sealed * (1 + shape.segments)
    out.shared = np.maximum(out.shared, 0.0)
    return out


def _shared_queue_capacity(
    topic: Topic,
    buckets: _SealedBuckets,
    mutable: np.ndarray,
    adds: float,
    seal_step: np.ndarray,
    sealed_sizes: np.ndarray | list,
) -> np.ndarray:
    """The shared TripleLongPriorityQueue's buffer bytes per step, peaks included. O(K)."""
    # due mutable indexes pass through the shared queue inside one getScheduledMessages call;
    # the dispatcher calls it about once per tick, so one tick's worth adds to the peak
    shared = buckets.shared
    sealed_now = np.zeros(len(mutable))
    if len(seal_step):
        np.add.at(sealed_now, seal_step, np.atleast_1d(sealed_sizes))
    moved = np.maximum(np.r_[0.0, mutable[:-1]] + adds - sealed_now - mutable, 0.0)
    per_call = moved * min(1.0, topic.tick_ms / topic.step_ms)
    shared_peaks = np.r_[0.0, shared[:-1]] + np.maximum(buckets.shared_adds, 0.0) + per_call
    return _heap_capacity(shared, shared_peaks)


def _pip195_bitmaps_bytes(topic: Topic, mutable_from: np.ndarray) -> np.ndarray:
    """Per-ledger bitmaps plus the in-flight ledgers' Long2Object map at each sample time.
    O(samples x ledgers)."""
    t = topic.times
    s = topic.sample_index
    bitmaps = np.zeros(len(s))
    for i, k in enumerate(s.tolist()):
        b_bytes, _ = _ledger_bitmaps_bytes(topic, float(t[k]), 0)
        in_flight_ledgers = math.ceil((float(t[k]) - mutable_from[k]) / topic.ledger_ms - 1e-9)
        inflight_map = jc.fastutil_long2object_open_hash_map(
            jc.fastutil_capacity(in_flight_ledgers)
        )
        bitmaps[i] = b_bytes + inflight_map
    return bitmaps


def _mutable_start_and_seal_steps(
    topic: Topic, seal_at_arr: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per step, where the mutable bucket starts (the last seal before it, else 0), and the
    step each seal falls in. O(K log seals)."""
    t = topic.times
    k_steps = len(t)
    # the mutable bucket: entries since the last seal still undelivered
    mutable_from = np.zeros(k_steps)
    if len(seal_at_arr):
        last = np.searchsorted(seal_at_arr, t, side="left") - 1  # seals before t
        mutable_from = np.where(last >= 0, seal_at_arr[np.maximum(last, 0)], 0.0)
    # the entry published at the rollover is added in the step that starts at or before it
    seal_step = np.minimum(
        np.floor(seal_at_arr / topic.step_ms + 1e-9).astype(np.int64), k_steps - 1
    )
    return mutable_from, seal_step


def pip195_design(topic: Topic, retention: Retention, settings: Settings) -> DesignRun:
    """PIP-195's bucket tracker (see the module docstring)."""
    tick = topic.tick_ms
    t = topic.times
    seal_at, seal_start = _pip195_seals(topic, settings.min_index_count)
    seal_at_arr = np.array(seal_at)
    seal_start_arr = np.array(seal_start)
    mutable_from, seal_step = _mutable_start_and_seal_steps(topic, seal_at_arr)
    mutable = topic.pending(mutable_from, t, t + tick)
    adds = topic.rate * topic.step_ms * topic.tracked_fraction
    sealed_sizes: np.ndarray | list[float] = (
        topic.pending(seal_start_arr, seal_at_arr, seal_at_arr + tick) if len(seal_at) else []
    )
    mutable_cap = _mutable_queue_capacity(seal_step, sealed_sizes, adds, mutable)
    buckets = _sealed_buckets(topic, seal_start, seal_at, seal_step, settings)
    shapes, shared, alive = buckets.shapes, buckets.shared, buckets.alive
    shared_cap = _shared_queue_capacity(topic, buckets, mutable, adds, seal_step, sealed_sizes)
    s = topic.sample_index
    bitmaps = _pip195_bitmaps_bytes(topic, mutable_from)
    direct = mutable_cap[s] + shared_cap[s]  # the TripleLongPriorityQueues' buffers
    memory = direct + buckets.bucket_bytes[s] + bitmaps
    sizes = [sh.total for sh in shapes.values()]
    recovery_indexes, metadata_alive = buckets.recovery_indexes, buckets.metadata_alive
    return DesignRun(
        design="pip195-buckets",
        times_ms=t[s],
        memory_bytes=memory,
        direct_bytes=direct,
        indexed=mutable[s] + shared[s],
        retained_entries=retention.retained_entries,
        persisted_bytes=buckets.persisted[s],
        extra_written=buckets.written[s],
        extra_writes_bytes=float(buckets.written[-1]),
        extra_bk_entries=float(buckets.bk_entries[-1]),
        retention_max_ms=retention.max_ms,
        retention_mean_ms=retention.mean_ms,
        recovery_entries_read=retention.entries_after_mark_delete,
        recovery_indexes=float(recovery_indexes[-1] + mutable[-1]),
        recovery_bytes_read=float(metadata_alive[-1] + recovery_indexes[-1] * _index_bytes(topic)),
        early_ms=tick,
        extras={
            "buckets_sealed": float(len(seal_at)),
            "buckets_alive_end": float(alive[-1]),
            "segments_per_bucket": float(np.mean([sh.segments for sh in shapes.values()]))
            if shapes
            else 0.0,
            "indexes_per_bucket": float(np.mean(sizes)) if sizes else 0.0,
            "mutable_bytes_end": float(mutable_cap[-1]),
            "shared_bytes_end": float(shared_cap[-1]),
            "bucket_objects_bytes_end": float(buckets.bucket_bytes[-1]),
            "bitmaps_bytes_end": float(bitmaps[-1]),
            "cursor_property_updates": float(len(seal_at) + (len(seal_at) - alive[-1])),
        },
        notes="mutable + shared TripleLongPriorityQueue, per-ledger bitmaps, per-bucket objects",
    )


def _index_bytes(topic: Topic) -> float:
    ts = bt.varint_bytes(DEFAULT_START_MS + int(topic.horizon_ms))
    ledger_v = bt.varint_bytes(topic.start_ledger + int(topic.horizon_ms / topic.ledger_ms))
    return 2 + 3 + ts + ledger_v + _mean_entry_varint(topic.entries_per_ledger)


# --------------------------------------------------------------------------- (d) levels


def _band_pending(topic: Topic, lo: np.ndarray, hi: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Entries of delay band ``[lo, hi)`` re-published at ``publish + lo`` into the real topic
    by ``t`` and still undelivered at ``t + tick``: ``r * ∫_{lo+tick}^{min(t+tick, hi)}
    (F(hi-) - F(y)) dy``. Broadcasts ``t`` (rows) against bands (columns)."""
    g, f, tick = topic.dist.cdf_integral, topic.dist.cdf, topic.tick_ms
    y0 = lo + tick
    upper = np.where(np.isinf(hi), 1.0, f(np.where(np.isinf(hi), 0.0, hi - 0.5)))
    y1 = np.minimum(t[:, None] + tick, hi)
    y1 = np.maximum(y1, y0)
    return topic.rate * np.maximum(upper * (y1 - y0) - (g(y1) - g(y0)), 0.0)


def _level_bands(strategy: DelayLevelTopicPartitionStrategy) -> tuple[np.ndarray, np.ndarray]:
    """Delay bands ``[lo, hi)`` in ms: the real topic's (below one unit), then one per level
    partition, the last open-ended. O(partitions)."""
    unit = strategy.unit_ms
    parts = strategy.partitions
    lo = np.r_[0.0, (np.arange(parts) + 1.0) * unit]
    hi = np.r_[float(unit) if parts else np.inf, (np.arange(parts) + 2.0) * unit]
    if parts:
        hi[-1] = np.inf
    return lo, hi


def _real_index_capacity(
    topic: Topic, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The real topic's heap index per step: entries held (every band's pending) and the
    heap's capacity bytes after each step's adds. O(K x bands)."""
    dist, r, tick = topic.dist, topic.rate, topic.tick_ms
    t = topic.times
    counts = np.zeros(len(t))
    for chunk in range(0, len(t), 4096):
        tt = t[chunk : chunk + 4096]
        counts[chunk : chunk + 4096] = _band_pending(topic, lo, hi, tt).sum(axis=1)
    tracked = np.array(
        [
            max(0.0, dist.mass(a + tick, b) if a + tick < b else 0.0)
            for a, b in zip(lo, hi, strict=True)
        ]
    )
    started = np.clip(t[:, None] - lo[None, :], 0.0, topic.step_ms)
    adds = r * (started * tracked[None, :]).sum(axis=1)
    return counts, _heap_capacity(counts, np.r_[0.0, counts[:-1]] + adds)


def _level_backlog(
    topic: Topic,
    rollover: LedgerRollover,
    level_rates: np.ndarray,
    level_lo: np.ndarray,
    ts: np.ndarray,
) -> tuple[np.ndarray, float]:
    """Entries the level partitions keep at the sample times (FIFO with lag ``lo``; a ledger
    goes once the mover passed its end) and their longest retention in ms. O(levels x S)."""
    backlog = np.zeros(len(ts))
    level_retention = 0.0
    for rate_i, lag in zip(level_rates, level_lo, strict=True):
        if rate_i <= 0:
            continue
        span = rollover.span_ms(rate_i, topic.entry_bytes)
        consumed = np.maximum(ts - lag, 0.0)
        ledger_start = np.floor(consumed / span) * span
        backlog += rate_i * (ts - ledger_start)
        level_retention = max(level_retention, lag + span)
    return backlog, level_retention


def _real_topic_retention(
    topic: Topic, mass: np.ndarray, lo: np.ndarray, hi: np.ndarray, rollover: LedgerRollover
) -> Retention:
    """Retention of the real topic: direct entries plus re-publications, a steady-state
    mixture of the bands' remainders, in ledgers sized by the rollover policy."""
    dist = topic.dist
    remainders = [(mass[0], delays.BandRemainder(dist, 0.0, hi[0]))] + [
        (m, delays.BandRemainder(dist, a, b))
        for m, a, b in zip(mass[1:], lo[1:], hi[1:], strict=True)
    ]
    real_rate = topic.rate * float(mass.sum())
    real_dist = delays.MixtureDelay(remainders)
    real_entries = rollover.entries_per_ledger(real_rate, topic.entry_bytes)
    real_topic = Topic(
        topic.spec,
        real_rate,
        topic.horizon_ms,
        topic.step_ms,
        topic.samples,
        topic.tick_ms,
        real_entries,
        topic.entry_bytes,
        topic.start_ledger,
        topic.seed,
    )
    return single_topic_retention(real_topic, real_dist, real_rate, real_entries)


def level_design(topic: Topic, retention: Retention, settings: Settings) -> DesignRun:
    """Delay-level topics: the real topic's in-memory index holds the current level only
    (``retention`` is the business topic's, which this design replaces: unused)."""
    strategy, rollover = settings.strategy, settings.rollover
    parts = strategy.partitions
    dist, r, tick = topic.dist, topic.rate, topic.tick_ms
    lo, hi = _level_bands(strategy)
    mass = np.array([dist.mass(a, b) for a, b in zip(lo, hi, strict=True)])
    counts, capacity = _real_index_capacity(topic, lo, hi)
    s = topic.sample_index
    ts = topic.times[s]
    level_mass, level_lo = mass[1:], lo[1:]
    republished = r * (np.maximum(ts[:, None] - level_lo[None, :], 0.0) * level_mass).sum(axis=1)
    backlog, level_retention = _level_backlog(topic, rollover, r * level_mass, level_lo, ts)
    # the real topic: direct entries plus re-publications (steady-state mix of remainders)
    direct = r * mass[0]
    real = _real_topic_retention(topic, mass, lo, hi, rollover)
    written_real = direct * ts + republished
    real_retained = np.minimum(real.retained_entries, written_real)
    end_backlog = float(backlog[-1])
    return DesignRun(
        design="delay-level-topics",
        times_ms=ts,
        memory_bytes=capacity[s].astype(np.float64),
        indexed=counts[s],
        retained_entries=real_retained,
        persisted_bytes=backlog * topic.entry_bytes,
        extra_written=republished * topic.entry_bytes,
        extra_writes_bytes=float(republished[-1] * topic.entry_bytes),
        extra_bk_entries=float(republished[-1]),
        retention_max_ms=real.max_ms,
        retention_mean_ms=real.mean_ms,
        recovery_entries_read=real.entries_after_mark_delete,
        recovery_indexes=float(counts[-1]),
        early_ms=tick,
        shared_subscriptions=True,
        extras={
            "level_partitions": float(parts),
            "republished_entries": float(republished[-1]),
            "level_backlog_entries_end": end_backlog,
            "level_retention_max_ms": level_retention,
            "real_topic_entries_end": float(written_real[-1]),
            "beyond_max_fraction": float(1.0 - dist.cdf(strategy.max_delay_ms - 0.5)),
        },
        notes=f"{parts} level partitions by {strategy.partition_by}; real topic indexed by a heap",
    )
