"""``trackerlab size`` for the pair map, the version A/B nack trackers and the delayed heap."""

from __future__ import annotations

import pytest

from tests.conftest import assert_one_line_error
from trackerlab.errors import UsageError
from trackerlab.sizing.heap_structures import entry_stream, open_addressing_table_bytes
from trackerlab.sizing.registry import SizeRequest, build, structures


def test_entry_stream_groups_batches_and_rolls_ledgers():
    request = SizeRequest(
        messages=25,
        batch_size=10,
        entries_per_ledger=2,
        start_ledger=7,
        rate_per_ms=2,
        delay="fixed:100",
    )
    ledger, entry, publish, deliver_at = entry_stream(request)
    assert ledger.tolist() == [7, 7, 8] and entry.tolist() == [0, 1, 0]
    start = int(publish[0]) - 4
    assert (publish - start).tolist() == [4, 9, 12]  # last message of each entry: 9, 19, 24
    assert (deliver_at - publish).tolist() == [100, 100, 100]
    some = entry_stream(SizeRequest(messages=1000, batch_size=10, pattern="burst:5:95"))
    assert len(some[0]) == 10  # messages 0-4, 100-104, ...: one entry in ten


def test_registered_structures():
    assert {"nack-hashmap", "nack-pair-map", "pair-map-16", "delayed-heap"} <= set(structures())


def test_sizes_of_one_hundred_entries():
    request = SizeRequest(messages=1000, batch_size=10)  # 100 entries
    pair = build("nack-pair-map", request)
    assert pair.entries == 100 and pair.jvm_bytes == 16 + 24 + 96 + 16 + 32 * 512
    assert pair.theory_bytes == pytest.approx(100 * 32 / 0.66)
    assert pair.theory_corrected_bytes == 32 * 512
    assert 32 * 512 < pair.python_bytes < 32 * 512 + 4000
    hashmap = build("nack-hashmap", request)
    assert hashmap.jvm_bytes == 48 + (16 + 4 * 256) + 88 * 100  # 100 > 0.75 × 128 → 256 slots
    assert hashmap.python_bytes > 100 * 100  # tuple keys of 3 ints, int values, the dict
    heap = build("delayed-heap", request)
    assert heap.jvm_direct_bytes == 8 * 384 and heap.theory_bytes == 2400
    short = build("delayed-heap", SizeRequest(messages=1000, batch_size=10, delay="uniform:0:2s"))
    assert 0 < short.details["entries_not_tracked"] < 100  # due within the 1 s tick
    assert heap.details["segments"] == 1 and heap.details["v1_bytebuf_bytes"] == 8 * 3 * 128
    sixteen = build("pair-map-16", request)
    assert sixteen.details["sections"] == 16 and sixteen.details["buckets"] == 16 * 32


def test_open_addressing_table_bytes():
    assert open_addressing_table_bytes(337) == 32 * 512
    assert open_addressing_table_bytes(338) == 32 * 1024
    assert open_addressing_table_bytes(1_000_000) == 64 * 2**20


def test_bad_size_options(cli):
    with pytest.raises(UsageError, match="--batch-size"):
        SizeRequest(batch_size=0)
    assert_one_line_error(cli("size", "delayed-heap", "--messages", "-1"), "--messages")
    result = cli("size", "nack-pair-map", "--messages", "2000")
    assert result.returncode == 0 and "jvm_bytes          131,224" in result.stdout  # 4096 buckets
