"""The delayed-delivery report (``notebooks/delayed_delivery.ipynb``): its tables, figures
and conclusions, computed from the frames of :mod:`bucket_sweeps` and :mod:`steady_state`.

The notebook keeps its parameters, calls these functions and shows what they return.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from trackerlab.experiments import bucket_sweeps as sweeps
from trackerlab.experiments import steady_state
from trackerlab.experiments.reproduce import BLOG, describe_counts, reproduce, summary
from trackerlab.models.delayed import precision_bits_for_tick
from trackerlab.reporting.findings import Findings, Headline
from trackerlab.reporting.formatting import format_delay, format_number
from trackerlab.reporting.reproduction import show_reproduction
from trackerlab.reporting.tables import Column, show_table

DEFAULT_TICK_MS = 1000  # the broker's delayedDeliveryTickTimeMillis
BLOG_MESSAGES = 10_000_000  # messages of the blog's jmap measurements
BLOG_POINTS = {"N14": (1, 10), "N15": (4, 10), "N16": (8, 10), "N17": (8, 15)}  # id -> (x, y)
REPRODUCED_IDS: tuple[str, ...] = (*(f"N{i}" for i in range(11, 20)), "N44", "N45")
REPRODUCTION_CAPTION = "The blog's and #15500's numbers against the models"
MIX_TITLE = "Container mix against M (as Java builds it)"
MIX_CAPTION = "Containers of the time-bucket index (not run-optimized)"
SPREAD_CAPTION = (
    "Snapshot (first N messages, 50,000-entry ledgers) against steady state "
    "(one subscription, broker rollover)"
)

GRID_COLUMNS: dict[str, str] = {
    "rate_per_ms": "rate x (msg/ms)",
    "trim_bits": "bucket bits",
    "messages_per_bucket": "M (msg/bucket)",
    "run_optimize": "run-optimized",
    "buckets": "buckets",
    "bitmaps": "bitmaps",
    "jvm_b_per_entry": "JVM model (B/entry)",
    "python_b_per_entry": "Python-real (B/entry)",
    "theory_published_b_per_entry": "blog AES (B/entry)",
    "theory_corrected_b_per_entry": "corrected theory (B/entry)",
}
TICK_COLUMNS: dict[str, str] = {
    "tick_ms": "tick (ms)",
    "trim_bits": "bucket bits",
    "early_a_ms": "early by up to, variant a (ms)",
    "early_c_ms": "early by up to, variant c (ms)",
    "run_optimize": "run-optimized",
    "buckets": "buckets",
    "jvm_b_per_entry": "JVM model (B/entry)",
}
MIX_COLUMNS: dict[str, str | Column] = {
    "rate_per_ms": "rate x (msg/ms)",
    "trim_bits": "bucket bits",
    "messages_per_bucket": "M (msg/bucket)",
    "buckets": "buckets",
    "bitmaps": "bitmaps",
    "array_containers": "array containers",
    "bitset_containers": "bitset containers",
    "bitset_share": Column("bitset share", fmt="{:.0%}"),
}
SPREAD_COLUMNS: dict[str, str] = {
    "delay": "delay",
    "entries": "snapshot entries",
    "bitmaps": "snapshot bitmaps",
    "jvm_b_per_entry": "time buckets, snapshot (B/entry)",
    "steady_entries": "steady-state entries",
    "steady_buckets_b": "time buckets, steady state (B/entry)",
    "steady_heap_b": "triple heap, steady state (B/entry)",
    "snapshot_is_steady": "snapshot = steady state",
}


def show_blog_reproduction() -> tuple[dict[str, int], pd.DataFrame]:
    """Section 1: reproduce :data:`REPRODUCED_IDS` (the blog's N11-N19, #15500's N44-N45),
    show them; return the counts per category and the shown rows (indexed by id)."""
    results = reproduce(REPRODUCED_IDS)
    return summary(results), show_reproduction(results, REPRODUCTION_CAPTION)


def default_bits() -> int:
    """Bucket bits at the broker's default tick (``floor(log2(1000))`` = 9)."""
    return precision_bits_for_tick(DEFAULT_TICK_MS)


def grid_bits(ticks_ms: Sequence[int]) -> list[int]:
    """The distinct bucket bits of ``ticks_ms`` (``floor(log2(tick))``), ascending."""
    return sorted({precision_bits_for_tick(t) for t in ticks_ms})


