"""Benchmark of the receiver-queue simulator: 60 s of traffic at 20,000 msg/s.

The goal (issue 15) is 1.2 M messages simulated in at most 3 s as a whole process (the
first engine took 9-10 s). Each case runs the modelled harness
(:func:`trackerlab.models.receiver_queue.simulate`: batch entries, O(entries + Flows)) and
prints its wall time. The legacy per-message engine it was measured against is retired
(issue 30): its last run is stored in ``data/bench/receiver_queue_legacy.json`` with its
commit, and its ratio is printed beside each case as that stored figure, never re-measured.
Measured, never asserted.

A case **fails** when the application stops consuming (nothing taken in the last 10% of
the run) or falls behind by more than one second of traffic: a simulator that stalls is
not fast, it is wrong.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from trackerlab.core.paths import data_dir, display_path
from trackerlab.models.receiver_queue import HarnessConfig, simulate

__all__ = [
    "BenchRow",
    "StoredLegacy",
    "bench_cases",
    "format_bench",
    "load_stored_legacy",
    "run_bench",
    "stored_legacy_path",
]

#: A case keeps up when its lag stays under this many seconds of traffic.
MAX_LAG_S = 1.0

#: The keys every stored case carries (units in the names: messages, seconds).
STORED_CASE_KEYS = (
    "case",
    "harness_produced_messages",
    "harness_consumed_messages",
    "harness_wall_s",
    "legacy_consumed_messages",
    "legacy_wall_s",
    "ratio_legacy_over_harness",
    "status",
)


@dataclass(frozen=True)
class BenchRow:
    case: str
    produced: int
    consumed: int
    wall_s: float
    stalled: bool
    lag_s: float

    @property
    def ok(self) -> bool:
        return not self.stalled and self.lag_s <= MAX_LAG_S


@dataclass(frozen=True)
class StoredLegacy:
    """The legacy engine's last benchmark run: its commit and, per case, the ratio of its
    wall time to the harness's in that run."""

    commit: str
    date_utc: str
    rate_msg_per_s: float
    duration_s: float
    ratios: dict[str, float]
    all_cases_ratio: float
    legacy_failed: frozenset[str] = frozenset()


def stored_legacy_path() -> Path:
    """The stored legacy run: ``data/bench/receiver_queue_legacy.json``."""
    return data_dir() / "bench" / "receiver_queue_legacy.json"


def load_stored_legacy(path: Path | None = None) -> StoredLegacy:
    """Read and check the stored legacy run; ValueError names a missing or malformed field."""
    raw = json.loads((path or stored_legacy_path()).read_text())
    keys = ("commit", "date_utc", "machine", "command", "note", "rate_msg_per_s", "duration_s")
    for key in (*keys, "cases", "all_cases"):
        if key not in raw:
            raise ValueError(f"stored legacy benchmark: no {key!r}")
    ratios = {}
    failed = set()
    for case in raw["cases"]:
        missing = [k for k in STORED_CASE_KEYS if k not in case]
        if missing:
            raise ValueError(f"stored legacy benchmark case {case.get('case')!r}: no {missing}")
        ratios[case["case"]] = float(case["ratio_legacy_over_harness"])
        if "legacy FAIL" in case["status"]:
            failed.add(case["case"])
    return StoredLegacy(
        commit=raw["commit"],
        date_utc=raw["date_utc"],
        rate_msg_per_s=float(raw["rate_msg_per_s"]),
        duration_s=float(raw["duration_s"]),
        ratios=ratios,
        all_cases_ratio=float(raw["all_cases"]["ratio_legacy_over_harness"]),
        legacy_failed=frozenset(failed),
    )


def bench_cases(rate: float = 20_000, duration_s: float = 60) -> list[tuple[str, HarnessConfig]]:
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
        name = f"{client} {'auto' if auto else 'fixed 1000'} x{partitions}"
        cases.append((name, cfg))
    return cases


def run_bench(rate: float = 20_000, duration_s: float = 60) -> list[BenchRow]:
    """Run every case once with the modelled harness."""
    rows = []
    for name, cfg in bench_cases(rate, duration_s):
        start = time.perf_counter()
        result = simulate(cfg)
        wall = time.perf_counter() - start
        rows.append(
            BenchRow(
                name,
                result.produced,
                result.consumed,
                wall,
                result.stalled or result.producer_hung_s is not None,
                result.lag_s,
            )
        )
    return rows


def format_bench(
    rows: list[BenchRow], stored: StoredLegacy | None = None, budget_s: float = 3.0
) -> str:
    """One line per case: the harness's wall time, whether it kept up, and the stored
    legacy ratio of that case (from ``stored``, a figure of its commit, not this run)."""
    head = (
        f"{'case':<16} {'produced':>10} {'consumed':>10} {'wall_s':>7}  "
        f"{'stored legacy ratio':>19}  status"
    )
    lines = [head]
    for r in rows:
        status = "ok" if r.ok else ("FAIL stalled" if r.stalled else f"FAIL lag {r.lag_s:.1f} s")
        status += f" (< {budget_s:g} s)" if r.wall_s < budget_s else f" OVER {budget_s:g} s"
        ratio = stored.ratios.get(r.case) if stored else None
        ratio_s = f"{ratio:.1f}x" if ratio is not None else "-"
        if stored and r.case in stored.legacy_failed:
            ratio_s += " legacy FAIL"
        lines.append(
            f"{r.case:<16} {r.produced:>10,} {r.consumed:>10,} {r.wall_s:>7.2f}  "
            f"{ratio_s:>19}  {status}"
        )
    total = sum(r.wall_s for r in rows)
    all_ratio = f"{stored.all_cases_ratio:.1f}x" if stored else "-"
    lines.append(f"{'all cases':<16} {'':>10} {'':>10} {total:>7.2f}  {all_ratio:>19}")
    if stored:
        lines.append(
            f"stored legacy ratio: legacy engine wall time / harness wall time, a stored figure "
            f"from commit {stored.commit[:12]} ({stored.date_utc}, "
            f"{stored.rate_msg_per_s:,.0f} msg/s for {stored.duration_s:g} s, one run on a "
            f"shared machine; {display_path(stored_legacy_path())}), not measured now"
        )
    return "\n".join(lines)
