"""PIP-393 ``NegativeAcksTracker`` (Java client 4.0.2, apache/pulsar #23600 + #23804).

``pulsar-client/src/main/java/org/apache/pulsar/client/impl/NegativeAcksTracker.java``:
a nack of entry (ledgerId, entryId) at wall-clock time ``now`` with redelivery delay
``backoff`` goes into bucket ``trimLowerBit(now + backoff, negativeAckPrecisionBitCnt)``
(default 8 bits, 256 ms) of a ``Long2ObjectAVLTreeMap<Long2ObjectOpenHashMap<Roaring64Bitmap>>``.
The first nack schedules ``triggerRedelivery`` after ``backoff``; each run redelivers every
bucket whose key is ``<= now`` (whole entries: batch indexes are dropped), removes them,
and reschedules after ``max(firstKey - now, 0)``, or stops when the map is empty.

Consequences the model keeps: a message is redelivered at most ``2^bits - 1`` ms *before*
its requested time (the key is floored) and never later than the timer's firing; two nacks
of one entry that land in different buckets are stored, counted and redelivered twice.
``MIN_NACK_DELAY`` is 100 ms.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trackerlab.core.params import check_int
from trackerlab.models.time_buckets.time_bucket_index import TimeBucketIndex, trim_lower_bits
from trackerlab.workloads.stream import MessageChunk

MIN_NACK_DELAY_MS = 100
DEFAULT_PRECISION_BITS = 8
DEFAULT_DELAY_MS = 60_000
#: Model knobs of the PIP-393 tracker a release table may name (``variant``): ``ids-map`` is
#: 4.2's second field, ``Long2ObjectMap<Long2ObjectMap<MessageId>> nackedMessageIds``, a
#: ``Long2ObjectOpenHashMap`` the constructor allocates (``NegativeAcksTracker.java:52`` at
#: v4.2.4) and ``add`` fills only with traced or chunked message ids (``:159-164``): empty,
#: and so a constant :func:`ids_map_bytes`, for every other message.
VARIANTS = ("ids-map",)
#: fastutil's default table of ``new Long2ObjectOpenHashMap<>()`` (expected 16, load 0.75).
IDS_MAP_SLOTS = 32


def ids_map_bytes(variant: str | None, layout=None) -> int:
    """Bytes of 4.2's empty ``nackedMessageIds`` (``Long2ObjectOpenHashMap``, n = 32: 496 B
    with compressed oops, JOL-measured in a 4.2.4 consumer) for ``variant`` ``ids-map``, else 0.
    O(1)."""
    if variant != "ids-map":
        return 0
    from trackerlab.sizing.jvm import COMPRESSED
    from trackerlab.sizing.jvm_collections import fastutil_long2object_open_hash_map

    return fastutil_long2object_open_hash_map(IDS_MAP_SLOTS, layout=layout or COMPRESSED)


@dataclass(frozen=True)
class Redelivery:
    """One firing of the redelivery timer: when, and the (ledger, entry) ids it redelivers."""

    time_ms: int
    messages: list[tuple[int, int]]


class BucketNackTracker:
    """The PIP-393 tracker, driven by an explicit clock.

    ``add`` O(log buckets); ``add_chunk`` bulk; ``advance_to(now)`` fires the timer as often
    as it would have fired up to ``now`` and returns the redeliveries in order.
    """

    def __init__(
        self,
        precision_bits: int = DEFAULT_PRECISION_BITS,
        delay_ms: int = DEFAULT_DELAY_MS,
        inner: str = "open-hash",
        run_optimize: bool = False,
    ) -> None:
        self.precision_bits = check_int("precision bits", precision_bits, 0, 62)
        self.delay_ms = max(check_int("nack delay (ms)", delay_ms, 0), MIN_NACK_DELAY_MS)
        self.index = TimeBucketIndex(precision_bits, inner, run_optimize)
        self.timeout_at: int | None = None

    def add(self, ledger: int, entry: int, now_ms: int, backoff_ms: int | None = None) -> None:
        """``add(messageId)`` of one entry nacked at ``now_ms`` (``backoff_ms`` overrides the
        delay, as a ``RedeliveryBackoff`` does). O(log buckets)."""
        backoff = self.delay_ms if backoff_ms is None else max(backoff_ms, MIN_NACK_DELAY_MS)
        self.index.add(self.index.bucket_of(now_ms + backoff), ledger, entry)
        if self.timeout_at is None:
            self.timeout_at = now_ms + backoff

    def add_chunk(self, chunk: MessageChunk, backoff: bool = False) -> None:
        """Bulk ``add`` of a chunk's messages, each nacked at its ``publish_ms``.

        ``backoff=False`` is ``add(ledger, entry, now)`` for each message (the configured
        delay); ``backoff=True`` is ``add(ledger, entry, now, delay)`` with the chunk's
        ``delay_ms`` as a ``RedeliveryBackoff`` result (raised to 100 ms). Bulk path, no Java
        method: O(n log n), numpy and one bitmap call per (bucket, ledger).
        """
        if len(chunk) == 0:
            return
        if backoff:
            target = chunk.publish_ms + np.maximum(chunk.delay_ms, MIN_NACK_DELAY_MS)
        else:
            target = chunk.publish_ms + self.delay_ms
        buckets = trim_lower_bits(target, self.precision_bits)
        self.index.add_arrays(buckets, chunk.ledger, chunk.entry)
        if self.timeout_at is None:
            self.timeout_at = int(target[0])

    def trigger_redelivery(self, now_ms: int) -> list[tuple[int, int]]:
        """One run of ``triggerRedelivery`` at ``now_ms``; returns the redelivered ids.
        O(k + due buckets × log buckets) for k redelivered ids."""
        out: list[tuple[int, int]] = []
        index = self.index
        while index.buckets:
            first = index.first_bucket()
            assert first is not None  # index.buckets is not empty
            if first > now_ms:
                break
            order = index.ledgers_in_order(first)
            ledgers = index.pop_bucket(first)
            for ledger in order:
                out.extend((ledger, int(e)) for e in ledgers[ledger])
        first = index.first_bucket()
        self.timeout_at = None if first is None else now_ms + max(first - now_ms, 0)
        return out

    def advance_to(self, now_ms: int) -> list[Redelivery]:
        """Fire the timer at every scheduled time ``<= now_ms`` (no Java method). O(runs + k) for
        k redelivered ids."""
        fired = []
        while self.timeout_at is not None and self.timeout_at <= now_ms:
            at = self.timeout_at
            fired.append(Redelivery(at, self.trigger_redelivery(at)))
        return fired

    def count(self) -> int:
        """``getNackedMessagesCount()``: Σ bitmap cardinalities (an entry in two buckets: 2).
        O(bitmaps)."""
        return len(self.index)
