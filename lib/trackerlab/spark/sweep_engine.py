"""Run a sweep grid on Spark: message-level workloads, exact container sizes, one file per point.

Pipeline of one *wave* (consecutive grid points totalling about ``wave_messages``; a larger
point runs alone):

1. **Tasks.** Each point's message range is cut into tasks at ledger boundaries (or, for
   ledgers longer than a task, at 2^16-entry chunk boundaries:
   :func:`~trackerlab.models.time_buckets.reducer.plan_tasks`), so every (bucket, ledger, chunk)
   group is whole inside one task, whatever the delays. One task per core (each task emits
   a row per bucket it touches, so fewer, longer tasks mean fewer rows to aggregate; memory
   stays bounded by the reducer's pieces), at most 2^26 messages each, largest first.
2. **Messages and reduction, inside the engine, shuffle-free.** One Spark task per range:
   - ``engine: python`` (default): ``spark.range(tasks)`` → ``mapInPandas``, where each task
     generates its messages with :meth:`Workload.chunk` (counter-based SplitMix64: identical
     for any partitioning) in entry-aligned pieces and folds them with numpy
     (:class:`~trackerlab.models.time_buckets.reducer.ContentReducer`: sort of packed keys, or
     none for fixed delays, whose buckets follow message order; cardinality and runs per
     chunk; bytes per bitmap);
   - ``engine: sql``: per point, ``spark.range`` over tagged message indices with the message
     columns of :mod:`trackerlab.spark.columns` (publish time, delay and bucket computed by
     Spark SQL, SplitMix64 in signed-long arithmetic) → ``mapInArrow`` into the same reducer.
     Measured slower on 2 cores (1e8 messages, tick 1 s: fixed delay 19.9 s against 4.9 s,
     uniform 0-2 d 34.1 s against 17.6 s; the Arrow transfer of three long columns per
     message costs more than generating them in numpy); kept as the Spark-native generator,
     checked equal by the tests.
   Each task emits long-format rows ``(point, kind, a, b, c, v)``: totals, the ledger count
   of every bucket it touched, and per-bitmap partial sums of ledgers cut by its range.
   No per-group Python call happens anywhere: one numpy pass handles all groups of a piece.
3. **Aggregation in Spark SQL.** One ``groupBy(point, kind, a, b, c)`` sums the rows (the
   only shuffle: a few rows per bucket); partial bitmaps are pivoted and sized by a
   ``mapInPandas`` over whole batches; then per point: totals and the histogram
   "buckets holding k ledgers" (``groupBy(point, k).count()``) reach the driver, whose
   size is O(distinct k), never O(buckets).
4. **Rows.** :func:`trackerlab.spark.rows.design_rows` turns a point's totals
   into one row per design (and JVM shape), written atomically by
   :class:`~trackerlab.spark.store.SweepStore` with provenance columns.

Progress: one log line per stage with messages per second, and while a stage runs, a line
every :data:`PROGRESS_EVERY_S` seconds with its finished tasks.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from trackerlab.core.budget import Estimate
from trackerlab.core.durable import os_error_text
from trackerlab.core.errors import UsageError
from trackerlab.core.interrupts import sigint_watched
from trackerlab.models.time_buckets import aggregates as tba
from trackerlab.models.time_buckets import reducer as bc
from trackerlab.spark.grid import Grid, GridPoint
from trackerlab.spark.store import SweepStore, expected_identities

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

SUM_FIELDS = (*bc.SUM_FIELDS, "task_us")
KIND_SUM, KIND_BUCKET, KIND_PARTIAL, KIND_MIN, KIND_MAX, KIND_HIST = range(6)
ROW_SCHEMA = "point int, kind int, a long, b long, c long, v long"
ROW_COLUMNS = ("point", "kind", "a", "b", "c", "v")
MAX_TASK_MESSAGES = 1 << 26
#: Measured on 2 cores, 1e7 random-delay messages: 8 tasks 4.2 s, 2 tasks 2.6 s.
TASKS_PER_CORE = 1
PROGRESS_EVERY_S = 30.0
#: A cluster wave with no executor for this long is stopped (see _ExecutorWatch);
#: ``$TRACKERLAB_EXECUTOR_LOST_S`` overrides it (tests).
EXECUTOR_LOST_S = float(os.environ.get("TRACKERLAB_EXECUTOR_LOST_S", "20"))
EXECUTOR_POLL_S = 1.0
Log = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- planning


def task_target(messages: int, parallelism: int, setting: int = 0) -> int:
    """Messages per task: the setting, else about :data:`TASKS_PER_CORE` tasks per core."""
    if setting:
        return setting
    per_task = math.ceil(messages / (TASKS_PER_CORE * max(parallelism, 1)))
    return max(1, min(per_task, MAX_TASK_MESSAGES))


def point_tasks(point: GridPoint, target: int) -> list[tuple[int, int]]:
    lm = point.workload.entries_per_ledger * point.workload.batch_size
    return bc.plan_tasks(point.workload.messages, lm, point.workload.batch_size, target)


def plan_waves(points: list[GridPoint], wave_messages: int) -> list[list[GridPoint]]:
    """Consecutive points grouped until a wave holds ``wave_messages`` (or 256 points);
    a point marked ``alone`` gets a wave of its own."""
    waves: list[list[GridPoint]] = []
    current: list[GridPoint] = []
    total = 0
    for p in points:
        full = total + p.workload.messages > wave_messages or len(current) >= 256
        if current and (full or p.alone or current[0].alone):
            waves.append(current)
            current, total = [], 0
        current.append(p)
        total += p.workload.messages
    if current:
        waves.append(current)
    return waves


# --------------------------------------------------------------------------- encoding


def encode_output(point: int, out: bc.ReducerOutput, task_us: int = 0) -> pd.DataFrame:
    """A reducer's output as long-format rows (see the module doc)."""
    totals = {**out.totals, "task_us": task_us}
    parts = [
        _rows(point, KIND_SUM, np.arange(len(SUM_FIELDS)), 0, 0, [totals[f] for f in SUM_FIELDS]),
        _rows(
            point, KIND_MIN, np.arange(len(bc.MIN_FIELDS)), 0, 0, [totals[f] for f in bc.MIN_FIELDS]
        ),
        _rows(
            point, KIND_MAX, np.arange(len(bc.MAX_FIELDS)), 0, 0, [totals[f] for f in bc.MAX_FIELDS]
        ),
        _rows(point, KIND_BUCKET, out.bucket_keys, 0, 0, out.bucket_ledgers),
    ]
    n = len(out.partial_bucket)
    if n:
        for j, f in enumerate(tba.CHUNK_FIELDS):
            parts.append(
                _rows(
                    point,
                    KIND_PARTIAL,
                    out.partial_bucket,
                    out.partial_ledger,
                    j,
                    out.partial_sums[f],
                )
            )
    return pd.concat(parts, ignore_index=True)