def bucket_grid(
    messages: int,
    rates_per_ms: Sequence[float],
    ticks_ms: Sequence[int],
    entries_per_ledger: int,
    delay: str,
    run_optimize: bool,
) -> pd.DataFrame:
    """Section 2's grid: ``bucket_sweeps.grid`` over the rates and the ticks' bucket bits,
    as Java builds it (and run-optimized when ``run_optimize``), theory by the blog's AES."""
    return sweeps.grid(
        messages,
        rates_per_ms,
        grid_bits(ticks_ms),
        entries_per_ledger=entries_per_ledger,
        delay=delay,
        run_optimize=(False, True) if run_optimize else (False,),
        formula="timebucket",
    )


def theory_curves(entries_per_ledger: int) -> pd.DataFrame:
    """The blog's and the corrected theory over M = 10 .. 10^7.5 (200 points, log-spaced)."""
    return sweeps.theory_curves(np.logspace(1, 7.5, 200), entries_per_ledger, formula="timebucket")


def triple_heap_b_per_entry(messages: int) -> float:
    """The triple heap's JVM bytes per entry for ``messages`` (:func:`heap_bytes_per_entry`
    of ``bucket_sweeps.baselines``)."""
    return heap_bytes_per_entry(sweeps.baselines(messages, ["triple-heap"]))


def show_bucket_grid(table: pd.DataFrame, messages: int, delay: str) -> None:
    """Section 2's table; a long grid keeps the rows at the default tick."""
    bits = default_bits()
    show_table(
        table,
        GRID_COLUMNS,
        name="bucket-grid",
        keep=table.trim_bits == bits,
        max_rows=12,
        caption=grid_caption(messages, delay, bits),
    )


def grid_caption(messages: int, delay: str, default_bits: int) -> str:
    """Caption of the bucket-grid table (rows at the default tick when the grid is long)."""
    return (
        f"{messages:,} messages delayed {format_delay(delay)}; rows at the default 1 s tick "
        f"({default_bits} bits) when the grid is long"
    )


def tick_caption(messages: int, rate_per_ms: float) -> str:
    """Caption of the tick-sweep table."""
    return f"{format_number(messages)} messages at {format_number(rate_per_ms)} msg/ms per point"


def heap_bytes_per_entry(base: pd.DataFrame) -> float:
    """The triple heap's JVM bytes per entry, direct memory included, from the first row of
    ``bucket_sweeps.baselines`` (``bytesCapacity()`` plus the on-heap objects)."""
    return float(base.jvm_direct_b_per_entry.fillna(0).iloc[0] + base.jvm_b_per_entry.iloc[0])


def blog_points(repro: pd.DataFrame) -> pd.DataFrame:
    """The blog's jmap measurements N14-N17 (MiB for 1e7 messages) as bytes per entry at
    their messages per bucket M, for the stars of the bytes-per-entry figure."""
    points = repro.loc[list(BLOG_POINTS), ["published"]].astype(float).reset_index()
    points["b_per_entry"] = points.published * 2**20 / BLOG_MESSAGES
    points["messages_per_bucket"] = [BLOG[x_y].messages_per_bucket for x_y in BLOG_POINTS.values()]
    return points


def plot_bytes_per_entry(
    table: pd.DataFrame, curves: pd.DataFrame, heap_b: float, blog: pd.DataFrame
) -> None:
    """Section 2's figure: the bucket grid, its theory, the heap line and the blog's stars."""
    from trackerlab.reporting.plots import (
        bytes_per_entry_axes,
        plot_bucket_grid,
        plot_published_points,
    )

    _, ax = bytes_per_entry_axes("Delayed-delivery trackers: bytes per entry")
    plot_bucket_grid(ax, table, curves, "blog AES")
    label = f"triple heap (JVM model, {heap_b:.3g} B incl. growth slack)"
    ax.axhline(heap_b, color="C3", ls=":", label=label)
    plot_published_points(ax, blog, "messages_per_bucket", "b_per_entry", "blog (jmap)")
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=2, frameon=False)


def tick_sweep(
    messages: int,
    rate_per_ms: float,
    ticks_ms: Sequence[int],
    *,
    entries_per_ledger: int,
    delay: str,
) -> pd.DataFrame:
    """``bucket_sweeps.precision`` at each tick's bucket bits, with the messages per point,
    the largest early delivery of tracker variant a (``tick + 2^bits - 1`` ms) and of
    variant c (``tick`` ms)."""
    rows = []
    for tick in ticks_ms:
        bits = precision_bits_for_tick(tick)
        part = sweeps.precision(
            messages,
            rate_per_ms,
            [bits],
            entries_per_ledger=entries_per_ledger,
            delay=delay,
            formula="timebucket",
        )
        part["messages"] = messages
        part["tick_ms"] = tick
        part["early_a_ms"] = tick + (1 << bits) - 1
        part["early_c_ms"] = tick
        rows.append(part)
    return pd.concat(rows, ignore_index=True)


