"""Benchmark of the receiver-queue simulator: wall time of 60 s of traffic at 20,000 msg/s.

The issue's goal is 1.2 M messages in under 10 s. Each case publishes
``rate * duration`` messages (paced producer at the application's rate) and reports the
wall time, the messages the application consumed and messages simulated per second of
wall time. The cases cover both clients, one and three partitions, and a fixed queue of
1,000 (the case where all 1.2 M messages certainly flow). Measured, never asserted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from trackerlab.models.receiver_queue.simulator import ReceiverQueueConfig, simulate


@dataclass(frozen=True)
class BenchRow:
    case: str
    published: int
    consumed: int
    wall_s: float

    @property
    def messages_per_s(self) -> float:
        return self.consumed / self.wall_s if self.wall_s > 0 else float("inf")


def bench_cases(
    rate: float = 20_000, duration_s: float = 60
) -> list[tuple[str, ReceiverQueueConfig]]:
    """The benchmarked configurations (fitted harness of each client)."""
    from trackerlab.experiments.reproduce.receiver_queue import harness_for

    cases = []
    for client, partitions, auto in [
        ("go", 1, False),
        ("go", 1, True),
        ("go", 3, True),
        ("java", 1, True),
        ("java", 3, True),
    ]:
        cfg = ReceiverQueueConfig(
            client=client,
            rate=rate,
            partitions=partitions,
            auto_scale=auto,
            producer_rate=rate,
            duration_s=duration_s,
            **harness_for(client).timing(),
        )
        name = f"{client} {'auto' if auto else 'fixed 1000'} x{partitions}"
        cases.append((name, cfg))
    return cases


def run_bench(rate: float = 20_000, duration_s: float = 60) -> list[BenchRow]:
    """Run every case once; O(messages) each."""
    rows = []
    for name, cfg in bench_cases(rate, duration_s):
        start = time.perf_counter()
        result = simulate(cfg)
        wall = time.perf_counter() - start
        rows.append(BenchRow(name, result.produced or 0, result.consumed, wall))
    return rows


def format_bench(rows: list[BenchRow], budget_s: float = 10.0) -> str:
    lines = [f"{'case':<18} {'published':>10} {'consumed':>10} {'wall_s':>8} {'msg/s':>11}  budget"]
    for r in rows:
        ok = "ok" if r.wall_s < budget_s else "OVER"
        lines.append(
            f"{r.case:<18} {r.published:>10,} {r.consumed:>10,} {r.wall_s:>8.2f} "
            f"{r.messages_per_s:>11,.0f}  {ok} (< {budget_s:g} s)"
        )
    return "\n".join(lines)
