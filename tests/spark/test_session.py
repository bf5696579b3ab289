"""Session builder errors: one line, before anything is written (no JVM needed)."""

from __future__ import annotations

import socket
import time

import pytest

from tests.conftest import assert_one_line_error
from trackerlab.errors import UsageError
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
    monkeypatch.setattr("trackerlab.javacheck.java_executable", lambda: None)
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


class _FakeContext:
    master = "spark://10.0.0.1:7077"

    def __init__(self, executors: int) -> None:
        self.executors = executors

        class Status:
            def size(inner) -> int:
                return self.executors

        class Sc:
            def getExecutorMemoryStatus(inner):
                return Status()

        class Jsc:
            def sc(inner):
                return Sc()

        self._jsc = Jsc()


class _FakeSession:
    def __init__(self, executors: int) -> None:
        self.sparkContext = _FakeContext(executors)
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True


def test_cluster_without_executors_is_a_bounded_usage_error():
    fake = _FakeSession(executors=1)  # the driver only
    with pytest.raises(UsageError, match=r"no executor registered.*within 0 s"):
        session.wait_for_executors(fake, timeout_s=0.2)
    assert fake.stopped
    session.wait_for_executors(_FakeSession(executors=3), timeout_s=0.2)


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
