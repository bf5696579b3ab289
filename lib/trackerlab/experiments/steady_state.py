"""Steady-state bytes per entry: the one definition every delayed-delivery report uses.

**Definition.** A delayed-delivery index is *steady* once it has run longer than its warm-up
(:attr:`~trackerlab.experiments.massive_delayed.DelayedScenario.warmup_s`: the longest delay,
plus one ledger, plus one time step): from then on, what arrives balances what comes due,
and the index holds the entries published during the last delay span that are not yet due.
Its **steady-state bytes per entry** is

    mean bytes the index holds / mean entries it holds, over the sample times after warm-up,

for one subscription, from the aggregated simulation of
:mod:`trackerlab.experiments.massive_delayed`, with ledgers rolling over by the broker's
rule (``managedLedgerMaxEntriesPerLedger`` = 50,000 entries, but no sooner than
``managedLedgerMinLedgerRolloverTimeMinutes`` = 10 minutes). :func:`bytes_per_entry` applies
it to a simulation; :func:`steady_state` runs one long enough and applies it.

**Snapshots.** The seeds' experiments, :mod:`~trackerlab.experiments.bucket_sweeps` and the
Spark sweeps size a *snapshot* instead: the index built from the first N messages, nothing
delivered yet, ledgers of 50,000 entries with no minimum time. A snapshot shows the steady
state only when every message has the same delay and N is at least one delay span of
traffic (N >= rate x delay); :func:`snapshot_vs_steady` says whether that holds and, if not,
why the two differ. With spread delays a snapshot spreads N messages over the whole delay
range (few entries per bucket, each from a different ledger) while the steady index holds
rate x mean delay entries whose buckets are fuller; and short ledgers put one bucket's
entries into many per-ledger bitmaps. Both make a snapshot costlier per entry.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from trackerlab.experiments.massive_delayed import DelayedResult, DelayedScenario, simulate
from trackerlab.workloads import delay_forms
from trackerlab.workloads.delay_spec import DelaySpec

__all__ = ["bytes_per_entry", "snapshot_vs_steady", "steady_state"]

DAY_S = 86_400


def _steady_mask(result: DelayedResult, times_ms: np.ndarray) -> np.ndarray:
    mask = times_ms >= result.scenario.warmup_s * 1000
    if not mask.any():  # the run never got past its warm-up: use its last sample
        mask = np.zeros(len(times_ms), dtype=bool)
        mask[-1] = True
    return mask


def bytes_per_entry(result: DelayedResult) -> pd.DataFrame:
    """Steady-state bytes per entry of every design of a simulation (one subscription).

    Columns: ``entries`` and ``bytes`` (means over the steady sample times),
    ``bytes_per_entry``, ``steady`` (False when the run ended before its warm-up did: then
    the last sample is used and the figure is not a steady state). O(samples).
    """
    rows = []
    for design, run in result.runs.items():
        mask = _steady_mask(result, run.times_ms)
        entries = float(np.mean(run.indexed[mask]))
        memory = float(np.mean(run.memory_bytes[mask]))
        rows.append(
            {
                "design": design,
                "entries": entries,
                "bytes": memory,
                "bytes_per_entry": memory / entries if entries > 0 else float("nan"),
                "steady": bool(result.scenario.days * DAY_S >= result.scenario.warmup_s),
            }
        )
    return pd.DataFrame(rows).set_index("design")


def steady_state(
    rate_per_s: float,
    delays: Sequence[str],
    *,
    tick_ms: int = 1000,
    batch_size: int = 1,
    designs: Sequence[str] = ("time-buckets", "triple-heap"),
    samples: int = 3,
    steps_per_span: int = 200,
) -> pd.DataFrame:
    """Steady-state bytes per entry of ``designs`` for each delay distribution.

    Each delay runs one subscription for its warm-up plus a quarter of it, in time steps of
    1/``steps_per_span`` of the longest delay (at least 1 s), and sizes the index at about
    ``samples`` times after the warm-up (the time-bucket index costs most: each sample
    fills its sampled buckets entry by entry).
    One row per (delay, design): ``delay``, ``design``, ``entries``, ``bytes``,
    ``bytes_per_entry``, ``steady``, ``days``.
    """
    frames = []
    for delay in delays:
        longest_s = max(delay_forms.support_max(DelaySpec.parse(delay)) / 1000, 1.0)
        step_s = max(1.0, longest_s / steps_per_span)
        probe = DelayedScenario(
            rate_per_s=rate_per_s,
            delay=delay,
            batch_size=batch_size,
            subscriptions=1,
            tick_ms=tick_ms,
            step_s=step_s,
            samples=samples,
            designs=tuple(designs),
            days=1.0,
        )
        days = probe.warmup_s * 1.25 / DAY_S
        result = simulate(
            DelayedScenario(**{**probe.__dict__, "days": days, "samples": 5 * samples + 1})
        )
        table = bytes_per_entry(result).reset_index()
        table.insert(0, "delay", delay)
        table["days"] = days
        frames.append(table)
    return pd.concat(frames, ignore_index=True)


def snapshot_vs_steady(delay: str, messages: int, rate_per_s: float) -> tuple[bool, str]:
    """Whether a snapshot of the first ``messages`` shows the steady state, and why (not).

    True only for one fixed delay with ``messages >= rate x delay``; ledger rollover by
    count alone still differs from the broker's 10-minute minimum, which the text says.
    """
    spec = DelaySpec.parse(delay)
    low = delay_forms.support_min(spec) / 1000
    high = delay_forms.support_max(spec) / 1000
    span = rate_per_s * high
    if high - low > 1e-9:
        return False, (
            f"not the steady state: delays spread from {low:g} s to {high:g} s, so the first "
            f"{messages:,} messages scatter over the whole range (a few entries per bucket, "
            "each from another ledger) while a steady index holds fuller buckets"
        )
    if messages < span:
        return False, (
            f"not the steady state: {messages:,} messages are {messages / span:.2g} of one "
            f"delay span ({span:,.0f} messages); per entry it is close to the steady state "
            "once buckets are full"
        )
    return True, (
        f"the steady state: one fixed delay and {messages:,} messages cover a full delay span"
    )
