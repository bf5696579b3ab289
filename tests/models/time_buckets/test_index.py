from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trackerlab.models.primitives.fastutil_order import (
    FastutilLongKeyTable,
    fastutil_mix,
    iteration_order,
)
from trackerlab.models.time_buckets.time_bucket_index import TimeBucketIndex, trim_lower_bits
from trackerlab.sizing.python import python_real_bytes
from trackerlab.workloads.stream import Workload


def test_trim_lower_bits_is_javas_mask():
    assert trim_lower_bits(1_700_000_001_234, 10) == 1_700_000_001_234 & (-1 << 10)
    assert trim_lower_bits(np.array([1023, 1024, 2047]), 10).tolist() == [0, 1024, 1024]
    assert trim_lower_bits(5, 0) == 5


def test_fastutil_mix_reference_values():
    # HashCommon.mix(long): h = x * phi; h ^ (h >>> 32) ^ (h >>> 16) — computed by hand for x = 1
    h = 0x9E3779B97F4A7C15
    h ^= h >> 32
    assert fastutil_mix(1) == h ^ (h >> 16)
    assert fastutil_mix(0) == 0


VECTORS = Path(__file__).resolve().parents[2] / "fixtures" / "fastutil_order_vectors.txt"


def _vectors():
    for line in VECTORS.read_text().splitlines():
        args, _, order = line.partition("|")
        base, n, step, mult = map(int, args.split())
        yield base, n, step, mult, [int(k) for k in order.split()]


@pytest.mark.parametrize("vector", list(_vectors()), ids=lambda v: f"{v[0]}x{v[1]}-step{v[2]}")
def test_order_matches_the_real_fastutil_jar(vector):
    """Orders printed by fastutil 8.5.11 (tests/fixtures/FastutilOrder.java): growth past 24
    keys reorders colliding keys; removals shift clusters back and shrink the table."""
    base, n, step, mult, expected = vector
    table = FastutilLongKeyTable()
    keys = [base + i * mult for i in range(n)]
    for key in keys:
        table.insert(key)
    if step:
        for key in keys[::step]:
            assert table.remove(key)
    assert list(table) == expected
    if not step:
        assert iteration_order(keys) == expected


def test_table_capacity_follows_fastutil_rules():
    table = FastutilLongKeyTable()
    for k in range(1, 101):
        table.insert(k)
    assert table.n == 256 and len(table) == 100
    assert not table.insert(5) and not table.remove(1000)
    for k in range(1, 95):
        table.remove(k)
    assert table.n == 32  # shrinks by halves while size < maxFill / 4, never below minN


def _per_message(index, buckets, ledgers, entries):
    for b, led, e in zip(buckets.tolist(), ledgers.tolist(), entries.tolist(), strict=True):
        index.add(b, led, e)
    return index


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 3000),
    st.sampled_from([0.5, 1, 8, 50]),
    st.integers(0, 12),
    st.sampled_from([7, 50, 1000]),
    st.sampled_from(["fixed:0", "uniform:0:5s"]),
    st.sampled_from(["open-hash", "sorted"]),
)
def test_bulk_equals_per_message_contents_order_and_size(n, rate, bits, per_ledger, delay, inner):
    w = Workload.from_options(n, rate, delay=delay, entries_per_ledger=per_ledger, seed=5)
    bulk, slow = TimeBucketIndex(bits, inner), TimeBucketIndex(bits, inner)
    for chunk in w.chunks():
        keys = trim_lower_bits(chunk.deliver_at, bits)
        bulk.add_arrays(keys, chunk.ledger, chunk.entry)
        _per_message(slow, keys, chunk.ledger, chunk.entry)
    bulk.seal()
    slow.seal()
    assert list(bulk.buckets) == list(slow.buckets)
    for key in bulk.buckets:
        assert list(bulk.buckets[key]) == list(slow.buckets[key])  # insertion order too
        assert bulk.ledgers_in_order(key) == slow.ledgers_in_order(key)
        for ledger, bm in bulk.buckets[key].items():
            other = slow.buckets[key][ledger]
            assert bm == other
            assert bm.get_statistics() == other.get_statistics()  # same containers
    # Python-real bytes are identical by CRoaring's allocation rules. (The exact allocator
    # walk, the default, also sees glibc reusing a freed chunk up to 32 B larger than asked,
    # which depends on the allocation history, not on the structure.)
    assert python_real_bytes(bulk.buckets, exact=False) == python_real_bytes(
        slow.buckets, exact=False
    )
    assert np.array_equal(bulk.content(), slow.content())


def test_bulk_across_chunks_merges_groups():
    w = Workload(messages=10_000, rate_per_ms=1, start_ms=0, chunk_size=333)
    index = TimeBucketIndex(10)
    for chunk in w.chunks():
        index.add_arrays(trim_lower_bits(chunk.deliver_at, 10), chunk.ledger, chunk.entry)
    stats = index.stats()
    assert stats.buckets == 10 and stats.bitmaps == 10 and stats.entries == 10_000
    assert stats.array_containers == 10 and stats.bitset_containers == 0


def test_java_containers_not_run_unless_improvement_variant():
    entries = np.arange(50_000)
    plain, runs = TimeBucketIndex(20), TimeBucketIndex(20, run_optimize=True)
    for index in (plain, runs):
        index.add_arrays(np.zeros(50_000, dtype=np.int64), np.full(50_000, 7), entries)
        index.seal()
    assert plain.stats().bitset_containers == 1 and plain.stats().run_containers == 0
    assert runs.stats().run_containers == 1


def test_content_rows():
    index = TimeBucketIndex(4)
    index.add_arrays(
        np.array([0, 0, 0, 16, 16]), np.array([5, 5, 5, 6, 5]), np.array([1, 2, 70_000, 3, 9])
    )
    rows = index.content()
    # bucket, ledger, chunk, cardinality, runs, rank
    assert rows.tolist() == [
        [0, 5, 0, 2, 1, 0],
        [0, 5, 1, 1, 1, 0],
        [16, 6, 0, 1, 1, 0],
        [16, 5, 0, 1, 1, 1],
    ]


def test_add_reports_duplicates():
    index = TimeBucketIndex(8)
    assert index.add(0, 1, 2) and not index.add(0, 1, 2)
    assert len(index) == 1


def test_bad_trim_bits():
    from trackerlab.core.errors import UsageError

    with pytest.raises(UsageError, match=r"trim bits must be an integer in 0\.\.62, got 63"):
        TimeBucketIndex(63)
