"""``trackerlab bench plan``: the planner against the method the seeds used.

The seeds built the real Java structure message by message and measured it. For a steady
state holding ``N`` entries of the time-bucketed delayed index (tick 1 s; a fixed delay of
1 h, or delays uniform over 0-2 h, at ``N / 1 h`` entries per second; 50,000 entries per
ledger) this bench times, in one run:

- the planner's fast answer (closed forms and sampled buckets, then the catalog's sizing);
- the ``--exact`` single-process path (every entry generated and folded by the reducer);
- a JVM building ``Long2ObjectAVLTreeMap<Long2ObjectOpenHashMap<Roaring64Bitmap>>`` by
  ``addLong`` for the same stream (``bench/java/PlanBench.java``, compiled once with
  ``javac`` like jvm-check's agent; the loop is timed inside the JVM, no py4j in it; the
  whole process is timed too).

It prints the times and the ratios JVM / planner and JVM / exact. The goals: the planner at
least 100x faster than the JVM loop, the exact path no slower than it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from trackerlab.catalog import CATALOG
from trackerlab.core.java_runtime import java_executable
from trackerlab.core.paths import cache_dir
from trackerlab.jvmcheck.probe import (
    ProbeBuildFailed,
    ProbeMissing,
    ProbeUnavailable,
    fastutil_jar,
    javac_executable,
    pyspark_jars,
)
from trackerlab.planner.snapshot import exact_counts, fast_counts
from trackerlab.planner.streams import TrackedStream
from trackerlab.sizing.jvm import COMPRESSED
from trackerlab.workloads.delay_spec import DelaySpec

HOUR_MS = 3_600_000
TICK_MS = 1000
ENTRIES_PER_LEDGER = 50_000
#: ``(kind, delay spec, JVM delay arguments)``: both hold N entries at N / 1 h per ms.
DELAYS = (
    ("fixed", "fixed:1h", ("fixed", HOUR_MS)),
    ("uniform", "uniform:0:2h", ("uniform", 2 * HOUR_MS)),
)


@dataclass
class PlanBenchRow:
    kind: str
    entries: int
    planner_s: float
    exact_s: float | None
    jvm_loop_s: float | None
    jvm_process_s: float | None
    jvm_entries: int | None
    planner_bytes: int
    exact_bytes: int | None

    @property
    def jvm_over_planner(self) -> float | None:
        return self.jvm_loop_s / self.planner_s if self.jvm_loop_s else None

    @property
    def jvm_over_exact(self) -> float | None:
        return self.jvm_loop_s / self.exact_s if self.jvm_loop_s and self.exact_s else None


def _source() -> Path:
    return Path(__file__).resolve().parent / "java" / "PlanBench.java"


def _classpath() -> str:
    jar = fastutil_jar()
    if jar is None:
        raise ProbeMissing(
            "the fastutil jar is missing (Debian: apt-get install libfastutil-java, or set "
            "TRACKERLAB_FASTUTIL_JAR)"
        )
    roaring = sorted(pyspark_jars().glob("RoaringBitmap-*.jar"))
    return os.pathsep.join([str(jar), *map(str, roaring)])


def compiled_bench() -> Path:
    """Compile ``PlanBench.java`` once per source and JDK; return the classes folder."""
    javac = javac_executable()
    if javac is None:
        raise ProbeMissing(
            "javac not found: install a JDK (apt-get install openjdk-17-jdk-headless)"
        )
    text = _source().read_bytes()
    version = subprocess.run([javac, "-version"], capture_output=True, text=True).stdout
    digest = hashlib.sha256(text + version.encode() + _classpath().encode()).hexdigest()[:16]
    target = cache_dir() / "java" / f"planbench-{digest}"
    if (target / "PlanBench.class").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="planbench-", dir=target.parent))
    try:
        proc = subprocess.run(
            [javac, "-nowarn", "-d", str(work), "-cp", _classpath(), str(_source())],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise ProbeBuildFailed(f"javac failed: {proc.stderr.strip().splitlines()[0]}")
        with contextlib.suppress(OSError):  # another process finished first
            work.rename(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def jvm_run(
    rate_per_ms: float, window_ms: int, jvm_delay: tuple[str, int]
) -> tuple[float, float, int]:
    """``(loop seconds, whole-process seconds, entries held)`` of one JVM build."""
    java = java_executable()
    if java is None:
        raise ProbeMissing("java not found")
    classes = compiled_bench()
    cmd = [
        java,
        "-Xmx12g",
        "-cp",
        os.pathsep.join([str(classes), _classpath()]),
        "PlanBench",
        repr(rate_per_ms),
        str(window_ms),
        jvm_delay[0],
        str(jvm_delay[1]),
        str(TICK_MS),
        str(ENTRIES_PER_LEDGER),
    ]
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    process_s = time.perf_counter() - started
    match = re.search(r"entries=(\d+) buckets=\d+ loop_ms=([0-9.]+)", proc.stdout)
    if proc.returncode != 0 or match is None:
        tail = (proc.stderr or proc.stdout).strip().splitlines()
        raise ProbeUnavailable(f"the JVM build failed: {tail[-1] if tail else proc.returncode}")
    return float(match.group(2)) / 1000, process_s, int(match.group(1))


def bench_plan(
    entries: tuple[int, ...] = (10_000_000, 100_000_000),
    exact_up_to: int = 100_000_000,
    jvm: bool = True,
    log=print,
) -> list[PlanBenchRow]:
    """Time the three ways for every (delay kind, N); ``exact_up_to`` skips larger exact runs."""
    design = CATALOG["time-buckets"]
    rows = []
    for n in entries:
        for kind, spec, jvm_delay in DELAYS:
            rate = n / HOUR_MS
            stream = TrackedStream(
                rate, 1.0, DelaySpec.parse(spec), ENTRIES_PER_LEDGER, 9, TICK_MS, TICK_MS
            )
            fast_counts(stream)  # warm caches (layout tables) outside the timing
            started = time.perf_counter()
            counts, t = fast_counts(stream)
            planned = design.size_from_counts(counts, None, COMPRESSED)
            planner_s = time.perf_counter() - started
            assert planned.jvm_bytes is not None  # time buckets always size the JVM column
            exact_s = exact_bytes = None
            if n <= exact_up_to:
                log(f"  exact {kind} {n:,} ...")
                started = time.perf_counter()
                exact = design.size_from_counts(exact_counts(stream)[0], None, COMPRESSED)
                exact_s = time.perf_counter() - started
                exact_bytes = exact.jvm_bytes
            loop_s = process_s = jvm_entries = None
            if jvm:
                log(f"  JVM {kind} {n:,} ...")
                window = round(t + 0)  # the JVM publishes from 0 to the planner's snapshot time
                loop_s, process_s, jvm_entries = jvm_run(rate, window, jvm_delay)
            rows.append(
                PlanBenchRow(
                    kind,
                    n,
                    planner_s,
                    exact_s,
                    loop_s,
                    process_s,
                    jvm_entries,
                    planned.jvm_bytes,
                    exact_bytes,
                )
            )
    return rows


def format_rows(rows: list[PlanBenchRow]) -> str:
    head = (
        f"{'delays':8} {'entries':>12} {'planner s':>10} {'exact s':>9} {'JVM loop s':>11} "
        f"{'JVM proc s':>11} {'JVM/planner':>12} {'JVM/exact':>10} {'planner MiB':>12} {'exact MiB':>10}"
    )
    out = [head]
    for r in rows:

        def f(x, fmt):
            return format(x, fmt) if x is not None else "-"

        out.append(
            f"{r.kind:8} {r.entries:>12,} {r.planner_s:>10.3f} {f(r.exact_s, '>9.2f')} "
            f"{f(r.jvm_loop_s, '>11.2f')} {f(r.jvm_process_s, '>11.2f')} {f(r.jvm_over_planner, '>12.0f')} "
            f"{f(r.jvm_over_exact, '>10.2f')} {r.planner_bytes / 2**20:>12.1f} "
            f"{f(r.exact_bytes / 2**20 if r.exact_bytes else None, '>10.1f')}"
        )
    return "\n".join(out)
