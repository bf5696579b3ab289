"""Benchmark of the receiver-queue simulators: 60 s of traffic at 20,000 msg/s, both engines.

The goal (issue 15) is 1.2 M messages simulated in at most 3 s as a whole process (the
first engine took 9-10 s). Each case runs the modelled harness
(:func:`trackerlab.models.receiver_queue.simulate`: batch entries, O(entries + Flows))
and the legacy per-message engine (:mod:`trackerlab.models.receiver_queue.legacy`, its
fitted timing, one message per entry) on the same nominal traffic in one process, and
prints both wall times and their ratio. Measured, never asserted.

A case **fails** when the application stops consuming (nothing taken in the last 10% of
the run) or falls behind by more than one second of traffic: a simulator that stalls is
not fast, it is wrong.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from trackerlab.models.receiver_queue import HarnessConfig, simulate
from trackerlab.models.receiver_queue.legacy import (
    FITTED_TIMING,
    ReceiverQueueConfig,
    simulate_legacy,
)

__all__ = ["BenchRow", "bench_cases", "format_bench", "run_bench"]

#: A case keeps up when its lag stays under this many seconds of traffic.
MAX_LAG_S = 1.0


@dataclass(frozen=True)
class BenchRow:
    case: str
    produced: int
    consumed: int
    wall_s: float
    legacy_produced: int | None
    legacy_consumed: int | None
    legacy_wall_s: float | None
    stalled: bool
    lag_s: float
    legacy_lag_s: float | None

    @property
    def ratio(self) -> float | None:
        """Legacy wall time / harness wall time (how many times faster)."""
        if self.legacy_wall_s is None or self.wall_s <= 0:
            return None
        return self.legacy_wall_s / self.wall_s

    @property
    def ok(self) -> bool:
        return not self.stalled and self.lag_s <= MAX_LAG_S

    @property
    def legacy_ok(self) -> bool | None:
        if self.legacy_consumed is None or self.legacy_lag_s is None:
            return None
        return self.legacy_lag_s <= MAX_LAG_S


def bench_cases(
    rate: float = 20_000, duration_s: float = 60
) -> list[tuple[str, HarnessConfig, ReceiverQueueConfig]]:
    """The benchmarked configurations: Go and Java, one and three partitions, and a fixed
    queue of 1,000 (the case where every message certainly flows)."""
    cases = []
    for client, partitions, auto in [
        ("go", 1, False),
        ("go", 1, True),
        ("go", 3, True),
        ("java", 1, True),
        ("java", 3, True),
    ]:
        cfg = HarnessConfig(
            client=client,
            rate=rate,
            partitions=partitions,
            auto_scale=auto,
            duration_s=duration_s,
        )
        legacy = ReceiverQueueConfig(
            client=client,
            rate=1e6 if client == "go" else rate,  # Go perf consumer: unthrottled
            partitions=partitions,
            auto_scale=auto,
            producer_rate=rate,
            duration_s=duration_s,
            **FITTED_TIMING[client],
        )
        name = f"{client} {'auto' if auto else 'fixed 1000'} x{partitions}"
        cases.append((name, cfg, legacy))
    return cases


def run_bench(rate: float = 20_000, duration_s: float = 60, legacy: bool = True) -> list[BenchRow]:
    """Run every case once with each engine (``legacy=False``: the harness only)."""
    rows = []
    for name, cfg, old in bench_cases(rate, duration_s):
        start = time.perf_counter()
        result = simulate(cfg)
        wall = time.perf_counter() - start
        lp = lc = lw = llag = None
        if legacy:
            start = time.perf_counter()
            old_result = simulate_legacy(old)
            lw = time.perf_counter() - start
            lp, lc = old_result.produced or 0, old_result.consumed
            llag = (lp - lc) / rate
        rows.append(
            BenchRow(
                name,
                result.produced,
                result.consumed,
                wall,
                lp,
                lc,
                lw,
                result.stalled or result.producer_hung_s is not None,
                result.lag_s,
                llag,
            )
        )
    return rows


def format_bench(rows: list[BenchRow], budget_s: float = 3.0) -> str:
    """One line per case: both engines' wall times, the ratio, and whether each kept up."""
    head = (
        f"{'case':<16} {'produced':>10} {'consumed':>10} {'wall_s':>7}  "
        f"{'legacy consumed':>15} {'legacy_s':>8} {'ratio':>6}  status"
    )
    lines = [head]
    for r in rows:
        status = "ok" if r.ok else ("FAIL stalled" if r.stalled else f"FAIL lag {r.lag_s:.1f} s")
        status += f" (< {budget_s:g} s)" if r.wall_s < budget_s else f" OVER {budget_s:g} s"
        if r.legacy_ok is False:
            status += f"; legacy FAIL lag {r.legacy_lag_s:.1f} s"
        legacy_c = f"{r.legacy_consumed:,}" if r.legacy_consumed is not None else "-"
        legacy_s = f"{r.legacy_wall_s:.2f}" if r.legacy_wall_s is not None else "-"
        ratio = f"{r.ratio:.1f}x" if r.ratio is not None else "-"
        lines.append(
            f"{r.case:<16} {r.produced:>10,} {r.consumed:>10,} {r.wall_s:>7.2f}  "
            f"{legacy_c:>15} {legacy_s:>8} {ratio:>6}  {status}"
        )
    total = sum(r.wall_s for r in rows)
    legacy_total = sum(r.legacy_wall_s or 0 for r in rows)
    if legacy_total:
        lines.append(
            f"{'all cases':<16} {'':>10} {'':>10} {total:>7.2f}  {'':>15} "
            f"{legacy_total:>8.2f} {legacy_total / total:>5.1f}x"
        )
    return "\n".join(lines)
