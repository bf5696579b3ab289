"""Java ``MultiTopicsConsumerImpl``: how a partitioned topic's parent drains its children.

Two versions, by the drain its ``receiveMessageFromConsumer`` uses:

- ``batch-receive`` (apache/pulsar #16336, merged 2022-07, released in 2.9.4 and 2.10.2;
  ``MultiTopicsConsumerImpl.java`` @ 003efdd7, ``startReceivingMessages`` and
  ``receiveMessageFromConsumer``): every child starts with ``batchReceiveAsync()``; after
  a non-empty list the parent asks again with ``batchReceiveAsync``, after an empty one
  with ``receiveAsync()`` (``receiveMessageFromConsumer(consumer, messages.size() > 0)``).
  The children are created from a clone of the parent's configuration
  (``getInternalConsumerConfig``), so they carry its ``BatchReceivePolicy`` — by default
  ``DEFAULT_POLICY`` = (-1 messages, 10 MiB, 100 ms). ``ConsumerImpl.internalBatchReceiveAsync``
  completes at once only if ``hasEnoughMessagesForBatchReceive`` (``ConsumerBase``: 10 MiB
  queued with the default policy); otherwise it calls ``expectMoreIncomingMessages``,
  parks an ``OpBatchReceive`` and arms the batch timeout, and an arriving message completes
  it only when it makes the batch "enough" (``executeNotifyCallback``:
  ``enqueueMessageAndCheckBatchReceive(message) && hasPendingBatchReceive()``). With the
  default policy a child is therefore drained once per 100 ms, whatever is queued then
  (``MessagesImpl.canAdd``: up to 10 MiB).
- ``receive-async`` (before #16336; the 2.11 form the first model of this project used):
  one ``receiveAsync()`` per message.

In both, the parent enqueues what it got (``messageReceived``; the hint is
``incoming >= size``), pauses the child when ``incoming >= size`` or ``incoming > size / 2``
while another child is paused, and resumes every paused child (with ``batchReceiveAsync``)
when the application brings the parent to ``<= size / 2``
(``resumeReceivingFromPausedConsumersIfNeeded``). The model runs the pinned executor's
tasks at once, in the order Java queues them: the rest of an entry is enqueued in the
child before the parent's callback for its first message runs.

O(1) per call plus O(flows) per drained batch.
"""

from __future__ import annotations

from collections import deque

from trackerlab.models.receiver_queue.java import (
    DEFAULT_BATCH_MAX_BYTES,
    DEFAULT_BATCH_TIMEOUT_MS,
    JavaConsumer,
    _ParentQueue,
)
from trackerlab.models.receiver_queue.memory_limit import MemoryLimitController

#: ``receiveMessageFromConsumer`` drains: #16336 (``batchReceiveAsync``) or before it.
DRAINS = ("batch-receive", "receive-async")
#: A child's outstanding request.
NONE, SINGLE, BATCH = range(3)


