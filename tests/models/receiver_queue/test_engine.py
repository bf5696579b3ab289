"""The fast engine against the per-event reference, and whole-run invariants."""

from __future__ import annotations

from collections import defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reference.receiver_queue import simulate_naive
from trackerlab.models.receiver_queue.simulator import ReceiverQueueConfig, simulate


@st.composite
def configs(draw) -> ReceiverQueueConfig:
    client = draw(st.sampled_from(["go", "java"]))
    partitions = draw(st.integers(1, 3))
    batch = client == "java" and draw(st.booleans())
    dispatch = draw(st.sampled_from([0.01, 0.05, 0.3, 1.0]))
    limited = draw(st.booleans())
    return ReceiverQueueConfig(
        client=client,
        rate=draw(st.sampled_from([3.0, 40.0, 300.0, 2000.0, 9000.0])),
        partitions=partitions,
        auto_scale=draw(st.booleans()) or draw(st.booleans()),
        receiver_queue_size=draw(st.integers(1, 64)),
        max_total_receiver_queue_size_across_partitions=draw(st.integers(3, 200)),
        refill_latency_ms=dispatch + draw(st.sampled_from([1e-5, 0.01, 0.1, 2.0, 10.0, 30.0])),
        dispatch_ms=dispatch,
        max_read_entries=draw(st.integers(1, 20)),
        producer_rate=draw(st.sampled_from([None, 50.0, 800.0, 5000.0])),
        arrivals=draw(st.sampled_from(["paced", "poisson"])),
        initial_backlog=draw(st.sampled_from([0, 0, 7, 200])),
        message_bytes=draw(st.sampled_from([1, 100, 1000])),
        memory_limit_bytes=draw(st.integers(500, 20000)) if limited else None,
        app_burst_s=draw(st.sampled_from([0.0, 0.01, 1.0])),
        limiter_idle_s=draw(st.sampled_from([0.0, 0.05, 0.5])),
        app_wakeup_us=draw(st.sampled_from([0.0, 30.0, 500.0, 5000.0])),
        receive_mode="batch" if batch else "receive",
        batch_max_messages=draw(st.sampled_from([-1, 1, 3, 10])) if batch else -1,
        batch_timeout_ms=draw(st.sampled_from([1.0, 20.0])),
        message_channel_capacity=draw(st.integers(1, 12)),
        duration_s=draw(st.sampled_from([0.05, 0.3, 1.0])),
        sample_ms=draw(st.sampled_from([7.0, 50.0])),
        seed=draw(st.integers(0, 3)),
        record_consumption=True,
    )


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_fast_engine_equals_per_event_reference(cfg):
    fast, ref = simulate(cfg), simulate_naive(cfg)
    assert fast.final_sizes == ref.final_sizes
    assert fast.parent_size == ref.parent_size
    assert fast.consumption == ref.consumption
    assert fast.size_log == ref.size_log
    assert fast.samples == ref.samples
    assert (fast.flows, fast.expansions, fast.shrinks, fast.peak_queued) == (
        ref.flows,
        ref.expansions,
        ref.shrinks,
        ref.peak_queued,
    )


def _check_invariants(cfg: ReceiverQueueConfig) -> None:
    res = simulate(cfg)
    # every message reaches the application exactly once and in order, per partition
    seen: dict[int, list[int]] = defaultdict(list)
    times = [t for t, _, _ in res.consumption]
    assert times == sorted(times)
    for _, q, seq in res.consumption:
        seen[q].append(seq)
    for q, seqs in seen.items():
        assert seqs == list(range(len(seqs))), q
    assert res.consumed == len(res.consumption)
    if res.produced is not None:
        assert res.consumed + res.samples["queued"][-1] <= res.produced
    # queue sizes stay within the rules' bounds; a fixed queue never changes
    pmax = cfg.partition_max_size
    for _, q, size in res.size_log:
        assert 1 <= size <= (pmax if q >= 0 else max(cfg.partitions, cfg.receiver_queue_size))
    if not cfg.auto_scale:
        assert res.size_log == [] and set(res.final_sizes) == {pmax}
    # without a memory limit nothing shrinks, and sizes only grow
    if cfg.memory_limit_bytes is None:
        assert res.shrinks == 0
        last: dict[int, int] = {}
        for _, q, size in res.size_log:
            assert size > last.get(q, 0)
            last[q] = size


@settings(max_examples=150, deadline=None)
@given(configs())
def test_run_invariants(cfg):
    _check_invariants(cfg)


@pytest.mark.parametrize("client", ["go", "java"])
def test_deterministic_by_seed(client):
    cfg = ReceiverQueueConfig(
        client=client,
        rate=5000,
        producer_rate=300,
        arrivals="poisson",
        duration_s=2,
        seed=7,
        auto_scale=False,
    )
    a, b = simulate(cfg), simulate(cfg)
    assert a.samples == b.samples and a.size_log == b.size_log
    c = simulate(cfg.with_(seed=8))
    assert c.samples["consumed"] != a.samples["consumed"]
    paced = simulate(cfg.with_(arrivals="paced"))
    # 600 published in [0, 2 s) (i / 300 s); those published after 2 s - 14.5 ms (one way) - 1 ms
    # (read) - 50 us (wake-up) = 1.98345 s are still on their way: 596 = floor(1.98345 * 300) + 1
    assert (paced.produced, paced.consumed) == (600, 596)


def test_slow_application_go_grows_to_max_java_does_not():
    """Go expands on every delivery once the queue was full; Java only on an empty queue."""
    slow = ReceiverQueueConfig(rate=5, producer_rate=1000, duration_s=20)
    assert simulate(slow.with_(client="go")).final_sizes == (1000,)
    assert simulate(slow.with_(client="java")).final_sizes == (1,)


def test_java_batch_receive_min_size_and_batches():
    """batchMax 10: the queue starts at 2 * 10 - 2 = 18 and the application takes batches."""
    cfg = ReceiverQueueConfig(
        client="java", rate=1000, receive_mode="batch", batch_max_messages=10,
        producer_rate=None, duration_s=1, record_consumption=True,
    )  # fmt: skip
    res = simulate(cfg)
    assert [size for _, _, size in res.size_log][:2] == [36, 72]  # doublings of 18
    per_instant: dict[int, int] = defaultdict(int)
    for t, _, _ in res.consumption:
        per_instant[t] += 1
    # an endless backlog always has enough: every batch is full (several at one instant
    # while the Guava limiter spends stored permits)
    assert {n % 10 for n in per_instant.values()} == {0}
    assert res.consumed == pytest.approx(1000, rel=0.05)


def test_java_partitioned_max_total_caps_each_partition():
    cfg = ReceiverQueueConfig(
        client="java", rate=5, partitions=4, producer_rate=1000,
        max_total_receiver_queue_size_across_partitions=40, auto_scale=False, duration_s=1,
    )  # fmt: skip
    assert simulate(cfg).final_sizes == (10, 10, 10, 10)
