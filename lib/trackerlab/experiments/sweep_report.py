"""Tables and figures of the Spark sweep report (``notebooks/spark_sweeps.ipynb``).

Reads a sweep folder with pandas/pyarrow only (:func:`trackerlab.spark.store.read_sweep`),
so rendering needs no Spark. When the folder is missing or empty (a fresh clone before
``trackerlab sweep`` ran) :func:`load_results` computes a shrunken copy of the profile's grid
in this process with the single-process pyroaring path
(:func:`trackerlab.spark.rows.index_rows`, which builds each
:class:`~trackerlab.models.time_buckets.time_bucket_index.TimeBucketIndex` through
:mod:`trackerlab.models.delayed.time_bucket_runs`) and says so in :attr:`Results.source`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from trackerlab.core.paths import data_dir, display_path
from trackerlab.spark.grid import DESIGNS, Grid, GridPoint, load_profile
from trackerlab.spark.rows import index_rows
from trackerlab.spark.store import read_sweep

#: Short plot labels of the catalog designs a sweep sizes.
DESIGN_LABELS = {
    "nack-time-buckets": "PIP-393 time buckets (Java add)",
    "nack-time-buckets-runs": "PIP-393 time buckets, runOptimize()",
    "time-buckets": "delayed time buckets (Java add)",
    "time-buckets-runs": "delayed time buckets, runOptimize()",
    "triple-heap": "TripleLongPriorityQueue (heap + direct)",
    "nack-pair-map": "ConcurrentLongLongPairHashMap (nacks before PIP-393)",
}


@dataclass
class Results:
    frame: pd.DataFrame
    source: str  # one line: where the numbers come from
    from_spark: bool
    folder: Path


def sweep_folder(profile: str, folder: str = "") -> Path:
    """``folder`` if given, else ``data/sweeps/<profile>``."""
    return Path(folder) if folder else data_dir() / "sweeps" / profile


def shrink_grid(grid: Grid, messages: int) -> list[GridPoint]:
    """The grid's points with each block's largest point cut to ``messages`` and the others
    in proportion (at least 1,000): same rates, buckets, delays and designs."""
    largest: dict[str, int] = {}
    for p in grid.points:
        largest[p.block] = max(largest.get(p.block, 0), p.workload.messages)
    points = []
    seen = set()
    for p in grid.points:
        n = max(1000, round(p.workload.messages * min(1.0, messages / largest[p.block])))
        q = dataclasses.replace(p, workload=dataclasses.replace(p.workload, messages=n))
        if q.key not in seen:
            seen.add(q.key)
            points.append(q)
    return points


def fallback_rows(points: list[GridPoint]) -> pd.DataFrame:
    """Rows of ``points`` from the single-process path, timed per point."""
    rows: list[dict[str, object]] = []
    for p in points:
        t0 = time.perf_counter()
        point_rows = index_rows(p)
        seconds = time.perf_counter() - t0
        rows.extend({**r, "wall_s": seconds, "task_s": seconds} for r in point_rows)
    return pd.DataFrame(rows)


def load_results(profile: str, folder: str = "", fallback_messages: int = 20_000) -> Results:
    """The sweep's rows, or the single-process fallback when the folder has none."""
    path = sweep_folder(profile, folder)
    try:
        frame = read_sweep(path)
    except FileNotFoundError:
        frame = pd.DataFrame()
    if len(frame):
        commits = ", ".join(sorted(set(frame.git_commit.str[:10])))
        point_count = frame.point_id.nunique()
        source = (
            f"Spark sweep {display_path(path)} ({point_count} points, {frame.master.iloc[0]}, "
            f"commit {commits})"
        )
        return Results(frame, source, True, path)
    grid = load_profile(profile)
    points = shrink_grid(grid, fallback_messages)
    frame = fallback_rows(points)
    source = (
        f"single-process fallback: no sweep results in {display_path(path)}; {len(points)} points of "
        f"profile {profile!r} at up to {fallback_messages:,} messages each "
        f"(run `trackerlab sweep --profile {profile}` for the real scale)"
    )
    return Results(frame, source, False, path)


# --------------------------------------------------------------------------- tables


def in_block(frame: pd.DataFrame, name: str) -> pd.Series:
    """Rows whose point belongs to block ``name`` (a point may serve several blocks)."""
    return frame.block.str.split(",").map(lambda blocks: name in blocks)


