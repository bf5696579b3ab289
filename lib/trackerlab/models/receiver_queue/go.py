"""Go client receiver queue: ``partitionConsumer`` flow control with auto-scaling.

Follows ``apache/pulsar-client-go`` ``pulsar/consumer_partition.go``: PR #976
(``b8563cd8``, auto-scaled queue; line numbers below are at that commit) plus PR #991
(``20291f5c``, memory limit and shrinking), unchanged in these rules at HEAD (``8213b20c``)
except where noted. One object per partition consumer; Go has no cross-partition cap, every
partition consumer gets the full ``ReceiverQueueSize`` as its maximum. The rules, exactly:

- ``currentQueueSize`` starts at ``initialReceiverQueueSize = 1`` (auto) or the maximum.
- On (re)connect permits are reset to 0 and the initial Flow asks for ``currentQueueSize``
  (auto) or ``maxQueueSize``.
- ``MessageReceived`` (auto mode only): at #976 and #991, **once per batch entry**:
  ``incomingMessages += len(messages)`` then one ``markScaleIfNeed``:
  ``hint = permits + incoming >= size`` (b8563cd8 :1113-1116, :1745-1749; 20291f5c
  :1126-1127 reserves the entry's bytes first). Per message only since #1283 (06f26935,
  2024-10); with no delivery in between both give the same hint.
- Dispatcher, per message handed to the application channel: ``availablePermits.inc()``
  (→ ``flowIfNeed``), then (auto) ``incomingMessages -= 1``, ``ReleaseMemory``,
  ``expectMoreIncomingMessages``: ``if CAS(hint, true, false)`` then double (capped at the
  maximum) **only if** memory usage < 75 %, adding the delta to the permits.
  The hint is consumed even when memory blocks the expansion.
- ``flowIfNeed``: threshold ``max(size / 2, 1)`` (integer division); when permits reach
  it, Flow(permits) and permits = 0.
- ``shrinkReceiverQueueSize`` (memory trigger at 95 %): ``new = max(min(1, max), old / 2)``;
  if smaller, set it and add the (negative) delta to the permits, delaying the next Flow.

Every method is O(1). ``messages_received(k)`` is #976's rule for an entry of ``k``
messages, and the closed form of ``k`` per-message calls (HEAD) with no delivery in
between: only the last ``markScaleIfNeed`` decides the hint, and a memory trigger fires
at most once while usage only rises. ``deliver_many(k)`` is ``k`` deliveries while the
hint is clear and no Flow falls before the last (the harness engine's runs); both are
checked against the per-message rules in ``tests/models/receiver_queue/``.
"""

from __future__ import annotations

from trackerlab.models.receiver_queue.memory_limit import MemoryLimitController

#: ``initialReceiverQueueSize`` (consumer_partition.go:80 @ b8563cd8).
INITIAL_RECEIVER_QUEUE_SIZE = 1
#: ``receiverQueueExpansionMemThreshold``: no expansion at or above 75 % memory usage
#: (consumer_partition.go:81 @ 20291f5c, #991).
EXPANSION_MEMORY_THRESHOLD = 0.75
#: ``defaultReceiverQueueSize`` (reader_impl.go:32 @ b8563cd8), used when
#: ``ReceiverQueueSize <= 0`` (consumer_impl.go:79-80).
DEFAULT_RECEIVER_QUEUE_SIZE = 1000
#: Capacity of the application channel ``messageCh`` created by ``Subscribe`` when
#: ``ConsumerOptions.MessageChannel`` is nil (consumer_impl.go:110-113 @ b8563cd8). The harness
#: folds it into the application's per-message time (the dispatcher runs at most 10 ahead).
MESSAGE_CHANNEL_CAPACITY = 10


