"""The proposal ``sorted-chunks`` in Java (``broker/tracker/``), against Pulsar 4.2.4's own
``AbstractDelayedDeliveryTracker``: the build, hand-computed JOL sizes, dedup and membership,
wide ids, the 4096-byte chunk bound and the dispatch order (docs/design/sorted-chunks.md).

Each test runs ``trackerlab.delayed.SizeCheck`` in a JVM of its own; the class skips, naming
what is missing, only without Java 17+, ``mvn`` or Maven Central. A compile error fails.
"""

from __future__ import annotations

import itertools
import subprocess

import numpy as np
import pytest

from trackerlab.broker import tracker
from trackerlab.core.java_runtime import JavaMissing, java_executable, require_java
from trackerlab.jvmcheck.pulsar.maven import MavenUnavailable

VERSION = "4.2.4"
TICK_MS = 1000  # bits = floor(log2(1000)) = 9: a tick key covers 512 ms


@pytest.fixture(scope="module")
def tracker_build() -> tracker.TrackerBuild:
    try:
        require_java()
        return tracker.build(VERSION)
    except JavaMissing as exc:
        pytest.skip(f"Java is missing: {exc}")
    except MavenUnavailable as exc:
        pytest.skip(f"the sorted-chunks tracker cannot be built: {exc}")


def _run(built, rows, tick_ms=TICK_MS, strict=False, **kwargs) -> tracker.SizeCheckResult:
    a = np.array(rows, dtype=np.int64).reshape(-1, 4)
    return tracker.size_check(built, a[:, 0], a[:, 1], a[:, 2], a[:, 3], tick_ms, strict, **kwargs)


def _capacity(length: int) -> int:
    """The design's capacity rule: the smallest power of two >= 32 holding ``length``."""
    cap = 32
    while cap < length:
        cap *= 2
    return cap


def test_the_tracker_compiles_against_4_2_4(tracker_build):
    delayed = tracker_build.classes / "trackerlab" / "delayed"
    for name in ("SortedChunksTracker", "SortedChunksTrackerFactory", "Chunk", "ChunkCodec",
                 "SizeCheck"):  # fmt: skip
        assert (delayed / f"{name}.class").is_file(), name
    assert any(j.name == "pulsar-broker-4.2.4.jar" for j in tracker_build.jars)
    assert any(j.name == "RoaringBitmap-1.6.9.jar" for j in tracker_build.jars)


# (ledger, entry, deliverAt ms, now ms); the last is a re-add of (1, 1)
TINY = [(1, 0, 5000, 0), (1, 1, 5000, 0), (1, 2, 6000, 0), (2, 0, 5000, 0), (1, 1, 5000, 0)]


