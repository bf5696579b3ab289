"""Go producer batching: how many messages one batch entry holds (``batchContainer``).

``pulsar/internal/batch_builder.go`` @ b8563cd8: ``hasSpace`` (:164-173) accepts a message
when ``numMessages + 1 <= maxMessages`` and ``buffer.ReadableBytes() + len(payload) <=
maxBatchSize`` (and ``<= maxMessageSize``); the first message always fits (:165-167).
Each added message writes ``[uint32 metadata size][SingleMessageMetadata][payload]``
(``internal/commands.go:239-251``). The perf producer's metadata holds ``payload_size``
(field 3) and ``sequence_id`` (field 8) only (``producer_partition.go:743-772``: no event
time, key, ordering key or properties), so one message takes
``4 + (1 + varint(payload)) + (1 + varint(seq)) + payload`` bytes. Sequence ids start at
``lastSequenceId + 1`` = 0 for a new producer (``producer_partition.go:275-277``).

With 128-byte payloads and the 128 KiB limit a batch holds at most 943-970 messages
(a full 1000 needs payloads of at most 125 bytes). O(1) per call (varint lengths change
at 2^7, 2^14, 2^21, 2^28).
"""

from __future__ import annotations

#: ``defaultMaxMessagesPerBatch`` (producer_impl.go:44 @ b8563cd8).
DEFAULT_MAX_MESSAGES = 1000
#: ``defaultMaxBatchSize = 128 * 1024`` (producer_impl.go:41 @ b8563cd8).
DEFAULT_MAX_BYTES = 128 * 1024
#: ``defaultBatchingMaxPublishDelay = 10 * time.Millisecond`` (producer_impl.go:38); ``-b 0``
#: becomes this delay (producer_impl.go:90-92; producer_partition.go:131-136).
DEFAULT_MAX_DELAY_MS = 10.0
#: Broker ``maxMessageSize`` default 5 MiB (``Commands.DEFAULT_MAX_MESSAGE_SIZE``): the
#: ``bc.maxMessageSize`` bound of ``hasSpace``.
MAX_MESSAGE_BYTES = 5 * 1024 * 1024
#: Bytes of the ``uint32`` metadata-size prefix (commands.go:241).
SIZE_PREFIX = 4


def varint_len(value: int) -> int:
    """Bytes of a protobuf varint (non-negative ``value``)."""
    return (value.bit_length() + 6) // 7 or 1


def message_bytes_in_batch(payload: int, seq: int) -> int:
    """Buffer bytes one message adds to the batch (prefix, metadata, payload)."""
    return SIZE_PREFIX + 1 + varint_len(payload) + 1 + varint_len(seq) + payload


class BatchContainer:
    """One partition producer's open batch: messages, buffer bytes, next sequence id.

    ``step`` and ``boundary`` cache the bytes per message and the sequence id at which the
    varint length (and so ``step``) next changes.
    """

    __slots__ = (
        "boundary",
        "buffer",
        "max_bytes",
        "max_messages",
        "messages",
        "payload",
        "seq",
        "step",
    )

    def __init__(self, payload: int, max_messages: int, max_bytes: int):
        self.payload = payload
        self.max_messages = max_messages
        self.max_bytes = min(max_bytes, MAX_MESSAGE_BYTES)
        self.messages = 0
        self.buffer = 0
        self.seq = 0
        self.step = message_bytes_in_batch(payload, 0)
        self.boundary = 1 << 7

    def room(self, want: int) -> int:
        """How many of the next ``want`` messages fit in the open batch (``hasSpace``).
        O(1): at most one step per varint-length boundary crossed.
        """
        n, buf = self.messages, self.buffer
        payload, max_bytes = self.payload, self.max_bytes
        if want == 1:  # the common question: does one more fit?
            return int(n == 0 or (n < self.max_messages and buf + payload <= max_bytes))
        seq, step, boundary = self.seq, self.step, self.boundary
        fit = 0
        if n == 0:  # the first message always fits
            fit, n, buf, seq = 1, 1, buf + step, seq + 1
        while fit < want:
            if seq >= boundary:
                step = message_bytes_in_batch(payload, seq)
                boundary = 1 << (7 * varint_len(seq))
            # message i of the block fits while buf + i * step + payload <= max_bytes
            block = min(
                want - fit,
                boundary - seq,
                self.max_messages - n,
                (max_bytes - payload - buf) // step + 1,
            )
            if block <= 0:
                break
            fit += block
            n += block
            buf += block * step
            seq += block
        return fit

    def add(self, count: int) -> None:
        """Append ``count`` messages (the caller checked :meth:`room`).
        O(1) per varint-length boundary crossed.
        """
        seq, step, boundary, left = self.seq, self.step, self.boundary, count
        while left:
            if seq >= boundary:
                step = message_bytes_in_batch(self.payload, seq)
                boundary = 1 << (7 * varint_len(seq))
            block = left if left < boundary - seq else boundary - seq
            self.buffer += block * step
            seq += block
            left -= block
        self.seq, self.step, self.boundary = seq, step, boundary
        self.messages += count

    def flush(self) -> int:
        """Close the batch (one entry on the wire); return its message count. O(1)."""
        n = self.messages
        self.messages = 0
        self.buffer = 0
        return n
