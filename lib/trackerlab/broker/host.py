"""The broker "host": a standalone broker in a JVM that can measure its own trackers.

``host/`` is a Maven project whose parent is the standalone's (``maven/pom.xml``: the same
``pulsar-broker`` tree) and which adds JOL 0.17 and ``pulsar-client-original``; it compiles
``trackerlab.pulsar.BrokerHost``, ``DelayedLoad`` and ``PendingLoad`` with the jvm-check
harness's own ``Measure`` and ``Reflect`` (``jvmcheck/pulsar/maven/src/main/java``, not
copied). :func:`build` runs, per release, into ``$TRACKERLAB_CACHE/pulsar/broker-host-<v>-<hash>``::

    mvn -B -f broker/host/pom.xml -s jvmcheck/pulsar/maven/settings.xml \\
        -Dpulsar.version=V -Dtrackerlab.build.dir=D compile dependency:build-classpath

``BrokerHost`` starts the standalone as ``PulsarStandaloneStarter.main`` does, in its own JVM
(:func:`trackerlab.broker.process.start` with ``main_class``), with JOL's Instrumentation
(:func:`trackerlab.jvmcheck.pulsar.harness_runner.jvm_options`), and answers on a 127.0.0.1 port it
writes to ``host.port`` in the run folder: :class:`HostClient`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import trackerlab.broker.classpath as classpath
import trackerlab.broker.process as process
from trackerlab.broker.sockets import LOOPBACK
from trackerlab.broker.versions import BrokerRelease, select_release
from trackerlab.core.paths import cache_dir
from trackerlab.jvmcheck.pulsar import harness_runner, maven

__all__ = [
    "HOST_DIR",
    "LOAD_CLASS",
    "MAIN_CLASS",
    "PENDING_LOAD_CLASS",
    "HostBuild",
    "HostClient",
    "HostFailed",
    "PendingSample",
    "TrackerSample",
    "build",
    "running_host",
]

HOST_DIR = Path(__file__).resolve().parent / "host"
#: The project's own delayed tracker (``trackerlab.delayed``), compiled into the host when
#: present (``host/pom.xml``: ``tracker.sources``).
TRACKER_SOURCES = HOST_DIR.parent / "tracker" / "src" / "main" / "java"
#: ``host/src/main/java/trackerlab/pulsar/BrokerHost.java``.
MAIN_CLASS = "trackerlab.pulsar.BrokerHost"
#: ``host/src/main/java/trackerlab/pulsar/DelayedLoad.java``.
LOAD_CLASS = "trackerlab.pulsar.DelayedLoad"
#: ``host/src/main/java/trackerlab/pulsar/PendingLoad.java``.
PENDING_LOAD_CLASS = "trackerlab.pulsar.PendingLoad"
#: The harness sources the host compiles (``host/pom.xml``'s includes).
SHARED_SOURCES = ("Measure.java", "Reflect.java")
PORT_FILE = "host.port"
#: Seconds to wait for ``host.port`` once the broker is ready (written right after start()).
PORT_TIMEOUT_S = 30.0


class HostFailed(RuntimeError):
    """The host did not answer, or answered ``error``: one line."""


@dataclass(frozen=True)
class HostBuild:
    """The compiled host classes and the release's jars (JOL and the client among them)."""

    version: str
    classes: Path
    jars: tuple[Path, ...]
    seconds: float  # build time (0.0 when cached)

    def entries(self) -> list[str]:
        return [str(self.classes), *map(str, self.jars)]

    def jar(self, artifact: str) -> Path | None:
        for jar in self.jars:
            if jar.parent.parent.name == artifact:
                return jar
        return None

    def broker_prefix(self) -> list[Path]:
        """What the broker's class path lacks: the host classes and JOL."""
        jol = self.jar("jol-core")
        if jol is None:
            raise maven.HarnessBuildFailed(f"the host build of {self.version} has no jol-core")
        return [self.classes, jol]


def _sources() -> list[Path]:
    harness_dir = maven.MAVEN_DIR / "src" / "main" / "java" / "trackerlab" / "pulsar"
    own = sorted((HOST_DIR / "src").rglob("*.java"))
    # the project's tracker (host/pom.xml's tracker.sources: none while the folder is absent)
    own += sorted(TRACKER_SOURCES.rglob("*.java")) if TRACKER_SOURCES.is_dir() else []
    return [HOST_DIR / "pom.xml", classpath.MAVEN_DIR / "pom.xml", maven.SETTINGS, *own] + [
        harness_dir / name for name in SHARED_SOURCES
    ]