def test_tiny_case_jol_sizes_by_hand(tracker_build):
    """JVM layout: 12 B headers, 4 B compressed references, 8 B alignment, arrays 16 B.

    Keys (tick = deliverAt >> 9): (9,1,0) (9,1,1) (9,2,0) (11,1,2): one chunk. Tokens after
    the first: gap 1 -> varint(1<<2|0) = 1 B; same tick, ledger +1 -> varint(1<<2|1), varint(0)
    = 2 B; tick +2 -> varint(2<<2|2), varint(zigzag(-1) = 1), varint(2) = 3 B: length 6 B.

    TreeSet<Chunk>:  TreeSet 12 + m 4 = 16
                     TreeMap 12 + 7 refs (comparator, root, entrySet, navigableKeySet,
                       descendingMap, keySet, values) 28 + size, modCount 8 = 48
                     TreeMap.Entry 12 + 5 refs 20 + boolean 1 = 33 -> 40
                     TreeSet.PRESENT (an Object) 12 -> 16
                     Chunk 12 + 6 longs 48 + 3 ints 12 + data 4 = 76 -> 80
                     byte[32] 16 + 32 = 48                           -> 248
    probe:           one Chunk, data null                            -> 80
    HashMap<Long, bitmap>, two ledgers:
                     HashMap 12 + 4 refs (keySet, values, table, entrySet) 16 + 3 ints 12
                       + loadFactor 4 = 44 -> 48
                     Node[16] 16 + 64 = 80
                     per ledger: HashMap.Node 12 + hash 4 + 3 refs 12 = 28 -> 32;
                       Long 12 + 8 = 20 -> 24; RoaringBitmap 12 + 4 = 16;
                       RoaringArray 12 + size 4 + keys 4 + values 4 = 24;
                       keys char[4] (RoaringArray.INITIAL_CAPACITY = 4) 16 + 8 = 24;
                       Container[4] 16 + 16 = 32; ArrayContainer 12 + cardinality 4 + ref 4
                       = 20 -> 24; content char[4] (ArrayContainer.DEFAULT_INIT_SIZE = 4) 24
                       = 200                                         -> 48 + 80 + 2*200 = 528
    together: 248 + 80 + 528 = 856.

    getBufferMemoryUsage (the design's formula): chunk 72 + 16 + 32 + node 40 = 160; bitmaps
    (RoaringBitmap.getLongSizeInBytes: 8 + per container 2 + ArrayContainer 2*card + 4):
    ledger 1 (3 ids) 8 + 2 + 10 = 20, ledger 2 (1 id) 8 + 2 + 6 = 16 -> 196.

    After getScheduledMessages(10) at now 10000 everything is gone: TreeSet 16 + TreeMap 48
    = 64; probe 80; HashMap 48 + its table Node[16] 80 (a table never shrinks) = 128 -> 272.
    """
    r = _run(tracker_build, TINY, scheduled=(10, 10_000), chunks=True)
    a = r.added
    assert (a.total_bytes, a.treeset_bytes, a.probe_bytes, a.membership_bytes) == (
        856, 248, 80, 528,
    )  # fmt: skip
    assert a.buffer_memory_usage_bytes == 196
    assert a.chunk_rows == ((9, 1, 0, 11, 1, 2, 4, 6, 0, 32),)
    s = r.scheduled
    assert (s.total_bytes, s.treeset_bytes, s.probe_bytes, s.membership_bytes) == (
        272, 64, 80, 128,
    )  # fmt: skip
    assert (s.buffer_memory_usage_bytes, s.delayed_messages, s.chunks) == (0, 0, 0)
    assert r.positions == ((1, 0), (1, 1), (1, 2), (2, 0))


def test_re_adds_count_once_and_contains_message(tracker_build):
    rows = [*TINY, (2, 0, 9000, 0), (1, 2, 6000, 1)]  # re-adds, one with another deliverAt
    asked = [(1, 0), (1, 1), (1, 2), (2, 0), (1, 3), (3, 0), (2, 1)]
    r = _run(tracker_build, rows, scheduled=(2, 5000), contains=asked)
    assert (r.tracked, r.refused) == (7, 0)  # a re-add returns true...
    assert r.added.delayed_messages == 4  # ...and counts nothing
    assert [c[2] for c in r.added.contains] == [True] * 4 + [False] * 3
    # cutoff 5000 + 1000: tick 9 ([4608, 5119] ms) is due, tick 11 ([5632, 6143]) is not (a
    # tick is due when its last ms is within the cutoff); the two smallest keys
    assert r.positions == ((1, 0), (1, 1))
    assert r.scheduled.delayed_messages == 2
    assert [c[2] for c in r.scheduled.contains] == [False, False, True, True, False, False, False]


def test_refusals_follow_the_cutoff(tracker_build):
    """``deliverAt < 0 || deliverAt <= cutoff``: cutoff = now + tick, or now when strict."""
    rows = [(1, 0, 1000, 0), (1, 1, 1001, 0), (1, 2, -5, 0), (1, 3, 2001, 1000)]
    r = _run(tracker_build, rows)
    assert (r.tracked, r.refused, r.added.delayed_messages) == (2, 2, 2)
    strict = _run(tracker_build, [(1, 0, 0, 0), (1, 1, 1, 0)], strict=True)
    assert (strict.tracked, strict.refused) == (1, 1)


