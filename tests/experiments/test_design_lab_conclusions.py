"""Design lab I's tables and sentences on a hand-built matrix: three cells, seven designs,
every expected number chosen or computed by hand in the comments below."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from trackerlab.experiments import design_lab_conclusions as dlc

# (delay, pattern, tick_ms, entries, floor B/entry, floor applies)
CELLS = {
    "A": ("uniform:0:1h", "all", 1000, 1000, 8.0, True),
    "B": ("fixed:1d", "all", 64, 1000, 0.0, False),
    "C": ("uniform:0:1h", "fraction:0.05", 1000, 50, 2.0, True),
}
# bytes per entry in cells A, B, C
BYTES = {
    "time-buckets-flat": (30.0, 4.0, 40.0),  # worst 40, above 24 B in A and C
    "time-buckets-sealed": (26.0, 3.0, 20.0),  # worst 26, above 24 B in A
    "time-buckets-adaptive": (25.0, 5.0, 22.0),  # worst 25, above 24 B in A
    "time-buckets-hier": (
        7.0,
        1.0,
        6.5,
    ),  # the best: worst 7 (A), median 6.5; 7/8 < 1; 6.5/2 = 3.25 > 3
    "time-buckets": (120.0, 2.0, 50.0),
    "time-buckets-runs": (100.0, 2.0, 45.0),
    "triple-heap": (26.5, 26.5, 26.5),
}


def lab_frame() -> pd.DataFrame:
    rows = []
    for design, values in BYTES.items():
        for (delay, pattern, tick, entries, floor, applies), b in zip(
            CELLS.values(), values, strict=True
        ):
            rows.append({
                "delay": delay, "pattern": pattern, "rate_per_ms": 5.0, "tick_ms": tick,
                "batch_size": 1, "messages": 1000, "design": design, "entries": entries,
                "bytes_per_entry": b, "floor_per_entry": floor, "floor_applies": applies,
                "ratio_to_floor": b / floor if floor else np.nan,
                "proposal": design.startswith("time-buckets-"),
            })  # fmt: skip
    return pd.DataFrame(rows)


def saved_frame() -> pd.DataFrame:
    return pd.DataFrame([
        {"scenario": "s1", "messages": 2000, "design": "time-buckets-hier", "bytes_per_entry": 1.5, "saving_kept": 0.93},
        {"scenario": "s2", "messages": 5000, "design": "time-buckets-hier", "bytes_per_entry": 2.5, "saving_kept": 0.97},
        {"scenario": "s1", "messages": 2000, "design": "time-buckets", "bytes_per_entry": 1.0, "saving_kept": 1.0},
        {"scenario": "s2", "messages": 5000, "design": "time-buckets", "bytes_per_entry": 2.0, "saving_kept": 0.5},
    ])  # fmt: skip


def accepted_frame(passed=(True, True, True)) -> pd.DataFrame:
    checks = [("at most 24 B/entry in every cell", 7.0, 24.0),
              ("within 3x the floor where it is above 1 B", 3.25, 3.0),
              ("keeps 90% of the time buckets' saving (seeds, fixed delays)", 0.93, 0.9)]  # fmt: skip
    return pd.DataFrame([
        {"design": "time-buckets-hier", "check": c, "worst": w, "bound": b, "passed": p}
        for (c, w, b), p in zip(checks, passed, strict=True)
    ])  # fmt: skip


def ops_frame() -> pd.DataFrame:
    def op(design, delay, add, delivered, one_add, one_scan, live, paused):
        return {"design": design, "delay": delay, "touches_per_add": add,
                "touches_per_delivered": delivered, "max_touches_one_add": one_add,
                "max_touches_one_scan": one_scan, "live_bytes_per_entry": live,
                "paused_bytes_per_entry": paused}  # fmt: skip

    return pd.DataFrame([
        op("time-buckets-hier", "fixed:10s", 3.0, 1.5, 10, 40, 30.0, 6.0),
        op("time-buckets-hier", "uniform:0:60s", 4.3, 1.25, 12, 35, 9.0, 5.0),
        op("triple-heap", "fixed:10s", 14.3, 14.3, 15, 15, 26.5, 26.5),
    ])  # fmt: skip


def test_scale_and_data_line():
    frame = lab_frame()
    assert dlc.matrix_scale(frame) == "3 cells of 1,000 messages"
    assert dlc.data_line(frame) == "3 cells × 7 designs; messages per cell: 1,000."
    assert len(dlc.lab_cells(frame)) == 3


def test_best_sentence_states_the_hand_worst_case():
    assert dlc.best_sentence(lab_frame()) == (
        "- Over 3 cells of 1,000 messages, **time-buckets-hier** is the best proposal: at worst "
        "7.00 B/entry (median 6.50), against 120 B for #23611's time buckets and 26.5 B for the "
        "heap with its growth slack; worst cell: uniform:0:1h, all, 5/ms, tick 1000 ms."
    )


def test_floor_sentence_counts_the_cells_above_3x():
    assert dlc.floor_sentence(lab_frame()) == (
        "- Where the floor is above 1 B/entry it stays within 3.25x of it (1 cells above 3x); "
        "it is above 24 B in 0 cells."
    )


def test_other_proposals_each_get_their_worst_and_cells_above_the_heap():
    assert dlc.other_proposal_sentences(lab_frame()) == [
        "- time-buckets-flat: worst 40.0 B/entry, above 24 B in 2 of 3 cells.",
        "- time-buckets-sealed: worst 26.0 B/entry, above 24 B in 1 of 3 cells.",
        "- time-buckets-adaptive: worst 25.0 B/entry, above 24 B in 1 of 3 cells.",
    ]


def test_seed_sentence_states_the_kept_range():
    assert dlc.seed_sentence(lab_frame(), saved_frame()) == (
        "- On the seeds' fixed-delay scenarios (2,000 to 5,000 messages) time-buckets-hier keeps "
        "between 93% and 97% of the time buckets' saving over the heap."
    )


def test_acceptance_sentence_passed_and_failed():
    frame = lab_frame()
    assert dlc.acceptance_sentence(frame, accepted_frame()).startswith(
        "- All three acceptance checks pass on this matrix (3 cells of 1,000 messages)"
    )
    failed = dlc.acceptance_sentence(frame, accepted_frame((True, False, True)))
    # cell C alone is beyond a bound: 6.5 / 2.0 = 3.25 > 3; nothing is above 24 B
    assert failed == (
        "- Not reached: within 3x the floor where it is above 1 B (worst 3.25, bound 3). The 1 "
        "cells beyond a bound, worst first: uniform:0:1h, fraction:0.05, tick 1000 ms, batch 1: "
        "6.50 B vs floor 2.00 B over 50 entries."
    )


def test_work_and_live_memory_sentences():
    frame, ops = lab_frame(), ops_frame()
    assert dlc.work_sentence(frame, ops, 20000) == (
        "- Work: 4.3 cache lines per add and 1.50 per delivered message at most over the "
        "operation-cost runs of 20,000 messages (the heap, analytic: 14.3 per add); the largest "
        "single add touched 12 lines and the largest single getScheduledMessages call 40."
    )
    live = dlc.live_memory_sentence(frame, ops, 64)
    assert live.startswith(
        "- Memory while dispatching: time-buckets-hier held up to 30.00 B/entry with the "
        "dispatcher running (fixed:10s, tick 64 ms) against 6.00 B paused;"
    )
    assert live.endswith("Live, it stays above the heap's 24 B in these runs.")
    under = ops.assign(live_bytes_per_entry=[20.0, 9.0, 26.5])
    assert "stays under the heap's 24 B" in dlc.live_memory_sentence(frame, under, 64)
    no_hier = ops[ops.design == "triple-heap"]
    assert dlc.work_sentence(frame, no_hier, 1) is None
    assert dlc.live_memory_sentence(frame, no_hier, 1) is None


def test_below_floor_sentence_counts_pairs():
    frame = lab_frame()
    # 7 / 8 for hier in cell A is the only ratio under 1
    assert dlc.below_floor_sentence(frame).startswith(
        "- 1 (cell, design) pairs sit below the floor (time-buckets-hier: 1; delays uniform:0:1h):"
    )
    assert dlc.below_floor_sentence(frame[frame.delay == "fixed:1d"]) is None


def test_at_scale_sentence():
    frame = lab_frame()
    big = pd.DataFrame({
        "design": ["time-buckets-hier", "time-buckets-hier", "triple-heap"],
        "delay": ["fixed:1d", "uniform:0:1h", "fixed:1d"],
        "bytes_per_entry": [1.234, 5.678, 26.5],
    })  # fmt: skip
    assert dlc.at_scale_sentence(frame, big) == (
        "- At 1e9 messages (2 delay families measured): time-buckets-hier costs 1.23 B/entry "
        "for fixed:1d, 5.68 B/entry for uniform:0:1h."
    )
    assert dlc.at_scale_sentence(frame, big.iloc[:0]) is None


def test_conclusions_in_order_and_one_sentence():
    frame = lab_frame()
    lines = dlc.conclusions(
        frame, saved_frame(), accepted_frame(), ops_frame(), pd.DataFrame(), 20000, 64
    )
    # best, floor, 3 other proposals, seeds, acceptance, work, live memory, below floor; no 1e9
    assert len(lines) == 10
    assert lines[0] == dlc.best_sentence(frame) and lines[-1] == dlc.below_floor_sentence(frame)
    assert dlc.one_sentence(frame, accepted_frame((False, False, True))) == (
        "Over 3 cells of 1,000 messages, time-buckets-hier is the best proposal: at worst 7.00 "
        "B/entry against 120 B for the time buckets and 26.5 B for the heap; 2 of 3 acceptance "
        "checks not reached"
    )
    assert dlc.one_sentence(frame, accepted_frame()).endswith(
        "it passes all three acceptance checks"
    )


def test_headlines():
    frame = lab_frame()
    assert dlc.worst_headline(frame) == (
        "worst case of the best proposal",
        "7.00 B/entry (time-buckets-hier)",
        "heap 24 B; worst ratio to the floor 3.25x over 3 cells",
    )
    _label, value, note = dlc.acceptance_headline(frame, accepted_frame((True, False, True)))
    assert value == "2 of 3 checks passed"
    assert note.startswith("time-buckets-hier: at most 24 B/entry in every cell: 7 vs 24; ")
    assert dlc.op_headline(ops_frame()) == (
        "work per add (hier)",
        "4.3 cache lines",
        "1.50 per delivered message",
    )


def test_tables():
    frame = lab_frame()
    ratios = dlc.ratio_table(frame).set_index("design")
    # hier over cells A and C: 7/8 and 6.5/2
    assert ratios.loc["time-buckets-hier", "count"] == 2
    assert ratios.loc["time-buckets-hier", "min"] == pytest.approx(0.875)
    assert ratios.loc["time-buckets-hier", "max"] == pytest.approx(3.25)
    assert "time-buckets" not in ratios.index  # baselines are not proposals
    kept = dlc.by_design(saved_frame(), "scenario", "saving_kept").set_index("scenario")
    assert kept.loc["s2", "time-buckets"] == 0.5 and kept.loc["s1", "time-buckets-hier"] == 0.93
    table = pd.DataFrame({"floor_B": [0.0, 8.0, 2.0], "x": [1.0, 7.0, 6.5]})
    # spreads 1, -1, 4.5: the two largest are rows 2 and 0
    assert dlc.furthest_above_floor(table, "x", rows=2).tolist() == [True, False, True]
    big = pd.DataFrame({"delay": ["d", "d", "e"], "messages": [10, 10, 20], "wall_s": [3.0, 3.0, 4.0],
                        "design": ["a", "b", "a"]})  # fmt: skip
    assert dlc.at_scale_runs(big).to_dict("list") == {
        "delay": ["d", "e"],
        "messages": [10, 20],
        "wall_s": [3.0, 4.0],
    }


def test_notes():
    assert "`trackerlab sweep --profile smoke`" in dlc.no_data_note("smoke")
    assert "the sweep folder given" in dlc.no_big_points_note("smoke", "x")
    assert "the `large` sweep" in dlc.no_big_points_note("large", "")
