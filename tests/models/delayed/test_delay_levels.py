"""Delay-level topics (#15500): partition counts, routing, the mover, bad strategies."""

import numpy as np
import pytest

from trackerlab.core.errors import UsageError
from trackerlab.models.delayed.delay_levels import (
    DAY_MS,
    HOUR_MS,
    DelayLevelTopicPartitionStrategy,
    DelayLevelTopics,
)


def test_partition_counts_follow_the_seed():
    # "if the delay span of a business is 1 year, you can create a 364-day partition Topic"
    assert DelayLevelTopicPartitionStrategy(365 * 86_400, "DAY").partitions == 364
    assert DelayLevelTopicPartitionStrategy().partitions == 29  # 30 days by DAY (defaults)
    assert DelayLevelTopicPartitionStrategy(30 * 86_400, "hour").partitions == 719
    assert DelayLevelTopicPartitionStrategy(30 * 86_400, "MONTH").partitions == 0
    assert DelayLevelTopicPartitionStrategy(86_400 * 1.5, "DAY").partitions == 1


def test_routing_puts_delays_in_unit_bands():
    s = DelayLevelTopicPartitionStrategy(365 * 86_400, "DAY")
    d = np.array([0, DAY_MS - 1, DAY_MS, 2 * DAY_MS - 1, 2 * DAY_MS, 364 * DAY_MS, 400 * DAY_MS])
    # partition-0 holds [1, 2) days, partition-363 [364, 365); beyond the max: the last one
    assert s.partition_of(d).tolist() == [-1, -1, 0, 0, 1, 363, 363]
    assert s.lag_ms(0) == DAY_MS


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ((0, "DAY"), "--max-delay"),
        ((-5, "DAY"), "--max-delay"),
        ((86_400, "WEEK"), "--partition-by"),
        ((2 * 365 * 86_400, "HOUR"), "10,000"),
    ],
)
def test_bad_strategies(args, needle):
    with pytest.raises(UsageError, match=needle):
        DelayLevelTopicPartitionStrategy(*args)


def test_mover_republishes_with_less_than_one_unit_left():
    s = DelayLevelTopicPartitionStrategy(5 * 3600, "HOUR")
    topics = DelayLevelTopics(s, tick_ms=1000, entries_per_ledger=10)
    publish = np.array([0, 1000, 2000, 3000])
    delay = np.array([30_000, HOUR_MS + 5_000, 2 * HOUR_MS + 10, 4 * HOUR_MS + 1])
    topics.publish(publish, delay)
    assert topics.stats.direct == 1 and topics.stats.to_levels == 3
    assert topics.tracker.number_of_delayed_messages() == 1
    topics.move(HOUR_MS + 999)
    assert topics.stats.republished == 0
    topics.move(HOUR_MS + 1000)  # partition 0, one hour after publication
    assert topics.stats.republished == 1
    assert topics.level_backlog() == 2
    topics.move(5 * HOUR_MS)
    assert topics.stats.republished == 3 and topics.level_backlog() == 0
    # every message is still delivered at its own deliverAt
    assert topics.deliver(HOUR_MS) == [(10_000, 0)]
    # moved late (the mover ran at 5 h): due on arrival, dispatched without an index
    assert topics.deliver(5 * HOUR_MS) == [(10_000, 1)]
    assert topics.stats.dispatched_on_arrival == 2
    assert topics.written == 4
