"""PIP-195 ``BucketDelayedDeliveryTracker``: ledger-range buckets with snapshots in BookKeeper.

Follows ``apache/pulsar`` ``pulsar-broker/src/main/java/org/apache/pulsar/broker/delayed/
bucket/{BucketDelayedDeliveryTracker,MutableBucket,ImmutableBucket,
BookkeeperBucketSnapshotStorage}.java`` as of PIP-195 (#16763, 3.0) with its later fixes
through #26251 (spec ``pulsar-structures.md`` §3.6; snapshot format
``pulsar-broker/src/main/proto/DelayedMessageIndexBucketSnapshotFormat.proto``):

- ``addMessage``: refuse when ``deliverAt <= cutoff`` (§3.2); ``true`` without change when the
  position is already indexed (in-flight bitmap or an immutable bucket's bitmap). **Seal** the
  mutable bucket when the ledger is not covered by an immutable bucket, is past the mutable
  bucket's ``endLedgerId`` and the mutable queue holds ``>= minIndexCountPerBucket`` (50,000)
  indexes. Then index the message in the mutable bucket (ledger ``>= endLedgerId``) or
  directly in the shared queue, and track it in ``inflightIndex``.
- **Seal** (``MutableBucket.buildSnapshot``): pop the mutable queue in ``(deliverAt, ledger,
  entry)`` order and cut segments: a segment starting at ``t0`` ends after an index when the
  next index is later than ``t0 + timeStep - 1`` (300 s) or the segment holds
  ``maxIndexesPerBucketSnapshotSegment`` (5,000) indexes. Segment 1 goes into the shared
  queue at once; all segments are written to a new BookKeeper ledger (entry 0 = metadata with
  one run-optimized serialized ``RoaringBitmap`` per ledger per segment, entries 1..N = the
  segments' ``DelayedIndex`` lists); the bucket keeps the union of the bitmaps in memory; a
  cursor property records the bucket.
- ``getScheduledMessages(n)``: move due mutable indexes to the shared queue, then pop due
  indexes; when the popped index is the last one of its bucket's loaded segment, load the next
  segment into the shared queue (or delete the bucket when none is left). Each delivered index
  clears its bit. Loads are synchronous here (Java loads asynchronously and pauses delivery
  until the load completes).
- **Recovery** (``recoverBucketSnapshot``): for every bucket in the cursor properties read the
  metadata, skip the segments whose ``maxScheduleTimestamp <= cutoff``, load the next one into
  the shared queue and rebuild the bitmaps from the remaining segments' metadata. The mutable
  bucket is not persisted: its messages are read again from the topic.

Not modelled: bucket merging (``delayedDeliveryMaxNumBuckets = -1``, the default), trimming
below the mark-delete position, failed BookKeeper writes. Memory is the two
``TripleLongPriorityQueue`` capacities (what ``getBufferMemoryUsage`` reports) plus the heap
objects Java keeps per bucket, per ledger bitmap and per segment (:func:`bucket_heap_bytes`,
:func:`ledger_bitmap_bytes`), which ``getBufferMemoryUsage`` leaves out.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import overload

import numpy as np
from pyroaring import BitMap
from sortedcontainers import SortedDict

from trackerlab.models.primitives.triple_heap import TripleLongPriorityQueue, array_list_capacity
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing import jvm_long_bitmap as jl
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.roaring_serialized import portable_bytes

DEFAULT_MIN_INDEX_COUNT_PER_BUCKET = 50_000
DEFAULT_SEGMENT_TIME_STEP_MS = 300_000
DEFAULT_MAX_INDEXES_PER_SEGMENT = 5_000
DEFAULT_TICK_MS = 1000

Position = tuple[int, int]


# --------------------------------------------------------------------------- snapshot bytes


@overload
def varint_bytes(value: int) -> int: ...
@overload
def varint_bytes(value: np.ndarray) -> np.ndarray: ...
def varint_bytes(value: int | np.ndarray) -> int | np.ndarray:
    """Protobuf varint length of non-negative ``value`` (7 bits per byte)."""
    v = np.asarray(value, dtype=np.uint64)
    bits = np.where(v > 0, np.floor(np.log2(np.maximum(v, 1).astype(np.float64))) + 1, 1)
    out = np.maximum(1, np.ceil(bits / 7)).astype(np.int64)
    return int(out) if np.ndim(value) == 0 else out


def delayed_index_bytes(timestamp: int, ledger: int, entry: int) -> int:
    """One ``DelayedIndex`` inside a ``SnapshotSegment``: three tagged varints, plus the
    repeated field's tag and length."""
    body = 3 + varint_bytes(timestamp) + varint_bytes(ledger) + varint_bytes(entry)
    return 1 + varint_bytes(body) + body


