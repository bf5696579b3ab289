"""PIP-448's topic-level delayed index: one index per topic, shared by its subscriptions.

Follows ``pip/pip-448.md`` (apache/pulsar @0cbca149) and the newest stored form of
``pulsar-broker/src/main/java/org/apache/pulsar/broker/delayed/
InMemoryTopicDelayedDeliveryTrackerManager.java`` (commit 6fd6ead5, index id 19271009431).
**Merge status: not established.** Its PRs (#24927, #24928) were open when last indexed, the
PIP's voting thread is blank, and no release note up to 4.2.4 mentions it; the stored file may
come from a PR ref. Opt-in if present: ``delayedDeliveryTrackerFactoryClassName =
org.apache.pulsar.broker.delayed.InMemoryTopicDelayedDeliveryTrackerFactory``.

Java::

    ConcurrentSkipListMap<Long, Long2ObjectRBTreeMap<Roaring64Bitmap>> delayedMessageMap;
    ConcurrentHashMap<String, SubContext> subscriptionContexts;   // markDeletePosition each
    ConcurrentHashMap<Long, ReentrantLock> bucketLocks;          // one lock per bucket
    AtomicLong delayedMessagesCount, bufferMemoryBytes, lastPruneNanos;

- ``addMessageForSub``: refuse when ``deliverAt < 0 || deliverAt <= cutoff`` (the
  subscription's); key ``trimLowerBit(deliverAt, bits)`` (floor); if the entry is new to the
  shared bitmap, count it and add the ``getLongSizeInBytes()`` delta. A message that several
  subscriptions add is stored once: memory O(delayed), not O(delayed × subscriptions).
- ``getScheduledMessagesForSub(n)``: buckets with key ``<= cutoff`` (``headMap(cutoff,
  true)``), ledgers ascending, entries ascending, skipping what the subscription's
  mark-delete position covers; nothing is removed.
- ``pruneByMinMarkDelete`` (throttled, after a delivery): removes, under each bucket's lock,
  whole ledgers below the smallest mark-delete position of the subscriptions and that ledger's
  entries up to it; a whole ledger subtracts its full ``getLongSizeInBytes()``, a partial one
  the delta; empty buckets and their locks go.
- Each subscription's view reports ``getBufferMemoryUsage() = bufferMemoryBytes`` of the whole
  topic, so a sum over subscriptions counts the index once per subscription.
"""

from __future__ import annotations

import numpy as np

from trackerlab.models.delayed.bucketed_tracker import precision_bits_for_tick
from trackerlab.models.design import DELAYED, Design
from trackerlab.models.time_buckets.shapes import jvm_bytes_from_content
from trackerlab.models.time_buckets.time_bucket_index import TimeBucketIndex, trim_lower_bits
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing import jvm_long_bitmap as jl
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.python import python_real_bytes
from trackerlab.sizing.request import SizeRequest, SizeResult
from trackerlab.sizing.roaring_serialized import roaring64_serialized_bytes
from trackerlab.workloads.stream import MessageChunk

FILE = "pulsar-broker/src/main/java/org/apache/pulsar/broker/delayed/"
Position = tuple[int, int]
#: ``SubContext``: dispatcher, subscriptionName, tickTimeMillis, strict, lookahead, clock,
#: markDeletePosition.
SUB_CONTEXT_FIELDS = "LLJZJLL"
#: ``AtomicLong`` delayedMessagesCount, bufferMemoryBytes, lastPruneNanos.
COUNTERS = 3


def long_size_in_bytes(bitmap) -> int:
    """``Roaring64Bitmap.getLongSizeInBytes()`` of a ``BitMap64`` built by ``addLong``."""
    if not bitmap:
        return 1
    values = np.frombuffer(bitmap.to_array(), dtype=np.uint64)
    keys = values >> np.uint64(16)
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    cards = np.diff(np.r_[starts, len(keys)])
    return roaring64_serialized_bytes(keys[starts].tolist(), cards.tolist())


