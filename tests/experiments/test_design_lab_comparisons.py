"""The comparisons table (issue 27, item 2): the stored CSV loads, each memory figure is derived
again here from an independent computation (JVM layout rules, record sizes, the Elias-Fano
formula, the project's models), and corrupt files are refused with the file, row and column."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from trackerlab.experiments import design_lab_comparisons as dc
from trackerlab.experiments.design_lab_realistic import entries_per_ledger
from trackerlab.models.delayed import pip195_mutable as pm
from trackerlab.models.delayed import pip195_tracker
from trackerlab.models.delayed import topic_index as ti
from trackerlab.models.proposals import sorted_chunks as sc
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing.jvm import COMPRESSED as C
from trackerlab.workloads.stream import Workload

DESIGNS = [
    "sorted-chunks",
    "kafka-timing-wheel",
    "netty-hashed-wheel",
    "rocketmq-timer-log",
    "pip195-buckets",
    "elias-fano-buckets",
    "pip448-topic-index",
]
#: The reference workload of the table: uniform 0-1 h delays, 100 msg/s, unbatched, Pulsar
#: 4.2.4's ledger rollover (60,002 entries per ledger at this rate), tick 1 s.
RATE_PER_MS = 0.1
TICK_MS = 1000
START_LEDGER = 10_000


def workload(messages: int) -> Workload:
    return Workload.from_options(
        messages,
        RATE_PER_MS,
        delay="uniform:0:1h",
        batch_size=1,
        entries_per_ledger=entries_per_ledger(RATE_PER_MS),
    )


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    return dc.load().set_index("design")


def test_stored_csv_loads(rows):
    assert list(rows.index) == DESIGNS
    assert (rows[list(dc.BYTE_COLUMNS)] >= 0).all().all()
    assert rows["source"].str.len().gt(10).all()
    shown = dc.table(rows.reset_index())
    assert {"memory (B per entry)", "memory fixed (B)", "disk (B per entry)"} <= set(shown)
    assert entries_per_ledger(RATE_PER_MS) == 60_002  # the figure the notes state


def test_sorted_chunks_from_the_model(rows):
    built = sc.workload_sorted_build(workload(10**6), TICK_MS)
    assert built.entries == 999_700  # 300 of 10^6 are due within the tick
    row = rows.loc["sorted-chunks"]
    assert row.memory_bytes_per_entry == pytest.approx(built.jvm_bytes / built.entries, abs=1e-6)
    assert row.memory_bytes_per_entry == pytest.approx(2.72, abs=0.005)  # the earlier helper's
    empty = np.zeros(0, dtype=np.int64)
    assert row.memory_fixed_bytes == sc.sorted_build(empty, empty, empty).jvm_bytes == 192
    assert row.disk_bytes_per_entry == 0


def test_kafka_timing_wheel_by_layout_rules(rows):
    # TimerTaskEntry {TimerTask timerTask; long expirationMs; TimerTaskList list; next; prev}
    entry = C.instance("LJLLL")
    # a TimerTask subclass: {TimerTaskEntry timerTaskEntry; long delayMs} + (ledgerId, entryId)
    task = C.instance("LJJJ")
    assert (entry, task) == (40, 40)  # 12 + 4 + 8 + 3 x 4 = 36 -> 40; 12 + 4 + 3 x 8 = 40
    # TimingWheel {long tickMs; int wheelSize; taskCounter; queue; long interval; buckets;
    # long currentTimeMs; overflowWheel}; TimerTaskList {time, taskCounter, expiration, root}
    bucket = C.instance("LLLL") + C.instance("J") + entry  # + AtomicLong + root entry
    wheel = C.instance("JILLJLJL") + C.array(20, "L") + 20 * bucket
    assert wheel == 56 + 96 + 20 * 96 == 2072
    # wheels for 1 h delays: level k covers 20^k ms (tickMs 1, wheelSize 20)
    wheels = next(k for k in range(1, 20) if 20**k > 3_600_000)
    row = rows.loc["kafka-timing-wheel"]
    assert row.memory_bytes_per_entry == entry + task == 80
    assert row.memory_fixed_bytes == wheels * wheel == 6 * 2072


def test_netty_hashed_wheel_by_layout_rules(rows):
    # HashedWheelTimeout {timer; task; long deadline; int state; long remainingRounds; next;
    # prev; bucket}: 12 + 4 (int in the gap) + 2 x 8 + 5 x 4 = 52 -> 56
    timeout = C.instance("LLJIJLLL")
    task = C.instance("JJ")  # a TimerTask holding (ledgerId, entryId): 12 + 4 + 16 = 32
    fixed = 512 * C.instance("LL") + C.array(512, "L")  # HashedWheelBucket {head, tail}
    row = rows.loc["netty-hashed-wheel"]
    assert row.memory_bytes_per_entry == timeout + task == 88
    assert row.memory_fixed_bytes == fixed == 512 * 24 + 16 + 2048


def test_rocketmq_record_and_wheel_sizes(rows):
    # TimerLog.UNIT_SIZE: size int, prev pos long, magic int, write time long, delay int,
    # offsetPy long, sizePy int, topic hash int, reserved long
    unit = 4 + 8 + 4 + 8 + 4 + 8 + 4 + 4 + 8
    wheel = 7 * 24 * 3600 * 2 * 32  # TIMER_WHEEL_TTL_DAY x DAY_SECS slots, x 2, Slot.SIZE 32
    row = rows.loc["rocketmq-timer-log"]
    assert row.disk_bytes_per_entry == unit == 52
    assert row.memory_fixed_bytes == wheel == 38_707_200
    assert row.memory_bytes_per_entry == 0


def test_pip195_mutable_bucket_and_snapshot(rows):
    chunk = next(workload(60_000).chunks())
    keep = chunk.deliver_at > chunk.publish_ms + TICK_MS
    led, ent, at = chunk.ledger[keep], chunk.entry[keep], chunk.deliver_at[keep]
    assert pm.first_seal(led) is None  # one ledger: the mutable bucket has not sealed
    index = pm.mutable_index(led, ent, at)
    # TripleLongPriorityQueue: 3 longs per index, capacity grown by half above 256 tuples
    assert 24 <= index.direct_bytes / index.entries <= 24 * 1.5
    order = np.lexsort((ent, led, at))
    segments = pip195_tracker.cut_segments(at[order], led[order], ent[order])
    disk = sum(s.entry_bytes() for s in segments) + pip195_tracker._metadata_entry_bytes(segments)
    row = rows.loc["pip195-buckets"]
    per_entry = (index.heap_bytes + index.direct_bytes) / index.entries
    assert row.memory_bytes_per_entry == pytest.approx(per_entry, abs=1e-6)
    assert row.memory_fixed_bytes == index.queues_heap_bytes
    assert row.disk_bytes_per_entry == pytest.approx(disk / index.entries, abs=1e-6)
    # one DelayedIndex by hand: tag + length + 3 tags + varints of a 41-bit timestamp (6 B),
    # ledger 10,000 (2 B) and entry 59,999 (3 B) = 16 B
    assert pip195_tracker.delayed_index_bytes(1_700_000_000_000, 10_000, 59_999) == 16
    assert 15 <= row.disk_bytes_per_entry <= 16 + 2  # DelayedIndex + run-optimized bitmaps


def test_elias_fano_formula_at_stated_n_and_u():
    # n = 38, U = 320,784: U/n = 8,441.7, ceil(log2) = 14 -> 16 bits per key
    assert dc.elias_fano_bits(38, 320_784) == 38 * 16
    assert dc.elias_fano_bits(1, 1) == 2 and dc.elias_fano_bits(4, 4) == 8
    assert dc.elias_fano_bits(1000, 1 << 20) == 1000 * (2 + math.ceil(math.log2((1 << 20) / 1000)))
    with pytest.raises(ValueError, match="1 <= n <= universe"):
        dc.elias_fano_bits(5, 4)


def test_elias_fano_over_the_workload(rows):
    epl = entries_per_ledger(RATE_PER_MS)
    t, led, e = sc.tracked_arrays(workload(10**6), TICK_MS)
    seq = (led - START_LEDGER) * epl + e  # a position's sequence number in the topic
    order = np.lexsort((seq, t))
    t, seq = t[order], seq[order]
    starts = np.flatnonzero(np.r_[True, t[1:] != t[:-1]])
    n = np.diff(np.r_[starts, len(t)])
    universe = np.maximum.reduceat(seq, starts) - seq[starts] + 1
    low = np.array(
        [dc.elias_fano_bits(int(a), int(b)) // int(a) - 2 for a, b in zip(n, universe, strict=True)]
    )
    bits = int((n * (2 + low)).sum())
    # per bucket: TreeMap entry + Long key + {long base; int n, L; long[] lower, upper}
    node = jc.tree_map(1) - jc.tree_map(0) + C.boxed("J") + C.instance("JIILL")
    arrays = sum(C.array(int(w), "J") for w in -(-(n * low) // 64)) + sum(
        C.array(int(w), "J") for w in -(-(2 * n) // 64)
    )
    total = bits / 8 + len(n) * node + arrays
    row = rows.loc["elias-fano-buckets"]
    assert (len(n), node) == (26_293, 104)
    assert row.memory_bytes_per_entry == pytest.approx(total / len(t), abs=1e-6)
    assert bits / 8 / len(t) == pytest.approx(1.883, abs=0.001)  # the notes' bits-only figure
    assert row.memory_fixed_bytes == jc.tree_map(0) == 48


def test_pip448_fixed_part(rows):
    index = ti.TopicDelayedIndex(TICK_MS)
    index.register("sub")
    assert rows.loc["pip448-topic-index"].memory_fixed_bytes == index.jvm_bytes()


@pytest.mark.slow
def test_pip448_from_the_model(rows):
    """About 35 s: the project's PIP-448 model over the 10^6-message workload."""
    index = ti.TopicDelayedIndex(TICK_MS)
    for chunk in workload(10**6).chunks():
        index.add_chunk(chunk)
    per_entry = index.jvm_bytes() / index.count
    assert rows.loc["pip448-topic-index"].memory_bytes_per_entry == pytest.approx(
        per_entry, abs=1e-6
    )