#: RoaringBitmap's portable ``serializedSizeInBytes`` (one definition, in sizing).
portable_serialized_bytes = portable_bytes


def serialized_bitmap_bytes(bm: BitMap, run_optimize: bool = True) -> int:
    """``LongBitmap.serialize()`` length: a run-optimized copy in the portable format."""
    if run_optimize:
        bm = BitMap(bm)
        bm.run_optimize()
    return len(bm.serialize())


def segment_metadata_bytes(bitmap_bytes: dict[int, int], timestamp: int) -> int:
    """One ``SnapshotSegmentMetadata``: a map entry (ledger -> serialized bitmap) per ledger,
    ``max_schedule_timestamp`` and ``min_schedule_timestamp``; as an element of the
    ``SnapshotMetadata`` list (tag + length)."""
    body = 2 * (1 + varint_bytes(timestamp))
    for ledger, size in bitmap_bytes.items():
        entry = 1 + varint_bytes(ledger) + 1 + varint_bytes(size) + size
        body += 1 + varint_bytes(entry) + entry
    return 1 + varint_bytes(body) + body


# --------------------------------------------------------------------------- heap sizes


#: ``ImmutableBucket`` (latest): ctx, startLedgerId, endLedgerId, delayedIndexBitMap,
#: snapshotSegments, merging, firstScheduleTimestamps, numberBucketDelayedMessages,
#: lastSegmentEntryId, currentSegmentEntryId, snapshotLength, bucketId, snapshotCreateFuture.
IMMUTABLE_BUCKET_FIELDS = "LJJLLZLJIIJLL"
#: The per-ledger ``LongBitmap`` of a bucket: ``ConcurrentRoaringBitmap`` over a
#: ``MutableRoaringBitmap`` (#26117), sized by :mod:`trackerlab.sizing.jvm_long_bitmap`.
LEAF_SHAPE = "wraps-mutable"


def ledger_bitmap_bytes(
    cardinalities: np.ndarray,
    chunk_counts: np.ndarray | None = None,
    layout: JvmLayout = COMPRESSED,
) -> np.ndarray:
    """Heap bytes of the containers of per-ledger ``LongBitmap`` objects, one per container row
    of cardinalities (0: no container); ``chunk_counts`` is unused (kept for callers).

    Containers are trimmed (``ConcurrentRoaringBitmap`` trims every 10,000 removals and when
    empty; the snapshot bitmaps are built fresh): array ``char[card]``, bitmap ``long[1024]``,
    each behind an NIO buffer object (:func:`~trackerlab.sizing.jvm_long_bitmap.
    container_bytes_array`, checked by ``jvm-check``'s ``long-bitmap-wraps-mutable-*``).
    Vectorized, O(rows)."""
    card = np.asarray(cardinalities, dtype=np.int64)
    return jl.container_bytes_array(card, card, LEAF_SHAPE, layout)


