"""The overshoot of whole batch entries: hand-computed peaks, the closed form against every
permit level, and the rules against Pulsar's own numbers."""

from __future__ import annotations

import itertools

import pytest

from trackerlab.core.errors import UsageError
from trackerlab.models.receiver_queue.overshoot import (
    EXCLUSIVE,
    SHARED,
    SUBSCRIPTION_TYPES,
    dispatched_messages,
    entries_within_read_bytes,
    queue_peak,
    read_entries,
    shared_turn_entries,
)

KIB = 1024
MIB = 1024 * KIB


def test_hand_computed_peaks():
    """receiverQueueSize 1000, 1 KiB messages.

    Shared, entries of 10: one permit left still brings a whole entry. 1 - 10 = -9 permits,
    so 999 + 10 = 1009 messages.
    Exclusive, entries of 10 (10,240 B + 64 B each, 509 fit in 5 MiB): 100 permits read 100
    entries = 1,000 messages on top of the 900 held: 1,900.
    Exclusive, entries of 100 (102,400 + 64 B): only 5,242,880 // 102,464 = 51 fit in 5 MiB,
    so 1000 - 51 + 51 * 100 = 6,049.
    Exclusive, queue 50: all 50 permits read 50 entries of 10: 500.
    Entries of one message never pass the permits: 1000."""
    assert queue_peak(1000, 10, KIB, subscription_type=SHARED).messages == 1009
    assert queue_peak(1000, 10, KIB, subscription_type=SHARED).bytes == 1009 * KIB
    assert queue_peak(1000, 10, KIB, subscription_type=EXCLUSIVE).messages == 1900
    assert entries_within_read_bytes(100 * KIB) == 51
    peak = queue_peak(1000, 100, KIB, subscription_type=EXCLUSIVE)
    assert (peak.messages, peak.permits, peak.entries) == (6049, 51, 51)
    assert peak.bytes == 6049 * KIB and peak.overshoot_messages == 5049
    assert queue_peak(50, 10, KIB, subscription_type=EXCLUSIVE).messages == 500
    assert queue_peak(1000, 100, KIB, subscription_type=SHARED).messages == 1099
    for sub in SUBSCRIPTION_TYPES:
        assert queue_peak(1000, 1, KIB, subscription_type=sub).messages == 1000


def test_a_partial_batch_lowers_the_shared_average_and_lets_more_through():
    """avgBatchSizePerMsg is an integer: 20 full entries of 10 and two of 1 average
    202 // 22 = 9, so a consumer with 172 permits gets ceil(172 / 9) = 20 entries = 200
    messages, 28 past its permits (not 9)."""
    assert shared_turn_entries(202, 172, 9) == 20
    assert dispatched_messages(172, 10, read_avg_messages_per_entry=9) == 200
    peak = queue_peak(1000, 10, KIB, read_avg_messages_per_entry=9)
    assert (peak.messages, peak.permits, peak.entries) == (1028, 172, 20)


@pytest.mark.parametrize("subscription_type", SUBSCRIPTION_TYPES)
def test_closed_form_is_the_maximum_over_every_permit_level(subscription_type):
    """queue_peak looks at a few permit levels. Trying every p in 1..queue_size gives the
    same answer."""
    for queue, batch, avg, read_batch, entry_bytes in itertools.product(
        [1, 2, 5, 19, 50, 173, 400],
        [1, 2, 3, 9, 10, 27],
        [None, 1, 2, 8],
        [1, 7, 100],
        [None, 2 * MIB, 60 * KIB],
    ):
        if avg is not None and avg > batch:
            continue
        peak = queue_peak(
            queue,
            batch,
            1,
            subscription_type=subscription_type,
            read_batch_size=read_batch,
            entry_bytes=entry_bytes,
            read_avg_messages_per_entry=avg,
        )
        limit = entries_within_read_bytes(batch if entry_bytes is None else entry_bytes)
        brute = max(
            queue
            - p
            + dispatched_messages(
                p,
                batch,
                subscription_type=subscription_type,
                read_batch_size=read_batch,
                read_limit_entries=limit,
                read_avg_messages_per_entry=avg,
            )
            for p in range(1, queue + 1)
        )
        assert peak.messages == brute, (queue, batch, avg, read_batch, entry_bytes)


def test_the_rules_are_pulsars():
    """calculateToRead asks for min(permits, 100) entries. The cursor's estimate counts 64 B
    per entry, and always allows at least one. getMaxEntriesInThisBatch gives at most 20
    entries and at least 1."""
    assert read_entries(1) == 1 and read_entries(99) == 99 and read_entries(5000) == 100
    assert read_entries(50, read_batch_size=7) == 7
    assert (
        entries_within_read_bytes(5 * MIB) == 1 and entries_within_read_bytes(1) == 80659
    )  # 5 MiB // 65
    assert shared_turn_entries(1000, 5000, 10) == 20  # dispatcherMaxRoundRobinBatchSize
    assert shared_turn_entries(1000, 1, 10) == 1 and shared_turn_entries(0, 0, 10) == 1
    assert shared_turn_entries(1000, 41, 10) == 5  # ceil(41 / 10)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"queue_size": 0}, "queue_size must be an integer >= 1, got 0"),
        ({"batch_messages": 0}, "batch_messages must be an integer >= 1"),
        ({"message_bytes": -1}, "message_bytes must be an integer >= 1"),
        ({"subscription_type": "failover"}, "unknown subscription_type 'failover'"),
        (
            {"read_avg_messages_per_entry": 11},
            "read_avg_messages_per_entry must be an integer in 1..10",
        ),
        ({"max_read_bytes": 0}, "max_read_bytes must be an integer >= 1"),
    ],
)
def test_bad_input_names_the_parameter_and_range(kwargs, needle):
    args = {"queue_size": 1000, "batch_messages": 10, "message_bytes": 1024, **kwargs}
    with pytest.raises(UsageError, match="^" + needle.replace("(", r"\(").replace(")", r"\)")):
        queue_peak(
            args.pop("queue_size"), args.pop("batch_messages"), args.pop("message_bytes"), **args
        )
