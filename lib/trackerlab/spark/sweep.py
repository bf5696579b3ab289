"""Run a sweep grid on Spark: message-level workloads, exact container sizes, one file per point.

Pipeline of one *wave* (consecutive grid points totalling about ``wave_messages``; a larger
point runs alone):

1. **Tasks.** Each point's message range is cut into tasks at ledger boundaries (or, for
   ledgers longer than a task, at 2^16-entry chunk boundaries:
   :func:`~trackerlab.models.bucket_content.plan_tasks`), so every (bucket, ledger, chunk)
   group is whole inside one task, whatever the delays. About 4 tasks per core, largest
   first, at most 2^26 messages each.
2. **Messages and reduction, inside the engine, shuffle-free.** One Spark task per range:
   - ``engine: python`` (default): ``spark.range(tasks)`` → ``mapInPandas``, where each task
     generates its messages with :meth:`Workload.chunk` (counter-based SplitMix64: identical
     for any partitioning) in entry-aligned pieces and folds them with numpy
     (:class:`~trackerlab.models.bucket_content.ContentReducer`: sort of packed keys, or
     none for fixed delays, whose buckets follow message order; cardinality and runs per
     chunk; bytes per bitmap);
   - ``engine: sql``: the union of ``spark.range(lo, hi)`` per task with the message columns
     of :mod:`trackerlab.spark.columns` (publish time, ledger, entry, delay, bucket computed
     by Spark SQL, SplitMix64 in signed-long arithmetic) → ``mapInArrow`` into the same
     reducer. Measured slower here (Arrow transfer of four long columns); kept as the
     Spark-native generator and for equality tests.
   Each task emits long-format rows ``(point, kind, a, b, c, v)``: totals, the ledger count
   of every bucket it touched, and per-bitmap partial sums of ledgers cut by its range.
   No per-group Python call happens anywhere: one numpy pass handles all groups of a piece.
3. **Aggregation in Spark SQL.** One ``groupBy(point, kind, a, b, c)`` sums the rows (the
   only shuffle: a few rows per bucket); partial bitmaps are pivoted and sized by a
   ``mapInPandas`` over whole batches; then per point: totals and the histogram
   "buckets holding k ledgers" (``groupBy(point, k).count()``) reach the driver, whose
   size is O(distinct k), never O(buckets).
4. **Rows.** :func:`trackerlab.experiments.sweep_rows.design_rows` turns a point's totals
   into one row per design (and JVM shape), written atomically by
   :class:`~trackerlab.spark.store.SweepStore` with provenance columns.

Progress: one log line per stage with messages per second, and while a stage runs, a line
every :data:`PROGRESS_EVERY_S` seconds with its finished tasks.
"""

from __future__ import annotations

import functools
import json
import math
import resource
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from trackerlab.errors import UsageError
from trackerlab.models import bucket_content as bc
from trackerlab.models import time_bucket_aggregates as tba
from trackerlab.spark.grid import Grid, GridPoint
from trackerlab.spark.store import SweepStore

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

SUM_FIELDS = (*bc.SUM_FIELDS, "task_us")
KIND_SUM, KIND_BUCKET, KIND_PARTIAL, KIND_MIN, KIND_MAX = range(5)
ROW_SCHEMA = "point int, kind int, a long, b long, c long, v long"
ROW_COLUMNS = ("point", "kind", "a", "b", "c", "v")
MAX_TASK_MESSAGES = 1 << 26
TASKS_PER_CORE = 4
PROGRESS_EVERY_S = 30.0
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
    lm = point.entries_per_ledger * point.batch_size
    return bc.plan_tasks(point.messages, lm, point.batch_size, target)


def plan_waves(points: list[GridPoint], wave_messages: int) -> list[list[GridPoint]]:
    """Consecutive points grouped until a wave holds ``wave_messages`` (or 256 points)."""
    waves: list[list[GridPoint]] = []
    current: list[GridPoint] = []
    total = 0
    for p in points:
        if current and (total + p.messages > wave_messages or len(current) >= 256):
            waves.append(current)
            current, total = [], 0
        current.append(p)
        total += p.messages
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
    spark: SparkSession, points: list[GridPoint], tasks: list[tuple[int, int, int]], piece: int
) -> DataFrame:
    """``spark.range(len(tasks))`` → ``mapInPandas``: each task generates and reduces its
    message range (``tasks[i] = (point index, lo, hi)``)."""

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for pdf in batches:
            for task_id in pdf["id"].tolist():
                p, lo, hi = tasks[task_id]
                point = points[p]
                t0 = time.perf_counter()
                out = bc.reduce_range(
                    point.workload(), point.trim_bits, point.tick_ms, lo, hi, piece
                )
                yield encode_output(p, out, int((time.perf_counter() - t0) * 1e6))

    return spark.range(len(tasks), numPartitions=len(tasks)).mapInPandas(run, ROW_SCHEMA)


