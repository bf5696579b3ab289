"""The negative-ack report's tables and sentences, against hand-computed numbers."""

from __future__ import annotations

import math

import pandas as pd

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
