"""The Go client's perf tool of PR #976 (apache/pulsar-client-go), built from the Go module
proxy, and what its consumer logs.

:func:`build` runs ``go install github.com/apache/pulsar-client-go/perf@v0.10.0`` (v0.10.0:
the first tag holding #976, merged as b8563cd8 on 2023-03-15) with ``GOBIN`` in trackerlab's
cache; the module is used as published and none of its code is in this repository. The
binary binds ``*:8000`` before it parses its flags (``perf/pulsar-perf-go.go:95,107-113`` at
v0.10.0: the port flag's default starts the server before ``rootCmd.Execute``): run it only
inside :func:`trackerlab.broker.netns.loopback_namespace`.

:func:`queue_updates` reads the consumer's ``--debug`` lines
``update currentQueueSize from X -> Y`` (``pulsar/consumer_partition.go:1757`` at v0.10.0, in
``expectMoreIncomingMessages``, :1745-1759; the same line at :1783 when a memory trigger
shrinks the queue), one per change of one partition consumer's queue, with the consumer's
topic (the partition's, for a partitioned topic) and logrus's time of day in the process's
zone (``TimestampFormat "15:04:05.000"``, ``perf/pulsar-perf-go.go:74-77``): the tools run
with ``TZ=UTC`` (:data:`ENV`).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from trackerlab.core.paths import cache_dir

__all__ = [
    "MODULE",
    "VERSION",
    "GoPerf",
    "GoPerfBuildFailed",
    "GoPerfUnavailable",
    "QueueUpdate",
    "build",
    "consume_args",
    "log_filter",
    "produce_args",
    "queue_updates",
]

MODULE = "github.com/apache/pulsar-client-go/perf"
#: The first tag holding PR #976 (milestone v0.10.0, seed 004).
VERSION = "v0.10.0"
#: What a consumer's log keeps: its debug output is about four lines per message (each
#: MESSAGE command, read and queued), 2.5 GB in two minutes at 20,000 msg/s. The queue's
#: updates, the stats every 10 s, anything of level warn and above, and every line that is
#: not a logrus line (a panic, cobra's errors) stay.
LOG_KEEP = r"update currentQueueSize|Stats - |level=(warn|error|fatal|panic)"
#: The environment of the Go tools: logrus prints the time of day in the local zone.
ENV = {"TZ": "UTC"}
#: Seconds ``go install`` may take (a fresh module cache downloads about 200 MB).
BUILD_TIMEOUT_S = 1800.0


class GoPerfUnavailable(RuntimeError):
    """No ``go``, or the module proxy did not serve the module: one line."""


class GoPerfBuildFailed(RuntimeError):
    """``go install`` failed on a module it did fetch: one line naming the log."""


#: ``go install`` output that means the module or a dependency could not be fetched.
#: (A 404 or 410 means a wrong module or version: a defect here, not a missing proxy.)
_FETCH_FAILED = ("dial tcp", "no such host", "i/o timeout", "connection refused",
                 "TLS handshake", "network is unreachable")  # fmt: skip


@dataclass(frozen=True)
class GoPerf:
    """The built binary and how long the build took (0.0 when cached)."""

    path: Path
    seconds: float


def binary_path() -> Path:
    """``$TRACKERLAB_CACHE/go/pulsar-client-go-perf-<version>/perf``."""
    return cache_dir() / "go" / f"pulsar-client-go-perf-{VERSION}" / "perf"


def build() -> GoPerf:
    """The perf binary, built once per version (``go install MODULE@VERSION``). Raises
    :class:`GoPerfUnavailable` naming what is missing (no ``go``, the proxy did not serve the
    module) and :class:`GoPerfBuildFailed` for any other failure; a cached binary is reused."""
    path = binary_path()
    if path.is_file() and os.access(path, os.X_OK):
        return GoPerf(path, 0.0)
    go = shutil.which("go")
    if go is None:
        raise GoPerfUnavailable("the Go toolchain (go) is not installed")
    path.parent.mkdir(parents=True, exist_ok=True)
    log = path.parent / "go-install.log"
    env = {**os.environ, "GOBIN": str(path.parent), "GOFLAGS": "-buildvcs=false"}
    t0 = time.perf_counter()
    with open(log, "wb") as out:
        try:
            done = subprocess.run(
                [go, "install", f"{MODULE}@{VERSION}"],
                stdout=out, stderr=subprocess.STDOUT, env=env, timeout=BUILD_TIMEOUT_S,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise GoPerfUnavailable(
                f"go install {MODULE}@{VERSION} took over {BUILD_TIMEOUT_S:.0f} s (log: {log})"
            ) from None
    if done.returncode != 0 or not path.is_file():
        text = log.read_text(errors="replace")
        tail = (text.strip().splitlines() or ["no output"])[-1]
        if any(marker in text for marker in _FETCH_FAILED):
            raise GoPerfUnavailable(
                f"the Go module proxy did not serve {MODULE}@{VERSION}: {tail} (log: {log})"
            )
        raise GoPerfBuildFailed(f"go install {MODULE}@{VERSION} failed: {tail} (log: {log})")
    return GoPerf(path, time.perf_counter() - t0)


def produce_args(service_url: str, topic: str, rate_per_s: int) -> list[str]:
    """The PR's producer: ``produce -r RATE -s 128 -b 0`` (seed 004), metrics off."""
    return ["--metrics", "-1", "-u", service_url, "produce", topic,
            "-r", str(rate_per_s), "-s", "128", "-b", "0"]  # fmt: skip


