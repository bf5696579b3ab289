"""The massive_delayed report's tables, figures and sentences for a reader.

:mod:`trackerlab.experiments.massive_report` computes the frames and the numbers
(:class:`~trackerlab.experiments.massive_report.MassiveFigures`); these functions show them
and write the sentences with the report's number formats (:func:`format_number`,
:func:`format_delay`). pyplot is imported inside the plotting functions, as in
:mod:`trackerlab.reporting.plots`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from trackerlab.experiments import massive_report as mr
from trackerlab.experiments import steady_state
from trackerlab.experiments.massive_delayed import (
    COLORS,
    MIB,
    DelayedResult,
    DelayedScenario,
    extras_table,
    reader_summary,
)
from trackerlab.reporting.formatting import format_delay, format_duration, format_number
from trackerlab.reporting.headline import answer, headline
from trackerlab.reporting.markdown import show_conclusions, show_markdown
from trackerlab.reporting.plots import plot_lines
from trackerlab.reporting.tables import Column, show_table

__all__ = [
    "answer_for",
    "answer_text",
    "conclusion_lines",
    "mixture_caption",
    "n12_caption",
    "show_choice",
    "show_conclusion_section",
    "show_extras",
    "show_n12_headlines",
    "show_profile_memory",
    "show_profile_tables",
    "show_series",
    "show_speed",
    "show_summary",
    "show_validation",
]


def n12_caption(scenario: DelayedScenario) -> str:
    """The N12 summary's caption: rate, delays, batch, subscriptions and days of ``scenario``."""
    return (f"N12: {format_number(scenario.rate_per_s)} msg/s, delays {format_delay(scenario.delay)}, "
            f"batches of {scenario.batch_size}, {scenario.subscriptions} subscriptions, "
            f"{format_number(scenario.days)} days")  # fmt: skip


def mixture_caption(scenario: DelayedScenario) -> str:
    """The mixture summary's caption: delays and days of ``scenario``."""
    return f"Delays {format_delay(scenario.delay)}, {format_number(scenario.days)} days"