def build_dir(release: BrokerRelease) -> Path:
    """``$TRACKERLAB_CACHE/pulsar/broker-host-<version>-<hash of poms and sources>``."""
    digest = hashlib.sha256(repr(sorted(release.maven_properties().items())).encode())
    for path in _sources():
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return cache_dir() / "pulsar" / f"broker-host-{release.version}-{digest.hexdigest()[:12]}"


def _cached(release: BrokerRelease, target: Path) -> HostBuild | None:
    jars = classpath.listed_jars(target / "classpath.txt")
    if not (target / "classes").is_dir() or jars is None:
        return None
    return HostBuild(release.version, target / "classes", jars, 0.0)


def build(version: str | BrokerRelease | None = None) -> HostBuild:
    """Compile the host against a release (reused while poms and sources are unchanged).
    Raises :class:`~trackerlab.jvmcheck.pulsar.maven.MavenUnavailable` (no ``mvn``, no
    Central) or ``HarnessBuildFailed`` (a compile error: a defect, never a skip)."""
    release = version if isinstance(version, BrokerRelease) else select_release(version)
    target = build_dir(release)
    found = _cached(release, target)
    if found is not None:
        return found
    t0 = time.perf_counter()
    goals = ["compile", "dependency:build-classpath"]
    classpath.maven_into(target, "broker-host", HOST_DIR / "pom.xml", goals, release)
    found = _cached(release, target)
    if found is None:
        log = target.parent / f"maven-broker-host-{release.version}.log"
        raise maven.HarnessBuildFailed(f"Maven left no host build for {release.version} ({log})")
    return HostBuild(release.version, found.classes, found.jars, time.perf_counter() - t0)


@dataclass(frozen=True)
class TrackerSample:
    """``BrokerHost measure``: one subscription's live tracker, measured with JOL."""

    tracker: str  # class simple name; "none" before the first delayed message
    root: str  # Class.field the walk is rooted at
    heap_bytes: int  # JOL GraphLayout totalSize + the detached ByteBuf objects
    direct_capacity_bytes: int  # the triple heap's ByteBuf capacities (0: time buckets)
    direct_reserved_bytes: int  # the pool size classes those buffers hold
    buffers: int
    delayed_messages: int  # getNumberOfDelayedMessages(), after the walk
    walk_ms: int
    classes: str  # JOL's class histogram, most bytes first

    @property
    def deep_bytes(self) -> int:
        """Heap and direct: what the planner's row counts (``jvm_bytes + jvm_direct_bytes``)."""
        return self.heap_bytes + self.direct_capacity_bytes


@dataclass(frozen=True)
class PendingSample:
    """``BrokerHost pending``: one consumer's ``Consumer.pendingAcks``, measured with JOL."""

    consumer: str
    root: str  # PendingAcksMap.pendingAcks, or Consumer.pendingAcks (ConcurrentLongLongPairHashMap)
    heap_bytes: int  # JOL GraphLayout totalSize of the root
    entries: int  # the structure's size()
    unacked: int  # Consumer.getUnackedMessages() (messages)
    blocked: bool  # Consumer.isBlocked(): blockedConsumerOnUnackedMsgs
    walk_ms: int


