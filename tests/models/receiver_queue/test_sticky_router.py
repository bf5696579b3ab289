"""Go's default router with batching (sticky) and without (round-robin), by hand."""

from __future__ import annotations

from trackerlab.models.receiver_queue.sticky_router import StickyRouter

MS = 1_000_000


def router(partitions=3, start=7, age_ns=0.0, batching=True, payload=128):
    return StickyRouter(
        partitions, start, -age_ns, payload, 1000, 128 * 1024, 10 * MS, batching=batching
    )


def route(r: StickyRouter, times: list[float]) -> list[int]:
    out = []
    for t in times:
        if r.plain_run() == 0:
            out.append(r.decide(t))
        else:
            r.advance(1)
            out.append(r.partition)
    return out


def test_slow_producer_stays_100_messages_on_the_random_start():
    """1 msg/s: the clock is read at the 100th message only; 7 % 3 = 1 for 100 s."""
    r = router()
    got = route(r, [i * 1e9 for i in range(250)])
    assert got[:99] == [1] * 99  # counts 1..99, no clock read
    assert got[99:199] == [2] * 100  # the 100th switches (99 s > 10 ms) and lands on 2
    assert got[199:] == [0] * 51
    assert r.switches == 2


def test_burst_switches_at_the_count_limit_not_the_clock():
    """A start-up burst at t = 0 with a fresh router: no 100th-message clock read sees more
    than 10 ms, so the 1001st message (count > 1000) moves on."""
    r = router(age_ns=0.0)
    got = route(r, [0.0] * 1000 + [1 * MS] * 5)
    assert set(got[:1000]) == {1} and got[1000:] == [2] * 5


def test_old_router_switches_at_the_100th_message():
    """Created 20 ms before the first send: the 100th message reads 20 ms > 10 ms."""
    r = router(age_ns=20 * MS)
    got = route(r, [0.0] * 150)
    assert got[:99] == [1] * 99 and got[99:] == [2] * 51


def test_byte_limit_switches_large_payloads():
    """1 KiB payloads: the 100th message reads the clock (0 ms, stays); 129 KiB > 128 KiB
    at the 129th message moves on."""
    r = router(payload=1024)
    assert r.plain_run() == 99  # the 100th is a decision (a clock read)
    got = route(r, [0.0] * 130)
    assert got[:128] == [1] * 128 and got[128:] == [2, 2]


def test_without_batching_plain_round_robin_from_the_start():
    r = router(batching=False, start=4)
    assert route(r, [0.0] * 5) == [1, 2, 0, 1, 2]


def test_one_partition_is_always_zero():
    r = router(partitions=1)
    assert r.plain_run() > 10**12 and r.decide(0.0) == 0
