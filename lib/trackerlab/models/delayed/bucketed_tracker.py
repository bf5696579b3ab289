"""Time-bucketed ``InMemoryDelayedDeliveryTracker`` (apache/pulsar #23611 and later).

``pulsar-broker/src/main/java/org/apache/pulsar/broker/delayed/InMemoryDelayedDeliveryTracker.java``.
Variant ``a`` (#23611): ``Long2ObjectAVLTreeMap<Long2ObjectOpenHashMap<Roaring64Bitmap>>``,
bucket key ``trimLowerBit(deliverAt, bits)`` with ``bits = floor(log2(tickTimeMillis))``
(1000 ms → 9 bits, 512 ms buckets), ledgers visited in hash order. Variant ``c`` (latest,
fastutil restored): inner maps sorted; strict mode rounds the key **up**
(``trimLowerBit(deliverAt + 2^bits - 1)``, saturating) and non-strict mode compares bucket
keys against ``cutoff - 2^bits + 1``, so no message is handed out earlier than the
timing rules allow (issue #25996). Common rules (``AbstractDelayedDeliveryTracker``):
``cutoff = strict ? now : now + tick``; ``addMessage`` refuses (dispatch now) when
``deliverAt < 0 || deliverAt <= cutoff``; ``getScheduledMessages(n)`` takes, bucket by
bucket while the bucket is due, whole ledgers whose cardinality ``<= n`` and otherwise the
``n`` smallest entry ids of the ledger, and returns them sorted (a ``TreeSet<Position>``).
Fixed-delay detection: ``shouldPauseAllDeliveries() = lookahead > 0 && fixedDelay &&
count >= lookahead && !hasMessageAvailable()``.

Early delivery in variant ``a``: up to ``tick + 2^bits - 1`` ms (non-strict), ``2^bits - 1``
ms (strict). Variant ``c``: never earlier than the non-bucketed rules (``tick`` non-strict,
0 strict).
"""

from __future__ import annotations

from typing import overload

import numpy as np

from trackerlab.core.params import check_choice, check_int
from trackerlab.models.time_buckets.time_bucket_index import TimeBucketIndex, trim_lower_bits
from trackerlab.workloads.stream import MessageChunk

MAX_LONG = (1 << 63) - 1
VARIANTS = ("a", "c")


def precision_bits_for_tick(tick_ms: int) -> int:
    """``calculateTimestampPrecisionBitCnt``: ``floor(log2(tick))`` for tick >= 1, else 0."""
    return max(int(tick_ms).bit_length() - 1, 0) if tick_ms > 0 else 0