class MultiTopicsConsumer(_ParentQueue):
    """The parent queue of a partitioned topic and the drain of its ``ConsumerImpl`` children.

    ``arm_timeout(child, token, at_ns)`` is called when a child parks a batch receive; the
    caller later calls :meth:`batch_timeout` with the same token.
    """

    __slots__ = (
        "arm_timeout",
        "batch_policy",
        "children",
        "drain",
        "op",
        "order",
        "paused",
        "token",
    )

    def __init__(
        self,
        children: list[JavaConsumer],
        max_size: int,
        *,
        auto: bool,
        memory: MemoryLimitController,
        message_bytes: int,
        size_log: list,
        drain: str = "batch-receive",
        batch_max_messages: int = -1,
        batch_max_bytes: int = DEFAULT_BATCH_MAX_BYTES,
        batch_timeout_ms: float = DEFAULT_BATCH_TIMEOUT_MS,
        arm_timeout=None,
    ):
        self.children = children
        self.paused: list[JavaConsumer] = []
        self.order: deque[list[int]] = deque()  # [partition, count] runs in queue order
        self.drain = drain
        self.batch_policy = (batch_max_messages, batch_max_bytes, round(batch_timeout_ms * 1e6))
        self.op = [NONE] * len(children)
        self.token = [0] * len(children)
        self.arm_timeout = arm_timeout
        super().__init__(
            -1,
            max(len(children), max_size),
            auto=auto,
            batch_max=batch_max_messages,
            memory=memory,
            message_bytes=message_bytes,
            size_log=size_log,
        )
        for child in children:  # children inherit the parent's batch receive policy
            child.batch_max = batch_max_messages
            child.batch_max_bytes = batch_max_bytes

    # ------------------------------------------------------------------ parent queue

    def take_many(self, k: int, now: int) -> list[tuple[int, int]]:
        """The application dequeues ``k`` messages; returns ``(partition, count)`` runs.
        O(partition runs taken), plus the drains it resumes.
        """
        runs, order = [], self.order
        while k:
            run = order[0]
            n = min(k, run[1])
            runs.append((run[0], n))
            if n == run[1]:
                order.popleft()
            else:
                run[1] -= n
            k -= n
        taken = sum(n for _, n in runs)
        self.incoming -= taken
        self.memory.release(taken * self.message_bytes)
        self.resume_if_needed(now)
        return runs

    def _enqueue(self, partition: int, n: int, now: int) -> None:
        if n <= 0:
            return
        order = self.order
        if order and order[-1][0] == partition:
            order[-1][1] += n
        else:
            order.append([partition, n])
        self.memory.force_reserve(n * self.message_bytes, now)
        self.incoming += n
        if self.auto:
            self.hint = self.incoming >= self.size

    # ------------------------------------------------------------------ drain

    def start(self, now: int) -> None:
        """``startReceivingMessages``: every child's first request. O(children)."""
        for child in self.children:
            self.receive_from(child, True, now)

    def receive_from(self, child: JavaConsumer, batch: bool, now: int) -> None:
        """``receiveMessageFromConsumer(child, batch)`` and the callbacks it chains.

        Java chains them through ``thenAcceptAsync``; here a loop. Per-message
        ``receiveAsync`` moves are merged up to the next pause check that can fire.
        O(drain rounds + Flows).
        """
        q = child.partition
        while True:
            if batch and self.drain == "batch-receive":
                if not self._has_enough(child):
                    child.expect_more(now)
                    self.op[q] = BATCH
                    self.token[q] += 1
                    if self.arm_timeout is not None:
                        self.arm_timeout(q, self.token[q], now + self.batch_policy[2])
                    return
                n = self._take_batch(child, now)
            else:
                if not child.incoming:  # receiveAsync parks until the next message
                    child.expect_more(now)
                    self.op[q] = SINGLE
                    return
                limit = self.size if not self.paused else self.size // 2 + 1
                n = min(child.incoming, max(1, limit - self.incoming))
                child.take_many(n, now)
            if self._deliver(child, n, now):
                return
            batch = n > 0

    def _has_enough(self, child: JavaConsumer) -> bool:
        """``hasEnoughMessagesForBatchReceive`` with the child's (inherited) policy."""
        max_messages, max_bytes, _ = self.batch_policy
        if max_messages <= 0 and max_bytes <= 0:
            return False
        return (max_messages > 0 and child.incoming >= max_messages) or (
            max_bytes > 0 and child.incoming * self.message_bytes >= max_bytes
        )

    def _take_batch(self, child: JavaConsumer, now: int) -> int:
        """``notifyPendingBatchReceivedCallBack``: poll while ``MessagesImpl.canAdd``."""
        max_messages, max_bytes, _ = self.batch_policy
        n = child.incoming
        if max_messages > 0:
            n = min(n, max_messages)
        if max_bytes > 0:
            n = min(n, max(1, max_bytes // self.message_bytes))
        if n:
            child.take_many(n, now)
        self.op[child.partition] = NONE
        return n

    def _deliver(self, child: JavaConsumer, n: int, now: int) -> bool:
        """The parent's callback: enqueue ``n``; True if the child was paused."""
        self._enqueue(child.partition, n, now)
        if self.incoming >= self.size or (self.incoming > self.size // 2 and self.paused):
            self.paused.append(child)
            self.resume_if_needed(now)
            return True
        return False

    def child_arrival(self, child: JavaConsumer, k: int, now: int) -> None:
        """``k`` messages of one entry reach ``child`` (the IO thread, then the executor).
        O(drain rounds + Flows).
        """
        q = child.partition
        if self.op[q] == SINGLE:  # the first message completes receiveAsync, unqueued
            self.op[q] = NONE
            child.complete_pending(now)
            if k > 1:
                child.enqueue(k - 1, now)
            if not self._deliver(child, 1, now):
                self.receive_from(child, True, now)
            return
        child.enqueue(k, now)
        if self.op[q] == BATCH and self._has_enough(child):
            self._after_batch(child, now)

    def batch_timeout(self, q: int, token: int, now: int) -> None:
        """The batch receive timeout: complete with whatever the child holds (maybe none).
        O(drain rounds + Flows).
        """
        if self.op[q] != BATCH or self.token[q] != token:
            return
        self._after_batch(self.children[q], now)

    def _after_batch(self, child: JavaConsumer, now: int) -> None:
        """A parked batch receive completes: deliver, then ask again unless paused."""
        n = self._take_batch(child, now)
        if not self._deliver(child, n, now):
            self.receive_from(child, n > 0, now)

    def resume_if_needed(self, now: int) -> None:
        """``resumeReceivingFromPausedConsumersIfNeeded``: at ``<= size / 2`` resume all.
        O(paused children) plus their drains.
        """
        if self.paused and self.incoming <= self.size // 2:
            resumed, self.paused = self.paused, []
            for child in resumed:
                self.receive_from(child, True, now)
