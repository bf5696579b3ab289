"""The pending-acks report (``notebooks/pending_acks.ipynb``): its tables, figures and
conclusions, computed from :mod:`pending_acks_sizes` and :mod:`pending_acks_op_cost`.

The notebook keeps its parameters, calls these functions and shows what they return.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import pandas as pd

from trackerlab.experiments import pending_acks_op_cost as op_cost
from trackerlab.experiments import pending_acks_sizes as sizes
from trackerlab.experiments.reproduce import describe_counts
from trackerlab.models.pending_acks import LAYOUTS
from trackerlab.reporting.findings import Findings, Headline
from trackerlab.reporting.formatting import format_bytes, format_number, format_percent
from trackerlab.reporting.tables import Column, show_table

LAYOUT_ORDER: list[str] = list(LAYOUTS)
SHORT: dict[str, str] = {name: name.removeprefix("pending-acks-") for name in LAYOUT_ORDER}
OLD, NEW = "pending-acks-treemap", "pending-acks-open-hash-bitset"  # the seed's two columns
KIB, MIB = 1024, 1024**2
REPRO_IDS: list[str] = [f"N{i}" for i in range(20, 44)]  # #26024's JOL numbers (section 1)

DATASET_COLUMNS: dict[str, str | Column] = {
    "dataset": "dataset",
    **{SHORT[n]: Column(f"{SHORT[n]} (KiB)", scale=KIB) for n in LAYOUT_ORDER},
}
WINDOW_COLUMNS: dict[str, str] = {
    "window": "window (entries)",
    "ledgers": "ledgers",
    **{SHORT[n]: f"{SHORT[n]} (B/entry)" for n in LAYOUT_ORDER},
}
HELD_COLUMNS: dict[str, str | Column] = {
    "layout": "layout",
    "bytes": Column("JVM KiB while the tail is held", scale=KIB),
}
RATIO_COLUMNS: dict[str, str | Column] = {
    "cycle": "cycle",
    "ledgers": "ledgers",
    **{SHORT[n]: Column(SHORT[n], fmt="{:.2f}") for n in LAYOUT_ORDER},
}
RATIO_CAPTIONS = {
    "touch_ratio": "Cache lines touched, as a ratio to treemap",
    "time_ratio": "Python time, as a ratio to treemap",
}
COST_COLUMNS: dict[str, str] = {
    "cycle": "cycle",
    "ledgers": "ledgers",
    "layout": "layout",
    "touches": "touches per op",
    "random": "random accesses",
    "streamed_bytes": "streamed (B)",
    "nodes": "nodes",
    "lookups": "lookups",
    "probes": "probes",
    "allocs": "allocations",
    "alloc_bytes": "allocated (B)",
}
DIRECTION_COLUMNS: dict[str, str | Column] = {
    "cycle": "cycle",
    "ledgers": "ledgers",
    "seed_change": Column("seed JMH change", fmt=format_percent),
    "touch_change": Column("touches change", fmt=format_percent),
    "python_change": Column("Python time change", fmt=format_percent),
    "touches_agree": "touches pick the seed's winner",
    "python_agree": "Python time picks the seed's winner",
}


def colors() -> dict[str, str]:
    """Each layout's short name -> its colour (the same in every report)."""
    from trackerlab.catalog.colors import design_color

    return {SHORT[name]: design_color(name) for name in LAYOUT_ORDER}


def worst_reproduced(repro: pd.DataFrame) -> float:
    """Largest ``|model / published - 1|`` over the rows categorised as reproduced."""
    return repro.loc[repro["category"] == "reproduced", "ratio"].sub(1).abs().max()


def plot_reproduction(repro: pd.DataFrame) -> None:
    """Section 1's figure: model / published - 1 per id, with the ±3% band."""
    import matplotlib.pyplot as plt

    from trackerlab.reporting.plots import legend_outside

    _, ax = plt.subplots(figsize=(9, 3.4), layout="constrained")
    ax.axhspan(-3, 3, color="#d9d9d9", zorder=0, label="±3% band")
    ax.bar(repro.index, (repro["ratio"] - 1) * 100, color="#2a9d8f", label="JVM model against JOL")
    ax.set_ylabel("model / published - 1 (%)")
    ax.set_title("JVM layout model against the JOL numbers of #26024")
    ax.tick_params(axis="x", rotation=90)
    legend_outside(ax)


