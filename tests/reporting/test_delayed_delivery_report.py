"""The delayed-delivery report's tables and sentences, against hand-computed numbers."""

from __future__ import annotations

import html
import math

import pandas as pd
import pytest

from trackerlab.reporting import delayed_delivery_report as report


def test_heap_bytes_per_entry_adds_direct_memory() -> None:
    on_heap_only = pd.DataFrame(
        {"jvm_b_per_entry": [40.0], "jvm_direct_b_per_entry": [float("nan")]}
    )
    assert report.heap_bytes_per_entry(on_heap_only) == 40.0
    direct = pd.DataFrame({"jvm_b_per_entry": [8.0], "jvm_direct_b_per_entry": [24.0]})
    assert report.heap_bytes_per_entry(direct) == 32.0


def test_blog_points_are_mib_per_1e7_messages_at_m_equals_x_times_2_pow_y() -> None:
    repro = pd.DataFrame(
        {"published": ["25", "10", "20", "5"]},
        index=pd.Index(["N14", "N15", "N16", "N17"], name="id"),
    )
    points = report.blog_points(repro)
    assert points.b_per_entry.tolist() == pytest.approx([2.62144, 1.048576, 2.097152, 0.524288])
    assert points.messages_per_bucket.tolist() == [1024, 4096, 8192, 262144]  # x * 2^y


def test_tick_sweep_early_bounds() -> None:
    prec = report.tick_sweep(2000, 8.0, [100, 1000], entries_per_ledger=50_000, delay="fixed:1h")
    plain = prec[~prec.run_optimize]
    assert plain.tick_ms.tolist() == [100, 1000]
    assert plain.trim_bits.tolist() == [6, 9]  # floor(log2(tick))
    assert plain.early_a_ms.tolist() == [100 + 63, 1000 + 511]
    assert plain.early_c_ms.tolist() == [100, 1000]
    assert prec.run_optimize.tolist() == [False, True, False, True]
    assert (prec.entries == 2000).all()


def test_snapshot_and_steady_joins_by_delay_in_parameter_order() -> None:
    snap = pd.DataFrame(
        {
            "delay": ["fixed:1h", "uniform:0:1h"],
            "entries": [1000, 1000],
            "buckets": [1, 900],
            "bitmaps": [1, 950],
            "jvm_b_per_entry": [2.0, 300.0],
        }
    )
    steady = pd.DataFrame(
        {
            "delay": ["uniform:0:1h", "uniform:0:1h", "fixed:1h", "fixed:1h"],
            "design": ["time-buckets", "triple-heap", "time-buckets", "triple-heap"],
            "bytes_per_entry": [12.0, 40.0, 2.5, 40.0],
            "entries": [18_000_000, 18_000_000, 36_000_000, 36_000_000],
        }
    )
    spread = report.snapshot_and_steady(snap, steady, ["uniform:0:1h", "fixed:1h"], 1000, 10_000.0)
    assert spread.delay.tolist() == ["uniform:0:1h", "fixed:1h"]
    assert spread.steady_buckets_b.tolist() == [12.0, 2.5]
    assert spread.steady_heap_b.tolist() == [40.0, 40.0]
    assert spread.steady_entries.tolist() == [18_000_000, 36_000_000]
    assert spread.jvm_b_per_entry.tolist() == [300.0, 2.0]
    # 1,000 messages are far fewer than 10k/s x 1 h: no snapshot is the steady state
    assert spread.snapshot_is_steady.tolist() == [False, False]


def _prec() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "tick_ms": [100, 100, 1000, 1000, 60000, 60000],
            "run_optimize": [False, True] * 3,
            "jvm_b_per_entry": [20.0, 1.0, 10.0, 0.5, 5.0, 0.25],
        }
    )


def _spread() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "delay": ["fixed:1h", "uniform:0:1h", "uniform:0:1d"],
            "entries": [20000, 20000, 20000],
            "bitmaps": [1, 7000, 19000],
            "jvm_b_per_entry": [2.0, 180.0, 230.0],
            "steady_buckets_b": [2.5, 12.0, 50.0],
            "steady_heap_b": [40.0, 40.0, 44.0],
        }
    )


def _conclusions(**kw):
    args = dict(
        heap_b=40.0,
        counts={"reproduced": 9, "seed wrong": 2},
        published=11,
        random_messages=20000,
        random_rate_per_ms=10.0,
        precision_rate_per_ms=8.0,
        run_optimize=True,
    )
    args.update(kw)
    return report.conclusions(_prec(), _spread(), **args)