def heatmap_table(frame: pd.DataFrame, design: str, random_delay: bool) -> pd.DataFrame:
    """JVM bytes per entry (heap + direct) over rate (rows) x trim bits (columns) for one
    design, on the ``heatmap`` block (default JVM shape)."""
    rows = frame[
        in_block(frame, "heatmap")
        & (frame.design == design)
        & (frame.random_delay == random_delay)
        & (frame["shape"].isna() | (frame["shape"] == "avl-openhash"))
    ]
    return rows.pivot_table(
        index="rate_per_ms", columns="trim_bits", values="jvm_bytes_per_entry", aggfunc="mean"
    )


def random_penalty(frame: pd.DataFrame, design: str = "nack-time-buckets") -> pd.DataFrame:
    """Random over fixed delay, bytes per entry, per (rate, trim bits) of the heatmap."""
    return heatmap_table(frame, design, True) / heatmap_table(frame, design, False)


def scenario_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The seed's scenario block: bytes per entry and total MiB per design, batch, tick and
    delay (MiB = 2^20 bytes, JVM heap + direct)."""
    rows = frame[
        in_block(frame, "seed-scenario")
        & (frame["shape"].isna() | (frame["shape"] == "avl-openhash"))
    ]
    table = rows.assign(
        jvm_mib=rows.jvm_total_bytes / 2**20,
        python_mib=rows.python_bytes / 2**20,
    )[
        [
            "messages",
            "batch_size",
            "tick_ms",
            "delay",
            "design",
            "entries",
            "jvm_bytes_per_entry",
            "jvm_bytes_per_message",
            "jvm_mib",
            "python_mib",
            "buckets",
            "bitmaps",
        ]
    ]
    return table.sort_values(["batch_size", "tick_ms", "delay", "design"]).reset_index(drop=True)


def scaling_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Seconds per 1e6 messages against N (the ``scaling`` block, one row per point): the
    wall time of the point's own Spark job (NaN when it shared one with other points) and
    the task time of generation and reduction summed over cores."""
    rows = frame[in_block(frame, "scaling")].drop_duplicates("point_id")
    rows = rows.sort_values(["delay", "messages"])
    millions = rows.messages.to_numpy() / 1e6
    alone = rows.wave_points.to_numpy() == 1 if "wave_points" in rows else np.ones(len(rows), bool)
    wall = np.where(alone, rows.wall_s.to_numpy(), np.nan)
    return pd.DataFrame(
        {
            "delay": rows.delay.to_numpy(),
            "messages": rows.messages.to_numpy(),
            "wall_s": wall,
            "wall_s_per_1e6": wall / millions,
            "task_s_per_1e6": rows.task_s.to_numpy() / millions,
        }
    )


def by_trim_bits(table: pd.DataFrame) -> pd.DataFrame:
    """A rate x trim-bits table (:func:`heatmap_table`, :func:`random_penalty`) with the
    reader's labels: columns ``y = 8 bits``, index ``rate x (msg/ms)``."""
    return table.rename(columns=lambda c: f"y = {c} bits").rename_axis("rate x (msg/ms)")


#: The seed's scenario: the TimeBucket blog's 10,000 msg/s.
SEED_RATE_PER_S = 10_000.0
#: The columns a snapshot and its steady state are matched on.
STEADY_KEYS = ["batch_size", "tick_ms", "delay", "design"]


def steady_comparison(
    scenario: pd.DataFrame,
    ticks_ms: Sequence[int],
    samples: int,
    rate_per_s: float = SEED_RATE_PER_S,
) -> pd.DataFrame:
    """The seed scenario's snapshots (:func:`scenario_table`; time buckets and the heap)
    beside the steady state of the same rate, delay, batch and tick
    (:func:`~trackerlab.experiments.steady_state.steady_state`, ``samples`` samples), for the
    ticks in ``ticks_ms``: ``bytes_per_entry`` and ``entries_steady`` are the steady state's,
    ``snapshot_is_steady`` says whether the snapshot shows it. Cost: one steady-state
    simulation per (batch, tick)."""
    from trackerlab.experiments.steady_state import snapshot_vs_steady, steady_state

    pairs = scenario[["batch_size", "tick_ms", "delay"]].drop_duplicates()
    pairs = pairs.sort_values(["batch_size", "tick_ms", "delay"])
    parts = []
    for batch, tick in pairs[["batch_size", "tick_ms"]].drop_duplicates().itertuples(index=False):
        if tick not in ticks_ms:
            continue
        delays = sorted(pairs[(pairs.batch_size == batch) & (pairs.tick_ms == tick)].delay)
        part = steady_state(
            rate_per_s, delays, tick_ms=int(tick), batch_size=int(batch), samples=samples
        )
        parts.append(part.assign(batch_size=batch, tick_ms=tick))
    steady_columns = [*STEADY_KEYS, "bytes_per_entry", "entries"]
    steady = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=steady_columns)
    snap = scenario[scenario.design.isin(["time-buckets", "triple-heap"])]
    both = snap.merge(steady[steady_columns], on=STEADY_KEYS, suffixes=("", "_steady"))
    both["snapshot_is_steady"] = [
        snapshot_vs_steady(d, int(m), rate_per_s)[0]
        for d, m in zip(both.delay, both.messages, strict=False)
    ]
    return both