# --------------------------------------------------------------------------- corrupt files


def _write(tmp_path: Path, frame: pd.DataFrame) -> Path:
    path = tmp_path / "comparisons.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def raw() -> pd.DataFrame:
    return pd.read_csv(dc.default_path(), dtype=str, keep_default_na=False)


def test_missing_column_is_refused(tmp_path, raw):
    path = _write(tmp_path, raw.drop(columns=["disk_bytes_per_entry"]))
    with pytest.raises(
        ValueError, match=r"comparisons\.csv: column 'disk_bytes_per_entry' is missing"
    ):
        dc.load(path)


def test_extra_column_is_refused(tmp_path, raw):
    path = _write(tmp_path, raw.assign(colour="red"))
    with pytest.raises(ValueError, match="unexpected column 'colour'"):
        dc.load(path)


def test_negative_bytes_are_refused(tmp_path, raw):
    raw.loc[2, "memory_fixed_bytes"] = "-1"
    with pytest.raises(
        ValueError,
        match=r"comparisons\.csv, row 3 \(netty-hashed-wheel\), column 'memory_fixed_bytes': "
        r"'-1' must be a finite number of bytes >= 0",
    ):
        dc.load(_write(tmp_path, raw))


def test_bare_string_bytes_are_refused(tmp_path, raw):
    raw.loc[0, "memory_bytes_per_entry"] = "about 3"
    with pytest.raises(
        ValueError,
        match=r"row 1 \(sorted-chunks\), column 'memory_bytes_per_entry': 'about 3' is not a number",
    ):
        dc.load(_write(tmp_path, raw))


