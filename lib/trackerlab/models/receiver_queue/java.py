"""Java client receiver queue: PIP-74 auto-scaling in ``ConsumerImpl`` and ``MultiTopicsConsumerImpl``.

Follows ``apache/pulsar`` ``pulsar-client/src/main/java/org/apache/pulsar/client/impl/``
``ConsumerBase``, ``ConsumerImpl``, ``MultiTopicsConsumerImpl`` and ``PulsarClientImpl`` as
introduced by PR #14494 (2.11) and kept since. The rules, exactly:

- ``currentReceiverQueueSize`` starts at ``minReceiverQueueSize()`` (auto) or the maximum.
  ``ConsumerImpl``: ``max(min(1, max), batchMax > 0 ? 2 * batchMax - 2 : 0)``;
  ``MultiTopicsConsumerImpl``: ``max(min(1, max), batchMax if > 0, #partitions)``.
- The hint is set **only when a message is enqueued** into ``incomingMessages``:
  ``ConsumerImpl``: ``permits + incoming >= size``; multi-topics: ``incoming >= size``.
  A message that completes a pending ``receiveAsync`` is never enqueued, so it never
  touches the hint.
- ``expectMoreIncomingMessages`` runs when the application finds the queue empty
  (``receive``, ``receiveAsync``, ``receive(timeout)``) or a batch receive has not enough
  messages: ``if usage < 0.75 && CAS(hint, true, false)`` then
  ``setCurrentReceiverQueueSize(min(max, 2 * size))``. Unlike Go, the hint survives a
  refusal for memory.
- ``increaseAvailablePermits(delta)``: ``permits += delta``; if ``permits >= size / 2``
  (integer division, so a size-1 queue flushes every permit) send Flow(permits) if
  positive and reset to 0. ``messageProcessed`` adds one permit per dequeued message;
  ``setCurrentReceiverQueueSize`` adds ``new - old`` (negative on shrink).
- Shrink (``PulsarClientImpl.reduceConsumerReceiverQueueSize`` at 95 % memory):
  ``new = max(minReceiverQueueSize(), old / 2)`` when smaller.
- Partitioned topics: one ``ConsumerImpl`` per partition with maximum
  ``min(receiverQueueSize, maxTotalReceiverQueueSizeAcrossPartitions / numPartitions)``,
  drained into the parent's own queue by ``receiveMessageFromConsumer`` (``receiveAsync``
  per message, the 2.11 form); a child is paused when the parent holds
  ``>= size`` messages (or ``> size / 2`` while another child is paused) and all paused
  children resume when the parent drops to ``<= size / 2``.

Every method is O(1) except the pump, which is O(messages moved).
"""

from __future__ import annotations

from collections import deque

from trackerlab.models.receiver_queue.memory_limit import MemoryLimitController

# apache/pulsar pulsar-client/src/main/java/org/apache/pulsar/client/impl/*.java, read in
# stored versions (the repository is too large to fetch, so no line numbers): constants by
# name, the PR that introduced them (#14494, 2.11) and the stored file.
#: ``ConsumerBase.INITIAL_RECEIVER_QUEUE_SIZE`` (#14494).
INITIAL_RECEIVER_QUEUE_SIZE = 1
#: ``ConsumerBase.MEMORY_THRESHOLD_FOR_RECEIVER_QUEUE_SIZE_EXPANSION`` (#14494).
EXPANSION_MEMORY_THRESHOLD = 0.75
#: ``ConsumerConfigurationData.maxTotalReceiverQueueSizeAcrossPartitions`` default.
DEFAULT_MAX_TOTAL_RECEIVER_QUEUE_SIZE_ACROSS_PARTITIONS = 50000
#: ``BatchReceivePolicy.DEFAULT_POLICY = new BatchReceivePolicy(-1, 10 * 1024 * 1024, 100,
#: TimeUnit.MILLISECONDS)`` (pulsar-client-api BatchReceivePolicy.java, stored version).
DEFAULT_BATCH_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_BATCH_TIMEOUT_MS = 100.0


