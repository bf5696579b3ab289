"""The entropy floor of a workload's (bucket, ledger, entry) set."""

from __future__ import annotations

import math

import pytest

from trackerlab.models.proposals.floor import delay_support, entropy_floor_bytes, reachable_buckets
from trackerlab.sizing import theory
from trackerlab.workloads.delay_spec import DelaySpec


def test_supports():
    assert delay_support(DelaySpec.parse("fixed:1h")) == [(3_600_000, 3_600_000)]
    assert delay_support(DelaySpec.parse("uniform:0:60s")) == [(0, 59_999)]
    assert delay_support(DelaySpec.parse("mix:0.5*uniform:0:10s+0.5*uniform:5s:20s")) == [
        (0, 19_999)
    ]
    assert delay_support(DelaySpec.parse("exponential:1s")) is None


def test_reachable_buckets():
    """Tick 1000 ms: 512-ms buckets; delays up to the tick are not tracked."""
    assert reachable_buckets(DelaySpec.parse("fixed:1h"), 1000) == 1
    assert reachable_buckets(DelaySpec.parse("fixed:500ms"), 1000) == 0  # due within the tick
    # uniform 0..3,599,999 cut to 1,001..3,599,999: w = 3,598,998 ms -> (w - 1) // 512 + 2
    assert reachable_buckets(DelaySpec.parse("uniform:0:1h"), 1000) == 3_598_997 // 512 + 2
    two = DelaySpec.parse("mix:0.8*uniform:0:60s+0.2*uniform:1d:30d")
    assert (
        reachable_buckets(two, 1000) == (58_998 - 1) // 512 + 2 + (29 * 86_400_000 - 2) // 512 + 2
    )


def test_floors_of_simple_sets():
    fixed = DelaySpec.parse("fixed:1d")
    assert entropy_floor_bytes(10_000, 1, 1.0, fixed, 1000, 10_000) == 0  # dense, fixed delay
    sparse = entropy_floor_bytes(100_000, 1, 1.0, fixed, 1000, 5_000)
    assert sparse / 5_000 * 8 == pytest.approx(theory.entropy_bits(100_000, 5_000) / 5_000)
    h = -(0.05 * math.log2(0.05) + 0.95 * math.log2(0.95)) / 0.05  # about 5.7 bits
    assert sparse / 5_000 * 8 == pytest.approx(h, rel=0.01)
    uniform = DelaySpec.parse("uniform:0:1h")
    k = reachable_buckets(uniform, 1000)
    dense = entropy_floor_bytes(100_000, 1, 1.0, uniform, 1000, 100_000) / 100_000 * 8
    assert math.log2(k) < dense < math.log2(k) + math.log2(math.e) + 0.01
    assert math.isnan(entropy_floor_bytes(10, 1, 1.0, DelaySpec.parse("exponential:1s"), 1, 5))
    assert entropy_floor_bytes(10, 1, 1.0, uniform, 1000, 0) == 0