def _rows(point: int, kind: int, a: Any, b: Any, c: Any, v: Any) -> pd.DataFrame:
    v = np.asarray(v, dtype=np.int64)
    n = len(v)
    return pd.DataFrame(
        {
            "point": np.full(n, point, dtype=np.int32),
            "kind": np.full(n, kind, dtype=np.int32),
            "a": np.broadcast_to(np.asarray(a, dtype=np.int64), n),
            "b": np.broadcast_to(np.asarray(b, dtype=np.int64), n),
            "c": np.broadcast_to(np.asarray(c, dtype=np.int64), n),
            "v": v,
        }
    )


# --------------------------------------------------------------------------- engines


def python_engine_frame(
    spark: SparkSession, points: list[GridPoint], target: int, piece: int
) -> DataFrame:
    """``spark.range(tasks)`` → ``mapInPandas``: each task generates its message range with
    :meth:`Workload.chunk` and reduces it (tasks from :func:`point_tasks`, largest first)."""
    tasks = [(i, lo, hi) for i, p in enumerate(points) for lo, hi in point_tasks(p, target)]
    tasks.sort(key=lambda t: t[2] - t[1], reverse=True)

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for pdf in batches:
            for task_id in pdf["id"].tolist():
                p, lo, hi = tasks[task_id]
                point = points[p]
                t0 = time.perf_counter()
                out = bc.reduce_range(point.workload, point.trim_bits, point.tick_ms, lo, hi, piece)
                yield encode_output(p, out, int((time.perf_counter() - t0) * 1e6))

    return spark.range(len(tasks), numPartitions=len(tasks)).mapInPandas(run, ROW_SCHEMA)


#: The SQL engine tags each row with ``point << TAG_BITS | message index``.
TAG_BITS = 40


