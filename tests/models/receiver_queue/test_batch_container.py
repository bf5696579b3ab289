"""How many 128-byte messages a Go batch holds, computed by hand from the wire format."""

from __future__ import annotations

import pytest

from trackerlab.models.receiver_queue.batch_container import (
    BatchContainer,
    message_bytes_in_batch,
    varint_len,
)


def test_bytes_per_message():
    """4-byte size + metadata (payload_size: 1 + 2, sequence_id: 1 + varint) + payload."""
    assert message_bytes_in_batch(128, 0) == 4 + 3 + 2 + 128 == 137
    assert message_bytes_in_batch(128, 128) == 138
    assert message_bytes_in_batch(128, 16384) == 139
    assert [varint_len(v) for v in (0, 127, 128, 16383, 16384)] == [1, 1, 2, 2, 3]


def test_first_batch_holds_950_messages():
    """128 x 137 = 17,536 B, then 138 B each: after n messages the next fits while
    17,536 + 138 (n - 128) + 128 <= 131,072, i.e. n <= 949.98: 950 messages."""
    b = BatchContainer(128, 1000, 128 * 1024)
    assert b.room(2000) == 950
    b.add(950)
    assert b.buffer == 17_536 + 138 * 822 and b.room(1) == 0
    assert b.flush() == 950 and b.room(1) == 1


def test_later_batches_hold_943():
    """Sequence ids past 16,384 take 139 B: 139 n + 128 <= 131,072 -> n = 942 + 1."""
    b = BatchContainer(128, 1000, 128 * 1024)
    b.add(20_000)
    b.flush()
    assert b.room(2000) == 943


@pytest.mark.parametrize(("payload", "expected"), [(100, 1000), (1024, 126), (200_000, 1)])
def test_count_limit_and_oversized_first_message(payload, expected):
    """Small payloads stop at 1000 messages; 1 KiB ones at 1033 n + 1024 <= 131,072 (126);
    the first message always fits."""
    assert BatchContainer(payload, 1000, 128 * 1024).room(5000) == expected


def test_room_equals_one_by_one():
    b1, b2 = BatchContainer(128, 1000, 128 * 1024), BatchContainer(128, 1000, 128 * 1024)
    b1.add(100)
    b2.add(100)
    n = 0
    while b2.room(1):
        b2.add(1)
        n += 1
    assert b1.room(10_000) == n
