"""Whole batch entries against message permits: the most a consumer's receiver queue holds.

A consumer's permits count *messages*, but the broker reads and sends whole *entries*, and a
batch entry holds many messages. So a consumer can receive more than its permits allowed, and
its receiver queue can hold more than ``receiverQueueSize``. How much more depends on the
subscription type. The rules below come from Pulsar's code. The event simulation's
dispatcher (:mod:`~trackerlab.models.receiver_queue.dispatcher`) runs them one read at a time.
:func:`queue_peak` gives their worst case in closed form, and ``trackerlab plan`` uses it for
its receiver-queue row.

Sources: apache/pulsar v4.2.4, commit ``534a635dca0748eaf43ae67002ce2c2077487b4e``. That is
the ``git.commit.id`` that ``PulsarVersion`` in ``pulsar-common-4.2.4.jar`` records. Line
numbers come from the release's ``-sources.jar`` files on Maven Central, which were built from
that commit. Paths are shortened: ``broker/`` means
``pulsar-broker/src/main/java/org/apache/pulsar/broker/``, ``client/`` means
``pulsar-client/src/main/java/org/apache/pulsar/client/impl/`` and ``ml/`` means
``managed-ledger/src/main/java/org/apache/bookkeeper/mledger/impl/``.

- **Permits count messages.** The client first grants ``receiverQueueSize`` permits
  (``client/conf/ConsumerConfigurationData.java:133``, default 1000). After that it returns
  permits in Flows of at least half the queue (``ConsumerImpl.increaseAvailablePermits``,
  ``client/ConsumerImpl.java:1944-1957``). The broker adds each Flow to the consumer's permits
  (``Consumer.flowPermits``, ``broker/service/Consumer.java:838-857``). When it sends entries,
  it subtracts the number of *messages* in them, with no clamp at zero
  (``Consumer.sendMessages``, ``Consumer.java:429-430``). So permits can go negative.
- **A read counts entries.** A read asks for ``min(permits, readBatchSize)`` entries
  (``PersistentDispatcherSingleActiveConsumer.calculateToRead``,
  ``broker/service/persistent/PersistentDispatcherSingleActiveConsumer.java:443-458``;
  ``PersistentDispatcherMultipleConsumers.calculateToRead``,
  ``PersistentDispatcherMultipleConsumers.java:528-538``). ``readBatchSize`` starts at
  ``dispatcherMaxReadBatchSize`` = 100 (``ServiceConfiguration.java:1332``, in
  ``pulsar-broker-common``). ``preciseDispatcherFlowControl`` = false (``:1422``), so
  permits are not divided by the entries' average size. A read also asks for at most
  ``dispatcherMaxReadSizeBytes`` = 5 MiB (``:1357``). The cursor turns that byte limit into a
  count of entries: the ledger's average entry size plus ``BOOKKEEPER_READ_OVERHEAD_PER_ENTRY``
  = 64 B each, and always at least one entry (``ManagedCursorImpl.applyMaxSizeCap``,
  ``ml/ManagedCursorImpl.java:4076-4081``; ``ml/EntryCountEstimator.java:129-150, 183``;
  ``ml/cache/RangeEntryCacheImpl.java:76``).
- **Exclusive and Failover** send every entry they read to the one active consumer
  (``PersistentDispatcherSingleActiveConsumer.java:237, 241-246``). A read that starts with
  ``p`` permits therefore sends ``min(p, 100, entries in 5 MiB)`` whole entries.
- **Shared** splits the entries between consumers, a few at a time. Each turn gives a consumer
  ``getMaxEntriesInThisBatch`` entries: ``max(1, min(dispatcherMaxRoundRobinBatchSize,
  ceil(min(remaining, permits) / avg)))``. Here ``avg`` is the read's average number of
  messages per entry (``PersistentDispatcherMultipleConsumers.java:826, 848-852, 906-925``)
  and ``dispatcherMaxRoundRobinBatchSize`` = 20 (``ServiceConfiguration.java:1415``). Only a
  consumer with permits > 0 gets a turn (``isConsumerAvailable``, ``:1125-1128``; the loop,
  ``:830``). Entries that no consumer can take are kept for a later replay read (``:893-899``).
  So a consumer whose entries all hold ``batch`` messages is sent at most ``ceil(p / batch)``
  entries: no more than ``batch - 1`` messages past its permits.
  ``maxUnackedMessagesPerConsumer`` (50,000, ``ServiceConfiguration.java:1064``) limits the
  same turn, but it is far above any receiver queue here, so it is left out.

**The peak.** At any moment the client holds at most ``queue_size - p`` messages, where ``p``
is the consumer's permits at the broker. The client granted ``queue_size`` permits plus one
for every message it returned, and every message it holds was sent against one of them. So
after one read that starts with ``p`` permits and sends ``sent(p)`` messages, the client holds
at most ``queue_size - p + sent(p)``. :func:`queue_peak` takes the largest value over
``1 <= p <= queue_size``. This is a consumer whose application has fallen behind (its queue is
full), with a backlog of whole entries of ``batch`` messages:

- Exclusive: ``queue_size + K * (batch - 1)`` at ``p = K``, where
  ``K = min(queue_size, readBatchSize, entries in 5 MiB)``;
- Shared: ``queue_size + batch - 1`` at ``p = 1``.

When the entries differ in size (delayed messages are one entry each, the others are
batched), Shared's ``avg`` falls below the size of the batched entries. Then a turn can hand
out more of them than the permits cover. The peak here assumes every entry has the same size.

Every function is O(1), except :func:`dispatched_messages` in Shared (O(entries / 20)).
"""

