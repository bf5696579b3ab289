"""Pair-map sizes from a count equal the sizes of a map grown by real puts."""

from __future__ import annotations

import pytest

from trackerlab.models.nack import pair_map_counts as pms
from trackerlab.models.nack.map_trackers import NegativeAcksTrackerPairMap
from trackerlab.sizing.jvm import UNCOMPRESSED
from trackerlab.sizing.python import python_real_bytes


def _grown(n: int):
    m = NegativeAcksTrackerPairMap.new_map()
    for i in range(n):
        m.put(7 + i // 1000, i % 1000, 1, 1_000_000 + i)
    return m


@pytest.mark.parametrize("n", [0, 1, 337, 338, 339, 700, 5000])
def test_sizes_from_count_equal_a_grown_map(n):
    m = _grown(n)
    got = pms.pair_map_sizes(n)
    assert got.capacity == m.capacity()
    assert got.jvm_heap_bytes == m.jvm_bytes()
    assert pms.pair_map_sizes(n, UNCOMPRESSED).jvm_heap_bytes == m.jvm_bytes(UNCOMPRESSED)
    # within the counters' int objects (module docstring); pympler's count of the shared
    # float and int objects also moves by ~100 B with what the process allocated before
    assert got.python_bytes == pytest.approx(python_real_bytes(m), rel=0.01)


def test_growth_steps_and_the_java_array_bound():
    # expectedItems 256 / fill 0.66 -> 512 buckets; the 338th key passes 337 = 512 * 0.66
    assert pms.pair_map_sizes(337).capacity == 512
    assert pms.pair_map_sizes(338).capacity == 1024
    assert pms.MAX_ENTRIES == 177_167_408  # (int) (2^28 * 0.66f), Java float
    assert pms.pair_map_sizes(pms.MAX_ENTRIES).capacity == 1 << 28
    assert pms.pair_map_sizes(pms.MAX_ENTRIES).jvm_heap_bytes > 8 << 30
    with pytest.raises(ValueError, match=r"0\.\.177,167,408"):
        pms.pair_map_sizes(pms.MAX_ENTRIES + 1)
