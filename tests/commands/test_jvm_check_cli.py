"""``trackerlab jvm-check`` paths that need no JVM: listing, bad input, Java missing."""

from __future__ import annotations

import os

import pytest

from tests.conftest import assert_one_line_error
from trackerlab.jvmcheck.probe_cases import CASES
from trackerlab.models.proposals.jvm_cases import CASES as PROPOSAL_CASES


def test_list_prints_every_case(cli):
    result = cli("jvm-check", "--list")
    assert result.returncode == 0, result.stderr
    names = [line.split()[0] for line in result.stdout.splitlines()]
    assert names == [c.name for c in CASES + PROPOSAL_CASES]  # the layout's, then the lab's


def test_list_with_glob(cli):
    result = cli("jvm-check", "--list", "--only", "navmap-*,roaring-1")
    names = [line.split()[0] for line in result.stdout.splitlines()]
    expected = [c.name for c in CASES if c.name.startswith("navmap-") or c.name == "roaring-1"]
    assert names == expected  # in display order


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--only", "nosuch"], ["jvm-check: --only", "'nosuch'", "roaring64-*", "--list"]),
        (["--exact", "--estimator"], ["jvm-check", "not allowed with argument"]),
        (["--only"], ["jvm-check", "--only", "expected at least one argument"]),
        (["--fast"], ["unrecognized arguments: --fast"]),
    ],
)
def test_bad_input_is_one_line_exit_2(cli, args, needles):
    assert_one_line_error(cli("jvm-check", *args), *needles)


def test_without_java_is_one_line_exit_1(cli, tmp_path):
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path)}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    result = cli("jvm-check", "--only", "roaring64-1", env=env)
    assert_one_line_error(result, "jvm-check", "java not found", code=1)
