"""The design lab's back-end: the matrix, its summaries, the seeds' scenarios, the acceptance
and the work per operation."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from trackerlab.core.errors import UsageError
from trackerlab.experiments import design_lab as dl
from trackerlab.spark.grid import parse_grid
from trackerlab.spark.rows import local_rows

MATRIX = dl.Matrix(
    ("fixed:1d", "uniform:0:1h"), ("all", "fraction:0.05"), (5.0,), (64, 1000), (1, 100), 8000
)


@pytest.fixture(scope="module")
def frame():
    return dl.run_matrix(MATRIX)


def test_matrix_cells_and_rows(frame):
    assert len(MATRIX.cells()) == 16
    assert len(frame) == 16 * len(dl.DESIGNS)
    assert (frame.entries > 0).all() and frame.bytes_per_entry.notna().all()
    fixed = frame[(frame.delay == "fixed:1d") & (frame.pattern == "all")]
    dense = fixed[fixed.batch_size == 1]
    assert (dense.floor_per_entry == 0).all() and not fixed.floor_applies.any()
    batched = fixed[fixed.batch_size == 100]  # a batch may straddle two buckets
    assert (batched.floor_per_entry > 0).all()
    uniform = frame[(frame.delay == "uniform:0:1h") & (frame.batch_size == 1)]
    assert uniform.floor_applies.all()  # log2(k) + 1.44 bits for k of 7,000 to 56,000 buckets


def test_summaries(frame):
    worst = dl.worst_case(frame)
    assert list(worst.design) == list(dl.DESIGNS)
    hier = worst.set_index("design").loc["time-buckets-hier"]
    assert hier.worst_bytes_per_entry < dl.HEAP_BYTES_PER_ENTRY < 40
    assert worst.set_index("design").loc["time-buckets"].cells_above_24B >= 4
    assert dl.best_proposal(frame) == "time-buckets-hier"
    wins = dl.winners(frame)
    assert len(wins) == 16 and set(wins.design) <= set(dl.DESIGNS)
    assert dl.win_table(frame, "delay").to_numpy().sum() == 16
    table = dl.cell_table(frame)
    assert list(table.columns[:2]) == ["floor_B", "ceiling_B"] and len(table) == 16


def test_seed_scenarios_and_acceptance(frame):
    scenarios = dl.seed_fixed_scenarios(50_000, 100_000)
    assert len(scenarios) == 8
    saved = dl.savings(scenarios[:2] + scenarios[-1:])
    tb = saved[saved.design == "time-buckets"]
    assert np.allclose(tb.saving_kept, 1.0)
    assert (saved[saved.design == "triple-heap"].saving_kept == 0).all()
    accepted = dl.acceptance(frame, saved)
    assert list(accepted.passed) == [True, True, True]
    assert (
        accepted.worst.iloc[0] == frame[frame.design == "time-buckets-hier"].bytes_per_entry.max()
    )


def test_sweep_rows_convert_to_the_same_frame():
    grid = parse_grid(
        {"root_seed": 0, "blocks": [{"name": "design-lab", "designs": list(dl.DESIGNS),
         "messages": 3000, "rate_per_ms": 2.0, "tick_ms": 1000,
         "delay": ["uniform:0:10m"], "pattern": ["fraction:0.3"], "batch_size": [4]}]},
        "t", "t",
    )  # fmt: skip
    (point,) = grid.points
    rows = pd.DataFrame([{**r, "wall_s": 1.0, "task_s": 1.0} for r in local_rows(point)])
    converted = dl.from_sweep(rows).set_index("design")
    cell = {"delay": "uniform:0:10m", "pattern": "fraction:0.3", "rate_per_ms": 2.0,
            "tick_ms": 1000, "batch_size": 4, "messages": 3000}  # fmt: skip
    direct = pd.DataFrame(dl.size_cell(cell)).set_index("design")
    # a grid point seeds its workload from the grid; the cell uses seed 0: compare structure
    assert set(converted.index) == set(direct.index)
    assert (converted.floor_per_entry > 0).all()
    assert converted.loc["time-buckets-hier", "entries"] > 0


def test_op_cost_is_bounded_per_operation():
    ops = dl.op_cost(1500, 2.0, "uniform:0:20s", 64).set_index("design")
    for name in dl.PROPOSALS:
        row = ops.loc[name]
        assert row.adds == row.delivered > 1400
        assert 0 < row.touches_per_add < 30 and row.touches_per_delivered < 2
    assert (
        ops.loc["time-buckets-hier"].touches_per_add < ops.loc["time-buckets-flat"].touches_per_add
    )


def test_load_matrix_reads_the_big_points_from_their_own_sweep(monkeypatch, tmp_path):
    """The matrix from one sweep, the 1e9 points from another (a folder relative to the
    repository); no sweep: the fallback."""
    grid = parse_grid(
        {"root_seed": 0, "blocks": [{"name": "design-lab-1e9", "designs": list(dl.DESIGNS),
         "messages": 2000, "rate_per_ms": 2.0, "tick_ms": 1000, "delay": ["uniform:0:10m"]}]},
        "t", "t",
    )  # fmt: skip
    (point,) = grid.points
    big = pd.DataFrame([{**r, "wall_s": 1.0, "task_s": 1.0} for r in local_rows(point)])
    big["messages"] = 10**9  # stands for a 1e9-message point
    sweeps = {tmp_path / "big": big}
    monkeypatch.setattr(dl, "read_sweep", lambda path: sweeps.get(Path(path), pd.DataFrame()))
    small = dl.Matrix(("uniform:0:10m",), ("all",), (2.0,), (1000,), (1,), 2000)
    monkeypatch.setattr(dl, "repo_root", lambda: tmp_path)  # relative folders: from the repo
    alone = dl.load_matrix("none", str(tmp_path / "none"), small, "big")
    assert not alone.from_spark and alone.source.startswith("single process, 1 cells")
    assert len(alone.frame) == len(dl.DESIGNS)
    assert set(alone.big_points.design) == set(dl.DESIGNS)
    assert (alone.big_points.messages == 10**9).all()
    sweeps[tmp_path / "matrix"] = big
    own = dl.load_matrix("none", str(tmp_path / "matrix"), small)
    assert own.from_spark and len(own.big_points) == len(dl.DESIGNS)
    assert dl.load_matrix("none", str(tmp_path / "none"), small).big_points.empty


def test_beyond_bounds_names_the_cells_that_fail(frame):
    heap = dl.beyond_bounds(frame, "time-buckets")
    assert len(heap) >= 4
    assert ((heap.bytes_per_entry > 24) | (heap.ratio_to_floor > 3)).all()
    assert list(heap.ratio_to_floor.dropna()) == sorted(heap.ratio_to_floor.dropna(), reverse=True)
    hier = frame[frame.design == "time-buckets-hier"]
    assert len(dl.beyond_bounds(frame, "time-buckets-hier")) == int(
        ((hier.bytes_per_entry > 24) | (hier.floor_applies & (hier.ratio_to_floor > 3))).sum()
    )


@pytest.mark.parametrize(
    ("axis", "value", "needle"),
    [
        ("messages", 0, "messages must be an integer >= 1"),
        ("delays", ("fixed:xx",), "--delay"),
        ("patterns", ("fraction:1.5",), "fraction must be a number in 0..1"),
        ("rates_per_ms", (0.0,), "rate (messages per ms) must be a number > 0"),
        ("ticks_ms", (0,), "tick (ms) must be an integer >= 1"),
        ("batch_sizes", (0,), "batch size must be an integer >= 1"),
    ],
)
def test_bad_matrix_axes_are_refused_before_any_cell_runs(axis, value, needle):
    axes = {"delays": ("fixed:1d",), "patterns": ("all",), "rates_per_ms": (5.0,),
            "ticks_ms": (64,), "batch_sizes": (1,), "messages": 10}  # fmt: skip
    with pytest.raises(UsageError, match=re.escape(needle)):
        dl.Matrix(**{**axes, axis: value})


def test_bad_run_sizes_are_refused():
    with pytest.raises(UsageError, match="seed_messages must be an integer >= 1, got 0"):
        dl.seed_fixed_scenarios(0)
    with pytest.raises(UsageError, match="seed_batched_messages must be an integer >= 1"):
        dl.seed_fixed_scenarios(10, 0)
    with pytest.raises(UsageError, match="op_messages must be an integer >= 1, got 0"):
        dl.op_cost(0, 2.0, "uniform:0:20s", 64)
    with pytest.raises(UsageError, match=re.escape("op_tick_ms must be an integer >= 1")):
        dl.op_cost(10, 2.0, "uniform:0:20s", 0)


def test_live_memory_of_hier_exceeds_its_paused_snapshot_on_short_fixed_delays():
    """A fixed 5 s delay at tick 64 ms is shorter than a near bucket (256 ticks, 16.4 s): under
    a running dispatcher every entry sits in an expanded near bucket, a ``long[]`` slot each,
    while the paused snapshot (what the matrix sizes) holds one run token per tick and ledger.
    Flat buckets expand nothing: live and paused agree."""
    ops = dl.op_cost(1500, 2.0, "fixed:5s", 64, designs=("time-buckets-hier", "time-buckets-flat"))
    ops = ops.set_index("design")
    hier, flat = ops.loc["time-buckets-hier"], ops.loc["time-buckets-flat"]
    assert hier.held_when_published == flat.held_when_published == 1500
    assert 8 <= hier.live_bytes_per_entry < 9 and hier.paused_bytes_per_entry < 0.5
    assert flat.live_bytes_per_entry == flat.paused_bytes_per_entry
