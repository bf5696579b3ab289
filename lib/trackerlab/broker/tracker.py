"""The proposal ``sorted-chunks`` as a real Pulsar tracker: ``tracker/`` (Java) built per release,
and ``trackerlab.delayed.SizeCheck`` run on numpy arrays.

``tracker/`` is a Maven project whose parent is the standalone's (``maven/pom.xml``: the same
``pulsar-broker`` tree, RoaringBitmap at the release's version) and which adds JOL 0.17; it
compiles ``trackerlab.delayed.{SortedChunksTracker, SortedChunksTrackerFactory, Chunk,
ChunkCodec, SizeCheck}`` (docs/design/sorted-chunks.md) with the jvm-check harness's own
``Measure`` and ``Reflect`` (not copied). :func:`build` runs, per release, into
``$TRACKERLAB_CACHE/pulsar/sorted-chunks-<v>-<hash>``::

    mvn -B -f broker/tracker/pom.xml -s jvmcheck/pulsar/maven/settings.xml \\
        -Dpulsar.version=V -Dtrackerlab.build.dir=D compile dependency:build-classpath

:func:`size_check` replays ``addMessage`` per message in a JVM of its own (with JOL's
Instrumentation: :func:`trackerlab.jvmcheck.pulsar.harness_runner.jvm_options`) and returns the JOL
deep sizes of the index. Raises ``JavaMissing`` (no Java 17+) and ``MavenUnavailable`` (no
``mvn``, no Central): the two "missing" kinds; a compile error is ``HarnessBuildFailed``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import trackerlab.broker.classpath as classpath
from trackerlab.broker.versions import BrokerRelease, select_release
from trackerlab.core.java_runtime import java_executable, require_java
from trackerlab.core.paths import cache_dir
from trackerlab.jvmcheck.pulsar import harness_runner, maven

__all__ = [
    "DISPATCH",
    "SIZE_CHECK_CLASS",
    "TRACKER_DIR",
    "IndexSize",
    "SizeCheckFailed",
    "SizeCheckResult",
    "TrackerBuild",
    "build",
    "size_check",
]

TRACKER_DIR = Path(__file__).resolve().parent / "tracker"
#: ``tracker/src/main/java/trackerlab/delayed/SizeCheck.java``.
SIZE_CHECK_CLASS = "trackerlab.delayed.SizeCheck"
#: The harness sources the tracker compiles (``tracker/pom.xml``'s includes).
SHARED_SOURCES = ("Measure.java", "Reflect.java")
#: The ledger id of a dispatch row: ``getScheduledMessages(entry)`` at the row's ``now_ms``.
DISPATCH = -1
#: SizeCheck's per-phase line kinds (``SizeCheck.java``'s Javadoc).
PHASE_LINES = ("size", "buffer", "count", "chunks", "classes", "chunk", "chunkdata", "contains")
#: Seconds one SizeCheck JVM may run.
RUN_TIMEOUT_S = 1800


class SizeCheckFailed(RuntimeError):
    """SizeCheck exited badly or printed no result: one line naming its log."""


@dataclass(frozen=True)
class TrackerBuild:
    """The compiled tracker classes and the release's jars (JOL among them)."""

    version: str
    classes: Path
    jars: tuple[Path, ...]
    seconds: float  # build time (0.0 when cached)

    def entries(self) -> list[str]:
        return [str(self.classes), *map(str, self.jars)]

    def class_path(self) -> str:
        return os.pathsep.join(self.entries())


@dataclass(frozen=True)
class IndexSize:
    """One phase of SizeCheck: the index measured by JOL (bytes) and the tracker's counters."""

    total_bytes: int  # GraphLayout of (TreeSet, probe, HashMap) together
    treeset_bytes: int  # the TreeSet<Chunk> alone (chunks and their data included)
    probe_bytes: int  # the probe Chunk alone
    membership_bytes: int  # the HashMap<Long, bitmap> alone
    buffer_memory_usage_bytes: int  # getBufferMemoryUsage()
    delayed_messages: int  # getNumberOfDelayedMessages()
    chunks: int
    max_chunk_length_bytes: int  # largest Chunk.length
    max_chunk_capacity_bytes: int  # largest Chunk.data.length
    chunk_capacity_bytes: int  # sum of Chunk.data.length
    classes: str  # JOL's class histogram of the three roots
    #: ``chunks=True``: (first tick, ledger, entry, last tick, ledger, entry, count, length
    #: bytes, read offset bytes, capacity bytes) per chunk, in index order
    chunk_rows: tuple[tuple[int, ...], ...] = ()
    #: ``contains=...``: (ledger, entry, containsMessage) per position asked
    contains: tuple[tuple[int, int, bool], ...] = ()
    #: ``chunks=True``: the unread token bytes of each chunk (``data[readOffset:readOffset +
    #: length]``), in index order
    chunk_data: tuple[bytes, ...] = ()


