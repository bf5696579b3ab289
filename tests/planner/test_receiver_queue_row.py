"""``plan``'s receiver-queue row and ``simulate receiver-queue`` agree on the overshoot of
whole batch entries. Both use trackerlab.models.receiver_queue.overshoot: the plan through its
closed form, the simulation through the dispatcher rules that the closed form is built from.

How close the two must be. The row is the most a full queue can hold. A run reaches it only
when a read starts with ``p`` permits, ``p = 1 (mod batch)`` for Shared, and the
application takes nothing while those entries arrive. Otherwise it falls short by the
permits' residue, which is less than one entry (``batch - 1`` messages). Here every entry is
full: the batching delay is longer than the run, so no timer flush happens, and the seed
(ticker phases, router start) changes nothing. The tests check that by running three seeds.
receiverQueueSize 1000 is 1 (mod 9) and 1 (mod 27), so the first Flow reaches the bound.
"""

from __future__ import annotations

import pytest

from trackerlab.models.receiver_queue import HarnessConfig, simulate
from trackerlab.models.receiver_queue.overshoot import EXCLUSIVE, SHARED, queue_peak
from trackerlab.planner.memory_plan import plan
from trackerlab.planner.workload import PlanWorkload

KIB = 1024


def row(**values):
    w = PlanWorkload.parse(values)
    return w, next(r for r in plan(w).rows if r.tracker == "receiver queue")


def run(queue, batch, *, subscription_type=SHARED, seed=0, **changes):
    """One Java consumer with a fixed queue, an application at half the publish rate (so its
    queue fills), 1 KiB messages and entries of ``batch`` messages."""
    cfg = HarnessConfig(
        client="java",
        rate=2000,
        auto_scale=False,
        receiver_queue_size=queue,
        message_bytes=KIB,
        batching_max_messages=batch,
        batching_delay_ms=1e6,
        subscription_type=subscription_type,
        app_rate=1000,
        duration_s=5,
        seed=seed,
    )
    return simulate(cfg.with_(**changes))


def test_plan_row_by_hand():
    """Entries of 9 messages on a Shared subscription: one permit left still brings a whole
    entry, so the queue holds 1000 - 1 + 9 = 1,008 messages = 1,032,192 B. The README's
    workload (no batching) holds exactly its 1000 KiB, 3.91 MiB per topic over 4
    subscriptions."""
    _, queue = row(rate="2k/s", batch=9, message_size="1KiB")
    assert queue.peak_bytes == 1008 * KIB == 1_032_192
    assert "peak 1,008 messages" in queue.note and "up to 8 past them" in queue.note
    assert "PersistentDispatcherMultipleConsumers.java:906-925" in queue.note
    _, readme = row(rate="20k/s", nacked="2%", delayed="30%", delay="uniform:0:1h", subscriptions=4)
    assert readme.peak_bytes == 1000 * KIB and readme.per_topic == 4 * 1000 * KIB
    assert readme.note.startswith("peak = receiverQueueSize")


@pytest.mark.parametrize("batch", [9, 27, 10])
def test_plan_row_equals_the_simulated_peak_of_the_same_consumer(batch):
    """The plan's consumer (Shared, receiverQueueSize from the release, 1 KiB, entries of
    ``batch``) simulated. For 9 the peak equals the row exactly. For 27 the application takes
    one message while the 38 entries of the first Flow arrive, so the peak is 1 short. For
    10 the first Flow's 1000 permits are a multiple of the batch, so no read overshoots and
    the peak is 1000, 9 short. That is within one entry, as the module docstring says."""
    w, queue = row(rate="2k/s", batch=batch, message_size="1KiB")
    peaks = {
        run(w.values["receiver_queue"], batch, seed=seed).peak_prefetched_bytes[0]
        for seed in range(3)
    }
    assert len(peaks) == 1  # entries all full: the seed changes nothing
    simulated = peaks.pop()
    assert 0 <= queue.peak_bytes - simulated <= (batch - 1) * KIB
    if batch == 9:
        assert simulated == queue.peak_bytes
    assert {9: 0, 27: 1, 10: 9}[batch] * KIB == queue.peak_bytes - simulated


def test_exclusive_reaches_the_same_function():
    """The Go perf harness's own dispatcher (Exclusive): 50 permits read 50 whole entries of
    10, so 500 messages, as queue_peak says. A queue of 1000 with entries of 100 stays below
    its bound of 6,049 and within 3% of it. The bound needs a read that starts with exactly 51
    permits, and Flows of 500 permits seldom leave that many."""
    assert run(50, 10, subscription_type=EXCLUSIVE).peak_prefetched[0] == 500
    assert queue_peak(50, 10, KIB, subscription_type=EXCLUSIVE).messages == 500
    big = run(1000, 100, subscription_type=EXCLUSIVE, rate=20000, app_rate=10000)
    bound = queue_peak(1000, 100, KIB, subscription_type=EXCLUSIVE)
    assert 0.97 * bound.messages <= big.peak_prefetched[0] <= bound.messages == 6049


def test_time_flushed_batches_pass_the_row_within_the_worst_average():
    """The default 10 ms batching delay flushes part-full batches. Shared's integer average
    over a read then drops below the largest entry, so a consumer overshoots by more than
    one entry. The row assumes full entries and is exceeded. Every run stays within
    queue_peak at the lowest possible average (1): 1000 + 20 * (27 - 1)."""
    _, queue = row(rate="2k/s", batch=27, message_size="1KiB")
    worst = queue_peak(1000, 27, KIB, read_avg_messages_per_entry=1)
    assert worst.messages == 1520
    for seed in range(3):
        peak = run(1000, 27, seed=seed, batching_delay_ms=10.0).peak_prefetched_bytes[0]
        assert queue.peak_bytes < peak <= worst.bytes
