"""The catalog: one name per design, its metadata, lookups with hints, and ``size``."""

from __future__ import annotations

import pytest

from tests.conftest import assert_one_line_error
from trackerlab.catalog import CATALOG, TRACKERS, SizeRequest, size
from trackerlab.core.errors import UsageError
from trackerlab.models.design import PENDING_ACKS
from trackerlab.models.nack.nack_designs import open_addressing_table_bytes
from trackerlab.models.pending_acks.layouts import LAYOUTS
from trackerlab.workloads.stream import Workload


def _request(messages: int = 1000, delay: str = "fixed:60000ms") -> SizeRequest:
    return SizeRequest(Workload.from_options(messages, 1.0, delay=delay, batch_size=10))


def test_every_design_names_its_java_and_can_do_something():
    assert len(CATALOG) >= 18
    for name, design in CATALOG.items():
        assert design.tracker in TRACKERS, name
        assert design.summary and design.java and design.source and design.releases, name
        assert design.capabilities, name  # sized or simulated some way
        assert set(design.options) <= {
            "trim_bits",
            "tick_ms",
            "ledgers",
            "layout",
            "run_optimize",
            "shape",
        }
        assert design.proposal == (design.releases == "proposal"), name


def test_pending_acks_names_are_the_layouts():
    assert set(CATALOG.names(tracker=PENDING_ACKS)) == set(LAYOUTS)
    for name in LAYOUTS:
        assert size(name, SizeRequest(Workload(100), ledgers=2)).structure == name


def test_names_by_capability():
    assert CATALOG.names("simulate") == (
        "triple-heap",
        "time-buckets",
        "pip195-buckets",
        "delay-level-topics",
        "time-buckets-long-bitmap",
        "pip448-topic-index",
    )
    assert "nack-pair-map" in CATALOG.names("from_counts")
    # PIP-195 builds its state before the first seal (jvm-check --pulsar holds it to the class)
    assert "pip195-buckets" in CATALOG.names("build")
    assert "delay-level-topics" not in CATALOG.names("build")


@pytest.mark.parametrize(
    ("name", "among", "message"),
    [
        ("heap", None, "unknown design 'heap'; did you mean 'triple-heap'?"),
        ("levels", None, "unknown design 'levels'; did you mean 'delay-level-topics'?"),
        ("pair-hash-map", None, "did you mean 'nack-pair-map'?"),
        ("tripel-heap", None, "did you mean 'triple-heap'?"),  # a typo: the closest name
        ("b-tree", None, "unknown design 'b-tree'; choose one of: nack-hash-map"),
        ("pip195-buckets", ("triple-heap",), "design 'pip195-buckets' cannot be used here"),
    ],
)
def test_lookup_errors_are_one_line_with_a_hint(name, among, message):
    with pytest.raises(UsageError) as err:
        CATALOG.check(name, among)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_sizes_of_one_hundred_entries():
    request = _request()  # 1000 messages in batches of 10: 100 entries
    pair = size("nack-pair-map", request)
    assert pair.entries == 100 and pair.jvm_bytes == 16 + 24 + 96 + 16 + 32 * 512
    assert pair.theory_bytes == pytest.approx(100 * 32 / 0.66)
    assert pair.theory_corrected_bytes == 32 * 512
    assert 32 * 512 < pair.python_bytes < 32 * 512 + 4000
    hashmap = size("nack-hash-map", request)
    assert hashmap.jvm_bytes == 48 + (16 + 4 * 256) + 88 * 100  # 100 > 0.75 × 128 → 256 slots
    assert hashmap.python_bytes > 100 * 100  # tuple keys of 3 ints, int values, the dict
    heap = size("triple-heap", request)
    assert heap.jvm_direct_bytes == 8 * 384 and heap.theory_bytes == 2400
    short = size("triple-heap", SizeRequest(_request(delay="uniform:0:2s").workload))
    assert 0 < short.details["entries_not_tracked"] < 100  # due within the 1 s tick
    assert heap.details["segments"] == 1 and heap.details["v1_bytebuf_bytes"] == 8 * 3 * 128
    sixteen = size("nack-pair-map-16", request)
    assert sixteen.details["sections"] == 16 and sixteen.details["buckets"] == 16 * 32


def test_delayed_time_buckets_use_the_trackers_tick_cutoff():
    """``time-buckets`` goes through BucketDelayedTracker.add_chunk: a message due within one
    tick of its publication is dispatched, not indexed."""
    workload = Workload.from_options(10_000, 1.0, delay="uniform:0:2000ms")
    kept = size("time-buckets", SizeRequest(workload, tick_ms=1000))
    all_kept = size("nack-time-buckets", SizeRequest(workload, trim_bits=9))
    assert 0.45 < kept.entries / all_kept.entries < 0.55  # P(delay > 1000) = 0.5
    assert kept.details["messages_per_bucket"] == 512  # tick 1000 ms: 9 bits


def test_open_addressing_table_bytes():
    assert open_addressing_table_bytes(337) == 32 * 512
    assert open_addressing_table_bytes(338) == 32 * 1024
    assert open_addressing_table_bytes(1_000_000) == 64 * 2**20


def test_bad_size_options(cli):
    with pytest.raises(UsageError, match="--ledgers"):
        SizeRequest(Workload(10), ledgers=0)
    assert_one_line_error(cli("size", "triple-heap", "--messages", "-1"), "--messages")
    result = cli("size", "nack-pair-map", "--messages", "2000")
    assert result.returncode == 0 and "jvm_bytes          131,224" in result.stdout  # 4096 buckets


def test_designs_command_lists_the_catalog(cli):
    result = cli("designs")
    assert result.returncode == 0, result.stderr
    for name in CATALOG:
        assert f"  {name} " in result.stdout
    assert "delayed-delivery index (broker, one per subscription" in result.stdout
