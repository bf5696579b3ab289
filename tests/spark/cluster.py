"""A real Spark standalone cluster on 127.0.0.1 for the tests: one master, one worker.

Started from pyspark's own ``bin/spark-class`` (no separate Spark install), every process
bound to 127.0.0.1 (``SPARK_LOCAL_IP`` and ``--host``) on free ports, the master's REST
server off, and stopped by PID (a worker's executors too: they are its children).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

START_TIMEOUT_S = 180.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def children(pid: int) -> list[int]:
    """PIDs whose parent is ``pid`` (from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            out.append(int(entry))
    return out


def _wait_port(port: int, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"Spark process exited early; see {log}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"Spark process did not listen on {port}; see {log}")


def _wait_log(log: Path, text: str, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if text in log.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            raise RuntimeError(f"Spark process exited early; see {log}")
        time.sleep(0.5)
    raise RuntimeError(f"no {text!r} in {log}")


@dataclass
class Cluster:
    folder: Path
    env: dict[str, str]
    port: int = 0
    master: subprocess.Popen | None = None
    worker: subprocess.Popen | None = None
    executors: set[int] = field(default_factory=set)
    workers_started: int = 0

    @property
    def url(self) -> str:
        return f"spark://127.0.0.1:{self.port}"

    def _launch(self, name: str, *args: str) -> tuple[subprocess.Popen, Path]:
        log = self.folder / f"{name}.log"
        with open(log, "ab") as out:
            proc = subprocess.Popen(
                [str(spark_home() / "bin" / "spark-class"), *args],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # the suite's Ctrl-C does not reach it
            )
        return proc, log

    def start_master(self) -> None:
        self.port = free_port()
        self.master, log = self._launch(
            "master",
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--webui-port",
            str(free_port()),
        )
        _wait_port(self.port, self.master, log)

    def start_worker(self) -> None:
        self.workers_started += 1
        name = f"worker{self.workers_started}"
        self.worker, log = self._launch(
            name,
            "org.apache.spark.deploy.worker.Worker",
            "--host",
            "127.0.0.1",
            "--port",
            str(free_port()),
            "--webui-port",
            str(free_port()),
            "--cores",
            "2",
            "--memory",
            "2g",
            "--work-dir",
            str(self.folder / name),
            self.url,
        )
        _wait_log(log, "Successfully registered with master", self.worker)

    def kill_worker(self) -> None:
        """SIGKILL the worker and its executors, as if its machine went away."""
        if self.worker is None:
            return
        doomed = [self.worker.pid, *children(self.worker.pid)]
        for pid in doomed:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.worker.wait(timeout=30)
        self.worker = None

    def note_executors(self) -> None:
        """Remember the worker's executor PIDs, so stop() can end them by PID."""
        if self.worker is not None:
            self.executors.update(children(self.worker.pid))

    def stop(self) -> None:
        self.note_executors()
        procs = [p for p in (self.worker, self.master) if p is not None]
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=30)
        for pid in self.executors:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def cluster_env(folder: Path) -> dict[str, str]:
    return {
        **os.environ,
        "SPARK_HOME": str(spark_home()),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_NO_DAEMONIZE": "1",
        "SPARK_LOG_DIR": str(folder / "logs"),
        "SPARK_WORKER_DIR": str(folder / "work"),
        "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",
        "PYSPARK_PYTHON": sys.executable,
    }
