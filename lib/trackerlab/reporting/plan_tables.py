"""The capacity plan's tables for a reader (the ``capacity_planner`` report).

:mod:`trackerlab.planner.frames` builds the frames (column names with units); these
functions show them with :func:`~trackerlab.reporting.tables.show_table`: the columns that
answer the question (totals per topic and broker, early delivery) first, units in the
headers, human numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from trackerlab.planner.frames import choice_frame, plot_choice, rows_frame
from trackerlab.planner.memory_plan import Plan
from trackerlab.planner.plan_report import answer as plan_answer
from trackerlab.reporting.formatting import format_bytes
from trackerlab.reporting.headline import answer, headline
from trackerlab.reporting.markdown import escape_markdown, show_markdown
from trackerlab.reporting.tables import Column, show_table

__all__ = [
    "CHOICE_COLUMNS",
    "DESIGN_COLUMNS",
    "plan_headline",
    "plan_notes",
    "publish_plan",
    "show_checks",
    "show_choices",
    "show_designs",
    "show_plan_choices",
]

#: :func:`rows_frame`'s columns as the report shows them: the answer (totals) first.
DESIGN_COLUMNS = {
    "tracker": "tracker",
    "design": "design",
    "pulsar_runs_it": "the release runs it",
    "per_topic_mib": "per topic (MiB)",
    "per_broker_mib": "per broker (MiB)",
    "early_ms": "delivered early by up to (ms)",
    "one_per": "one per",
    "steady_mib": "one unit, steady (MiB)",
    "peak_mib": "one unit, peak (MiB)",
    "bytes_per_entry": "per entry (B)",
    "entries": "entries",
    "where": "where",
    "note": "note",
}
#: :func:`choice_frame`'s columns, the chosen setting first.
CHOICE_COLUMNS = {
    "chosen": "recommended",
    "tick_ms": "tick (ms)",
    "nack_precision_bits": "nack precision (bits)",
    "bucket_ms": "bucket (ms)",
    "early_ms": "delivered early by up to (ms)",
    "per_broker_mib": "delayed index per broker (MiB)",
    "per_topic_mib": "nack trackers per topic (MiB)",
    "wakeups_per_s": "wake-ups (per s)",
}


def show_designs(p: Plan) -> None:
    """:func:`rows_frame` as a reader's table (totals first, units in the headers)."""
    frame = rows_frame(p)
    show_table(frame, DESIGN_COLUMNS, name="designs", max_rows=40)


def show_choices(p: Plan) -> None:
    """:func:`choice_frame` as a reader's table; a long one keeps the rows around the choice."""
    frame = choice_frame(p)
    columns = {k: v for k, v in CHOICE_COLUMNS.items() if k in frame.columns}
    chosen = np.flatnonzero(frame["chosen"].to_numpy(dtype=bool))
    at = int(chosen[0]) if len(chosen) else 0  # position of the first chosen row
    near = np.abs(np.arange(len(frame)) - at) <= 5
    show_table(frame, columns, name="tick-choices", keep=near, max_rows=11)


def show_plan_choices(p: Plan):
    """The recommendation's section: :func:`show_choices` and its figure
    (:func:`~trackerlab.planner.frames.plot_choice`, returned), or a note when no budget or
    precision was asked (None)."""
    if not p.choices:
        show_markdown("*No budget or precision was asked: no recommendation.*")
        return None
    show_choices(p)
    return plot_choice(p)


def show_checks(checks: pd.DataFrame) -> None:
    """:func:`exact_check` as a reader's table."""
    show_table(
        checks,
        {
            "tracker": "tracker",
            "design": "design",
            "fast_over_exact": Column("fast / exact", fmt="{:.4f}"),
            "fast_mib": Column("fast answer (MiB)", sig=4),
            "exact_mib": Column("message-level snapshot (MiB)", sig=4),
            "rate": "publish rate",
        },
        name="exact-check",
    )


def plan_notes(p: Plan) -> list[str]:
    """The plan's warnings as Markdown notes, one each (``*Note: ...*``)."""
    return [f"*Note: {escape_markdown(note)}.*" for note in p.warnings]


def plan_headline(p: Plan, topics: int) -> tuple[str, str, str]:
    """The one figure the index shows beside the answer, ``(label, value, note)``: the
    release's delayed index per broker for ``topics`` topics, else how many designs were
    sized."""
    own = p.own("delayed-delivery index")
    if own is not None and own.per_broker is not None:
        note = f"{topics:,} topic{'s' if topics != 1 else ''} like this one"
        return ("delayed index per broker", format_bytes(own.per_broker), note)
    return ("designs sized", f"{len(p.rows)}", "every tracker, per unit, topic and broker")


def publish_plan(p: Plan, topics: int) -> None:
    """The report's opening: the plan's answer, one note per warning (:func:`plan_notes`) and
    the one index figure the answer does not state (:func:`plan_headline`)."""
    answer(plan_answer(p))
    for note in plan_notes(p):
        show_markdown(note)
    headline(*plan_headline(p, topics))
