"""The negative-ack report (``notebooks/negative_acks.ipynb``): its tables, figures and
conclusions, computed from the frames of :mod:`bucket_sweeps`.

The notebook keeps its parameters, calls these functions and shows what they return.
"""

from __future__ import annotations

import pandas as pd

from trackerlab.experiments.reproduce import PIP_X50, PIP_X500, describe_counts
from trackerlab.reporting.findings import Findings, Headline
from trackerlab.reporting.formatting import format_delay, format_number, format_percent
from trackerlab.reporting.tables import Column

DEFAULT_BITS = 8  # the client's negativeAckPrecisionBitCnt
BASELINES = {"nack-hash-map": "A: HashMap", "nack-pair-map": "B: pair hash map"}
PIP_POINTS = {"N04": PIP_X500, "N09": PIP_X50, "N10": PIP_X500}  # id -> the PIP's run
PAIR_MAP_RANGE_B = (48, 213)  # PIP-393's bytes per entry of the pair hash map

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
    subsets: pd.DataFrame, pair_map_b: float, rate_per_ms: float, trim_bits: int
) -> None:
    """Section 5's figure: bytes per nacked entry against the share nacked, with the
    entropy bound and the pair hash map."""
    import matplotlib.pyplot as plt

    from trackerlab.reporting.plots import legend_outside

    _, ax = plt.subplots(figsize=(9.6, 4.5), layout="constrained")
    f = subsets.fraction
    ax.plot(f, subsets.jvm_b_per_entry, "o-", label="time buckets (JVM model)")
    ax.plot(f, subsets.python_b_per_entry, "s--", mfc="none", label="time buckets (Python-real)")
    ax.plot(f, subsets.entropy_b_per_entry.clip(lower=1e-3), "k:", label="entropy bound")
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

    The default point is the swept bit count nearest ``negativeAckPrecisionBitCnt = 8``;
    the sparse subset is the largest share below 1; the full-bucket bullet quotes the
    grid's largest M as Java builds it; the backoff bullet the dearest redelivery delay.
    ``published`` is how many published numbers the reproduction checked.
    """
    swept = list(dict.fromkeys(prec.trim_bits.tolist()))
    default_bits = min(swept, key=lambda b: abs(b - DEFAULT_BITS))
    at_default = jvm_per_entry(prec, trim_bits=default_bits, run_optimize=False)
    runs_default = jvm_per_entry(prec, trim_bits=default_bits, run_optimize=True)
    pair_map = float(base["jvm_b_per_entry"]["nack-pair-map"])
    hash_map = float(base["jvm_b_per_entry"]["nack-hash-map"])
    partial = subsets[subsets.fraction < 1]
    sparse = partial.loc[partial.fraction.idxmax()] if len(partial) else None
    every = subsets[subsets.fraction >= 1]
    every_b = float(every.jvm_b_per_entry.iloc[0]) if len(every) else float("nan")
    largest_m = table[~table.run_optimize].sort_values("messages_per_bucket").iloc[-1]
    rate = format_number(precision_rate_per_ms)

    text = (
        f"At the default {default_bits} bits (redelivered up to {(1 << default_bits) - 1:,} ms "
        f"early), PIP-393's time buckets hold a nacked message in {format_number(at_default, 2)} "
        f"B at {rate} nack/ms, against {format_number(pair_map, 2)} B in the pair hash map it "
        f"replaced and {format_number(hash_map, 2)} B in the HashMap before it"
    )
    if sparse is not None and len(every):
        text += (
            f". Nacking a random {format_percent(sparse.fraction)} of the messages instead of all "
            f"of them costs {format_number(sparse.jvm_b_per_entry, 2)} B per nacked message "
            f"instead of {format_number(every_b, 2)} B (at {format_number(subset_rate_per_ms)} "
            f"msg/ms, {subset_trim_bits} bits)"
        )
    findings = Findings(answer=text + ".")
    findings.headlines += [
        Headline(
            f"time buckets, {default_bits} bits, {rate} nack/ms",
            f"{format_number(at_default, 3)} B/entry",
            "JVM model",
        ),
        Headline(
            "pair hash map (before PIP-393)",
            f"{format_number(pair_map, 3)} B/entry",
            f"JVM model, {baseline_messages:,} entries",
        ),
    ]

    lines = findings.lines
    lines += [
        f"* **Reproduction** of the PIP's {published} numbers, once the Java objects are "
        f"counted: {describe_counts(counts)}; its theory is right in shape but wrong in detail "
        "(x/y swapped, 4 B for 2 B, no run containers).",
        f"* **Precision:** at {default_bits} bits time buckets cost "
        f"{format_number(at_default, 3)} B/entry, {format_number(pair_map / at_default, 2)}× "
        f"less than the pair map and {format_number(hash_map / at_default, 2)}× less than the "
        "HashMap.",
        f"* **Full buckets:** at M = {format_number(largest_m.messages_per_bucket)} nacks per "
        f"bucket the cost falls to {format_number(largest_m.jvm_b_per_entry, 3)} B/entry.",
    ]
    if run_optimize:
        lines.append(
            f"* **Run containers** (not in Java) would bring the {default_bits}-bit point to "
            f"{format_number(runs_default, 3)} B/entry."
        )
    if sparse is not None:
        lines.append(
            f"* **Random subsets:** nacking {format_percent(sparse.fraction)} of the messages "
            f"costs {format_number(sparse.jvm_b_per_entry, 3)} B per nacked entry "
            f"({format_number(sparse.jvm_b_per_entry / every_b, 2)}× the cost when every "
            "message is nacked), "
            f"{format_number(sparse.jvm_b_per_entry / sparse.entropy_b_per_entry, 2)}× the "
            "entropy bound."
        )
    worst = spread.loc[spread.jvm_b_per_entry.idxmax()]
    verdict = "more" if worst.jvm_b_per_entry > pair_map else "less"
    lines.append(
        f"* **Varying backoff:** redelivery delays {format_delay(str(worst['delay']))} cost "
        f"{format_number(worst.jvm_b_per_entry, 3)} B/entry in a snapshot of the first nacks "
        f"({verdict} than the pair map)."
    )
    return findings