@dataclass(frozen=True)
class SeedAnswer:
    """The rows of :func:`steady_comparison` the report's answer states (batch 1): time
    buckets and the heap for the first fixed delay, time buckets for the first spread delay
    (None when there is none), at ``tick_ms`` (1 min when the sweep has it, else its longest)."""

    fixed_delay: str
    tick_ms: int
    buckets: pd.Series
    heap: pd.Series
    spread_delay: str | None = None
    spread: pd.Series | None = None


def _steady_at(both: pd.DataFrame, delay: str, design: str, tick: int, batch: int = 1):
    rows = both[
        (both.delay == delay)
        & (both.design == design)
        & (both.tick_ms == tick)
        & (both.batch_size == batch)
    ]
    return rows.iloc[0] if len(rows) else None


def seed_answer(both: pd.DataFrame) -> SeedAnswer | None:
    """The :class:`SeedAnswer` rows of ``both``, or None when a fixed delay's time buckets or
    heap row is missing."""
    if both.empty:
        return None
    fixed = sorted(d for d in both.delay.unique() if d.startswith("fixed"))
    spread = sorted(d for d in both.delay.unique() if not d.startswith("fixed"))
    tick = 60000 if (both.tick_ms == 60000).any() else int(both.tick_ms.max())
    if not fixed:
        return None
    bf, hf = (_steady_at(both, fixed[0], d, tick) for d in ("time-buckets", "triple-heap"))
    if bf is None or hf is None:
        return None
    bs = _steady_at(both, spread[0], "time-buckets", tick) if spread else None
    return SeedAnswer(fixed[0], tick, bf, hf, spread[0] if bs is not None else None, bs)


# --------------------------------------------------------------------------- figures


#: Widest figure (inches) a report page shows at its natural size (960 px at 100 dpi).
PAGE_WIDTH_IN = 9.6


def _cell_text(v: float) -> str:
    """A heatmap cell's number: whole bytes from 10 up, two significant figures below."""
    if not np.isfinite(v):
        return ""
    return f"{v:,.0f}" if v >= 9.5 else f"{v:.2g}"


def heatmap_tables(frame: pd.DataFrame) -> dict[tuple[str, bool], pd.DataFrame]:
    """:func:`heatmap_table` for every design of the frame (catalog order) and delay kind
    (fixed, then random), keyed ``(design, random_delay)``."""
    designs = [d for d in DESIGNS if d in set(frame.design)]
    kinds = [k for k in (False, True) if k in set(frame.random_delay)]
    return {(d, k): heatmap_table(frame, d, k) for d in designs for k in kinds}


def shared_log_norm(tables: Iterable[pd.DataFrame]):
    """One logarithmic colour scale over every finite positive value of ``tables`` (None
    when there is none)."""
    from matplotlib.colors import LogNorm

    arrays = [t.to_numpy().ravel() for t in tables if t.size]
    values = np.concatenate(arrays) if arrays else np.array([])
    values = values[np.isfinite(values) & (values > 0)]
    return LogNorm(vmin=values.min(), vmax=values.max()) if len(values) else None


