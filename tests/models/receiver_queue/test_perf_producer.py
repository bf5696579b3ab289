"""The Go perf producer's entries against traces computed by hand."""

from __future__ import annotations

import pytest

from trackerlab.models.receiver_queue.perf_producer import (
    ProducerTiming,
    _tick_latencies,
    perf_producer,
)

MS = 1_000_000
S = 1_000_000_000


def timing(partitions=1, phase_ms=3.0, start=0, ready_ms=0.5, receipt_ms=1.0, **kw):
    return ProducerTiming(
        tuple(phase_ms * MS for _ in range(partitions)),
        start,
        0.0,
        ready_ms * MS,
        receipt_ms * MS,
        **kw,
    )


def test_five_per_second_burst_then_singles():
    """-r 5: five sends at 0 flushed by the 3 ms tick, then one per 200 ms, each flushed
    at the next tick (x03 ms); entries readable 0.5 ms after their flush."""
    e = perf_producer(5, 1, 1 * S, 128, timing())
    assert e.messages == [[5, 1, 1, 1, 1]]
    assert e.ready_ns == [[3_500_000, 203_500_000, 403_500_000, 603_500_000, 803_500_000]]
    assert e.produced == 9 and e.blocked_sends == 0


def test_thousand_per_second_full_batch_then_ticks():
    """-r 1000: the 1000-token burst fills a batch at 950 messages (flushed at once, the
    951st does not fit), 50 + the sends at 1 and 2 ms go at the 3 ms tick, then 10 per tick
    (a send at 3 ms itself waits: the tick runs first); the last 7 at the final tick."""
    e = perf_producer(1000, 1, 20 * MS, 128, timing())
    assert e.messages == [[950, 52, 10, 7]]
    assert e.ready_ns[0][:3] == [500_000, 3_500_000, 13_500_000]
    assert e.entry_bytes[0][0] == 128 * 137 + 822 * 138
    assert e.produced == 1019


def test_semaphore_blocks_the_loop_until_a_receipt():
    """Receipts 2.5 ms after a flush: 950 flushed + 50 open = 1000 pending, so the send
    at 1 ms blocks until 2.5 ms; the 2 ms token leaves at 2.5 ms as well."""
    e = perf_producer(1000, 1, 20 * MS, 128, timing(receipt_ms=2.5))
    assert e.blocked_sends == 1
    assert e.messages == [[950, 52, 10, 7]]


def test_pending_limit_within_one_batch_hangs_the_producer():
    """MaxPendingMessages 5 with 1000-message batches: the 6th send waits for a receipt
    that only the blocked loop's tick could cause."""
    e = perf_producer(100, 1, 1 * S, 128, timing(), max_pending=5)
    assert e.hung_at_ns == 0.0 and e.produced == 5 and e.messages == [[5]]


def test_sticky_router_feeds_one_partition_at_one_per_second():
    e = perf_producer(1, 3, 60 * S, 128, timing(partitions=3, start=1))
    assert [len(m) for m in e.messages] == [0, 60, 0]
    assert e.router_switches == 0


def test_sticky_router_moves_every_100_messages_at_ten_per_second():
    """-r 10 for 30 s: 309 sends (burst of 10, then 0.1 s apart). The start partition 0
    takes counts 1..99; the 100th reads the clock and moves to 1 uncounted (then 99 more),
    likewise to 2; the last 10 go back to 0: 99 + 10, 100, 100."""
    e = perf_producer(10, 3, 30 * S, 128, timing(partitions=3))
    assert [sum(m) for m in e.messages] == [109, 100, 100]
    assert e.messages[0][0] == 10  # the start-up burst is one entry


def test_disable_batching_sends_each_message_alone_round_robin():
    e = perf_producer(10, 3, 1 * S, 128, timing(partitions=3, start=2), batching=False)
    # 19 sends; send k goes to (2 + k) % 3: partition 2 takes k = 0, 3, ..., 18
    assert [len(m) for m in e.messages] == [6, 6, 7]
    assert e.messages[2][0] == 1
    assert e.ready_ns[2][:2] == [500_000, 500_000]  # both burst sends at 0, flushed at once


def test_tick_latency_shifts_each_flush_by_its_drawn_delay():
    t = timing(tick_latency_ns=2 * MS, seed=3)
    delays = _tick_latencies(t, 0, 1 * S, 10 * MS)
    e = perf_producer(100, 1, 1 * S, 128, t)
    # the burst (100 at t = 0) waits for tick 0 (3 ms) plus its delay
    assert e.ready_ns[0][0] == round(3 * MS + delays[0] + 0.5 * MS)
    assert sum(e.messages[0]) == e.produced == 199
    exact = perf_producer(100, 1, 1 * S, 128, timing())
    assert set(exact.messages[0][1:]) == {1}  # an exact ticker: one message per tick
    assert max(e.messages[0][1:]) >= 2  # late ticks gather two


@pytest.mark.parametrize("limiter", ["token-bucket", "window"])
def test_every_message_is_in_exactly_one_entry(limiter):
    e = perf_producer(1000, 3, 5 * S, 128, timing(partitions=3), limiter=limiter)
    assert sum(sum(m) for m in e.messages) == e.produced
    for ready in e.ready_ns:
        assert ready == sorted(ready)
