"""The released PIP-195 tracker's in-memory index before its first bucket seals
(``models/delayed/pip195_mutable.py``), by hand and through ``trackerlab size``."""

from __future__ import annotations

import numpy as np
import pytest

from trackerlab.catalog.designs import CATALOG
from trackerlab.core.errors import UsageError
from trackerlab.models.delayed import pip195_mutable as pm
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing.request import SizeRequest
from trackerlab.workloads.stream import Workload


def test_one_entry_by_hand():
    """One index: the mutable queue (16 tuples, 48 longs: 384 B direct) and the empty shared
    queue (also 384 B); heap: two queues of 40 B + SegmentedLongArray 32 B + ArrayList 24 B +
    Object[10] 56 B + one 88-B ByteBuf each; the HashMap with one boxed ledger (24 B) and one
    RoaringBitmap: 16 + RoaringArray 24 + char[4] 24 + Container[4] 32 + ArrayContainer 24 +
    char[1] 24 (``rangeOfOnes``: an exact one-value array)."""
    index = pm.mutable_index(np.array([10]), np.array([5]), np.array([60_000]))
    queue = 40 + 32 + 24 + 56 + 88
    bitmap = 16 + 24 + 24 + 32 + 24 + 24
    assert index.queues_heap_bytes == 2 * queue
    assert index.bitmaps_heap_bytes == jc.hash_map(1, 24) + bitmap
    assert index.direct_bytes == index.buffer_memory_usage_bytes == 2 * 384


def test_the_first_seal_is_the_first_later_ledger_after_the_minimum():
    ledger = np.repeat([1, 2, 3], [30_000, 30_000, 30_000])
    assert pm.first_seal(ledger) == 60_000  # ledger 3's first entry: 60,000 >= 50,000 held
    assert pm.first_seal(ledger[:60_000]) is None
    with pytest.raises(ValueError, match="seals"):
        pm.mutable_index(ledger, np.arange(len(ledger)), np.arange(len(ledger)) + 10_000)


def test_size_refuses_a_workload_that_seals_in_one_line():
    w = Workload.from_options(90_000, 10.0, delay="uniform:2s:1h", entries_per_ledger=30_000)
    with pytest.raises(UsageError, match="seals at entry 60,000"):
        CATALOG["pip195-buckets"].build(SizeRequest(w))
    small = Workload.from_options(20_000, 10.0, delay="uniform:2s:1h", entries_per_ledger=8_000)
    r = CATALOG["pip195-buckets"].build(SizeRequest(small))
    assert r.entries == 20_000 and r.jvm_direct_bytes == r.details["bytes_capacity"]
