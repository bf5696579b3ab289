"""JVM bytes of time-bucket indexes: equal to the sizes measured on OpenJDK 17 by
``trackerlab jvm-check`` (timebuckets-* cases), and consistent across shapes and paths."""

import numpy as np
import pytest

from tests.conftest import bucket_run
from trackerlab.models.delayed.time_bucket_runs import build_index, measure
from trackerlab.models.time_buckets.shapes import (
    jvm_bytes,
    jvm_bytes_from_content,
    per_bitmap_overhead,
    per_bucket_overhead,
)
from trackerlab.models.time_buckets.time_bucket_index import TimeBucketIndex
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.sizing.jvm import UNCOMPRESSED_OOPS


@pytest.mark.parametrize(
    ("n_ts", "n_ledgers", "n_entries", "measured"),
    [(1, 1, 1, 912), (1, 1000, 1, 272_856), (10, 10, 100, 58_288), (1, 1, 1000, 3_096)],
)
def test_matches_real_jvm_measurements(n_ts, n_ledgers, n_entries, measured):
    index = TimeBucketIndex(0)
    for ts in range(1000, 1000 + n_ts):
        for ledger in range(5000, 5000 + n_ledgers):
            index.add_arrays(
                np.full(n_entries, ts), np.full(n_entries, ledger), np.arange(1, n_entries + 1)
            )
    assert jvm_bytes(index, "avl-openhash") == measured


def test_multi_chunk_bitmaps_use_the_full_model():
    index = TimeBucketIndex(0)
    entries = np.r_[np.arange(0, 5000), np.arange(70_000, 70_010)]
    index.add_arrays(np.zeros(len(entries), dtype=np.int64), np.full(len(entries), 9), entries)
    chunks = [jr.Chunk(0, 5000, 1), jr.Chunk(1, 10, 1)]
    expected = (
        jr.roaring64_bitmap_bytes(chunks)
        + per_bucket_overhead()
        + jvm_bytes_from_content(np.zeros((0, 6), dtype=np.int64), 0)
    )
    assert jvm_bytes(index) == expected


def test_overheads_and_shapes():
    assert per_bucket_overhead("avl-openhash") == 40 + 496
    assert per_bucket_overhead("treemap") == (40 + 24) + (48 + 40 + 24)  # outer entry + inner map
    assert per_bitmap_overhead() == 200 + 24 + 16
    run = bucket_run(20_000, 1, 10)
    index = build_index(run)
    sizes = {s: jvm_bytes(index, s) for s in ("avl-openhash", "avl-avl", "avl-rb", "treemap")}
    assert sizes["avl-avl"] < sizes["avl-openhash"]  # a 1-entry AVL map beats a 32-slot table
    assert sizes["treemap"] < sizes["avl-rb"]  # RB maps preallocate 352 B of paths
    assert jvm_bytes(index, "avl-openhash", UNCOMPRESSED_OOPS) > sizes["avl-openhash"]


def test_run_optimized_variant_is_smaller_for_consecutive_ids():
    plain = measure(bucket_run(200_000, 8, 15))
    runs = measure(bucket_run(200_000, 8, 15, run_optimize=True))
    assert runs.run_containers == runs.bitmaps and plain.run_containers == 0
    assert runs.jvm_bytes < plain.jvm_bytes / 10


def test_random_delays_break_the_seeds_assumption():
    fixed = measure(bucket_run(200_000, 1, 9, delay="fixed:60s"))
    spread = measure(bucket_run(200_000, 1, 9, delay="uniform:0:1d"))
    assert spread.bitmaps > 0.8 * spread.entries  # nearly one bitmap per message
    assert spread.per_entry("jvm_bytes") > 100 * fixed.per_entry("jvm_bytes") / 10


def test_delayed_tick_filter():
    kept = measure(bucket_run(10_000, 1, 9, delay="uniform:0:2000ms", tick_ms=1000))
    assert 0.45 * 10_000 < kept.entries < 0.55 * 10_000


@pytest.mark.parametrize("run_optimize", [False, True])
def test_fast_content_sizes_like_exact_runs(run_optimize):
    index = build_index(
        bucket_run(
            30_000, 1, 6, delay="uniform:0:5s", run_optimize=run_optimize, entries_per_ledger=700
        )
    )
    exact = jvm_bytes_from_content(
        index.content(runs=True), len(index.buckets), run_optimize=run_optimize
    )
    assert jvm_bytes(index) == exact


def test_multi_chunk_bitmaps_sized_without_the_per_bitmap_loop():
    """Bitmaps with several chunks below key 256 take the vectorized path; it must equal the
    per-bitmap layout model."""
    import numpy as np

    from trackerlab.models.time_buckets.shapes import _outer, jvm_bytes_from_content
    from trackerlab.sizing import jvm_roaring as jr
    from trackerlab.sizing.jvm import COMPRESSED

    rng = np.random.default_rng(5)
    rows, expected = [], 0
    for bucket in range(40):
        for ledger in range(3):
            keys = np.sort(rng.choice(255, size=int(rng.integers(1, 20)), replace=False))
            if bucket == 7 and ledger == 0:
                keys = np.r_[keys, 300]  # one bitmap with a key above 255: the exact path
            cards = rng.integers(1, 5000, size=len(keys))
            chunks = [jr.Chunk(int(k), int(c), int(c)) for k, c in zip(keys, cards, strict=True)]
            expected += jr.roaring64_bitmap_bytes(chunks)
            rows += [
                (bucket, ledger, int(k), int(c), int(c), ledger)
                for k, c in zip(keys, cards, strict=True)
            ]
    content = np.array(rows, dtype=np.int64)
    got = jvm_bytes_from_content(content, 40)
    inner = jvm_bytes_from_content(content[content[:, 0] < 0], 0)  # empty map: outer only
    assert inner == _outer("avl-openhash", 0, COMPRESSED)
    from trackerlab.models.time_buckets.shapes import _inner

    maps = 40 * _inner("avl-openhash", 3, COMPRESSED) + _outer("avl-openhash", 40, COMPRESSED)
    assert got == expected + maps
