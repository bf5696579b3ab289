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
