"""The figures getBufferMemoryUsage is built from, against the real methods (RoaringBitmap
1.6.10 via the probe JVM): Roaring64Bitmap.getLongSizeInBytes() and
RoaringBitmap.serializedSizeInBytes()."""

from __future__ import annotations

import numpy as np
import pytest

from trackerlab.sizing import jvm_roaring as jr
from trackerlab.sizing.roaring_serialized import (
    payload_bytes,
    portable_bytes,
    roaring64_serialized_bytes,
)

pytestmark = pytest.mark.spark
K16 = 1 << 16
CASES = {
    "one value": np.array([5]),
    "1000 step 3": np.arange(0, 3000, 3),
    "bitmap container": np.arange(0, 10_000),
    "5 keys": np.arange(5) * K16 + 7,
    "17 keys": np.arange(17) * K16,
    "49 keys": np.arange(49) * K16,
    "300 keys (two ART levels)": np.arange(300) * K16,
    "ledger-sized ids": np.array([1, 70_000, 5_000_000, 1 << 30]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_roaring64_get_long_size_in_bytes(probe, name):
    values = CASES[name]
    bm = probe.builders.roaring64(probe.longs(values), False, False)
    chunks = jr.chunks_of(np.unique(values).astype(np.uint64))
    model = roaring64_serialized_bytes([c.key for c in chunks], [c.cardinality for c in chunks])
    assert model == bm.getLongSizeInBytes()


@pytest.mark.parametrize("name", list(CASES))
def test_roaring_serialized_size_in_bytes(probe, name):
    values = CASES[name] & 0xFFFFFFFF
    bm = probe.builders.roaring(probe.longs(values), False, False)
    chunks = jr.chunks_of(np.unique(values).astype(np.uint32))
    cards = np.array([c.cardinality for c in chunks])
    assert (
        portable_bytes(len(chunks), int(payload_bytes(cards).sum())) == bm.serializedSizeInBytes()
    )


def test_empty_bitmaps(probe):
    assert probe.builders.roaring64(probe.longs([]), False, False).getLongSizeInBytes() == 1
    assert probe.builders.roaring(probe.longs([]), False, False).serializedSizeInBytes() == 8
