"""Issue 16's bad inputs, items 7, 8, 9 and 10: one line naming the parameter, exit code 2.

Run in-process through ``trackerlab.commands.cli.main`` (what the console script calls), so that the
many cases stay cheap: an exception escaping ``main`` fails the test like a traceback would.
Each case failed before issue 16 (a traceback, exit 0/1, wrong wording, or work started).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_NOTEBOOKS, REPO
from trackerlab.commands.cli import main

BOMB = (
    "a: &a [x, x, x, x, x, x, x, x, x]\n"
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
)


def one_line(capsys, *args: str, code: int = 2) -> str:
    """Run the CLI in-process; it must exit ``code`` with one ``trackerlab:`` stderr line."""
    got = main(list(args))
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert got == code, err
    assert len(err) == 1 and err[0].startswith("trackerlab: "), err
    return err[0]


def _grid(tmp_path: Path, text: str) -> str:
    path = tmp_path / "g.yaml"
    path.write_text(text)
    return str(path)


SIZE = ("size", "triple-heap")


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        # item 7: nonsense values
        ((*SIZE, "--delay", "uniform:0:1e30ms"), ["--delay", "longer than 1000 years"]),
        ((*SIZE, "--seed", str(2**64)), ["--seed must be in 0..72,057,594,037,927,935"]),
        ((*SIZE, "--seed", str(2**56)), ["--seed must be in 0..72,057,594,037,927,935"]),
        ((*SIZE, "--start-ledger", str(2**63)), ["--start-ledger must be in 0.."]),
        (
            (*SIZE, "--rate", "1e-12/ms"),
            ["--rate (messages per ms) must be a number in 1e-09..1e+06"],
        ),
        ((*SIZE, "--tick", "0"), ["--tick must be a whole number of ms"]),
        # item 8: beyond the machine: the estimate and the flag
        (
            (*SIZE, "--messages", "1000000000"),
            ["size triple-heap of 1,000,000,000 messages: estimated", "GiB", "--allow-large"],
        ),
        (
            ("simulate", "receiver-queue", "--rate", "1000/s", "--sample-ms", "1e-6"),
            ["--sample-ms must be a number in 0.001.."],
        ),
        (
            (
                "simulate",
                "receiver-queue",
                "--rate",
                "1000/s",
                "--duration-s",
                "86400",
                "--sample-ms",
                "0.001",
            ),
            ["simulate receiver-queue", "estimated", "--allow-large"],
        ),
        (
            ("simulate", "receiver-queue", "--rate", "1e18/s"),
            ["--rate (msg/s) must be a number in 1..1e+07, got 1e+18"],
        ),
        (
            ("simulate", "receiver-queue", "--rate", "1e7/s", "--duration-s", "3600"),
            ["estimated", "--allow-large"],
        ),
        (
            ("simulate", "delayed", "--rate", "1e18/s"),
            ["--rate (msg/s) must be a number > 0 and <= 1e+09"],
        ),
        (
            ("simulate", "delayed", "--rate", "1e9/s"),
            ["simulate delayed", "estimated", "--allow-large"],
        ),
        (
            (
                "plan",
                "--rate",
                "1000k/s",
                "--delayed",
                "100%",
                "--delay",
                "fixed:10000d",
                "--fixed-delay-lookahead",
                "0",  # one fixed delay pauses reads at 50,000 entries otherwise
                "--exact",
            ),
            ["plan --exact: the delayed snapshot holds more than", "plan without --exact"],
        ),
        # item 9
        (("simulate", "delayed", "--designs", ""), ["--designs must not be empty"]),
        (("sweep", "--profile", "smoke", "--master", "local[0]"), ["local[N] needs N in 1..1024"]),
        (
            ("sweep", "--profile", "smoke", "--dry-run", "--out", str(REPO / "README.md")),
            ["README.md exists and is not a folder"],
        ),
        (("reproduce", "--only", ",,,"), ["--only must name published ids", "',,,'"]),
        (("plan", "--rate", "1k/s", "--master", "local[2]"), ["--master: only --exact or a fleet"]),
        (
            ("plan", "--rate", "1k/s", "--exact", "--master", "local[100000]"),
            ["local[N] needs N in 1..1024"],
        ),
        (
            ("sweep", "--profile", "smoke", "--out", "/etc/passwd/sw"),
            ["/etc/passwd", "not a folder"],
        ),
        # item 10
        (("sweep", "--grid", ""), ["--grid must not be empty"]),
        (("sweep", "--profile", ""), ["--profile must not be empty"]),
        (("sweep", "--profile", "smoke", "--out", ""), ["--out must not be empty"]),
        (
            ("bench", "pending-acks", "--entries", "0"),
            ["--entries must be an integer in 2..10000000, got 0"],
        ),
        (("bench", "pending-acks", "--layouts", ""), ["--layouts must not be empty"]),
        (("bench", "pending-acks", "--cycles", ""), ["--cycles must name at least one value"]),
        (
            ("bench", "sweep", "--messages", "1e3"),
            ["--messages must be an integer in 10000..", "1000"],
        ),
        (("bench", "heaps", "--messages", "0"), ["--messages must be an integer in 1..1000000000"]),
        (("bench", "plan", "--fleet-topics", "-1"), ["--fleet-topics"]),
        (("plan", "--rate", "0/s"), ["--rate"]),
        (("plan", "--topics", "/nonexistent/fleet.csv"), ["fleet.csv"]),
        (("report", "--only", ""), ["--only must not be empty"]),
        (("report", "--profile", ""), ["unknown profile ''"]),
        (("report", "--out", ""), ["--out must name a folder"]),
        (("report", "--out", "."), ["refusing to publish into the current folder"]),
        (("report", "--out", "/"), ["refusing to publish into the filesystem root"]),
        (("report", "--out", str(REPO)), ["refusing to publish into"]),
        (
            ("report", "-p", "negative_acks:messages=0"),
            ["negative_acks.messages must be an integer in 1..1000000000, got 0"],
        ),
        (("report", "-p", "negative_acks:messages=-5"), ["negative_acks.messages", "got -5"]),
        (("report", "-p", "negative_acks:messages=1e18"), ["negative_acks.messages"]),
        (
            ("report", "-p", "negative_acks:messages=1000000000000000000"),
            ["negative_acks.messages must be an integer in 1..1000000000"],
        ),
        (
            ("report", "-p", "negative_acks:trim_bits=[99]"),
            ["negative_acks.trim_bits[0] must be an integer in 0..40, got 99"],
        ),
        (
            ("report", "-p", "delayed_delivery:rates_per_ms=[0.0]"),
            ["delayed_delivery.rates_per_ms[0] must be a number in 1e-09..1e+06, got 0.0"],
        ),
        (
            ("report", "-p", "massive_delayed:rate_per_s=0"),
            ["massive_delayed.rate_per_s must be a number"],
        ),
        (("report", "-p", "seed=-1"), ["seed must be an integer in 0..2^56 - 1, got -1"]),
        (("report", "-p", "x=" + "[" * 200 + "]" * 200), ["-p x=", "nested deeper than 32 levels"]),
        (
            ("report", "-p", "negative_acks:messages=1000000000"),
            ["report (", "estimated", "--allow-large"],
        ),
        (("notebooks", "--profile", ""), ["unknown profile ''"]),
        (("report", "--check", "/nonexistent/r"), ["folder /nonexistent/r does not exist"]),
        (("report", "--check", str(REPO / "docs")), ["--check: no *.html page in"]),
        (("report", "--check", "x", "--screenshots"), ["give one"]),
        (("report", "--screenshots", str(REPO / "docs")), ["needs --label before or"]),
        (("report", "--label", "after"), ["--label goes with --screenshots"]),
        (("report", "--screenshots", "--label", "now"), ["invalid choice: 'now'"]),
        (
            ("report", "--screenshots", str(REPO / "docs"), "--label", "after"),
            ["--screenshots: index.html, capacity_planner.html, design_lab.html", "not found in"],
        ),
        # a negative value after a space reaches the option's own check (argparse alone
        # said "expected one argument"), and names the range
        (("plan", "--rate", "-5k/s"), ["--rate: the rate must be > 0, got '-5k/s'"]),
        (
            ("simulate", "receiver-queue", "--rate", "-5k/s"),
            ["--rate: the rate must be > 0, got '-5k/s'"],
        ),
        (
            ("plan", "--rate", "20k/s", "--nacked", "-2%"),
            ["--nacked must be a share in 0..1 (0%..100%), got '-2%'"],
        ),
        (
            ("plan", "--rate", "20k/s", "--delay", "uniform:-1h:1h"),
            ["--delay: a duration must be >= 0, got '-1h'"],
        ),
        (
            ("simulate", "receiver-queue", "--rate", "1k/s", "--duration-s", "-1"),
            ["--duration-s must be a number > 0 and <= 86400, got -1.0"],
        ),
    ],
)
def test_bad_input_is_one_line(capsys, args, needles):
    line = one_line(capsys, *args)
    for needle in needles:
        assert needle in line, (needle, line)


def test_grid_bombs_and_deep_nesting_are_refused(capsys, tmp_path):
    line = one_line(capsys, "sweep", "--grid", _grid(tmp_path, BOMB), "--dry-run")
    assert "refused: more than 16 aliases" in line
    deep = "messages: " + "[" * 5000 + "]" * 5000 + "\n"
    line = one_line(capsys, "sweep", "--grid", _grid(tmp_path, deep), "--dry-run")
    assert "refused: nested deeper than 32 levels" in line
    line = one_line(capsys, "sweep", "--grid", str(tmp_path), "--dry-run")
    assert "is a folder" in line


def test_profile_bomb_is_refused(capsys, tmp_path):
    folder = tmp_path / "nb"
    folder.mkdir()
    (folder / "profiles.yaml").write_text("smoke:\n  notebooks: {}\n" + BOMB)
    line = one_line(capsys, "notebooks", "--notebooks", str(folder), "--profile", "smoke")
    assert "profiles.yaml" in line and "refused: more than 16 aliases" in line


def test_a_grid_beyond_the_machine_is_refused_before_spark(capsys, tmp_path):
    text = "messages: 1e11\nrate_per_ms: 8\ntrim_bits: 10\nreplicates: 1000\n"
    line = one_line(capsys, "sweep", "--grid", _grid(tmp_path, text), "--out", str(tmp_path / "o"))
    assert "sweep g (1,000 points, 100,000,000,000,000 messages): estimated" in line
    assert "--allow-large" in line
    assert not (tmp_path / "o").exists()


def test_a_mixture_past_the_int64_range_is_refused_before_spark(capsys, tmp_path):
    text = "messages: 1000\nrate_per_ms: 1\ntrim_bits: 10\ndelay: 'mix:0.5*fixed:1e18ms+0.5*fixed:1s'\n"
    line = one_line(capsys, "sweep", "--grid", _grid(tmp_path, text), "--out", str(tmp_path / "o"))
    assert "delay" in line and "longer than 1000 years" in line


def test_two_column_and_unreadable_delay_files(capsys, tmp_path):
    csv = tmp_path / "d.csv"
    csv.write_text("1,2\n3,4\n")
    line = one_line(capsys, *SIZE, "--delay", f"empirical:{csv}")
    assert "has 2 columns; give one column of delays (ms)" in line
    csv.write_bytes(b"\xff\xfe1\n")
    line = one_line(capsys, *SIZE, "--delay", f"empirical:{csv}")
    assert "is not a column of numbers" in line
    line = one_line(capsys, *SIZE, "--delay", f"empirical:{tmp_path}")
    assert "is a folder, not a file" in line


def test_notebooks_folder_that_is_a_file_or_holds_a_broken_notebook(capsys, tmp_path):
    afile = tmp_path / "notebooks.txt"
    afile.write_text("x")
    line = one_line(capsys, "notebooks", "--notebooks", str(afile))
    assert "is a file, not a folder" in line
    folder = tmp_path / "nb"
    folder.mkdir()
    (folder / "profiles.yaml").write_text((FIXTURE_NOTEBOOKS / "profiles.yaml").read_text())
    (folder / "broken.ipynb").write_text("{not json")
    line = one_line(capsys, "notebooks", "--notebooks", str(folder))
    assert "broken.ipynb is not a valid notebook" in line
    line = one_line(capsys, "report", "--notebooks", str(folder), "--out", str(tmp_path / "r"))
    assert "broken.ipynb is not a valid notebook" in line
    (folder / "broken.ipynb").write_text(json.dumps({"cells": [], "nbformat": 4}))
    line = one_line(capsys, "notebooks", "--notebooks", str(folder))
    assert "broken.ipynb is not a valid notebook" in line


def test_the_pair_map_bound_counts_entries_not_messages(capsys, tmp_path):
    """1e10 messages in batches of 100 are 1e8 entries: below Java's 177,167,408 keys."""
    text = (
        "messages: 1e10\nrate_per_ms: 8\ntrim_bits: 10\nbatch_size: 100\ndesigns: [nack-pair-map]\n"
    )
    assert (
        main(["sweep", "--grid", _grid(tmp_path, text), "--dry-run", "--out", str(tmp_path / "o")])
        == 0
    )
    assert "1 points, 10,000,000,000 messages" in capsys.readouterr().out
    text = text.replace("batch_size: 100", "batch_size: 10")
    line = one_line(capsys, "sweep", "--grid", _grid(tmp_path, text), "--dry-run")
    assert (
        "nack-pair-map holds at most 177,167,408 entries" in line
        and "1,000,000,000 entries" in line
    )


