"""Pulsar's delayed-delivery trackers driven outside a broker: a line-protocol driver JVM and
JMH latency benchmarks, per release.

``trackercheck/`` is a Maven project whose parent is the standalone's (``maven/pom.xml``: the
same ``pulsar-broker`` tree) and which adds Mockito 5.14.2 and JMH 1.37; it compiles
``trackerlab.trackercheck.Driver`` (stdin/stdout, one request a line), ``TrackerBench`` (JMH)
and, when another folder holds it, the project's own ``trackerlab.delayed.SortedChunksTracker``
(``tracker/src/main/java``, a second source root). :func:`build` runs, per release, into
``$TRACKERLAB_CACHE/pulsar/tracker-check-<v>-<hash>``::

    mvn -B -f broker/trackercheck/pom.xml -s jvmcheck/pulsar/maven/settings.xml \\
        -Dpulsar.version=V -Dtrackerlab.build.dir=D compile dependency:build-classpath

:class:`TrackerDriver` runs the driver JVM (started and stopped by PID, its own session);
:meth:`TrackerDriver.new` makes a tracker in it (``in-memory``: the release's
``InMemoryDelayedDeliveryTracker``; ``bucket``: PIP-195's ``BucketDelayedDeliveryTracker``;
``sorted-chunks``), a :class:`JavaTracker` with the Python proposals' method names
(:class:`trackerlab.models.proposals.base.ProposalTracker`). :func:`run_jmh` runs the
benchmarks and returns one row per benchmark and kind.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import trackerlab.broker.classpath as classpath
from trackerlab.broker.versions import BrokerRelease, select_release
from trackerlab.core.interrupts import die_with_parent, sigint_held
from trackerlab.core.java_runtime import java_executable
from trackerlab.core.paths import cache_dir
from trackerlab.jvmcheck.pulsar import maven

__all__ = [
    "BENCHMARKS",
    "CHECK_DIR",
    "DRIVER_CLASS",
    "KINDS",
    "PULSAR_TESTS",
    "SORTED_CHUNKS_TESTS",
    "DriverFailed",
    "JavaTracker",
    "JmhSettings",
    "PulsarTestRun",
    "TrackerBuild",
    "TrackerDriver",
    "build",
    "pulsar_tests",
    "run_jmh",
    "running_driver",
]

CHECK_DIR = Path(__file__).resolve().parent / "trackercheck"
#: The project's own tracker sources (another module's folder; may be absent).
OWN_TRACKER_DIR = Path(__file__).resolve().parent / "tracker" / "src" / "main" / "java"
#: ``trackercheck/src/main/java/trackerlab/trackercheck/Driver.java``.
DRIVER_CLASS = "trackerlab.trackercheck.Driver"
#: Tracker kinds the driver builds (``Trackers.java``).
KINDS = ("in-memory", "bucket", "sorted-chunks")
#: ``TrackerBench``'s benchmark methods.
BENCHMARKS = ("addInOrder", "addOutOfOrder", "getScheduled100")
#: Seconds a driver may take to answer one request (a JVM start included for the first).
REQUEST_TIMEOUT_S = 120.0


class DriverFailed(RuntimeError):
    """The driver answered ``error``, or died: one line."""


@dataclass(frozen=True)
class TrackerBuild:
    """The compiled driver and benchmarks and the release's jars (Mockito and JMH among them)."""

    version: str
    classes: Path
    jars: tuple[Path, ...]
    seconds: float  # build time (0.0 when cached)

    def class_path(self) -> str:
        return os.pathsep.join([str(self.classes), *map(str, self.jars)])

    def has_sorted_chunks(self) -> bool:
        """Whether ``trackerlab.delayed.SortedChunksTracker`` was compiled in."""
        return (self.classes / "trackerlab" / "delayed" / "SortedChunksTracker.class").is_file()


def _sources() -> list[Path]:
    own = sorted((CHECK_DIR / "src").rglob("*.java"))
    tracker = sorted(OWN_TRACKER_DIR.rglob("*.java")) if OWN_TRACKER_DIR.is_dir() else []
    return [CHECK_DIR / "pom.xml", classpath.MAVEN_DIR / "pom.xml", maven.SETTINGS, *own, *tracker]


def _prefix(tests: bool) -> str:
    return "tracker-check-tests" if tests else "tracker-check"


def build_dir(release: BrokerRelease, tests: bool = False) -> Path:
    """``$TRACKERLAB_CACHE/pulsar/tracker-check[-tests]-<version>-<hash of poms, sources>``."""
    digest = hashlib.sha256(repr(sorted(release.maven_properties().items())).encode())
    for path in _sources():
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return cache_dir() / "pulsar" / f"{_prefix(tests)}-{release.version}-{digest.hexdigest()[:12]}"