class TopicDelayedIndex:
    """The manager with an explicit clock; subscriptions are names."""

    def __init__(self, tick_ms: int = 1000, strict: bool = False) -> None:
        self.tick_ms, self.strict = tick_ms, strict
        self.bits = precision_bits_for_tick(tick_ms)
        self.index = TimeBucketIndex(self.bits, "sorted")
        self.mark_delete: dict[str, Position | None] = {}
        self.count = 0
        self.buffer_memory_bytes = 0

    # ------------------------------------------------------------------ subscriptions

    def register(self, sub: str) -> None:
        """``createOrGetView``: a subscription context (no mark-delete position yet). O(1)."""
        self.mark_delete.setdefault(sub, None)

    def unregister(self, sub: str) -> None:
        """``unregister``: the last subscription leaving clears the index. O(1)."""
        self.mark_delete.pop(sub, None)
        if not self.mark_delete:
            self.index = TimeBucketIndex(self.bits, "sorted")
            self.count = self.buffer_memory_bytes = 0

    def update_mark_delete(self, sub: str, position: Position) -> None:
        """``updateMarkDeletePosition``: the subscription's mark-delete position. O(1)."""
        self.mark_delete[sub] = position

    def cutoff(self, now_ms: int) -> int:
        """``SubContext.getCutoffTime()``: ``strict ? now : now + tick``. O(1)."""
        return now_ms if self.strict else now_ms + self.tick_ms

    # ------------------------------------------------------------------ per message

    def add_message(self, sub: str, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        """``addMessageForSub``: False means "deliver now". O(log n)."""
        self.register(sub)
        if deliver_at < 0 or deliver_at <= self.cutoff(now_ms):
            return False
        bucket = int(trim_lower_bits(deliver_at, self.bits))
        bitmap = self.index.buckets.get(bucket, {}).get(ledger)
        before = long_size_in_bytes(bitmap) if bitmap is not None else 1
        if self.index.add(bucket, ledger, entry):
            self.count += 1
            after = long_size_in_bytes(self.index.buckets[bucket][ledger])
            self.buffer_memory_bytes += after - before
        return True

    def get_scheduled_messages(self, sub: str, max_messages: int, now_ms: int) -> list[Position]:
        """``getScheduledMessagesForSub``: due positions past the subscription's mark-delete
        position, sorted; the index keeps them. O(k log n)."""
        cutoff, md = self.cutoff(now_ms), self.mark_delete.get(sub)
        out: list[Position] = []
        for bucket in self.index.buckets.irange(maximum=cutoff):
            for ledger in sorted(self.index.buckets[bucket]):
                if md is not None and ledger < md[0]:
                    continue
                for entry in self.index.buckets[bucket][ledger]:
                    if len(out) >= max_messages:
                        return sorted(set(out))
                    if md is not None and ledger == md[0] and entry <= md[1]:
                        continue
                    out.append((ledger, int(entry)))
        return sorted(set(out))

    def prune(self) -> None:
        """``pruneByMinMarkDelete``: drop what every subscription has acknowledged. O(bitmaps + removed entries)."""
        marks = [m for m in self.mark_delete.values() if m is not None]
        if not marks:
            return
        low_ledger, low_entry = min(marks)
        for bucket in list(self.index.buckets):
            ledgers = self.index.buckets[bucket]
            for ledger in sorted(ledgers):
                bitmap = ledgers[ledger]
                if ledger < low_ledger:
                    self.count -= len(bitmap)
                    self.buffer_memory_bytes -= long_size_in_bytes(bitmap)
                    del ledgers[ledger]
                elif ledger == low_ledger:
                    before = long_size_in_bytes(bitmap)
                    removed = [e for e in bitmap if e <= low_entry]
                    for e in removed:
                        bitmap.discard(e)
                    self.count -= len(removed)
                    self.buffer_memory_bytes += long_size_in_bytes(bitmap) - before
                    if not bitmap:
                        del ledgers[ledger]
            if not ledgers:
                self.index.pop_bucket(bucket)

    def buffer_memory_usage(self, sub: str | None = None) -> int:
        """Every view's ``getBufferMemoryUsage()``: the topic's ``bufferMemoryBytes``. O(1)."""
        return self.buffer_memory_bytes

    def number_of_delayed_messages(self) -> int:
        """``topicDelayedMessages()``: the shared count. O(1)."""
        return self.count

    # ------------------------------------------------------------------ bulk

    def add_chunk(self, chunk: MessageChunk, subscriptions: int = 1) -> int:
        """Every subscription adds the chunk (the first one stores it). O(n log n)."""
        for s in range(subscriptions):
            self.register(f"sub-{s}")
        now = chunk.publish_ms
        keep = (chunk.deliver_at >= 0) & (
            chunk.deliver_at > (now if self.strict else now + self.tick_ms)
        )
        keys = trim_lower_bits(chunk.deliver_at[keep], self.bits)
        added = self.index.add_arrays(keys, chunk.ledger[keep], chunk.entry[keep])
        self.count += added
        return added

    def recount_memory(self) -> None:
        """``bufferMemoryBytes`` after bulk adds: every bitmap's size minus its empty 1 B. O(chunks)."""
        from trackerlab.models.delayed.buffer_metric import topic_long_size_delta

        self.buffer_memory_bytes = topic_long_size_delta(self.index.content(runs=False))

    # ------------------------------------------------------------------ sizes

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED, index_nodes: float | None = None) -> int:
        """The shared index (skip list with the expected ``Index`` count unless given, RB
        inner maps, Roaring64Bitmap leaves), the bucket locks, the counters and one
        ``SubContext`` per subscription (its map entry and name are the dispatcher's). O(chunks)."""
        n = len(self.index.buckets)
        content = self.index.content(runs=False)
        maps = jvm_bytes_from_content(content, 0, "avl-rb", False, layout)
        maps -= jc.fastutil_avl_tree_map(0, layout=layout)  # the outer map is a skip list
        towers = jl.expected_index_nodes(n) if index_nodes is None else index_nodes
        skip = jl.concurrent_skip_list_map(n, round(towers), 0, layout)
        locks = jl.concurrent_hash_map(n, n * jl.reentrant_lock(layout), layout)
        subs = len(self.mark_delete) * layout.instance(SUB_CONTEXT_FIELDS)
        return maps + skip + locks + COUNTERS * jl.atomic_long(layout) + subs