@functools.cache
def bitmap_object_bytes(n_containers: int, layout: JvmLayout = COMPRESSED) -> int:
    """The per-bitmap objects around the containers: the wrapper, its ``StampedLock``, the
    ``MutableRoaringBitmap`` and its key/container arrays (capacity grown by inserts)."""
    return jl.fixed_bytes(n_containers, LEAF_SHAPE, layout=layout)


def bucket_heap_bytes(n_segments: int, n_ledgers: int, layout: JvmLayout = COMPRESSED) -> int:
    """Heap bytes of one immutable bucket besides its bitmaps' containers and bitmap objects:

    - the ``ImmutableBucket`` object, its boxed ``bucketId`` and completed create future;
    - ``firstScheduleTimestamps``: an ``ArrayList<Long>`` with one boxed ``Long`` per segment;
    - ``delayedIndexBitMap``: a ``java.util.HashMap<Long, LongBitmap>`` (boxed keys);
    - its ``TreeRangeMap`` entry (``TreeMap.Entry``, ``RangeMapEntry``, ``Range``, two
      ``Cut`` objects, two boxed ``Long`` bounds) and its ``snapshotSegmentLastIndexMap`` entry
      (``ConcurrentHashMap.Node`` + ``SnapshotKey`` record + a table slot).
    O(1)."""
    boxed = jc.boxed_long(layout)
    bucket = layout.instance(IMMUTABLE_BUCKET_FIELDS) + boxed + layout.instance("LL")
    timestamps = (
        layout.instance("LII")
        + layout.array(array_list_capacity(n_segments), "L")
        + n_segments * boxed
    )
    bitmaps = jc.hash_map(n_ledgers, n_ledgers * boxed, layout=layout)
    range_entry = (
        layout.instance("LLLLLZ")  # TreeMap.Entry
        + layout.instance("LL")  # RangeMapEntry
        + layout.instance("LL")  # Range
        + 2 * layout.instance("L")  # Cut.BelowValue / Cut.AboveValue
        + 2 * boxed
    )
    last_index = layout.instance("ILLL") + layout.instance("JJ") + layout.ref
    return bucket + timestamps + bitmaps + range_entry + last_index


# --------------------------------------------------------------------------- the model


@dataclass
class Segment:
    """One snapshot segment: its indexes in ``(timestamp, ledger, entry)`` order."""

    timestamps: np.ndarray
    ledgers: np.ndarray
    entries: np.ndarray

    def __len__(self) -> int:
        return len(self.timestamps)

    @property
    def min_timestamp(self) -> int:
        """The first index's timestamp (``firstScheduleTimestamps`` of the segment). O(1)."""
        return int(self.timestamps[0])

    @property
    def max_timestamp(self) -> int:
        """``SnapshotSegmentMetadata.max_schedule_timestamp``. O(1)."""
        return int(self.timestamps[-1])

    def bitmaps(self) -> dict[int, BitMap]:
        """Per-ledger entry bitmaps (``SnapshotSegmentMetadata.delayed_index_bit_map``).
        O(ledgers × n)."""
        out: dict[int, BitMap] = {}
        for ledger in np.unique(self.ledgers).tolist():
            out[ledger] = BitMap(self.entries[self.ledgers == ledger].tolist())
        return out

    def entry_bytes(self) -> int:
        """Bytes of the BookKeeper entry holding this ``SnapshotSegment`` (no Java method). O(n)."""
        body = 3 + varint_bytes(self.timestamps) + varint_bytes(self.ledgers)
        body = body + varint_bytes(self.entries)
        return int((1 + varint_bytes(body) + body).sum())

    def metadata_bytes(self) -> int:
        """Bytes of this segment's ``SnapshotSegmentMetadata`` (no Java method). O(ledgers × n)."""
        sizes = {led: serialized_bitmap_bytes(bm) for led, bm in self.bitmaps().items()}
        return segment_metadata_bytes(sizes, self.max_timestamp)


