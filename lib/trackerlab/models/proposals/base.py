"""What every proposal of the design lab shares: the delayed tracker's timing rules, the ledger
slots, the per-message API and the operation counters.

Timing rules are ``AbstractDelayedDeliveryTracker``'s (variant a of #23611): ``cutoff = now``
when strict, else ``now + tick``; ``addMessage`` refuses (dispatch now) ``deliverAt < 0`` or
``deliverAt <= cutoff``; a bucket is due when its key is at most the cutoff, so a message can
go out ``tick + 2^bits - 1`` ms early (``2^bits - 1`` strict), ``bits = floor(log2 tick)``.
``getScheduledMessages(n)`` takes, due bucket after due bucket in time order, the smallest
(ledger, entry) positions, at most ``n``, and returns them sorted (Java's ``TreeSet<Position>``).

Subclasses implement :meth:`ProposalTracker._add` (one position), :meth:`_due` (the due
positions in order), :meth:`_remove` and :meth:`jvm_bytes`; :meth:`add_chunk` is their bulk
path. Positions are packed as ``slot << 16 | entryId``
(:mod:`~trackerlab.models.proposals.ledger_slots`) unless a design overrides the position
hooks :meth:`ProposalTracker._check_position`, :meth:`_check_entries` and :meth:`_released`
(``sorted-chunks`` holds full 64-bit ids and never touches the slot table).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import overload

import numpy as np

from trackerlab.core.params import check_int
from trackerlab.models.delayed.bucketed_tracker import precision_bits_for_tick
from trackerlab.models.primitives.op_cost import OpCost
from trackerlab.models.proposals.ledger_slots import MAX_ENTRY_ID, LedgerSlots
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.workloads.stream import MessageChunk


class ProposalTracker:
    """A delayed-delivery index driven by an explicit clock; positions are (ledger, entry)."""

    def __init__(self, tick_ms: int = 1000, strict: bool = False) -> None:
        self.tick_ms = check_int("tick (ms)", tick_ms, 1)
        self.strict = strict
        self.bits = precision_bits_for_tick(tick_ms)
        self.slots = LedgerSlots()
        self.count = 0
        #: operation counters (:mod:`~trackerlab.models.primitives.op_cost`), when attached
        self.cost: OpCost | None = None

    # ------------------------------------------------------------------ timing rules

    def cutoff(self, now_ms: int) -> int:
        """``getCutoffTime()``: ``now`` when strict, else ``now + tick``. O(1)."""
        return now_ms if self.strict else now_ms + self.tick_ms

    @overload
    def bucket_of(self, deliver_at: int) -> int:
        """One time's bucket key. O(1)."""

    @overload
    def bucket_of(self, deliver_at: np.ndarray) -> np.ndarray:
        """Many times' bucket keys (numpy). O(n)."""

    def bucket_of(self, deliver_at: int | np.ndarray) -> int | np.ndarray:
        """``trimLowerBit(deliverAt, bits)``. O(1) per value."""
        return deliver_at & ~((1 << self.bits) - 1)

    # ------------------------------------------------------------------ per message

    def add_message(self, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        """``addMessage``: False means "deliver now" (not tracked). O(1) checks plus the design's
        ``_add`` (a map descent, O(log buckets), and the leaf's insert)."""
        if deliver_at < 0 or deliver_at <= self.cutoff(now_ms):
            return False
        self._check_position(ledger, entry)
        if self._add(int(ledger), int(entry), int(deliver_at), int(now_ms)):
            self.count += 1
        return True

    def has_message_available(self, now_ms: int) -> bool:
        """``hasMessageAvailable``: some position is due. O(1) after the scan's cascade."""
        return next(self._due(self.cutoff(now_ms)), None) is not None

    def get_scheduled_messages(self, max_messages: int, now_ms: int) -> list[tuple[int, int]]:
        """``getScheduledMessages(n)``: at most ``n`` due positions, the earliest bucket first
        and the smallest positions of a bucket first, returned sorted. O(n + buckets drained)."""
        taken: list[tuple[int, int, int]] = []
        for item in self._due(self.cutoff(now_ms)):
            if len(taken) >= max_messages:
                break
            taken.append(item)
        self._remove(taken)
        self.count -= len(taken)
        self._released(taken)
        return sorted((ledger, entry) for _, ledger, entry in taken)

    def number_of_delayed_messages(self) -> int:
        """``getNumberOfDelayedMessages``: a counter, O(1)."""
        return self.count

    def clear(self) -> None:
        """``clear()``: drop everything (the slot table's arrays stay allocated). O(buckets)."""
        self._clear()
        self.count = 0
        self.slots.clear()

    # ------------------------------------------------------------------ bulk

    def add_chunk(self, chunk: MessageChunk, dispatch_lag_ms: int = 0) -> int:
        """Bulk ``addMessage`` of a chunk, each message dispatched ``dispatch_lag_ms`` after
        publication; returns how many were tracked. Same result as one ``add_message`` per
        message in order (tests hold them equal). O(chunk) numpy plus the design's bulk path."""
        now = chunk.publish_ms + dispatch_lag_ms
        deliver_at = chunk.deliver_at
        cut = now if self.strict else now + self.tick_ms
        keep = (deliver_at >= 0) & (deliver_at > cut)
        if not keep.any():
            return 0
        entry = chunk.entry[keep]
        self._check_entries(entry)
        self._add_arrays(chunk.ledger[keep], entry, deliver_at[keep], now[keep])
        return int(keep.sum())

    def _add_arrays(
        self, ledger: np.ndarray, entry: np.ndarray, deliver_at: np.ndarray, now: np.ndarray
    ) -> None:
        """Default bulk path: one ``_add`` per message (designs override it)."""
        for led, e, at, t in zip(
            ledger.tolist(), entry.tolist(), deliver_at.tolist(), now.tolist(), strict=True
        ):
            if self._add(led, e, at, t):
                self.count += 1

    # ------------------------------------------------------------------ position hooks

    def _check_position(self, ledger: int, entry: int) -> None:
        """ValueError when a position does not fit the design (packed: entry ids below 2^16)."""
        if not 0 <= entry <= MAX_ENTRY_ID:
            raise ValueError(f"packed positions need entry ids below 2^16, got {entry}")

    def _check_entries(self, entry: np.ndarray) -> None:
        """:meth:`_check_position` of a chunk's entry ids (vectorized)."""
        if int(entry.max()) > MAX_ENTRY_ID:
            raise ValueError(f"packed positions need entry ids below 2^16, got {int(entry.max())}")

    def _released(self, taken: list[tuple[int, int, int]]) -> None:
        """Positions ``(bucket, ledger, entry)`` left the tracker: the slot table forgets them."""
        for _, ledger, _ in taken:
            self.slots.release(ledger)

    # ------------------------------------------------------------------ design hooks

    def _add(self, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        """Track one position; True when it was not tracked in that bucket yet."""
        raise NotImplementedError

    def _due(self, cutoff: int) -> Iterator[tuple[int, int, int]]:
        """Due positions as ``(bucket, ledger, entry)``, in delivery order."""
        raise NotImplementedError

    def _remove(self, taken: list[tuple[int, int, int]]) -> None:
        """Drop positions that :meth:`_due` yielded (a prefix of its order)."""
        raise NotImplementedError

    def _clear(self) -> None:
        raise NotImplementedError

    def next_key(self) -> int:
        """The smallest bucket key held (when the next position may come due). O(1)."""
        return int(self.buckets.keys()[0])  # type: ignore[attr-defined]  # every subclass that calls next_key holds a SortedDict in self.buckets

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """Deep heap bytes of the Java structure as an add-only history leaves it. O(buckets)
        to O(containers), by design."""
        raise NotImplementedError


@dataclass(frozen=True)
class GrowthRule:
    """An array that grows ``length += max(length >> 3, min_step)`` from ``initial`` when full
    and never shrinks while it only grows: its length is a function of what it holds (at most
    12.5% slack; each element is copied about 8 times amortized)."""

    initial: int
    min_step: int

    @cached_property
    def lengths(self) -> tuple[int, ...]:
        """Every length the rule passes through up to 2^40. O(log_{9/8} 2^40), once (cached)."""
        out = [self.initial]
        while out[-1] < 1 << 40:
            out.append(out[-1] + max(out[-1] >> 3, self.min_step))
        return tuple(out)

    def length(self, needed: int) -> int:
        """The length after growing to hold ``needed`` elements. O(log)."""
        return self.lengths[bisect_left(self.lengths, needed)]


def tree_depth(n: int) -> int:
    """Nodes a search visits in a balanced tree of ``n`` entries: ``ceil(log2(n + 1))``."""
    return max(1, int(n).bit_length())