def sql_engine_frame(
    spark: SparkSession, points: list[GridPoint], tasks: list[tuple[int, int, int]], piece: int
) -> DataFrame:
    """The union of one ``spark.range(lo, hi)`` per task with Spark SQL message columns →
    ``mapInArrow`` into the reducer (partition ``i`` of the union is task ``i``)."""
    from pyspark.sql import DataFrame as SparkDataFrame

    from trackerlab.spark.columns import messages_frame

    frames = [
        messages_frame(spark, points[p].workload(), points[p].trim_bits, lo, hi, 1).select(
            "bucket", "ledger", "entry", "delay_ms"
        )
        for p, lo, hi in tasks
    ]
    union = functools.reduce(SparkDataFrame.unionAll, frames)

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa
        from pyspark import TaskContext

        task_id = TaskContext.get().partitionId()
        p, lo, hi = tasks[task_id]
        point = points[p]
        w = point.workload()
        t0 = time.perf_counter()
        reducer = bc.ContentReducer(
            point.trim_bits,
            w.entries_per_ledger * w.batch_size,
            w.start_ledger,
            lo,
            hi,
            w.messages,
            point.tick_ms,
        )
        reducer.add(*(np.zeros(0, dtype=np.int64),) * 4, generated=hi - lo)
        held: list[list[np.ndarray]] = []
        rows = 0
        for batch in batches:
            cols = [batch.column(i).to_numpy() for i in range(4)]
            held.append(cols)
            rows += len(cols[0])
            if rows >= piece:
                b, led, e, d = (np.concatenate(c) for c in zip(*held, strict=True))
                cut = _last_entry_start(led, e)
                reducer.add(b[:cut], led[:cut], e[:cut], d[:cut])
                held = [[b[cut:], led[cut:], e[cut:], d[cut:]]]
                rows = len(e) - cut
        if rows:
            b, led, e, d = (np.concatenate(c) for c in zip(*held, strict=True))
            reducer.add(b, led, e, d)
        out = encode_output(p, reducer.finish(), int((time.perf_counter() - t0) * 1e6))
        yield pa.RecordBatch.from_pandas(out, preserve_index=False)

    return union.mapInArrow(run, ROW_SCHEMA)


def _last_entry_start(ledger: np.ndarray, entry: np.ndarray) -> int:
    """Index where the last (ledger, entry) run of the arrays starts (0 if there is one)."""
    change = np.flatnonzero((ledger[1:] != ledger[:-1]) | (entry[1:] != entry[:-1]))
    return int(change[-1]) + 1 if len(change) else 0


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
            yield encode_output(int(p), out)


@dataclass
class PointResult:
    totals: dict[str, int]
    ledger_counts: np.ndarray
    bucket_counts: np.ndarray