def build(version: str | BrokerRelease | None = None, tests: bool = False) -> TrackerBuild:
    """Compile the driver and benchmarks against a release (reused while poms and sources are
    unchanged); ``tests``: with profile ``pulsar-tests`` (Pulsar's test-jar, TestNG and
    Awaitility on the class path). Raises ``MavenUnavailable`` (no ``mvn``, no Central, an
    artifact not served) or ``HarnessBuildFailed`` (a compile error: a defect, never a skip)."""
    release = version if isinstance(version, BrokerRelease) else select_release(version)
    target = build_dir(release, tests)
    jars = classpath.listed_jars(target / "classpath.txt")
    if (target / "classes").is_dir() and jars is not None:
        return TrackerBuild(release.version, target / "classes", jars, 0.0)
    t0 = time.perf_counter()
    goals = [*(["-P", "pulsar-tests"] if tests else []), "compile", "dependency:build-classpath"]
    classpath.maven_into(target, _prefix(tests), CHECK_DIR / "pom.xml", goals, release)
    jars = classpath.listed_jars(target / "classpath.txt")
    if not (target / "classes").is_dir() or jars is None:
        log = target.parent / f"maven-{_prefix(tests)}-{release.version}.log"
        raise maven.HarnessBuildFailed(
            f"Maven left no {_prefix(tests)} build for {release.version} ({log})"
        )
    return TrackerBuild(release.version, target / "classes", jars, time.perf_counter() - t0)


def _java() -> str:
    exe = java_executable()
    if exe is None:
        raise maven.MavenUnavailable("java not found: install a JDK 17+")
    return exe


def _start(args: list[str], log: Path, stdin: int | None = None) -> subprocess.Popen:
    """A JVM in a session of its own (its PID is its group), killed with this thread."""
    with sigint_held() as interrupted, open(log, "wb") as err:
        proc = subprocess.Popen(
            args, stdin=stdin, stdout=subprocess.PIPE, stderr=err, start_new_session=True,
            preexec_fn=die_with_parent,
        )  # fmt: skip
    if interrupted():
        _stop(proc)
        raise KeyboardInterrupt
    return proc


def _stop(proc: subprocess.Popen, timeout_s: float = 10.0) -> None:
    """SIGTERM to the process group of ``proc.pid``, SIGKILL after ``timeout_s``."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if proc.poll() is not None:
            break
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=timeout_s)
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


class TrackerDriver:
    """One driver JVM (``Driver.java``); :meth:`new` replaces its tracker. Stop it with
    :meth:`close` (or use :func:`running_driver`)."""

    def __init__(self, built: TrackerBuild) -> None:
        self.built = built
        self.log = Path(
            tempfile.mkstemp(prefix="tracker-driver-", suffix=".log", dir=cache_dir())[1]
        )
        args = [
            _java(),
            "-XX:+UseSerialGC",
            "-Xshare:auto",
            "-cp",
            built.class_path(),
            DRIVER_CLASS,
        ]
        self._proc = _start(args, self.log, stdin=subprocess.PIPE)
        self.pid = self._proc.pid
        self._now: int | None = None

    def request(self, line: str) -> str:
        """Send one request; the answer after ``ok`` (``""`` when none). O(answer)."""
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(line.encode() + b"\n")
            proc.stdin.flush()
        except OSError as exc:
            raise DriverFailed(f"the tracker driver is gone ({self._tail()})") from exc
        answer = proc.stdout.readline().decode().rstrip("\n")
        if not answer:
            raise DriverFailed(f"the tracker driver closed on {line!r} ({self._tail()})")
        if answer == "ok":
            return ""
        if answer.startswith("ok "):
            return answer[3:]
        raise DriverFailed(f"the tracker driver answered {line!r} with: {answer}")

    def _tail(self) -> str:
        with contextlib.suppress(OSError):
            lines = self.log.read_text(errors="replace").strip().splitlines()
            return lines[-1] if lines else "no output"
        return "no output"

    def set_now(self, now_ms: int) -> None:
        """Set the driver's clock (skipped when unchanged)."""
        if now_ms != self._now:
            self.request(f"now {int(now_ms)}")
            self._now = now_ms

    def new(self, kind: str, tick_ms: int, strict: bool, **options: int) -> JavaTracker:
        """A fresh tracker of ``kind`` (:data:`KINDS`); ``options``: ``lookahead``,
        ``minIndexCountPerBucket``, ``timeStepPerSegmentMs``, ``maxIndexesPerSegment``,
        ``maxNumBuckets`` (``Trackers.Options``; the broker's defaults otherwise)."""
        extra = " ".join(f"{k}={int(v)}" for k, v in options.items())
        cls = self.request(f"new {kind} {int(tick_ms)} {str(bool(strict)).lower()} {extra}".strip())
        return JavaTracker(self, kind, cls, tick_ms, strict)

    def close(self) -> None:
        with contextlib.suppress(OSError, DriverFailed):
            if self._proc.poll() is None:
                self.request("quit")
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=5)
        _stop(self._proc)
        self.log.unlink(missing_ok=True)


