"""Grids: expansion, seeds, and bad input naming the file, line and key (no Spark)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import assert_one_line_error
from trackerlab.core.errors import UsageError
from trackerlab.spark.grid import (
    DEFAULT_DESIGNS,
    load_grid,
    load_profile,
    parse_grid,
    point_seed,
    workload_identity,
)

GOOD = """\
root_seed: 5
messages: 1e4
blocks:
  - name: a
    designs: [nack-time-buckets, triple-heap]
    rate_per_ms: [1, 2.5]
    trim_bits: [4, 8]
  - name: b
    rate_per_s: 10_000
    tick_ms: [1s, 1m]
    batch_size: 100
    delay: uniform:0:2d
"""


def _write(tmp_path, text):
    path = tmp_path / "grid.yaml"
    path.write_text(text)
    return path


def test_expansion_seeds_and_ticks(tmp_path):
    grid = load_grid(_write(tmp_path, GOOD))
    assert len(grid.points) == 6 and grid.messages == 60_000
    a = grid.points[0]
    assert (a.block, a.workload.rate_per_ms, a.trim_bits, a.tick_ms) == ("a", 1.0, 4, None)
    assert a.designs == ("nack-time-buckets", "triple-heap")
    b = [p for p in grid.points if p.block == "b"]
    assert [(p.tick_ms, p.trim_bits) for p in b] == [(1000, 9), (60000, 15)]
    assert b[0].workload.rate_per_ms == 10.0 and b[0].workload.batch_size == 100
    assert b[0].designs == DEFAULT_DESIGNS["tick_ms"]
    assert b[0].workload.delay.text == "uniform:0:2d" and b[0].workload.seed == b[0].seed
    for p in grid.points:
        assert p.seed == int(np.random.SeedSequence([5, p.point_id]).generate_state(1)[0])
        assert p.seed == point_seed(5, p.point_id)
    assert len({p.seed for p in grid.points}) == 6
    table = grid.to_pandas()
    assert list(table.seed) == [p.seed for p in grid.points]


def test_adding_axis_values_keeps_existing_points(tmp_path):
    before = load_grid(_write(tmp_path, GOOD))
    after = load_grid(_write(tmp_path, GOOD.replace("[1, 2.5]", "[1, 2.5, 16]")))
    keys = {p.key: p.seed for p in after.points}
    assert all(keys[p.key] == p.seed for p in before.points)
    assert len(after.points) == 8


def test_duplicate_points_are_computed_once_for_every_block():
    grid = parse_grid(
        {
            "messages": 10,
            "rate_per_ms": 1,
            "trim_bits": 4,
            "blocks": [{"name": "a"}, {"name": "again", "alone": True, "shapes": "treemap"}],
        },
        "d",
        "d",
    )
    assert len(grid.points) == 1
    point = grid.points[0]
    assert point.block == "a,again" and point.alone
    assert point.shapes == ("avl-openhash", "treemap")


def test_profiles_parse():
    smoke, default, large = (load_profile(n) for n in ("smoke", "default", "large"))
    assert smoke.messages < 1_000_000
    assert 1.5e8 < default.messages < 2.0e8  # 1.18e8 + the design lab's 216 cells of 3e5
    lab = [p for p in default.points if p.block == "design-lab"]
    assert len(lab) == 216 and all(len(p.designs) == 7 for p in lab)
    big = [p for p in large.points if p.block == "design-lab-1e9"]
    assert len(big) == 4 and all(p.workload.messages == 10**9 and p.alone for p in big)
    assert len({p.workload.delay.text for p in big}) == 4  # one point per delay family
    seed = [p for p in large.points if p.block == "seed-scenario"]
    assert len(seed) == 8 and all(p.workload.messages == 864_000_000 for p in seed)
    assert {p.workload.batch_size for p in seed} == {1, 100}
    assert {p.tick_ms for p in seed} == {1000, 60_000}
    assert {p.workload.delay.text for p in seed} == {"fixed:1d", "uniform:0:2d"}
    assert all(p.workload.rate_per_ms == 10.0 for p in seed)
    assert set(DEFAULT_DESIGNS["tick_ms"]) == set(seed[0].designs)
    heatmap = [p for p in large.points if p.block == "heatmap"]
    assert set(heatmap[0].designs) == {*DEFAULT_DESIGNS["trim_bits"], "nack-pair-map"}


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ("messages: [1e4\n", ["grid.yaml:", "not valid YAML"]),
        ("messages: 1e4\nrate_per_ms: 1\ntrim_bits: 8\ncolour: red\n", ["grid.yaml:4", "colour"]),
        (
            "messages: 1e4\nrate_per_ms: 1\ntrim_bits: 8\ndesigns: [nack-time-buckets, b-tree]\n",
            ["grid.yaml:4", "designs", "unknown design 'b-tree'", "triple-heap"],
        ),
        (
            "messages: 1e4\nrate_per_ms: 1\ntrim_bits: 8\ndesigns: [pair-hash-map]\n",
            ["grid.yaml:4", "designs", "did you mean 'nack-pair-map'?"],
        ),
        (
            "messages: 1e4\nrate_per_ms: 1\ntrim_bits: 8\ndesigns: [time-buckets]\n",
            ["grid.yaml:4", "time-buckets is the delayed tracker's design", "tick_ms"],
        ),
        (
            "messages: 1e4\nrate_per_ms: 1\ntrim_bits: 8\ndesigns: [pip195-buckets]\n",
            ["grid.yaml:4", "design 'pip195-buckets' cannot be used here"],
        ),
        ("messages: 1e4\nrate_per_ms: -1\ntrim_bits: 8\n", ["grid.yaml:2", "rate_per_ms", "> 0"]),
        ("messages: 1.5e3.2\nrate_per_ms: 1\ntrim_bits: 8\n", ["grid.yaml:1", "messages"]),
        ("messages: 1e4\nrate_per_ms: 1\ntrim_bits: 99\n", ["grid.yaml:3", "trim_bits", "0..40"]),
        ("messages: 1e4\nrate_per_ms: 1\n", ["needs trim_bits or tick_ms"]),
        (
            "messages: 1e4\nrate_per_ms: 1\nrate_per_s: 1\ntrim_bits: 8\n",
            ["rate_per_s", "not both"],
        ),
        ("messages: 1e4\nrate_per_ms: 1\ntrim_bits: 8\ndelay: gauss:1\n", ["grid.yaml:4", "gauss"]),
        (
            "messages: 1e4\nrate_per_ms: 1\ntrim_bits: 8\nentries_per_ledger: 20000000\n",
            ["grid.yaml:4", "entries_per_ledger"],
        ),
        ("messages: 1e4\nrate_per_ms: 1\ntrim_bits: 8\nsettings: {engine: gpu}\n", ["engine"]),
        ("- just\n- a list\n", ["must be a mapping"]),
        (
            "messages: 1e4\nrate_per_s: 1e4\ntick_ms: 1s\ndesigns: [nack-pair-map]\n",
            ["grid.yaml:4", "designs", "nack-pair-map is the nack tracker's design", "trim_bits"],
        ),
        (
            "messages: 2e8\nrate_per_ms: 1\ntrim_bits: 8\ndesigns: [nack-pair-map]\n",
            ["grid.yaml:4", "designs", "177,167,408", "200,000,000 entries"],
        ),
        (  # batches of 100: 2e6 entries, well within the bound
            "messages: 2e8\nrate_per_ms: 1\ntrim_bits: 8\nbatch_size: 100\n"
            "designs: [nack-pair-map, b-tree]\n",
            ["grid.yaml:5", "unknown design 'b-tree'"],
        ),
        ("messages: 1\nmessages: 2\n", ["grid.yaml:2", "duplicate key"]),
    ],
)
def test_bad_grid_files(tmp_path, text, needles):
    with pytest.raises(UsageError) as info:
        load_grid(_write(tmp_path, text))
    message = str(info.value)
    assert "\n" not in message
    for needle in needles:
        assert needle in message, (needle, message)


def test_missing_grid_file_and_unknown_profile(tmp_path):
    with pytest.raises(UsageError, match="not found"):
        load_grid(tmp_path / "nope.yaml")
    with pytest.raises(UsageError, match=r"unknown sweep profile 'huge'.*smoke"):
        load_profile("huge")


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["sweep", "--grid", "no/such/grid.yaml"], ["--grid: file no/such/grid.yaml not found"]),
        (["sweep", "--profile", "huge"], ["unknown sweep profile"]),
        (["sweep"], ["one of the arguments --grid --profile is required"]),
        (["bench", "sweep", "--messages", "lots"], ["--messages"]),
    ],
)
def test_cli_bad_input(cli, args, needles):
    assert_one_line_error(cli(*args, timeout=60), *needles)


def test_cli_dry_run_lists_points(cli, tmp_path):
    result = cli("sweep", "--profile", "smoke", "--dry-run", "--out", str(tmp_path / "x"))
    assert result.returncode == 0, result.stderr
    assert "44 points, 900,000 messages, 0 done" in result.stdout  # 24 design-lab points
    assert not (tmp_path / "x").exists()


def test_the_resume_key_follows_the_content_of_delay_files(tmp_path):
    """A changed empirical delay CSV used to keep its key (the path), so a resumed sweep
    reused results computed from the old file."""
    csv = tmp_path / "delays.csv"
    text = "messages: 1000\nrate_per_ms: 1\ntrim_bits: 8\ndelay: empirical:delays.csv\n"
    grid_file = tmp_path / "g.yaml"
    grid_file.write_text(text)
    csv.write_text("100\n200\n")
    first = load_grid(grid_file).points[0]
    again = load_grid(grid_file).points[0]
    csv.write_text("100\n300\n")
    changed = load_grid(grid_file).points[0]
    assert first.key == again.key and first.seed == again.seed
    assert changed.key != first.key
    assert changed.columns()["delay_inputs"] != first.columns()["delay_inputs"] != ""
    plain = parse_grid({"messages": 1000, "rate_per_ms": 1, "trim_bits": 8}, "p", "t").points[0]
    # file-free grids keep their keys: existing sweep folders still resume
    assert "delay_inputs" not in workload_identity(plain)
