"""The negative-ack report's tables and sentences, against hand-computed numbers."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from trackerlab.reporting import negative_acks_report as report


def test_pip_points_sit_at_m_equals_x_times_2_pow_10() -> None:
    repro = pd.DataFrame(
        {"published": ["0.17", "0.33", "0.16"]}, index=pd.Index(["N04", "N09", "N10"], name="id")
    )
    points = report.pip_points(repro)
    assert points.published.tolist() == [0.17, 0.33, 0.16]
    assert points.messages_per_bucket.tolist() == [512_000, 51_200, 512_000]  # x = 500, 50, 500


def _frames():
    table = pd.DataFrame(
        {
            "messages_per_bucket": [256, 409_600, 409_600],
            "run_optimize": [False, False, True],
            "jvm_b_per_entry": [6.0, 0.25, 0.01],
        }
    )
    prec = pd.DataFrame(
        {
            "trim_bits": [4, 4, 8, 8, 12, 12],
            "run_optimize": [False, True] * 3,
            "jvm_b_per_entry": [40.0, 1.0, 8.0, 0.5, 2.0, 0.1],
        }
    )
    subsets = pd.DataFrame(
        {
            "fraction": [0.01, 0.1, 1.0],
            "jvm_b_per_entry": [90.0, 30.0, 1.5],
            "entropy_b_per_entry": [1.0, 0.6, 0.0],
        }
    )
    spread = pd.DataFrame(
        {"delay": ["fixed:60s", "uniform:0:60s"], "jvm_b_per_entry": [8.0, 100.0]}
    )
    base = pd.DataFrame(
        {"jvm_b_per_entry": [64.0, 96.0]},
        index=pd.Index(["nack-pair-map", "nack-hash-map"], name="design"),
    )
    return table, prec, subsets, spread, base


def _conclusions(run_optimize: bool = True):
    return report.conclusions(
        *_frames(),
        counts={"reproduced": 10},
        published=10,
        precision_rate_per_ms=1.0,
        subset_rate_per_ms=8.0,
        subset_trim_bits=10,
        baseline_messages=20_000,
        run_optimize=run_optimize,
    )


def test_conclusions_state_the_numbers_of_the_frames() -> None:
    found = _conclusions()
    assert found.answer == (
        "At the default 8 bits (redelivered up to 255 ms early), PIP-393's time buckets hold a "
        "nacked message in 8 B at 1 nack/ms, against 64 B in the pair hash map it replaced and "
        "96 B in the HashMap before it. Nacking a random 10% of the messages instead of all of "
        "them costs 30 B per nacked message instead of 1.5 B (at 8 msg/ms, 10 bits)."
    )
    assert [(h.label, h.value, h.note) for h in found.headlines] == [
        ("time buckets, 8 bits, 1 nack/ms", "8 B/entry", "JVM model"),
        ("pair hash map (before PIP-393)", "64 B/entry", "JVM model, 20,000 entries"),
    ]
    lines = found.lines
    assert lines[0].startswith("* **Reproduction** of the PIP's 10 numbers")
    # 64 / 8 = 8, 96 / 8 = 12
    assert "cost 8 B/entry, 8× less than the pair map and 12× less than the HashMap" in lines[1]
    assert "at M = 409,600 nacks per bucket the cost falls to 0.250 B/entry" in lines[2]
    assert "the 8-bit point to 0.500 B/entry" in lines[3]
    # 30 / 1.5 = 20, 30 / 0.6 = 50
    assert "nacking 10% of the messages costs 30 B per nacked entry (20× the cost" in lines[4]
    assert "50× the entropy bound" in lines[4]
    assert "delays spread uniformly from 0 to 1 min cost 100 B/entry" in lines[5]
    assert "(more than the pair map)" in lines[5]
    assert len(lines) == 6


def test_conclusions_without_run_containers() -> None:
    lines = _conclusions(run_optimize=False).lines
    assert not any("Run containers" in line for line in lines)
    assert len(lines) == 5


def test_jvm_per_entry_filters_every_column() -> None:
    _, prec, *_ = _frames()
    assert report.jvm_per_entry(prec, trim_bits=12, run_optimize=True) == 0.1
    assert math.isnan(report.jvm_per_entry(prec, trim_bits=16))


def test_captions() -> None:
    assert report.grid_caption(20000, "fixed:60s") == (
        "20,000 nacks redelivered after fixed at 1 min; rows at the default 8 bits when the grid is long"
    )
    assert report.precision_caption(20000, 1.0) == "20,000 nacks at 1 nacks/ms"
    assert report.delays_caption(20000, 1.0) == (
        "Varying redelivery delays at 1 nacks/ms, 8 bits (snapshot of the first 20,000 nacks)"
    )


def test_pip_ids_are_n01_to_n10() -> None:
    assert report.PIP_IDS == ["N01", "N02", "N03", "N04", "N05", "N06", "N07", "N08", "N09", "N10"]


def test_bucket_grid_adds_the_run_optimized_variant_only_when_asked() -> None:
    both = report.bucket_grid(4096, [1.0], [8], 50_000, "fixed:60s", run_optimize=True)
    assert both.run_optimize.tolist() == [False, True]
    assert both.messages_per_bucket.tolist() == [256, 256]  # M = x * 2^y = 1 * 256
    assert both.buckets.tolist() == [17, 17]  # 4,096 nacks at 1/ms over 256-ms buckets
    assert both.array_containers.tolist() == [17, 0]
    assert both.run_containers.tolist() == [0, 17]
    java = report.bucket_grid(4096, [1.0], [8], 50_000, "fixed:60s", run_optimize=False)
    assert java.run_optimize.tolist() == [False]
    assert java.jvm_b_per_entry.iloc[0] == both.jvm_b_per_entry.iloc[0]


def test_theory_curves_span_m_from_1_to_10_million() -> None:
    curves = report.theory_curves(50_000)
    assert len(curves) == 200
    assert curves.messages_per_bucket.iloc[0] == 1.0
    assert math.isclose(curves.messages_per_bucket.iloc[-1], 1e7)


def test_baselines_size_at_most_baseline_messages() -> None:
    capped = report.baselines(4096, 1000)
    assert capped.index.tolist() == ["nack-hash-map", "nack-pair-map"]
    assert capped.index.name == "design"
    jvm = capped.jvm_b_per_entry  # the JVM model is exact; Python-real bytes vary by run
    assert jvm.tolist() == report.baselines(1000, 4096).jvm_b_per_entry.tolist()
    assert jvm.tolist() == pytest.approx([96.256, 65.688])
    assert report.baselines(500, 1000).jvm_b_per_entry.tolist() != jvm.tolist()


def test_precision_and_random_subsets_pass_the_notebook_parameters() -> None:
    prec = report.precision(4096, 1.0, [0, 8], 50_000, "fixed:60s")
    assert prec.trim_bits.tolist() == [0, 0, 8, 8]
    assert prec.run_optimize.tolist() == [False, True, False, True]
    assert report.jvm_per_entry(prec, trim_bits=8, run_optimize=False) == pytest.approx(
        5.777, abs=1e-3
    )
    subsets = report.random_subsets(4096, 8.0, 10, [0.5, 1.0], 50_000, seed=0)
    assert subsets.fraction.tolist() == [0.5, 1.0]
    assert subsets.entries.tolist()[1] == 4096
    assert subsets.messages_per_bucket.tolist() == [8192, 8192]  # 8 * 2^10


def test_show_functions_show_their_captions(shown) -> None:
    grid = report.bucket_grid(4096, [1.0], [8, 10], 50_000, "fixed:60s", run_optimize=True)
    report.show_grid(grid, 4096, "fixed:60s")
    report.show_precision(report.precision(4096, 1.0, [0, 8], 50_000, "fixed:60s"), 4096, 1.0)
    report.show_mix(grid)
    report.show_subsets(report.random_subsets(4096, 8.0, 10, [0.5, 1.0], 50_000, seed=0))
    html = [bundle["text/html"] for bundle in shown]
    assert len(html) == 4
    assert report.grid_caption(4096, "fixed:60s") in html[0]
    assert "4,096 nacks at 1 nacks/ms" in html[1]
    assert "Containers of the time-bucket index (not run-optimized)" in html[2]
    assert "Random subsets of the stream, nacked" in html[3]


def test_show_delays_returns_the_snapshot_at_the_default_bits(shown) -> None:
    spread = report.show_delays(4096, 1.0, ["fixed:60s", "uniform:0:60s"], 50_000, seed=0)
    assert spread.delay.tolist() == ["fixed:60s", "uniform:0:60s"]
    assert spread.trim_bits.tolist() == [8, 8]
    assert spread.entries.tolist() == [4096, 4096]
    (bundle,) = shown
    assert report.delays_caption(4096, 1.0) in bundle["text/html"]


def test_default_bits_and_sparse_subset() -> None:
    _, prec, subsets, _, _ = _frames()
    assert report.default_bits(prec) == 8
    assert report.default_bits(prec[prec.trim_bits != 8]) == 4  # 4 and 12 tie; the first wins
    sparse, every_b = report.sparse_subset(subsets)
    assert sparse is not None and sparse.fraction == 0.1 and every_b == 1.5
    none, nan = report.sparse_subset(subsets[subsets.fraction >= 1])
    assert none is None and nan == 1.5
    assert math.isnan(report.sparse_subset(subsets[subsets.fraction < 1])[1])


def test_bullets_by_finding() -> None:
    table, prec, subsets, spread, base = _frames()
    assert report.full_buckets_bullet(table) == (
        "* **Full buckets:** at M = 409,600 nacks per bucket the cost falls to 0.250 B/entry."
    )
    assert report.run_containers_bullet(prec) == (
        "* **Run containers** (not in Java) would bring the 8-bit point to 0.500 B/entry."
    )
    assert report.precision_bullet(prec, base) == (
        "* **Precision:** at 8 bits time buckets cost 8 B/entry, 8× less than the pair map "
        "and 12× less than the HashMap."
    )
    assert report.backoff_bullet(spread, base) == (
        "* **Varying backoff:** redelivery delays spread uniformly from 0 to 1 min cost 100 "
        "B/entry in a snapshot of the first nacks (more than the pair map)."
    )
    sparse, every_b = report.sparse_subset(subsets)
    assert sparse is not None
    assert report.random_subsets_bullet(sparse, every_b) == (
        "* **Random subsets:** nacking 10% of the messages costs 30 B per nacked entry "
        "(20× the cost when every message is nacked), 50× the entropy bound."
    )
    assert report.reproduction_bullet({"reproduced": 3}, 10).startswith(
        "* **Reproduction** of the PIP's 10 numbers, once the Java objects are counted: "
        "3 of 3 reproduce within tolerance;"
    )
