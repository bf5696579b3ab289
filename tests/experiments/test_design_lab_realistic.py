"""The realistic design-lab matrix (issue 27 item 1): ledger rollover, refusals, the entropy
estimate, dispatching memory and the tables, against hand-computed values."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from trackerlab.core.errors import UsageError
from trackerlab.experiments import design_lab as dl
from trackerlab.experiments import design_lab_realistic as r
from trackerlab.workloads.ledger_rollover import LedgerRollover
from trackerlab.workloads.stream import MessageChunk


def test_entries_per_ledger_follow_the_release_rule_by_hand():
    # 100 msg/s: entry k (1-based) is added (k - 1) * 10 ms after the first; 50,000 entries
    # come at 499,990 ms, too young; the first add older than 600,000 ms is k - 1 = 60,001
    assert r.entries_per_ledger(0.1) == 60_002
    assert r.entries_per_ledger(1.0) == 600_002
    assert r.entries_per_ledger(10.0) == 6_000_002
    # 10 msg/s: 50,000 entries take 83 min > 10 min: the entry quota rules
    assert r.entries_per_ledger(0.01) == 50_000
    # 0.1 msg/s: 240 min pass at entry 1 + 14,400,000 / 10,000 = 1,441
    assert r.entries_per_ledger(1e-4) == 1_441


def test_the_per_entry_rule_at_a_boundary_by_hand():
    # scaled settings: 3 entries, 10 ms minimum, 40 ms maximum; an entry every 4 ms
    small = LedgerRollover(max_entries=3, max_size_bytes=1 << 40, min_rollover_ms=10,
                           max_rollover_ms=40)  # fmt: skip
    ids = r.rollover_reference([4 * k for k in range(9)], small)
    # ages 0, 4, 8 (quota reached at 3 but not older than 10 ms), 12: the 4th entry closes it
    assert ids == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3), (2, 0)]
    assert small.entries_per_ledger(0.25, 1) == 4
    # on time: 100 entries would take 396 ms; age 40 ms comes at the 11th entry
    slow = replace(small, max_entries=100)
    assert r.rollover_reference([4 * k for k in range(12)], slow)[10:] == [(0, 10), (1, 0)]
    assert slow.entries_per_ledger(0.25, 1) == 11


def test_a_realistic_stream_rolls_its_ledger_at_entry_60002():
    cell = {"delay": "uniform:0:1h", "pattern": "all", "rate_per_ms": 0.1, "tick_ms": 1000,
            "batch_size": 1, "messages": 120_010, "entries_per_ledger": 60_002}  # fmt: skip
    w = dl.cell_workload(cell)
    c = w.chunk(60_000, 60_003)
    assert c.ledger.tolist() == [10_000, 10_000, 10_001]
    assert c.entry.tolist() == [60_000, 60_001, 0]
    # the per-entry rule over the real settings gives the same ids
    publish = np.concatenate([c.publish_ms for c in w.chunks()])
    ref = r.rollover_reference(publish.tolist(), r.ROLLOVER, start_ledger=10_000)
    ledger = np.concatenate([c.ledger for c in w.chunks()])
    entry = np.concatenate([c.entry for c in w.chunks()])
    assert ref == list(zip(ledger.tolist(), entry.tolist(), strict=True))


def test_packed_positions_refuse_ledgers_past_2_to_16_entries():
    def cell(rate, n):
        return {"delay": "uniform:0:1h", "pattern": "all", "rate_per_ms": rate,
                "tick_ms": 1000, "batch_size": 1, "messages": n,
                "entries_per_ledger": r.entries_per_ledger(rate)}  # fmt: skip

    assert r.packed_refusal(dl.cell_workload(cell(0.1, 10**6))) == ""  # 60,002 per ledger
    assert r.packed_refusal(dl.cell_workload(cell(1.0, 65_536))) == ""  # top id 65,535
    assert r.packed_refusal(dl.cell_workload(cell(1.0, 65_537))).startswith("entry id 65,536 >=")
    # 0.1 msg/s: ledgers of 1,441 entries; 2^16 of them fit the slot window, one more does not
    assert r.packed_refusal(dl.cell_workload(cell(1e-4, 1441 * 65_536))) == ""
    assert r.packed_refusal(dl.cell_workload(cell(1e-4, 1441 * 65_537))) == "65,537 ledgers > 2^16"
    rows = {row["design"]: row for row in r.size_cell(cell(1.0, 100_000), entropy=False)}
    assert rows["time-buckets-hier"]["refused"].startswith("entry id 99,999 >= 2^16")
    assert math.isnan(rows["time-buckets-hier"]["jvm_bytes"])
    assert rows["triple-heap"]["refused"] == "" and rows["triple-heap"]["entries"] > 0


def test_plugin_entropy_by_hand():
    assert r.plugin_entropy_bits([2, 2]) == pytest.approx(1.0)
    assert r.plugin_entropy_bits([1, 1, 1, 1]) == pytest.approx(2.0)
    assert r.plugin_entropy_bits([3, 1, 0]) == pytest.approx(0.811278, abs=1e-6)
    assert r.plugin_entropy_bits([]) == 0.0


def test_stream_symbols_of_a_tiny_chunk_by_hand():
    # tick 1000 ms: 512-ms buckets (bits 9); the 500-ms delay is due within the tick
    chunk = MessageChunk(
        index=np.arange(4),
        publish_ms=np.array([0, 0, 100, 600]),
        ledger=np.array([5, 5, 5, 6]),
        entry=np.array([0, 1, 2, 0]),
        batch_index=np.zeros(4, dtype=np.int32),
        delay_ms=np.array([2000, 500, 3000, 1100]),
    )
    bucket, position, last = r.stream_symbols(chunk, 9, 1000, (5, -1))
    # 2000 >> 9 = 3; 3100 >> 9 = 6; (1700 >> 9) - (600 >> 9) = 3 - 1 = 2
    assert bucket.tolist() == [3, 6, 2]
    # gap 0 - (-1) = 1; gap 2 - 0 = 2; ledger step 1 to entry 0: -(1 << 32 | 0) - 1
    assert position.tolist() == [1, 2, -(1 << 32) - 1]
    assert last == (6, 0)


def test_entropy_estimate_of_a_fixed_delay_stream_by_hand():
    """1,024 messages at 1/ms, fixed 2 s, 512-ms buckets from an aligned start: publish phase
    p < 48 of a bucket lands 3 buckets on, the other 464 phases 4 on (2000 = 3 * 512 + 464);
    positions are consecutive (gap 1 each): H = H2(96 / 1024) bits per entry. The true
    entropy is 0 (the phase is known): the estimator is not a lower bound here."""
    cell = {"delay": "fixed:2s", "pattern": "all", "rate_per_ms": 1.0, "tick_ms": 1000,
            "batch_size": 1, "messages": 1024, "entries_per_ledger": 50_000}  # fmt: skip
    est = r.entropy_estimate(dl.cell_workload(cell), 1000)
    p = 96 / 1024
    h = -(p * math.log2(p) + (1 - p) * math.log2(1 - p))
    assert est["tracked"] == 1024
    assert est["position_bits"] == 0.0
    assert est["bucket_bits"] == pytest.approx(h, rel=1e-12)
    assert est["entropy_bytes_per_entry"] == pytest.approx(h / 8)


def test_matrix_definitions_and_the_ablation_label():
    cells = r.REALISTIC.cells()
    assert len(cells) == 2 * 2 * 3 * 2 * 7
    assert {c["batch_size"] for c in cells} == {1}
    assert {c["messages"] for c in cells} == {10**k for k in range(3, 10)}
    assert {c["entries_per_ledger"] for c in cells} == {60_002, 600_002, 6_000_002}
    old = r.ABLATION.cells()
    assert {c["scope"] for c in old} == {"ablation"} and {c["batch_size"] for c in old} == {100}
    assert {c["entries_per_ledger"] for c in old} == {50_000}
    assert "never builds" in r.ABLATION.note


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"sizes": (0,)}, "tracker size (messages)"),
        ({"sizes": ()}, "tracker sizes"),
        ({"rates_per_ms": (0.0,)}, "rate (messages per ms)"),
        ({"delays": ("bogus:1",)}, "unknown delay distribution"),
    ],
)
def test_bad_axes_are_refused(change, needle):
    with pytest.raises(UsageError, match=re_escape(needle)):
        replace(r.REALISTIC, **change)


def re_escape(text: str) -> str:
    import re

    return re.escape(text)


def test_dispatch_memory_holds_every_message_until_the_first_bucket_is_due():
    """Fixed 5 s at 1/ms, 3,000 messages, tick 1 s: publishing ends at 2,999 ms, and the scan
    at 3,000 ms has cutoff 4,000 ms, below the first bucket (4,608 = 9 * 512): the peak is
    every message, for every design."""
    cell = {"delay": "fixed:5s", "pattern": "all", "rate_per_ms": 1.0, "tick_ms": 1000,
            "batch_size": 1, "messages": 3000, "entries_per_ledger": 600_002}  # fmt: skip
    summary, samples = r.dispatch_memory(cell, sample_ms=1000)
    summary = summary.set_index("design")
    assert list(summary.index) == list(r.DISPATCH_DESIGNS)
    assert (summary.peak_held == 3000).all()
    heap = samples[samples.design == "triple-heap"]
    assert heap.held.tolist()[:4] == [0, 1000, 2000, 3000]
    assert (summary.live_worst >= summary.live_at_publish_end - 1e-9).all()
    with pytest.raises(UsageError, match="dispatch messages"):
        r.dispatch_memory({**cell, "messages": r.MAX_DISPATCH_MESSAGES + 1})


@pytest.fixture(scope="module")
def frame():
    m = replace(r.REALISTIC, delays=("uniform:0:1h",), patterns=("all",),
                rates_per_ms=(0.1, 1.0), ticks_ms=(60_000,), sizes=(2000, 100_000))  # fmt: skip
    return r.run_realistic(m, dispatch_upto=2000)


def test_realistic_tables(frame):
    assert len(frame) == 4 * len(r.DESIGNS)
    table = r.cell_table(frame)
    assert {"paused_B_per_entry", "dispatching_B_per_entry", "floor_B_per_entry",
            "entropy_B_per_entry", "paused_over_24B", "refused"} <= set(table.columns)  # fmt: skip
    small = frame[frame.messages == 2000].set_index(["rate_per_ms", "design"])
    hier = small.loc[(0.1, "time-buckets-hier")]
    # the issue: due near buckets sit expanded while dispatching (tick 60 s, uniform 0-1 h)
    assert hier.live_bytes_per_entry > hier.bytes_per_entry
    assert hier.bytes_per_entry < dl.HEAP_BYTES_PER_ENTRY
    # uniform over ~110 buckets, dense: the estimate is below the counting floor
    assert (small.entropy_per_entry < small.floor_per_entry).all()
    assert np.isnan(small.loc[(0.1, "time-buckets")].live_bytes_per_entry)  # not dispatched
    big = frame[(frame.messages == 100_000) & frame.design.isin(dl.PROPOSALS)]
    assert (big[big.rate_per_ms == 1.0].refused != "").all()
    assert (big[big.rate_per_ms == 0.1].refused == "").all()
    worst = r.worst_per_design(frame).set_index("design")
    assert worst.loc["time-buckets-hier", "cells_refused"] == 1
    assert worst.loc["triple-heap", "cells_refused"] == 0
    by_size = r.worst_by_size(frame)
    assert set(by_size.held_entries) == {"1e3..1e4", "1e4..1e5"}  # ~1,983 and ~99,983 held
    assert len(by_size) == 2 * len(r.DESIGNS)
    over = r.above_heap(frame)
    assert set(over.design) <= set(r.PROPOSALS)
    assert len(over[over.refused != ""]) == 4  # every proposal refuses the 10^5 cell at 1/ms
    acc = r.acceptance(frame)
    assert acc["cells"] == 4 and acc["cells_refused"] == 1 and not acc["passed"]


def test_sorted_chunks_is_never_refused_and_sized_in_every_cell(frame):
    """64-bit positions: the 10^5-message cell at 1 msg/s (600,002-entry ledgers) that every
    packed proposal refuses is sized; paused bytes are the numpy sorted build, dispatching
    bytes the per-message model (cells of 2,000 messages)."""
    sc = frame[frame.design == r.SORTED_CHUNKS].set_index(["messages", "rate_per_ms"])
    assert (sc.refused == "").all() and sc.bytes_per_entry.notna().all()
    assert (sc.bytes_per_entry < dl.HEAP_BYTES_PER_ENTRY).all()
    assert sc.loc[(100_000, 1.0), "entries"] == sc.loc[(100_000, 1.0), "index_entries"]
    assert sc.loc[(2000, 0.1)].live_bytes_per_entry > 0
    assert np.isnan(sc.loc[(100_000, 0.1)].live_bytes_per_entry)  # above dispatch_upto


def test_write_frame_is_atomic(tmp_path, frame):
    path = tmp_path / "out" / "realistic.csv"
    digest = r.write_frame(r.cell_table(frame), path)
    assert len(digest) == 64 and path.read_text().startswith("delay,pattern")


def test_the_old_cells_run_as_a_labelled_ablation():
    m = replace(r.ABLATION, delays=("uniform:0:1h",), patterns=("all",), rates_per_ms=(5.0,),
                ticks_ms=(1000,), sizes=(2000,))  # fmt: skip
    f = r.run_realistic(m, dispatch_upto=0)
    assert set(f.scope) == {"ablation"} and set(f.batch_size) == {100}
    assert f.note.str.startswith("ablation only").all()
    # 2,000 messages in batches of 100: 20 entries, each held once per bucket it reaches
    heap = f.set_index("design").loc["triple-heap"]
    assert heap.index_entries >= 20 and heap.entries == 20
    assert f.live_bytes_per_entry.isna().all()
