"""Count-only sizing: every proposal's ``from_counts`` on a reducer's aggregates equals the
tracker built from the same messages, for any task cut and piece size; the reducer's
per-bucket values split back into the time buckets' ledger histogram."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trackerlab.catalog import CATALOG, SizeRequest, size
from trackerlab.core.errors import UsageError
from trackerlab.models.design import PointCounts
from trackerlab.models.time_buckets import lab_stats as lab
from trackerlab.models.time_buckets import reducer as bc
from trackerlab.sizing.jvm import COMPRESSED
from trackerlab.workloads.stream import Workload

PROPOSALS = (
    "time-buckets-flat",
    "time-buckets-sealed",
    "time-buckets-adaptive",
    "time-buckets-hier",
)


def _counts(workload: Workload, tick: int, target: int, piece: int) -> PointCounts:
    bits = max(tick.bit_length() - 1, 0)
    ledger_messages = workload.entries_per_ledger * workload.batch_size
    tasks = bc.plan_tasks(workload.messages, ledger_messages, workload.batch_size, target)
    totals, agg = bc.reduce_workload(workload, bits, tick, tasks, piece)
    return PointCounts(totals, agg, workload.rate_per_ms, bits, tick)


@settings(max_examples=30, deadline=None)
@given(
    messages=st.integers(1, 12_000),
    rate=st.sampled_from([0.5, 2.0, 20.0]),
    epl=st.sampled_from([50, 700, 3000]),
    batch=st.sampled_from([1, 4]),
    delay=st.sampled_from(
        ["fixed:0", "fixed:20s", "uniform:0:40s", "mix:0.7*uniform:0:2s+0.3*uniform:10m:1h"]
    ),
    pattern=st.sampled_from(["all", "fraction:0.3"]),
    tick=st.sampled_from([1, 64, 1000]),
    target=st.integers(1, 8000),
    piece=st.integers(50, 5000),
)
def test_from_counts_equals_the_built_tracker(
    messages, rate, epl, batch, delay, pattern, tick, target, piece
):
    workload = Workload.from_options(
        messages,
        rate,
        delay=delay,
        pattern=pattern,
        entries_per_ledger=epl,
        batch_size=batch,
        seed=3,
    )
    counts = _counts(workload, tick, target, piece)
    for name in PROPOSALS:
        built = size(name, SizeRequest(workload, tick_ms=tick))
        counted = CATALOG[name].from_counts(counts, None, COMPRESSED)
        assert (counted.entries, counted.jvm_bytes) == (built.entries, built.jvm_bytes), name


def test_bucket_values_split_into_the_ledger_histogram():
    values = np.array(
        [
            int(lab.pack_bucket_value(np.array([3]), np.array([40]), np.array([1]))[0]),
            int(lab.pack_bucket_value(np.array([1]), np.array([5]), np.array([0]))[0]),
            77 << lab.LEDGER_BITS,  # a stream of 77 token bytes
        ]
    )
    ledgers, buckets, hist = lab.split_histogram(values, np.array([2, 5, 4]))
    assert ledgers.tolist() == [1, 3] and buckets.tolist() == [5, 2]
    assert hist.packed.tolist() == [5, 40] and hist.spilled.tolist() == [0, 1]
    assert hist.bucket_counts.tolist() == [5, 2]
    assert hist.stream_bytes.tolist() == [77] and hist.stream_counts.tolist() == [4]
    assert lab.group_values(np.array([1, 23, 24])).tolist() == [
        int(lab.pack_bucket_value(np.array([1]), np.array([c]), np.array([s]))[0])
        for c, s in ((1, 0), (23, 0), (23, 1))
    ]


def test_count_only_refuses_what_it_cannot_size():
    workload = Workload.from_options(70_000, 8.0, delay="uniform:0:10s", entries_per_ledger=70_000)
    with pytest.raises(UsageError, match="entries_per_ledger: the proposals pack entry ids"):
        CATALOG["time-buckets-hier"].from_counts(
            _counts(workload, 64, 10**6, 10**6), None, COMPRESSED
        )
    small = Workload.from_options(2000, 1.0, delay="uniform:0:10s")
    counts = _counts(small, 64, 10**6, 10**6)
    stripped = PointCounts(
        counts.totals,
        counts.aggregates.__class__(**{**counts.aggregates.__dict__, "lab": None}),
        1.0,
        6,
        64,
    )
    with pytest.raises(ValueError, match="lab statistics"):
        CATALOG["time-buckets-adaptive"].from_counts(stripped, None, COMPRESSED)
