"""``--pulsar-version``: the structures and defaults of a release, named in the output; the
byte-level reason two releases differ; one-line errors for unknown versions."""

from __future__ import annotations

import json

import pytest

from tests.conftest import assert_one_line_error
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing import jvm_long_bitmap as jl
from trackerlab.sizing import jvm_roaring as jr

KNOWN = "2.10, 2.11, 3.0.x, 3.3.x, 4.0.0, 4.0.1–4.0.5, 4.0.6+, 4.1.x, 4.2.x, master"


def _size(cli, *args: str) -> dict:
    r = cli("size", *args, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_4_0_5_and_4_1_differ_by_the_views_and_one_atomic_long(cli):
    """Both run #23611's index as 4.0.4's and 4.2.4's classes hold it (AVL -> red-black ->
    Roaring64Bitmap of RoaringBitmap 1.2.0). 4.0.5's ``addMessage`` streams ``values()`` of
    every map (``getNumberOfDelayedMessages``), so each map keeps a 16-B view: one per bucket
    and one for the outer map (measured on 4.0.1's own class, jvm-check --pulsar 4.0.1). 4.1
    counts with #24430's ``AtomicLong delayedMessagesCount`` instead: 12-B header, 4-B gap,
    8-B long = 24 B (jvm-check ``jdk-atomic-long-x2``: Object[2] 24 B + 2 x 24 B = 72 B); its
    maps get the views only when the broker's stats call ``getBufferMemoryUsage()``."""
    old = _size(cli, "delayed", "--pulsar-version", "4.0.5", "--messages", "20000")
    new = _size(cli, "delayed", "--pulsar-version", "4.1", "--messages", "20000")
    assert old["structure"] == new["structure"] == "time-buckets"
    buckets = old["details"]["buckets"]
    assert buckets == new["details"]["buckets"] > 1
    views = 16 * (buckets + 1)
    assert old["details"]["values_views_jvm_bytes"] == views
    assert new["details"]["metric_views_jvm_bytes"] == views
    assert old["jvm_bytes"] == new["jvm_bytes"] + views
    assert old["details"]["counters_jvm_bytes"] == 0
    assert new["details"]["counters_jvm_bytes"] == 24 == jl.atomic_long()
    assert old["details"]["pulsar_version"] == "4.0.5 (line 4.0.1–4.0.5)"
    assert new["details"]["pulsar_version"] == "4.1.x"
    text_old = cli("size", "delayed", "--pulsar-version", "4.0.5", "--messages", "20000").stdout
    text_new = cli("size", "delayed", "--pulsar-version", "4.1", "--messages", "20000").stdout
    assert text_old != text_new and "counters_jvm_bytes 24" in text_new
    assert text_new.splitlines()[0] == "pulsar_version     4.1.x (structures and defaults assumed)"


def test_4_0_1_and_4_0_5_differ_by_the_inner_map_only(cli):
    """4.0.1 and 4.0.2 create ``Long2ObjectOpenHashMap`` inner maps, 4.0.4 ``Long2ObjectRBTreeMap``
    (their sources; 4.0.1's class measured by jvm-check --pulsar 4.0.1)."""
    a = _size(cli, "delayed", "--pulsar-version", "4.0.1", "--messages", "1")
    b = _size(cli, "delayed", "--pulsar-version", "4.0.5", "--messages", "1")
    open_hash = jc.fastutil_long2object_open_hash_map(jc.fastutil_capacity(1))
    assert a["jvm_bytes"] - b["jvm_bytes"] == open_hash - jc.fastutil_rb_tree_map(1)


def test_4_0_7_runs_the_heap_again(cli):
    """4.0.6 reverted #23611 (#24429): a 4.0.7 broker keeps 24 B per message in direct memory."""
    r = _size(cli, "delayed", "--pulsar-version", "4.0.7", "--messages", "20000")
    assert r["structure"] == "triple-heap" and r["jvm_direct_bytes"] >= 24 * 20000
    assert r["details"]["pulsar_version"] == "4.0.7 (line 4.0.6+)"


def test_4_2_to_master_one_message_down_to_the_byte(cli):
    """One delayed message. 4.2 (4.2.4's class, measured): AVL entry map 168 B +
    Long2ObjectRBTreeMap with one ledger + Roaring64Bitmap of RoaringBitmap 1.6.9 with one value
    (248 B). master: the same maps + ConcurrentRoaringBitmap over RoaringBitmap (32 +
    StampedLock 48 + RoaringBitmap 16 + RoaringArray 24 + char[4] 24 + Container[4] 32 +
    ArrayContainer 24 + its char[4] 24 = 224 B, jvm-check ``long-bitmap-wraps-roaring-1``)."""
    old = _size(cli, "delayed", "--pulsar-version", "4.2", "--messages", "1")
    new = _size(cli, "delayed", "--pulsar-version", "master", "--messages", "1")
    avl = jc.fastutil_avl_tree_map(1)
    rb = jc.fastutil_rb_tree_map(1)
    roaring64 = jr.roaring64_bitmap_bytes([jr.Chunk(0, 1, 1)])
    assert (avl, roaring64) == (168, 248)
    assert old["jvm_bytes"] == avl + rb + roaring64
    leaf = jl.leaf_bytes_of([jr.Chunk(0, 1, 1)], "wraps-roaring")
    assert leaf == 32 + 48 + 16 + 24 + 24 + 32 + 24 + 24
    assert new["jvm_bytes"] == avl + rb + leaf == 848
    assert old["jvm_bytes"] - new["jvm_bytes"] == 248 - 224
    assert new["details"]["counters_jvm_bytes"] == 48


def test_version_defaults_are_used_and_named(cli):
    r = cli("size", "nack-time-buckets", "--messages", "2000")  # newest release: 8 bits
    assert r.returncode == 0, r.stderr
    assert "messages_per_bucket 256" in r.stdout.replace("256.0", "256")
    assert r.stdout.startswith("pulsar_version     4.2.x")
    note = cli("size", "time-buckets", "--pulsar-version", "4.0.7", "--messages", "100")
    assert "note               4.0.7 (line 4.0.6+) runs triple-heap (delayed)" in note.stdout


def test_pending_acks_of_4_x(cli):
    r = _size(cli, "pending-acks", "--pulsar-version", "4.1", "--messages", "1000")
    assert r["structure"] == "pending-acks-rb-pairs"
    # RB outer (1 ledger) + RB inner of 1000 entries, each with a 24-B IntIntPair
    assert r["jvm_bytes"] == jc.fastutil_rb_tree_map(1, jc.fastutil_rb_tree_map(1000, 24_000))


@pytest.mark.parametrize("bad", ["5.0", "3.1", "latest"])
def test_unknown_version_is_one_line_with_the_known_ones(cli, bad):
    assert_one_line_error(
        cli("size", "delayed", "--pulsar-version", bad), "--pulsar-version", KNOWN
    )


def test_absent_structure_is_one_line(cli):
    assert_one_line_error(
        cli("size", "delayed-bucket", "--pulsar-version", "2.11"), "2.11", "delayed_bucket"
    )


def test_simulate_delayed_names_the_version_and_runs_its_designs(cli):
    r = cli("simulate", "delayed", "--days", "0.2", "--samples", "4", "--pulsar-version", "4.0.7")
    assert r.returncode == 0, r.stderr
    assert "Pulsar 4.0.7 (line 4.0.6+): structures and defaults assumed: tick 1000 ms" in r.stdout
    assert "  triple-heap: default in-memory tracker" in r.stdout
    assert "  pip195-buckets: opt-in PIP-195 bucket tracker" in r.stdout
    designs = [
        line.split()[0]
        for line in r.stdout.splitlines()
        if line.startswith(("triple", "pip", "time"))
    ]
    assert designs == ["triple-heap", "pip195-buckets"]
    master = cli(
        "simulate", "delayed", "--days", "0.2", "--samples", "4", "--pulsar-version", "master"
    )
    assert "pip448-topic-index: opt-in PIP-448 topic index (merge not-established)" in master.stdout
    assert "time-buckets-long-bitmap" in master.stdout


def test_simulate_delayed_unknown_version(cli):
    assert_one_line_error(
        cli("simulate", "delayed", "--days", "0.01", "--pulsar-version", "4.9"), KNOWN
    )
