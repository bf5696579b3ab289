"""Client ``NegativeAcksTracker`` before PIP-393: versions A (``HashMap``) and B (pair map).

Follows ``apache/pulsar`` ``pulsar-client/src/main/java/org/apache/pulsar/client/impl/
NegativeAcksTracker.java`` (spec ``pulsar-structures.md`` §1.1–§1.3):

- **A** (≤ 3.0.7 / 3.3.2 / 4.0.0): ``HashMap<MessageId, Long> nackedMessages``, key
  ``MessageIdImpl(ledgerId, entryId, partitionIndex)`` (batch index dropped), value
  ``System.nanoTime() + backoffNs`` boxed.
- **B** (#23582; 3.0.8, 3.3.3, 4.0.1): ``ConcurrentLongLongPairHashMap.newBuilder()
  .autoShrink(true).concurrencyLevel(1).build()`` (expectedItems 256 → 512 buckets), key
  ``(ledgerId, entryId)``, value ``(partitionIndex >= 0 ? partitionIndex :
  NON_PARTITIONED_TOPIC_PARTITION_INDEX, nanoTime + backoffNs)``. The code read stores
  ``Long.MAX_VALUE`` for non-partitioned topics and maps it back to ``-1`` when redelivering
  (the spec's "1" is from another revision; the value is never used otherwise).

Timer algorithm (both): ``nackDelayNanos = max(negativeAckRedeliveryDelayMicros · 1000,
100 ms)``, ``timerIntervalNanos = nackDelayNanos / 3`` (with a backoff: ``max(next(0) ms,
100 ms) / 3``). The first ``add`` with no pending timeout schedules ``triggerRedelivery``
after one interval; each run stops the timer if the map is empty, else scans the **whole**
map, collects entries with ``timestamp < now``, removes them, reschedules after one interval,
and redelivers the collected ids. A second nack of an entry overwrites its timestamp. So a
message is redelivered after its time, and at most one interval (+ one timer tick) late.

The clock is explicit: every call takes ``now_ns``. The client timer is a Netty
``HashedWheelTimer`` with a 1 ms tick (``PulsarClientImpl``); a timeout fires at the first
tick boundary at or after its deadline (``timer_tick_ns=0`` fires exactly on time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, Self

import numpy as np

from trackerlab.models.primitives.pair_hash_map import ConcurrentLongLongPairHashMap
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

MIN_NACK_DELAY_NS = 100_000_000
DEFAULT_DELAY_MICROS = 60_000_000
CLIENT_TIMER_TICK_NS = 1_000_000
NON_PARTITIONED_TOPIC_PARTITION_INDEX = (1 << 63) - 1
#: ``MessageIdImpl``: ``long ledgerId, long entryId, int partitionIndex`` (32 B).
MESSAGE_ID_IMPL_FIELDS = "JJI"


class MessageId(NamedTuple):
    """``MessageIdImpl(ledgerId, entryId, partitionIndex)``; sorts by ledger then entry."""

    ledger_id: int
    entry_id: int
    partition_index: int = -1


class Redelivery(NamedTuple):
    """One ``triggerRedelivery`` run: when it ran and the ids it redelivered (sorted)."""

    time_ns: int
    message_ids: list[MessageId]


class _NegativeAcksTracker:
    """The timer algorithm shared by versions A and B; subclasses hold the map."""

    version = ""

    def __init__(
        self,
        delay_micros: int = DEFAULT_DELAY_MICROS,
        backoff_ms: Callable[[int], int] | None = None,
        timer_tick_ns: int = CLIENT_TIMER_TICK_NS,
    ) -> None:
        if delay_micros < 0:
            raise ValueError(f"delay_micros must be >= 0, got {delay_micros}")
        if timer_tick_ns < 0:
            raise ValueError(f"timer_tick_ns must be >= 0, got {timer_tick_ns}")
        self.nack_delay_ns = max(delay_micros * 1000, MIN_NACK_DELAY_NS)
        self.backoff_ms = backoff_ms
        if backoff_ms is not None:
            first = max(backoff_ms(0) * 1_000_000, MIN_NACK_DELAY_NS)
            self.timer_interval_ns = first // 3
        else:
            self.timer_interval_ns = self.nack_delay_ns // 3
        self.timer_tick_ns = timer_tick_ns
        self.timeout_deadline_ns: int | None = None

    # ---------------------------------------------------------------- timer

    def _fire_time(self, deadline: int) -> int:
        tick = self.timer_tick_ns
        return deadline if tick == 0 else -(-deadline // tick) * tick

    def next_run_ns(self) -> int | None:
        """When the pending ``triggerRedelivery`` runs (the ``timeout``'s deadline on the timer
        wheel), or None if the timer is stopped. O(1)."""
        if self.timeout_deadline_ns is None:
            return None
        return self._fire_time(self.timeout_deadline_ns)

    def advance(self, now_ns: int) -> list[Redelivery]:
        """Run every ``triggerRedelivery`` due by ``now_ns``, each at its own time (the timer;
        no Java method). O(runs × map scan)."""
        runs = []
        while (run_at := self.next_run_ns()) is not None and run_at <= now_ns:
            ids = self.trigger_redelivery(run_at)
            if ids:
                runs.append(Redelivery(run_at, ids))
        return runs

    def trigger_redelivery(self, now_ns: int) -> list[MessageId]:
        """``triggerRedelivery`` at ``now_ns``: collect ``timestamp < now``, remove, reschedule.
        O(map size) for A, O(capacity) for B (a full scan), + O(k log k) to sort k ids."""
        if self._count() == 0:
            self.timeout_deadline_ns = None
            return []
        due = self._remove_due(now_ns)
        self.timeout_deadline_ns = now_ns + self.timer_interval_ns
        return sorted(due)

    # ---------------------------------------------------------------- API

    def add(
        self,
        ledger_id: int,
        entry_id: int,
        now_ns: int,
        partition_index: int = -1,
        redelivery_count: int = 0,
    ) -> None:
        """``add(messageId)`` at ``now_ns`` (batch index already dropped: one key per entry).
        O(1) expected (B: O(capacity) when the map rehashes).

        Runs of the timer due before ``now_ns`` must have been taken with :meth:`advance`.
        """
        run_at = self.next_run_ns()
        if run_at is not None and run_at < now_ns:
            raise ValueError(f"advance to {run_at} ns first: the timer runs before this add")
        if self.backoff_ms is not None:
            backoff_ns = self.backoff_ms(redelivery_count) * 1_000_000
        else:
            backoff_ns = self.nack_delay_ns
        self._store(ledger_id, entry_id, partition_index, now_ns + backoff_ns)
        if self.timeout_deadline_ns is None:
            self.timeout_deadline_ns = now_ns + self.timer_interval_ns

    def nacked_count(self) -> int:
        """Entries waiting (``getNackedMessagesCount``). O(1)."""
        return self._count()

    # ---------------------------------------------------------------- bulk path

    @classmethod
    def from_arrays(
        cls,
        ledger_id: np.ndarray,
        entry_id: np.ndarray,
        timestamp_ns: np.ndarray,
        partition_index: int = -1,
        assume_unique: bool = False,
        **config: object,
    ) -> Self:
        """The tracker after ``add`` of every entry (``timestamp_ns`` = nack time + delay,
        a repeated entry keeps its last timestamp), with no timer run in between.
        ``assume_unique`` skips the search for repeated entries. Bulk path, no Java method:
        O(n) for A, O(n log n) for B."""
        tracker = cls(**config)  # type: ignore[arg-type]  # config is dict[str, object] of the tracker's constructor options
        tracker._load(
            np.asarray(ledger_id, dtype=np.int64),
            np.asarray(entry_id, dtype=np.int64),
            np.asarray(timestamp_ns, dtype=np.int64),
            partition_index,
            assume_unique,
        )
        return tracker

    # ---------------------------------------------------------------- storage

    def _load(
        self,
        ledger_id: np.ndarray,
        entry_id: np.ndarray,
        ts: np.ndarray,
        partition_index: int,
        assume_unique: bool,
    ) -> None:
        raise NotImplementedError

    def _store(self, ledger_id: int, entry_id: int, partition_index: int, timestamp: int) -> None:
        raise NotImplementedError

    def _remove_due(self, now_ns: int) -> list[MessageId]:
        raise NotImplementedError

    def _count(self) -> int:
        raise NotImplementedError


class NegativeAcksTrackerHashMap(_NegativeAcksTracker):
    """Version A: ``HashMap<MessageId, Long>``; the Python model is a dict of the same shape.

    ``add`` O(1); a timer run O(map size) (full scan). ``HashMap`` never shrinks, so its
    table length follows the largest size reached (:attr:`peak_size`).
    """

    version = "A"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]  # *args/**kwargs forward the parent constructor's own parameters
        self.nacked: dict[MessageId, int] = {}
        self.peak_size = 0

    def _store(self, ledger_id: int, entry_id: int, partition_index: int, timestamp: int) -> None:
        self.nacked[MessageId(ledger_id, entry_id, partition_index)] = timestamp
        self.peak_size = max(self.peak_size, len(self.nacked))

    def _remove_due(self, now_ns: int) -> list[MessageId]:
        due = [mid for mid, ts in self.nacked.items() if ts < now_ns]
        for mid in due:
            del self.nacked[mid]
        return due

    def _count(self) -> int:
        return len(self.nacked)

    def _load(
        self,
        ledger_id: np.ndarray,
        entry_id: np.ndarray,
        ts: np.ndarray,
        partition_index: int,
        assume_unique: bool,
    ) -> None:
        """Bulk: the dict built with C-level ``zip``/``map`` (no Python loop body); O(n)."""
        keys = map(
            MessageId._make,
            zip(
                ledger_id.tolist(),
                entry_id.tolist(),
                [partition_index] * len(ledger_id),
                strict=True,
            ),
        )
        self.nacked = dict(zip(keys, ts.tolist(), strict=True))
        self.peak_size = len(self.nacked)

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """``HashMap`` (table from the peak size) + per entry ``Node`` 32 B, ``MessageIdImpl``
        32 B and a boxed ``Long`` 24 B: 88 B + 4 B per table slot (compressed oops). O(1)."""
        return jvm_hash_map_tracker_bytes(len(self.nacked), self.peak_size, layout)


def jvm_hash_map_tracker_bytes(
    entries: int, peak_entries: int | None = None, layout: JvmLayout = COMPRESSED
) -> int:
    """Version A's ``HashMap<MessageId, Long>`` with ``entries`` keys. O(1)."""
    peak = entries if peak_entries is None else peak_entries
    if peak == 0:
        return 0  # created lazily on the first nack
    payload = entries * (layout.instance(MESSAGE_ID_IMPL_FIELDS) + jc.boxed_long(layout))
    return jc.hash_map(entries, payload, jc.hash_map_capacity(peak), layout)