def per_bucket_extra_bytes(layout: JvmLayout = COMPRESSED) -> float:
    """Bytes one bucket costs here beyond an AVL-of-RB index's bucket: a skip-list ``Node``,
    its boxed key and ``Index`` towers (expected 0.5 per key) and a bucket lock (map node,
    boxed key, ``ReentrantLock``), minus the AVL entry. For the aggregated simulation."""
    big = 1000
    skip = jl.concurrent_skip_list_map(big, round(jl.expected_index_nodes(big)), 0, layout)
    skip -= jl.concurrent_skip_list_map(0, 0, 0, layout)
    lock = layout.instance("ILLL") + layout.boxed("J") + jl.reentrant_lock(layout)
    avl = jc.fastutil_avl_tree_map(big, layout=layout) - jc.fastutil_avl_tree_map(0, layout=layout)
    return (skip - avl) / big + lock


def simulate(topic, retention, settings):
    """The aggregated time-bucket run with RB inner maps, one index for every subscription
    (``shared_memory``), plus the skip list's and the bucket locks' per-bucket bytes."""
    import trackerlab.models.delayed.aggregated as aggregated

    run = aggregated.time_bucket_design(
        topic, retention, settings, leaf="roaring64", shape="avl-rb"
    )
    if run.buckets is not None:
        run.memory_bytes = run.memory_bytes + run.buckets * per_bucket_extra_bytes()
    run.design = "pip448-topic-index"
    run.shared_memory = True
    run.notes = "PIP-448 (merge not established): " + run.notes
    return run


# --------------------------------------------------------------------------- catalog


def size_topic_index(request: SizeRequest) -> SizeResult:
    """The shared index of one topic holding the workload (any number of subscriptions adds
    it once)."""
    index = TopicDelayedIndex(request.tick_ms)
    for chunk in request.workload.chunks():
        index.add_chunk(chunk)
    index.recount_memory()
    content = index.index.content(runs=False)
    return SizeResult(
        structure="pip448-topic-index",
        entries=index.count,
        python_bytes=python_real_bytes(index.index.buckets),
        jvm_bytes=index.jvm_bytes(request.jvm_layout),
        details={
            "merged": "not established (PRs #24927, #24928 open when last indexed)",
            "buckets": len(index.index.buckets),
            "bitmaps": len(np.unique(content[:, :2], axis=0)) if len(content) else 0,
            "buffer_memory_usage_per_view": index.buffer_memory_usage(),
        },
    )


DESIGN = Design(
    tracker=DELAYED,
    summary="PIP-448: one time-bucket index per topic shared by its subscriptions "
    "(memory O(delayed), not O(delayed x subscriptions))",
    java="ConcurrentSkipListMap<Long, Long2ObjectRBTreeMap<Roaring64Bitmap>> + "
    "ConcurrentHashMap<Long, ReentrantLock>",
    source=FILE + "InMemoryTopicDelayedDeliveryTrackerManager.java",
    prs=("#24927", "#24928"),
    releases="not established (PRs open when last indexed; in no release up to 4.2.4)",
    memory="heap",
    options=("tick_ms", "layout"),
    build=size_topic_index,
    simulate=simulate,
    columns=("python", "jvm"),
)