def test_conclusions_state_the_numbers_of_the_frames() -> None:
    found = _conclusions()
    assert found.answer == (
        "At the default 1,000 ms tick, time buckets cost 10 B/entry when every message has the "
        "same delay and 12 B/entry in steady state with delays spread uniformly from 0 to 1 h; "
        "the triple heap costs 40 B/entry either way (at 10,000 msg/s)."
    )
    first, worst = found.headlines
    assert (first.label, first.value) == ("time buckets, fixed delay, 1,000 ms tick", "10 B/entry")
    assert first.note == "8 msg/ms, JVM model"
    assert worst.value == "50 B/entry in steady state"  # uniform:0:1d, the dearest
    assert worst.note == "a snapshot of the first 20,000 messages shows 230 B/entry"
    lines = found.lines
    assert lines[0].startswith("* **Reproduction** of the 11 published numbers")
    # 40 / 10 = 4, 40 / 5 = 8 (the coarsest tick, 60 s)
    assert (
        "cost 10 B/entry against the heap's 40 B (4× less); at a 60,000 ms tick 5 B/entry (8× less)"
        in lines[1]
    )
    assert "to 0.500 B/entry, 20× below Java's bitmaps" in lines[2]  # 10 / 0.5
    assert "12 B/entry in steady state, less than the heap's 40 B" in lines[3]
    assert "spreads 20,000 entries over 7,000 bitmaps" in lines[3]
    assert "50 B/entry in steady state, more than the heap's 44 B" in lines[4]
    assert lines[5].startswith("* Pick the design by delay profile")
    assert len(lines) == 6


def test_conclusions_without_run_containers_or_spread_delays() -> None:
    found = _conclusions(run_optimize=False)
    assert not any("Run containers" in line for line in found.lines)
    fixed_only = report.conclusions(
        _prec(),
        _spread().iloc[:1],
        heap_b=40.0,
        counts={"reproduced": 1},
        published=1,
        random_messages=1,
        random_rate_per_ms=1.0,
        precision_rate_per_ms=1.0,
        run_optimize=False,
    )
    assert fixed_only.answer == ""
    assert len(fixed_only.headlines) == 1


def test_jvm_at_tick_is_nan_when_not_swept() -> None:
    assert report.jvm_at_tick(_prec(), 1000, True) == 0.5
    assert math.isnan(report.jvm_at_tick(_prec(), 5000))


def test_captions() -> None:
    assert report.grid_caption(50000, "fixed:1h", 9) == (
        "50,000 messages delayed fixed at 1 h; rows at the default 1 s tick (9 bits) when the grid is long"
    )
    assert report.tick_caption(2_000_000, 8.0) == "2,000,000 messages at 8 msg/ms per point"


def test_spread_delay_rows_skip_fixed_delays_and_are_typed() -> None:
    rows = report.spread_delay_rows(_spread())
    assert [r.delay for r in rows] == ["uniform:0:1h", "uniform:0:1d"]
    assert rows[0] == report.DelayRow("uniform:0:1h", 20000.0, 7000.0, 180.0, 12.0, 40.0)
    assert all(isinstance(r.entries, float) for r in rows)


def test_dearest_in_steady_state_skips_missing_values() -> None:
    rows = report.spread_delay_rows(_spread())
    assert report.dearest_in_steady_state(rows) == rows[1]  # 50 B > 12 B
    missing = report.DelayRow("uniform:0:1w", 1.0, 1.0, 1.0, float("nan"), 40.0)
    assert report.dearest_in_steady_state([missing, rows[0]]) == rows[0]
    assert report.dearest_in_steady_state([missing]) is None
    assert report.dearest_in_steady_state([]) is None


def _html(bundle: dict[str, object]) -> str:
    text = bundle["text/html"]
    assert isinstance(text, str)
    return text


def test_show_blog_reproduction_counts_every_id(shown: list[dict[str, object]]) -> None:
    counts, repro = report.show_blog_reproduction()
    assert repro.index.tolist() == [*(f"N{i}" for i in range(11, 20)), "N44", "N45"]
    assert sum(counts.values()) == 11  # one category per published number
    assert html.escape(report.REPRODUCTION_CAPTION) in _html(shown[0])
    points = report.blog_points(repro)  # the stars of section 2 come from these rows
    assert points.messages_per_bucket.tolist() == [1024, 4096, 8192, 262144]


def test_grid_bits_and_default_bits() -> None:
    assert report.default_bits() == 9  # floor(log2(1000))
    assert report.grid_bits([64, 100, 127, 1000, 32768]) == [6, 9, 15]


