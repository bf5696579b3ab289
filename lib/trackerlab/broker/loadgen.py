"""The workload client: ``trackerlab.pulsar.DelayedLoad`` (``host/``) in a JVM of its own,
with the release's ``pulsar-client-original``, stopped by PID.

It subscribes Shared consumers, prints ``ready``, produces at a rate with ``deliverAfter``,
prints ``progress`` lines and ``produced``, and keeps consuming (acknowledging each message as
it comes due) until its standard input closes. :class:`DelayedLoad` reads its lines on a
thread; :meth:`DelayedLoad.close` closes stdin, then SIGKILLs after a timeout.
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from trackerlab.broker.host import LOAD_CLASS, PENDING_LOAD_CLASS, HostBuild, load_class_path
from trackerlab.core.interrupts import die_with_parent
from trackerlab.core.java_runtime import java_executable
from trackerlab.core.log4j import console_log4j2

__all__ = ["DelayedLoad", "LoadFailed", "LoadSpec", "PendingSpec", "Progress", "running_load"]

#: The client JVM's log4j2 (warnings and errors only, to stderr: the run's load.log).
_LOG4J2 = console_log4j2("the workload client: warnings and errors to stderr", "warn", "SYSTEM_ERR")


class LoadFailed(RuntimeError):
    """The client died or did not get ready: one line naming its log."""


@dataclass(frozen=True)
class LoadSpec:
    """What DelayedLoad produces: Java's own units (messages/s, ms)."""

    topic: str
    subscriptions: tuple[str, ...]
    rate_per_s: float
    seconds: float
    delay: str  # fixed:MS or uniform:LO_MS:HI_MS
    consumers: int = 1
    seed: int = 1
    payload_bytes: int = 64

    def args(self, service_url: str) -> list[str]:
        return [
            f"service={service_url}", f"topic={self.topic}",
            f"subscriptions={','.join(self.subscriptions)}", f"consumers={self.consumers}",
            f"rate={self.rate_per_s:g}", f"seconds={self.seconds:g}", f"delay={self.delay}",
            f"seed={self.seed}", f"size={self.payload_bytes}",
        ]  # fmt: skip


@dataclass(frozen=True)
class PendingSpec:
    """What PendingLoad produces and how its consumers acknowledge (``PendingLoad.java``):
    one Shared consumer per subscription, ``modes`` one per subscription (``ack:HOLD_MS``,
    ``never``, ``nack:SHARE:HOLD_MS``)."""

    topic: str
    subscriptions: tuple[str, ...]
    modes: tuple[str, ...]
    rate_per_s: float
    seconds: float
    nack_delay_ms: int = 60_000
    ack_group_ms: int = 100
    payload_bytes: int = 64
    main_class: str = PENDING_LOAD_CLASS

    def args(self, service_url: str) -> list[str]:
        return [
            f"service={service_url}", f"topic={self.topic}",
            f"subscriptions={','.join(self.subscriptions)}", f"modes={','.join(self.modes)}",
            f"rate={self.rate_per_s:g}", f"seconds={self.seconds:g}",
            f"nackdelay={self.nack_delay_ms}", f"groupms={self.ack_group_ms}",
            f"size={self.payload_bytes}",
        ]  # fmt: skip


@dataclass(frozen=True)
class Progress:
    """The client's counts at ``seconds`` since its first send."""

    seconds: float
    sent: int
    received: int
    acked: int


class DelayedLoad:
    """A running DelayedLoad JVM."""

    def __init__(self, proc: subprocess.Popen, log: Path) -> None:
        self.proc = proc
        self.log = log
        self.ready = threading.Event()
        self.produced = threading.Event()
        self.sent_total: int | None = None
        self.progress: Progress | None = None
        self.started_at: float | None = None  # monotonic, at "ready"
        #: "disconnected" / "reconnected": set when DelayedLoad confirms the command
        self.confirmed = {"disconnected": threading.Event(), "reconnected": threading.Event()}
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            f = raw.decode("utf-8", "replace").rstrip("\n").split("\t")
            if f[0] == "ready":
                self.started_at = time.monotonic()
                self.ready.set()
            elif f[0] == "progress" and len(f) == 5:
                self.progress = Progress(float(f[1]), int(f[2]), int(f[3]), int(f[4]))
            elif f[0] in self.confirmed:
                self.confirmed[f[0]].set()
            elif f[0] == "produced":
                self.sent_total = int(f[1])
                self.produced.set()

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not self.ready.wait(0.2):
            if self.proc.poll() is not None:
                raise LoadFailed(
                    f"the workload client exited with {self.proc.returncode}; log: {self.log}"
                )
            if time.monotonic() > deadline:
                raise LoadFailed(
                    f"the workload client was not ready in {timeout_s:.0f} s; log: {self.log}"
                )

    def command(self, word: str, timeout_s: float = 30.0) -> None:
        """Send ``disconnect`` or ``reconnect`` (DelayedLoad closes or subscribes its consumers
        again, after its last send) and wait for its confirmation. LoadFailed on a timeout."""
        done = self.confirmed[f"{word}ed"]
        done.clear()
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{word}\n".encode())
        self.proc.stdin.flush()
        if not done.wait(timeout_s):
            raise LoadFailed(
                f"the workload client did not {word} in {timeout_s:.0f} s; log: {self.log}"
            )

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self, timeout_s: float = 20.0) -> int:
        """Close stdin (the client closes its consumers and exits), SIGKILL after
        ``timeout_s``. Returns the exit code."""
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def start_client(
    built: HostBuild, run_dir: Path, name: str, main_class: str, args: list[str],
    jvm_options: Sequence[str] = (),
) -> tuple[subprocess.Popen, Path]:  # fmt: skip
    """Start a workload client JVM of the host build (killed if this process dies), its
    standard error and its log4j2 messages to ``run_dir/<name>.log``. O(1)."""
    java = java_executable() or "java"
    log4j = run_dir / f"{name}-log4j2.properties"
    log4j.write_text(_LOG4J2)
    log = run_dir / f"{name}.log"
    cmd = [
        java, "-Xmx256m", "-XX:+UseSerialGC", "-Djava.net.preferIPv4Stack=true", *jvm_options,
        f"-Dlog4j2.configurationFile={log4j}", "-cp", load_class_path(built), main_class, *args,
    ]  # fmt: skip
    with open(log, "ab") as err:
        proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, cwd=run_dir,
            preexec_fn=die_with_parent,
        )  # fmt: skip
    return proc, log


@contextlib.contextmanager
def running_load(
    built: HostBuild, service_url: str, spec: LoadSpec | PendingSpec, run_dir: Path
) -> Iterator[DelayedLoad]:
    """Start the client JVM (``DelayedLoad``, or ``PendingLoad`` for a :class:`PendingSpec`;
    killed if this process dies), yield it once ``ready``, and stop it by PID when the block
    ends."""
    main_class = getattr(spec, "main_class", LOAD_CLASS)
    proc, log = start_client(built, run_dir, "load", main_class, spec.args(service_url))
    load = DelayedLoad(proc, log)
    try:
        load.wait_ready()
        yield load
    finally:
        load.close()