from __future__ import annotations

from dataclasses import dataclass

from trackerlab.core.params import check_choice, check_int

#: ``dispatcherMaxReadBatchSize = 100`` (``ServiceConfiguration.java:1332`` @ 534a635d, v4.2.4).
DISPATCHER_MAX_READ_BATCH_SIZE = 100
#: ``dispatcherMaxReadSizeBytes = 5 * 1024 * 1024`` (``ServiceConfiguration.java:1357`` @ 534a635d).
DISPATCHER_MAX_READ_SIZE_BYTES = 5 * 1024 * 1024
#: ``dispatcherMaxRoundRobinBatchSize = 20`` (``ServiceConfiguration.java:1415`` @ 534a635d).
DISPATCHER_MAX_ROUND_ROBIN_BATCH_SIZE = 20
#: ``BOOKKEEPER_READ_OVERHEAD_PER_ENTRY = 64``: the bytes the cursor adds to each entry when it
#: converts ``dispatcherMaxReadSizeBytes`` into entries (``RangeEntryCacheImpl.java:76``,
#: used in ``EntryCountEstimator.java:129-131`` @ 534a635d).
READ_OVERHEAD_BYTES_PER_ENTRY = 64

#: Subscription types by dispatcher. Failover dispatches like Exclusive: one active consumer.
EXCLUSIVE = "exclusive"
SHARED = "shared"
SUBSCRIPTION_TYPES = (EXCLUSIVE, SHARED)

#: One line naming the Pulsar code behind :func:`queue_peak`, for notes and output.
SOURCE = (
    "apache/pulsar@534a635d (v4.2.4): Consumer.java:430, "
    "PersistentDispatcherMultipleConsumers.java:906-925, "
    "PersistentDispatcherSingleActiveConsumer.java:443-458, ServiceConfiguration.java:1332,1357,1415"
)


def read_entries(permits: int, read_batch_size: int = DISPATCHER_MAX_READ_BATCH_SIZE) -> int:
    """``calculateToRead``: the entries a read asks for, for a consumer with ``permits`` > 0.
    The count is ``min(permits, readBatchSize)`` and at least 1. O(1)."""
    return max(1, min(permits, read_batch_size))