class BucketDelayedTracker:
    """The time-bucketed delayed-delivery tracker, driven by an explicit clock ``now_ms``."""

    def __init__(
        self,
        tick_ms: int = 1000,
        strict: bool = False,
        variant: str = "a",
        lookahead: int = 50_000,
        run_optimize: bool = False,
    ) -> None:
        self.tick_ms = check_int("tick (ms)", tick_ms, 1)
        self.strict = strict
        self.variant = check_choice("tracker variant", variant, VARIANTS)
        self.lookahead = lookahead
        self.bits = precision_bits_for_tick(tick_ms)
        inner = "open-hash" if variant == "a" else "sorted"
        self.index = TimeBucketIndex(self.bits, inner, run_optimize)
        self.count = 0
        self.fixed_delay = True
        self.highest_tracked = 0

    # ------------------------------------------------------------------ timing rules

    def cutoff(self, now_ms: int) -> int:
        """``getCutoffTime()``. O(1)."""
        return now_ms if self.strict else now_ms + self.tick_ms

    @overload
    def bucket_key(self, deliver_at: int) -> int:
        """One time's bucket key. O(1)."""

    @overload
    def bucket_key(self, deliver_at: np.ndarray) -> np.ndarray:
        """Many times' bucket keys (numpy). O(n)."""

    def bucket_key(self, deliver_at: int | np.ndarray) -> int | np.ndarray:
        """``trimLowerBit``: floor in variant ``a`` and non-strict ``c``; round up in strict ``c``.
        O(1) per time (numpy for arrays)."""
        if self.variant == "c" and self.strict:
            slack = (1 << self.bits) - 1
            if np.ndim(deliver_at) == 0:
                up = MAX_LONG if deliver_at > MAX_LONG - slack else deliver_at + slack
            else:
                up = np.where(deliver_at > MAX_LONG - slack, MAX_LONG, deliver_at + slack)
            return trim_lower_bits(up, self.bits)
        return trim_lower_bits(deliver_at, self.bits)

    def bucket_cutoff(self, now_ms: int) -> int:
        """The largest bucket key that is due at ``now_ms`` (variant ``c``:
        ``cutoff - 2^bits + 1``). O(1)."""
        cutoff = self.cutoff(now_ms)
        if self.variant == "c" and not self.strict:
            return cutoff - (1 << self.bits) + 1
        return cutoff

    # ------------------------------------------------------------------ operations

    def add_message(self, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        """``addMessage``: False means "deliver now" (not tracked). O(log buckets)."""
        if deliver_at < 0 or deliver_at <= self.cutoff(now_ms):
            self.fixed_delay = False
            return False
        if self.index.add(int(self.bucket_key(deliver_at)), ledger, entry):
            self.count += 1
        self._track_fixed_delay(deliver_at, deliver_at)
        return True

    def _track_fixed_delay(self, lowest: int, highest: int) -> None:
        if lowest < self.highest_tracked - self.tick_ms:
            self.fixed_delay = False
        self.highest_tracked = max(self.highest_tracked, highest)

    def add_chunk(self, chunk: MessageChunk, dispatch_lag_ms: int = 0) -> int:
        """Bulk ``addMessage`` of a chunk, each message dispatched ``dispatch_lag_ms`` after
        publication; returns how many were tracked (the rest are due at once). No Java method:
        O(n log n), numpy and one bitmap call per (bucket, ledger)."""
        if len(chunk) == 0:
            return 0
        now = chunk.publish_ms + dispatch_lag_ms
        deliver_at = chunk.deliver_at
        cutoff = now if self.strict else now + self.tick_ms
        keep = (deliver_at >= 0) & (deliver_at > cutoff)
        if not keep.all():
            self.fixed_delay = False
        deliver_at = deliver_at[keep]
        if len(deliver_at) == 0:
            return 0
        keys = self.bucket_key(deliver_at)
        self.count += self.index.add_arrays(keys, chunk.ledger[keep], chunk.entry[keep])
        running_max = np.maximum.accumulate(np.r_[self.highest_tracked, deliver_at])
        if np.any(deliver_at < running_max[:-1] - self.tick_ms):
            self.fixed_delay = False
        self.highest_tracked = int(running_max[-1])
        return int(keep.sum())

    def has_message_available(self, now_ms: int) -> bool:
        """``hasMessageAvailable()``: the first bucket is due. O(1)."""
        first = self.index.first_bucket()
        return first is not None and first <= self.bucket_cutoff(now_ms)

    def next_delivery_time(self) -> int | None:
        """``nextDeliveryTime()``: the first bucket key, or None when empty. O(1)."""
        return self.index.first_bucket()

    def get_scheduled_messages(self, max_messages: int, now_ms: int) -> list[tuple[int, int]]:
        """``getScheduledMessages(n)``: at most ``n`` due (ledger, entry) ids, sorted.

        Java collects them in a ``TreeSet<Position>``: an entry stored in two buckets is
        returned once, though it uses up ``n`` twice. O(k log k + ledgers visited) for k
        taken.
        """
        n = max_messages
        taken: list[tuple[int, int]] = []
        index = self.index
        bucket_cutoff = self.bucket_cutoff(now_ms)
        while n > 0 and index.buckets:
            first = index.first_bucket()
            assert first is not None  # index.buckets is not empty
            if first > bucket_cutoff:
                break
            ledgers = index.buckets[first]
            for ledger in index.ledgers_in_order(first):
                bitmap = ledgers[ledger]
                card = len(bitmap)
                if card <= n:
                    taken.extend((ledger, int(e)) for e in bitmap)
                    index.remove_ledger(first, ledger)
                    n -= card
                else:
                    smallest = [int(e) for e in bitmap[:n]]
                    taken.extend((ledger, e) for e in smallest)
                    for e in smallest:
                        bitmap.remove(e)
                    n = 0
                    break
            if not ledgers:
                index.pop_bucket(first)
        self.count -= len(taken)
        if not index.buckets:
            self.fixed_delay, self.highest_tracked, self.count = True, 0, 0
        return sorted(set(taken))

    def number_of_delayed_messages(self) -> int:
        """``getNumberOfDelayedMessages``: variant a derives it from the bitmaps, O(bitmaps);
        variant c keeps a count, O(1)."""
        return len(self.index) if self.variant == "a" else self.count

    def should_pause_all_deliveries(self, now_ms: int) -> bool:
        """``shouldPauseAllDeliveries()``. O(1) (variant a: O(bitmaps) for the count)."""
        return (
            self.lookahead > 0
            and self.fixed_delay
            and self.number_of_delayed_messages() >= self.lookahead
            and not self.has_message_available(now_ms)
        )
