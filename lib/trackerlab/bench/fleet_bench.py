"""``trackerlab bench plan --fleet-topics N``: a synthetic fleet planned end to end.

The fleet: ``N`` topics in three classes whose rates follow a Zipf law (rank ``k`` publishes
``20k/s / k``, floored at 1/s): *orders* (30% delayed, uniform 0-10 min, 2% nacked),
*events* (batches of 100, 1% nacked) and *audit* (no delay, no nacks), assigned round-robin.
It is written as a CSV fleet file and planned through the same path as ``plan --topics``,
timing the whole (parse, plans, interpolation, held-out check, report).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

#: class -> the keys its topics carry besides the rate.
CLASSES = {
    "orders": {"delayed": "30%", "delay": "uniform:0:10m", "nacked": "2%"},
    "events": {"batch": "100", "nacked": "1%"},
    "audit": {},
}
HEAD_RATE_PER_S = 20_000.0


def write_fleet(path: Path, topics: int) -> None:
    """The synthetic fleet as CSV. O(topics)."""
    keys = ["name", "class", "rate", "delayed", "delay", "nacked", "batch"]
    lines = [",".join(keys)]
    names = list(CLASSES)
    for k in range(1, topics + 1):
        klass = names[(k - 1) % len(names)]
        rate = max(HEAD_RATE_PER_S / k, 1.0)
        row = {"name": f"t{k}", "class": klass, "rate": f"{rate:.6g}/s", **CLASSES[klass]}
        lines.append(",".join(str(row.get(key, "")) for key in keys))
    path.write_text("\n".join(lines) + "\n")


@dataclass
class FleetBench:
    topics: int
    seconds: float
    plans: int
    engine: str
    held_out_deviation: dict[str, float] | None
    cores: int

    def line(self) -> str:
        dev = self.held_out_deviation
        checked = (
            "nothing interpolated"
            if dev is None
            else f"broker side within {100 * dev['broker']:.2f}% per checked topic, "
            f"{100 * dev['broker_sum']:.2f}% in sum"
        )
        return (
            f"fleet: {self.topics:,} topics planned in {self.seconds:.1f} s on {self.cores} "
            f"core(s) ({self.topics / self.seconds:,.0f} topics/s; {self.plans:,} plans on "
            f"{self.engine}; {checked})"
        )


def bench_fleet(topics: int, master: str | None = None, seed: int = 0) -> FleetBench:
    """Write and plan the synthetic fleet, timing it. O(plans + topics)."""
    import os
    import tempfile

    from trackerlab.planner.fleet import plan_fleet, read_fleet, table

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fleet.csv"
        write_fleet(path, topics)
        start = time.perf_counter()
        fleet = plan_fleet(read_fleet(path), brokers=10, seed=seed, master=master)
        table(fleet)
        seconds = time.perf_counter() - start
    return FleetBench(
        topics, seconds, fleet.plans, fleet.engine, fleet.held_out_deviation, os.cpu_count() or 1
    )
