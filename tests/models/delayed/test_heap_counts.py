"""Heap tracker sizes from the entry count alone, against built trackers."""

import numpy as np
import pytest

from trackerlab.models.delayed.heap import InMemoryDelayedDeliveryTracker
from trackerlab.models.delayed.heap_counts import (
    canonical_python_bytes,
    heap_sizes,
    segment_lengths,
)
from trackerlab.models.primitives.triple_heap import MAX_SEGMENT_SIZE
from trackerlab.sizing.python import python_real_bytes
from trackerlab.workloads.stream import DEFAULT_START_MS


@pytest.mark.parametrize("n", [1, 100, 50_000, 800_000])
def test_heap_sizes_match_built_tracker(n):
    at = DEFAULT_START_MS + 10**9 + np.arange(n)
    tracker = InMemoryDelayedDeliveryTracker.from_arrays(
        10_000 + np.arange(n) // 50_000,
        np.arange(n) % 50_000,
        at,
        now_ms=DEFAULT_START_MS + np.arange(n) // 10,
        tick_time_ms=1000,
    )
    sizes = heap_sizes(n, 1000)
    assert sizes.jvm_heap_bytes == tracker.jvm_bytes()
    assert sizes.jvm_direct_bytes == tracker.jvm_direct_bytes()
    assert sizes.capacity_longs == tracker.queue.capacity_longs
    # small int fields of the tracker (counts, timer targets) differ from the reference's;
    # both count instance dicts as fresh dicts (CPython sizes them by process history)
    assert abs(sizes.python_bytes - canonical_python_bytes(tracker)) <= 160
    assert abs(canonical_python_bytes(tracker) - python_real_bytes(tracker)) <= 1024


def test_segments_beyond_one_are_full():
    assert segment_lengths(10) == [48]
    lengths = segment_lengths(MAX_SEGMENT_SIZE // 3 + 5)  # 2M + 15 longs
    assert lengths == [MAX_SEGMENT_SIZE] * len(lengths) and len(lengths) == 2


_ORDERS = {
    "1000 first": "for t in (1000, 60000, 7): print(t, hc.heap_sizes(5, t).python_bytes)",
    "7 first": "for t in (7, 60000, 1000): print(t, hc.heap_sizes(5, t).python_bytes)",
    "after other trackers": (
        "from trackerlab.catalog import size\n"
        "from trackerlab.sizing.request import SizeRequest\n"
        "from trackerlab.workloads.stream import Workload\n"
        "for t in (5, 6, 8, 9):\n"
        "    size('triple-heap', SizeRequest(Workload.from_options(2000, 1, delay='fixed:1h'), tick_ms=t))\n"
        "for t in (60000, 1000, 7): print(t, hc.heap_sizes(5, t).python_bytes)"
    ),
}


def test_python_bytes_do_not_depend_on_process_history():
    """The n-th tick sized in a process used to get 40 * (n - 1) B less (CPython's shared-key
    instance dicts), so a resumed sweep differed from an uninterrupted one by 80 B."""
    import subprocess
    import sys

    outputs = set()
    for code in _ORDERS.values():
        res = subprocess.run(
            [
                sys.executable,
                "-c",
                "from trackerlab.models.delayed import heap_counts as hc\n" + code,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.add(tuple(sorted(res.stdout.split("\n"))))
    assert len(outputs) == 1
    values = {line.split()[1] for line in next(iter(outputs)) if line}
    assert len(values) == 1  # and the tick itself does not change the reference either
