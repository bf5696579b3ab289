"""SIGKILL at several moments of a sweep and of a report, then resume and compare.

A sweep is killed (its whole process group: Python, driver JVM, Python workers) right
after taking its lock, then again in the middle of its second wave; then its driver JVM
alone dies in the third wave (one line, naming the log); the fourth run resumes and ends
with the rows of an uninterrupted run. The sweeps run on ``local[1]``, the reference on the
suite's embedded ``local[2]``: the results must not depend on either. A report is killed
while a notebook runs: the published folder stays byte-identical, and the next run removes
the staging copy the killed one left and publishes what an uninterrupted run publishes.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_NOTEBOOKS, REPO, file_tree, run_cli, run_cli_until
from tests.faults.conftest import SMALL_GRID as GRID
from tests.spark.cluster import children
from tests.spark.results import assert_same_results
from trackerlab.reporting.publish import OWNED_LIST
from trackerlab.reporting.runner import run_report
from trackerlab.spark.grid import load_grid
from trackerlab.spark.store import POINTS, SweepStore, read_sweep
from trackerlab.spark.sweep_engine import run_sweep


def _kill_group(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGKILL)


def _kill_driver_jvm(proc: subprocess.Popen) -> None:
    for pid in children(proc.pid):
        if b"org.apache.spark.deploy.SparkSubmit" in Path(f"/proc/{pid}/cmdline").read_bytes():
            os.kill(pid, signal.SIGKILL)


@pytest.mark.spark
@pytest.mark.slow
def test_sweep_killed_three_times_resumes_to_the_uninterrupted_result(spark, tmp_path):
    grid_file = tmp_path / "g.yaml"
    grid_file.write_text(GRID)
    reference = tmp_path / "reference"
    run_sweep(load_grid(grid_file), reference, spark=spark, log=lambda m: None)
    out = tmp_path / "killed"
    args = ["sweep", "--grid", str(grid_file), "--out", str(out), "--master", "local[1]"]

    res = run_cli_until(args, r"0 done already, 3 to compute", _kill_group)
    assert res.returncode == -signal.SIGKILL
    store = SweepStore(out)
    store.lock()  # the kernel released the dead run's flock
    store.unlock()

    res = run_cli_until(args, r"^wave 2/\d+: \[", _kill_group)
    assert res.returncode == -signal.SIGKILL
    assert read_sweep(out).point_id.nunique() == 1

    res = run_cli_until(args, r"^wave 2/2: \[", _kill_driver_jvm)
    last = res.stderr.strip().splitlines()[-1]
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert last.startswith("trackerlab: Spark failed in wave 2/2 (the Spark driver JVM exited")
    assert "re-run to resume" in last and re.search(r"details in \S+\.log$", last)

    res = run_cli(*args)
    assert res.returncode == 0, res.stderr
    assert "2 done already, 1 to compute" in res.stderr
    assert not [p for p in (out / POINTS).iterdir() if p.name.startswith(".")]
    assert_same_results(read_sweep(out), read_sweep(reference))


@pytest.mark.slow
def test_report_killed_mid_notebook_keeps_reports_and_the_next_run_cleans_up(tmp_path):
    out = tmp_path / "reports"
    run_report("smoke", ["ok"], out, FIXTURE_NOTEBOOKS, log=lambda m: None)
    (out / "notes.txt").write_text("mine")
    before = file_tree(out)
    args = [
        "report",
        "--profile",
        "smoke",
        "--notebooks",
        str(FIXTURE_NOTEBOOKS),
        "--only",
        "ok",
        "slow",
        "--out",
        str(out),
    ]
    res = run_cli_until(args, r"\[2/2\] slow", _kill_group)
    assert res.returncode == -signal.SIGKILL
    time.sleep(1)
    assert file_tree(out) == before  # byte-identical after the kill
    leftovers = [p for p in tmp_path.iterdir() if p.name.endswith(".staging")]
    assert leftovers  # what a killed run leaves: the next one removes it

    logs: list[str] = []
    result = run_report("smoke", ["ok"], out, FIXTURE_NOTEBOOKS, log=logs.append)
    assert result.published == ["ok"]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".staging")]
    assert any("removed 1 leftover" in line for line in logs)
    assert any("kept 1 files trackerlab did not write (notes.txt)" in line for line in logs)
    clean = tmp_path / "clean"
    run_report("smoke", ["ok"], clean, FIXTURE_NOTEBOOKS, log=lambda m: None)
    assert set(file_tree(out)) == set(file_tree(clean)) | {"notes.txt"}
    assert (out / "notes.txt").read_text() == "mine"
    for folder in (out, clean):
        meta = json.loads((folder / "ok.json").read_text())
        assert meta["headlines"][0]["value"] == "14.0"
    assert "notes.txt" not in json.loads((out / OWNED_LIST).read_text())["files"]


@pytest.mark.slow
def test_ctrl_c_while_the_jvm_check_probe_starts_leaves_no_jvm():
    """Before the fix, Ctrl-C inside pyspark's launch_gateway left the probe JVM running
    (it ignores SIGINT) with init as its parent. Now the start finishes, the JVM is stopped,
    and the run ends with one line and exit code 130."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "trackerlab", "jvm-check", "--only", "roaring-1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    jvms: list[int] = []
    deadline = time.monotonic() + 120
    while not jvms and proc.poll() is None and time.monotonic() < deadline:
        jvms = [
            pid
            for pid in children(proc.pid)
            if b"SparkSubmit" in Path(f"/proc/{pid}/cmdline").read_bytes()
        ]
        time.sleep(0.02)
    assert jvms, "the probe JVM never started"
    os.kill(proc.pid, signal.SIGINT)  # while the gateway starts
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["trackerlab: interrupted"]
    time.sleep(2)
    assert [pid for pid in jvms if Path(f"/proc/{pid}").exists()] == []
