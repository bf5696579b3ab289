"""The one definition of steady-state bytes per entry, and when a snapshot shows it."""

import numpy as np
import pytest

from trackerlab.experiments.massive_delayed import DelayedScenario, simulate
from trackerlab.experiments.steady_state import bytes_per_entry, snapshot_vs_steady, steady_state


@pytest.fixture(scope="module")
def steady():
    return steady_state(1000.0, ["fixed:10m", "uniform:0:10m"], samples=6, steps_per_span=60)


def test_steady_index_holds_rate_times_mean_delay(steady):
    rows = steady.set_index(["delay", "design"])
    assert rows["steady"].all()
    # fixed 10 min at 1,000 msg/s: 600,000 entries pending; uniform 0-10 min: half of it
    assert rows.loc[("fixed:10m", "triple-heap"), "entries"] == pytest.approx(600_000, rel=0.01)
    assert rows.loc[("uniform:0:10m", "triple-heap"), "entries"] == pytest.approx(300_000, rel=0.01)


def test_heap_is_24_bytes_plus_slack_and_spread_delays_cost_buckets_more(steady):
    rows = steady.set_index(["delay", "design"])["bytes_per_entry"]
    for delay in ("fixed:10m", "uniform:0:10m"):
        assert 24.0 <= rows[(delay, "triple-heap")] < 36.0
    assert rows[("fixed:10m", "time-buckets")] < rows[("uniform:0:10m", "time-buckets")]


def test_bytes_per_entry_averages_the_samples_after_warm_up():
    scenario = DelayedScenario(
        rate_per_s=100.0,
        delay="fixed:10m",
        batch_size=1,
        subscriptions=2,
        step_s=10.0,
        samples=20,
        days=1 / 24,
        designs=("triple-heap",),
    )
    result = simulate(scenario)
    run = result.runs["triple-heap"]
    after = run.times_ms >= scenario.warmup_s * 1000
    assert 0 < after.sum() < len(after)
    table = bytes_per_entry(result)
    expected = np.mean(run.memory_bytes[after]) / np.mean(run.indexed[after])
    assert table.loc["triple-heap", "bytes_per_entry"] == pytest.approx(expected)
    assert bool(table.loc["triple-heap", "steady"])


def test_a_run_shorter_than_its_warm_up_is_not_steady():
    scenario = DelayedScenario(
        rate_per_s=100.0,
        delay="fixed:1h",
        batch_size=1,
        step_s=10.0,
        samples=5,
        days=0.5 / 24,
        designs=("triple-heap",),
    )
    assert not bool(bytes_per_entry(simulate(scenario)).loc["triple-heap", "steady"])


@pytest.mark.parametrize(
    ("delay", "messages", "steady", "why"),
    [
        ("fixed:1d", 864_000_000, True, "cover a full delay span"),
        ("fixed:1d", 2_500_000, False, "0.0029 of one delay span"),
        ("uniform:0:1h", 1_000_000, False, "delays spread from 0 s to 3600 s"),
    ],
)
def test_snapshot_vs_steady(delay, messages, steady, why):
    is_steady, text = snapshot_vs_steady(delay, messages, 10_000.0)
    assert is_steady is steady and why in text
