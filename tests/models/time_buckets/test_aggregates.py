"""Sizes from aggregates equal the sizes of built indexes: JVM bytes as
``jvm_bytes_from_content``, Python bytes as ``python_real_bytes(..., exact=False)``."""

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyroaring import BitMap64
from sortedcontainers import SortedDict

from tests.conftest import bucket_run
from trackerlab.models.delayed.time_bucket_runs import build_index
from trackerlab.models.time_buckets import aggregates as tba
from trackerlab.models.time_buckets.shapes import SHAPES, jvm_bytes, roaring64_fixed_bytes
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.sizing.python import bitmap_bytes, python_real_bytes

CASES = [
    dict(messages=60_000, rate_per_ms=2.0, trim_bits=8, delay="fixed:1000ms"),
    dict(messages=60_000, rate_per_ms=2.0, trim_bits=8, delay="uniform:0:60s"),
    dict(messages=80_000, rate_per_ms=8.0, trim_bits=12, delay="uniform:0:10s", batch_size=10),
    dict(messages=150_000, rate_per_ms=50.0, trim_bits=14, entries_per_ledger=300_000),
    dict(
        messages=150_000,
        rate_per_ms=50.0,
        trim_bits=12,
        entries_per_ledger=300_000,
        delay="uniform:0:5s",
        pattern="fraction:0.3",
    ),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("run_optimize", [False, True])
def test_index_bytes_equal_built_index(case, run_optimize):
    index = build_index(bucket_run(run_optimize=run_optimize, **case))
    agg = tba.aggregates_of_content(index.content(runs=True))
    variant = "runs" if run_optimize else "plain"
    for shape in SHAPES:
        jvm, _ = tba.index_bytes(agg, variant, shape)
        assert jvm == jvm_bytes(index, shape)
    assert tba.index_bytes(agg, variant)[1] == python_real_bytes(index.buckets, exact=False)
    assert agg.buckets == len(index.buckets)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 255), min_size=1, max_size=256, unique=True))
def test_jvm_fixed_part_depends_on_the_key_count_only(keys):
    """Keys below 256 share five bytes: one ART node over the leaves, whatever they are."""
    empty = [jr.Container("array", 0, 0, 0)] * len(keys)
    total = jr.roaring64_bitmap_from_containers(sorted(keys), empty)
    assert total - len(keys) * jr.container_bytes(empty[0]) == roaring64_fixed_bytes(len(keys))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 255), st.integers(1, 9000), st.integers(1, 3)),
        min_size=1,
        max_size=6,
        unique_by=lambda t: t[0],
    ),
    st.booleans(),
)
def test_bitmap_bytes_equal_pyroaring_estimate_and_jvm_model(chunks, run_optimize):
    """One bitmap of arbitrary chunks (cardinality, a few runs): both columns match."""
    values = []
    for key, card, runs in sorted(chunks):
        starts = np.linspace(0, 65536 - card, runs, dtype=np.int64)
        per = [card // runs + (i < card % runs) for i in range(runs)]
        for s, n, nxt in zip(starts, per, [*starts[1:], 65536], strict=True):
            values.extend(range((key << 16) + int(s), (key << 16) + min(int(s) + n, int(nxt) - 1)))
    values = np.unique(np.array(values, dtype=np.uint64))
    bm = BitMap64(values.tolist(), optimize=False)
    if run_optimize:
        bm.run_optimize()
    found = jr.chunks_of(values)
    cols = tba.chunk_columns([c.cardinality for c in found], [c.runs for c in found])
    sums = {k: np.array([v.sum()]) for k, v in cols.items()}
    sized = tba.bitmap_bytes(sums)
    variant = "runs" if run_optimize else "plain"
    assert sized[f"python_{variant}"][0] == bitmap_bytes(bm, exact=False)
    assert sized[f"jvm_{variant}"][0] == jr.roaring64_bitmap_bytes(found, run_optimize=run_optimize)


@pytest.mark.parametrize("n", [0, 1, 5, 6, 11, 1000, 5461, 5462, 100_000])
def test_dict_getsizeof_follows_cpython(n):
    d = {}
    for k in range(n):
        d[10**12 + k] = None
    assert tba.dict_getsizeof(n) == sys.getsizeof(d)
    s = SortedDict()
    for k in range(n):
        s[10**12 + k] = None
    assert tba.dict_getsizeof(n) + tba._sorted_dict_extra() == sys.getsizeof(s)


def test_bitmaps_beyond_2_32_are_refused():
    """Entry ids past 2^24 are sized (tests/models/time_buckets/test_big_ledgers.py); a bitmap
    of more than 2^16 chunks would need entry ids past 2^32, which no ledger reaches."""
    with pytest.raises(ValueError, match="2\\^32"):
        tba.bitmap_bytes({"chunks": np.array([(1 << 16) + 1])})
