"""A full disk (a small tmpfs): one line, earlier results intact, no temporary file left.

Runs where the suite is root and ``mount`` works; elsewhere each test skips with the reason.
Before issue 16 a full disk ended a sweep with ``OSError: [Errno 28]`` and a traceback.
"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.conftest import FIXTURE_NOTEBOOKS
from tests.faults.conftest import fill
from tests.spark.results import assert_same_results
from trackerlab.core.durable import atomic_write_bytes
from trackerlab.core.errors import UsageError
from trackerlab.reporting.runner import run_report
from trackerlab.spark.grid import parse_grid
from trackerlab.spark.store import POINTS, SweepStore, read_sweep
from trackerlab.spark.sweep_engine import run_sweep

RAW = {
    "root_seed": 28,
    "messages": 4096,
    "rate_per_ms": [1, 2, 4, 8],
    "trim_bits": 8,
    "settings": {"wave_messages": 4096},
}


def test_atomic_write_on_a_full_disk_keeps_the_old_file(small_disk):
    target = small_disk / "f.bin"
    atomic_write_bytes(target, b"old")
    fill(small_disk)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_bytes(target, b"x" * 100_000)
    assert target.read_bytes() == b"old"
    assert [p.name for p in small_disk.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.spark
def test_sweep_on_a_full_disk_is_one_line_and_resumes(spark, small_disk, tmp_path):
    grid = parse_grid(RAW, "full", "test")
    out = small_disk / "sweep"
    store = SweepStore(out)
    store.lock()  # the folder exists; then the disk fills up with room for ~2 points
    store.unlock()
    filler = fill(small_disk, leave_bytes=40_000)
    with pytest.raises(UsageError) as info:
        run_sweep(grid, out, spark=spark, log=lambda m: None)
    line = str(info.value)
    assert "\n" not in line and "no space left on the device" in line and "re-run to resume" in line
    kept = read_sweep(out) if (out / "manifest.json").exists() else pd.DataFrame()
    assert kept.empty or kept.point_id.nunique() < 4
    assert not [p for p in (out / POINTS).iterdir() if p.name.startswith(".")]
    filler.unlink()
    summary = run_sweep(grid, out, spark=spark, log=lambda m: None)
    assert summary.points + summary.skipped == 4
    reference = tmp_path / "reference"
    run_sweep(grid, reference, spark=spark, log=lambda m: None)
    assert_same_results(read_sweep(out), read_sweep(reference))


@pytest.mark.slow
def test_report_on_a_full_disk_is_one_line_and_leaves_reports_unchanged(small_disk):
    out = small_disk / "reports"
    run_report("smoke", ["ok"], out, FIXTURE_NOTEBOOKS, log=lambda m: None)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    fill(small_disk, leave_bytes=8_000)
    with pytest.raises(UsageError) as info:
        run_report("smoke", ["ok"], out, FIXTURE_NOTEBOOKS, log=lambda m: None)
    line = str(info.value)
    assert "\n" not in line and "no space left on the device" in line and "unchanged" in line
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert not [p for p in small_disk.iterdir() if p.name.endswith(".staging")]
