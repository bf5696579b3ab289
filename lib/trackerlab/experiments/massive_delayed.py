"""Massive delayed messages: one topic simulated over days with four index designs.

Seed ``003_92bcb584a56c7811.txt`` (#15500) names three problems of the in-memory delayed
index: its memory (24 B per entry), ledgers that cannot be deleted while long delays are
pending, and re-indexing everything after a restart. Seed ``001`` gives the scenario N12:
a 1-day delay at 10,000 msg/s in batches of 100 with 2 Shared subscriptions. This module
runs a :class:`DelayedScenario` through the aggregated models of
:mod:`trackerlab.models.delayed.aggregated`:

========================  ==========================================================
``heap``                  ``InMemoryDelayedDeliveryTracker`` + ``TripleLongPriorityQueue``
``time-buckets``          the time-bucketed in-memory tracker (#23611)
``pip195``                ``BucketDelayedDeliveryTracker`` (PIP-195, #16763 .. #26251)
``levels``                #15500's delay-level topics (never implemented)
========================  ==========================================================

and reports per design: in-memory bytes over time (peak, steady), persisted bytes and extra
writes, ledger retention, recovery work after a restart, delivery precision
(:meth:`DelayedResult.summary`). A batch is one entry with one ``deliverAt`` (the seeds'
assumption; the Java client actually never batches messages that carry a ``deliverAt``:
``ProducerImpl`` sends them individually).

Speed: O(steps + ledgers + sample times * sampled buckets); a month at 10,000 msg/s runs in
seconds (``trackerlab simulate delayed`` prints the wall time).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace

import numpy as np
import pandas as pd

from trackerlab.catalog import CATALOG
from trackerlab.core.errors import UsageError
from trackerlab.core.params import check_float, check_int, check_positive
from trackerlab.models.delayed import aggregated as md
from trackerlab.models.delayed import pip195_tracker as bt
from trackerlab.models.delayed.delay_levels import (
    DEFAULT_MAX_DELAY_S,
    DelayLevelTopicPartitionStrategy,
)
from trackerlab.workloads import delay_forms as delays
from trackerlab.workloads.delay_spec import DelaySpec
from trackerlab.workloads.ledger_rollover import LedgerRollover
from trackerlab.workloads.units import parse_duration_ms

__all__ = [
    "COLORS",
    "DEFAULT_DESIGNS",
    "DESIGNS",
    "SEED_SCENARIO",
    "DelayedResult",
    "DelayedScenario",
    "as_float_array",
    "extras_table",
    "horizon_days_for",
    "reader_summary",
    "scenario_dict",
    "simulate",
    "with_delay",
]

#: The designs of a time-stepped run: the catalog's delayed designs that can simulate.
DESIGNS = CATALOG.names("simulate")
#: Run when no designs are named: seed 003's four (the newer forms on request, or through
#: ``trackerlab simulate delayed --pulsar-version``).
DEFAULT_DESIGNS = ("triple-heap", "time-buckets", "pip195-buckets", "delay-level-topics")
MIB = 1024 * 1024
DAY_S = 86_400
#: At most this many time steps per run (a year at 1 s, or 30 days at 0.26 s).
MAX_STEPS = 40_000_000


@dataclass(frozen=True)
class DelayedScenario:
    """One topic, its traffic and the designs' settings. Validated on creation."""

    rate_per_s: float = 10_000.0  # messages per second
    delay: str = "fixed:1d"  # delay distribution (workloads.DelaySpec syntax)
    days: float = 2.0  # simulated time
    batch_size: int = 100  # messages per entry (one deliverAt per entry)
    subscriptions: int = 2  # Shared subscriptions, one index each
    step_s: float = 60.0  # time step
    samples: int = 96  # times at which the structures are sized
    tick_ms: int = 1000  # delayedDeliveryTickTimeMillis
    entries_per_ledger: int = 50_000  # managedLedgerMaxEntriesPerLedger
    min_rollover_minutes: float = 10.0  # managedLedgerMinLedgerRolloverTimeMinutes
    max_rollover_minutes: float = 240.0  # managedLedgerMaxLedgerRolloverTimeMinutes
    max_ledger_mib: int = 2048  # managedLedgerMaxSizePerLedgerMbytes
    message_bytes: int = 1024  # payload per message (storage figures only)
    min_index_count: int = bt.DEFAULT_MIN_INDEX_COUNT_PER_BUCKET
    segment_seconds: float = bt.DEFAULT_SEGMENT_TIME_STEP_MS / 1000
    max_indexes_per_segment: int = bt.DEFAULT_MAX_INDEXES_PER_SEGMENT
    partition_by: str = "DAY"  # delay-level topics: HOUR, DAY, MONTH, YEAR
    max_delay_s: float = DEFAULT_MAX_DELAY_S  # messageMaximumDelayTimeSeconds
    bucket_samples: int = 2000  # time-bucket keys sized per sample time
    designs: tuple[str, ...] = DEFAULT_DESIGNS
    seed: int = 0

    def __post_init__(self) -> None:
        check_positive("--rate (messages per second)", self.rate_per_s)
        spec = DelaySpec.parse(self.delay)
        if delays.support_min(spec) < 0:
            raise UsageError(f"--delay {self.delay!r}: delays must be >= 0")
        check_positive("--days", self.days)
        check_int("--batch", self.batch_size, 1, 1_000_000)
        check_int("--subscriptions", self.subscriptions, 1, 10_000)
        check_positive("--step-s", self.step_s)
        steps = math.ceil(self.days * DAY_S / self.step_s)
        if steps > MAX_STEPS:
            raise UsageError(
                f"--days {self.days:g} at --step-s {self.step_s:g} is {steps:,} steps; "
                f"at most {MAX_STEPS:,} (use a larger --step-s)"
            )
        check_int("--samples", self.samples, 2, 100_000)
        check_int("--tick-ms", self.tick_ms, 1, 86_400_000)
        check_int("--entries-per-ledger", self.entries_per_ledger, 1, 1 << 31)
        check_float("--min-rollover-minutes", self.min_rollover_minutes, 0, None)
        check_float("--max-rollover-minutes", self.max_rollover_minutes, 0, None)
        check_int("--max-ledger-mib", self.max_ledger_mib, 1, None)
        check_int("--message-bytes", self.message_bytes, 1, 1 << 30)
        check_int("--min-index-count", self.min_index_count, 1, None)
        check_positive("--segment-seconds", self.segment_seconds)
        if self.max_indexes_per_segment != -1:
            check_int("--max-indexes-per-segment", self.max_indexes_per_segment, 1, None)
        check_int("--bucket-samples", self.bucket_samples, 1, 1_000_000)
        check_int("--seed", self.seed, 0)
        if not self.designs:
            raise UsageError(f"--designs: give at least one of: {', '.join(DESIGNS)}")
        for d in self.designs:
            CATALOG.check(d, DESIGNS)
        _ = self.strategy  # validates the maximum delay and the partition strategy

    # ------------------------------------------------------------------ derived

    @property
    def spec(self) -> DelaySpec:
        return DelaySpec.parse(self.delay)

    @property
    def strategy(self) -> DelayLevelTopicPartitionStrategy:
        return DelayLevelTopicPartitionStrategy(self.max_delay_s, self.partition_by)

    @property
    def entries_per_s(self) -> float:
        return self.rate_per_s / self.batch_size

    @property
    def entry_bytes(self) -> int:
        return self.message_bytes * self.batch_size

    @property
    def rollover(self) -> LedgerRollover:
        return LedgerRollover(
            self.entries_per_ledger,
            self.max_ledger_mib * MIB,
            self.min_rollover_minutes * 60_000,
            self.max_rollover_minutes * 60_000,
        )

    @property
    def ledger_entries(self) -> int:
        """Entries per ledger of the business topic under the rollover rule."""
        return self.rollover.entries_per_ledger(self.entries_per_s / 1000, self.entry_bytes)

    @property
    def settings(self) -> md.Settings:
        """The designs' own knobs (:class:`~trackerlab.models.delayed.aggregated.Settings`)."""
        return md.Settings(
            bucket_samples=self.bucket_samples,
            min_index_count=self.min_index_count,
            segment_ms=self.segment_seconds * 1000,
            max_indexes_per_segment=self.max_indexes_per_segment,
            strategy=self.strategy,
            rollover=self.rollover,
        )

    def topic(self) -> md.Topic:
        return md.Topic(
            spec=self.spec,
            rate=self.entries_per_s / 1000,
            horizon_ms=self.days * DAY_S * 1000,
            step_ms=self.step_s * 1000,
            samples=self.samples,
            tick_ms=self.tick_ms,
            entries_per_ledger=self.ledger_entries,
            entry_bytes=self.entry_bytes,
            seed=self.seed,
        )

    @property
    def warmup_s(self) -> float:
        """Time before the indexes can be steady: the longest delay plus one ledger."""
        topic = self.topic()
        return (delays.support_max(self.spec) + topic.ledger_ms + self.step_s * 1000) / 1000

    @classmethod
    def from_options(cls, **options: object) -> DelayedScenario:
        """Build from CLI/notebook options, ignoring ``None`` values; ``max_delay`` may be a
        duration string (``30d``)."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in options.items() if v is not None}
        if "max_delay" in values:
            text = str(values.pop("max_delay")).strip()
            sign = -1.0 if text.startswith("-") else 1.0
            ms = parse_duration_ms(text.lstrip("+-"), "--max-delay")
            values["max_delay_s"] = sign * ms / 1000
        unknown = set(values) - known
        if unknown:
            raise UsageError(f"unknown scenario option(s): {', '.join(sorted(unknown))}")
        if isinstance(values.get("designs"), str):
            values["designs"] = tuple(
                x.strip() for x in str(values["designs"]).split(",") if x.strip()
            )
        elif "designs" in values:
            values["designs"] = tuple(values["designs"])  # type: ignore[arg-type]  # values come from YAML/flags as dict[str, object]; designs is a list of names here
        return cls(**values)  # type: ignore[arg-type]  # values are dict[str, object] from YAML/flags; the dataclass fields take them as parsed


#: N12 (seed 001): 1 day of delay at 10,000 msg/s, batches of 100, two Shared subscriptions.
SEED_SCENARIO = DelayedScenario()


@dataclass
class DelayedResult:
    """The runs of every design plus the scenario and the wall time."""

    scenario: DelayedScenario
    runs: dict[str, md.DesignRun]
    seconds: float
    notes: list[str] = field(default_factory=list)

    @property
    def simulated_days_per_second(self) -> float:
        return self.scenario.days / max(self.seconds, 1e-9)

    def series(self) -> pd.DataFrame:
        """Long table: one row per (design, sample time), sizes for all subscriptions."""
        subs = self.scenario.subscriptions
        entry_bytes = self.scenario.entry_bytes
        frames = []
        for name, run in self.runs.items():
            persisted = run.persisted_bytes * (1 if run.shared_subscriptions else subs)
            memory_share = 1 if run.shared_memory else subs
            frames.append(
                pd.DataFrame(
                    {
                        "design": name,
                        "time_h": run.times_ms / 3_600_000,
                        "memory_bytes": run.memory_bytes * memory_share,
                        "indexed_entries": run.indexed,
                        "retained_bytes": run.retained_entries * entry_bytes,
                        "persisted_bytes": persisted,
                        "storage_bytes": run.retained_entries * entry_bytes + persisted,
                    }
                )
            )
        return pd.concat(frames, ignore_index=True)

    def summary(self) -> pd.DataFrame:
        """One row per design (sizes in bytes, for all subscriptions)."""
        sc = self.scenario
        subs = sc.subscriptions
        steady = sc.days * DAY_S >= sc.warmup_s
        rows = []
        for name, run in self.runs.items():
            share = 1 if run.shared_subscriptions else subs
            memory_share = 1 if run.shared_memory else subs
            persisted_end = float(run.persisted_bytes[-1]) * share
            rows.append(
                {
                    "design": name,
                    "memory_peak_bytes": float(run.memory_bytes.max()) * memory_share,
                    "memory_steady_bytes": float(run.memory_bytes[-1]) * memory_share,
                    "indexed_entries_end": float(run.indexed[-1]),
                    "persisted_end_bytes": persisted_end,
                    "extra_writes_bytes": run.extra_writes_bytes * share,
                    "extra_bk_entries": run.extra_bk_entries * share,
                    "write_amplification": self._amplification(run),
                    "retention_max_h": run.retention_max_ms / 3_600_000,
                    "retention_mean_h": run.retention_mean_ms / 3_600_000,
                    "storage_end_bytes": float(run.retained_entries[-1]) * sc.entry_bytes
                    + persisted_end,
                    "recovery_entries_read": run.recovery_entries_read * subs,
                    "recovery_indexes": run.recovery_indexes * subs,
                    "recovery_snapshot_bytes": run.recovery_bytes_read * subs,
                    "early_ms": run.early_ms,
                    "late_ms": run.late_ms,
                    "level_partitions": run.extras.get("level_partitions", 0.0),
                    "steady": steady,
                }
            )
        return pd.DataFrame(rows).set_index("design")

    def _amplification(self, run: md.DesignRun) -> float:
        """Bytes written per byte published over the last quarter of the run (the rate at
        the end, not diluted by the warm-up): 1 + extra writes / topic writes."""
        if run.extra_written is None or len(run.times_ms) < 2:
            return 1.0
        i = int(len(run.times_ms) * 0.75)
        i = min(i, len(run.times_ms) - 2)
        dt_s = (run.times_ms[-1] - run.times_ms[i]) / 1000
        topic = self.scenario.entries_per_s * dt_s * self.scenario.entry_bytes
        extra = float(run.extra_written[-1] - run.extra_written[i])
        share = 1 if run.shared_subscriptions else self.scenario.subscriptions
        return 1.0 + extra * share / max(topic, 1e-300)

    def format_summary(self) -> str:
        """The summary as a fixed-width text table (sizes in MiB, times in hours)."""
        sc = self.scenario
        df = self.summary()
        table = pd.DataFrame(
            {
                "memory peak MiB": df["memory_peak_bytes"] / MIB,
                "memory end MiB": df["memory_steady_bytes"] / MIB,
                "persisted MiB": df["persisted_end_bytes"] / MIB,
                "extra writes MiB": df["extra_writes_bytes"] / MIB,
                "extra BK entries": df["extra_bk_entries"],
                "write amp": df["write_amplification"],
                "retention max h": df["retention_max_h"],
                "storage end GiB": df["storage_end_bytes"] / 1024**3,
                "restart reads entries": df["recovery_entries_read"],
                "restart indexes": df["recovery_indexes"],
                "early ms": df["early_ms"],
            }
        )
        head = (
            f"{sc.rate_per_s:,.0f} msg/s, delay {sc.delay}, batch {sc.batch_size} "
            f"({sc.entries_per_s:,.0f} entries/s, {sc.ledger_entries:,} entries per ledger), "
            f"{sc.subscriptions} subscription(s), {sc.days:g} days in {sc.step_s:g} s steps"
        )
        steady = (
            "steady state reached"
            if bool(df["steady"].iloc[0])
            else (f"not steady: the longest delay needs {sc.warmup_s / DAY_S:.1f} days")
        )
        levels = ""
        if "delay-level-topics" in self.runs:
            ex = self.runs["delay-level-topics"].extras
            levels = (
                f"\nlevels: {ex['level_partitions']:.0f} partitions by {sc.partition_by}, "
                f"{ex['republished_entries']:,.0f} entries re-published"
            )
        formats: dict[str | int, Callable[[float], str]] = {
            c: (lambda v: f"{v:,.1f}") for c in table.columns
        }
        formats["write amp"] = lambda v: f"{v:.3f}"
        with pd.option_context("display.width", 250, "display.max_columns", 20):
            body = table.to_string(formatters=formats)
        timing = (
            f"wall time {self.seconds:.2f} s = {self.simulated_days_per_second:,.1f} simulated "
            "days per second"
        )
        return f"{head}\n{steady}{levels}\n{body}\n{timing}"


def simulate(scenario: DelayedScenario) -> DelayedResult:
    """Run every design of ``scenario`` (each catalog design's ``simulate``)."""
    started = time.perf_counter()
    topic = scenario.topic()
    retention = md.single_topic_retention(topic)
    settings = scenario.settings
    runs: dict[str, md.DesignRun] = {}
    for design in scenario.designs:
        runs[design] = CATALOG[design].simulate(topic, retention, settings)  # type: ignore[misc]  # Design.simulate is Optional; scenario.designs holds only designs that simulate
    return DelayedResult(scenario, runs, time.perf_counter() - started)


#: Notebook parameter -> scenario field, for ``trackerlab simulate delayed --profile NAME``.
NOTEBOOK = "massive_delayed"
PROFILE_PARAMETERS = {
    "rate_per_s": "rate_per_s",
    "seed_delay": "delay",
    "days": "days",
    "batch_size": "batch_size",
    "subscriptions": "subscriptions",
    "step_s": "step_s",
    "samples": "samples",
    "message_bytes": "message_bytes",
    "partition_by": "partition_by",
    "max_delay_s": "max_delay_s",
}


def scenario_dict(scenario: DelayedScenario) -> dict[str, object]:
    """The scenario's fields (for reports)."""
    return asdict(scenario)


def with_delay(scenario: DelayedScenario, delay: str, **changes: object) -> DelayedScenario:
    """The same scenario with another delay distribution (and other changes)."""
    return replace(scenario, delay=delay, **changes)  # type: ignore[arg-type]  # changes are DelayedScenario field values, typed object for replace()


def horizon_days_for(delay: str, margin_days: float = 1.0) -> float:
    """Days to simulate so that ``delay``'s longest delay has passed plus a margin."""
    return math.ceil(delays.support_max(DelaySpec.parse(delay)) / 86_400_000 + margin_days)


def as_float_array(values: object) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)