def plot_tick_sweep(prec: pd.DataFrame, rate_per_ms: float) -> None:
    """Section 3's figure: JVM bytes per entry against variant a's early bound."""
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(9.6, 4.5), layout="constrained")
    for r, style in ((False, "o-"), (True, "s-")):
        part = prec[prec.run_optimize == r]
        label = "run-optimized" if r else "as Java builds it"
        ax.plot(part.early_a_ms, part.jvm_b_per_entry, style, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("largest early delivery of variant a, ms (tick + 2^bits - 1)")
    ax.set_ylabel("bytes per entry (JVM model, log)")
    ax.set_title(f"Tick against memory at {format_number(rate_per_ms)} messages/ms")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)


def show_tick_sweep(prec: pd.DataFrame, rate_per_ms: float) -> None:
    """Section 3's table: the tick sweep as Java builds it (:func:`tick_sweep`)."""
    show_table(
        prec,
        TICK_COLUMNS,
        name="tick-sweep",
        keep=~prec.run_optimize,
        caption=tick_caption(int(prec.messages.iloc[0]), rate_per_ms),
    )


def plot_container_mix(table: pd.DataFrame) -> None:
    """Section 4's figure: the bitset share of the grid as Java builds it, against M."""
    from trackerlab.reporting.plots import container_share, plot_container_share

    plot_container_share(container_share(table), MIX_TITLE)


def show_container_mix(table: pd.DataFrame) -> None:
    """Section 4's table: the containers of the grid as Java builds it; a long table keeps
    the rows at the default tick."""
    from trackerlab.reporting.plots import container_share

    mix = container_share(table)
    show_table(
        mix,
        MIX_COLUMNS,
        name="container-mix",
        keep=mix.trim_bits == default_bits(),
        max_rows=12,
        caption=MIX_CAPTION,
    )


def delay_spread(
    delays: Sequence[str],
    messages: int,
    rate_per_ms: float,
    tick_ms: int,
    *,
    entries_per_ledger: int,
    seed: int,
    samples: int,
) -> pd.DataFrame:
    """Section 5's table (:func:`snapshot_and_steady`): the snapshot of the first
    ``messages`` (``bucket_sweeps.random_delays``) and the steady state
    (``steady_state.steady_state``, ``samples`` sample times) of each delay at one rate
    and tick."""
    snap = sweeps.random_delays(
        messages,
        rate_per_ms,
        precision_bits_for_tick(tick_ms),
        delays,
        entries_per_ledger=entries_per_ledger,
        seed=seed,
        formula="timebucket",
        tick_ms=tick_ms,
    )
    rate_per_s = rate_per_ms * 1000
    steady = steady_state.steady_state(rate_per_s, delays, tick_ms=tick_ms, samples=samples)
    return snapshot_and_steady(snap, steady, delays, messages, rate_per_s)


def show_delay_spread(spread: pd.DataFrame) -> None:
    """Section 5's table: snapshot against steady state by delay."""
    show_table(spread, SPREAD_COLUMNS, caption=SPREAD_CAPTION)


def snapshot_and_steady(
    snap: pd.DataFrame,
    steady: pd.DataFrame,
    delays: Sequence[str],
    messages: int,
    rate_per_s: float,
) -> pd.DataFrame:
    """One row per delay: the snapshot of the first ``messages`` (``random_delays``) beside
    the steady state (``steady_state.steady_state``) of time buckets and the triple heap,
    and whether the snapshot equals the steady state (``snapshot_vs_steady``)."""
    wide = steady.pivot(index="delay", columns="design", values="bytes_per_entry")
    wide = wide.rename(columns={"time-buckets": "steady_buckets_b", "triple-heap": "steady_heap_b"})
    spread = snap.set_index("delay")[["entries", "buckets", "bitmaps", "jvm_b_per_entry"]].join(
        wide
    )
    buckets = steady[steady.design == "time-buckets"].set_index("delay")
    spread["steady_entries"] = buckets.entries
    spread["snapshot_is_steady"] = [
        steady_state.snapshot_vs_steady(d, messages, rate_per_s)[0] for d in spread.index
    ]
    return spread.reindex(list(delays)).reset_index()


