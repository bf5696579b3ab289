"""PIP-195's bucket tracker in ``trackerlab plan``: its rows against hand-computed sizes."""

from __future__ import annotations

import pytest

from tests.conftest import assert_one_line_error
from trackerlab.core.errors import UsageError
from trackerlab.planner import pip195
from trackerlab.planner.memory_plan import plan
from trackerlab.planner.workload import PlanWorkload


def _row(p):
    return next(r for r in p.rows if r.design == "pip195-buckets")


def test_a_bucket_that_never_seals_holds_every_pending_entry():
    """1/s, 30% delayed uniformly over a day: 0.3 entries/s x 12 h mean pending = 12,960
    entries, all in the mutable bucket (below minIndexCountPerBucket = 50,000, so nothing is
    sealed or persisted). The queue is a TripleLongPriorityQueue: 24 B per entry, capacity
    at most doubled."""
    w = PlanWorkload.parse({"rate": "1/s", "delayed": "30%", "delay": "uniform:0:1d"})
    size = pip195.size(w)
    assert size.entries == pytest.approx(12_960, rel=0.01)
    assert size.persisted_bytes == 0
    assert 24 * 12_960 <= size.steady_direct_bytes <= 2 * 24 * 12_960 + 4096
    assert "no bucket ever seals" in pip195.describe_cycle(w)


def test_sealed_buckets_persist_their_snapshots():
    """1k/s, every message delayed 1 h: a ledger rolls over every 10 min (the minimum
    rollover; 600,000 entries) and each rollover seals a bucket of 600,000 indexes. A bucket
    lives until its last index is due, an hour after it sealed: 6 buckets alive. Each
    ``DelayedIndex`` is 16 B in the snapshot (repeated-field tag and length 2 B, three tags
    3 B, an epoch-ms varint 6 B, a ledger id varint 2 B, an entry id varint 3 B), so
    6 x 600,000 x 16 B = 57.6 MB persisted; the segments' metadata adds a little."""
    w = PlanWorkload.parse({"rate": "1k/s", "delayed": "100%", "delay": "fixed:1h"})
    size = pip195.size(w)
    assert size.persisted_bytes == pytest.approx(6 * 600_000 * 16, rel=0.03)
    assert pip195.describe_cycle(w) == "a seal every 10m"
    # in memory: one segment per bucket, not the hour's 3.6M indexes
    assert size.entries < 3_600_000 / 4


def test_the_plan_shows_it_with_memory_apart_and_persisted_bytes():
    w = PlanWorkload.parse({"rate": "20k/s", "delayed": "30%", "delay": "uniform:0:10m"})
    row = _row(plan(w))
    size = pip195.size(w)
    assert not row.default
    assert row.memory == "direct + heap"
    assert row.peak_bytes == size.peak_bytes and row.steady_bytes == size.steady_bytes
    heap, direct = row.split(row.peak_bytes)
    assert direct == size.peak_direct_bytes and heap + direct == size.peak_bytes
    assert row.persisted_bytes == size.persisted_bytes > 0
    assert "BookKeeper" in row.note
    # the exact path uses the same model
    assert _row(plan(w, exact=True)).peak_bytes == row.peak_bytes


def test_releases_without_pip195_have_no_such_row():
    w = PlanWorkload.parse(
        {"rate": "1k/s", "delayed": "30%", "delay": "uniform:0:10m", "pulsar_version": "2.10"}
    )
    assert all(r.design != "pip195-buckets" for r in plan(w).rows)
    with pytest.raises(UsageError, match=r"PIP-195 ships from 3\.0"):
        plan(w, designs=("pip195-buckets",))


def test_designs_keeps_it(cli):
    result = cli(
        "plan", "--rate", "1k/s", "--delayed", "30%", "--delay", "uniform:0:10m",
        "--designs", "pip195-buckets",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "pip195-buckets" in result.stdout
    bad = cli(
        "plan", "--rate", "1k/s", "--delayed", "30%", "--delay", "uniform:0:10m",
        "--designs", "pip195-buckets", "--pulsar-version", "2.11",
    )  # fmt: skip
    assert_one_line_error(bad, "--designs pip195-buckets", "3.0")
