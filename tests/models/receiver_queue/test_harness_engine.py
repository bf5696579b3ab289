"""The modelled harness: the engine against its per-message reference, traces by hand,
and whole-run invariants."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reference.receiver_queue_harness import simulate_naive
from trackerlab.core.errors import UsageError
from trackerlab.models.receiver_queue import HarnessConfig, simulate
from trackerlab.models.receiver_queue.simulator import produce

MS = 1_000_000


@st.composite
def configs(draw) -> HarnessConfig:
    client = draw(st.sampled_from(["go", "java"]))
    limited = draw(st.booleans())
    slow = draw(st.booleans())
    return HarnessConfig(
        client=client,
        rate=draw(st.sampled_from([1.0, 7.0, 100.0, 900.0, 4000.0])),
        partitions=draw(st.integers(1, 3)),
        duration_s=draw(st.sampled_from([0.3, 1.0, 2.5])),
        message_bytes=draw(st.sampled_from([1, 128, 5000])),
        batching=draw(st.booleans()) or draw(st.booleans()),
        batching_max_messages=draw(st.sampled_from([1000, 13])),
        auto_scale=draw(st.booleans()) or draw(st.booleans()),
        receiver_queue_size=draw(st.sampled_from([1, 5, 64, 1000])),
        max_total_receiver_queue_size_across_partitions=draw(st.sampled_from([3, 50, 50000])),
        java_drain=draw(st.sampled_from(["batch-receive", "receive-async"])),
        java_batch_max_messages=draw(st.sampled_from([-1, -1, 5])),
        java_batch_timeout_ms=draw(st.sampled_from([1.0, 100.0])),
        memory_limit_bytes=draw(st.integers(2000, 200_000)) if limited else None,
        read_batch_size=draw(st.sampled_from([1, 7, 100])),
        one_way_us=draw(st.sampled_from([1.0, 100.0, 3000.0])),
        persist_us=draw(st.sampled_from([0.0, 1000.0])),
        read_us=draw(st.sampled_from([1.0, 20.0, 2000.0])),
        app_message_us=draw(st.sampled_from([0.5, 5.0, 400.0])),
        tick_latency_us=draw(st.sampled_from([0.0, 2000.0])),
        consumer_lead_s=draw(st.sampled_from([1.0, 0.0, -0.1])),
        app_rate=draw(st.sampled_from([50.0, 3000.0])) if slow else None,
        app_burst_s=draw(st.sampled_from([0.0, 1.0])),
        new_entries_check_delay_ms=draw(st.sampled_from([10.0, 0.0])),
        seed=draw(st.integers(0, 3)),
        sample_ms=draw(st.sampled_from([7.0, 100.0])),
    )


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_engine_equals_per_message_reference(cfg):
    fast, ref = simulate(cfg), simulate_naive(cfg)
    assert fast.final_sizes == ref.final_sizes
    assert fast.parent_size == ref.parent_size
    assert fast.size_log == ref.size_log
    assert fast.samples == ref.samples
    assert (fast.consumed, fast.flows, fast.expansions, fast.shrinks) == (
        ref.consumed, ref.flows, ref.expansions, ref.shrinks,
    )  # fmt: skip
    assert (fast.peak_prefetched, fast.peak_client_messages, fast.peak_memory_bytes) == (
        ref.peak_prefetched, ref.peak_client_messages, ref.peak_memory_bytes,
    )  # fmt: skip


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_run_invariants(cfg):
    res = simulate(cfg)
    assert res.consumed <= res.dispatched <= res.produced
    assert res.peak_client_messages >= max(res.peak_prefetched)
    for _, q, size in res.size_log:
        bound = cfg.partition_max_size if q >= 0 else max(cfg.partitions, cfg.receiver_queue_size)
        assert 1 <= size <= bound
    if not cfg.auto_scale:
        assert all(q == -1 for _, q, _ in res.size_log)
        assert set(res.final_sizes) == {cfg.partition_max_size}
    if cfg.memory_limit_bytes is None:
        assert res.shrinks == 0


def test_one_message_per_second_by_hand():
    """-r 1 on one partition: the first message (the whole burst) reaches a queue of 1,
    sets the hint (0 + 1 >= 1), and its delivery returns 1 permit (Flow) and doubles the
    queue (+1 permit, Flow); every later message finds 0 + 1 < 2. Consumed: one per second,
    each within ~1.3 ms + its tick of being sent."""
    cfg = HarnessConfig(rate=1, duration_s=60, tick_latency_us=0)
    res = simulate(cfg)
    entries = produce(cfg)
    first = entries.ready_ns[0][0]
    assert res.final_sizes == (2,) and res.expansions == 1
    # notified at the write, read 20 us, one way 100 us; delivered at once
    assert res.size_log == [(first + 20_000 + 100_000, 0, 2)]
    assert res.flows == 2 + 59  # two at the first message, then one per message
    assert res.consumed == res.produced == 60 and not res.stalled


def test_five_per_second_burst_by_hand():
    """N47's run, traced by hand from consumer_partition.go (#976), independent of the
    engine's code. -r 5: the token bucket starts full, so the first entry holds the whole
    burst of 5 and later entries one message each, 200 ms apart. Queue size 1, Flow(1) at
    connect. The burst arrives: incoming 5, hint = 0 + 5 >= 1. Delivery 1: permits 1 >=
    max(1 / 2, 1) -> Flow; the hint doubles the queue to 2 (+1 permit >= 2 / 2 -> Flow).
    Deliveries 2..5 and every later one: permits 1 >= 1 -> one Flow each; the hint stays
    clear (0 permits + 1 incoming < 2). So one expansion, final size 2, and one Flow per
    delivery plus the doubling's. Produced in 10 s: 5 + floor((10 s - first) / 200 ms)."""
    cfg = HarnessConfig(rate=5, duration_s=10, tick_latency_us=0)
    res = simulate(cfg)
    entries = produce(cfg)
    first = entries.ready_ns[0][0]
    assert entries.messages[0][:3] == [5, 1, 1]
    assert res.produced == 5 + int((10e9 - first) // 200e6) == 54
    assert res.final_sizes == (2,) and res.expansions == 1
    assert res.size_log == [(first + 20_000 + 100_000, 0, 2)]  # read 20 us, one way 100 us
    assert res.consumed == res.produced and res.flows == res.consumed + 1


def test_three_partitions_one_per_second_stays_on_one_partition():
    res = simulate(HarnessConfig(rate=1, partitions=3, duration_s=60))
    assert sorted(res.final_sizes) == [1, 1, 2]
    assert sorted(res.peak_prefetched) == [0, 0, 1]


def test_whole_entries_overshoot_the_queue_size():
    """A fixed queue of 10 and 950-message entries: one Flow of 10 permits brings a whole
    entry, so the consumer holds 950 > 10 (the broker's permits go to -940)."""
    res = simulate(HarnessConfig(rate=1000, auto_scale=False, receiver_queue_size=10,
                                 duration_s=1, app_message_us=50))  # fmt: skip
    assert res.final_sizes == (10,) and max(res.peak_prefetched) == 950


def test_hung_producer_is_reported():
    """MaxPendingMessages 5 below the batch's 1000 messages: the producer hangs after 5
    sends; the consumer took all there was, so it did not stall."""
    res = simulate(HarnessConfig(rate=100, max_pending_messages=5, duration_s=5))
    assert res.produced == 5 and res.consumed == 5
    assert res.producer_hung_s == 0.0 and not res.stalled


def test_a_consumer_that_stops_is_stalled():
    """An application slower than the producer falls behind but keeps taking: not stalled.
    One that takes nothing in the last 10% of the run while older messages wait is
    stalled (here 0.5 msg/s: two takes at once, Guava's pay-later, then the next at 2 s)."""
    slow = simulate(HarnessConfig(rate=1000, app_rate=100, duration_s=5))
    assert not slow.stalled and slow.lag_s > 3
    res = simulate(HarnessConfig(rate=100, duration_s=2, app_rate=0.5, app_burst_s=0))
    assert res.consumed == 2 and res.stalled  # takes at 0 and 0 (pay later), then 2 s


@pytest.mark.parametrize("client", ["go", "java"])
def test_deterministic_by_seed(client):
    cfg = HarnessConfig(client=client, rate=1000, partitions=3, duration_s=3, tick_latency_us=2000)
    a, b, c = simulate(cfg), simulate(cfg), simulate(cfg.with_(seed=5))
    assert a.samples == b.samples and a.size_log == b.size_log
    assert (a.samples != c.samples) or (a.size_log != c.size_log)


def test_java_partitioned_batch_receive_keeps_up_at_20k():
    """The issue's failure of the per-message drain: 20,000 msg/s on 3 partitions."""
    res = simulate(HarnessConfig(client="java", rate=20_000, partitions=3, duration_s=10))
    assert not res.stalled and res.lag_s < 0.2
    old = simulate(HarnessConfig(client="java", rate=20_000, partitions=3, duration_s=10,
                                 java_drain="receive-async"))  # fmt: skip
    assert not old.stalled


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [
        ("rate", 0.5, "rate must be a number in 1..1e+07"),
        ("partitions", 0, "partitions must be an integer in 1..1000"),
        ("client", "rust", "unknown client 'rust'"),
        ("limiter", "leaky", "unknown limiter 'leaky'"),
        ("java_drain", "x", "unknown java_drain 'x'"),
        ("one_way_us", 0.0, "one_way_us must be a number"),
        ("max_total_receiver_queue_size_across_partitions", 2, "an integer >= 3"),
    ],
)
def test_bad_fields_name_the_parameter(field, value, needle):
    with pytest.raises(UsageError, match=re.escape(needle)):
        HarnessConfig(**{"partitions": 3, field: value}).validated()