def case_label(entries: int, ledgers: int) -> str:
    """A dataset's name in the tables: ``50,000 entries / 1 ledgers``."""
    return f"{entries:,} entries / {ledgers} ledgers"


def by_dataset(table: pd.DataFrame, value: str) -> pd.DataFrame:
    """``value`` (``jvm_bytes`` or ``python_bytes``) of ``sizes.size_table``: one row per
    seed dataset in :data:`sizes.SEED_CASES` order, one column per layout (full names)."""
    case = table["entries"].map("{:,}".format) + " entries / " + table["ledgers"].astype(str)
    table = table.assign(case=case + " ledgers")
    order = [case_label(e, n) for e, n in sizes.SEED_CASES]
    return table.pivot(index="case", columns="layout", values=value)[LAYOUT_ORDER].loc[order]


def seed_sizes(python_sizes: bool) -> pd.DataFrame:
    """``sizes.size_table`` of every layout on the seed's datasets (Python-real bytes too
    when ``python_sizes``)."""
    return sizes.size_table(LAYOUT_ORDER, sizes.SEED_CASES, python=python_sizes)


def dataset_table(wide: pd.DataFrame) -> pd.DataFrame:
    """:func:`by_dataset` with short layout names, for :data:`DATASET_COLUMNS`."""
    return wide.rename(columns=SHORT).rename_axis("dataset")


def show_datasets(table: pd.DataFrame, python_sizes: bool) -> pd.DataFrame:
    """The seed datasets' JVM bytes per layout as a table, and their Python-real bytes when
    ``python_sizes``; returns the JVM frame (:func:`by_dataset`)."""
    jvm = by_dataset(table, "jvm_bytes")
    show_table(dataset_table(jvm), DATASET_COLUMNS, caption="JVM bytes per layout (KiB)")
    if python_sizes:
        show_table(
            dataset_table(by_dataset(table, "python_bytes")),
            DATASET_COLUMNS,
            caption="Python-real bytes per layout (KiB)",
        )
    return jvm


def plot_window_grid(grid: pd.DataFrame, window_sizes: Sequence[int]) -> None:
    """Section 3's figure: JVM bytes per entry against ledgers, one panel per window."""
    import matplotlib.pyplot as plt

    from trackerlab.reporting.plots import legend_outside, plot_lines

    grid = grid.assign(short=grid["layout"].map(SHORT))
    fig, axes = plt.subplots(
        1, len(window_sizes), figsize=(9.6, 3.8), sharey=True, squeeze=False, layout="constrained"
    )
    for ax, window in zip(axes[0], window_sizes, strict=False):
        part = grid[grid["window"] == window]
        plot_lines(ax, part, "ledgers", "jvm_bytes_per_entry", "short", colors=colors())
        for line in ax.get_lines():
            line.set_marker("o")
        ax.set_xscale("log")
        ax.set_title(f"window {window:,} entries")
        ax.set_xlabel("ledgers in the window (log)")
        ax.set_ylim(bottom=0)
    axes[0][0].set_ylabel("JVM bytes per entry")
    legend_outside(fig)


def window_grid(window_sizes: Sequence[int], ledger_spreads: Sequence[int]) -> pd.DataFrame:
    """``sizes.bytes_per_entry_grid`` of every layout over the windows and ledger spreads."""
    return sizes.bytes_per_entry_grid(LAYOUT_ORDER, window_sizes, ledger_spreads)


def window_table(grid: pd.DataFrame) -> pd.DataFrame:
    """JVM bytes per entry by (window, ledgers), one column per layout (short names)."""
    wide = grid.pivot_table(
        index=["window", "ledgers"], columns="layout", values="jvm_bytes_per_entry"
    )
    return wide[LAYOUT_ORDER].rename(columns=SHORT)


def show_window_table(grid: pd.DataFrame) -> None:
    """:func:`window_table` as a reader's table."""
    show_table(
        window_table(grid),
        WINDOW_COLUMNS,
        name="bytes-per-entry",
        caption="JVM bytes per pending entry",
    )