class NegativeAcksTrackerPairMap(_NegativeAcksTracker):
    """Version B: ``ConcurrentLongLongPairHashMap`` (1 section, autoShrink) of
    ``(ledgerId, entryId) -> (partitionIndex, timestamp)``. A timer run is O(capacity)."""

    version = "B"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]  # *args/**kwargs forward the parent constructor's own parameters
        self.nacked: ConcurrentLongLongPairHashMap | None = None

    @staticmethod
    def new_map() -> ConcurrentLongLongPairHashMap:
        """``ConcurrentLongLongPairHashMap.newBuilder().autoShrink(true).concurrencyLevel(1)
        .build()``: 512 buckets. O(capacity)."""
        return ConcurrentLongLongPairHashMap(auto_shrink=True, concurrency_level=1)

    def _store(self, ledger_id: int, entry_id: int, partition_index: int, timestamp: int) -> None:
        if self.nacked is None:
            self.nacked = self.new_map()
        partition = (
            partition_index if partition_index >= 0 else NON_PARTITIONED_TOPIC_PARTITION_INDEX
        )
        self.nacked.put(ledger_id, entry_id, partition, timestamp)

    def _remove_due(self, now_ns: int) -> list[MessageId]:
        assert self.nacked is not None
        rows = self.nacked.to_arrays()  # forEach order
        due = rows[rows[:, 3] < now_ns]
        ids = []
        for ledger, entry, partition, _ in due.tolist():
            if partition == NON_PARTITIONED_TOPIC_PARTITION_INDEX:
                partition = -1
            ids.append(MessageId(ledger, entry, partition))
        for mid in ids:
            self.nacked.remove(mid.ledger_id, mid.entry_id)
        return ids

    def _count(self) -> int:
        return 0 if self.nacked is None else self.nacked.size()

    def _load(
        self,
        ledger_id: np.ndarray,
        entry_id: np.ndarray,
        ts: np.ndarray,
        partition_index: int,
        assume_unique: bool,
    ) -> None:
        """Bulk: :meth:`ConcurrentLongLongPairHashMap.from_arrays`; O(n log n)."""
        partition = (
            partition_index if partition_index >= 0 else NON_PARTITIONED_TOPIC_PARTITION_INDEX
        )
        self.nacked = ConcurrentLongLongPairHashMap.from_arrays(
            ledger_id,
            entry_id,
            np.full(len(ledger_id), partition, dtype=np.int64),
            ts,
            assume_unique=assume_unique,
            auto_shrink=True,
            concurrency_level=1,
        )

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """The pair map (map object, ``Section[1]``, the Section, ``long[4 · capacity]``). O(1)."""
        return 0 if self.nacked is None else self.nacked.jvm_bytes(layout)