def entries_within_read_bytes(
    entry_bytes: int, max_read_bytes: int = DISPATCHER_MAX_READ_SIZE_BYTES
) -> int:
    """``applyMaxSizeCap`` for entries of ``entry_bytes`` each: how many fit in
    ``max_read_bytes`` when each also counts 64 B of overhead. At least 1. O(1)."""
    return max(1, max_read_bytes // (entry_bytes + READ_OVERHEAD_BYTES_PER_ENTRY))


def shared_turn_entries(
    remaining_messages: int,
    permits: int,
    avg_messages_per_entry: int,
    round_robin_batch_size: int = DISPATCHER_MAX_ROUND_ROBIN_BATCH_SIZE,
) -> int:
    """``getMaxEntriesInThisBatch`` (no unacked limit): the entries one Shared turn gives a
    consumer. The count is ``ceil(min(remaining, permits) / avg)``, capped by the
    round-robin batch size and at least 1. O(1)."""
    most = min(remaining_messages, permits)
    entries = (most + avg_messages_per_entry - 1) // avg_messages_per_entry
    return max(1, min(round_robin_batch_size, entries))


def dispatched_messages(
    permits: int,
    batch_messages: int,
    *,
    subscription_type: str = SHARED,
    read_batch_size: int = DISPATCHER_MAX_READ_BATCH_SIZE,
    read_limit_entries: int | None = None,
    read_avg_messages_per_entry: int | None = None,
    round_robin_batch_size: int = DISPATCHER_MAX_ROUND_ROBIN_BATCH_SIZE,
) -> int:
    """Messages that one read sends to a consumer that starts it with ``permits`` > 0.

    The consumer is alone on the subscription and has a backlog of entries of
    ``batch_messages`` each. ``read_limit_entries`` is the byte limit already turned into
    entries (:func:`entries_within_read_bytes`); None means no byte limit.
    ``read_avg_messages_per_entry`` is the read's average as Shared computes it
    (``avgBatchSizePerMsg``, an integer); it defaults to ``batch_messages``. It is smaller
    when smaller entries follow in the same read. O(1) for Exclusive, O(entries / 20) for
    Shared."""
    k = read_entries(permits, read_batch_size)
    if read_limit_entries is not None:
        k = min(k, read_limit_entries)
    if subscription_type == EXCLUSIVE:
        return k * batch_messages
    avg = batch_messages if read_avg_messages_per_entry is None else read_avg_messages_per_entry
    sent, left, remaining = 0, permits, k * batch_messages
    while sent < k and left > 0:  # the loop of sendMessagesToConsumers, with one consumer
        n = min(shared_turn_entries(remaining, left, avg, round_robin_batch_size), k - sent)
        sent += n
        left -= n * batch_messages
        remaining -= n * batch_messages
    return sent * batch_messages


@dataclass(frozen=True)
class QueuePeak:
    """The most a consumer's receiver queue holds (:func:`queue_peak`)."""

    queue_size: int  #: receiverQueueSize (messages)
    batch_messages: int  #: messages per entry
    message_bytes: int  #: payload bytes per message
    subscription_type: str
    permits: int  #: the consumer's permits when the worst read starts
    entries: int  #: entries that read sends to the consumer
    messages: int  #: the most messages the queue holds
    bytes: int  #: ``messages * message_bytes``: payload bytes (what memoryLimit counts)

    @property
    def overshoot_messages(self) -> int:
        """Messages past ``queue_size``. O(1)."""
        return self.messages - self.queue_size


def _best_permits(
    queue_size: int,
    batch_messages: int,
    subscription_type: str,
    read_batch_size: int,
    by_bytes: int,
    avg: int,
    round_robin_batch_size: int,
) -> tuple[int, int, int]:
    """``(messages held, permits, entries)`` at the permits ``p`` that maximise
    ``queue_size - p + dispatched_messages(p)``, over the few candidates that can (see
    :func:`queue_peak`). O(round_robin_batch_size)."""
    widest = min(queue_size, read_batch_size, by_bytes)
    candidates = {1, widest}
    if subscription_type == SHARED:
        candidates |= {avg * (n - 1) + 1 for n in range(1, round_robin_batch_size + 1)}
    best = (0, 1, 0)
    for p in sorted(c for c in candidates if c <= queue_size):
        sent = dispatched_messages(
            p,
            batch_messages,
            subscription_type=subscription_type,
            read_batch_size=read_batch_size,
            read_limit_entries=by_bytes,
            read_avg_messages_per_entry=avg,
            round_robin_batch_size=round_robin_batch_size,
        )
        if queue_size - p + sent > best[0]:
            best = (queue_size - p + sent, p, sent // batch_messages)
    return best


def queue_peak(
    queue_size: int,
    batch_messages: int,
    message_bytes: int,
    *,
    subscription_type: str = SHARED,
    read_batch_size: int = DISPATCHER_MAX_READ_BATCH_SIZE,
    max_read_bytes: int = DISPATCHER_MAX_READ_SIZE_BYTES,
    entry_bytes: int | None = None,
    read_avg_messages_per_entry: int | None = None,
    round_robin_batch_size: int = DISPATCHER_MAX_ROUND_ROBIN_BATCH_SIZE,
) -> QueuePeak:
    """The most messages and payload bytes a consumer's receiver queue of ``queue_size``
    can hold.

    Entries hold ``batch_messages`` messages of ``message_bytes`` each. An entry is
    ``entry_bytes`` long (default ``batch_messages * message_bytes``).
    ``read_avg_messages_per_entry`` is Shared's integer average over a read (default
    ``batch_messages``: every entry full; see :func:`dispatched_messages`). The result is
    the maximum over ``1 <= p <= queue_size`` of ``queue_size - p + dispatched_messages(p)``.
    Only a few values of ``p`` can give that maximum: ``p = 1``, ``p = min(queue_size, K)``
    (Exclusive), and, for Shared, the smallest ``p`` that still gets ``n`` entries in one
    turn, ``p = avg * (n - 1) + 1`` for ``n = 1 .. 20``. The tests check this against every
    ``p``. Bad input raises a UsageError that names the parameter and its range. O(20)."""
    check_int("queue_size", queue_size, 1, None)
    check_int("batch_messages", batch_messages, 1, None)
    check_int("message_bytes", message_bytes, 1, None)
    check_choice("subscription_type", subscription_type, SUBSCRIPTION_TYPES)
    check_int("read_batch_size", read_batch_size, 1, None)
    check_int("max_read_bytes", max_read_bytes, 1, None)
    if entry_bytes is None:
        entry_bytes = batch_messages * message_bytes
    check_int("entry_bytes", entry_bytes, 1, None)
    if read_avg_messages_per_entry is None:
        read_avg_messages_per_entry = batch_messages
    check_int("read_avg_messages_per_entry", read_avg_messages_per_entry, 1, batch_messages)
    check_int("round_robin_batch_size", round_robin_batch_size, 1, None)
    by_bytes = entries_within_read_bytes(entry_bytes, max_read_bytes)
    held, p, entries = _best_permits(
        queue_size,
        batch_messages,
        subscription_type,
        read_batch_size,
        by_bytes,
        read_avg_messages_per_entry,
        round_robin_batch_size,
    )
    return QueuePeak(
        queue_size=queue_size,
        batch_messages=batch_messages,
        message_bytes=message_bytes,
        subscription_type=subscription_type,
        permits=p,
        entries=entries,
        messages=held,
        bytes=held * message_bytes,
    )