def heatmap_layout(designs: int, kinds: int) -> tuple[int, int, int]:
    """``(per_row, ncols, nrows)``: two designs a row (fixed and random side by side; four
    when there is one kind), as many rows as the designs need."""
    per_row = max(1, 4 // kinds) if kinds else 1
    ncols = per_row * max(1, kinds)
    nrows = max(1, -(-designs // per_row))
    return per_row, ncols, nrows


def draw_heatmap(ax, table: pd.DataFrame, norm, title: str):
    """One rate x trim-bits heatmap on ``ax``, each cell labelled with its bytes (black or
    white, whichever reads on its colour). Returns the image."""
    ax.set_axis_on()
    image = ax.imshow(table.to_numpy(), norm=norm, cmap="viridis", aspect="auto", origin="lower")
    ax.set_xticks(range(len(table.columns)), [str(c) for c in table.columns], fontsize=9)
    ax.set_yticks(range(len(table.index)), [f"{r:g}" for r in table.index], fontsize=9)
    for (y, x), v in np.ndenumerate(table.to_numpy()):
        colour = _label_colour(image, v)
        ax.text(x, y, _cell_text(v), ha="center", va="center", fontsize=8, color=colour)
    ax.set_title(title, fontsize=9)
    return image


def plot_heatmaps(frame: pd.DataFrame):
    """One heatmap of bytes per entry over rate x trim bits per design and delay kind (fixed,
    random side by side), two designs a row so the grid fits the page's width; shared
    logarithmic colour scale, its bar under the grid."""
    import matplotlib.pyplot as plt

    tables = heatmap_tables(frame)
    designs = list(dict.fromkeys(d for d, _ in tables))
    kinds = [k for k in (False, True) if k in set(frame.random_delay)]
    norm = shared_log_norm(tables.values())
    per_row, ncols, nrows = heatmap_layout(len(designs), len(kinds))
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(PAGE_WIDTH_IN, 2.9 * nrows + 0.6),
        squeeze=False,
        layout="constrained",
    )
    for ax in axes.flat:
        ax.set_axis_off()
    image = None
    for n, d in enumerate(designs):
        for m, k in enumerate(kinds):
            i, j = divmod(n * len(kinds) + m, ncols)
            ax, t = axes[i][j], tables[(d, k)]
            if t.empty:
                continue
            label = DESIGN_LABELS[d].replace(" (", "\n(", 1)
            image = draw_heatmap(ax, t, norm, f"{label}, {'random' if k else 'fixed'} delay")
            if i == nrows - 1 or n + per_row >= len(designs):
                ax.set_xlabel("trim bits y", fontsize=9)
            if j == 0:
                ax.set_ylabel("rate x (msg/ms)", fontsize=9)
    if image is not None:
        fig.colorbar(
            image,
            ax=axes,
            location="bottom",
            shrink=0.6,
            aspect=40,
            label="JVM bytes per entry (heap + direct; bucket = 2^y ms)",
        )
    return fig


def _label_colour(image, value: float) -> str:
    """Black on the light (yellow) end of the colour map, white on the dark end."""
    if not np.isfinite(value):
        return "black"
    r, g, b, _ = image.cmap(image.norm(value))
    return "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.4 else "white"


def plot_penalty(frame: pd.DataFrame):
    """Random-delay penalty of the two bucket designs against M = x * 2^y."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.5, 4), layout="constrained")
    for design in ("nack-time-buckets", "nack-time-buckets-runs"):
        # cast: stacking single-level columns gives a Series
        stacked = cast(pd.Series, random_penalty(frame, design).stack())
        ratio = stacked.rename("ratio").reset_index()
        if ratio.empty:
            continue
        m = ratio.rate_per_ms * 2.0**ratio.trim_bits
        ax.plot(m, ratio.ratio, "o", alpha=0.7, label=DESIGN_LABELS[design])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xlabel("messages per bucket M = x * 2^y")
    ax.set_ylabel("bytes per entry, random / fixed delay")
    ax.set_title("Random-delay penalty (uniform delays vs one fixed delay)", fontsize=10)
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


def plot_scaling(frame: pd.DataFrame, from_spark: bool):
    """Seconds per 1e6 messages against N, one line per delay distribution."""
    import matplotlib.pyplot as plt

    table = scaling_table(frame)
    fig, ax = plt.subplots(figsize=(8.5, 4), layout="constrained")
    for delay, t in table.groupby("delay"):
        line = ax.plot(t.messages, t.wall_s_per_1e6, "o-", label=f"{delay}: wall time")
        if from_spark:
            ax.plot(
                t.messages,
                t.task_s_per_1e6,
                "s--",
                mfc="none",
                color=line[0].get_color(),
                label=f"{delay}: task time (summed over cores)",
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("messages N (log)")
    ax.set_ylabel("seconds per 1e6 messages (log)")
    ax.set_title(
        "Spark sweep cost per message" if from_spark else "Single-process cost per message"
    )
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig
