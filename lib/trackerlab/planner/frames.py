"""The capacity plan as tables and figures for the ``capacity_planner`` notebook.

Column names carry their units (``_mib`` = 2^20 bytes, ``_ms``); the notebook only displays
them. :func:`planner_form` builds the ipywidgets form that re-plans as the user moves its
controls (JupyterLab only; a rendered report shows the static answer).
"""

from __future__ import annotations

import math

import pandas as pd

from trackerlab.planner.plan import Plan, plan
from trackerlab.planner.report import answer
from trackerlab.planner.workload import PlanWorkload

MIB = 2**20

__all__ = ["choice_frame", "planner_form", "plot_choice", "plot_designs", "rows_frame"]


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
    setting = "tick_ms" if choice.setting == "tick" else "nack_precision_bits"
    frame["chosen"] = frame[setting] == choice.value
    return frame


def plot_designs(p: Plan):
    """Per-topic memory of every design, one panel per tracker (MiB; a log scale when the
    designs span more than 30x)."""
    import matplotlib.pyplot as plt

    frame = rows_frame(p)
    trackers = list(dict.fromkeys(frame.tracker))
    fig, axes = plt.subplots(
        1, len(trackers), figsize=(4.2 * len(trackers), 3.6), layout="constrained", squeeze=False
    )
    for ax, tracker in zip(axes[0], trackers, strict=True):
        part = frame[frame.tracker == tracker]
        colours = ["tab:orange" if d else "tab:blue" for d in part.pulsar_runs_it]
        values = part.per_topic_mib.clip(lower=1e-3)
        log = values.max() > 30 * values.min()  # a dot plot: bars mislead on a log axis
        ax.hlines(part.design, values.min() / 2 if log else 0, values, color="0.85", lw=1)
        ax.scatter(values, part.design, c=colours, zorder=3)
        if log:
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(plt.NullFormatter())
        else:
            ax.set_xlim(left=0)
        ax.set_xlabel("MiB per topic" + (" (log scale)" if log else ""))
        ax.set_title(tracker, fontsize=10)
        ax.invert_yaxis()
    fig.suptitle("Memory per topic by design (orange: what the release runs)", fontsize=10)
    return fig


def plot_choice(p: Plan):
    """Memory against early delivery for the neighbouring settings of the recommendation."""
    import matplotlib.pyplot as plt

    frame = choice_frame(p)
    fig, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
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
    ax.legend(fontsize=8)
    return fig


def planner_form(base: PlanWorkload):
    """An ipywidgets form over the main workload settings that re-plans on every change."""
    import ipywidgets as widgets
    from IPython.display import Markdown, display

    controls = {
        "rate": widgets.Text(value=base.describe("rate"), description="rate"),
        "delayed": widgets.Text(value=base.describe("delayed"), description="delayed"),
        "delay": widgets.Text(
            value=base.describe("delay") if base.values["delay"] else "", description="delay"
        ),
        "nacked": widgets.Text(value=base.describe("nacked"), description="nacked"),
        "subscriptions": widgets.IntSlider(
            value=int(base.values["subscriptions"]), min=1, max=64, description="subscriptions"
        ),
        "tick": widgets.Dropdown(
            options=["100ms", "250ms", "500ms", "1s", "2s", "5s", "10s", "30s", "1m"],
            value=base.describe("tick"),
            description="tick",
        ),
    }
    out = widgets.Output()

    def replan(_=None) -> None:
        values = {k: c.value for k, c in controls.items() if c.value not in ("", None)}
        with out:
            out.clear_output()
            try:
                workload = PlanWorkload.parse(values)
                display(Markdown(answer(plan(workload))))
            except Exception as exc:  # a half-typed value: say so, keep the form alive
                display(Markdown(f"*{exc}*"))

    for control in controls.values():
        control.observe(replan, names="value")
    replan()
    return widgets.VBox([*controls.values(), out])
