"""The negative-ack report (``notebooks/negative_acks.ipynb``): its tables, figures and
conclusions, computed from the frames of :mod:`bucket_sweeps`.

The notebook keeps its parameters, calls these functions and shows what they return.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from trackerlab.experiments import bucket_sweeps as sweeps
from trackerlab.experiments.reproduce import PIP_X50, PIP_X500, describe_counts
from trackerlab.reporting.findings import Findings, Headline
from trackerlab.reporting.formatting import format_delay, format_number, format_percent
from trackerlab.reporting.plots import container_share, plot_container_share
from trackerlab.reporting.tables import Column, show_table

DEFAULT_BITS = 8  # the client's negativeAckPrecisionBitCnt
BASELINES = {"nack-hash-map": "A: HashMap", "nack-pair-map": "B: pair hash map"}
PIP_POINTS = {"N04": PIP_X500, "N09": PIP_X50, "N10": PIP_X500}  # id -> the PIP's run
PAIR_MAP_RANGE_B = (48, 213)  # PIP-393's bytes per entry of the pair hash map
PIP_IDS: list[str] = [f"N{i:02d}" for i in range(1, 11)]  # the PIP's numbers (section 1)

GRID_COLUMNS: dict[str, str] = {
    "rate_per_ms": "rate x (nacks/ms)",
    "trim_bits": "bits y",
    "messages_per_bucket": "M (nacks/bucket)",
    "run_optimize": "run-optimized",
    "buckets": "buckets",
    "bitmaps": "bitmaps",
    "jvm_b_per_entry": "JVM model (B/entry)",
    "python_b_per_entry": "Python-real (B/entry)",
    "theory_published_b_per_entry": "PIP formula (B/entry)",
    "theory_corrected_b_per_entry": "corrected theory (B/entry)",
}
PRECISION_COLUMNS: dict[str, str] = {
    "trim_bits": "bits k",
    "early_bound_ms": "early by up to (ms)",
    "run_optimize": "run-optimized",
    "buckets": "buckets",
    "bitmaps": "bitmaps",
    "jvm_b_per_entry": "JVM model (B/entry)",
}
MIX_COLUMNS: dict[str, str | Column] = {
    "rate_per_ms": "rate x (nacks/ms)",
    "trim_bits": "bits y",
    "messages_per_bucket": "M (nacks/bucket)",
    "buckets": "buckets",
    "bitmaps": "bitmaps",
    "array_containers": "array containers",
    "bitset_containers": "bitset containers",
    "bitset_share": Column("bitset share", fmt="{:.0%}"),
}
SUBSET_COLUMNS: dict[str, str | Column] = {
    "fraction": Column("share nacked", fmt=format_percent),
    "entries": "nacked entries",
    "bitmaps": "bitmaps",
    "jvm_b_per_entry": "JVM model (B/entry)",
    "python_b_per_entry": "Python-real (B/entry)",
    "entropy_b_per_entry": "entropy bound (B/entry)",
}
SPREAD_COLUMNS: dict[str, str] = {
    "delay": "redelivery delay",
    "entries": "entries",
    "buckets": "buckets",
    "bitmaps": "bitmaps",
    "jvm_b_per_entry": "JVM model (B/entry)",
    "python_b_per_entry": "Python-real (B/entry)",
    "theory_published_b_per_entry": "PIP formula (B/entry)",
}


def grid_caption(messages: int, delay: str) -> str:
    """Caption of the bucket-grid table (rows at the default bits when the grid is long)."""
    return (
        f"{messages:,} nacks redelivered after {format_delay(delay)}; rows at the default "
        f"{DEFAULT_BITS} bits when the grid is long"
    )


def precision_caption(messages: int, rate_per_ms: float) -> str:
    """Caption of the precision table."""
    return f"{messages:,} nacks at {format_number(rate_per_ms)} nacks/ms"


def delays_caption(messages: int, rate_per_ms: float) -> str:
    """Caption of the redelivery-delay table (a snapshot at the default bits)."""
    return (
        f"Varying redelivery delays at {format_number(rate_per_ms)} nacks/ms, "
        f"{DEFAULT_BITS} bits (snapshot of the first {messages:,} nacks)"
    )


def bucket_grid(
    messages: int,
    rates_per_ms: Sequence[float],
    trim_bits: Sequence[int],
    entries_per_ledger: int,
    delay: str,
    run_optimize: bool,
) -> pd.DataFrame:
    """``sweeps.grid`` as Java builds it, and also run-optimized when ``run_optimize``."""
    variants = (False, True) if run_optimize else (False,)
    return sweeps.grid(
        messages,
        rates_per_ms,
        trim_bits,
        entries_per_ledger=entries_per_ledger,
        delay=delay,
        run_optimize=variants,
    )


def theory_curves(entries_per_ledger: int) -> pd.DataFrame:
    """``sweeps.theory_curves`` at 200 values of M from 1 to 10^7 (log-spaced)."""
    return sweeps.theory_curves(np.logspace(0, 7, 200), entries_per_ledger)


def baselines(messages: int, baseline_messages: int) -> pd.DataFrame:
    """The hash-map versions A and B (:data:`BASELINES`) sized at
    ``min(messages, baseline_messages)`` entries, indexed by design."""
    count = min(messages, baseline_messages)
    return sweeps.baselines(count, list(BASELINES)).set_index("design")


def precision(
    messages: int, rate_per_ms: float, bits: Sequence[int], entries_per_ledger: int, delay: str
) -> pd.DataFrame:
    """``sweeps.precision``: the precision sweep over ``bits`` trimmed bits."""
    return sweeps.precision(
        messages, rate_per_ms, bits, entries_per_ledger=entries_per_ledger, delay=delay
    )


def random_subsets(
    messages: int,
    rate_per_ms: float,
    trim_bits: int,
    fractions: Sequence[float],
    entries_per_ledger: int,
    seed: int,
) -> pd.DataFrame:
    """``sweeps.random_subsets``: random shares ``fractions`` of the stream, nacked."""
    return sweeps.random_subsets(
        messages,
        rate_per_ms,
        trim_bits,
        fractions,
        entries_per_ledger=entries_per_ledger,
        seed=seed,
    )


def show_grid(table: pd.DataFrame, messages: int, delay: str) -> None:
    """The bucket grid as a table (rows at :data:`DEFAULT_BITS` when long)."""
    show_table(
        table,
        GRID_COLUMNS,
        name="bucket-grid",
        keep=table.trim_bits == DEFAULT_BITS,
        max_rows=12,
        caption=grid_caption(messages, delay),
    )


def show_precision(prec: pd.DataFrame, messages: int, rate_per_ms: float) -> None:
    """The precision sweep as Java builds it, as a table."""
    show_table(
        prec,
        PRECISION_COLUMNS,
        name="precision",
        keep=~prec.run_optimize,
        caption=precision_caption(messages, rate_per_ms),
    )


def plot_mix(table: pd.DataFrame) -> None:
    """Section 4's figure: the grid's container mix (:func:`container_share`)."""
    plot_container_share(container_share(table), "Container mix against M (as Java builds it)")


def show_mix(table: pd.DataFrame) -> None:
    """The grid's container mix (:func:`container_share`) as a table, rows at
    :data:`DEFAULT_BITS` when long."""
    mix = container_share(table)
    show_table(
        mix,
        MIX_COLUMNS,
        name="container-mix",
        keep=mix.trim_bits == DEFAULT_BITS,
        max_rows=12,
        caption="Containers of the time-bucket index (not run-optimized)",
    )


def show_subsets(subsets: pd.DataFrame) -> None:
    """The random subsets as a table."""
    show_table(subsets, SUBSET_COLUMNS, caption="Random subsets of the stream, nacked")


def show_delays(
    messages: int,
    rate_per_ms: float,
    delays: Sequence[str],
    entries_per_ledger: int,
    seed: int,
) -> pd.DataFrame:
    """``sweeps.random_delays`` at :data:`DEFAULT_BITS` shown as a table; returns it."""
    spread = sweeps.random_delays(
        messages,
        rate_per_ms,
        DEFAULT_BITS,
        delays,
        entries_per_ledger=entries_per_ledger,
        seed=seed,
    )
    show_table(spread, SPREAD_COLUMNS, caption=delays_caption(messages, rate_per_ms))
    return spread


def pip_points(repro: pd.DataFrame) -> pd.DataFrame:
    """The PIP's measurements N04, N09 and N10 (bytes per entry) at their messages per
    bucket M, for the stars of the bytes-per-entry figure."""
    points = repro.loc[list(PIP_POINTS), ["published"]].astype(float).reset_index()
    points["messages_per_bucket"] = [run.messages_per_bucket for run in PIP_POINTS.values()]
    return points


def plot_bytes_per_entry(
    table: pd.DataFrame, curves: pd.DataFrame, base: pd.DataFrame, points: pd.DataFrame
) -> None:
    """Section 2's figure: the bucket grid, its theory, the hash-map versions A and B
    (``base`` is ``bucket_sweeps.baselines`` indexed by design) and the PIP's stars."""
    from trackerlab.catalog.colors import design_color
    from trackerlab.reporting.plots import (
        bytes_per_entry_axes,
        legend_outside,
        plot_bucket_grid,
        plot_published_points,
    )

    _, ax = bytes_per_entry_axes("Negative-ack trackers: bytes per entry")
    plot_bucket_grid(ax, table, curves, "PIP-393 formula")
    low, high = PAIR_MAP_RANGE_B
    ax.axhspan(low, high, color="C3", alpha=0.08, label=f"pair map, PIP's range {low}-{high} B")
    for design, name in BASELINES.items():
        b = base.loc[design, "jvm_b_per_entry"]
        label = f"{name} (JVM model, {format_number(b)} B)"
        ax.axhline(b, color=design_color(design), lw=1.5, label=label)
    plot_published_points(ax, points, "messages_per_bucket", "published")
    legend_outside(ax, "below", ncols=2)