def test_entry_ids_above_2_32_and_ledgers_near_2_62(tracker_build):
    """Keys: (9, L1, 5) (9, L2, 3) (9, L2, 2^32+7) (11, L2, 2^40), L1 = 2^62-3, L2 = 2^62-1.
    Tokens: ledger +2 -> varint(2<<2|1) 1 B + varint(3) 1 B; gap 2^32+4 -> varint((2^32+4)<<2)
    35 bits = 5 B; tick +2 -> varint(10) 1 B, varint(zigzag(0)) 1 B, varint(2^40) 41 bits = 6 B:
    2 + 5 + 8 = 15 B."""
    big_l1, big_l2 = (1 << 62) - 3, (1 << 62) - 1
    rows = [
        (big_l1, 5, 5000, 0), (big_l2, (1 << 32) + 7, 5000, 0), (big_l2, 1 << 40, 6000, 0),
        (big_l2, 3, 5000, 0),
    ]  # fmt: skip
    asked = [(big_l1, 5), (big_l2, 3), (big_l2, (1 << 32) + 7), (big_l2, 1 << 40),
             (big_l2, 7), (big_l2, (1 << 32) + 8)]  # fmt: skip
    r = _run(tracker_build, rows, scheduled=(10, 10_000), chunks=True, contains=asked)
    assert r.added.chunk_rows == ((9, big_l1, 5, 11, big_l2, 1 << 40, 4, 15, 0, 32),)
    assert [c[2] for c in r.added.contains] == [True] * 4 + [False] * 2
    assert "Roaring64Bitmap*1=" in r.added.classes  # L2 switched on its first id >= 2^32
    assert r.positions == ((big_l1, 5), (big_l2, 3), (big_l2, (1 << 32) + 7), (big_l2, 1 << 40))
    assert not any(c[2] for c in r.scheduled.contains)


def test_a_delta_beyond_the_stated_limit_is_refused(tracker_build):
    with pytest.raises(tracker.SizeCheckFailed, match="exited with 4"):
        _run(tracker_build, [(0, 0, 5000, 0), (1 << 62, 0, 5000, 0)])


def test_chunks_stay_within_4096_bytes_and_dispatch_in_key_order(tracker_build):
    """20 000 adds in random time order; the due prefix must be the smallest keys (numpy)."""
    rng = np.random.default_rng(27)
    n = 20_000
    ledger = rng.integers(0, 5, n)
    entry = np.arange(n) * 3 + rng.integers(0, 3, n)  # distinct positions
    deliver = rng.integers(10_000, 3_610_000, n)
    now = np.zeros(n, dtype=np.int64)
    take = 3_000
    r = tracker.size_check(
        tracker_build, ledger, entry, deliver, now, TICK_MS, False, scheduled=(take, 4_000_000),
        chunks=True,
    )  # fmt: skip
    a = r.added
    assert a.delayed_messages == n
    assert a.chunks > 10 and a.max_chunk_length_bytes <= 4096 and a.max_chunk_capacity_bytes <= 4096
    rows = a.chunk_rows
    assert sum(row[6] for row in rows) == n
    for row in rows:  # nothing dispatched yet: every chunk was sized by the capacity rule
        assert row[8] == 0 and row[9] == _capacity(row[7]), row
    for prev, nxt in itertools.pairwise(rows):
        assert prev[3:6] < nxt[0:3]  # chunks sorted and disjoint
    keys = sorted(zip((deliver >> 9).tolist(), ledger.tolist(), entry.tolist(), strict=True))
    assert rows[0][0:3] == keys[0] and rows[-1][3:6] == keys[-1]
    expected = sorted((led, ent) for _, led, ent in keys[:take])
    assert list(r.positions) == expected
    assert r.scheduled.delayed_messages == n - take
    assert r.scheduled.max_chunk_length_bytes <= 4096


