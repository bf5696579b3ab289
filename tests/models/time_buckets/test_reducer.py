"""The streaming reducer gives the same index content as building the index: any task cut,
any piece size, fixed and random delays, batched and unbatched, ticks and patterns."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import bucket_run
from trackerlab.models.delayed.time_bucket_runs import BucketRun, build_index
from trackerlab.models.time_buckets import aggregates as tba
from trackerlab.models.time_buckets import reducer as bc
from trackerlab.spark.grid import parse_grid
from trackerlab.spark.rows import index_rows, local_rows


def _check(run: BucketRun, tasks, piece):
    index = build_index(run)
    w = run.workload
    totals, agg = bc.reduce_workload(w, run.trim_bits, run.tick_ms, tasks, piece)
    ref = tba.aggregates_of_content(index.content(runs=True))
    stats = index.stats()
    assert totals["entries"] == stats.entries == len(index)
    assert totals["bitmaps"] == stats.bitmaps
    assert np.array_equal(agg.ledger_counts, ref.ledger_counts)
    assert np.array_equal(agg.bucket_counts, ref.bucket_counts)
    for variant in tba.VARIANTS:
        assert tba.index_bytes(agg, variant) == tba.index_bytes(ref, variant)
    assert totals["messages"] == w.messages


@settings(max_examples=15, deadline=None)
@given(
    messages=st.integers(1, 40_000),
    rate=st.sampled_from([0.3, 1.0, 2.5, 16.0]),
    bits=st.integers(0, 12),
    epl=st.sampled_from([7, 500, 3000, 70_000, 140_000]),
    batch=st.sampled_from([1, 3, 10]),
    delay=st.sampled_from(["fixed:0", "fixed:5s", "uniform:0:20s", "exponential:2s"]),
    pattern=st.sampled_from(["all", "fraction:0.4", "burst:5:3"]),
    target=st.integers(1, 30_000),
    piece=st.integers(1, 9000),
    tick=st.sampled_from([None, 100, 1000]),
)
def test_reducer_equals_built_index(
    messages, rate, bits, epl, batch, delay, pattern, target, piece, tick
):
    run = bucket_run(
        messages,
        rate,
        bits if tick is None else max(tick.bit_length() - 1, 0),
        entries_per_ledger=epl,
        batch_size=batch,
        delay=delay,
        pattern=pattern,
        tick_ms=tick,
        seed=7,
    )
    tasks = bc.plan_tasks(messages, epl * batch, batch, target)
    _check(run, tasks, piece)


def test_ledgers_split_across_tasks_at_chunk_boundaries():
    """A ledger of 300k entries spans five chunks; tasks cut it at chunk spans."""
    run = bucket_run(250_000, 50.0, 12, entries_per_ledger=300_000, delay="uniform:0:3s")
    tasks = bc.plan_tasks(250_000, 300_000, 1, 70_000)
    assert tasks[0] == (0, 65_536)
    _check(run, tasks, 20_000)


def test_plan_tasks_cuts_at_ledgers_or_chunk_spans():
    assert bc.plan_tasks(10, 4, 1, 8) == [(0, 8), (8, 10)]
    assert bc.plan_tasks(0, 4, 1, 8) == []
    spans = bc.plan_tasks(300_000, 200_000, 1, 1)
    assert spans[:4] == [(0, 65_536), (65_536, 131_072), (131_072, 196_608), (196_608, 200_000)]


def test_sorted_input_is_not_resorted_and_distinct_drops_batch_duplicates():
    b = np.array([0, 0, 0, 4, 4])
    led = np.array([1, 1, 1, 1, 2])
    e = np.array([5, 5, 6, 0, 0])
    out = bc.sort_distinct(b, led, e, 2)
    assert [x.tolist() for x in out] == [[0, 0, 4, 4], [1, 1, 1, 2], [5, 6, 0, 0]]
    shuffled = bc.sort_distinct(b[::-1].copy(), led[::-1].copy(), e[::-1].copy(), 2)
    assert [x.tolist() for x in shuffled] == [x.tolist() for x in out]


def test_merge_pieces_joins_runs_across_pieces():
    table = {
        "bucket": np.array([0, 0]),
        "ledger": np.array([1, 1]),
        "chunk": np.array([0, 0]),
        "card": np.array([3, 2]),
        "runs": np.array([1, 1]),
        "first": np.array([0, 3]),
        "last": np.array([2, 4]),
    }
    merged = bc.merge_pieces(table)
    assert merged["card"].tolist() == [5] and merged["runs"].tolist() == [1]
    table["first"], table["last"] = np.array([0, 5]), np.array([2, 6])
    assert bc.merge_pieces(table)["runs"].tolist() == [2]


GRID = parse_grid(
    {
        "messages": 30_000,
        "rate_per_s": 10_000,
        "tick_ms": ["1s", "1m"],
        "batch_size": [1, 100],
        "delay": ["fixed:1d", "uniform:0:2d"],
    },
    "t",
    "test",
)


@pytest.mark.parametrize("point", GRID.points, ids=lambda p: str(p.grid_row))
def test_local_rows_equal_index_rows(point):
    """The numpy path and the pyroaring path give identical rows (heap included)."""
    ours, theirs = local_rows(point), index_rows(point)
    assert len(ours) == len(theirs) == 3
    for a, b in zip(ours, theirs, strict=True):
        assert a == b
