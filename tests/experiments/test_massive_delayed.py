"""The aggregated massive-delayed simulation: agreement with per-message runs of the tracker
models on short horizons (within 5% on bytes), the seed scenario, bad input."""

import numpy as np
import pytest

from trackerlab.core.errors import UsageError
from trackerlab.experiments.massive_delayed import DelayedScenario, simulate
from trackerlab.experiments.massive_reference import reference_run

MIB = 1024 * 1024
TOLERANCE = 0.05

#: 25 minutes at 50 entries/s, 3,000 entries per ledger, buckets of 2,000 indexes, 1 s steps
#: (= the tick, so both sides hand out due messages at the same calls).
SHORT = dict(
    rate_per_s=50.0,
    batch_size=1,
    subscriptions=1,
    days=25 / 1440,
    step_s=1.0,
    samples=40,
    entries_per_ledger=3000,
    min_rollover_minutes=0,
    min_index_count=2000,
)
#: 4 hours at 5 entries/s, delay levels by HOUR up to 3 h, sparse PIP-195 segments.
LONG = dict(
    rate_per_s=5.0,
    batch_size=1,
    subscriptions=1,
    days=4 / 24,
    step_s=1.0,
    samples=40,
    entries_per_ledger=600,
    min_rollover_minutes=0,
    min_index_count=500,
    partition_by="HOUR",
    max_delay_s=3 * 3600.0,
)


def _agree(agg, ref):
    assert np.allclose(agg.times_ms, ref.times_ms)
    mean = agg.memory_bytes.mean() / ref.memory_bytes.mean()
    peak = agg.memory_bytes.max() / ref.memory_bytes.max()
    assert abs(mean - 1) <= TOLERANCE, (mean, peak)
    assert abs(peak - 1) <= TOLERANCE, (mean, peak)


@pytest.mark.parametrize(
    ("base", "delay", "design"),
    [
        (SHORT, "uniform:1m:15m", "triple-heap"),
        (SHORT, "fixed:5m", "time-buckets"),
        (SHORT, "fixed:5m", "pip195-buckets"),
        (SHORT, "uniform:1m:15m", "pip195-buckets"),
        (LONG, "uniform:1h:3h", "pip195-buckets"),
        (LONG, "uniform:1h:3h", "delay-level-topics"),
        (LONG, "fixed:90m", "delay-level-topics"),
    ],
)
def test_aggregated_bytes_agree_with_per_message_runs(base, delay, design):
    sc = DelayedScenario(**base, delay=delay, designs=(design,))
    agg = simulate(sc).runs[design]
    ref = reference_run(sc, design)
    _agree(agg, ref)
    if design == "pip195-buckets":
        written = ref.stats["snapshot_bytes_written"]
        assert agg.extra_writes_bytes == pytest.approx(written, rel=TOLERANCE)
        assert agg.extra_bk_entries == pytest.approx(ref.stats["bk_entries_written"], rel=TOLERANCE)
        assert agg.persisted_bytes[-1] == pytest.approx(
            ref.stats["persisted_bytes_end"], rel=TOLERANCE
        )
    if design == "delay-level-topics":
        extras = agg.extras
        assert extras["republished_entries"] == pytest.approx(ref.stats["republished"], rel=0.01)
        assert extras["level_partitions"] == ref.stats["partitions"] == 2


@pytest.mark.parametrize(
    ("delay", "design"),
    [
        pytest.param("uniform:1m:15m", "time-buckets", marks=pytest.mark.slow),
        ("mix:0.7*uniform:0:30s+0.3*uniform:5m:20m", "time-buckets"),
        ("mix:0.7*uniform:0:30s+0.3*uniform:5m:20m", "pip195-buckets"),
        ("fixed:5m", "triple-heap"),
    ],
)
def test_more_delay_profiles_agree(delay, design):
    sc = DelayedScenario(**SHORT, delay=delay, designs=(design,))
    _agree(simulate(sc).runs[design], reference_run(sc, design))


def test_seed_scenario_n12():
    """1 day at 10,000 msg/s, batches of 100, 2 subscriptions (seed 001, N12)."""
    result = simulate(DelayedScenario(days=2, samples=48))
    s = result.summary()
    # 8,640,000 entries per subscription: 13 segments of 16 MiB each (the seed's 198 MB
    # is the 24 B payload; the capacity is 208 MiB per subscription)
    assert s.loc["triple-heap", "indexed_entries_end"] == pytest.approx(8_640_000, rel=0.001)
    assert s.loc["triple-heap", "memory_steady_bytes"] == 2 * 13 * 16 * MIB
    # ledgers wait for their last entry: one day
    assert s.loc["triple-heap", "retention_max_h"] == pytest.approx(24, abs=0.2)
    assert (
        s.loc["pip195-buckets", "memory_steady_bytes"]
        < s.loc["triple-heap", "memory_steady_bytes"] / 4
    )
    assert (
        s.loc["pip195-buckets", "recovery_indexes"] < s.loc["triple-heap", "recovery_indexes"] / 10
    )
    # a 1-day delay by DAY lands in partition 0 and is due when it is re-published
    assert s.loc["delay-level-topics", "level_partitions"] == 29
    assert s.loc["delay-level-topics", "memory_steady_bytes"] == 2 * 48 * 8  # empty queues
    assert s.loc["delay-level-topics", "write_amplification"] == pytest.approx(2.0, abs=0.01)
    text = result.format_summary()
    assert "triple-heap" in text and "simulated days per second" in text


def test_mixed_profile_shows_problem_two():
    """80% under a minute, 20% 1-30 days: single-topic ledgers live ~30 days; levels keep
    the business topic's ledgers for about a day and index far less."""
    sc = DelayedScenario(
        delay="mix:0.8*uniform:0:60s+0.2*uniform:1d:30d",
        days=32,
        samples=24,
        designs=("triple-heap", "pip195-buckets", "delay-level-topics"),
    )
    s = simulate(sc).summary()
    assert s.loc["triple-heap", "retention_max_h"] == pytest.approx(720, abs=2)
    assert s.loc["delay-level-topics", "retention_max_h"] <= 25
    assert (
        s.loc["delay-level-topics", "memory_steady_bytes"]
        < s.loc["triple-heap", "memory_steady_bytes"] / 10
    )
    assert (
        s.loc["delay-level-topics", "storage_end_bytes"]
        < s.loc["triple-heap", "storage_end_bytes"] / 3
    )
    assert bool(s.loc["triple-heap", "steady"])


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        (dict(max_delay_s=0), "--max-delay"),
        (dict(max_delay="-3d"), "--max-delay"),
        (dict(partition_by="WEEK"), "--partition-by"),
        (dict(partition_by="HOUR", max_delay="730d"), "10,000"),
        (dict(delay="uniform:5m"), "malformed --delay"),
        (dict(delay="fixed:1x"), "--delay"),
        (dict(rate_per_s=0), "--rate"),
        (dict(designs="triple-heap,wheel"), "design"),
    ],
)
def test_bad_scenarios(options, needle):
    with pytest.raises(UsageError, match=needle):
        DelayedScenario.from_options(**options)
