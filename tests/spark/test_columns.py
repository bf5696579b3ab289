"""Spark SQL message columns are bit-identical to Workload.chunk (SplitMix64 in signed-long
arithmetic), for every delay kind and pattern, at any partitioning."""

from __future__ import annotations

import numpy as np
import pytest

from trackerlab.models.time_buckets.time_bucket_index import trim_lower_bits
from trackerlab.spark.columns import messages_frame, signed64
from trackerlab.workloads.stream import Workload

pytestmark = pytest.mark.spark

DELAYS = [
    "fixed:60s",
    "uniform:0:60s",
    "uniform:0.5ms:2.5ms",
    "exponential:30s",
    "empirical:10ms@0.2,1000ms@0.5,60000ms@0.3",
    "mix:0.8*uniform:0:60s+0.2*uniform:1d:30d",
]
STREAMS = [
    (1.0, "all", 1, 4),
    (2.5, "fraction:0.3", 10, 3),
    (0.3, "burst:3:5", 7, 1),
    (0.7, "all", 1, 2),
]


@pytest.mark.parametrize("delay", DELAYS)
def test_columns_equal_workload_chunk(spark, delay):
    for rate, pattern, batch, partitions in STREAMS:
        w = Workload.from_options(
            60_000,
            rate,
            delay=delay,
            pattern=pattern,
            batch_size=batch,
            entries_per_ledger=777,
            seed=42,
        )
        got = messages_frame(spark, w, 9, 1000, 60_000, partitions).toPandas()
        want = w.chunk(1000, 60_000)
        assert np.array_equal(got.id, want.index)
        assert np.array_equal(got.publish_ms, want.publish_ms)
        assert np.array_equal(got.ledger, want.ledger)
        assert np.array_equal(got.entry, want.entry)
        assert np.array_equal(got.delay_ms, want.delay_ms), (delay, pattern)
        assert np.array_equal(got.deliver_at, want.deliver_at)
        assert np.array_equal(got.bucket, trim_lower_bits(want.deliver_at, 9))


def test_signed64_wraps_like_uint64():
    assert signed64(0x9E3779B97F4A7C15) == 0x9E3779B97F4A7C15 - (1 << 64)
    assert signed64(5) == 5 and signed64(-1) == -1


@pytest.mark.parametrize("rate", [4.9e-7, 1 / 3, 3.14159, 1e-9 * 7])
def test_publish_times_at_tiny_and_irrational_rates(spark, rate):
    """The overflow-free integer form of floor(i / rate) agrees in numpy and Spark SQL (before
    issue 16 rates below 5e-7 msg/ms rounded to 0 and divided by zero)."""
    w = Workload.from_options(50_000, rate, seed=3)
    got = messages_frame(spark, w, 10, 0, 50_000, 2).toPandas()
    want = w.chunk(0, 50_000)
    assert np.array_equal(got.publish_ms, want.publish_ms)
    assert (
        want.publish_ms[-1] - w.start_ms == int(49_999 / rate)
        or abs((want.publish_ms[-1] - w.start_ms) - 49_999 / rate) <= 49_999 / rate * 1e-12 + 1
    )
