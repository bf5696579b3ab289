"""The Spark sweep on local[2]: a small grid in seconds, provenance, resume, interruption,
and equality with the single-process pyroaring path (fixed and random delays, batched and
unbatched, ticks, ledgers cut across tasks, both engines)."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from trackerlab.spark.grid import load_profile, parse_grid
from trackerlab.spark.rows import COUNT_COLUMNS, index_rows
from trackerlab.spark.store import read_sweep
from trackerlab.spark.sweep_engine import run_sweep

pytestmark = pytest.mark.spark

PROVENANCE = (
    "grid_row",
    "seed",
    "root_seed",
    "git_commit",
    "library_versions",
    "master",
    "engine",
    "wall_s",
    "task_s",
    "finished_at",
)
COMPARED = (
    *COUNT_COLUMNS,
    "entries",
    "jvm_total_bytes",
    "jvm_bytes",
    "jvm_direct_bytes",
    "python_bytes",
    "selected",
)
SCENARIO = {
    "root_seed": 11,
    "messages": 30_000,
    "rate_per_s": 10_000,
    "tick_ms": ["1s", "1m"],
    "batch_size": [1, 100],
    "delay": ["fixed:1d", "uniform:0:2d"],
}


def _quiet(_: str) -> None:
    pass


def _assert_equal_to_index_rows(grid, frame):
    frame = frame.set_index(["point_id", "design", "shape"], drop=False)
    for point in grid.points:
        for expected in index_rows(point):
            got = frame.loc[(point.point_id, expected["design"], expected["shape"])]
            for column in COMPARED:
                want = expected[column]
                if want is None:
                    assert pd.isna(got[column]), (point.label(), column)
                else:
                    assert got[column] == want, (point.label(), expected["design"], column)


@pytest.mark.slow
def test_smoke_profile_provenance_and_resume(spark, tmp_path):
    grid = load_profile("smoke")
    out = tmp_path / "smoke"
    summary = run_sweep(grid, out, spark=spark, log=_quiet)
    assert summary.points == len(grid.points) and summary.skipped == 0
    frame = read_sweep(out)
    rows = sum(len(p.designs) * len(p.shapes) for p in grid.points)
    lab = [p for p in grid.points if p.block == "design-lab"]
    assert len(lab) == 24
    # the 8 heatmap points size the pair map too; a design-lab point sizes 7 designs
    assert rows == 3 * (len(grid.points) - len(lab)) + 8 + 7 * len(lab)
    assert len(frame) == rows
    assert set(frame[frame.design == "nack-pair-map"].block) == {"heatmap"}
    for column in PROVENANCE:
        assert column in frame and frame[column].notna().all(), column
    assert set(frame.master) == {"local[2]"}
    assert (frame.jvm_bytes_per_entry > 0).all()
    files = {p: p.stat().st_mtime_ns for p in (out / "points").glob("*.parquet")}
    again = run_sweep(grid, out, spark=spark, log=_quiet)
    assert again.points == 0 and again.skipped == len(grid.points)
    assert {p: p.stat().st_mtime_ns for p in (out / "points").glob("*.parquet")} == files
    victim = sorted(files)[0]
    victim.unlink()
    third = run_sweep(grid, out, spark=spark, log=_quiet)
    assert third.points == 1 and third.skipped == len(grid.points) - 1
    assert len(read_sweep(out)) == rows
    assert not (out / ".lock").exists()


@pytest.mark.parametrize("engine", ["python", "sql"])
def test_equal_to_single_process_path(spark, tmp_path, engine):
    grid = parse_grid({**SCENARIO, "settings": {"engine": engine}}, "eq", "test")
    run_sweep(grid, tmp_path / engine, spark=spark, log=_quiet)
    _assert_equal_to_index_rows(grid, read_sweep(tmp_path / engine))


def test_ledgers_cut_across_tasks(spark, tmp_path):
    """Ledgers of 300,000 entries in tasks of 65,536 messages: bitmaps summed in Spark; the
    nack tracker's pair map sized from the distinct-entry count equals the map built."""
    raw = {
        "messages": 250_000,
        "rate_per_ms": 50,
        "trim_bits": [10, 14],
        "entries_per_ledger": 300_000,
        "delay": ["fixed:0", "uniform:0:3s"],
        "designs": ["nack-time-buckets", "nack-time-buckets-runs", "triple-heap", "nack-pair-map"],
        "settings": {"task_messages": 70_000},
    }
    grid = parse_grid(raw, "cut", "test")
    logs: list[str] = []
    run_sweep(grid, tmp_path / "cut", spark=spark, log=logs.append)
    assert any("cut by task ranges" in line for line in logs)
    _assert_equal_to_index_rows(grid, read_sweep(tmp_path / "cut"))


def test_interrupted_sweep_keeps_finished_points(spark, tmp_path):
    raw = {
        "messages": 5_000,
        "rate_per_ms": [1, 2, 4],
        "trim_bits": 8,
        "settings": {"wave_messages": 5_000},
    }
    grid = parse_grid(raw, "stop", "test")

    def stop_at_wave_two(line: str) -> None:
        if line.startswith("wave 2/3:"):
            raise KeyboardInterrupt

    out = tmp_path / "stop"
    with pytest.raises(KeyboardInterrupt):
        run_sweep(grid, out, spark=spark, log=stop_at_wave_two)
    assert len(read_sweep(out)) == 3  # the first point, one row per design
    assert not (out / ".lock").exists()
    assert not [p for p in os.listdir(out / "points") if p.startswith(".")]
    summary = run_sweep(grid, out, spark=spark, log=_quiet)
    assert summary.skipped == 1 and summary.points == 2


def test_a_changed_grid_reads_only_its_own_points(spark, tmp_path):
    raw = {"messages": 5_000, "rate_per_ms": [1, 2], "trim_bits": 8}
    out = tmp_path / "changed"
    run_sweep(parse_grid(raw, "g", "test"), out, spark=spark, log=_quiet)
    assert sorted(set(read_sweep(out).rate_per_ms)) == [1.0, 2.0]
    smaller = parse_grid({**raw, "rate_per_ms": [1]}, "g", "test")
    summary = run_sweep(smaller, out, log=_quiet)  # nothing to compute: no session needed
    assert summary.points == 0 and summary.skipped == 1
    assert sorted(set(read_sweep(out).rate_per_ms)) == [1.0]
    assert sorted(set(read_sweep(out, every_file=True).rate_per_ms)) == [1.0, 2.0]