def consume_args(service_url: str, topic: str, subscription: str) -> list[str]:
    """The PR's consumer, ``consume -r 10000 --enable-auto-scaled-queue-size=true`` (seed
    004), with ``--debug`` for the queue's updates. ``-r`` is the receiver queue size flag,
    which v0.10.0 never passes to ``Subscribe`` (``perf/perf-consumer.go:81-86``; its
    "Consumer config" line prints the flags, not the client's options): the queue's maximum
    is the client's default, 1000 (``pulsar/consumer_impl.go:79-80``)."""
    return ["--debug", "--metrics", "-1", "-u", service_url, "consume", topic,
            "-s", subscription, "-r", "10000", "--enable-auto-scaled-queue-size=true"]  # fmt: skip


def log_filter() -> list[str]:
    """``awk`` keeping :data:`LOG_KEEP`'s lines and every line not from logrus, each
    written as it comes."""
    return ["awk", f'!/^time="/ || /{LOG_KEEP}/ {{print; fflush()}}']


@dataclass(frozen=True)
class QueueUpdate:
    """One doubling of one partition consumer's receiver queue."""

    epoch_ms: int
    topic: str
    old: int
    new: int


_UPDATE = re.compile(
    r'time="(?P<t>[0-9:.T\-Z]+)".*msg="update currentQueueSize from (?P<old>\d+) -> (?P<new>\d+)"'
    r'.*topic="?(?P<topic>[^"\s]+)'
)


def _epoch_ms(stamp: str, day: dt.date) -> int:
    """logrus's ``HH:MM:SS.mmm`` (the perf tool's ``TimestampFormat``) on ``day``, in UTC
    (the tools run with :data:`ENV`)."""
    if "T" in stamp:
        return int(dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
    t = dt.time.fromisoformat(stamp)
    return int(dt.datetime.combine(day, t, tzinfo=dt.UTC).timestamp() * 1000)


def queue_updates(lines: Iterable[str], start_epoch_ms: int) -> list[QueueUpdate]:
    """The consumer's queue updates, timed in epoch ms. A time of day earlier than the run's
    start by more than an hour is taken as the next day (a run that crosses midnight). O(lines)."""
    start = dt.datetime.fromtimestamp(start_epoch_ms / 1000, dt.UTC)
    out: list[QueueUpdate] = []
    for line in lines:
        m = _UPDATE.search(line)
        if m is None:
            continue
        ms = _epoch_ms(m["t"], start.date())
        if ms < start_epoch_ms - 3_600_000:
            ms += 86_400_000
        out.append(QueueUpdate(ms, m["topic"], int(m["old"]), int(m["new"])))
    return out