def plot_snapshot_and_steady(
    spread: pd.DataFrame, messages: int, rate_per_ms: float, tick_ms: int
) -> None:
    """Section 5's figure: snapshot and steady state of time buckets, and the heap, by delay."""
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(9.6, 4), layout="constrained")
    x = np.arange(len(spread))
    snapshot_label = f"time buckets, snapshot of the first {format_number(messages)} messages"
    ax.plot(x, spread.jvm_b_per_entry, "o", ms=9, color="C1", label=snapshot_label)
    ax.plot(x, spread.steady_buckets_b, "D", ms=8, color="C0", label="time buckets, steady state")
    ax.plot(
        x, spread.steady_heap_b, "_", ms=22, mew=2.5, color="C3", label="triple heap, steady state"
    )
    ax.set_xticks(x, spread.delay)
    ax.set_xlim(-0.5, len(spread) - 0.5)
    ax.set_yscale("log")
    ax.set_ylabel("bytes per entry (JVM model, log)")
    ax.set_title(
        f"{format_number(rate_per_ms * 1000)} msg/s, {format_number(tick_ms)} ms tick: "
        "fixed against random delays"
    )
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)


@dataclass(frozen=True)
class DelayRow:
    """One row of :func:`snapshot_and_steady`, typed for the report's sentences."""

    delay: str
    entries: float
    bitmaps: float
    jvm_b_per_entry: float
    steady_buckets_b: float
    steady_heap_b: float


def spread_delay_rows(spread: pd.DataFrame) -> list[DelayRow]:
    """The rows of :func:`snapshot_and_steady` whose delay is not fixed, in table order."""
    rows = spread[~spread.delay.str.startswith("fixed")]
    columns = zip(
        rows.delay.tolist(),
        rows.entries.tolist(),
        rows.bitmaps.tolist(),
        rows.jvm_b_per_entry.tolist(),
        rows.steady_buckets_b.tolist(),
        rows.steady_heap_b.tolist(),
        strict=True,
    )
    return [
        DelayRow(str(d), float(e), float(b), float(jvm), float(steady), float(heap))
        for d, e, b, jvm, steady, heap in columns
    ]


def dearest_in_steady_state(rows: Sequence[DelayRow]) -> DelayRow | None:
    """The first row with the most time-bucket bytes per entry in steady state (missing
    values skipped, like ``idxmax``), or None when there is none."""
    known = [r for r in rows if not math.isnan(r.steady_buckets_b)]
    return max(known, key=lambda r: r.steady_buckets_b) if known else None


def jvm_at_tick(prec: pd.DataFrame, tick_ms: int, optimized: bool = False) -> float:
    """JVM bytes per entry of the tick sweep at ``tick_ms`` (NaN when it is not swept)."""
    rows = prec[(prec.tick_ms == tick_ms) & (prec.run_optimize == optimized)]
    return float(rows.jvm_b_per_entry.iloc[0]) if len(rows) else float("nan")


def conclusions(
    prec: pd.DataFrame,
    spread: pd.DataFrame,
    *,
    heap_b: float,
    counts: dict[str, int],
    published: int | None = None,
    random_messages: int,
    random_rate_per_ms: float,
    precision_rate_per_ms: float,
    run_optimize: bool,
) -> Findings:
    """The report's answer, headlines and bullets from the tick sweep (:func:`tick_sweep`)
    and the delay table (:func:`snapshot_and_steady`).

    The default point is the swept tick nearest the broker's 1 s, the coarse one the
    largest; the answer quotes delays uniform over 0-1 h when swept (else the first
    non-fixed delay), the second headline the non-fixed delay dearest in steady state.
    ``published`` is how many published numbers the reproduction checked (default: the
    total of ``counts``, one count per number).
    """
    if published is None:
        published = sum(counts.values())
    ticks = list(dict.fromkeys(prec.tick_ms.tolist()))
    default_tick = min(ticks, key=lambda t: abs(t - DEFAULT_TICK_MS))
    coarse_tick = max(ticks)
    fixed_default = jvm_at_tick(prec, default_tick)
    fixed_coarse = jvm_at_tick(prec, coarse_tick)
    runs_default = jvm_at_tick(prec, default_tick, True)
    spread_rows = spread_delay_rows(spread)
    hour = [r for r in spread_rows if r.delay == "uniform:0:1h"]
    chosen = (hour or spread_rows)[0] if spread_rows else None
    worst = dearest_in_steady_state(spread_rows)
    heap_steady = float(spread.steady_heap_b.median())
    rate_per_s = format_number(random_rate_per_ms * 1000)
    findings = Findings()
    if chosen is not None:
        findings.answer = _answer(default_tick, fixed_default, chosen, heap_steady, rate_per_s)
    findings.headlines.append(
        Headline(
            f"time buckets, fixed delay, {format_number(default_tick)} ms tick",
            f"{format_number(fixed_default, 3)} B/entry",
            f"{format_number(precision_rate_per_ms)} msg/ms, JVM model",
        )
    )
    if worst is not None:
        findings.headlines.append(_dearest_headline(worst, random_messages))
    findings.lines.append(
        f"* **Reproduction** of the {published} published numbers, once the Java objects are "
        f"counted: {describe_counts(counts)} (the blog's AES formula is the payload only)."
    )
    findings.lines += _tick_bullets(
        (default_tick, fixed_default, runs_default), (coarse_tick, fixed_coarse), heap_b,
        run_optimize,
    )  # fmt: skip
    findings.lines += [_delay_bullet(row, random_messages) for row in spread_rows]
    findings.lines.append(
        "* Pick the design by delay profile: the massive-delayed-messages report compares all "
        "four designs over days, with retention and restart costs."
    )
    return findings