class GoPartitionConsumer:
    """Flow-control state of one Go ``partitionConsumer``.

    ``flows`` and ``size_log`` are lists shared with the simulator: a Flow is appended as
    ``(now, partition, permits)`` and a size change as ``(now, partition, new_size)``.
    """

    __slots__ = (
        "auto",
        "expansions",
        "flows",
        "hint",
        "incoming",
        "max_size",
        "memory",
        "message_bytes",
        "partition",
        "permits",
        "shrinks",
        "size",
        "size_log",
    )

    def __init__(
        self,
        partition: int,
        max_size: int,
        *,
        auto: bool,
        memory: MemoryLimitController,
        message_bytes: int,
        flows: list,
        size_log: list,
    ):
        self.partition = partition
        self.auto = auto
        self.max_size = max_size
        self.size = INITIAL_RECEIVER_QUEUE_SIZE if auto else max_size
        self.permits = 0
        self.incoming = 0
        self.hint = False
        self.memory = memory
        self.message_bytes = message_bytes
        self.flows = flows
        self.size_log = size_log
        self.expansions = 0
        self.shrinks = 0
        if auto:
            memory.triggers.append(self.shrink)

    def connect(self) -> int:
        """Dispatcher on ``connectedCh``: reset permits, return the initial Flow's permits. O(1)."""
        self.permits = 0
        return self.size if self.auto else self.max_size

    def messages_received(self, k: int, now: int) -> None:
        """``MessageReceived`` for ``k`` non-batched messages of one frame (closed form).
        O(1), plus O(triggers) when the memory threshold is crossed.
        """
        if self.auto:
            self.memory.force_reserve(k * self.message_bytes, now)
            self.incoming += k
            self.hint = self.permits + self.incoming >= self.size

    def deliver(self, now: int) -> None:
        """Dispatcher hands one message to ``messageCh`` (``case messageCh <- nextMessage``).
        O(1).
        """
        self.permits += 1
        self.flow_if_need(now)
        if self.auto:
            self.incoming -= 1
            self.memory.release(self.message_bytes)
            self.expect_more(now)

    def deliver_many(self, k: int, now: int) -> None:
        """``k`` deliveries in closed form: valid while the hint is clear and at most the
        last of them reaches the Flow threshold (the engine splits runs there). O(1)."""
        self.permits += k
        if self.auto:
            self.incoming -= k
            self.memory.release(k * self.message_bytes)
        self.flow_if_need(now)

    def to_flow(self) -> int:
        """Deliveries until the next Flow (``max(size / 2, 1) - permits``, at least 1). O(1)."""
        threshold = (self.size if self.auto else self.max_size) // 2
        return max(1, (threshold if threshold > 1 else 1) - self.permits)

    def expect_more(self, now: int) -> None:
        """``expectMoreIncomingMessages``: consume the hint, double below 75 % memory. O(1)."""
        if self.hint:
            self.hint = False
            old = self.size
            new = min(self.max_size, old * 2)
            if self.memory.usage_percent() < EXPANSION_MEMORY_THRESHOLD and new > old:
                self.size = new
                self.expansions += 1
                self.size_log.append((now, self.partition, new))
                self.permits += new - old
                self.flow_if_need(now)

    def flow_if_need(self, now: int) -> None:
        """``availablePermits.flowIfNeed``: Flow once permits reach ``max(size / 2, 1)``. O(1)."""
        threshold = (self.size if self.auto else self.max_size) // 2
        if self.permits >= (threshold if threshold > 1 else 1):
            self.flows.append((now, self.partition, self.permits))
            self.permits = 0

    def shrink(self, now: int) -> None:
        """``shrinkReceiverQueueSize``: halve (not below ``min(1, max)``), negative permits.
        O(1).
        """
        if not self.auto:
            return
        old = self.size
        new = max(min(INITIAL_RECEIVER_QUEUE_SIZE, self.max_size), old // 2)
        if new < old:
            self.size = new
            self.shrinks += 1
            self.size_log.append((now, self.partition, new))
            self.permits += new - old
            self.flow_if_need(now)
