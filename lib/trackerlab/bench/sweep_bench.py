"""``trackerlab bench sweep``: the Spark sweep engine end to end, its cost per message
against N, and the driver's memory.

Each run is a one-point grid (or a whole profile) swept into a fresh temporary folder by
:func:`trackerlab.spark.sweep_engine.run_sweep`, so the times include task planning, generation,
reduction, the Spark SQL aggregation and writing the result; the session is started once
and its start-up is reported apart. Ratios are within one invocation (the machine may be
shared: other processes change the absolute times, and a note says so).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

from trackerlab.spark.grid import Grid, load_profile, parse_grid


@dataclass
class BenchRun:
    label: str
    messages: int
    points: int
    seconds: float
    task_seconds: float  # summed over Spark tasks: generation and reduction in the workers

    @property
    def s_per_million(self) -> float:
        return self.seconds / (self.messages / 1e6)


def point_grid(
    messages: int,
    rate_per_s: float,
    tick: str | None,
    trim_bits: int | None,
    delay: str,
    batch_size: int,
    engine: str,
) -> Grid:
    raw: dict = {
        "messages": messages,
        "rate_per_s": rate_per_s,
        "delay": delay,
        "batch_size": batch_size,
        "settings": {"engine": engine, "wave_messages": max(messages, 1 << 12)},
    }
    if tick is not None:
        raw["tick_ms"] = tick
    else:
        raw["trim_bits"] = trim_bits
    return parse_grid(raw, f"bench-{messages}", "bench sweep")


def run_bench(
    grids: list[tuple[str, Grid]], master: str | None, log: Callable[[str], None]
) -> tuple[list[BenchRun], float, dict[str, float]]:
    """Sweep each grid into a fresh folder; returns the runs, the session start-up seconds
    and the driver memory report."""
    from trackerlab.spark.session import get_session
    from trackerlab.spark.store import read_sweep
    from trackerlab.spark.sweep_engine import memory_report, run_sweep

    t0 = time.perf_counter()
    spark = get_session(master)
    warm = point_grid(2_000_000, 10_000.0, "1s", None, "uniform:0:1h", 1, "python")
    with tempfile.TemporaryDirectory(prefix="trackerlab-bench-") as out:
        run_sweep(warm, out, spark=spark, log=lambda m: None)  # one task per worker: imports
    startup = time.perf_counter() - t0
    runs = []
    for label, grid in grids:
        with tempfile.TemporaryDirectory(prefix="trackerlab-bench-") as out:
            t1 = time.perf_counter()
            run_sweep(grid, out, spark=spark, log=log)
            seconds = time.perf_counter() - t1
            rows = read_sweep(out).drop_duplicates("point_id")
            runs.append(
                BenchRun(label, grid.messages, len(grid.points), seconds, rows["task_s"].sum())
            )
    return runs, startup, memory_report(spark)


def format_runs(runs: list[BenchRun], startup: float, memory: dict[str, float]) -> str:
    lines = [f"session start-up and warm-up sweep: {startup:.1f} s (not included below)", ""]
    lines.append(
        f"{'run':<34} {'messages':>15} {'points':>6} {'seconds':>9} {'M msg/s':>8} "
        f"{'s per 1e6':>9} {'vs first':>8} {'task s/1e6':>10} {'vs first':>8}"
    )
    base = runs[0].s_per_million if runs else 1.0
    task_base = runs[0].task_seconds / runs[0].messages * 1e6 if runs else 1.0
    for r in runs:
        task = r.task_seconds / r.messages * 1e6
        lines.append(
            f"{r.label:<34} {r.messages:>15,} {r.points:>6} {r.seconds:>9.1f} "
            f"{r.messages / r.seconds / 1e6:>8.2f} {r.s_per_million:>9.3f} "
            f"{r.s_per_million / base:>7.2f}x {task:>10.3f} {task / task_base:>7.2f}x"
        )
    lines.append("")
    lines.append(
        "driver memory: "
        + ", ".join(f"{k.removesuffix('_mib')} {v:,.0f} MiB" for k, v in sorted(memory.items()))
    )
    lines.append(
        "seconds: wall time of the sweep (planning, Spark jobs, writing); task s: CPU seconds "
        "of generation and reduction summed over Spark tasks. Wall times on a shared machine: "
        "other processes on the same cores slow them."
    )
    return "\n".join(lines)


def grids_from_options(
    messages: list[int],
    profile: str | None,
    rate_per_s: float,
    tick: str | None,
    trim_bits: int | None,
    delay: str,
    batch_size: int,
    engine: str,
) -> list[tuple[str, Grid]]:
    if profile:
        grid = load_profile(profile)
        return [(f"profile {profile}", grid)]
    when = f"tick {tick}" if tick is not None else f"{trim_bits} bits"
    return [
        (
            f"{delay}, batch {batch_size}, {when}",
            point_grid(n, rate_per_s, tick, trim_bits, delay, batch_size, engine),
        )
        for n in messages
    ]