@dataclass(frozen=True)
class SizeCheckResult:
    """SizeCheck's output: after the adds, and after ``getScheduledMessages`` when asked."""

    jol_details: str
    tracked: int  # addMessage returned true (re-adds included)
    refused: int  # addMessage returned false (deliver now)
    added: IndexSize
    scheduled: IndexSize | None
    positions: tuple[tuple[int, int], ...] | None  # (ledger, entry) in the returned set's order
    seconds: float
    #: dispatch rows (ledger :data:`DISPATCH`), in order: (how many getScheduledMessages
    #: returned, the positions when asked)
    steps: tuple[tuple[int, tuple[tuple[int, int], ...]], ...] = ()


def _sources() -> list[Path]:
    harness_dir = maven.MAVEN_DIR / "src" / "main" / "java" / "trackerlab" / "pulsar"
    own = sorted((TRACKER_DIR / "src").rglob("*.java"))
    return [TRACKER_DIR / "pom.xml", classpath.MAVEN_DIR / "pom.xml", maven.SETTINGS, *own] + [
        harness_dir / name for name in SHARED_SOURCES
    ]


def build_dir(release: BrokerRelease) -> Path:
    """``$TRACKERLAB_CACHE/pulsar/sorted-chunks-<version>-<hash of poms and sources>``."""
    digest = hashlib.sha256(repr(sorted(release.maven_properties().items())).encode())
    for path in _sources():
        digest.update(str(path.relative_to(TRACKER_DIR.parent.parent)).encode() + b"\0")
        digest.update(path.read_bytes())
    return cache_dir() / "pulsar" / f"sorted-chunks-{release.version}-{digest.hexdigest()[:12]}"


def _cached(release: BrokerRelease, target: Path) -> TrackerBuild | None:
    jars = classpath.listed_jars(target / "classpath.txt")
    if not (target / "classes").is_dir() or jars is None:
        return None
    return TrackerBuild(release.version, target / "classes", jars, 0.0)


def build(version: str | BrokerRelease | None = None) -> TrackerBuild:
    """Compile ``tracker/`` against a release (reused while poms and sources are unchanged).
    Raises ``MavenUnavailable`` (no ``mvn``, no Central) or ``HarnessBuildFailed`` (a compile
    error: a defect, never a skip). O(build) once, O(jars) when cached."""
    release = version if isinstance(version, BrokerRelease) else select_release(version)
    target = build_dir(release)
    found = _cached(release, target)
    if found is not None:
        return found
    t0 = time.perf_counter()
    goals = ["compile", "dependency:build-classpath"]
    classpath.maven_into(target, "sorted-chunks", TRACKER_DIR / "pom.xml", goals, release)
    found = _cached(release, target)
    if found is None:
        log = target.parent / f"maven-sorted-chunks-{release.version}.log"
        raise maven.HarnessBuildFailed(f"Maven left no tracker build for {release.version} ({log})")
    return TrackerBuild(release.version, found.classes, found.jars, time.perf_counter() - t0)


def _write_messages(
    path: Path, ledger: np.ndarray, entry: np.ndarray, deliver_at_ms: np.ndarray, now_ms: np.ndarray
) -> int:
    """SizeCheck's input: four big-endian longs per message. O(messages)."""
    arrays = [np.asarray(a, dtype=np.int64).ravel() for a in (ledger, entry, deliver_at_ms, now_ms)]
    n = arrays[0].size
    if any(a.size != n for a in arrays):
        raise ValueError(f"ledger, entry, deliver_at_ms and now_ms differ in length: "
                         f"{[a.size for a in arrays]}")  # fmt: skip
    rows = np.empty((n, 4), dtype=">i8")
    for i, a in enumerate(arrays):
        rows[:, i] = a
    path.write_bytes(rows.tobytes())
    return n


def _index_size(fields: dict[str, list[list[str]]]) -> IndexSize:
    size, buf, count = fields["size"][0], fields["buffer"][0], fields["count"][0]
    chunks = fields["chunks"][0]
    return IndexSize(
        int(size[0]), int(size[1]), int(size[2]), int(size[3]), int(buf[0]), int(count[0]),
        int(chunks[0]), int(chunks[1]), int(chunks[2]), int(chunks[3]),
        fields.get("classes", [[""]])[0][0],
        tuple(tuple(int(v) for v in row) for row in fields.get("chunk", [])),
        tuple((int(r[0]), int(r[1]), r[2] == "true") for r in fields.get("contains", [])),
        tuple(bytes.fromhex(r[0] if r else "") for r in fields.get("chunkdata", [])),
    )  # fmt: skip


