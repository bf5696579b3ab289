"""Session builder errors: one line, before anything is written (no JVM needed).

Executor waiting and package shipping run against a real standalone cluster in
``test_cluster.py``."""

from __future__ import annotations

import contextlib
import socket
import time

import pytest

from tests.conftest import assert_one_line_error
from trackerlab.core.errors import UsageError
from trackerlab.spark import session


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_master_is_a_bounded_usage_error():
    port = _closed_port()
    t0 = time.perf_counter()
    with pytest.raises(UsageError, match=f"cannot reach Spark master spark://127.0.0.1:{port}"):
        session.check_master(f"spark://127.0.0.1:{port}")
    assert time.perf_counter() - t0 < session.CONNECT_TIMEOUT_S + 1


@pytest.mark.parametrize("master", ["mesos://x:5050", "spark://nohost", "lokal[2]"])
def test_malformed_masters(master):
    with pytest.raises(UsageError, match="--master"):
        session.check_master(master)


@pytest.mark.parametrize("master", ["local", "local[2]", "local[*]", "local[2,3]", "yarn"])
def test_local_masters_pass(master):
    assert session.check_master(master) == master


def test_missing_java_is_one_line(monkeypatch):
    monkeypatch.setattr("trackerlab.core.java_runtime.java_executable", lambda: None)
    with pytest.raises(UsageError, match="java not found"):
        session.get_session()


def test_cli_unreachable_master_writes_nothing(cli, tmp_path):
    out = tmp_path / "sweep"
    out.mkdir()
    (out / "keep.txt").write_text("earlier result")
    port = _closed_port()
    result = cli(
        "sweep", "--profile", "smoke", "--out", str(out), "--master", f"spark://127.0.0.1:{port}"
    )
    assert_one_line_error(result, "cannot reach Spark master", "nothing was written")
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_java_reason_is_the_java_exception_first_line():
    class _Java:
        def toString(self):  # py4j calls the Java method by its name
            return "java.lang.IllegalStateException: stopped SparkContext\n\tat x.y(Z.java:1)"

    class _Py4JError(Exception):
        java_exception = _Java()

    wrapped = _Py4JError("An error occurred while calling None.SparkSession.\n: ...")
    assert session._java_reason(wrapped) == "java.lang.IllegalStateException: stopped SparkContext"
    assert session._java_reason(RuntimeError("first\nsecond")) == "first"
    assert session._java_reason(RuntimeError()) == "RuntimeError"


def test_ctrl_c_while_spark_starts_is_one_line_and_leaves_no_jvm(tmp_path):
    """Before issue 16: a Java stack (NoSuchFileException of the gateway's connection file)
    on the terminal, and an orphan JVM that lived on."""
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from tests.conftest import REPO
    from tests.spark.cluster import children

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "trackerlab",
            "sweep",
            "--profile",
            "smoke",
            "--out",
            str(tmp_path / "s"),
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    jvm = None
    deadline = time.monotonic() + 120
    while jvm is None and time.monotonic() < deadline and proc.poll() is None:
        for pid in children(proc.pid):
            with contextlib.suppress(OSError):
                if (
                    b"org.apache.spark.deploy.SparkSubmit"
                    in Path(f"/proc/{pid}/cmdline").read_bytes()
                ):
                    jvm = pid  # the driver JVM (not the `java -version` of the Java check)
        time.sleep(0.05)
    assert jvm is not None, "the JVM never started"
    time.sleep(0.5)  # inside the launch
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert [line for line in stderr.splitlines() if line.strip()] == ["trackerlab: interrupted"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and Path(f"/proc/{jvm}").exists():
        time.sleep(0.2)
    state = (
        Path(f"/proc/{jvm}/stat").read_text().split()[2]
        if Path(f"/proc/{jvm}").exists()
        else "gone"
    )
    assert state in ("gone", "Z"), f"the JVM {jvm} lives on ({state})"
    assert not (tmp_path / "s").exists()