def show_series(
    result: DelayedResult, column: str, ylabel: str, title: str, scale: float = MIB
) -> None:
    """One line per design over simulated days (designs that coincide share a line), shown."""
    import matplotlib.pyplot as plt

    series = result.series().assign(days=lambda f: f.time_h / 24)
    _fig, ax = plt.subplots(figsize=(9.6, 4.8), layout="constrained")
    plot_lines(ax, series, "days", column, "design", colors=COLORS, scale=scale, log=True)
    ax.set_xlabel("simulated time (days)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    plt.show()


def show_summary(result: DelayedResult, caption: str) -> pd.DataFrame:
    """The per-design summary with the steady-state bytes per entry; returns the latter
    (:func:`~trackerlab.experiments.steady_state.bytes_per_entry`)."""
    table = reader_summary(result.summary())
    per_entry = steady_state.bytes_per_entry(result)
    table["steady-state bytes per entry (B)"] = per_entry.bytes_per_entry
    show_table(table.rename_axis("design"), caption=caption, sig=3)
    if not per_entry.steady.all():
        show_markdown(f"*Not steady: the run ends before its warm-up "
                      f"({format_duration(result.scenario.warmup_s * 1000)}), so bytes per entry are "
                      "those of the last sample.*")  # fmt: skip
    return per_entry


def show_profile_tables(runs: Mapping[str, DelayedResult]) -> None:
    """Section 3's five tables, one per quantity."""
    for caption, frame in mr.profile_tables(runs):
        show_table(frame, caption=caption)


def show_profile_memory(results: Mapping[str, pd.DataFrame], floor: float = 1e-3) -> None:
    """Index memory at the end by delay profile and design (log axis; 0 drawn at ``floor``)."""
    import matplotlib.pyplot as plt

    memory = mr.by_profile(results, "memory_steady_bytes", MIB)
    designs = list(next(iter(results.values())).index)
    _fig, ax = plt.subplots(figsize=(9.6, 0.9 * len(memory) + 1.6), layout="constrained")
    y = np.arange(len(memory))
    for offset, design in zip(np.linspace(-0.24, 0.24, len(designs)), designs, strict=True):
        ax.plot(
            memory[design].clip(lower=floor),
            y + offset,
            "o",
            ms=8,
            color=COLORS[design],
            label=design,
        )
    ax.set_yticks(y, memory.index)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel(f"in-memory index at the end (MiB, log; 0 shown at {floor:g})")
    ax.set_title("Index memory by delay profile and design")
    ax.grid(True, axis="x", which="both", alpha=0.25)
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    plt.show()


def show_extras(result: DelayedResult) -> None:
    """Each design's own figures at the end of ``result`` (:func:`extras_table`), long form."""
    show_table(extras_table(result), {"design": "design", "quantity": "quantity", "value": "value"},
               caption="Per-design figures of the mixture run", max_rows=40)  # fmt: skip


def show_choice(results: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The design each profile calls for (:func:`~trackerlab.experiments.massive_report.choice_table`),
    shown; returns the table."""
    choice = mr.choice_table(results)
    show_table(choice, caption="The design each profile calls for")
    return choice


def show_speed(named: Mapping[str, DelayedResult]) -> None:
    """Simulated days per second of each named run (:func:`~trackerlab.experiments.massive_report.speed_table`)."""
    show_table(mr.speed_table(named), caption="Aggregated simulation speed (four designs)")


def show_validation(validation: pd.DataFrame) -> None:
    """Section 4: the aggregated model against per-message runs."""
    show_table(validation, {"design": "design", "delay": "delay", "entries": "entries",
                            "mean bytes ratio": Column("mean bytes, aggregated / per-message", sig=4),
                            "peak bytes ratio": Column("peak bytes, aggregated / per-message", sig=4),
                            "within 5%": "within 5%"},
               caption="The aggregated model against per-message runs")  # fmt: skip


def answer_text(
    f: mr.MassiveFigures,
    rate_per_s: float,
    seed_delay: str,
    batch_size: int,
    subscriptions: int,
    mixed_delay: str,
) -> str:
    """The report's answer: N12's heap and PIP-195 memory, the mixture's retention."""
    return (
        f"At {format_number(rate_per_s)} msg/s with every message delayed "
        f"{format_delay(seed_delay).removeprefix('fixed at ')} "
        f"in batches of {batch_size} ({subscriptions} subscriptions), the triple heap holds "
        f"{format_number(f.heap_mib)} MiB and PIP-195 buckets {format_number(f.pip_mib)} MiB; with "
        f"delays {format_delay(mixed_delay)}, every single-topic design keeps ledgers for up to "
        f"{format_number(f.single_days, 2)} days while delay-level topics keep them "
        f"{format_number(f.levels_days, 2)} days and index {format_number(f.levels_mib)} MiB."
    )


def answer_for(f: mr.MassiveFigures, n12: DelayedScenario, mixed: DelayedScenario) -> str:
    """:func:`answer_text` with the rate, delays, batch and subscriptions of the N12 and the
    mixture scenarios."""
    return answer_text(f, n12.rate_per_s, n12.delay, n12.batch_size, n12.subscriptions, mixed.delay)


def show_conclusion_section(
    n12: DelayedResult,
    mixed: DelayedResult,
    n12_entry: pd.DataFrame,
    choice: pd.DataFrame,
    validation: pd.DataFrame,
) -> None:
    """The conclusions: the answer (:func:`answer_for`), N12's headlines and the conclusion
    bullets (:func:`conclusion_lines`), from the figures of the N12 and the mixture runs."""
    f = mr.figures(n12.summary(), mixed.summary())
    answer(answer_for(f, n12.scenario, mixed.scenario))
    show_n12_headlines(f, n12_entry, n12.scenario.subscriptions, n12.scenario.days)
    show_conclusions(conclusion_lines(f, n12_entry, choice, validation))


def show_n12_headlines(
    f: mr.MassiveFigures, n12_entry: pd.DataFrame, subscriptions: int, days: float
) -> None:
    """N12's heap and PIP-195 headlines."""
    headline(f"N12 triple heap, {subscriptions} subscriptions", f"{format_number(f.heap_mib)} MiB",
             f"{format_number(n12_entry.loc['triple-heap', 'bytes_per_entry'], 3)} B/entry in steady "
             "state; the seed's 396 MB is the 24 B payload")  # fmt: skip
    headline(f"N12 PIP-195 buckets, {subscriptions} subscriptions", f"{format_number(f.pip_mib)} MiB",
             f"{format_number(f.pip_snapshots_mib)} MiB of snapshots written in {format_number(days)} days")  # fmt: skip


def conclusion_lines(
    f: mr.MassiveFigures, n12_entry: pd.DataFrame, choice: pd.DataFrame, validation: pd.DataFrame
) -> list[str]:
    """The conclusions: memory, retention, restart, the design per profile, the check."""
    lines = [
        f"* **Memory (problem 1):** for N12 the heap holds {format_number(f.heap_mib)} MiB "
        f"({format_number(n12_entry.loc['triple-heap', 'bytes_per_entry'], 3)} B/entry in steady "
        f"state), time buckets {format_number(f.time_buckets_mib)} MiB, PIP-195 "
        f"{format_number(f.pip_mib)} MiB and delay-level topics {format_number(f.levels_n12_mib)} MiB.",
        f"* **Retention (problem 2):** with the mixture every single-topic design keeps ledgers up to "
        f"{format_number(f.single_days, 2)} days and holds {format_number(f.single_storage_gib)} GiB; "
        f"delay-level topics keep {format_number(f.levels_days, 2)} days and "
        f"{format_number(f.levels_storage_gib)} GiB.",
        f"* **Restart (problem 3):** after the mixture a restart rebuilds "
        f"{format_number(f.heap_recovery)} indexes with the heap, {format_number(f.pip_recovery)} "
        f"with PIP-195 and {format_number(f.levels_recovery)} with delay levels.",
    ]
    for delay, design in zip([str(d) for d in choice.index], choice["pick"], strict=True):
        amplification = format_number(choice.loc[delay, "write amplification of levels"], 3)
        lines.append(f"* **Delays {format_delay(delay)}:** {design} (write amplification of delay "
                     f"levels {amplification}).")  # fmt: skip
    ok = int(validation["within 5%"].sum())
    lines.append(f"* **Checked:** {ok} of {len(validation)} per-message runs agree with the "
                 "aggregated model within 5 % (mean and peak bytes).")  # fmt: skip
    return lines