def retention(peak: int, keep: int) -> pd.DataFrame:
    """``sizes.retention_timeline`` of every layout, one frame."""
    return pd.concat([sizes.retention_timeline(layout, peak, keep) for layout in LAYOUT_ORDER])


def plot_retention(timeline: pd.DataFrame, peak: int, keep: int) -> None:
    """Section 4's first figure: JVM MiB over the checkpoints, drain and hold shaded."""
    import matplotlib.pyplot as plt

    from trackerlab.reporting.plots import legend_outside, plot_lines

    timeline = timeline.assign(short=timeline["layout"].map(SHORT))
    _, ax = plt.subplots(figsize=(9.6, 3.8), layout="constrained")
    plot_lines(ax, timeline, "t", "jvm_bytes", "short", scale=MIB, step=True, colors=colors())
    for phase, color in (("drain", "#f4f1de"), ("hold", "#e9c46a")):
        span = timeline[timeline["phase"] == phase]["t"]
        ax.axvspan(span.min() - 1, span.max(), color=color, alpha=0.35, lw=0)
    ax.set_xlabel("checkpoint (ramp, drain, hold shaded, bucket dropped)")
    ax.set_ylabel("JVM MiB")
    ax.set_title(f"One ledger: peak {peak:,} entries, then {keep:,} kept")
    ax.set_ylim(bottom=0)
    legend_outside(ax)


def held_bytes(timeline: pd.DataFrame) -> pd.Series:
    """JVM bytes of each layout at the last checkpoint of the hold phase (full names)."""
    held = timeline[timeline["phase"] == "hold"].groupby("layout")["jvm_bytes"].last()
    return held.reindex(LAYOUT_ORDER)


def held_table(held: pd.Series) -> pd.DataFrame:
    """:func:`held_bytes` with short names, for :data:`HELD_COLUMNS`."""
    return held.rename(index=SHORT).rename_axis("layout").to_frame("bytes")


def show_held(timeline: pd.DataFrame, peak: int, keep: int) -> pd.Series:
    """:func:`held_table` of the timeline's held tail as a reader's table; returns
    :func:`held_bytes`."""
    held = held_bytes(timeline)
    show_table(
        held_table(held), HELD_COLUMNS, caption=f"{keep:,} entries pending after a peak of {peak:,}"
    )
    return held


def stuck_entry(window: int) -> pd.DataFrame:
    """``sizes.stuck_entry_timeline`` of every layout (4 ledgers of ``window`` entries), with
    JVM bytes per pending entry."""
    stuck = pd.concat(
        [
            sizes.stuck_entry_timeline(layout, window=window, ledgers=4, entries_per_ledger=window)
            for layout in LAYOUT_ORDER
        ]
    )
    stuck["bytes_per_entry"] = stuck["jvm_bytes"] / stuck["entries"]
    return stuck


def plot_stuck_entry(stuck: pd.DataFrame, window: int) -> None:
    """Section 4's second figure: bytes per pending entry with one entry of ledger 0 stuck."""
    import matplotlib.pyplot as plt

    from trackerlab.reporting.plots import legend_outside, plot_lines

    stuck = stuck.assign(short=stuck["layout"].map(SHORT))
    _, ax = plt.subplots(figsize=(9.6, 3.6), layout="constrained")
    plot_lines(ax, stuck, "t", "bytes_per_entry", "short", colors=colors())
    ax.set_xlabel("entries dispatched")
    ax.set_ylabel("JVM bytes per pending entry")
    ax.set_title(f"Rolling window of {window:,} entries with one entry of ledger 0 stuck")
    ax.set_ylim(bottom=0)
    legend_outside(ax)


def bench_costs(ledgers: Sequence[int], entries: int, ops: int, repeats: int) -> pd.DataFrame:
    """``op_cost.run_bench`` of every layout over the seed's cycles at ``ledgers`` spreads:
    ``entries`` pending entries, ``ops`` operations per run, the best of ``repeats``."""
    cfg = op_cost.BenchConfig(
        layouts=tuple(LAYOUT_ORDER),
        ledgers=tuple(ledgers),
        entries=entries,
        ops=ops,
        repeats=repeats,
    )
    return op_cost.run_bench(cfg)


def seed_direction(costs: pd.DataFrame) -> pd.DataFrame:
    """``op_cost.seed_direction``: the seed's JMH winner of each cell against the models'."""
    return op_cost.seed_direction(costs)