def cut_segments(
    timestamps: np.ndarray,
    ledgers: np.ndarray,
    entries: np.ndarray,
    time_step_ms: int = DEFAULT_SEGMENT_TIME_STEP_MS,
    max_indexes: int = DEFAULT_MAX_INDEXES_PER_SEGMENT,
) -> list[Segment]:
    """``buildSnapshot``'s cut of sorted indexes into segments. O(n) + O(segments) Python."""
    segments: list[Segment] = []
    n = len(timestamps)
    start = 0
    while start < n:
        limit = int(timestamps[start]) + time_step_ms - 1
        end = int(np.searchsorted(timestamps, limit, side="right"))
        if max_indexes != -1:
            end = min(end, start + max_indexes)
        segments.append(Segment(timestamps[start:end], ledgers[start:end], entries[start:end]))
        start = end
    return segments


@dataclass
class ImmutableBucket:
    """A sealed ledger range ``[start_ledger, end_ledger]`` and its persisted snapshot."""

    start_ledger: int
    end_ledger: int
    segments: list[Segment]
    bitmaps: dict[int, BitMap]
    current_segment: int = 1  # currentSegmentEntryId (1-based)
    number_delayed: int = 0
    metadata_bytes: int = 0
    segment_bytes: list[int] = field(default_factory=list)

    @property
    def snapshot_bytes(self) -> int:
        """Bytes of its snapshot ledger (the bucket's ``snapshotLength``). O(segments)."""
        return self.metadata_bytes + sum(self.segment_bytes)

    @property
    def bk_entries(self) -> int:
        """Entries of its snapshot ledger: the metadata plus one per segment. O(1)."""
        return 1 + len(self.segments)


@dataclass
class BucketStats:
    """Counters of writes, loads and deletes (cumulative)."""

    buckets_created: int = 0
    buckets_deleted: int = 0
    snapshot_bytes_written: int = 0
    bk_entries_written: int = 0
    cursor_property_updates: int = 0
    segments_loaded: int = 0
    indexes_loaded: int = 0


@dataclass
class RecoveryWork:
    """What a restart reads back: per-bucket metadata, one segment per bucket."""

    buckets: int = 0
    metadata_bytes_read: int = 0
    segments_read: int = 0
    segment_bytes_read: int = 0
    indexes_loaded: int = 0
    buckets_dropped: int = 0


