"""The fast tier leaves out what it says, and its guard stops a heavy program."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests import tiers
from tests.conftest import REPO


@pytest.mark.parametrize(
    ("path", "fixtures", "expected"),
    [
        ("tests/spark/test_sweep.py", (), {"spark"}),
        ("tests/broker/test_process.py", (), {"broker"}),
        ("tests/jvmcheck/sub/test_x.py", ("tmp_path",), {"jvm"}),
        ("tests/reporting/test_browser.py", (), {"browser"}),
        ("tests/planner/test_plan.py", ("probe", "spark"), {"jvm", "spark"}),
        ("tests/planner/test_plan.py", ("tmp_path",), set()),
        ("tests/sparkling/test_x.py", (), set()),  # a prefix of a folder name is not the folder
        ("tests/test_skip_rule.py::test_no_javac_skips", (), {"jvm"}),
        ("tests/commands/test_cli.py::test_bad_input_is_one_line_exit_2[args1-n1]", (), {"slow"}),
        ("tests/commands/test_cli.py::test_bad_input_is_one_line_exit_2x", (), set()),
    ],
)
def test_markers_come_from_folder_file_node_and_fixtures(path, fixtures, expected):
    assert tiers.tier_markers(path, fixtures) == expected


def test_every_named_test_exists():
    """A renamed or removed test leaves no stale line in the tables."""
    for node in [*tiers.NODES, *tiers.FILES]:
        path, _, name = node.partition("::")
        assert (REPO / path).is_file(), node
        assert not name or f"def {name}(" in (REPO / path).read_text(), node


def test_executable_reads_every_form_popen_takes():
    assert tiers.executable(["/usr/lib/jvm/java-17/bin/java", "-version"]) == "java"
    assert tiers.executable("spark-submit --version") == "spark-submit"
    assert tiers.executable((b"/usr/bin/chromium",)) == "chromium"
    assert tiers.executable([sys.executable, "-c", "1"]) != "java"


def test_the_guard_refuses_java_in_a_fast_process(tmp_path):
    """A child pytest, with this suite's ``pytest_configure`` and ``TRACKERLAB_FAST=1``, fails
    on a test that starts ``java`` and passes one that starts Python."""
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_configure\n")
    (tmp_path / "test_probe.py").write_text(
        "import subprocess, sys\n"
        "def test_heavy():\n    subprocess.run(['java', '-version'])\n"
        "def test_light():\n    subprocess.run([sys.executable, '-c', '1'], check=True)\n"
    )
    env = {**os.environ, tiers.FAST_ENV: "1", "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'lib'}"}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert "1 failed, 1 passed" in out.stdout, out.stdout + out.stderr
    assert "started 'java' in the fast tier" in out.stdout, out.stdout


def test_makefile_runs_the_fast_expression():
    text = (REPO / "Makefile").read_text()
    assert f'-m "{tiers.FAST_EXPRESSION}"' in text
