"""The Exclusive dispatcher and its cursor against traces computed by hand (ms)."""

from __future__ import annotations

from trackerlab.models.receiver_queue.dispatcher import DELAYED, IDLE, WAITING, Dispatcher

MS = 1_000_000


def dispatcher(ready_ms, messages, entry_bytes=None, read_us=20):
    events = []
    d = Dispatcher(
        [round(r * MS) for r in ready_ms],
        messages,
        entry_bytes or [100 * n for n in messages],
        lambda t, kind, a, b: events.append((t / MS, kind, a, b)),
        read_ns=read_us * 1000,
    )
    return d, events


def test_whole_entries_permits_negative_and_the_fixed_read_count():
    d, ev = dispatcher([10, 20, 30], [5, 1, 1])
    d.flow(1, 0)  # nothing written yet: wait 10 ms before looking again
    assert ev == [(10.0, "recheck", 1, 0)] and d.state == DELAYED and d.pending
    d.flow(3, 5 * MS)  # a Flow during the pending read only adds permits
    assert d.permits == 4 and len(ev) == 1
    d.recheck(1, 10 * MS)  # entry 0 is there; the read keeps the count it had: 1 entry
    assert ev[-1] == (10.02, "read", 0, 1)
    assert d.read_done(0, 1, round(10.02 * MS)) == 5  # whole entry: 5 messages
    assert d.permits == -1 and not d.pending and d.state == IDLE  # negative: no new read
    d.flow(2, 12 * MS)  # permits 1: read; entry 1 is written at 20 ms -> re-check at 22
    assert ev[-1] == (22.0, "recheck", 2, 0)
    d.recheck(2, 22 * MS)
    assert ev[-1] == (22.02, "read", 1, 1)


def test_entries_written_during_the_delay_wait_for_the_recheck():
    d, ev = dispatcher([1, 2, 3], [1, 1, 1])
    d.flow(10, 0)
    assert ev == [(10.0, "recheck", 1, 0)]
    d.recheck(1, 10 * MS)  # all three were written meanwhile; read together
    assert ev[-1] == (10.02, "read", 0, 3)


def test_waiting_cursor_is_notified_at_the_next_write():
    d, ev = dispatcher([25], [1])
    d.flow(1, 0)
    d.recheck(1, 10 * MS)  # still nothing: register as waiting, notified at 25 ms
    assert d.state == WAITING and ev[-1] == (25.0, "notify", 1, 0)
    d.notify(1, 25 * MS)
    assert ev[-1] == (25.02, "read", 0, 1)
    d.notify(1, 25 * MS)  # stale tokens do nothing
    d.recheck(1, 30 * MS)
    assert len(ev) == 3


def test_read_batch_size_and_read_bytes_cap_a_read():
    d, ev = dispatcher([0] * 150, [1] * 150)
    d.flow(1000, 1 * MS)
    assert ev[-1] == (1.02, "read", 0, 100)  # min(permits, dispatcherMaxReadBatchSize)
    big, ev2 = dispatcher([0, 0, 0], [1, 1, 1], entry_bytes=[3 << 20] * 3)
    big.flow(10, 1 * MS)
    assert ev2[-1] == (1.02, "read", 0, 1)  # two would pass dispatcherMaxReadSizeBytes


def test_next_read_follows_the_dispatch_at_once():
    d, ev = dispatcher([0, 0, 5], [2, 2, 2])
    d.flow(3, 1 * MS)
    assert ev[-1] == (1.02, "read", 0, 2)
    d.read_done(0, 2, round(1.02 * MS))  # permits 3 - 4 = -1: no read
    assert d.permits == -1 and len(ev) == 1
    d.flow(1, 2 * MS)  # 0 permits: still nothing
    assert len(ev) == 1
    d.flow(1, 3 * MS)  # 1 permit: entry 2 not written (5 ms) -> delay
    assert ev[-1] == (13.0, "recheck", 1, 0)


def test_read_bytes_count_64_bytes_of_overhead_per_entry():
    """5 MiB = two entries of 2,621,408 B plus 64 B each; 1 B more and only one fits."""
    exact, ev = dispatcher([0, 0, 0], [1, 1, 1], entry_bytes=[(5 << 20) // 2 - 64] * 3)
    exact.flow(10, 1 * MS)
    assert ev[-1] == (1.02, "read", 0, 2)
    over, ev2 = dispatcher([0, 0, 0], [1, 1, 1], entry_bytes=[(5 << 20) // 2 - 63] * 3)
    over.flow(10, 1 * MS)
    assert ev2[-1] == (1.02, "read", 0, 1)


def shared_dispatcher(ready_ms, messages):
    events = []
    d = Dispatcher(
        [round(r * MS) for r in ready_ms],
        messages,
        [100 * n for n in messages],
        lambda t, kind, a, b: events.append((t / MS, kind, a, b)),
        read_ns=20_000,
        shared=True,
    )
    return d, events


def test_shared_gives_whole_entries_up_to_the_permits_and_keeps_the_rest():
    """Shared: 25 permits read 25 entries of 10 (avg 10). Turns of getMaxEntriesInThisBatch:
    ceil(25 / 10) = 3 entries, so the permits end at -5. The other 22 entries wait for a
    replay read; the cursor goes back to entry 3."""
    d, ev = shared_dispatcher([0] * 30, [10] * 30)
    d.flow(25, 1 * MS)
    assert ev[-1] == (1.02, "read", 0, 25)
    assert d.read_done(0, 25, round(1.02 * MS)) == 30
    assert (d.sent_entries, d.permits, d.cursor) == (3, -5, 3)
    d.flow(6, 2 * MS)  # 1 permit: the replay read starts at entry 3; one entry, -9
    assert ev[-1] == (2.02, "read", 3, 1)
    assert d.read_done(3, 1, round(2.02 * MS)) == 10 and d.permits == -9


def test_shared_with_a_partial_batch_averages_down_and_overshoots_more():
    """20 entries of 10, then two of 1: avgBatchSizePerMsg = 202 // 22 = 9. With 172 permits
    one turn gives ceil(172 / 9) = 20 entries = 200 messages: 28 past the permits, more than
    one entry's 9 (overshoot.queue_peak with read_avg_messages_per_entry=9)."""
    d, ev = shared_dispatcher([0] * 22, [10] * 20 + [1, 1])
    d.flow(172, 1 * MS)
    assert ev[-1] == (1.02, "read", 0, 22)
    assert d.read_done(0, 22, round(1.02 * MS)) == 200
    assert (d.sent_entries, d.permits, d.cursor) == (20, -28, 20)
