import os
import subprocess
import sys

import pytest

from tests.conftest import REPO
from trackerlab.core import java_runtime


@pytest.mark.parametrize(
    ("text", "major"),
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('openjdk version "21" 2023-09-19', 21),
        ('java version "1.8.0_392"', 8),
        ('openjdk version "11.0.2" 2019-01-15', 11),
        ("garbage", None),
    ],
)
def test_parse_java_major(text, major):
    assert java_runtime.parse_java_major(text) == major


def _run_check(tmp_path, java_script: str | None):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    if java_script is not None:
        java = bindir / "java"
        java.write_text(java_script)
        java.chmod(0o755)
    env = {"PATH": str(bindir), "HOME": str(tmp_path)}
    return subprocess.run(
        [sys.executable, str(REPO / "lib/trackerlab/core/java_runtime.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_missing_java_is_one_line_with_install_hint(tmp_path):
    res = _run_check(tmp_path, None)
    assert res.returncode == 1
    assert res.stderr.count("\n") == 1
    assert "java not found" in res.stderr and "openjdk-17" in res.stderr


def test_old_java_is_refused(tmp_path):
    res = _run_check(tmp_path, "#!/bin/sh\necho 'openjdk version \"11.0.2\" 2019-01-15' >&2\n")
    assert res.returncode == 1 and "is Java 11" in res.stderr and res.stderr.count("\n") == 1


def test_java_17_passes(tmp_path):
    res = _run_check(tmp_path, "#!/bin/sh\necho 'openjdk version \"17.0.15\" 2025-04-15' >&2\n")
    assert res.returncode == 0 and res.stderr == ""


def test_this_machine_has_java_17_or_newer():
    assert java_runtime.require_java() >= 17, os.environ.get("JAVA_HOME")
