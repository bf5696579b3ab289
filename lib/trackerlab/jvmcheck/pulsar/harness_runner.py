"""Run the real-Pulsar harness (``maven/src/main/java/trackerlab/pulsar``) in a JVM of its own.

The JVM gets one release's class path (:func:`~trackerlab.jvmcheck.pulsar.maven.build`) and
these options:

- ``-Djdk.attach.allowAttachSelf=true``: JOL attaches its Instrumentation agent to its own JVM
  (the harness refuses to measure without it: JOL would fall back to its layout model);
  ``-XX:+EnableDynamicAgentLoading`` on JDK 21+ keeps that quiet;
- ``-Dio.netty.leakDetection.level=disabled``: as a broker runs (``conf/pulsar_env.sh``); with
  Netty's default sampling one ByteBuf in 128 would get a leak-tracking wrapper object;
- ``--add-opens=java.base/java.util=ALL-UNNAMED``: the harness finds a queue's ByteBufs
  inside its ``ArrayList``.

Each case's rows go to a file of big-endian longs; the JVM prints one tab-separated line per
case. The JVM is stopped by PID on Ctrl-C or a timeout; its stderr goes to a log file.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from trackerlab.core.interrupts import die_with_parent
from trackerlab.core.java_runtime import java_executable, java_major, require_java
from trackerlab.core.paths import cache_dir
from trackerlab.jvmcheck.pulsar.maven import ClassPath

MAIN_CLASS = "trackerlab.pulsar.RealCheck"
#: Seconds one harness JVM may run before it is stopped.
RUN_TIMEOUT_S = 3600
KINDS = (
    "triple-queue",
    "pair-map",
    "consumer-pending-acks",
    "pending-acks-map",
    "delayed-tracker",
    "nack-tracker",
    "roaring64",
    "bucket-tracker",
)


class HarnessFailed(RuntimeError):
    """The harness JVM died or could not measure (no Instrumentation): one line, with its log."""


@dataclass(frozen=True)
class HarnessCase:
    """One structure to build: its kind (:data:`KINDS`), rows in insertion order and params."""

    name: str
    kind: str
    rows: np.ndarray
    params: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Measured:
    """What the JVM measured for one case (None: not applicable to that structure)."""

    name: str
    heap_bytes: int | None = None
    buffer_memory_usage_bytes: int | None = None
    direct_pool_delta_bytes: int | None = None
    direct_capacity_bytes: int | None = None
    direct_reserved_bytes: int | None = None
    added: int = 0
    tries: int = 1
    heap_after_metric_bytes: int | None = None
    root: str = ""
    classes: str = ""
    error: str | None = None


@dataclass(frozen=True)
class JvmRun:
    java_version: str
    jol_details: str
    measured: tuple[Measured, ...]
    lines: tuple[str, ...]  # every other output line (facts, forms)
    seconds: float


def jvm_options() -> list[str]:
    options = [
        "-Djdk.attach.allowAttachSelf=true",
        "-Dio.netty.leakDetection.level=disabled",
        "--add-opens=java.base/java.util=ALL-UNNAMED",
    ]
    major = java_major()[1]
    if major is not None and major >= 21:
        options.append("-XX:+EnableDynamicAgentLoading")
    return options


def run(classpath: ClassPath, cases: Sequence[HarnessCase]) -> JvmRun:
    """Build and measure ``cases`` in one JVM on ``classpath``. O(rows)."""
    for case in cases:
        if case.kind not in KINDS:
            raise ValueError(f"unknown harness kind {case.kind!r}")
    with tempfile.TemporaryDirectory(prefix="trackerlab-pulsar-") as tmp:
        lines = []
        for i, case in enumerate(cases):
            rows = np.ascontiguousarray(case.rows, dtype=np.int64)
            if rows.ndim != 2:
                raise ValueError(f"{case.name}: rows must be 2-D")
            path = Path(tmp) / f"rows-{i}.bin"
            with open(path, "wb") as f:
                f.write(np.array([rows.shape[1]], dtype=">i8").tobytes())
                f.write(rows.astype(">i8").tobytes())
            params = ",".join(f"{k}={_param(v)}" for k, v in case.params.items())
            lines.append(f"{case.name}\t{case.kind}\t{params}\t{path}")
        spec = Path(tmp) / "cases.txt"
        spec.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return _run_jvm(classpath, ["cases", str(spec)], allow_case_errors=True)


def facts(classpath: ClassPath) -> JvmRun:
    """The release's configuration defaults and tracker fields (``fact``/``form`` lines)."""
    return _run_jvm(classpath, ["facts"], allow_case_errors=False)


def _param(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def run_java(cmd: Sequence[str], log: Path, timeout_s: float) -> tuple[bytes, int]:
    """Run a JVM command to its end: stdout captured, stderr written to ``log``, the JVM dying
    with this process. On a timeout or Ctrl-C the JVM is stopped by its PID and the exception
    propagates. Its stdout and exit code."""
    with open(log, "wb") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, preexec_fn=die_with_parent)
        try:
            out, _ = proc.communicate(timeout=timeout_s)
        except BaseException:  # timeout or Ctrl-C: the JVM is stopped by its PID
            proc.kill()
            proc.wait()
            raise
    return out, proc.returncode


def _run_jvm(classpath: ClassPath, args: list[str], allow_case_errors: bool) -> JvmRun:
    require_java()
    java = java_executable() or "java"
    logs = cache_dir() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / f"pulsar-{classpath.version}-{os.getpid()}.log"
    cmd = [java, *jvm_options(), "-cp", os.pathsep.join(classpath.entries()), MAIN_CLASS, *args]
    t0 = time.perf_counter()
    out, returncode = run_java(cmd, log, RUN_TIMEOUT_S)
    seconds = time.perf_counter() - t0
    text = out.decode("utf-8", errors="replace").splitlines()
    if not text or not text[0].startswith("jvm\t"):
        raise HarnessFailed(
            f"the Pulsar {classpath.version} harness JVM failed: {_first_error(log)} (log: {log})"
        )
    if returncode not in ((0, 1) if allow_case_errors else (0,)):
        raise HarnessFailed(
            f"the Pulsar {classpath.version} harness JVM exited with {returncode} (log: {log})"
        )
    head = text[0].split("\t")
    measured = tuple(_measured(line) for line in text[1:] if line.startswith("case\t"))
    other = tuple(line for line in text[1:] if not line.startswith("case\t"))
    return JvmRun(head[1], head[2] if len(head) > 2 else "", measured, other, seconds)


def _first_error(log: Path) -> str:
    """The exception line of a JVM's stderr, else its last line."""
    found = log.read_text(errors="replace").strip().splitlines()
    for line in found:
        if "Exception" in line or line.startswith("Error"):
            return line.strip()
    return found[-1].strip() if found else "no output"


def _measured(line: str) -> Measured:
    f = line.split("\t")
    if f[2] == "error":
        return Measured(f[1], error=f[3] if len(f) > 3 else "unknown error")

    def num(text: str) -> int | None:
        value = int(text)
        return None if value < 0 else value

    return Measured(
        name=f[1],
        heap_bytes=num(f[3]),
        buffer_memory_usage_bytes=num(f[4]),
        direct_pool_delta_bytes=num(f[5]),
        direct_capacity_bytes=num(f[6]),
        direct_reserved_bytes=num(f[7]),
        added=int(f[8]),
        tries=int(f[9]),
        heap_after_metric_bytes=num(f[10]),
        root=f[11],
        classes=f[12] if len(f) > 12 else "",
    )