class BucketDelayedDeliveryTracker:
    """The tracker with an explicit clock. ``add`` O(log n); a seal O(m log m) for the m
    indexes of the mutable bucket; a delivery O(log n) plus segment loads."""

    def __init__(
        self,
        tick_ms: int = DEFAULT_TICK_MS,
        strict: bool = False,
        min_index_count: int = DEFAULT_MIN_INDEX_COUNT_PER_BUCKET,
        segment_time_step_ms: int = DEFAULT_SEGMENT_TIME_STEP_MS,
        max_indexes_per_segment: int = DEFAULT_MAX_INDEXES_PER_SEGMENT,
        queue_version: str = "v2",
    ) -> None:
        if tick_ms < 0:
            raise ValueError(f"tick_ms must be >= 0, got {tick_ms}")
        if min_index_count < 1:
            raise ValueError(f"min_index_count must be >= 1, got {min_index_count}")
        self.tick_ms = tick_ms
        self.strict = strict
        self.min_index_count = min_index_count
        self.segment_time_step_ms = segment_time_step_ms
        self.max_indexes_per_segment = max_indexes_per_segment
        self.queue_version = queue_version
        self.mutable = TripleLongPriorityQueue(version=queue_version)
        self.mutable_start = -1
        self.mutable_end = -1
        self.shared = TripleLongPriorityQueue(version=queue_version)
        self.buckets: SortedDict = SortedDict()  # start ledger -> ImmutableBucket
        self.last_index: dict[Position, ImmutableBucket] = {}
        self.inflight: dict[int, BitMap] = {}
        self.number_delayed = 0
        self.stats = BucketStats()

    # ------------------------------------------------------------------ lookups

    def cutoff(self, now_ms: int) -> int:
        """``getCutoffTime()``. O(1)."""
        return now_ms if self.strict else now_ms + self.tick_ms

    def find_bucket(self, ledger: int) -> ImmutableBucket | None:
        """``findImmutableBucket``: ``immutableBuckets.get(ledgerId)``, the bucket whose range
        contains ``ledger``. O(log buckets)."""
        i = self.buckets.bisect_right(ledger) - 1
        if i < 0:
            return None
        bucket = self.buckets.peekitem(i)[1]
        return bucket if bucket.start_ledger <= ledger <= bucket.end_ledger else None

    def contains_message(self, ledger: int, entry: int) -> bool:
        """``containsMessage``: the mutable bucket's bits, then the immutable bucket's.
        O(log buckets)."""
        bm = self.inflight.get(ledger)
        if bm is not None and entry in bm:
            return True
        bucket = self.find_bucket(ledger)
        return bucket is not None and ledger in bucket.bitmaps and entry in bucket.bitmaps[ledger]

    # ------------------------------------------------------------------ add

    def add_message(self, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        """``addMessage``: False means "due already, dispatch now". O(log n); a seal O(m log m)
        for the m indexes of the mutable bucket."""
        if deliver_at < 0 or deliver_at <= self.cutoff(now_ms):
            return False
        if self.contains_message(ledger, entry):
            return True
        exist_bucket = self.find_bucket(ledger) is not None
        if (
            not exist_bucket
            and ledger > self.mutable_end
            and self.mutable.size() >= self.min_index_count
            and not self.mutable.is_empty()
        ):
            self._seal()
        if ledger >= self.mutable_end and not exist_bucket:
            self.mutable.add(deliver_at, ledger, entry)
            if self.mutable_start == -1:
                self.mutable_start = ledger
            self.mutable_end = ledger
        else:
            self.shared.add(deliver_at, ledger, entry)
        self.inflight.setdefault(ledger, BitMap()).add(entry)
        self.number_delayed += 1
        return True

    def _seal(self) -> None:
        """``sealBucketAndAsyncPersistent`` + ``afterCreateImmutableBucket`` (synchronous)."""
        rows = []
        while not self.mutable.is_empty():
            rows.append(self.mutable.pop())
        arr = np.array(rows, dtype=np.int64).reshape(-1, 3)
        segments = cut_segments(
            arr[:, 0], arr[:, 1], arr[:, 2], self.segment_time_step_ms, self.max_indexes_per_segment
        )
        bitmaps: dict[int, BitMap] = {}
        for ledger in np.unique(arr[:, 1]).tolist():
            bitmaps[ledger] = BitMap(arr[arr[:, 1] == ledger, 2].tolist())
        bucket = ImmutableBucket(
            self.mutable_start,
            self.mutable_end,
            segments,
            bitmaps,
            number_delayed=len(arr),
            metadata_bytes=_metadata_entry_bytes(segments),
            segment_bytes=[s.entry_bytes() for s in segments],
        )
        first = segments[0]
        for t, led, e in zip(
            first.timestamps.tolist(), first.ledgers.tolist(), first.entries.tolist(), strict=True
        ):
            self.shared.add(t, led, e)
        self.buckets[bucket.start_ledger] = bucket
        self.last_index[(int(first.ledgers[-1]), int(first.entries[-1]))] = bucket
        for ledger, bm in bitmaps.items():
            inflight = self.inflight.get(ledger)
            if inflight is not None:
                inflight.difference_update(bm)
                if not inflight:
                    del self.inflight[ledger]
        self.stats.buckets_created += 1
        self.stats.snapshot_bytes_written += bucket.snapshot_bytes
        self.stats.bk_entries_written += bucket.bk_entries
        self.stats.cursor_property_updates += 1
        self.mutable_start = self.mutable_end = -1

    # ------------------------------------------------------------------ deliver

    def next_delivery_time(self) -> int | None:
        """``nextDeliveryTime()``: the earlier head of the two queues, or None. O(1)."""
        times = [q.peek_n1() for q in (self.mutable, self.shared) if not q.is_empty()]
        return min(times) if times else None

    def has_message_available(self, now_ms: int) -> bool:
        """``hasMessageAvailable()``. O(1)."""
        t = self.next_delivery_time()
        return self.number_delayed > 0 and t is not None and t <= self.cutoff(now_ms)

    def get_scheduled_messages(self, max_messages: int, now_ms: int) -> list[Position]:
        """``getScheduledMessages(n)``: at most ``n`` due positions, sorted. O(k log n) for k
        taken, plus the segments it loads."""
        cutoff = self.cutoff(now_ms)
        while not self.mutable.is_empty() and self.mutable.peek_n1() <= cutoff:
            self.shared.add(*self.mutable.pop())
        positions: set[Position] = set()
        n = max_messages
        shared = self.shared
        while n > 0 and not shared.is_empty():
            timestamp, ledger, entry = shared.peek()
            if timestamp > cutoff:
                break
            bucket = self.last_index.pop((ledger, entry), None)
            if bucket is not None and self.buckets.get(bucket.start_ledger) is bucket:
                self._load_next_segment(bucket)
            positions.add((ledger, entry))
            shared.pop()
            self._remove_index_bit(ledger, entry)
            n -= 1
            self.number_delayed -= 1
        return sorted(positions)

    def _load_next_segment(self, bucket: ImmutableBucket) -> None:
        """``asyncLoadNextBucketSnapshotEntry`` then its completion (synchronous here)."""
        nxt = bucket.current_segment + 1
        if nxt > len(bucket.segments):
            del self.buckets[bucket.start_ledger]
            self.stats.buckets_deleted += 1
            self.stats.cursor_property_updates += 1
            return
        segment = bucket.segments[nxt - 1]
        bucket.current_segment = nxt
        for t, led, e in zip(
            segment.timestamps.tolist(),
            segment.ledgers.tolist(),
            segment.entries.tolist(),
            strict=True,
        ):
            self.shared.add(t, led, e)
        self.last_index[(int(segment.ledgers[-1]), int(segment.entries[-1]))] = bucket
        self.stats.segments_loaded += 1
        self.stats.indexes_loaded += len(segment)

    def _remove_index_bit(self, ledger: int, entry: int) -> bool:
        bm = self.inflight.get(ledger)
        if bm is not None and entry in bm:
            bm.discard(entry)
            if not bm:
                del self.inflight[ledger]
            return True
        bucket = self.find_bucket(ledger)
        if bucket is None:
            return False
        bm = bucket.bitmaps.get(ledger)
        if bm is None or entry not in bm:
            return False
        bm.discard(entry)
        if not bm:
            del bucket.bitmaps[ledger]
        return True

    # ------------------------------------------------------------------ recovery

    def recover(self, now_ms: int) -> tuple[BucketDelayedDeliveryTracker, RecoveryWork]:
        """A new tracker as a broker restart builds it from this one's persisted buckets
        (``recoverBucketSnapshot``), and the work it took. The caller re-adds the messages
        of the unpersisted mutable range (it reads them from the topic again). O(indexes of
        the live buckets)."""
        fresh = BucketDelayedDeliveryTracker(
            self.tick_ms,
            self.strict,
            self.min_index_count,
            self.segment_time_step_ms,
            self.max_indexes_per_segment,
            self.queue_version,
        )
        work = RecoveryWork()
        cutoff = fresh.cutoff(now_ms)
        for bucket in self.buckets.values():
            work.buckets += 1
            work.metadata_bytes_read += bucket.metadata_bytes
            nxt = 0
            while nxt < len(bucket.segments) and bucket.segments[nxt].max_timestamp <= cutoff:
                nxt += 1
            if nxt == len(bucket.segments):
                work.buckets_dropped += 1
                continue
            remaining = bucket.segments[nxt:]
            bitmaps: dict[int, BitMap] = {}
            for seg in remaining:
                for ledger, bm in seg.bitmaps().items():
                    bitmaps.setdefault(ledger, BitMap()).update(bm)
            copy = ImmutableBucket(
                bucket.start_ledger,
                bucket.end_ledger,
                bucket.segments,
                bitmaps,
                current_segment=nxt + 1,
                number_delayed=sum(len(b) for b in bitmaps.values()),
                metadata_bytes=bucket.metadata_bytes,
                segment_bytes=bucket.segment_bytes,
            )
            segment = remaining[0]
            for t, led, e in zip(
                segment.timestamps.tolist(),
                segment.ledgers.tolist(),
                segment.entries.tolist(),
                strict=True,
            ):
                fresh.shared.add(t, led, e)
            fresh.buckets[copy.start_ledger] = copy
            fresh.last_index[(int(segment.ledgers[-1]), int(segment.entries[-1]))] = copy
            fresh.number_delayed += copy.number_delayed
            work.segments_read += 1
            work.segment_bytes_read += bucket.segment_bytes[nxt]
            work.indexes_loaded += len(segment)
        return fresh, work

    # ------------------------------------------------------------------ sizes

    def number_of_delayed_messages(self) -> int:
        """``getNumberOfDelayedMessages()``. O(1)."""
        return self.number_delayed

    def buffer_memory_usage(self) -> int:
        """``getBufferMemoryUsage()``: the two queues' ``bytesCapacity()``. O(1)."""
        return self.mutable.bytes_capacity() + self.shared.bytes_capacity()

    def persisted_bytes(self) -> int:
        """Bytes of the snapshot ledgers of the live buckets (no Java method).
        O(buckets × segments)."""
        return sum(b.snapshot_bytes for b in self.buckets.values())

    def memory_breakdown(self, layout: JvmLayout = COMPRESSED) -> dict[str, int]:
        """In-memory bytes by part: ``queues`` (both ``bytesCapacity()``),
        ``bitmaps`` (bucket and in-flight ``LongBitmap`` objects with their containers and
        maps) and ``buckets`` (per-bucket objects, see :func:`bucket_heap_bytes`). No Java
        method: O(indexes held in bitmaps)."""
        queues = self.buffer_memory_usage()
        bitmaps = 0
        buckets = 0
        for bucket in self.buckets.values():
            bitmaps += _bitmaps_bytes(bucket.bitmaps.values(), layout)
            buckets += bucket_heap_bytes(len(bucket.segments), len(bucket.bitmaps), layout)
        bitmaps += _bitmaps_bytes(self.inflight.values(), layout)
        bitmaps += jc.fastutil_long2object_open_hash_map(
            jc.fastutil_capacity(len(self.inflight)), layout=layout
        )
        return {"queues": queues, "bitmaps": bitmaps, "buckets": buckets}

    def memory_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """The sum of :meth:`memory_breakdown`. O(indexes held in bitmaps)."""
        return sum(self.memory_breakdown(layout).values())


def _bitmaps_bytes(bitmaps, layout: JvmLayout) -> int:
    total = 0
    for bm in bitmaps:
        values = np.frombuffer(bm.to_array(), dtype=np.uint32)
        keys = values >> np.uint32(16)
        _, cards = np.unique(keys, return_counts=True)
        total += int(ledger_bitmap_bytes(cards, layout=layout).sum()) + bitmap_object_bytes(
            len(cards), layout
        )
    return total


def _metadata_entry_bytes(segments: list[Segment]) -> int:
    """Entry 0 of the snapshot ledger: ``SnapshotMetadata`` with every segment's metadata."""
    return sum(s.metadata_bytes() for s in segments)
