"""The Spark sweep report's tables and figure parts (``trackerlab.experiments.sweep_report``),
on hand-made frames with hand-computed values."""

import matplotlib
import numpy as np
import pandas as pd
import pytest

from trackerlab.experiments import sweep_report as sr
from trackerlab.experiments.steady_state import steady_state

matplotlib.use("Agg")


def test_by_trim_bits_labels_columns_and_rows():
    table = pd.DataFrame([[1.0, 2.0]], index=pd.Index([5.0], name="rate_per_ms"), columns=[8, 12])
    out = sr.by_trim_bits(table)
    assert list(out.columns) == ["y = 8 bits", "y = 12 bits"]
    assert out.index.name == "rate x (msg/ms)" and out.iloc[0].tolist() == [1.0, 2.0]


def _scenario(rows):
    columns = ["messages", "batch_size", "tick_ms", "delay", "design", "jvm_bytes_per_entry"]
    return pd.DataFrame(rows, columns=columns).assign(entries=20_000)  # the snapshot's entries


def test_steady_comparison_holds_rate_times_mean_delay_and_says_when_a_snapshot_is_it():
    scenario = _scenario([
        (20_000, 1, 1000, "fixed:10s", "time-buckets", 3.0),
        (20_000, 1, 1000, "fixed:10s", "triple-heap", 30.0),
        (20_000, 1, 1000, "uniform:0:10s", "time-buckets", 9.0),
        (20_000, 1, 1000, "uniform:0:10s", "time-buckets-runs", 8.0),  # not compared
        (20_000, 1, 60000, "fixed:10s", "time-buckets", 1.0),  # tick not asked for
    ])  # fmt: skip
    both = sr.steady_comparison(scenario, [1000], samples=2, rate_per_s=1000.0)
    assert both[["delay", "design"]].values.tolist() == [
        ["fixed:10s", "time-buckets"],
        ["fixed:10s", "triple-heap"],
        ["uniform:0:10s", "time-buckets"],
    ]
    # the steady state's own rows, matched on delay and design (not the snapshot's)
    steady = steady_state(1000.0, ["fixed:10s", "uniform:0:10s"], tick_ms=1000, samples=2)
    steady = steady.set_index(["delay", "design"])
    for row in both.itertuples():
        assert row.entries_steady == steady.loc[(row.delay, row.design), "entries"]
        assert row.bytes_per_entry == steady.loc[(row.delay, row.design), "bytes_per_entry"]
    # about 1,000 msg/s x 10 s pending with a fixed delay; about half of it spread over 0-10 s
    assert both.entries_steady.iloc[0] == pytest.approx(10_000, rel=0.2)
    assert both.entries_steady.iloc[2] == pytest.approx(5_000, rel=0.3)
    # 20,000 first messages >= 1,000 msg/s x 10 s: the snapshot of a fixed delay is steady
    assert both.snapshot_is_steady.tolist() == [True, True, False]
    assert both.jvm_bytes_per_entry.tolist() == [3.0, 30.0, 9.0]  # the snapshot's own
    assert both.entries.tolist() == [20_000] * 3
    assert both.entries.tolist() == [20_000] * 3


def _both(rows):
    return pd.DataFrame(
        rows,
        columns=["delay", "design", "tick_ms", "batch_size", "bytes_per_entry", "messages",
                 "jvm_bytes_per_entry"],
    )  # fmt: skip


def test_seed_answer_takes_the_minute_tick_and_the_first_delays():
    both = _both([
        ("fixed:1d", "time-buckets", 1000, 1, 9.0, 10, 9.0),
        ("fixed:1d", "time-buckets", 60000, 1, 1.5, 10, 1.0),
        ("fixed:1d", "triple-heap", 60000, 1, 24.5, 10, 24.0),
        ("fixed:1d", "time-buckets", 60000, 100, 0.1, 10, 0.1),  # batch 100: not the answer's
        ("uniform:0:1h", "time-buckets", 60000, 1, 7.0, 10, 70.0),
        ("uniform:0:2h", "time-buckets", 60000, 1, 8.0, 10, 80.0),
    ])  # fmt: skip
    seed = sr.seed_answer(both)
    assert (seed.fixed_delay, seed.tick_ms, seed.spread_delay) == (
        "fixed:1d",
        60000,
        "uniform:0:1h",
    )
    assert (seed.buckets.bytes_per_entry, seed.heap.bytes_per_entry) == (1.5, 24.5)
    assert seed.spread.bytes_per_entry == 7.0
    no_heap = both[both.design != "triple-heap"]
    assert sr.seed_answer(no_heap) is None and sr.seed_answer(both.iloc[:0]) is None
    only_fixed = sr.seed_answer(both[both.delay == "fixed:1d"])
    assert only_fixed.spread is None and only_fixed.spread_delay is None


def test_heatmap_layout_two_designs_a_row():
    assert sr.heatmap_layout(6, 2) == (2, 4, 3)  # fixed and random side by side
    assert sr.heatmap_layout(5, 1) == (4, 4, 2)
    assert sr.heatmap_layout(0, 0) == (1, 1, 1)


def test_shared_log_norm_spans_the_finite_positive_values():
    a = pd.DataFrame([[2.0, np.nan], [0.0, 50.0]])
    b = pd.DataFrame([[-1.0, 400.0]])
    norm = sr.shared_log_norm([a, b, pd.DataFrame()])
    assert (norm.vmin, norm.vmax) == (2.0, 400.0)
    assert sr.shared_log_norm([pd.DataFrame([[np.nan]])]) is None


def test_plot_heatmaps_one_panel_per_design_and_kind_with_cell_labels():
    rows = [
        {"block": "heatmap,scaling", "design": d, "random_delay": k, "shape": None,
         "rate_per_ms": r, "trim_bits": y, "jvm_bytes_per_entry": v}
        for d, base in (("nack-time-buckets", 10.0), ("triple-heap", 24.0))
        for k in (False, True)
        for r in (1.0, 50.0)
        for y, v in ((8, base * (3 if k else 1)), (12, base / 2))
    ]  # fmt: skip
    fig = sr.plot_heatmaps(pd.DataFrame(rows))
    shown = [ax for ax in fig.axes if ax.get_images()]
    assert [ax.get_title() for ax in shown] == [
        "PIP-393 time buckets\n(Java add), fixed delay",
        "PIP-393 time buckets\n(Java add), random delay",
        "TripleLongPriorityQueue\n(heap + direct), fixed delay",
        "TripleLongPriorityQueue\n(heap + direct), random delay",
    ]
    # cells (rate 1, y 8), (1, 12), (50, 8), (50, 12) of the random-delay time buckets
    assert [t.get_text() for t in shown[1].texts] == ["30", "5", "30", "5"]
    assert shown[0].get_images()[0].norm.vmin == 5.0  # one scale for every panel
    assert shown[3].get_images()[0].norm.vmax == 72.0
    matplotlib.pyplot.close("all")