def _tagged_messages(
    spark: SparkSession, points: list[GridPoint], target: int
) -> tuple[DataFrame, list[int]]:
    """The union over points of their tagged message columns (``tag, bucket, delay_ms``),
    each point in partitions of whole ledgers; and each point's partition step."""
    from pyspark.sql import functions as F

    from trackerlab.spark.columns import message_columns

    steps = []
    frames = []
    for p, point in enumerate(points):
        lm = point.workload.entries_per_ledger * point.workload.batch_size
        step = lm * max(1, target // lm)
        parts = -(-point.workload.messages // step)
        off = p << TAG_BITS
        df = spark.range(off, off + parts * step, 1, parts)
        df = df.select(F.col("id").alias("tag"), (F.col("id") - F.lit(off)).alias("id"))
        df = message_columns(
            df.where(F.col("id") < point.workload.messages),
            point.workload,
            point.trim_bits,
            ("tag",),
        )
        frames.append(df.select("tag", "bucket", "delay_ms"))
        steps.append(step)
    return functools.reduce(lambda a, b: a.unionByName(b), frames), steps


def sql_engine_frame(
    spark: SparkSession, points: list[GridPoint], target: int, piece: int
) -> DataFrame:
    """Per point, ``spark.range`` over tagged message indices in partitions of whole ledgers,
    with the message columns of :mod:`trackerlab.spark.columns` computed by Spark SQL; the
    union → ``mapInArrow`` into one reducer per partition range. Rows carry their tag, so the
    consumer finds its point and range from the data (Spark may merge partitions)."""
    union, steps = _tagged_messages(spark, points, target)
    mask = (1 << TAG_BITS) - 1

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        state: dict[str, Any] = {"key": None}

        def flush() -> Iterator[Any]:
            if state["key"] is None:
                return
            _feed(state, final=True)
            out = encode_output(
                state["key"][0],
                state["reducer"].finish(),
                int((time.perf_counter() - state["t0"]) * 1e6),
            )
            yield pa.RecordBatch.from_pandas(out, preserve_index=False)

        for batch in batches:
            tag = batch.column(0).to_numpy()
            cols = (tag, batch.column(1).to_numpy(), batch.column(2).to_numpy())
            p_arr = tag >> TAG_BITS
            index = tag & mask
            task = index // np.array(steps, dtype=np.int64)[p_arr]
            cuts = np.flatnonzero((p_arr[1:] != p_arr[:-1]) | (task[1:] != task[:-1])) + 1
            for a, b in zip(np.r_[0, cuts], np.r_[cuts, len(tag)], strict=True):
                key = (int(p_arr[a]), int(task[a]))
                if key != state["key"]:
                    yield from flush()
                    _start(state, key, points[key[0]], steps[key[0]])
                state["held"].append(tuple(c[a:b] for c in cols))
                state["rows"] += b - a
                if state["rows"] >= piece:
                    _feed(state, final=False)
        yield from flush()

    return union.mapInArrow(run, ROW_SCHEMA)


def _start(state: dict[str, Any], key: tuple[int, int], point: GridPoint, step: int) -> None:
    w = point.workload
    lo = key[1] * step
    hi = min(lo + step, w.messages)
    state.update(
        key=key,
        point=point,
        workload=w,
        held=[],
        rows=0,
        t0=time.perf_counter(),
        reducer=bc.ContentReducer(
            point.trim_bits,
            w.entries_per_ledger * w.batch_size,
            w.start_ledger,
            lo,
            hi,
            w.messages,
            point.tick_ms,
        ),
    )
    empty = np.zeros(0, dtype=np.int64)
    state["reducer"].add(empty, empty, empty, empty, generated=hi - lo)


def _feed(state: dict[str, Any], final: bool) -> None:
    """Hand the held rows to the reducer, up to the last entry boundary unless ``final``;
    ledger and entry come from the message index (``tag``'s low bits)."""
    if not state["held"]:
        return
    tag, bucket, delay = (np.concatenate(c) for c in zip(*state["held"], strict=True))
    w = state["workload"]
    entry_seq = (tag & ((1 << TAG_BITS) - 1)) // w.batch_size
    cut = len(tag)
    if not final:
        change = np.flatnonzero(entry_seq[1:] != entry_seq[:-1])
        cut = int(change[-1]) + 1 if len(change) else 0
    ledger = w.start_ledger + entry_seq[:cut] // w.entries_per_ledger
    state["reducer"].add(bucket[:cut], ledger, entry_seq[:cut] % w.entries_per_ledger, delay[:cut])
    state["held"] = [(tag[cut:], bucket[cut:], delay[cut:])] if cut < len(tag) else []
    state["rows"] = len(tag) - cut


ENGINE_FRAMES = {"python": python_engine_frame, "sql": sql_engine_frame}


# --------------------------------------------------------------------------- aggregation


def _finalize_partials(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """Size bitmaps assembled from partial sums (one row per point, bucket, ledger)."""
    for pdf in batches:
        for p, rows in pdf.groupby("point", sort=False):
            sums = {f: rows[str(j)].to_numpy(np.int64) for j, f in enumerate(tba.CHUNK_FIELDS)}
            out = bc.finish_partials(
                rows["a"].to_numpy(np.int64), rows["b"].to_numpy(np.int64), sums
            )
            yield encode_output(int(cast(int, p)), out)  # groups of the int64 "point" column


@dataclass
class PointResult:
    totals: dict[str, int]
    ledger_counts: np.ndarray
    bucket_counts: np.ndarray


def _summaries(base: DataFrame) -> DataFrame:
    """Per point: the totals (kinds 0, 3, 4 by field) and the histogram of ledgers per
    bucket (kind :data:`KIND_HIST`: ``a`` = ledgers, ``s`` = buckets holding that many)."""
    from pyspark.sql import functions as F

    totals = (
        base.where(F.col("kind").isin(KIND_SUM, KIND_MIN, KIND_MAX))
        .groupBy("point", "kind", "a")
        .agg(F.sum("s").alias("s"), F.min("lo").alias("lo"), F.max("hi").alias("hi"))
    )
    hist = (
        base.where(F.col("kind") == KIND_BUCKET)
        .groupBy("point", "a")
        .agg(F.sum("s").alias("k"))
        .groupBy("point", "k")
        .agg(F.count(F.lit(1)).alias("s"))
        .select(
            "point",
            F.lit(KIND_HIST).alias("kind"),
            F.col("k").alias("a"),
            F.col("s").cast("long").alias("s"),
            F.lit(0).cast("long").alias("lo"),
            F.lit(0).cast("long").alias("hi"),
        )
    )
    return totals.unionByName(hist)


def aggregate(
    frame: DataFrame, n_points: int, log: Log, label: str, messages: int
) -> dict[int, PointResult]:
    """Run the wave's job (one Spark action unless some bitmaps were cut by task ranges) and
    bring each point's totals and ledger histogram to the driver."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    t0 = time.perf_counter()
    grouped = frame.groupBy(*ROW_COLUMNS[:-1]).agg(
        F.sum("v").alias("s"), F.min("v").alias("lo"), F.max("v").alias("hi")
    )
    grouped = grouped.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        base = grouped.where(F.col("kind") != KIND_PARTIAL).select(
            "point", "kind", "a", "s", "lo", "hi"
        )
        partial = grouped.where(F.col("kind") == KIND_PARTIAL)
        partial_count = partial.groupBy("point").agg(
            F.lit(KIND_PARTIAL).alias("kind"),
            F.lit(0).cast("long").alias("a"),
            F.count(F.lit(1)).cast("long").alias("s"),
            F.lit(0).cast("long").alias("lo"),
            F.lit(0).cast("long").alias("hi"),
        )
        rows = _summaries(base).unionByName(partial_count).collect()
        dt = time.perf_counter() - t0
        log(
            f"{label}: generated, reduced and aggregated {messages:,} messages in {dt:.1f} s "
            f"({messages / max(dt, 1e-9) / 1e6:.2f} M msg/s)"
        )
        if any(r["kind"] == KIND_PARTIAL for r in rows):
            t1 = time.perf_counter()
            bitmaps = (
                partial.groupBy("point", "a", "b")
                .pivot("c", list(range(len(tba.CHUNK_FIELDS))))
                .agg(F.first("s"))
            )
            schema_cols = ["point", "a", "b", *[str(j) for j in range(len(tba.CHUNK_FIELDS))]]
            extra = bitmaps.select(*schema_cols).mapInPandas(_finalize_partials, ROW_SCHEMA)
            extra = extra.groupBy("point", "kind", "a").agg(
                F.sum("v").alias("s"), F.min("v").alias("lo"), F.max("v").alias("hi")
            )
            rows = _summaries(base.unionByName(extra)).collect()
            log(f"{label}: sized bitmaps cut by task ranges in {time.perf_counter() - t1:.1f} s")
    finally:
        grouped.unpersist()
    return _point_results(rows, n_points)


def _point_results(rows: list[Any], n_points: int) -> dict[int, PointResult]:
    """Each point's totals (sums, minima, maxima) and ledger histogram from the aggregated
    rows (``point, kind, a, s, lo, hi``); a point without rows keeps the neutral values."""
    results: dict[int, PointResult] = {}
    for p in range(n_points):
        totals = dict.fromkeys(SUM_FIELDS, 0)
        totals |= dict.fromkeys(bc.MIN_FIELDS, np.iinfo(np.int64).max)
        totals |= dict.fromkeys(bc.MAX_FIELDS, np.iinfo(np.int64).min)
        results[p] = PointResult(totals, np.zeros(0, np.int64), np.zeros(0, np.int64))
    hist: dict[int, list[tuple[int, int]]] = {}
    for r in rows:
        t = results[r["point"]].totals
        if r["kind"] == KIND_SUM:
            t[SUM_FIELDS[r["a"]]] = int(r["s"])
        elif r["kind"] == KIND_MIN:
            t[bc.MIN_FIELDS[r["a"]]] = int(r["lo"])
        elif r["kind"] == KIND_MAX:
            t[bc.MAX_FIELDS[r["a"]]] = int(r["hi"])
        elif r["kind"] == KIND_HIST:
            hist.setdefault(r["point"], []).append((int(r["a"]), int(r["s"])))
    for p, pairs in hist.items():
        pairs.sort()
        results[p].ledger_counts = np.array([k for k, _ in pairs], dtype=np.int64)
        results[p].bucket_counts = np.array([c for _, c in pairs], dtype=np.int64)
    return results


# --------------------------------------------------------------------------- progress


class _Progress:
    """Every ``every`` seconds, log the running stages' finished tasks."""

    def __init__(self, spark: SparkSession, log: Log, label: str, every: float) -> None:
        self.tracker = spark.sparkContext.statusTracker()
        self.log, self.label, self.every = log, label, every
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.t0 = time.perf_counter()

    def __enter__(self) -> _Progress:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=5)

    def _run(self) -> None:
        while not self.stop.wait(self.every):
            try:
                parts = []
                for sid in self.tracker.getActiveStageIds():
                    info = self.tracker.getStageInfo(sid)
                    if info:
                        parts.append(f"stage {sid}: {info.numCompletedTasks}/{info.numTasks} tasks")
            except Exception:  # the context is stopping
                return
            if parts:
                elapsed = time.perf_counter() - self.t0
                self.log(f"{self.label}: {', '.join(parts)} after {elapsed:.0f} s")


class ExecutorsLost(RuntimeError):
    """Every executor of a cluster master went away during a wave (a dead worker)."""


class _ExecutorWatch:
    """On a cluster master, cancel the wave's jobs when no executor has been registered for
    :data:`EXECUTOR_LOST_S` seconds: a standalone master whose only worker died otherwise
    leaves the job waiting for resources forever. Nothing to watch in local mode."""

    def __init__(self, spark: SparkSession, group: str) -> None:
        self.sc = spark.sparkContext
        self.group = group
        self.lost = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> _ExecutorWatch:
        master = self.sc.master
        assert master is not None, "a started SparkContext has a master"
        if not master.startswith("local"):
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join(timeout=5)

    def _run(self) -> None:
        since = None
        while not self.stop.wait(EXECUTOR_POLL_S):
            try:
                alive = self.sc._jsc.sc().getExecutorMemoryStatus().size() > 1  # + the driver
            except Exception:  # the context is stopping
                return
            if alive:
                since = None
                continue
            since = since if since is not None else time.monotonic()
            if time.monotonic() - since >= EXECUTOR_LOST_S:
                self.lost.set()
                with contextlib.suppress(Exception):
                    self.sc.cancelJobGroup(self.group)
                return


# --------------------------------------------------------------------------- driver


def memory_report(spark: SparkSession) -> dict[str, float]:
    """Driver memory in MiB: the driver JVM's peak heap (sum of its heap pools' peaks, from
    ``MemoryPoolMXBean``) and peak RSS (``VmHWM`` in /proc, where readable), and this Python
    process's peak RSS (``ru_maxrss``). In local mode the tasks run in that JVM too."""
    out: dict[str, float] = {
        "python_driver_peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    }
    try:
        jvm = spark._jvm
        assert jvm is not None  # no JVM gateway: the AssertionError is caught below
        mf = jvm.java.lang.management.ManagementFactory
        peak = 0
        for pool in mf.getMemoryPoolMXBeans():
            if str(pool.getType()) == "Heap memory":
                peak += pool.getPeakUsage().getUsed()
        out["jvm_heap_peak_mib"] = peak / 2**20
        out["jvm_heap_max_mib"] = mf.getMemoryMXBean().getHeapMemoryUsage().getMax() / 2**20
        pid = int(mf.getRuntimeMXBean().getPid())
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                out["jvm_peak_rss_mib"] = int(line.split()[1]) / 1024
    except Exception:  # remote driver or no /proc: report what we have
        pass
    return out


@dataclass
class SweepSummary:
    out: Path
    points: int
    skipped: int
    messages: int
    seconds: float
    memory: dict[str, float] = field(default_factory=dict)

    def line(self) -> str:
        rate = self.messages / self.seconds / 1e6 if self.seconds else 0.0
        return (
            f"sweep: {self.points} points computed ({self.messages:,} messages, "
            f"{self.seconds:.1f} s, {rate:.2f} M msg/s), {self.skipped} skipped as done; "
            f"results in {self.out}"
        )


def provenance(spark: SparkSession, engine: str) -> dict[str, Any]:
    from trackerlab.core.provenance import git_commit, library_versions

    return {
        "git_commit": git_commit(),
        "library_versions": json.dumps(library_versions(), sort_keys=True),
        "master": spark.sparkContext.master,
        "engine": engine,
        "spark_app_id": spark.sparkContext.applicationId,
    }


def run_wave(
    spark: SparkSession,
    grid: Grid,
    wave: list[GridPoint],
    label: str,
    log: Log = _stderr,
) -> tuple[dict[int, PointResult], float]:
    """Compute one wave; returns per-point results (keyed by position in ``wave``) and the
    wave's wall time."""
    settings = grid.settings
    parallelism = spark.sparkContext.defaultParallelism
    messages = sum(p.workload.messages for p in wave)
    target = task_target(messages, parallelism, settings["task_messages"])
    what = f"[{wave[0].block}] {wave[0].label()}" if len(wave) == 1 else f"{len(wave)} points"
    log(f"{label}: {what}, {messages:,} messages, about {target:,} per task")
    t0 = time.perf_counter()
    frame = ENGINE_FRAMES[settings["engine"]](spark, wave, target, settings["piece_messages"])
    group = f"trackerlab-{label}"
    spark.sparkContext.setJobGroup(group, label, interruptOnCancel=True)
    watch = _ExecutorWatch(spark, group)
    try:
        with watch, _Progress(spark, log, label, PROGRESS_EVERY_S):
            results = aggregate(frame, len(wave), log, label, messages)
    except Exception:
        if watch.lost.is_set():
            raise ExecutorsLost(
                f"no executor left on {spark.sparkContext.master} for {EXECUTOR_LOST_S:.0f} s "
                "(a worker died?)"
            ) from None
        raise
    except KeyboardInterrupt:
        # stop the tasks too, not only the driver (the JVM may be gone already)
        with contextlib.suppress(Exception):
            spark.sparkContext.cancelJobGroup(group)
        raise
    return results, time.perf_counter() - t0


#: Measured engine throughput per core (python engine, 2 cores, 1e8 messages, tick 1 s: fixed
#: delays 4.9 s, uniform 0-2 d 17.6 s; see the module docstring), rounded down: what the cost
#: guard divides a grid's messages by.
FIXED_MSG_PER_S_PER_CORE = 1.0e7
RANDOM_MSG_PER_S_PER_CORE = 2.5e6
STARTUP_S = 20.0
#: Columns that describe how and when a row was computed, not what it measured: they may
#: differ between two runs of the same grid (resumed, another master); every other column
#: is a result and must not.
PROVENANCE_COLUMNS = (
    "git_commit",
    "library_versions",
    "master",
    "engine",
    "spark_app_id",
    "wave_wall_s",
    "wave_points",
    "wave_messages",
    "wall_s",
    "task_s",
    "finished_at",
)


def estimate_sweep(grid: Grid, cores: int | None = None) -> Estimate:
    """Wall time and driver memory of computing ``grid`` on ``cores`` local cores (this
    machine's by default; a cluster is not assumed faster). O(points)."""
    from trackerlab.core.budget import machine_cores

    cores = cores or machine_cores()
    seconds = STARTUP_S
    for p in grid.points:
        fixed = p.workload.delay.kind == "fixed"
        rate = FIXED_MSG_PER_S_PER_CORE if fixed else RANDOM_MSG_PER_S_PER_CORE
        seconds += p.workload.messages / (rate * cores)
    piece = grid.settings["piece_messages"]
    memory = (3 << 30) + cores * (piece * 96 + (256 << 20))  # driver heap + Python workers
    what = f"sweep {grid.name} ({len(grid.points):,} points, {grid.messages:,} messages)"
    return Estimate(what, seconds, memory)


def _local_cores(master: str | None) -> int | None:
    """Threads of a ``local[N]`` master (None: this machine's cores)."""
    if master and master.startswith("local[") and master[6:].split("]")[0].split(",")[0].isdigit():
        return int(master[6:].split("]")[0].split(",")[0])
    return None


def _failure_line(exc: BaseException, where: str, store: SweepStore, kept: int) -> UsageError:
    """One line for Spark failing mid-sweep; the traceback and Java stack go to the log."""
    from trackerlab.spark.session import log_failure

    reason, log_path = log_failure(exc, where)
    from pyspark import SparkContext

    proc = getattr(SparkContext._gateway, "proc", None)
    if proc is not None:
        # a killed JVM closes its socket before the kernel reaps it: give it a moment, or the
        # line names py4j's broken call instead of the exit (a failure path: 2 s at most)
        with contextlib.suppress(subprocess.TimeoutExpired):
            reason = f"the Spark driver JVM exited with code {proc.wait(timeout=2.0)}"
    return UsageError(
        f"Spark failed in {where} ({reason}); {kept} finished points are kept in "
        f"{store.root}, re-run to resume; details in {log_path}"
    )


def _todo_within_budget(
    grid: Grid,
    store: SweepStore,
    keys: dict[str, GridPoint],
    expect: dict[str, dict[str, Any]],
    master: str | None,
    allow_large: bool,
) -> tuple[set[str], list[GridPoint]]:
    """The points done and those still to compute (read-only, before any session); the
    latter refused in one line when their estimated cost exceeds the machine unless
    ``allow_large``."""
    from trackerlab.core.budget import check as check_budget

    done = store.completed(keys, expect=expect)  # read-only: is a session needed at all?
    todo = [p for p in grid.points if p.key not in done]
    if todo:
        check_budget(
            estimate_sweep(
                Grid(grid.name, grid.source, "", 0, tuple(todo), grid.settings),
                _local_cores(master),
            ),
            allow_large,
        )
    return done, todo


def _run_wave_or_one_line(
    spark: SparkSession,
    grid: Grid,
    wave: list[GridPoint],
    label: str,
    log: Log,
    store: SweepStore,
    kept: int,
) -> tuple[dict[int, PointResult], float]:
    """:func:`run_wave` with Ctrl-C kept as such and a Spark failure turned into one line
    naming the ``kept`` finished points."""
    with sigint_watched() as interrupted:
        try:
            return run_wave(spark, grid, wave, label, log)
        except (UsageError, KeyboardInterrupt):
            raise
        except Exception as exc:  # Spark died, a worker was lost, the JVM is gone
            if interrupted():  # Ctrl-C inside a py4j call: "Answer ... is empty"
                raise KeyboardInterrupt from None
            raise _failure_line(exc, label, store, kept) from None


def _write_point(
    store: SweepStore,
    grid: Grid,
    point: GridPoint,
    res: PointResult,
    prov: dict[str, Any],
    wall: float,
    wave_points: int,
    wave_messages: int,
) -> None:
    """Write one computed point's design rows with their provenance and timing columns."""
    from trackerlab.spark.rows import design_rows

    agg = bc.histogram_aggregates(res.totals, res.ledger_counts, res.bucket_counts)
    extra = {
        **prov,
        "root_seed": grid.root_seed,
        "grid_name": grid.name,
        "wave_wall_s": wall,
        "wave_points": wave_points,
        "wave_messages": wave_messages,
        "wall_s": wall * point.workload.messages / wave_messages,
        "task_s": res.totals["task_us"] / 1e6,
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    rows = [{**row, **extra} for row in design_rows(point, res.totals, agg)]
    store.write_point(
        point.key,
        rows,
        {"grid_row": point.grid_row, "label": point.label(), "wall_s": extra["wall_s"]},
    )


def _adopt_and_announce(
    store: SweepStore,
    grid: Grid,
    keys: dict[str, GridPoint],
    done: set[str],
    expect: dict[str, dict[str, Any]],
    log: Log,
) -> list[GridPoint]:
    """Adopt the points found done, say what is left, write the grid; the points to compute."""
    store.adopt(done, expect)
    todo = [p for p in grid.points if p.key not in done]
    log(
        f"sweep {grid.name}: {len(grid.points)} points, {grid.messages:,} messages; "
        f"{len(done)} done already, {len(todo)} to compute -> {store.root}"
    )
    # also when nothing is left: a grid that dropped points must stop reading them
    store.write_grid(grid.to_pandas(), grid.name, grid.source, list(keys))
    return todo


@dataclass
class _Written:
    """Points written by this run so far (what a failure says is kept)."""

    points: int = 0


def _compute_wave(
    spark: SparkSession,
    grid: Grid,
    wave: list[GridPoint],
    label: str,
    log: Log,
    store: SweepStore,
    prov: dict[str, Any],
    done: int,
    written: _Written,
) -> int:
    """Compute one wave, write its points (counted in ``written`` one by one) and log its
    rate; the wave's messages."""
    kept = done + written.points
    results, wall = _run_wave_or_one_line(spark, grid, wave, label, log, store, kept)
    wave_messages = sum(p.workload.messages for p in wave)
    for i, point in enumerate(wave):
        _write_point(store, grid, point, results[i], prov, wall, len(wave), wave_messages)
        written.points += 1
    log(
        f"{label}: wrote {len(wave)} points in {wall:.1f} s "
        f"({wave_messages / wall / 1e6:.2f} M msg/s end to end)"
    )
    return wave_messages


def run_sweep(
    grid: Grid,
    out: str | Path,
    master: str | None = None,
    spark: SparkSession | None = None,
    log: Log = _stderr,
    allow_large: bool = False,
) -> SweepSummary:
    """Compute every point of ``grid`` not yet in ``out`` and write one file per point.

    Refuses (one line) a grid whose estimated cost exceeds the machine unless
    ``allow_large`` (:mod:`trackerlab.core.budget`); Spark failing mid-run, a full disk or a
    damaged folder end with one line, every finished point kept.
    """
    from trackerlab.spark.session import get_session

    store = SweepStore(out)
    store.check_writable()
    if not grid.points:
        raise UsageError(f"{grid.source}: the grid has no points")
    keys = {p.key: p for p in grid.points}
    expect = expected_identities(grid.points)
    done, todo = _todo_within_budget(grid, store, keys, expect, master, allow_large)
    t0 = time.perf_counter()
    if todo:  # first the session: a bad master fails before anything is printed or written
        spark = spark or get_session(master)
    store.lock()
    written = _Written()
    try:
        done = store.completed(keys, log, expect)  # again under the lock, saying what is damaged
        todo = _adopt_and_announce(store, grid, keys, done, expect, log)
        if not todo:
            return SweepSummary(store.root, 0, len(done), 0, 0.0)
        spark = spark or get_session(master)
        prov = provenance(spark, grid.settings["engine"])
        waves = plan_waves(todo, grid.settings["wave_messages"])
        computed = 0
        for w, wave in enumerate(waves, 1):
            label = f"wave {w}/{len(waves)}"
            computed += _compute_wave(
                spark, grid, wave, label, log, store, prov, len(done), written
            )
        summary = SweepSummary(
            store.root,
            len(todo),
            len(done),
            computed,
            time.perf_counter() - t0,
            memory_report(spark),
        )
    except OSError as exc:  # a full disk, a folder made read-only mid-run
        kept = len(done) + written.points
        raise UsageError(
            f"sweep: cannot write {os_error_text(exc)}; {kept} finished points are kept in "
            f"{store.root}, re-run to resume"
        ) from None
    finally:
        store.unlock()
    log(summary.line())
    return summary