def aggregate(
    frame: DataFrame, n_points: int, log: Log, label: str, messages: int
) -> dict[int, PointResult]:
    """Run the wave's job and bring each point's totals and ledger histogram to the driver."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    t0 = time.perf_counter()
    grouped = frame.groupBy(*ROW_COLUMNS[:-1]).agg(
        F.sum("v").alias("s"), F.min("v").alias("lo"), F.max("v").alias("hi")
    )
    grouped = grouped.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        rows = grouped.count()
        dt = time.perf_counter() - t0
        log(
            f"{label}: generated and reduced {messages:,} messages in {dt:.1f} s "
            f"({messages / max(dt, 1e-9) / 1e6:.2f} M msg/s); {rows:,} aggregate rows"
        )
        t1 = time.perf_counter()
        partial = grouped.where(F.col("kind") == KIND_PARTIAL)
        base = grouped.where(F.col("kind") != KIND_PARTIAL).select(
            "point", "kind", "a", "s", "lo", "hi"
        )
        if partial.limit(1).count():
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
            base = base.unionByName(extra)
        totals_rows = (
            base.where(F.col("kind").isin(KIND_SUM, KIND_MIN, KIND_MAX))
            .groupBy("point", "kind", "a")
            .agg(F.sum("s").alias("s"), F.min("lo").alias("lo"), F.max("hi").alias("hi"))
            .collect()
        )
        hist_rows = (
            base.where(F.col("kind") == KIND_BUCKET)
            .groupBy("point", "a")
            .agg(F.sum("s").alias("k"))
            .groupBy("point", "k")
            .count()
            .collect()
        )
        log(f"{label}: aggregated per point in {time.perf_counter() - t1:.1f} s")
    finally:
        grouped.unpersist()
    results: dict[int, PointResult] = {}
    for p in range(n_points):
        totals = dict.fromkeys(SUM_FIELDS, 0)
        totals |= dict.fromkeys(bc.MIN_FIELDS, np.iinfo(np.int64).max)
        totals |= dict.fromkeys(bc.MAX_FIELDS, np.iinfo(np.int64).min)
        results[p] = PointResult(totals, np.zeros(0, np.int64), np.zeros(0, np.int64))
    for r in totals_rows:
        t = results[r["point"]].totals
        if r["kind"] == KIND_SUM:
            t[SUM_FIELDS[r["a"]]] = int(r["s"])
        elif r["kind"] == KIND_MIN:
            t[bc.MIN_FIELDS[r["a"]]] = int(r["lo"])
        else:
            t[bc.MAX_FIELDS[r["a"]]] = int(r["hi"])
    hist: dict[int, list[tuple[int, int]]] = {}
    for r in hist_rows:
        hist.setdefault(r["point"], []).append((int(r["k"]), int(r["count"])))
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


# --------------------------------------------------------------------------- driver


def memory_report(spark: SparkSession) -> dict[str, float]:
    """Driver memory in MiB: the driver JVM's peak heap (sum of its heap pools' peaks, from
    ``MemoryPoolMXBean``) and peak RSS (``VmHWM`` in /proc, where readable), and this Python
    process's peak RSS (``ru_maxrss``). In local mode the tasks run in that JVM too."""
    out: dict[str, float] = {
        "python_driver_peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    }
    try:
        mf = spark._jvm.java.lang.management.ManagementFactory
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
    from trackerlab.provenance import git_commit, library_versions

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
    messages = sum(p.messages for p in wave)
    target = task_target(messages, parallelism, settings["task_messages"])
    tasks = [(i, lo, hi) for i, p in enumerate(wave) for lo, hi in point_tasks(p, target)]
    tasks.sort(key=lambda t: t[2] - t[1], reverse=True)  # largest first: better packing
    log(f"{label}: {len(wave)} points, {messages:,} messages, {len(tasks)} tasks")
    t0 = time.perf_counter()
    frame = ENGINE_FRAMES[settings["engine"]](spark, wave, tasks, settings["piece_messages"])
    spark.sparkContext.setJobGroup(f"trackerlab-{label}", label, interruptOnCancel=True)
    with _Progress(spark, log, label, PROGRESS_EVERY_S):
        results = aggregate(frame, len(wave), log, label, messages)
    return results, time.perf_counter() - t0


def run_sweep(
    grid: Grid,
    out: str | Path,
    master: str | None = None,
    spark: SparkSession | None = None,
    log: Log = _stderr,
) -> SweepSummary:
    """Compute every point of ``grid`` not yet in ``out`` and write one file per point."""
    from trackerlab.experiments.sweep_rows import design_rows
    from trackerlab.spark.session import get_session

    store = SweepStore(out)
    store.check_writable()
    if not grid.points:
        raise UsageError(f"{grid.source}: the grid has no points")
    keys = {p.key: p for p in grid.points}
    done = store.completed(keys)
    todo = [p for p in grid.points if p.key not in done]
    log(
        f"sweep {grid.name}: {len(grid.points)} points, {grid.messages:,} messages; "
        f"{len(done)} done already, {len(todo)} to compute -> {store.root}"
    )
    t0 = time.perf_counter()
    if not todo:
        return SweepSummary(store.root, 0, len(done), 0, 0.0)
    spark = spark or get_session(master)
    store.lock()
    try:
        store.write_grid(grid.to_pandas(), grid.name, grid.source)
        prov = provenance(spark, grid.settings["engine"])
        waves = plan_waves(todo, grid.settings["wave_messages"])
        computed = 0
        for w, wave in enumerate(waves, 1):
            label = f"wave {w}/{len(waves)}"
            results, wall = run_wave(spark, grid, wave, label, log)
            wave_messages = sum(p.messages for p in wave)
            for i, point in enumerate(wave):
                res = results[i]
                agg = bc.histogram_aggregates(res.totals, res.ledger_counts, res.bucket_counts)
                extra = {
                    **prov,
                    "root_seed": grid.root_seed,
                    "grid_name": grid.name,
                    "wave_wall_s": wall,
                    "wave_points": len(wave),
                    "wave_messages": wave_messages,
                    "wall_s": wall * point.messages / wave_messages,
                    "task_s": res.totals["task_us"] / 1e6,
                    "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                }
                rows = [{**row, **extra} for row in design_rows(point, res.totals, agg)]
                store.write_point(
                    point.key,
                    rows,
                    {"grid_row": point.grid_row, "label": point.label(), "wall_s": extra["wall_s"]},
                )
            computed += wave_messages
            log(
                f"{label}: wrote {len(wave)} points in {wall:.1f} s "
                f"({wave_messages / wall / 1e6:.2f} M msg/s end to end)"
            )
        summary = SweepSummary(
            store.root,
            len(todo),
            len(done),
            computed,
            time.perf_counter() - t0,
            memory_report(spark),
        )
    finally:
        store.unlock()
    log(summary.line())
    return summary
