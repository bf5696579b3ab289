"""The perf producer's limiters against traces computed by hand."""

from __future__ import annotations

import pytest

from trackerlab.models.receiver_queue.token_bucket import (
    NS,
    SlidingWindow,
    TokenBucket,
    make_limiter,
)

MS = 1_000_000


def sends(limiter, count: int) -> list[float]:
    """``count`` sends of the perf loop (Wait, then SendAsync at once), one by one."""
    times, caller = [], 0.0
    for _ in range(count):
        t = limiter.act_ns(caller, 0)
        limiter.take(caller, 1)
        times.append(t)
        caller = t
    return times


def test_bucket_starts_full_then_paces():
    """rate.NewLimiter(Every(1s/5), 5): five sends at 0, then one every 200 ms."""
    times = sends(TokenBucket(5, 5), 8)
    assert times == [0, 0, 0, 0, 0, 200 * MS, 400 * MS, 600 * MS]


def test_bucket_run_closed_form_equals_one_by_one():
    one = sends(TokenBucket(1000, 1000), 1500)
    run = TokenBucket(1000, 1000)
    assert [run.act_ns(0.0, j) for j in range(1500)] == one
    assert run.sends_before(0.0, 1 * MS) == 1000  # the burst; the 1001st acts at 1 ms
    assert run.sends_before(0.0, 1 * MS + 1) == 1001
    assert run.sends_before(0.0, 0.0) == 0


def test_bucket_refills_while_the_loop_is_blocked():
    """Sent at 1 ms on an empty bucket, the loop blocks until 5 ms (semaphore): four
    tokens have come back, so four sends leave at 5 ms, the fifth at 6 ms."""
    lim = TokenBucket(1000, 1000)
    lim.take(0.0, 1000)  # the start-up burst
    assert lim.act_ns(0.0, 0) == 1 * MS
    lim.take(0.0, 1)  # sent at 1 ms, then blocked until 5 ms
    caller = 5.0 * MS
    assert [lim.act_ns(caller, j) for j in range(5)] == [5 * MS] * 4 + [6 * MS]


def test_interval_is_truncated_to_whole_nanoseconds():
    """rate.Every(time.Duration(1e9 / 3)) = 333,333,333 ns."""
    assert TokenBucket(3, 3).interval == 333_333_333


def test_window_limiter_sends_rate_plus_one_per_second():
    """Pre-#989: rate + 1 sends at start (channel of rate + the drainer's), then bursts."""
    times = sends(SlidingWindow(3), 10)
    assert times == [0, 0, 0, 0, NS, NS, NS, NS, 2 * NS, 2 * NS]
    assert isinstance(make_limiter("window", 3), SlidingWindow)
    assert SlidingWindow(3).sends_before(0.0, 1.0) == 4


@pytest.mark.parametrize("rate", [1, 7, 1000])
def test_window_run_equals_one_by_one(rate):
    one = sends(SlidingWindow(rate), 3 * rate + 2)
    lim = SlidingWindow(rate)
    assert [lim.act_ns(0.0, j) for j in range(3 * rate + 2)] == one
