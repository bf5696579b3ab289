"""The massive_delayed report's frames and figures, computed from
:func:`~trackerlab.experiments.massive_delayed.simulate` results: the per-profile tables, the
design each profile calls for, the speed table and the numbers the conclusions state
(:class:`MassiveFigures`). The sentences themselves are written by
:mod:`trackerlab.reporting.massive_tables` (they use the report's number formats).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

import trackerlab.experiments.steady_state as steady_state
from trackerlab.experiments.massive_delayed import MIB, DelayedResult, DelayedScenario, simulate

GIB = 1024**3
LEVELS = "delay-level-topics"


def run(delay: str, days: float, common: Mapping[str, object]) -> DelayedResult:
    """One simulation of ``delay``, ``days`` long, with the report's common settings."""
    return simulate(DelayedScenario(delay=delay, days=days, **common))  # type: ignore[arg-type]  # common: dict[str, object] of DelayedScenario options


def profile_runs(
    delays: Sequence[str], days: float, common: Mapping[str, object]
) -> dict[str, DelayedResult]:
    """One simulation per delay profile (:func:`run`)."""
    return {d: run(d, days, common) for d in delays}


def summaries(runs: Mapping[str, DelayedResult]) -> dict[str, pd.DataFrame]:
    """Each run's per-design summary, by delay profile."""
    return {delay: run.summary() for delay, run in runs.items()}


def by_profile(
    results: Mapping[str, pd.DataFrame], column: str, divisor: float = 1.0
) -> pd.DataFrame:
    """One summary column: a row per delay profile, a column per design."""
    frame = pd.DataFrame({d: r[column] / divisor for d, r in results.items()}).T
    return frame.rename_axis("delay profile")


def per_entry_by_profile(runs: Mapping[str, DelayedResult]) -> pd.DataFrame:
    """Steady-state bytes per entry (one subscription): a row per profile, a column per design."""
    return pd.DataFrame(
        {d: steady_state.bytes_per_entry(run).bytes_per_entry for d, run in runs.items()}
    ).T.rename_axis("delay profile")


def profile_tables(runs: Mapping[str, DelayedResult]) -> list[tuple[str, pd.DataFrame]]:
    """Section 3's tables, ``(caption, frame)``: memory, bytes per entry, retention, restart
    work and extra writes per profile and design."""
    results = summaries(runs)
    return [
        ("In-memory index at the end (MiB, all subscriptions)", by_profile(results, "memory_steady_bytes", MIB)),
        ("Steady-state bytes per entry (B, one subscription)", per_entry_by_profile(runs)),
        ("Longest business-topic ledger retention (h)", by_profile(results, "retention_max_h")),
        ("Indexes rebuilt by a restart at the end", by_profile(results, "recovery_indexes")),
        ("Extra bytes written (MiB): PIP-195 snapshots, level re-publications",
         by_profile(results, "extra_writes_bytes", MIB)),
    ]  # fmt: skip


def pick(summary: pd.DataFrame) -> str:
    """The least memory among the designs that keep ledger retention within 1.5x the best one
    (+1 h) and rebuild at most 10x the fewest indexes (+100,000) after a restart; all designs
    when none qualifies."""
    ok = summary[(summary["retention_max_h"] <= 1.5 * summary["retention_max_h"].min() + 1)
                 & (summary["recovery_indexes"] <= 10 * summary["recovery_indexes"].min() + 1e5)]  # fmt: skip
    ok = ok if len(ok) else summary
    return str(ok["memory_steady_bytes"].idxmin())


def choice_table(results: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Per delay profile: :func:`pick`, the least-memory design, and the delay levels' write
    amplification."""
    return pd.DataFrame({
        "pick": {d: pick(r) for d, r in results.items()},
        "least memory": {d: r["memory_steady_bytes"].idxmin() for d, r in results.items()},
        "write amplification of levels": {d: r.loc[LEVELS, "write_amplification"] for d, r in results.items()},
    }).rename_axis("delay profile")  # fmt: skip


def speed_table(named: Mapping[str, DelayedResult]) -> pd.DataFrame:
    """Simulated days, wall time and simulated days per second of each named run."""
    return pd.DataFrame([
        {"scenario": name, "simulated days": r.scenario.days, "wall time (s)": r.seconds,
         "simulated days per second": r.simulated_days_per_second}
        for name, r in named.items()
    ])  # fmt: skip


@dataclass(frozen=True)
class MassiveFigures:
    """The numbers the conclusions state: N12 (``s12``) and the mixture (``sm``) summaries."""

    heap_mib: float  #: N12, triple heap, all subscriptions
    pip_mib: float  #: N12, PIP-195 buckets
    time_buckets_mib: float  #: N12, time buckets
    levels_n12_mib: float  #: N12, delay-level topics
    pip_snapshots_mib: float  #: N12, PIP-195 extra writes (snapshots)
    single_days: float  #: mixture: longest retention of a single-topic design (days)
    single_storage_gib: float  #: mixture: most storage held by a single-topic design
    levels_days: float  #: mixture: delay levels' retention (days; NaN without them)
    levels_mib: float  #: mixture: delay levels' index memory (NaN without them)
    levels_storage_gib: float  #: mixture: delay levels' storage held
    heap_recovery: float  #: mixture: indexes rebuilt by a restart, heap
    pip_recovery: float  #: the same, PIP-195
    levels_recovery: float  #: the same, delay levels


def _value(frame: pd.DataFrame, row: str, column: str) -> float:
    """One summary cell as a float: pandas-stubs type a ``.loc`` scalar as any scalar (str,
    dates, ...); the summaries hold numbers only. Raises ``KeyError`` for a missing row,
    ``TypeError`` for a cell that is not a number."""
    value = frame.loc[row, column]
    if not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{row} {column}: expected a number, got {value!r}")
    return float(value)


def _column_max(frame: pd.DataFrame, rows: Sequence[str], column: str) -> float:
    """The largest of ``column`` over ``rows``."""
    return float(frame.loc[list(rows), column].max())


def figures(s12: pd.DataFrame, sm: pd.DataFrame) -> MassiveFigures:
    """:class:`MassiveFigures` from the N12 and the mixture summaries."""
    single = [str(d) for d in sm.index if d != LEVELS]
    has_levels = LEVELS in sm.index
    return MassiveFigures(
        heap_mib=_value(s12, "triple-heap", "memory_steady_bytes") / MIB,
        pip_mib=_value(s12, "pip195-buckets", "memory_steady_bytes") / MIB,
        time_buckets_mib=_value(s12, "time-buckets", "memory_steady_bytes") / MIB,
        levels_n12_mib=_value(s12, LEVELS, "memory_steady_bytes") / MIB,
        pip_snapshots_mib=_value(s12, "pip195-buckets", "extra_writes_bytes") / MIB,
        single_days=_column_max(sm, single, "retention_max_h") / 24,
        single_storage_gib=_column_max(sm, single, "storage_end_bytes") / GIB,
        levels_days=_value(sm, LEVELS, "retention_max_h") / 24 if has_levels else float("nan"),
        levels_mib=_value(sm, LEVELS, "memory_steady_bytes") / MIB if has_levels else float("nan"),
        levels_storage_gib=_value(sm, LEVELS, "storage_end_bytes") / GIB,
        heap_recovery=_value(sm, "triple-heap", "recovery_indexes"),
        pip_recovery=_value(sm, "pip195-buckets", "recovery_indexes"),
        levels_recovery=_value(sm, LEVELS, "recovery_indexes"),
    )