def test_bucket_grid_sizes_the_rates_at_the_ticks_bits() -> None:
    table = report.bucket_grid(2000, [1.0, 8.0], [100, 1000, 1023], 50_000, "fixed:1h", False)
    assert not table.run_optimize.any()  # as Java builds it only
    # sorted by M = x * 2^bits: (1, 6) 64, (1, 9) 512, (8, 6) 512, (8, 9) 4096
    assert table.messages_per_bucket.tolist() == [64, 512, 512, 4096]
    assert table.buckets.tolist() == [32, 5, 4, 1]  # ceil(2000 / M)
    assert (table.entries == 2000).all()
    both = report.bucket_grid(2000, [1.0], [1000], 50_000, "fixed:1h", True)
    assert both.run_optimize.tolist() == [False, True]


def test_theory_curves_span_ten_to_ten_to_the_7_5() -> None:
    curves = report.theory_curves(50_000)
    assert len(curves) == 200
    m = curves.messages_per_bucket
    assert (m.iloc[0], m.iloc[-1]) == pytest.approx((10.0, 10**7.5))
    # fuller buckets cost less per entry
    assert curves.corrected_b_per_entry.iloc[0] > curves.corrected_b_per_entry.iloc[-1]


def test_triple_heap_b_per_entry_is_payload_plus_slack() -> None:
    b = report.triple_heap_b_per_entry(20_000)
    assert 24 < b < 48  # 24 B of (deliverAt, ledgerId, entryId), less than doubled by growth
    assert b == pytest.approx(29.9016)


def test_show_bucket_grid_keeps_the_default_tick(shown: list[dict[str, object]]) -> None:
    table = report.bucket_grid(
        2000, [1.0, 2.0, 4.0, 8.0], [64, 256, 1000, 8192], 50_000, "fixed:1h", False
    )
    assert len(table) == 16  # longer than the 12 rows shown
    report.show_bucket_grid(table, 2000, "fixed:1h")
    (bundle,) = shown
    page = _html(bundle)
    assert "4 of 16 rows shown" in page  # the four rates at 9 bits
    assert report.grid_caption(2000, "fixed:1h", 9) in page
    assert "JVM model (B/entry)" in page


def test_show_tick_sweep_captions_its_messages(shown: list[dict[str, object]]) -> None:
    prec = report.tick_sweep(2000, 8.0, [100, 1000], entries_per_ledger=50_000, delay="fixed:1h")
    assert prec.messages.tolist() == [2000] * 4
    report.show_tick_sweep(prec, 8.0)
    (bundle,) = shown
    page = _html(bundle)
    assert "2,000 messages at 8 msg/ms per point" in page
    assert page.count("<tr>") == 1 + 4  # header and every row (short table, nothing cut)
    assert "early by up to, variant a (ms)" in page and "1,511" in page  # 1000 + 511


def test_container_mix_table_and_figure(shown: list[dict[str, object]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = report.bucket_grid(2000, [1.0, 8.0], [100, 1000], 50_000, "fixed:1h", True)
    report.show_container_mix(table)
    (bundle,) = shown
    page = _html(bundle)
    assert report.MIX_CAPTION in page
    assert page.count("<tr>") == 1 + 4  # the rows as Java builds them, not the run-optimized
    assert "bitset share" in page
    report.plot_container_mix(table)
    (ax,) = plt.gcf().axes
    assert ax.get_title() == report.MIX_TITLE
    assert len(ax.lines) == 2 + 1  # one line per rate and the 4,096-id limit
    plt.close("all")


def test_delay_spread_snapshot_against_steady_state(shown: list[dict[str, object]]) -> None:
    spread = report.delay_spread(
        ["uniform:0:1h", "fixed:1h"], 2000, 0.01, 1000, entries_per_ledger=50_000, seed=0, samples=2
    )
    assert spread.delay.tolist() == ["uniform:0:1h", "fixed:1h"]
    assert spread.entries.tolist() == [2000, 2000]  # nothing is due within the snapshot
    # steady state holds rate x mean delay: 10/s x 30 min and 10/s x 1 h
    assert spread.steady_entries.tolist() == pytest.approx([18_000, 36_000], rel=0.02)
    assert spread.snapshot_is_steady.tolist() == [False, False]
    assert (spread.steady_heap_b < spread.steady_buckets_b).all()  # sparse buckets at 10/s
    report.show_delay_spread(spread)
    (bundle,) = shown
    page = _html(bundle)
    assert report.SPREAD_CAPTION in page and "triple heap, steady state (B/entry)" in page


def test_conclusions_count_published_numbers_from_counts() -> None:
    found = _conclusions(published=None)
    assert found.lines[0].startswith("* **Reproduction** of the 11 published numbers")  # 9 + 2