@pytest.mark.parametrize(
    "args",
    [
        ("plan", "--workload", "/dev/zero"),
        ("sweep", "--grid", "/dev/zero", "--dry-run"),
        (*SIZE, "--delay", "empirical:/dev/zero"),
    ],
)
def test_devices_are_refused_before_reading(capsys, args):
    """/dev/zero never ends: a user file must be a regular file, read up to its bound."""
    line = one_line(capsys, *args)
    assert "/dev/zero is not a regular file (a device, pipe or socket)" in line


def test_a_workload_file_over_the_bound_is_refused(capsys, tmp_path):
    big = tmp_path / "w.yaml"
    big.write_bytes(b"#" * ((1 << 20) + 1))
    line = one_line(capsys, "plan", "--workload", str(big))
    assert f"--workload: {big} is larger than 1024 KiB; refused" in line


def test_a_grid_of_too_many_points_is_refused_before_listing_them(capsys, tmp_path):
    axis = "[" + ", ".join(str(i) for i in range(1, 21)) + "]"
    text = (
        f"messages: 1000\nrate_per_ms: {axis}\ntick_ms: 1s\nbatch_size: {axis}\nreplicates: 1000\n"
    )
    line = one_line(capsys, "sweep", "--grid", _grid(tmp_path, text), "--dry-run")
    assert "expands to 400,000 points; a grid holds at most 100,000" in line


def test_a_recursive_alias_in_a_parameter_is_refused(capsys, tmp_path):
    line = one_line(capsys, "report", "--only", "pending_acks", "-p", "seed=&a [*a]")
    assert "alias *a inside its own anchor (a recursive value)" in line


def test_negative_values_are_attached_only_to_options_that_take_one():
    from trackerlab.commands.cli import attach_negative_values, build_parser

    parser = build_parser()
    assert attach_negative_values(parser, ["plan", "--rate", "-5k/s", "--nacked", "2%"]) == [
        "plan",
        "--rate=-5k/s",
        "--nacked",
        "2%",
    ]
    # a flag keeps its place; after "--" nothing is touched
    args = ["simulate", "receiver-queue", "--fixed", "--rate", "1k/s", "--", "--seed", "-1"]
    assert attach_negative_values(parser, args) == args
    assert attach_negative_values(parser, ["plan", "--rate"]) == ["plan", "--rate"]