def ratio_table(costs: pd.DataFrame, value: str) -> pd.DataFrame:
    """``value`` (``touch_ratio``, ``time_ratio``) of ``run_bench`` by (cycle, ledgers), one
    column per layout (short names), cycles in run order."""
    wide = costs.pivot_table(index=["cycle", "ledgers"], columns="layout", values=value, sort=False)
    return wide[LAYOUT_ORDER].rename(columns=SHORT)


def show_costs(costs: pd.DataFrame) -> None:
    """The benchmark's cost counts as tables: one :func:`ratio_table` per
    :data:`RATIO_CAPTIONS` entry, then every count (treemap and open-hash-bitset when long)."""
    for value, caption in RATIO_CAPTIONS.items():
        show_table(ratio_table(costs, value), RATIO_COLUMNS, caption=caption, max_rows=40)
    show_table(
        costs,
        COST_COLUMNS,
        name="operation-costs",
        keep=costs.layout.isin([OLD, NEW]),
        max_rows=16,
        caption="Per-operation cost counts (treemap and open-hash-bitset when long)",
    )


def plot_direction(direction: pd.DataFrame) -> None:
    """Section 5's figure: the seed's JMH change against the change in touches, per cell."""
    import matplotlib.pyplot as plt

    from trackerlab.reporting.plots import legend_outside

    _, ax = plt.subplots(figsize=(9, 4.8), layout="constrained")
    labels = direction["cycle"].str.replace("Cycle", "") + " / " + direction["ledgers"].astype(str)
    x = range(len(direction))
    ax.bar([i - 0.2 for i in x], direction["seed_change"] * 100, width=0.4, label="seed JMH")
    ax.bar([i + 0.2 for i in x], direction["touch_change"] * 100, width=0.4, label="touches")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(list(x), labels, rotation=60, ha="right", fontsize=9)
    ax.set_ylabel("open-hash-bitset against treemap (%)")
    ax.set_title("Where the primitive layout wins (below 0) and loses (above 0)")
    legend_outside(ax)


def show_direction(direction: pd.DataFrame) -> None:
    """:func:`seed_direction` as a reader's table."""
    show_table(
        direction,
        DIRECTION_COLUMNS,
        caption="The seed's JMH direction against the models",
        max_rows=40,
    )


def one_ledger(jvm: pd.DataFrame) -> tuple[int, pd.Series]:
    """The largest seed dataset with one ledger: its entries and its row of
    :func:`by_dataset` (JVM bytes per layout)."""
    entries = max(e for e, n in sizes.SEED_CASES if n == 1)
    row = jvm.loc[case_label(entries, 1)]
    # the datasets are unique labels, so .loc of one selects a row (the stubs allow a frame)
    return entries, cast("pd.Series", row)


def touch_wins(direction: pd.DataFrame) -> int:
    """Cells of :func:`seed_direction` where open-hash-bitset touches fewer cache lines."""
    return int((direction["touch_change"] < 0).sum())


def touches_agree(direction: pd.DataFrame) -> int:
    """Cells of :func:`seed_direction` where the touches pick the seed's JMH winner."""
    return int(direction["touches_agree"].sum()) if not direction.empty else 0


def answer(jvm: pd.DataFrame, held: pd.Series, direction: pd.DataFrame, retention_keep: int) -> str:
    """The report's answer: one ledger's bytes, the cycles won, the stuck tail."""
    entries, row = one_ledger(jvm)
    old, new = row[OLD], row[NEW]
    return (
        f"For {entries:,} pending entries of one ledger, #26024's open-hash-bitset layout "
        f"holds {format_bytes(new)} ({format_number(new / entries, 3)} B/entry) against "
        f"{format_bytes(old)} ({format_number(old / entries, 3)} B/entry) for the TreeMap it "
        f"replaces; it touches fewer cache lines in {touch_wins(direction)} of {len(direction)} "
        f"benchmark cycles, but a stuck tail of {retention_keep:,} entries keeps "
        f"{format_bytes(held[NEW])} against {format_bytes(held[OLD])}."
    )


