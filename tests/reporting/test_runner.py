"""The report pipeline end to end, on fixture notebooks (one ok, one failing, one slow)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import nbformat

from tests.conftest import FIXTURE_NOTEBOOKS, REPO
from trackerlab.reporting.runner import run_report


def _tree(folder):
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_ok_notebook_is_published_with_html_meta_and_index(tmp_path):
    out = tmp_path / "reports"
    result = run_report("smoke", ["ok"], out, FIXTURE_NOTEBOOKS, ["label=sum_of_squares"])
    assert result.published == ["ok"] and not result.failures
    assert {"ok.ipynb", "ok.html", "ok.json", "index.html"} <= set(os.listdir(out))
    meta = json.loads((out / "ok.json").read_text())
    assert meta["profile"] == "smoke"
    assert meta["parameters"] == {"n": 4, "label": "sum_of_squares"}
    # 0 + 1 + 4 + 9 with n = 4 from the profile: the value was really injected
    assert meta["headlines"] == [{"label": "sum_of_squares", "value": "14.0", "note": ""}]
    assert meta["versions"]["pyroaring"] == "1.2.0"
    assert len(meta["git_commit"]) >= 40 and meta["git_commit"] != "unknown"
    executed = nbformat.read(out / "ok.ipynb", as_version=4)
    assert any("injected-parameters" in c.metadata.get("tags", []) for c in executed.cells)
    assert executed.metadata.kernelspec.name == "python3"
    html = (out / "ok.html").read_text()
    assert "sum_of_squares" in html and "<html" in html
    index = (out / "index.html").read_text()
    assert 'href="ok.html"' in index and "14.0" in index and meta["git_commit"][:12] in index


def test_failing_notebook_keeps_previous_report(tmp_path):
    out = tmp_path / "reports"
    fixture = tmp_path / "notebooks"
    shutil.copytree(FIXTURE_NOTEBOOKS, fixture)
    # A first run publishes 'fails' with a divisor that works.
    run_report("smoke", ["fails"], out, fixture, ["divisor=2"])
    published = (out / "fails.html").read_bytes()

    result = run_report("smoke", ["fails", "ok"], out, fixture)
    assert [f.name for f in result.failures] == ["fails"]
    failure = result.failures[0]
    assert (
        failure.cell == "cell 4 (In [4]) `y = 1 / divisor`" and "ZeroDivisionError" in failure.error
    )
    assert (out / "fails.html").read_bytes() == published  # previous report untouched
    kept = nbformat.read(out / "_failed" / "fails.ipynb", as_version=4)
    assert any(
        o.get("ename") == "ZeroDivisionError" for c in kept.cells for o in c.get("outputs", [])
    )
    assert result.published == ["ok"]  # the other notebook still publishes
    assert "fails" in (out / "index.html").read_text()

    # Fixing the notebook clears its _failed copy.
    run_report("smoke", ["fails"], out, fixture, ["divisor=4"])
    assert not (out / "_failed" / "fails.ipynb").exists()


def test_cli_failure_exit_code_and_message(tmp_path, cli):
    out = tmp_path / "reports"
    res = cli(
        "report",
        "--profile",
        "smoke",
        "--notebooks",
        str(FIXTURE_NOTEBOOKS),
        "--only",
        "fails",
        "--out",
        str(out),
    )
    assert res.returncode == 1
    assert "notebook fails failed in cell 4" in res.stderr and "ZeroDivisionError" in res.stderr
    assert str(out / "_failed" / "fails.ipynb") in res.stderr
    assert "Traceback" not in res.stderr
    assert res.stdout.strip() == str(out / "index.html")


def test_ctrl_c_leaves_reports_exactly_as_they_were(tmp_path):
    out = tmp_path / "reports"
    out.mkdir()
    (out / "index.html").write_text("<p>published earlier</p>")
    (out / "slow.html").write_text("old slow report")
    before = _tree(out)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "trackerlab",
            "report",
            "--profile",
            "smoke",
            "--notebooks",
            str(FIXTURE_NOTEBOOKS),
            "--only",
            "slow",
            "--out",
            str(out),
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    # Wait until the notebook is executing, then press "Ctrl-C" (SIGINT to the group).
    deadline = time.monotonic() + 120
    staging = []
    while time.monotonic() < deadline and not staging:
        staging = [p for p in tmp_path.iterdir() if p.name.endswith(".staging")]
        time.sleep(0.2)
    assert staging, "the run never started staging"
    time.sleep(3)  # inside papermill's execution of the sleeping cell
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    # the kernel's own complaints (ZMQError tracebacks) go to its log, not the terminal
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines == ["[1/1] slow (profile smoke) ...", "trackerlab: interrupted"], stderr
    assert _tree(out) == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".staging")]


def test_dead_kernel_is_a_notebook_failure_not_a_crash(tmp_path):
    out = tmp_path / "reports"
    result = run_report("smoke", ["dies", "ok"], out, FIXTURE_NOTEBOOKS, log=lambda m: None)
    assert [f.name for f in result.failures] == ["dies"]
    assert result.failures[0].cell == "the kernel" and "DeadKernelError" in result.failures[0].error
    assert result.published == ["ok"]  # the next notebook still ran
    assert (out / "_failed" / "dies.json").exists()