def partition_max_size(receiver_queue_size: int, max_total: int, partitions: int) -> int:
    """A partition consumer's maximum: ``min(receiverQueueSize, maxTotal / numPartitions)``."""
    if partitions <= 1:
        return receiver_queue_size
    return min(receiver_queue_size, max_total // partitions)


class _QueueBase:
    """State shared by ``ConsumerImpl`` and the multi-topics parent (``ConsumerBase``)."""

    __slots__ = (
        "auto",
        "batch_max",
        "batch_max_bytes",
        "expansions",
        "hint",
        "incoming",
        "max_size",
        "memory",
        "message_bytes",
        "partition",
        "shrinks",
        "size",
        "size_log",
    )

    def __init__(self, partition, max_size, *, auto, batch_max, memory, message_bytes, size_log):
        self.partition = partition
        self.auto = auto
        self.max_size = max_size
        self.batch_max = batch_max
        self.batch_max_bytes = DEFAULT_BATCH_MAX_BYTES
        self.memory = memory
        self.message_bytes = message_bytes
        self.size_log = size_log
        self.size = self.min_size() if auto else max_size
        self.incoming = 0
        self.hint = False
        self.expansions = 0
        self.shrinks = 0

    def min_size(self) -> int:  # pragma: no cover - overridden
        """``minReceiverQueueSize()`` (subclasses). O(1)."""
        raise NotImplementedError

    def set_size(self, new: int, now: int, shrinking: bool = False) -> None:  # pragma: no cover
        """``setCurrentReceiverQueueSize`` (subclasses). O(1)."""
        raise NotImplementedError

    def expect_more(self, now: int) -> None:
        """``expectMoreIncomingMessages``: double if the hint is set and memory < 75 %.
        O(1), plus the resumed drains of a multi-topics parent.
        """
        if not self.auto:
            return
        if self.memory.usage_percent() < EXPANSION_MEMORY_THRESHOLD and self.hint:
            self.hint = False
            new = min(self.max_size, self.size * 2)
            if new > self.size:
                self.expansions += 1
            self.set_size(new, now)

    def reduce(self, now: int) -> None:
        """``reduceCurrentReceiverQueueSize``: halve, not below ``minReceiverQueueSize()``. O(1)."""
        if not self.auto:
            return
        new = max(self.min_size(), self.size // 2)
        if new < self.size:
            self.shrinks += 1
            self.set_size(new, now, shrinking=True)

    def batch_take_count(self) -> int:
        """Messages a batch receive takes now (``MessagesImpl.canAdd``: count and bytes). O(1)."""
        n = self.incoming
        if self.batch_max > 0:
            n = min(n, self.batch_max)
        if self.batch_max_bytes > 0:
            n = min(n, max(1, self.batch_max_bytes // self.message_bytes))
        return n

    def has_enough_for_batch(self) -> bool:
        """``hasEnoughMessagesForBatchReceive`` (max messages or max bytes reached). O(1)."""
        if self.batch_max > 0 and self.incoming >= self.batch_max:
            return True
        return (
            self.batch_max_bytes > 0 and self.incoming * self.message_bytes >= self.batch_max_bytes
        )


class JavaConsumer(_QueueBase):
    """Flow-control state of one ``ConsumerImpl`` (a topic or one partition of it)."""

    __slots__ = ("flows", "pending", "permits")

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
        batch_max: int = -1,
    ):
        super().__init__(
            partition,
            max_size,
            auto=auto,
            batch_max=batch_max,
            memory=memory,
            message_bytes=message_bytes,
            size_log=size_log,
        )
        self.flows = flows
        self.permits = 0
        #: A ``receiveAsync`` of the multi-topics parent is waiting on this consumer.
        self.pending = False

    def min_size(self) -> int:
        """``ConsumerImpl.minReceiverQueueSize``: ``max(min(1, max), 2 * batchMax - 2)``. O(1)."""
        size = min(INITIAL_RECEIVER_QUEUE_SIZE, self.max_size)
        if self.batch_max > 0:  # "consumerImpl may store (half-1) permits locally"
            size = max(size, 2 * self.batch_max - 2)
        return size

    def connect(self) -> int:
        """``connectionOpened``: permits reset; the initial Flow asks for the current size. O(1)."""
        self.permits = 0
        return self.size

    def enqueue(self, k: int, now: int) -> None:
        """``k`` messages enqueued (closed form); the hint is updated after the last.
        O(1), plus O(triggers) when the memory threshold is crossed.
        """
        self.memory.force_reserve(k * self.message_bytes, now)
        self.incoming += k
        if self.auto:
            self.hint = self.permits + self.incoming >= self.size

    def take(self, now: int) -> int:
        """The application (or the parent) dequeues one message: ``messageProcessed``.

        Returns the partition the message came from.
        O(1).
        """
        self.incoming -= 1
        self.memory.release(self.message_bytes)
        self.increase_available_permits(1, now)
        return self.partition

    def take_many(self, k: int, now: int) -> None:
        """``k`` dequeues at one instant: ``messageProcessed`` each, so one Flow per
        ``size / 2`` permits (O(flows))."""
        self.incoming -= k
        self.memory.release(k * self.message_bytes)
        threshold = self.size // 2
        if threshold <= 0:  # size 1: every permit is flushed at once
            if self.permits < 0:  # negative permits (after a shrink) absorb returns first
                absorbed = min(k, -self.permits)
                self.permits += absorbed
                k -= absorbed
            self.flows.extend((now, self.partition, 1) for _ in range(k))
            if k:
                self.permits = 0
            return
        permits = self.permits + k
        while permits >= threshold:
            self.flows.append((now, self.partition, threshold))
            permits -= threshold
        self.permits = permits

    def to_flow(self) -> int:
        """Dequeues until the next Flow (at least 1). O(1)."""
        return max(1, self.size // 2 - self.permits)

    def complete_pending(self, now: int) -> None:
        """A message completes a pending ``receiveAsync`` without being enqueued. O(1)."""
        self.pending = False
        self.increase_available_permits(1, now)

    def increase_available_permits(self, delta: int, now: int) -> None:
        """``increaseAvailablePermits``: Flow when permits reach ``size / 2``. O(1)."""
        permits = self.permits + delta
        if permits >= self.size // 2:
            self.permits = 0
            if permits > 0:
                self.flows.append((now, self.partition, permits))
        else:
            self.permits = permits

    def set_size(self, new: int, now: int, shrinking: bool = False) -> None:
        """``setCurrentReceiverQueueSize``: new size, ``new - old`` permits. O(1)."""
        old = self.size
        self.size = new
        if new != old:
            self.size_log.append((now, self.partition, new))
        self.increase_available_permits(new - old, now)


class _ParentQueue(_QueueBase):
    """What every ``MultiTopicsConsumerImpl`` model shares: its minimum size and resizing.

    Subclasses keep ``children`` (a slot of their own) and define ``resume_if_needed``.
    """

    __slots__ = ()
    children: list[JavaConsumer]

    def min_size(self) -> int:
        """``MultiTopicsConsumerImpl.minReceiverQueueSize``: at least one per partition. O(1)."""
        size = min(INITIAL_RECEIVER_QUEUE_SIZE, self.max_size)
        if self.batch_max > 0:
            size = max(size, self.batch_max)
        return max(size, len(self.children))

    def set_size(self, new: int, now: int, shrinking: bool = False) -> None:
        """``setCurrentReceiverQueueSize``: new size, then resume paused children.

        A shrink (run from the memory trigger, possibly in the middle of a drain) leaves
        resumption to the next dequeue; a smaller size can only delay it.
        O(1), plus the drains it resumes.
        """
        if new != self.size:
            self.size_log.append((now, -1, new))
        self.size = new
        if not shrinking:
            self.resume_if_needed(now)

    def resume_if_needed(self, now: int) -> None:  # pragma: no cover - overridden
        """``resumeReceivingFromPausedConsumersIfNeeded`` (subclasses).
        O(paused children) plus their drains.
        """
        raise NotImplementedError


class JavaMultiTopicsConsumer(_ParentQueue):
    """The parent ``MultiTopicsConsumerImpl`` of a partitioned topic and its children.

    The parent's own queue has partition ``-1`` in ``size_log``. ``pump`` is
    ``receiveMessageFromConsumer`` run synchronously: the model executes the
    ``internalPinnedExecutor`` tasks at once, in the order Java queues them.
    """

    __slots__ = ("children", "order", "paused")

    def __init__(
        self,
        children: list[JavaConsumer],
        max_size: int,
        *,
        auto: bool,
        memory: MemoryLimitController,
        message_bytes: int,
        size_log: list,
        batch_max: int = -1,
    ):
        self.children = children
        self.paused: list[JavaConsumer] = []
        #: Partition of each queued message, as ``[partition, count]`` runs in queue order.
        self.order: deque[list[int]] = deque()
        super().__init__(
            -1,
            max(len(children), max_size),
            auto=auto,
            batch_max=batch_max,
            memory=memory,
            message_bytes=message_bytes,
            size_log=size_log,
        )

    def take(self, now: int) -> int:
        """The application dequeues one message from the parent queue; returns its partition.
        O(1), plus the drains it resumes.
        """
        run = self.order[0]
        if run[1] == 1:
            self.order.popleft()
        else:
            run[1] -= 1
        self.incoming -= 1
        self.memory.release(self.message_bytes)
        self.resume_if_needed(now)
        return run[0]

    def _enqueue_one(self, partition: int, now: int) -> None:
        order = self.order
        if order and order[-1][0] == partition:
            order[-1][1] += 1
        else:
            order.append([partition, 1])
        self.memory.force_reserve(self.message_bytes, now)
        self.incoming += 1
        if self.auto:
            self.hint = self.incoming >= self.size

    def _should_pause(self) -> bool:
        return self.incoming >= self.size or (self.incoming > self.size // 2 and bool(self.paused))

    def pump(self, child: JavaConsumer, now: int) -> None:
        """``receiveMessageFromConsumer`` until the child is empty (pending) or paused.
        O(messages moved).
        """
        while True:
            if child.incoming == 0:  # receiveAsync finds the child empty
                child.expect_more(now)
                child.pending = True
                return
            child.take(now)
            self._enqueue_one(child.partition, now)
            if self._should_pause():
                self.paused.append(child)
                return

    def child_arrival(self, child: JavaConsumer, k: int, now: int) -> None:
        """``k`` messages of one frame reach ``child``.

        The first completes the child's pending ``receiveAsync`` (not enqueued); the IO
        thread enqueues the rest before the parent's callback (``accept_from``) runs.
        O(messages moved).
        """
        if child.pending:
            child.complete_pending(now)
            if k > 1:
                child.enqueue(k - 1, now)
            self.accept_from(child, now)
        else:
            child.enqueue(k, now)

    def accept_from(self, child: JavaConsumer, now: int) -> None:
        """The ``receiveAsync`` callback: enqueue in the parent, then pause or keep draining.
        O(messages moved).
        """
        self._enqueue_one(child.partition, now)
        if self._should_pause():
            self.paused.append(child)
        else:
            self.pump(child, now)

    def resume_if_needed(self, now: int) -> None:
        """``resumeReceivingFromPausedConsumersIfNeeded``: at ``<= size / 2`` resume all.
        O(paused children) plus their drains.
        """
        if self.paused and self.incoming <= self.size // 2:
            resumed, self.paused = self.paused, []
            for child in resumed:
                self.pump(child, now)
