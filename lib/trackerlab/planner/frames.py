"""The capacity plan as tables and figures for the ``capacity_planner`` notebook.

Column names carry their units (``_mib`` = 2^20 bytes, ``_ms``); the notebook and its
JupyterLab form (:mod:`trackerlab.planner.form`) only display them. :func:`exact_check` holds
the fast answer against a message-level snapshot, :func:`conclusions` words the plan.
"""

from __future__ import annotations

import math

import pandas as pd

from trackerlab.planner.memory_plan import Plan, delayed_rows, nack_rows
from trackerlab.planner.workload import FIELD_BY_NAME, PlanWorkload
from trackerlab.workloads.units import format_bytes

MIB = 2**20
#: Decimals :func:`rows_frame`'s columns are shown with.
ROUNDED = {
    "steady_mib": 3,
    "peak_mib": 3,
    "bytes_per_entry": 2,
    "per_topic_mib": 2,
    "per_broker_mib": 2,
}

__all__ = [
    "ROUNDED",
    "choice_frame",
    "conclusions",
    "exact_check",
    "plot_choice",
    "plot_designs",
    "rows_frame",
]


def rows_frame(p: Plan) -> pd.DataFrame:
    """One row per tracker and design: the unit's memory, its totals, its precision."""
    return pd.DataFrame(
        {
            "tracker": r.tracker,
            "design": r.design,
            "pulsar_runs_it": r.default,
            "where": f"{r.side}, {r.memory}",
            "one_per": r.per,
            "entries": round(r.entries),
            "steady_mib": r.steady_bytes / MIB,
            "peak_mib": r.peak_bytes / MIB,
            "bytes_per_entry": r.bytes_per_entry,
            "early_ms": r.early_ms,
            "per_topic_mib": r.per_topic / MIB,
            "per_broker_mib": math.nan if r.per_broker is None else r.per_broker / MIB,
            "note": r.note,
        }
        for r in p.rows
    )


def choice_frame(p: Plan) -> pd.DataFrame:
    """The recommendation's table of neighbouring settings (empty without one)."""
    if not p.choices:
        return pd.DataFrame()
    choice = p.choices[0]
    frame = pd.DataFrame(choice.table)
    memory = next(c for c in frame.columns if c.endswith("_bytes"))
    frame[memory.replace("_bytes", "_mib")] = frame.pop(memory) / MIB
    frame["chosen"] = frame[_setting_key(choice.setting)] == choice.value
    return frame


def plot_designs(p: Plan):
    """Per-topic memory of every design, one panel per tracker (MiB; a log scale when the
    designs span more than 30x), two panels a row, each design in its catalog colour; the
    design the release runs is the filled dot with a black ring and a bold label."""
    import matplotlib.pyplot as plt

    from trackerlab.catalog.colors import design_color

    frame = rows_frame(p)
    trackers = list(dict.fromkeys(frame.tracker))
    ncols = min(2, len(trackers))
    nrows = math.ceil(len(trackers) / ncols)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(9.6, 2.6 * nrows), layout="constrained", squeeze=False
    )
    for ax in axes.flat[len(trackers) :]:
        ax.set_visible(False)
    for ax, tracker in zip(axes.flat, trackers, strict=False):
        part = frame[frame.tracker == tracker]
        values = part.per_topic_mib.clip(lower=1e-3)
        log = values.max() > 30 * values.min()  # a dot plot: bars mislead on a log axis
        ax.hlines(part.design, values.min() / 2 if log else 0, values, color="0.85", lw=1)
        ax.scatter(
            values,
            part.design,
            c=[design_color(d) for d in part.design],
            edgecolors=["black" if r else "none" for r in part.pulsar_runs_it],
            linewidths=1.5,
            s=60,
            zorder=3,
        )
        if log:
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(plt.NullFormatter())
        else:
            ax.set_xlim(left=0)
        ax.tick_params(labelsize=9)
        for label, runs in zip(ax.get_yticklabels(), part.pulsar_runs_it, strict=True):
            label.set_fontweight("bold" if runs else "normal")
        ax.set_xlabel("MiB per topic" + (" (log scale)" if log else ""), fontsize=9)
        ax.set_title(tracker, fontsize=10)
        ax.invert_yaxis()
    fig.suptitle("Memory per topic by design (bold, ringed: what the release runs)", fontsize=11)
    return fig