# --------------------------------------------------------------------------- for reports

#: One colour per design, the same in every figure.
COLORS = {
    "triple-heap": "tab:red",
    "time-buckets": "tab:orange",
    "pip195-buckets": "tab:blue",
    "delay-level-topics": "tab:green",
}

#: Summary columns for a reader: column of :meth:`DelayedResult.summary`, header, divisor.
READER_COLUMNS = (
    ("memory_peak_bytes", "memory peak (MiB)", MIB),
    ("memory_steady_bytes", "memory at end (MiB)", MIB),
    ("persisted_end_bytes", "persisted at end (MiB)", MIB),
    ("extra_writes_bytes", "extra writes (MiB)", MIB),
    ("write_amplification", "write amplification", 1),
    ("retention_max_h", "longest ledger retention (h)", 1),
    ("storage_end_bytes", "storage held at end (GiB)", 1024**3),
    ("recovery_entries_read", "restart: entries re-read", 1),
    ("recovery_indexes", "restart: indexes rebuilt", 1),
    ("early_ms", "early by up to (ms)", 1),
)

#: What each design's own figures (``DesignRun.extras``) mean, with their units.
EXTRA_LABELS = {
    "peak_all_steps": "queue capacity at its peak, any step (B)",
    "buckets_end": "time buckets at the end",
    "bucket_ms": "bucket width (ms)",
    "buckets_sealed": "buckets sealed",
    "buckets_alive_end": "buckets alive at the end",
    "segments_per_bucket": "snapshot segments per bucket",
    "indexes_per_bucket": "indexes per bucket",
    "mutable_bytes_end": "mutable bucket at the end (B)",
    "shared_bytes_end": "shared queue at the end (B)",
    "bucket_objects_bytes_end": "bucket objects at the end (B)",
    "bitmaps_bytes_end": "per-ledger bitmaps at the end (B)",
    "cursor_property_updates": "cursor property updates",
    "level_partitions": "level partitions",
    "republished_entries": "entries re-published",
    "level_backlog_entries_end": "level partitions' backlog at the end (entries)",
    "level_retention_max_ms": "longest level-partition retention (ms)",
    "real_topic_entries_end": "entries written to the real topic",
    "beyond_max_fraction": "share of delays beyond the maximum",
}


def reader_summary(summary: pd.DataFrame) -> pd.DataFrame:
    """:meth:`DelayedResult.summary` in a reader's units (MiB, GiB, hours), units in headers."""
    return pd.DataFrame({header: summary[col] / div for col, header, div in READER_COLUMNS})


def extras_table(result: DelayedResult) -> pd.DataFrame:
    """Each design's own figures in long form (design, quantity, value): no empty cells."""
    return pd.DataFrame(
        [
            {"design": name, "quantity": EXTRA_LABELS.get(key, key), "value": value}
            for name, run in result.runs.items()
            for key, value in run.extras.items()
        ]
    )