def parse_output(lines: list[str], seconds: float = 0.0) -> SizeCheckResult:
    """SizeCheck's tab-separated lines (see ``SizeCheck.java``); JOL's ``# WARNING`` lines
    before the ``jvm`` line (e.g. "Unable to attach Serviceability Agent" on a loaded machine)
    are skipped. O(lines)."""
    while lines and lines[0].startswith("# "):
        lines = lines[1:]
    if not lines or not lines[0].startswith("jvm\t"):
        raise SizeCheckFailed("SizeCheck printed no 'jvm' line")
    phases: dict[str, dict[str, list[list[str]]]] = {"add": {}, "scheduled": {}}
    tracked = refused = 0
    positions: list[tuple[int, int]] = []
    step_counts: list[int] = []
    step_positions: dict[int, list[tuple[int, int]]] = {}
    for line in lines[1:]:
        f = line.split("\t")
        if f[0] == "step":
            step_counts.append(int(f[2]))
        elif f[0] == "stepposition":
            step_positions.setdefault(int(f[1]), []).append((int(f[2]), int(f[3])))
        elif f[0] == "added":
            tracked, refused = int(f[1]), int(f[2])
        elif f[0] == "position":
            positions.append((int(f[1]), int(f[2])))
        elif f[0] in PHASE_LINES:
            phases[f[1]].setdefault(f[0], []).append(f[2:])
    scheduled = _index_size(phases["scheduled"]) if phases["scheduled"] else None
    return SizeCheckResult(
        lines[0].split("\t", 1)[1], tracked, refused, _index_size(phases["add"]), scheduled,
        tuple(positions) if scheduled is not None else None, seconds,
        tuple((c, tuple(step_positions.get(k, ()))) for k, c in enumerate(step_counts)),
    )  # fmt: skip


def _size_check_args(
    data: Path,
    tick_ms: int,
    strict: bool,
    scheduled: tuple[int, int] | None,
    positions: bool,
    chunks: bool,
    contains: Sequence[tuple[int, int]],
) -> list[str]:
    """SizeCheck's command-line arguments: the messages file, the tick, strictness, then the
    optional ``getScheduledMessages`` call and what to report per phase."""
    args = [str(data), str(int(tick_ms)), "true" if strict else "false"]
    if scheduled is not None:
        args += [str(int(scheduled[0])), str(int(scheduled[1]))]
    if positions:
        args.append("--positions")
    if chunks:
        args.append("--chunks")
    if contains:
        args.append("--contains=" + ",".join(f"{int(led)}:{int(ent)}" for led, ent in contains))
    return args


def size_check(
    built: TrackerBuild,
    ledger: np.ndarray,
    entry: np.ndarray,
    deliver_at_ms: np.ndarray,
    now_ms: np.ndarray,
    tick_ms: int = 1000,
    strict: bool = False,
    scheduled: tuple[int, int] | None = None,
    positions: bool = True,
    chunks: bool = False,
    contains: Sequence[tuple[int, int]] = (),
) -> SizeCheckResult:
    """Replay ``addMessage(ledger, entry, deliverAt)`` per message (the clock at ``now_ms``) on
    a ``SortedChunksTracker`` and measure its index with JOL (a row whose ledger is
    :data:`DISPATCH` runs ``getScheduledMessages(entry)`` at its ``now_ms`` instead, in
    order: :attr:`SizeCheckResult.steps`); ``scheduled=(n, now_ms)`` then
    runs ``getScheduledMessages(n)`` at ``now_ms`` and measures again (``positions``: what it
    returned). ``chunks``: every chunk's fields per phase; ``contains``: ``containsMessage`` of
    these positions per phase. O(messages) in one JVM. Raises ``JavaMissing`` or
    :class:`SizeCheckFailed` (exit 4: a message outside the design's stated limits)."""
    require_java()
    java = java_executable() or "java"
    logs = cache_dir() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / f"sorted-chunks-{built.version}-{os.getpid()}.log"
    with tempfile.TemporaryDirectory(prefix="trackerlab-sorted-chunks-") as tmp:
        data = Path(tmp) / "messages.bin"
        _write_messages(data, ledger, entry, deliver_at_ms, now_ms)
        args = _size_check_args(data, tick_ms, strict, scheduled, positions, chunks, contains)
        cmd = [
            java,
            *harness_runner.jvm_options(),
            "-cp",
            built.class_path(),
            SIZE_CHECK_CLASS,
            *args,
        ]
        t0 = time.perf_counter()
        out, returncode = harness_runner.run_java(cmd, log, RUN_TIMEOUT_S)
    seconds = time.perf_counter() - t0
    if returncode != 0:
        first = log.read_text(errors="replace").strip().splitlines()
        raise SizeCheckFailed(
            f"SizeCheck exited with {returncode}: {first[-1] if first else 'no output'} "
            f"(log: {log})"
        )
    return parse_output(out.decode("utf-8", errors="replace").splitlines(), seconds)
