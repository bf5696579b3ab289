"""The broker side of one partition: the subscription's dispatcher and its cursor.

The Go perf consumer subscribes with the zero-value type, Exclusive (``pulsar/consumer.go:38``
@ b8563cd8; perf-consumer.go:81-86 sets no type), so the broker uses
``PersistentDispatcherSingleActiveConsumer`` (apache/pulsar ``pulsar-broker/.../persistent/
PersistentDispatcherSingleActiveConsumer.java`` @ 01df3119, ``readMoreEntries``,
``internalReadEntriesComplete``, ``internalConsumerFlow``) over ``ManagedCursorImpl``
(``managed-ledger/.../ManagedCursorImpl.java`` @ 00151627, ``asyncReadEntriesOrWait``,
``checkForNewEntries``, ``notifyEntriesAvailable``). apache/pulsar is read through stored
file versions without line numbers: the citations name the commit and the method.

- **Permits** (``Consumer.java`` @ 0060c951, ``flowPermits``, ``sendMessages``): a Flow adds
  its permits; a dispatch subtracts the *messages* of the entries sent
  (``MESSAGE_PERMITS_UPDATER.addAndGet(this, ackedCount - totalMessages)``), with no clamp,
  so permits go negative when an entry holds more messages than were left.
- **Reads** (``readMoreEntries``): only with permits > 0 and no read pending; it asks for
  ``min(permits, readBatchSize)`` *entries* (``readBatchSize`` starts at
  ``dispatcherMaxReadBatchSize`` = 100, ``pulsar-broker-common/.../ServiceConfiguration.java``
  @ 0023b937, char ~48.6k) and at most ``dispatcherMaxReadSizeBytes`` = 5 MiB (same file,
  char ~49.5k; the cursor caps by the ledger's average entry size, the model by the
  entries' own bytes; in 4.2.x each entry also counts ``BOOKKEEPER_READ_OVERHEAD_PER_ENTRY``
  = 64 B, and the model adds that too);
  ``preciseDispatcherFlowControl`` is ``false`` by default (same
  file), so the permits count entries here. The read count and the byte overhead are the
  rules of :mod:`~trackerlab.models.receiver_queue.overshoot`, which has their 4.2.4 lines.
  A Flow that arrives while a read is
  pending only adds permits ("Ignoring flow control message since we already have a
  pending read req").
- **After a dispatch** the next read is scheduled once the write completes
  (``internalReadEntriesComplete``: "Schedule a new read batch operation only after the
  previous batch has been written to the socket").
- **Caught up**: a read that finds no entry waits ``managedLedgerNewEntriesCheckDelayInMillis``
  = 10 ms ("Default is 10ms"; ``ServiceConfiguration.java``, three stored versions, e.g.
  index id 34013387 char ~86.5k, passed to ``ManagedLedgerConfig.newEntriesCheckDelayInMillis``)
  and checks again (``checkForNewEntries``);
  entries written in between are not notified. If still nothing, the cursor registers as
  waiting and the next entry written triggers the read at once (``notifyEntriesAvailable``).
  The pending read keeps the entry count it was created with.

- **Shared** (``shared=True``, the consumer alone on a Shared subscription, as ``trackerlab
  plan`` sizes it): ``PersistentDispatcherMultipleConsumers.sendMessagesToConsumers`` gives
  the consumer turns of ``getMaxEntriesInThisBatch`` entries, about ``permits / avg``, while
  its permits are > 0. ``avg`` is the read's integer average of messages per entry. Entries
  it does not take wait for a replay read, which comes before new entries; the model moves
  the cursor back to them (:func:`~trackerlab.models.receiver_queue.overshoot.
  shared_turn_entries`). So a consumer ends at most one entry past its permits when every
  entry is full. A partial batch in the read lowers ``avg`` and lets more through.

The model reads from the entry cache in ``read_ns`` (the entries of a read and the
write-then-next-read hop). O(log entries) per read.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from trackerlab.models.receiver_queue.overshoot import (
    DISPATCHER_MAX_READ_BATCH_SIZE,
    DISPATCHER_MAX_READ_SIZE_BYTES,
    READ_OVERHEAD_BYTES_PER_ENTRY,
    read_entries,
    shared_turn_entries,
)

__all__ = [
    "DELAYED",
    "DISPATCHER_MAX_READ_BATCH_SIZE",
    "DISPATCHER_MAX_READ_SIZE_BYTES",
    "IDLE",
    "NEW_ENTRIES_CHECK_DELAY_MS",
    "WAITING",
    "Dispatcher",
]

#: ``managedLedgerNewEntriesCheckDelayInMillis = 10`` (ServiceConfiguration.java, index id 34013387).
NEW_ENTRIES_CHECK_DELAY_MS = 10.0

#: Cursor states.
IDLE, DELAYED, WAITING = range(3)


class Dispatcher:
    """Permits, the pending read and the cursor of one partition's subscription.

    ``ready_ns``, ``messages`` and ``entry_bytes`` describe the partition's entries in
    publish order. Actions are returned to the caller as ``(time, kind, a, b)`` through
    ``emit``: ``("read", t_done, first, count)`` or ``("recheck", t, token, 0)`` or
    ``("notify", t, token, 0)``.
    """

    __slots__ = (
        "bytes_prefix",
        "check_delay",
        "cursor",
        "dispatched",
        "emit",
        "max_read_bytes",
        "messages",
        "msg_prefix",
        "op_count",
        "pending",
        "permits",
        "read_batch",
        "read_ns",
        "reads",
        "ready",
        "sent_entries",
        "shared",
        "state",
        "token",
    )

    def __init__(
        self,
        ready_ns: list[int],
        messages: list[int],
        entry_bytes: list[int],
        emit,
        *,
        read_ns: int,
        read_batch: int = DISPATCHER_MAX_READ_BATCH_SIZE,
        max_read_bytes: int = DISPATCHER_MAX_READ_SIZE_BYTES,
        check_delay_ms: float = NEW_ENTRIES_CHECK_DELAY_MS,
        shared: bool = False,
    ):
        self.ready = ready_ns
        self.messages = messages
        self.msg_prefix = [0, *accumulate(messages)]
        overhead = READ_OVERHEAD_BYTES_PER_ENTRY  # counted per entry against max_read_bytes
        self.bytes_prefix = [0, *accumulate(b + overhead for b in entry_bytes)]
        self.emit = emit
        self.read_ns = read_ns
        self.read_batch = read_batch
        self.max_read_bytes = max_read_bytes
        self.check_delay = round(check_delay_ms * 1e6)
        self.permits = 0
        self.pending = False
        self.cursor = 0
        self.state = IDLE
        self.op_count = 0
        self.token = 0
        self.dispatched = 0  #: messages sent to the consumer
        self.reads = 0
        self.shared = shared
        self.sent_entries = 0  #: entries the last completed read sent to the consumer

    def flow(self, n: int, now: int) -> None:
        """``flowPermits`` + ``internalConsumerFlow``: add permits; read unless one is pending.
        O(log entries).
        """
        self.permits += n
        if not self.pending:
            self.read_more(now)

    def read_more(self, now: int) -> None:
        """``readMoreEntries``: with permits > 0 and no pending read, ask for entries.
        O(log entries).
        """
        if self.pending or self.permits <= 0:
            return
        self.pending = True
        count = read_entries(self.permits, self.read_batch)
        self._read_or_wait(count, now)

    def _read_or_wait(self, count: int, now: int) -> None:
        """``asyncReadEntriesOrWait``: read what is there, else re-check after the delay."""
        available = bisect_right(self.ready, now) - self.cursor
        if available > 0:
            self._read(count, available, now)
        else:
            self.state = DELAYED
            self.op_count = count
            self.token += 1
            self.emit(now + self.check_delay, "recheck", self.token, 0)

    def _read(self, count: int, available: int, now: int) -> None:
        first = self.cursor
        k = count if count < available else available
        prefix = self.bytes_prefix
        if k > 1 and prefix[first + k] - prefix[first] > self.max_read_bytes:
            # at most max_read_bytes, and at least one entry
            k = max(1, bisect_right(prefix, prefix[first] + self.max_read_bytes, first) - 1 - first)
        self.cursor = first + k
        self.state = IDLE
        self.reads += 1
        self.emit(now + self.read_ns, "read", first, k)

    def recheck(self, token: int, now: int) -> None:
        """``checkForNewEntries`` after the delay: read, or register as a waiting cursor.
        O(log entries).
        """
        if token != self.token or self.state != DELAYED:
            return
        available = bisect_right(self.ready, now) - self.cursor
        if available > 0:
            self._read(self.op_count, available, now)
        elif self.cursor < len(self.ready):
            self.state = WAITING
            self.emit(self.ready[self.cursor], "notify", self.token, 0)
        else:
            self.state = WAITING  # nothing will ever be written

    def notify(self, token: int, now: int) -> None:
        """``notifyEntriesAvailable``: the waiting read runs when an entry is written.
        O(log entries).
        """
        if token != self.token or self.state != WAITING:
            return
        self._read(self.op_count, bisect_right(self.ready, now) - self.cursor, now)

    def read_done(self, first: int, count: int, now: int) -> int:
        """``internalReadEntriesComplete`` + ``sendMessages``: dispatch, then read again.

        Returns the messages dispatched. The caller delivers the first ``sent_entries`` entries
        to the client: all ``count`` in Exclusive, and maybe fewer in Shared.
        O(log entries).
        """
        self.pending = False
        end = first + count
        if self.shared:
            end = self._shared_turns(first, end)
            self.cursor = end  # the entries left wait for a replay read, in order
        sent = self.msg_prefix[end] - self.msg_prefix[first]
        self.sent_entries = end - first
        self.permits -= sent
        self.dispatched += sent
        self.read_more(now)
        return sent

    def _shared_turns(self, first: int, last: int) -> int:
        """``sendMessagesToConsumers`` with one consumer: turns of ``getMaxEntriesInThisBatch``
        entries while it has permits; returns the end of what it was sent. O(turns)."""
        prefix = self.msg_prefix
        remaining = prefix[last] - prefix[first]
        avg = max(remaining // (last - first), 1)  # avgBatchSizePerMsg
        start, permits = first, self.permits
        while start < last and permits > 0:
            end = min(start + shared_turn_entries(remaining, permits, avg), last)
            sent = prefix[end] - prefix[start]
            permits -= sent
            remaining -= sent
            start = end
        return start