def _answer(
    default_tick: float, fixed_b: float, chosen: DelayRow, heap_b: float, rate_per_s: str
) -> str:
    """The answer: time buckets at the default tick, fixed and spread, against the heap."""
    return (
        f"At the default {format_number(default_tick)} ms tick, time buckets cost "
        f"{format_number(fixed_b, 2)} B/entry when every message has the same delay "
        f"and {format_number(chosen.steady_buckets_b, 2)} B/entry in steady state with "
        f"delays {format_delay(chosen.delay)}; the triple heap costs "
        f"{format_number(heap_b, 2)} B/entry either way (at {rate_per_s} msg/s)."
    )


def _dearest_headline(worst: DelayRow, random_messages: int) -> Headline:
    """The headline of the delay dearest in steady state, with its snapshot's figure."""
    return Headline(
        f"time buckets, delays {format_delay(worst.delay)}",
        f"{format_number(worst.steady_buckets_b, 3)} B/entry in steady state",
        f"a snapshot of the first {format_number(random_messages)} messages shows "
        f"{format_number(worst.jvm_b_per_entry, 3)} B/entry",
    )


def _tick_bullets(
    default: tuple[float, float, float],
    coarse: tuple[float, float],
    heap_b: float,
    run_optimize: bool,
) -> list[str]:
    """Fixed delays at the default and the coarsest tick against the heap, and (when run
    containers were swept) what they would save. ``default``: (tick ms, B/entry, B/entry with
    run containers); ``coarse``: (tick ms, B/entry)."""
    (tick, fixed_b, runs_b), (coarse_tick, coarse_b) = default, coarse
    lines = [
        f"* **Fixed delays:** at the default {format_number(tick)} ms tick time buckets "
        f"cost {format_number(fixed_b, 3)} B/entry against the heap's "
        f"{format_number(heap_b, 3)} B ({format_number(heap_b / fixed_b, 2)}× less); "
        f"at a {format_number(coarse_tick)} ms tick {format_number(coarse_b, 3)} B/entry "
        f"({format_number(heap_b / coarse_b, 2)}× less)."
    ]
    if run_optimize:
        lines.append(
            f"* **Run containers** (not in Java) would bring the {format_number(tick)} "
            f"ms point to {format_number(runs_b, 3)} B/entry, "
            f"{format_number(fixed_b / runs_b, 2)}× below Java's bitmaps."
        )
    return lines


def _delay_bullet(row: DelayRow, random_messages: int) -> str:
    """One delay's steady-state bytes against the heap's, and why its snapshot differs."""
    verdict = "more" if row.steady_buckets_b > row.steady_heap_b else "less"
    return (
        f"* **Delays {format_delay(row.delay)}:** {format_number(row.steady_buckets_b, 3)} "
        f"B/entry in steady state, {verdict} than the heap's "
        f"{format_number(row.steady_heap_b, 3)} B; the snapshot of the first "
        f"{format_number(random_messages)} messages shows "
        f"{format_number(row.jvm_b_per_entry, 3)} B/entry because it spreads "
        f"{format_number(row.entries)} entries over {format_number(row.bitmaps)} bitmaps."
    )