def plot_precision(prec: pd.DataFrame, rate_per_ms: float) -> None:
    """Section 3's figure: JVM bytes per entry against the early bound ``2^k - 1`` ms."""
    import matplotlib.pyplot as plt

    from trackerlab.reporting.plots import legend_outside

    _, ax = plt.subplots(figsize=(9.6, 4.5), layout="constrained")
    for r, style in ((False, "o-"), (True, "s-")):
        part = prec[prec.run_optimize == r]
        label = "run-optimized" if r else "as Java builds it"
        ax.plot(part.early_bound_ms.clip(lower=0.5), part.jvm_b_per_entry, style, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("largest early redelivery, ms (2^k - 1; 0 plotted at 0.5)")
    ax.set_ylabel("bytes per entry (JVM model, log)")
    ax.set_title(f"Precision against memory at {format_number(rate_per_ms)} nacks/ms")
    ax.grid(True, which="both", alpha=0.3)
    legend_outside(ax)


def plot_random_subsets(
    subsets: pd.DataFrame, base: pd.DataFrame, rate_per_ms: float, trim_bits: int
) -> None:
    """Section 5's figure: bytes per nacked entry against the share nacked, with the
    entropy bound and the pair hash map (``base``: :func:`baselines`)."""
    import matplotlib.pyplot as plt

    from trackerlab.reporting.plots import legend_outside

    _, ax = plt.subplots(figsize=(9.6, 4.5), layout="constrained")
    f = subsets.fraction
    ax.plot(f, subsets.jvm_b_per_entry, "o-", label="time buckets (JVM model)")
    ax.plot(f, subsets.python_b_per_entry, "s--", mfc="none", label="time buckets (Python-real)")
    ax.plot(f, subsets.entropy_b_per_entry.clip(lower=1e-3), "k:", label="entropy bound")
    pair_map_b = float(base["jvm_b_per_entry"]["nack-pair-map"])
    ax.axhline(pair_map_b, color="C3", lw=1, label="B: pair hash map (JVM model)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("share of messages nacked (log)")
    ax.set_ylabel("bytes per nacked entry (log)")
    ax.set_title(f"Random nack subsets at x = {format_number(rate_per_ms)}, y = {trim_bits}")
    ax.grid(True, which="both", alpha=0.3)
    legend_outside(ax)


def jvm_per_entry(frame: pd.DataFrame, **where: object) -> float:
    """JVM bytes per entry of the first row where every ``column == value`` (NaN if none)."""
    rows = frame
    for column, value in where.items():
        rows = rows[rows[column] == value]
    return float(rows.jvm_b_per_entry.iloc[0]) if len(rows) else float("nan")


def default_bits(prec: pd.DataFrame) -> int:
    """The swept bit count nearest ``negativeAckPrecisionBitCnt = 8``."""
    swept = list(dict.fromkeys(prec.trim_bits.tolist()))
    return int(min(swept, key=lambda b: abs(b - DEFAULT_BITS)))


def sparse_subset(subsets: pd.DataFrame) -> tuple[pd.Series | None, float]:
    """The random subset with the largest share below 1 (None if none), and the JVM bytes
    per entry when every message is nacked (NaN if not swept)."""
    partial = subsets[subsets.fraction < 1]
    sparse = partial.iloc[int(partial.fraction.argmax())] if len(partial) else None
    every = subsets[subsets.fraction >= 1]
    every_b = float(every.jvm_b_per_entry.iloc[0]) if len(every) else float("nan")
    return sparse, every_b


def answer(
    prec: pd.DataFrame,
    subsets: pd.DataFrame,
    base: pd.DataFrame,
    *,
    precision_rate_per_ms: float,
    subset_rate_per_ms: float,
    subset_trim_bits: int,
) -> str:
    """The report's answer: the default point against the hash maps, then the sparse
    random subset against nacking every message."""
    bits = default_bits(prec)
    at_default = jvm_per_entry(prec, trim_bits=bits, run_optimize=False)
    pair_map = float(base["jvm_b_per_entry"]["nack-pair-map"])
    hash_map = float(base["jvm_b_per_entry"]["nack-hash-map"])
    sparse, every_b = sparse_subset(subsets)
    text = (
        f"At the default {bits} bits (redelivered up to {(1 << bits) - 1:,} ms "
        f"early), PIP-393's time buckets hold a nacked message in {format_number(at_default, 2)} "
        f"B at {format_number(precision_rate_per_ms)} nack/ms, against "
        f"{format_number(pair_map, 2)} B in the pair hash map it "
        f"replaced and {format_number(hash_map, 2)} B in the HashMap before it"
    )
    if sparse is not None and (subsets.fraction >= 1).any():
        text += (
            f". Nacking a random {format_percent(sparse.fraction)} of the messages instead of all "
            f"of them costs {format_number(sparse.jvm_b_per_entry, 2)} B per nacked message "
            f"instead of {format_number(every_b, 2)} B (at {format_number(subset_rate_per_ms)} "
            f"msg/ms, {subset_trim_bits} bits)"
        )
    return text + "."


def headlines(
    prec: pd.DataFrame, base: pd.DataFrame, *, precision_rate_per_ms: float, baseline_messages: int
) -> list[Headline]:
    """The index's figures: the default point and the pair hash map it replaced."""
    bits = default_bits(prec)
    at_default = jvm_per_entry(prec, trim_bits=bits, run_optimize=False)
    pair_map = float(base["jvm_b_per_entry"]["nack-pair-map"])
    return [
        Headline(
            f"time buckets, {bits} bits, {format_number(precision_rate_per_ms)} nack/ms",
            f"{format_number(at_default, 3)} B/entry",
            "JVM model",
        ),
        Headline(
            "pair hash map (before PIP-393)",
            f"{format_number(pair_map, 3)} B/entry",
            f"JVM model, {baseline_messages:,} entries",
        ),
    ]


def reproduction_bullet(counts: dict[str, int], published: int) -> str:
    """How many of the PIP's ``published`` numbers the models reproduce."""
    return (
        f"* **Reproduction** of the PIP's {published} numbers, once the Java objects are "
        f"counted: {describe_counts(counts)}; its theory is right in shape but wrong in detail "
        "(x/y swapped, 4 B for 2 B, no run containers)."
    )


def precision_bullet(prec: pd.DataFrame, base: pd.DataFrame) -> str:
    """The default point against the pair map and the HashMap."""
    bits = default_bits(prec)
    at_default = jvm_per_entry(prec, trim_bits=bits, run_optimize=False)
    pair_map = float(base["jvm_b_per_entry"]["nack-pair-map"])
    hash_map = float(base["jvm_b_per_entry"]["nack-hash-map"])
    return (
        f"* **Precision:** at {bits} bits time buckets cost "
        f"{format_number(at_default, 3)} B/entry, {format_number(pair_map / at_default, 2)}× "
        f"less than the pair map and {format_number(hash_map / at_default, 2)}× less than the "
        "HashMap."
    )


def full_buckets_bullet(table: pd.DataFrame) -> str:
    """The grid's largest M as Java builds it."""
    largest_m = table[~table.run_optimize].sort_values("messages_per_bucket").iloc[-1]
    return (
        f"* **Full buckets:** at M = {format_number(largest_m.messages_per_bucket)} nacks per "
        f"bucket the cost falls to {format_number(largest_m.jvm_b_per_entry, 3)} B/entry."
    )


def run_containers_bullet(prec: pd.DataFrame) -> str:
    """The default point with run containers (not in Java)."""
    bits = default_bits(prec)
    runs_default = jvm_per_entry(prec, trim_bits=bits, run_optimize=True)
    return (
        f"* **Run containers** (not in Java) would bring the {bits}-bit point to "
        f"{format_number(runs_default, 3)} B/entry."
    )


def random_subsets_bullet(sparse: pd.Series, every_b: float) -> str:
    """The sparse random subset against nacking every message and the entropy bound."""
    return (
        f"* **Random subsets:** nacking {format_percent(sparse.fraction)} of the messages "
        f"costs {format_number(sparse.jvm_b_per_entry, 3)} B per nacked entry "
        f"({format_number(sparse.jvm_b_per_entry / every_b, 2)}× the cost when every "
        "message is nacked), "
        f"{format_number(sparse.jvm_b_per_entry / sparse.entropy_b_per_entry, 2)}× the "
        "entropy bound."
    )


def backoff_bullet(spread: pd.DataFrame, base: pd.DataFrame) -> str:
    """The dearest redelivery delay against the pair map."""
    pair_map = float(base["jvm_b_per_entry"]["nack-pair-map"])
    worst = spread.loc[spread.jvm_b_per_entry.idxmax()]
    verdict = "more" if worst.jvm_b_per_entry > pair_map else "less"
    return (
        f"* **Varying backoff:** redelivery delays {format_delay(str(worst['delay']))} cost "
        f"{format_number(worst.jvm_b_per_entry, 3)} B/entry in a snapshot of the first nacks "
        f"({verdict} than the pair map)."
    )


def conclusions(
    table: pd.DataFrame,
    prec: pd.DataFrame,
    subsets: pd.DataFrame,
    spread: pd.DataFrame,
    base: pd.DataFrame,
    *,
    counts: dict[str, int],
    published: int,
    precision_rate_per_ms: float,
    subset_rate_per_ms: float,
    subset_trim_bits: int,
    baseline_messages: int,
    run_optimize: bool,
) -> Findings:
    """The report's answer, headlines and bullets from the grid, the precision sweep, the
    random subsets, the redelivery delays and the hash-map baselines (indexed by design).

    The default point is the swept bit count nearest ``negativeAckPrecisionBitCnt = 8``
    (:func:`default_bits`); the sparse subset is the largest share below 1
    (:func:`sparse_subset`); the full-bucket bullet quotes the grid's largest M as Java
    builds it; the backoff bullet the dearest redelivery delay. ``published`` is how many
    published numbers the reproduction checked.
    """
    findings = Findings(
        answer=answer(
            prec,
            subsets,
            base,
            precision_rate_per_ms=precision_rate_per_ms,
            subset_rate_per_ms=subset_rate_per_ms,
            subset_trim_bits=subset_trim_bits,
        )
    )
    findings.headlines += headlines(
        prec, base, precision_rate_per_ms=precision_rate_per_ms, baseline_messages=baseline_messages
    )
    lines = findings.lines
    lines += [
        reproduction_bullet(counts, published),
        precision_bullet(prec, base),
        full_buckets_bullet(table),
    ]
    if run_optimize:
        lines.append(run_containers_bullet(prec))
    sparse, every_b = sparse_subset(subsets)
    if sparse is not None:
        lines.append(random_subsets_bullet(sparse, every_b))
    lines.append(backoff_bullet(spread, base))
    return findings
