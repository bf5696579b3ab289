"""Design lab II's verdict (issue 27 item 5) on hand-built frames: every expected figure is
computed by hand below, and every number a sentence states is parsed back out of it."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from trackerlab.core.errors import UsageError
from trackerlab.experiments import design_lab_verdict as v


def broker_row(tracker, workload, pending, jol_per_entry, **extra):
    row = {
        "tracker": tracker, "pulsar_version": "4.2.4", "workload": workload,
        "rate_per_s": 10.0, "achieved_rate_per_s": 10.0, "pending_entries": pending,
        "jol_bytes": jol_per_entry * pending, "jol_bytes_per_entry": jol_per_entry,
        "metric_index_bytes": 7 * pending, "alloc_bytes_per_s": 1000.0, "gc_pauses": 2,
        "gc_pause_total_ms": 30.0, "gc_pause_max_ms": 20.0, "rebuild_ms": 500.0,
        "count_before_unload": pending, "count_rebuilt": pending,
    }  # fmt: skip
    row.update(extra)
    return row


def broker_frame():
    # w1: the most pending is 100; sorted-chunks 40 (share 0.4 < 0.5: behind), pip195 60 (0.6)
    return pd.DataFrame([
        broker_row("sorted-chunks", "w1", 40, 4.5, alloc_bytes_per_s=2000.0, achieved_rate_per_s=8.0),
        broker_row("time-buckets", "w1", 100, 30.0),
        broker_row("pip195-buckets", "w1", 60, 35.0),
        broker_row("time-buckets", "w2", 50, 200.0),
    ])  # fmt: skip


def lat_row(design, version, kind, bench, p99, p50=1.0, alloc=8.0):
    return {"pulsar_version": version, "kind": kind, "design": design, "benchmark": bench,
            "prefill_messages": 1000, "tick_ms": 1000, "p50_ns": p50, "p99_ns": p99,
            "p99_9_ns": 2 * p99, "mean_ns": p99 / 2, "samples": 10,
            "alloc_bytes_per_op": alloc}  # fmt: skip


def latency_frame(out_of_order_p99=9000.0):
    tb, sc = "time-buckets (#23611)", "sorted-chunks (trackerlab)"
    return pd.DataFrame([
        lat_row(tb, "4.2.4", "in-memory", "addInOrder", 200.0, p50=100.0),
        lat_row(tb, "4.2.4", "in-memory", "addOutOfOrder", 1000.0),
        lat_row(tb, "4.2.4", "in-memory", "getScheduled100", 50_000.0),
        lat_row(sc, "4.2.4", "sorted-chunks", "addInOrder", 300.0),  # 1.5x: not claimed slower
        lat_row(sc, "4.2.4", "sorted-chunks", "addOutOfOrder", out_of_order_p99),
        lat_row(sc, "4.2.4", "sorted-chunks", "getScheduled100", 40_000.0, alloc=64.0),
    ])  # fmt: skip


def real_row(design, messages, held, jvm_bytes, live=np.nan, rate=1.0, refused=""):
    return {"delay": "uniform:0:1h", "pattern": "all", "rate_per_ms": rate, "tick_ms": 1000,
            "batch_size": 1, "messages": messages, "design": design, "index_entries": held,
            "entries": held if not refused else 0,
            "jvm_bytes": jvm_bytes if not refused else np.nan,
            "bytes_per_entry": jvm_bytes / held if not refused else np.nan,
            "live_bytes_per_entry": live, "refused": refused}  # fmt: skip


def realistic_frame():
    return pd.DataFrame([
        # sorted-chunks: 8 entries in 696 B = 87 B/entry (504 B above 8 x 24); the same cell
        # at 20,000 held entries: 100,000 B = 5 B/entry
        real_row("sorted-chunks", 1000, 8, 696.0, live=12.0),
        real_row("sorted-chunks", 100_000, 20_000, 100_000.0),
        real_row("sorted-chunks", 100_000, 50_000, 300_000.0, rate=10.0),  # 6 B/entry
        real_row("time-buckets-hier", 1000, 8, 560.0, live=9.0),  # 70 B/entry
        real_row("time-buckets-hier", 100_000, 20_000, 60_000.0),  # 3 B/entry
        real_row("time-buckets-hier", 100_000, 50_000, 0.0, rate=10.0, refused="entry id >= 2^16"),
        real_row("triple-heap", 1000, 8, 624.0, live=40.0),  # 78 B/entry
        real_row("triple-heap", 100_000, 20_000, 600_000.0),  # 30 B/entry
        real_row("triple-heap", 100_000, 50_000, 1_500_000.0, rate=10.0),
    ])  # fmt: skip


#: A number a reader reads (not the digits of "w1" or "p99").
NUMBER = re.compile(r"(?<![\w^])\d[\d,]*(?:\.\d+)?(?!\w)")


def numbers(text):
    return [float(x.replace(",", "")) for x in NUMBER.findall(text)]


# --------------------------------------------------------------------------- tables


def test_broker_table_by_hand():
    t = v.broker_table(broker_frame(), latency_frame()).set_index(["tracker", "workload"])
    sc = t.loc[("sorted-chunks", "w1")]
    assert sc.alloc_bytes_per_msg == 2000.0 / 8.0  # 250 B per message
    assert sc.pending_share == pytest.approx(0.4) and bool(sc.behind)
    assert not t.loc[("pip195-buckets", "w1")].behind  # 60 / 100 = 0.6
    assert t.loc[("time-buckets", "w2")].pending_share == 1.0  # alone on w2
    assert sc.add_out_of_order_p99_ns == 9000.0 and sc.get_scheduled_p99_ns == 40_000.0
    assert t.loc[("time-buckets", "w1")].add_in_order_p99_ns == 200.0
    assert math.isnan(t.loc[("pip195-buckets", "w1")].add_in_order_p99_ns)  # no JMH row
    assert sc.metric_index_bytes == 280 and sc.jol_bytes_per_entry == 4.5
    assert set(v.BROKER_HEADERS) <= set(t.reset_index().columns)
    assert "B per message" in v.BROKER_HEADERS["alloc_bytes_per_msg"]
    assert "whole-broker" in v.BROKER_HEADERS["alloc_bytes_per_msg"]


def test_latency_table_by_hand():
    t = v.latency_table(latency_frame()).set_index("tracker")
    assert list(t.index) == ["time-buckets", "sorted-chunks"]
    assert t.at["time-buckets", "add_in_order_p50_ns"] == 100.0
    assert t.at["sorted-chunks", "add_out_of_order_p99_ns"] == 9000.0
    assert t.at["sorted-chunks", "get_scheduled_alloc_bytes"] == 64.0
    assert t.at["sorted-chunks", "prefill_messages"] == 1000
    assert v.latency_table(latency_frame().iloc[:0]).empty


def test_missing_runs():
    gone = v.missing_runs(broker_frame(), ("sorted-chunks", "time-buckets"), ("w1", "w2"))
    assert gone == [("sorted-chunks", "w2")]


def test_realistic_summary_by_hand():
    s = v.realistic_summary(realistic_frame())
    by = s.by_size.set_index(["held_decade", "design"])
    assert by.at[(0, "sorted-chunks"), "worst_paused_B"] == 87.0
    assert by.at[(0, "sorted-chunks"), "worst_dispatching_B"] == 12.0
    assert by.at[(0, "sorted-chunks"), "cells_above_24B"] == 1
    assert by.at[(4, "sorted-chunks"), "worst_paused_B"] == 6.0  # 20,000 and 50,000: decade 4
    assert by.at[(4, "sorted-chunks"), "held_entries"] == "10,000..100,000"
    assert by.at[(0, "triple-heap"), "held_entries"] == "1..10"
    assert by.at[(4, "time-buckets-hier"), "cells_refused"] == 1
    assert by.at[(4, "triple-heap"), "cells_above_24B"] == 2  # 30 B/entry both
    assert list(s.above.index_entries) == [8]
    reason = s.above.reason.iloc[0]
    assert reason.startswith("a fixed per-tracker cost: 504 B above 24 B x 8 entries")
    assert "5.0 B/entry in the same cell at 20,000 held entries" in reason


def test_realistic_summary_states_dispatching_and_persistent_excess():
    f = pd.DataFrame([real_row("sorted-chunks", 1000, 1000, 20_000.0, live=30.0),
                      real_row("sorted-chunks", 1000, 1000, 40_000.0, rate=10.0)])  # fmt: skip
    reasons = list(v.realistic_summary(f).above.reason)
    assert reasons[0] == "while dispatching: 30.0 B/entry live against 20.0 paused"
    assert reasons[1].startswith("40.0 B/entry paused at 1,000 held entries and no larger run")


def test_combine_keeps_the_dispatching_row():
    paused = realistic_frame()
    disp = paused.iloc[[0]].copy()
    paused.loc[0, "live_bytes_per_entry"] = np.nan
    both = v.combine_realistic(paused, disp, None)
    assert len(both) == len(paused)
    assert both.loc[0, "live_bytes_per_entry"] == 12.0
    assert v.combine_realistic(None).empty


# --------------------------------------------------------------------------- loading


def test_load_broker_reads_summaries_only(tmp_path):
    frame = broker_frame()
    for _, row in frame.iterrows():
        pd.DataFrame([row]).to_parquet(tmp_path / f"trackers-{row.tracker}-{row.workload}.parquet")
    pd.DataFrame({"t_s": [1.0]}).to_parquet(tmp_path / "trackers-time-buckets-w1-samples.parquet")
    pd.DataFrame({"pause_ms": [1.0]}).to_parquet(tmp_path / "trackers-time-buckets-w1-gc.parquet")
    pd.DataFrame([frame.iloc[0]]).to_parquet(tmp_path / "trackers-sorted-chunks-w1-smoke.parquet")
    got = v.load_broker(tmp_path)
    assert len(got) == 4
    assert list(got.workload) == ["w1", "w1", "w1", "w2"]
    assert "trackers-sorted-chunks-w1-smoke.parquet" not in set(got.source_file)
    assert v.load_broker(tmp_path / "absent").empty
    pd.DataFrame({"tracker": ["x"]}).to_parquet(tmp_path / "trackers-x-w9.parquet")
    with pytest.raises(UsageError, match=r"trackers-x-w9\.parquet: missing columns pulsar_version"):
        v.load_broker(tmp_path)


def test_load_latency(tmp_path):
    latency_frame().to_parquet(tmp_path / "l.parquet")
    assert len(v.load_latency(tmp_path / "l.parquet")) == 6
    assert v.load_latency(tmp_path / "absent.parquet").empty


COMPARISONS_CSV = """design,system,source,memory_bytes_per_entry,memory_fixed_bytes,disk_bytes_per_entry,precision,ordering,recovery,basis,notes
kafka-timing-wheel,Kafka,TimingWheel.java:152,80.0,2072,0,1 ms,FIFO in bucket,none,layout,
netty-hashed-wheel,Netty,HashedWheelTimer.java:620,88.0,14352,0,100 ms,FIFO in bucket,none,layout,
elias-fano,paper,Vigna 2013,,,,exact,by position,rebuild,not sized,
"""


def test_load_comparisons_from_a_fixture_csv(tmp_path):
    path = tmp_path / "comparisons.csv"
    path.write_text(COMPARISONS_CSV)
    c = v.load_comparisons(path)
    assert list(c.design) == ["kafka-timing-wheel", "netty-hashed-wheel", "elias-fano"]
    t = v.comparisons_table(c)
    assert t.memory_bytes_per_entry.tolist()[:2] == [80.0, 88.0]
    lines = v.conclusions(realistic_frame(), latency_frame(), broker_frame(), c)
    line = next(x for x in lines if x.startswith("Comparisons"))
    assert line == ("Comparisons (3 rows): memory from 80.0 B/entry (kafka-timing-wheel) to "
                    "88.0 B/entry (netty-hashed-wheel).")  # fmt: skip
    (tmp_path / "bad.csv").write_text("design,system\nx,y\n")
    with pytest.raises(ValueError, match=r"bad\.csv: column 'source' is missing"):
        v.load_comparisons(tmp_path / "bad.csv")


def test_absent_comparisons_give_a_not_available_row(tmp_path):
    c = v.load_comparisons(tmp_path / "none.csv")
    assert list(c.design) == [v.NOT_AVAILABLE]
    assert c.notes.iloc[0] == "no comparisons file none.csv"
    # the stored file loads through design_lab_comparisons (its first row: the proposal)
    assert v.load_comparisons().design.iloc[0] == "sorted-chunks"
    lines = v.conclusions(realistic_frame(), latency_frame(), broker_frame(), c)
    assert any(x.startswith("Comparisons with other designs: not available (") for x in lines)
    lines = v.conclusions(realistic_frame(), latency_frame(), broker_frame(), None)
    assert "Comparisons with other designs: not available." in lines


def test_load_realistic_extra(tmp_path):
    assert v.load_realistic_extra(tmp_path / "none.parquet") is None
    realistic_frame().to_parquet(tmp_path / "r.parquet")
    assert len(v.load_realistic_extra(tmp_path / "r.parquet")) == 9
    realistic_frame().drop(columns="refused").to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(UsageError, match="missing columns refused"):
        v.load_realistic_extra(tmp_path / "bad.parquet")


# --------------------------------------------------------------------------- the sentence


def test_mixed_evidence_gives_a_but_not_yet_sentence_with_its_numbers():
    text = v.answer(realistic_frame(), latency_frame(), broker_frame())
    assert text.startswith("A broker engineer should want sorted-chunks for its memory,")
    assert "but not deploy it yet:" in text
    # the numbers, in order, against the frames computed by hand:
    # paused worst over cells of >= 10,000 held entries: max(5.0, 6.0) = 6.0 over 2 cells;
    # dispatching 12.0 over 1 cell of 8 held entries; above 24 B: 1 cell of 8 entries;
    # broker w1: 4.5 against 30.0; out-of-order p99 9,000 against 1,000 (9x > 2x);
    # in-order 300 vs 200 (1.5x) not stated; behind: 40 of 100 on w1; not run on w2
    assert numbers(text) == [6.0, 2, 10_000, 12.0, 1, 8, 24, 1, 8, 4.5, 30.0, 9000, 1000,
                             40, 100]  # fmt: skip
    assert "at worst 6.0 B/entry paused over the 2 realistic cells of at least 10,000 held" in text
    assert "out-of-order addMessage p99 is 9,000 ns against 1,000 ns for time-buckets" in text
    assert "in-order" not in text
    assert "held only 40 of 100 pending entries on w1 (behind)" in text
    assert text.endswith("it was not run in the broker on w2.")
    assert text.count(". ") == 0  # one sentence


def test_clean_evidence_says_want_it():
    b = broker_frame()
    b = b[b.workload == "w1"].copy()
    b.loc[b.tracker == "sorted-chunks", "pending_entries"] = 90  # 0.9 of 100: not behind
    text = v.answer(realistic_frame(), latency_frame(out_of_order_p99=1500.0), b)
    assert text.startswith("A broker engineer should want sorted-chunks: ")
    assert "not deploy" not in text
    assert numbers(text)[-2:] == [4.5, 30.0]  # "4.5 B/entry ... on w1 against 30.0"


def test_larger_than_the_incumbent_says_do_not_want():
    b = broker_frame()
    b.loc[b.tracker == "sorted-chunks", ["jol_bytes_per_entry", "pending_entries"]] = [50.0, 100]
    text = v.answer(realistic_frame(), latency_frame(), b)
    assert text.startswith("A broker engineer should not want sorted-chunks over time-buckets")
    assert "50.0 B/entry by JOL in the broker on w1 against 30.0 for time-buckets" in text


def test_missing_inputs_give_stated_sentences():
    empty_r = realistic_frame().iloc[:0]
    empty_l = latency_frame().iloc[:0]
    empty_b = pd.DataFrame(columns=list(v.BROKER_COLUMNS))
    text = v.answer(empty_r, empty_l, empty_b)
    assert text == ("There is no evidence yet to choose sorted-chunks over time-buckets: neither "
                    "the realistic matrix nor a broker run of both is in this report.")  # fmt: skip
    lines = v.conclusions(empty_r, empty_l, empty_b, None)
    assert "The realistic matrix was not run in this report." in lines
    assert "No JMH latency was found: the latency comparison is missing." in lines
    assert any(x.startswith("No broker runs were found") for x in lines)
    only_matrix = v.answer(realistic_frame(), empty_l, empty_b)
    assert only_matrix.endswith(
        "but not deploy it yet: no JMH latency compares it with time-buckets; no broker run "
        "compares it with time-buckets."
    )
    no_jmh = v.answer(realistic_frame(), empty_l, broker_frame())
    assert "no JMH latency compares it with time-buckets" in no_jmh
    assert v.broker_table(empty_b, empty_l).empty


def test_conclusions_numbers_match_the_frames():
    lines = v.conclusions(realistic_frame(), latency_frame(), broker_frame(), None)
    real = lines[0]
    # 3 distinct cells (1,000 msgs at 1/ms, 100,000 at 1/ms, 100,000 at 10/ms); held 8 to
    # 50,000; sorted-chunks worst paused 87.0, dispatching 12.0; above 24 B: 1 cell of 8
    assert numbers(real) == [3, 8, 50_000, 87.0, 12.0, 24, 1, 8]
    hier = next(x for x in lines if x.startswith("time-buckets-hier"))
    assert numbers(hier) == [70.0, 1, 3]  # 560 / 8 = 70; refused 1 of 3
    oo = next(x for x in lines if "out-of-order" in x)
    assert numbers(oo) == [1000, 1000, 9000]  # prefill, time-buckets, sorted-chunks
    w1 = next(x for x in lines if x.startswith("Broker, w1"))
    assert "sorted-chunks 4.5 B/entry over 40 entries (behind)" in w1
    assert "pip195-buckets 35.0 B/entry over 60 entries" in w1
    assert "time-buckets 30.0 B/entry over 100 entries" in w1 and w1.count("(behind)") == 1
    assert lines[-1] == v.answer(realistic_frame(), latency_frame(), broker_frame())


def test_the_stored_large_rows_load_as_paused_only():
    # design_lab_large stores paused sizes (no dispatching column): NaN there, never dropped
    path = v.repo_path("data/design_lab/realistic-sorted-chunks-large.parquet")
    rows = v.load_realistic_extra(path)
    raw = pd.read_parquet(path)
    assert len(rows) == len(raw) and rows.live_bytes_per_entry.isna().all()
    assert (rows.jvm_bytes == raw.jvm_bytes).all()


# --------------------------------------------------------------------------- each sentence


def test_realistic_sentences_by_hand():
    lines = v.realistic_sentences(realistic_frame())
    assert lines == [
        # 3 cells; held 8 to 50,000; sorted-chunks worst paused 696 / 8 = 87.0, live 12.0;
        # above 24 B only the 8-entry cell
        "Realistic matrix (3 cells, 8 to 50,000 held entries): sorted-chunks at worst 87.0 "
        "B/entry paused and 12.0 B/entry dispatching; above the heap's 24 B in 1 cells, all of "
        "at most 8 held entries.",
        # 560 / 8 = 70.0 (live 9.0 is less); refused the 10/ms cell
        "time-buckets-hier: at worst 70.0 B/entry where it holds the workload; refused 1 of 3 cells.",
        # 624 / 8 = 78.0 (live 40.0 is less), nothing refused
        "triple-heap: at worst 78.0 B/entry where it holds the workload; refused 0 of 3 cells.",
    ]
    small = realistic_frame()
    small = small[small.index_entries >= 20_000]  # sorted-chunks 5.0 and 6.0 B/entry, no live
    assert v.realistic_sentences(small)[0] == (
        "Realistic matrix (2 cells, 20,000 to 50,000 held entries): sorted-chunks at worst 6.0 "
        "B/entry paused and not run dispatching; never above the heap's 24 B."
    )
    assert v.realistic_sentences(small.iloc[:0]) == [
        "The realistic matrix was not run in this report."
    ]


def test_latency_sentences_by_hand():
    assert v.latency_sentences(latency_frame()) == [
        f"JMH p99 of {v.METHOD_WORDS[m]} (prefill 1,000): time-buckets {tb} ns, sorted-chunks {sc} ns."
        for m, tb, sc in zip(
            v.BENCHMARKS.values(),
            ("200", "1,000", "50,000"),
            ("300", "9,000", "40,000"),
            strict=True,
        )
    ]
    assert v.latency_sentences(latency_frame().iloc[:0]) == [
        "No JMH latency was found: the latency comparison is missing."
    ]


def test_broker_sentences_by_hand():
    lines = v.broker_sentences(broker_frame(), latency_frame())
    assert lines[0] == (
        "Broker, w1: sorted-chunks 4.5 B/entry over 40 entries (behind); time-buckets 30.0 "
        "B/entry over 100 entries; pip195-buckets 35.0 B/entry over 60 entries."
    )
    assert lines[1] == "Broker, w2: time-buckets 200.0 B/entry over 50 entries."
    # w1 and w2 are not workloads of `broker run trackers`: every pair it asks for is missing
    from trackerlab.experiments.real_broker import trackers as tr

    assert lines[2].startswith("Not run in the broker: ")
    assert lines[2].count(" on ") == len(tr.TRACKERS) * len(tr.WORKLOADS)
    assert "sorted-chunks on " + next(iter(tr.WORKLOADS)) in lines[2]
    assert len(lines) == 3
    every = pd.DataFrame(
        [broker_row(t, w, 10, 5.0) for t in tr.TRACKERS for w in tr.WORKLOADS]
    )  # all ran: one sentence per workload and no "Not run" sentence
    done = v.broker_sentences(every, latency_frame())
    assert len(done) == len(tr.WORKLOADS) and not any(x.startswith("Not run") for x in done)
    empty = pd.DataFrame(columns=list(v.BROKER_COLUMNS))
    assert v.broker_sentences(empty, latency_frame())[0].startswith("No broker runs were found")


def test_comparison_sentence_by_hand():
    rows = pd.DataFrame({c: ["x", "y"] for c in v.COMPARISON_COLUMNS})
    rows["design"] = ["a", "b"]
    rows["memory_bytes_per_entry"] = ["12.5", "3.25"]
    assert v.comparison_sentence(rows) == (
        "Comparisons (2 rows): memory from 3.2 B/entry (b) to 12.5 B/entry (a)."
    )
    rows["memory_bytes_per_entry"] = ["n/a", ""]
    assert v.comparison_sentence(rows) == "Comparisons (2 rows): no memory figure per entry."
    assert v.comparison_sentence(None) == "Comparisons with other designs: not available."


def test_realistic_matrix_of_takes_lists() -> None:
    from trackerlab.experiments.design_lab_realistic import RealisticMatrix

    m = RealisticMatrix.of(["uniform:0:1h"], ["all"], [1.0], [1000], [1000, 10000])
    assert m == RealisticMatrix(("uniform:0:1h",), ("all",), (1.0,), (1000,), (1000, 10000))
    assert m.batch_sizes == (1,)


def test_realistic_rows_paused_and_dispatching_without_stored_rows() -> None:
    import trackerlab.experiments.design_lab_verdict as verdict
    from trackerlab.experiments.design_lab_realistic import RealisticMatrix

    paused = RealisticMatrix.of(["uniform:0:1h"], ["all"], [1.0], [1000], [1000, 2000])
    dispatching = RealisticMatrix.of(["uniform:0:1h"], ["all"], [1.0], [1000], [1000])
    frame, extra = verdict.realistic_rows(paused, dispatching, "no/such/file.parquet")
    assert extra is None
    assert sorted(set(frame.messages)) == [1000, 2000]
    small = frame[frame.messages == 1000]
    assert small.live_bytes_per_entry.notna().sum() == 6  # the dispatching run filled these
    assert frame[frame.messages == 2000].live_bytes_per_entry.isna().all()
    heap = small[small.design == "triple-heap"].iloc[0]
    assert heap.index_entries == 1000 and heap.bytes_per_entry > 24
    assert heap.live_bytes_per_entry > 0