class HostClient:
    """One connection to a running host's line protocol (127.0.0.1 only)."""

    def __init__(self, port: int, timeout_s: float = 60.0) -> None:
        self._sock = socket.create_connection((LOOPBACK, port), timeout=timeout_s)
        self._file = self._sock.makefile("rw", encoding="utf-8", newline="\n")

    @classmethod
    def connect(cls, run_dir: Path, timeout_s: float = PORT_TIMEOUT_S) -> HostClient:
        """Wait for ``run_dir/host.port`` and connect."""
        path = Path(run_dir) / PORT_FILE
        deadline = time.monotonic() + timeout_s
        while not path.is_file():
            if time.monotonic() > deadline:
                raise HostFailed(f"the broker host wrote no {PORT_FILE} in {timeout_s:.0f} s")
            time.sleep(0.1)
        return cls(int(path.read_text().strip()))

    def request(self, line: str) -> list[str]:
        """Send one request; the answer's fields after ``ok``. O(answer)."""
        self._file.write(line + "\n")
        self._file.flush()
        answer = self._file.readline()
        if not answer:
            raise HostFailed(f"the broker host closed the connection on {line!r}")
        fields = answer.rstrip("\n").split("\t")
        if fields[0] != "ok":
            raise HostFailed(f"the broker host answered {line!r} with: {' '.join(fields[1:])}")
        return fields[1:]

    def ping(self) -> str:
        """JOL's VM details (the host refuses to start without Instrumentation)."""
        return self.request("ping")[0]

    def memory(self) -> tuple[int, int, int]:
        """(heap used, heap committed, max heap) of the broker JVM, bytes."""
        used, committed, most = self.request("memory")
        return int(used), int(committed), int(most)

    def measure(self, topic: str, subscription: str) -> TrackerSample:
        """JOL on the subscription's ``delayedDeliveryTracker`` (see ``BrokerHost.java``)."""
        f = self.request(f"measure {topic} {subscription}")
        return TrackerSample(
            f[0], f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]), int(f[6]), int(f[7]),
            f[8] if len(f) > 8 else "",
        )  # fmt: skip

    def measure_graph(self, topic: str, subscription: str) -> tuple[TrackerSample, str]:
        """JOL-sized walk of the whole tracker object graph minus the broker's shared objects
        (``TrackerGraph.java`` names them) and the excluded objects by type
        (``Type*count,...``). O(objects of the tracker)."""
        f = self.request(f"measure {topic} {subscription} graph")
        sample = TrackerSample(
            f[0], f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]), int(f[6]), int(f[7]),
            f[8] if len(f) > 8 else "",
        )  # fmt: skip
        return sample, f[9] if len(f) > 9 else ""

    def count(self, topic: str, subscription: str) -> int:
        """The tracker's ``getNumberOfDelayedMessages()``; -1 without a tracker. O(1)."""
        return int(self.request(f"count {topic} {subscription}")[0])

    def allocated(self) -> tuple[int, int, int]:
        """(bytes allocated by the broker JVM's live threads, threads, JVM uptime ms):
        ``ThreadMXBean.getThreadAllocatedBytes`` summed. O(threads)."""
        total, threads, uptime = self.request("alloc")
        return int(total), int(threads), int(uptime)

    def pending(self, topic: str, subscription: str) -> list[PendingSample]:
        """JOL on each consumer's ``pendingAcks`` (see ``BrokerHost.java``). O(entries)."""
        f = self.request(f"pending {topic} {subscription}")
        out = []
        for i in range(int(f[0])):
            c = f[1 + 7 * i : 8 + 7 * i]
            out.append(PendingSample(
                c[0], c[1], int(c[2]), int(c[3]), int(c[4]), c[5] == "true", int(c[6])
            ))  # fmt: skip
        return out

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._file.close()
            self._sock.close()


@contextlib.contextmanager
def running_host(
    version: str | None = None,
    run_dir: Path | None = None,
    *,
    timeout_s: float = process.READY_TIMEOUT_S,
    broker_overrides: Mapping[str, str] | None = None,
    extra_jvm_options: tuple[str, ...] = (),
) -> Iterator[tuple[process.Broker, HostClient, HostBuild]]:
    """``with running_host("4.2.4") as (broker, client, build):`` a ready standalone started
    by ``BrokerHost`` and a connection to it; the broker is stopped by PID when the block
    ends (Ctrl-C included). ``broker_overrides``: ServiceConfiguration keys for
    ``broker.conf`` (:func:`trackerlab.broker.process.start`); ``extra_jvm_options`` follow
    the harness's (e.g. ``-Xlog:gc*``). Raises ``BrokerUnavailable``
    when Java, ``mvn`` or Central is missing."""
    release = select_release(version)
    try:
        built = build(release)
    except maven.MavenUnavailable as exc:
        raise process.BrokerUnavailable(
            f"Pulsar {release.version}'s broker host cannot be built: {exc}"
        ) from exc
    broker = process.start(
        release.version, run_dir, timeout_s=timeout_s, extra_jvm_options=[*harness_runner.jvm_options(), *extra_jvm_options],
        main_class=MAIN_CLASS, class_path_prefix=built.broker_prefix(),
        broker_overrides=broker_overrides,
    )  # fmt: skip
    client: HostClient | None = None
    try:
        client = HostClient.connect(broker.run_dir)
        client.ping()
        yield broker, client, built
    finally:
        if client is not None:
            client.close()
        process._stop_held(broker)


def load_class_path(built: HostBuild) -> str:
    """The workload client's class path: the host classes and the release's jars."""
    return os.pathsep.join(built.entries())
