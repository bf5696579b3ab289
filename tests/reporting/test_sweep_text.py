"""The Spark sweep report's words (``trackerlab.reporting.sweep_text``): each sentence holds the
numbers of hand-made tables, written as the reports write numbers (checked by hand here)."""

from pathlib import Path

import pandas as pd

from trackerlab.experiments.sweep_report import Results
from trackerlab.reporting import (
    sweep_answer,
    sweep_conclusions,
    sweep_headlines,
    sweep_source_notes,
)


def _results(from_spark: bool) -> Results:
    return Results(pd.DataFrame(), "4 points from data/sweeps/x", from_spark, Path("/nowhere/x"))


BOTH = pd.DataFrame(
    [
        ("fixed:1d", "time-buckets", 60000, 1, 1.5, 2_500_000, 1.0, True),
        ("fixed:1d", "triple-heap", 60000, 1, 24.4, 2_500_000, 24.0, True),
        ("uniform:0:1h", "time-buckets", 60000, 1, 7.0, 2_500_000, 70.0, False),
    ],
    columns=["delay", "design", "tick_ms", "batch_size", "bytes_per_entry", "messages",
             "jvm_bytes_per_entry", "snapshot_is_steady"],
)  # fmt: skip
#: Random over fixed: 2, 3, 4 (median 3).
PENALTY = pd.DataFrame([[2.0, 3.0], [4.0, None]], index=[1.0, 50.0], columns=[8, 12])
HEAT = pd.DataFrame([[10.0, 123.456], [2.5, 40.0]], index=[1.0, 50.0], columns=[8, 12])
SCALING = pd.DataFrame({"task_s_per_1e6": [0.5, 0.7, 2.0]})


def test_source_notes_warn_without_spark_results():
    assert sweep_source_notes(_results(True), "default") == ["*Data: 4 points from data/sweeps/x.*"]
    warning, data = sweep_source_notes(_results(False), "large")
    assert warning.startswith("> **No sweep results in `")
    assert warning.endswith("Run `trackerlab sweep --profile large` and render again.")
    assert data == "*Data: 4 points from data/sweeps/x.*"


def test_answer_states_the_steady_state_numbers():
    assert sweep_answer(BOTH) == (
        "At 10,000 msg/s with every message delayed 1 d and a 1 min tick, time buckets hold "
        "1.5 B per entry in steady state against the heap's 24 B; with delays spread uniformly "
        "from 0 to 1 h they need 7 B (a snapshot of 2,500,000 messages shows 70 B)."
    )
    assert sweep_answer(BOTH[BOTH.delay == "fixed:1d"]).endswith("against the heap's 24 B.")
    assert sweep_answer(BOTH[BOTH.design != "triple-heap"]) is None


def test_headlines_give_the_source_and_the_penalty_range():
    assert sweep_headlines(_results(False), PENALTY) == [
        ("data source", "single-process stand-in", "4 points from data/sweeps/x"),
        ("random-delay penalty (PIP-393 time buckets)", "×3 median", "×2 to ×4 over the heatmap"),
    ]
    (only,) = sweep_headlines(_results(True), PENALTY.iloc[:0])
    assert only[:2] == ("data source", "Spark sweep")


def test_conclusions_state_their_numbers():
    lines = sweep_conclusions(_results(True), HEAT, PENALTY, BOTH, SCALING)
    assert lines == [
        "**Data:** 4 points from data/sweeps/x.",
        "**Fixed delays:** PIP-393 time buckets cost from 2.50 to 123 B/entry over the heatmap "
        "(fuller buckets are cheaper).",
        "**Random delays** multiply that by ×2 to ×4 (median ×3).",
        "**Seed scenario, batch 1, 1 min tick, delays fixed at 1 d:** snapshot 1 B/entry, "
        "steady state 1.50 B/entry (the snapshot equals the steady state).",
        "**Seed scenario, batch 1, 1 min tick, delays spread uniformly from 0 to 1 h:** snapshot "
        "70 B/entry, steady state 7 B/entry (the snapshot differs from the steady state).",
        "**Cost:** 0.70 task-seconds per 1e6 messages (median).",
    ]
    empty = sweep_conclusions(_results(True), HEAT.iloc[:0], PENALTY.iloc[:0], BOTH.iloc[:0],
                              SCALING.iloc[:0])  # fmt: skip
    assert empty == ["**Data:** 4 points from data/sweeps/x."]