def test_empty_source_is_refused(tmp_path, raw):
    raw.loc[4, "source"] = "  "
    with pytest.raises(ValueError, match=r"row 5 \(pip195-buckets\), column 'source': empty"):
        dc.load(_write(tmp_path, raw))


def test_nan_bytes_are_allowed_and_duplicates_refused(tmp_path, raw):
    raw.loc[5, "disk_bytes_per_entry"] = "NaN"
    frame = dc.load(_write(tmp_path, raw))
    assert math.isnan(frame.loc[5, "disk_bytes_per_entry"])
    raw.loc[6, "design"] = "sorted-chunks"
    with pytest.raises(ValueError, match="'sorted-chunks' appears twice"):
        dc.load(_write(tmp_path, raw))


def test_empty_and_ragged_files_are_refused(tmp_path):
    path = tmp_path / "comparisons.csv"
    path.write_text("")
    with pytest.raises(ValueError, match=r"comparisons\.csv: not a CSV table"):
        dc.load(path)
    path.write_text(",".join(dc.COLUMNS) + "\n")
    with pytest.raises(ValueError, match=r"comparisons\.csv: no rows"):
        dc.load(path)
    path.write_text(",".join(dc.COLUMNS) + "\n" + ",".join(["x"] * 14) + "\n")
    with pytest.raises(ValueError, match=r"comparisons\.csv, row 1: 14 fields, the header has 11"):
        dc.load(path)