def plot_choice(p: Plan):
    """Memory against early delivery for the neighbouring settings of the recommendation."""
    import matplotlib.pyplot as plt

    frame = choice_frame(p)
    fig, ax = plt.subplots(figsize=(7, 3.8), layout="constrained")
    memory = next(c for c in frame.columns if c.endswith("_mib"))
    ax.plot(frame.early_ms / 1000, frame[memory], "o-")
    chosen = frame[frame.chosen]
    ax.plot(
        chosen.early_ms / 1000,
        chosen[memory],
        "o",
        ms=12,
        mfc="none",
        mec="tab:red",
        label="recommended",
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("largest early delivery (s)")
    ax.set_ylabel(memory.replace("_mib", " (MiB)").replace("_", " "))
    ax.legend(fontsize=9)
    return fig


def exact_check(w: PlanWorkload, rate: str = "") -> pd.DataFrame:
    """The release's own designs sized fast and from a message-level snapshot (``--exact``),
    at ``rate`` (text as ``--rate`` takes it; empty: the workload's own): one row per tracker,
    MiB and their ratio ``fast_over_exact``. Empty when nothing is delayed or nacked."""
    checked = w
    if rate:
        checked = w.with_values(rate=FIELD_BY_NAME["rate"].parse(rate, "exact_check_rate"))
    rows = []
    for name, rows_of, used in (
        ("delayed", delayed_rows, w.values["delayed"] > 0),
        ("nack", nack_rows, w.values["nacked"] > 0),
    ):
        if not used:
            continue
        fast = {r.design: r for r in rows_of(checked)[0] if r.default}
        exact = {r.design: r for r in rows_of(checked, exact=True)[0] if r.default}
        for design, row in fast.items():
            rows.append(
                {
                    "tracker": name,
                    "design": design,
                    "rate": checked.describe("rate"),
                    "fast_mib": row.steady_bytes / MIB,
                    "exact_mib": exact[design].steady_bytes / MIB,
                }
            )
    frame = pd.DataFrame(rows)
    if not frame.empty:
        frame["fast_over_exact"] = frame.fast_mib / frame.exact_mib
    return frame


def conclusions(p: Plan, checks: pd.DataFrame | None = None) -> str:
    """The plan's conclusions as markdown bullets, beyond the answer the report leads with:
    the delayed index against the smallest design, a budget no setting meets, and how close
    the fast answer came to ``checks`` (:func:`exact_check`)."""
    frame = rows_frame(p)
    lines = []
    delayed = frame[frame.tracker == "delayed-delivery index"]
    if not delayed.empty and delayed.pulsar_runs_it.any():
        best = delayed.loc[delayed.per_topic_mib.idxmin()]
        runs = delayed[delayed.pulsar_runs_it].iloc[0]
        others = frame[frame.pulsar_runs_it & (frame.tracker != runs.tracker)].per_topic_mib
        largest = others.empty or runs.per_topic_mib >= others.max()
        smallest = (
            "it is the smallest design here"
            if best.design == runs.design
            else f"the smallest design here, {best.design}, needs "
            f"{format_bytes(float(best.per_topic_mib) * MIB)} "
            f"({best.per_topic_mib / runs.per_topic_mib:.2f} of it)"
        )
        lines.append(
            f"- The delayed index{' is the largest tracker' if largest else ''}: "
            f"{format_bytes(runs.per_topic_mib * MIB)} per topic "
            f"with {runs.design} (what {p.workload.defaults.version} runs); {smallest}."
        )
    for choice in p.choices:
        if choice.value is None:
            lines.append(f"- {choice.reason}.")
    if checks is not None and not checks.empty:
        worst = 100 * (checks.fast_over_exact - 1).abs().max()
        lines.append(
            f"- The fast answer is within {worst:.2f}% of the message-level snapshot for the "
            "release's designs."
        )
    return "\n".join(lines)


def _setting_key(setting: str) -> str:
    return "tick_ms" if setting == "tick" else "nack_precision_bits"