def test_an_append_after_a_dispatch_compacts_the_unread_bytes(tracker_build):
    """The append path's third case (SortedChunksTracker's Javadoc). Ledger 1, entries 0..32
    at 5200 ms (tick 10): the first in the fields, 32 one-byte tokens (gap 1 -> varint(4)):
    length 32 = capacity 32. Dispatch 5 at now 4700 (cutoff 5700 >= tick 10's last ms 5631):
    first (10,1,5), readOffset 5, length 27. Append (20,1,33) at 10300 ms: token varint(10<<2|2),
    varint(zigzag(0)), varint(33) = 3 B; 5 + 27 + 3 > 32 and 27 + 3 <= 4096, so data becomes
    the smallest power of two >= 32 holding 30 B (32), the 27 unread bytes copied to 0."""
    rows = [(1, e, 5200, 0) for e in range(33)]
    r0 = _run(tracker_build, rows, chunks=True)
    assert r0.added.chunk_rows == ((10, 1, 0, 10, 1, 32, 33, 32, 0, 32),)
    rows += [(tracker.DISPATCH, 5, 0, 4700), (1, 33, 10_300, 4700)]
    r = _run(tracker_build, rows, chunks=True)
    assert r.steps == ((5, ((1, 0), (1, 1), (1, 2), (1, 3), (1, 4))),)
    assert r.added.chunk_rows == ((10, 1, 5, 20, 1, 33, 29, 30, 0, 32),)
    assert r.added.treeset_bytes == 248  # 16 + 48 + 40 + 16 + Chunk 80 + byte[32] 48


def test_run_optimize_when_an_append_starts_a_new_ledger(tracker_build):
    """Ledger 1's ids 0..999 in order, then ledger 2: the append that starts ledger 2 runs
    runOptimize() on ledger 1's bitmap (one run, not an array of 1000 ids); ledger 2's single
    id stays an array. Without ledger 2, ledger 1 stays an ArrayContainer."""
    one = [(1, e, 5000 + e, 0) for e in range(1000)]
    r = _run(tracker_build, [*one, (2, 0, 7000, 0)])
    assert "RunContainer*1=" in r.added.classes and "ArrayContainer*1=" in r.added.classes
    alone = _run(tracker_build, one)
    assert "RunContainer" not in alone.added.classes
    assert "ArrayContainer*1=" in alone.added.classes


def test_get_scheduled_messages_hand_example(tracker_build):
    """Keys (tick = deliverAt >> 9): (3,1)@2100 -> 4, (1,5)@2100 -> 4, (2,0)@1100 -> 2,
    (1,9)@1100 -> 2, (1,2)@3000 -> 5. Sorted: (2,1,9) (2,2,0) (4,1,5) (4,3,1) (5,1,2).
    A tick is due when its last ms is within the cutoff. At now 1600, not strict: cutoff 2600;
    due: tick 2 (last ms 1535) and tick 4 (2559), not tick 5 (3071). n = 3 takes (2,1,9)
    (2,2,0) (4,1,5), returned as positions sorted: (1,5) (1,9) (2,0). At now 1100 (cutoff 2100)
    tick 4 is not due yet: (1,9) (2,0). Strict at now 1535: only tick 2 is due: (1,9) (2,0);
    at 1534 nothing."""
    rows = [(3, 1, 2100, 0), (1, 5, 2100, 0), (2, 0, 1100, 0), (1, 9, 1100, 0),
            (1, 2, 3000, 0)]  # fmt: skip
    r = _run(tracker_build, rows, scheduled=(3, 1600))
    assert r.positions == ((1, 5), (1, 9), (2, 0))
    assert r.scheduled.delayed_messages == 2
    assert _run(tracker_build, rows, scheduled=(3, 1100)).positions == ((1, 9), (2, 0))
    strict_rows = [(led, ent, at, -1000) for led, ent, at, _ in rows]
    s = _run(tracker_build, strict_rows, strict=True, scheduled=(3, 1535))
    assert s.positions == ((1, 9), (2, 0))
    assert _run(tracker_build, strict_rows, strict=True, scheduled=(3, 1534)).positions == ()


def test_size_check_refuses_without_instrumentation_and_bad_arguments(tracker_build, tmp_path):
    java = java_executable() or "java"
    data = tmp_path / "m.bin"
    data.write_bytes(np.array([1, 0, 5000, 0], dtype=">i8").tobytes())
    cmd = [java, "-cp", tracker_build.class_path(), tracker.SIZE_CHECK_CLASS, str(data)]
    plain = subprocess.run([*cmd, "1000", "false"], capture_output=True, text=True, timeout=120)
    assert plain.returncode == 3, plain.stderr
    assert "SizeCheck refuses to measure: JOL has no Instrumentation" in plain.stderr
    bad = subprocess.run([*cmd, "0", "false"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.strip() == "TICK_MS must be an integer >= 1, got 0"
