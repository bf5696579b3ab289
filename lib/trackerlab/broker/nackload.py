"""The nack workload client: ``trackerlab.pulsar.NackLoad`` (``host/``) in a JVM of its own,
with the release's ``pulsar-client-original`` and JOL's Instrumentation, stopped by PID.

It subscribes one Shared consumer (``negativeAckRedeliveryDelay`` set), prints ``ready``,
produces at a rate (a share with ``deliverAfter``), nacks the messages the producer marked
(first delivery only) and acknowledges the rest, and answers ``measure`` on its standard
input with JOL's deep size of its own ``NegativeAcksTracker``'s fields
(:class:`NackSample`). :meth:`NackLoad.close` closes stdin, then SIGKILLs after a timeout.
"""

from __future__ import annotations

import contextlib
import queue
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from trackerlab.broker.host import HostBuild
from trackerlab.broker.loadgen import DelayedLoad, LoadFailed, Progress, start_client
from trackerlab.jvmcheck.pulsar import harness_runner

__all__ = ["NACK_CLASS", "NackLoad", "NackLoadSpec", "NackSample", "running_nack_load"]

#: ``host/src/main/java/trackerlab/pulsar/NackLoad.java``.
NACK_CLASS = "trackerlab.pulsar.NackLoad"
#: Seconds to wait for one ``measure`` answer (a walk of a few thousand objects takes ms).
MEASURE_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class NackLoadSpec:
    """What NackLoad produces and nacks: Java's own units (messages/s, ms, shares 0-1)."""

    topic: str
    subscription: str
    rate_per_s: float
    seconds: float
    nacked: float
    nack_delay_ms: int
    delayed: float = 0.0
    delay: str = "fixed:0"  # fixed:MS or uniform:LO_MS:HI_MS
    seed: int = 1
    payload_bytes: int = 64

    def args(self, service_url: str) -> list[str]:
        return [
            f"service={service_url}", f"topic={self.topic}", f"subscription={self.subscription}",
            f"rate={self.rate_per_s:g}", f"seconds={self.seconds:g}", f"nacked={self.nacked!r}",
            f"nackDelayMs={self.nack_delay_ms}", f"delayed={self.delayed!r}",
            f"delayMs={self.delay}", f"seed={self.seed}", f"size={self.payload_bytes}",
        ]  # fmt: skip


@dataclass(frozen=True)
class NackSample:
    """``NackLoad measure``: the consumer's ``NegativeAcksTracker``, measured with JOL."""

    nacked_messages_bytes: int  # GraphLayout(nackedMessages).totalSize(); 0 before the first nack
    nacked_ids_bytes: int  # GraphLayout(nackedMessageIds).totalSize(); -1: no such field
    tracked: int  # getNackedMessagesCount()
    buckets: int  # nackedMessages.size() (time buckets on 4.0.2+)
    walk_ms: int
    classes: str  # JOL's class histogram per field, most bytes first

    @property
    def deep_bytes(self) -> int:
        """Both fields: what the tracker holds for nacked message ids."""
        return self.nacked_messages_bytes + max(self.nacked_ids_bytes, 0)


class NackLoad(DelayedLoad):
    """A running NackLoad JVM: DelayedLoad's life cycle, plus ``measure`` answers."""

    def __init__(self, proc: subprocess.Popen, log: Path) -> None:
        self.answers: queue.Queue[list[str]] = queue.Queue()
        self.nacked = 0
        self.lag_ms = 0  # the consumer's longest receipt lag in the last second
        self.jol = ""
        super().__init__(proc, log)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            f = raw.decode("utf-8", "replace").rstrip("\n").split("\t")
            if f[0] == "ready":
                self.jol = f[1] if len(f) > 1 else ""
                self.started_at = time.monotonic()
                self.ready.set()
            elif f[0] == "progress" and len(f) == 7:
                self.progress = Progress(float(f[1]), int(f[2]), int(f[3]), int(f[4]))
                self.nacked = int(f[5])
                self.lag_ms = int(f[6])
            elif f[0] == "produced":
                self.sent_total = int(f[1])
                self.produced.set()
            elif f[0] in ("measure", "error"):
                self.answers.put(f)

    def measure(self, timeout_s: float = MEASURE_TIMEOUT_S) -> NackSample:
        """JOL on the consumer's tracker (see ``NackLoad.java``). O(tracked entries)."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(b"measure\n")
            self.proc.stdin.flush()
            f = self.answers.get(timeout=timeout_s)
        except (OSError, queue.Empty) as exc:
            raise LoadFailed(
                f"the nack client did not answer measure ({exc}); log: {self.log}"
            ) from exc
        if f[0] != "measure":
            raise LoadFailed(f"the nack client could not measure: {' '.join(f[1:])}")
        return NackSample(int(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5]),
                          f[6] if len(f) > 6 else "")  # fmt: skip


@contextlib.contextmanager
def running_nack_load(
    built: HostBuild, service_url: str, spec: NackLoadSpec, run_dir: Path
) -> Iterator[NackLoad]:
    """Start the client JVM with JOL's Instrumentation (killed if this process dies), yield
    it once ``ready``, and stop it by PID when the block ends."""
    args = spec.args(service_url)
    proc, log = start_client(
        built, run_dir, "nack-load", NACK_CLASS, args, harness_runner.jvm_options()
    )
    load = NackLoad(proc, log)
    try:
        load.wait_ready()
        yield load
    finally:
        load.close()