@dataclass
class JavaTracker:
    """A Java tracker in a driver, with :class:`~trackerlab.models.proposals.base.ProposalTracker`'s
    method names; every call that reads time first sets the driver's clock to ``now_ms``."""

    driver: TrackerDriver
    kind: str
    java_class: str
    tick_ms: int
    strict: bool

    def add_message(self, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        """``addMessage(ledgerId, entryId, deliverAt)``: False means "deliver now"."""
        self.driver.set_now(now_ms)
        return self.driver.request(f"add {int(ledger)} {int(entry)} {int(deliver_at)}") == "true"

    def get_scheduled_messages(self, max_messages: int, now_ms: int) -> list[tuple[int, int]]:
        """``getScheduledMessages(n)``: the positions in the Java ``TreeSet``'s order."""
        self.driver.set_now(now_ms)
        out = []
        for field in self.driver.request(f"get {int(max_messages)}").split():
            ledger, entry = field.split(":")
            out.append((int(ledger), int(entry)))
        return out

    def has_message_available(self, now_ms: int) -> bool:
        self.driver.set_now(now_ms)
        return self.driver.request("has") == "true"

    def number_of_delayed_messages(self) -> int:
        return int(self.driver.request("count"))

    def contains_message(self, ledger: int, entry: int) -> bool:
        """``containsMessage`` (PIP-195's and SortedChunks'; the in-memory trackers have none)."""
        return self.driver.request(f"contains {int(ledger)} {int(entry)}") == "true"

    def should_pause_all_deliveries(self, now_ms: int) -> bool:
        self.driver.set_now(now_ms)
        return self.driver.request("pause") == "true"

    def buffer_memory_bytes(self) -> int:
        """``getBufferMemoryUsage()``."""
        return int(self.driver.request("memory"))

    def clear(self) -> None:
        """``clear().get()``."""
        self.driver.request("clear")


@contextlib.contextmanager
def running_driver(version: str | None = None) -> Iterator[TrackerDriver]:
    """``with running_driver("4.2.4") as d:`` one driver JVM, stopped by PID when the block
    ends. Raises ``MavenUnavailable`` when Java, ``mvn`` or Central is missing."""
    driver = TrackerDriver(build(version))
    try:
        yield driver
    finally:
        with sigint_held():
            driver.close()


@dataclass(frozen=True)
class JmhSettings:
    """JMH's run settings: by default 1 fork, 3 warmup iterations of 2 s, 3 measurement
    iterations of 2 s, trackers prefilled with 1e6 messages, tick 1000 ms (the broker's
    delayedDeliveryTickTimeMillis, ServiceConfiguration.java:387 at v4.2.4)."""

    forks: int = 1
    warmup_iterations: int = 3
    warmup_s: int = 2
    iterations: int = 3
    iteration_s: int = 2
    prefill: int = 1_000_000
    tick_ms: int = 1000

    def args(self) -> list[str]:
        return [
            "-f", str(self.forks), "-wi", str(self.warmup_iterations), "-w", f"{self.warmup_s}s",
            "-i", str(self.iterations), "-r", f"{self.iteration_s}s",
            "-p", f"prefill={self.prefill}", "-p", f"tickMs={self.tick_ms}",
        ]  # fmt: skip


def run_jmh(
    version: str | None, kinds: tuple[str, ...], settings: JmhSettings | None = None,
    benchmarks: tuple[str, ...] = BENCHMARKS, timeout_s: float = 3600.0,
) -> list[dict[str, object]]:  # fmt: skip
    """Run ``TrackerBench`` (Mode.SampleTime, ``-prof gc``) on ``kinds`` against a release;
    one row per benchmark and kind: p50, p99, p99.9 and mean latency (ns), samples, allocation
    (bytes per op). JMH's JVM and its fork run in one session, stopped by PID."""
    settings = settings or JmhSettings()
    bad = [k for k in kinds if k not in KINDS] + [b for b in benchmarks if b not in BENCHMARKS]
    if bad or not kinds:
        raise ValueError(
            f"kinds must be among {', '.join(KINDS)} and benchmarks among "
            f"{', '.join(BENCHMARKS)}; got {', '.join(bad) or 'no kinds'}"
        )
    built = build(version)
    with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
        out = Path(tmp) / "jmh.json"
        pattern = "TrackerBench\\.(" + "|".join(benchmarks) + ")$"
        args = [
            _java(), "-cp", built.class_path(), "org.openjdk.jmh.Main", pattern, *settings.args(),
            "-p", f"kind={','.join(kinds)}", "-prof", "gc", "-rf", "json", "-rff", str(out),
        ]  # fmt: skip
        proc = _start(args, Path(tmp) / "jmh.log")
        try:
            assert proc.stdout is not None
            proc.stdout.read()  # JMH's progress; the results are in the JSON file
            proc.wait(timeout=timeout_s)
        finally:
            _stop(proc)
        if proc.returncode != 0 or not out.is_file():
            text = (Path(tmp) / "jmh.log").read_text(errors="replace").strip().splitlines()
            raise DriverFailed(f"JMH exited {proc.returncode}: {text[-1] if text else 'no output'}")
        return [_row(r, built.version) for r in json.loads(out.read_text())]


#: Pulsar's own tracker tests in ``pulsar-broker-V-tests.jar`` (TestNG).
PULSAR_TESTS = (
    "org.apache.pulsar.broker.delayed.InMemoryDeliveryTrackerTest",
    "org.apache.pulsar.broker.delayed.bucket.BucketDelayedDeliveryTrackerTest",
)
#: Pulsar's tracker-agnostic tests (AbstractDeliveryTrackerTest) on SortedChunksTracker
#: (``src/pulsartests/java``: our data provider only; skipped while the class is absent).
SORTED_CHUNKS_TESTS = ("trackerlab.trackercheck.SortedChunksDeliveryTrackerTest",)


@dataclass(frozen=True)
class PulsarTestRun:
    """TestNG's counts from ``testng-results.xml`` and the run's wall time."""

    version: str
    classes: tuple[str, ...]
    total: int
    passed: int
    failed: int
    skipped: int
    seconds: float
    failures: tuple[str, ...]  # class.method of each failure


def pulsar_tests(
    version: str | None = None, classes: tuple[str, ...] = PULSAR_TESTS,
    timeout_s: float = 1800.0, adapter_kind: str | None = None,
) -> PulsarTestRun:  # fmt: skip
    """Run Pulsar's own TestNG tracker tests of a release against its real classes:
    ``java -cp <profile pulsar-tests> org.testng.TestNG -testclass C1,C2 -d OUT``;
    ``adapter_kind``: the kind :data:`SORTED_CHUNKS_TESTS` builds (``in-memory`` checks the
    adapter on Pulsar's own class)."""
    import xml.etree.ElementTree as ET

    built = build(version, tests=True)
    with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
        out = Path(tmp) / "testng"
        args = [
            _java(), *([f"-Dtrackerlab.adapter.kind={adapter_kind}"] if adapter_kind else []),
            "-cp", built.class_path(), "org.testng.TestNG",
            "-testclass", ",".join(classes), "-d", str(out),
        ]  # fmt: skip
        t0 = time.monotonic()
        proc = _start(args, Path(tmp) / "testng.log")
        try:
            assert proc.stdout is not None
            proc.stdout.read()
            proc.wait(timeout=timeout_s)
        finally:
            _stop(proc)
        seconds = time.monotonic() - t0
        results = out / "testng-results.xml"
        if not results.is_file():
            raise DriverFailed(f"TestNG exited {proc.returncode} and wrote no testng-results.xml")
        root = ET.parse(results).getroot()
        failures = tuple(
            f"{c.get('name')}.{m.get('name')}"
            for c in root.iter("class")
            for m in c.iter("test-method")
            if m.get("status") == "FAIL"
        )
    return PulsarTestRun(
        built.version, classes, int(root.get("total", 0)), int(root.get("passed", 0)),
        int(root.get("failed", 0)), int(root.get("skipped", 0)), seconds, failures,
    )  # fmt: skip


def _row(result: dict, version: str) -> dict[str, object]:
    """One JMH result as a row (latency in ns, allocation in bytes per op)."""
    primary = result["primaryMetric"]
    if primary["scoreUnit"] != "ns/op":
        raise DriverFailed(f"JMH reported {primary['scoreUnit']}, expected ns/op")
    pct = primary["scorePercentiles"]
    hist = primary.get("rawDataHistogram") or []
    samples = sum(int(c) for fork in hist for it in fork for _, c in it)
    alloc = result.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {})
    return {
        "pulsar_version": version,
        "kind": result["params"]["kind"],
        "benchmark": result["benchmark"].rsplit(".", 1)[-1],
        "prefill_messages": int(result["params"]["prefill"]),
        "tick_ms": int(result["params"]["tickMs"]),
        "p50_ns": float(pct["50.0"]),
        "p99_ns": float(pct["99.0"]),
        "p99_9_ns": float(pct["99.9"]),
        "mean_ns": float(primary["score"]),
        "samples": samples,
        "alloc_bytes_per_op": float(alloc["score"]) if alloc else None,
    }