def headlines(jvm: pd.DataFrame, direction: pd.DataFrame, worst: float) -> list[Headline]:
    """The index's figures: one ledger's open-hash-bitset bytes and the JMH winners matched."""
    entries, row = one_ledger(jvm)
    return [
        Headline(
            f"open-hash-bitset, {entries:,} entries in 1 ledger",
            format_bytes(row[NEW]),
            f"TreeMap {format_bytes(row[OLD])}; JVM model within {format_percent(worst)} of "
            "every reproduced JOL number",
        ),
        Headline(
            "JMH winner matched by the cost model",
            f"{touches_agree(direction)} of {len(direction)} cells",
            "estimated cache lines touched, treemap against open-hash-bitset",
        ),
    ]


def reproduction_bullet(counts: dict[str, int], published: int, worst: float) -> str:
    """How many of the ``published`` JOL numbers the JVM model reproduces."""
    return (
        f"* **Reproduction** of the {published} JOL numbers: {describe_counts(counts)}; the JVM "
        f"model is within {format_percent(worst)} of every reproduced one."
    )


def smallest_bullet(jvm: pd.DataFrame) -> str:
    """The smallest layout for the one-ledger dataset, against the TreeMap."""
    entries, row = one_ledger(jvm)
    smallest = str(row.idxmin())  # a layout name (the column labels are str)
    return (
        f"* **Smallest layout** for {entries:,} entries in one ledger: {SHORT[smallest]} with "
        f"{format_bytes(row[smallest])} ({format_number(row[smallest] / entries, 3)} B/entry); "
        f"the TreeMap needs {format_number(row[OLD] / row[smallest], 2)}× as much."
    )


def window_bullets(grid: pd.DataFrame, window_sizes: Sequence[int]) -> list[str]:
    """Per window: the cheapest and dearest layout at the widest ledger spread."""
    lines = []
    for window in window_sizes:
        part = grid[grid["window"] == window]
        spread = part.ledgers.max()
        at = part[part.ledgers == spread].set_index("layout").jvm_bytes_per_entry
        lines.append(
            f"* **Window of {window:,} entries over {spread} ledgers:** {SHORT[at.idxmin()]} "
            f"{format_number(at.min(), 3)} B/entry, {SHORT[at.idxmax()]} "
            f"{format_number(at.max(), 3)} B/entry."
        )
    return lines


def retention_bullet(held: pd.Series, retention_peak: int, retention_keep: int) -> str:
    """The tail held after the peak: open-hash-bitset against the TreeMap."""
    return (
        f"* **Retention:** with {retention_keep:,} entries left after a {retention_peak:,} peak, "
        f"the hash layouts keep their peak arrays: open-hash-bitset {format_bytes(held[NEW])} "
        f"against the TreeMap's {format_bytes(held[OLD])}."
    )


def speed_bullet(direction: pd.DataFrame) -> str:
    """The seed's JMH winners matched by the cost model, and the cells won on touches."""
    return (
        f"* **Speed:** the cost model picks the seed's JMH winner in {touches_agree(direction)} "
        f"of {len(direction)} cells; the primitive layout touches fewer cache lines in "
        f"{touch_wins(direction)} of them."
    )


def conclusions(
    jvm: pd.DataFrame,
    grid: pd.DataFrame,
    held: pd.Series,
    direction: pd.DataFrame,
    *,
    worst: float,
    counts: dict[str, int],
    published: int,
    window_sizes: Sequence[int],
    retention_peak: int,
    retention_keep: int,
) -> Findings:
    """The report's answer, headlines and bullets from the seed datasets (:func:`by_dataset`
    of JVM bytes), the window grid, the held tail (:func:`held_bytes`) and the JMH direction
    (:func:`seed_direction`); ``worst`` is :func:`worst_reproduced`.

    The one-ledger dataset is the largest seed dataset with one ledger (:func:`one_ledger`);
    each window bullet quotes the cheapest and dearest layout at the window's widest ledger
    spread.
    """
    findings = Findings(answer=answer(jvm, held, direction, retention_keep))
    findings.headlines += headlines(jvm, direction, worst)
    findings.lines += [
        reproduction_bullet(counts, published, worst),
        smallest_bullet(jvm),
        *window_bullets(grid, window_sizes),
        retention_bullet(held, retention_peak, retention_keep),
        speed_bullet(direction),
    ]
    return findings
