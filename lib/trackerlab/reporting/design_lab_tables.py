"""The design lab's tables and texts for a reader (the ``design_lab`` report).

:mod:`trackerlab.experiments.design_lab`, :mod:`~trackerlab.experiments.design_lab_conclusions`
and :mod:`~trackerlab.experiments.design_lab_verdict` compute the frames and sentences; these
functions show them with :func:`~trackerlab.reporting.tables.show_table` under the headers
(units in them) and number formats the report publishes, and under the same CSV names.
"""

from __future__ import annotations

import pandas as pd

from trackerlab.experiments import design_lab as dl
from trackerlab.experiments import design_lab_conclusions as dlc
from trackerlab.experiments import design_lab_realistic as real
from trackerlab.experiments import design_lab_verdict as verdict
from trackerlab.reporting.headline import answer, headline
from trackerlab.reporting.markdown import bullets, escape_markdown, show_markdown
from trackerlab.reporting.tables import Column, show_table

__all__ = [
    "show_acceptance",
    "show_at_scale",
    "show_broker",
    "show_by_size",
    "show_cells",
    "show_comparisons",
    "show_lab_conclusions",
    "show_lab_data",
    "show_latency",
    "show_op_costs",
    "show_ratio_to_floor",
    "show_realistic_data",
    "show_realistic_worst",
    "show_seed_savings",
    "show_verdict",
    "show_wins",
    "show_worst_case",
]


def _bytes(header: str) -> Column:
    return Column(header, fmt="{:.2f}")


def _per_design(frame: pd.DataFrame, index: str, suffix: str, fmt: str) -> dict[str, str | Column]:
    return {
        index: index,
        **{d: Column(f"{d} ({suffix})", fmt=fmt) for d in frame.columns if d != index},
    }


# --------------------------------------------------------------------------- part I


def show_lab_data(results: dl.LabResults, sweep_profile: str) -> None:
    """Where the matrix comes from: a note when it ran in this process, a headline, its size."""
    if not results.from_spark:
        show_markdown(dlc.no_data_note(sweep_profile))
    headline(
        "design-lab data", "Spark sweep" if results.from_spark else "single process", results.source
    )
    show_markdown(f"Data: {escape_markdown(results.source)}. {dlc.data_line(results.frame)}")


def show_worst_case(frame: pd.DataFrame) -> None:
    """Section 1's headline and table: each design's worst and median bytes per entry."""
    headline(*dlc.worst_headline(frame))
    show_table(dl.worst_case(frame), {
        "design": "design",
        "worst_bytes_per_entry": _bytes("worst (B per entry)"),
        "median_bytes_per_entry": _bytes("median (B per entry)"),
        "cells_above_24B": "cells above the heap's 24 B",
        "worst_ratio_to_floor": Column("worst ratio to the floor (×)", fmt="{:.2f}"),
        "cells_above_3x_floor": "cells above 3× the floor",
        "cells": "cells",
        "proposal": "proposal",
        "worst_cell": "worst cell",
    }, name="worst-case")  # fmt: skip


def show_cells(frame: pd.DataFrame) -> None:
    """Section 2: the 12 cells where the best proposal is furthest above the floor."""
    best = dl.best_proposal(frame)
    table = dl.cell_table(frame).reset_index()
    designs = [d for d in dl.DESIGNS if d in table.columns]
    show_table(table, {
        "delay": "delay", "pattern": "delayed messages", "rate_per_ms": "rate (msg/ms)",
        "tick_ms": "tick (ms)", "batch_size": "batch (msg per entry)",
        "floor_B": _bytes("floor (B per entry)"),
        **{d: _bytes(f"{d} (B per entry)") for d in designs},
        "messages": "messages",
    }, name="cells", caption=f"The cells where {best} is furthest above the floor",
        keep=dlc.furthest_above_floor(table, best).to_numpy(), max_rows=12)  # fmt: skip


def show_ratio_to_floor(frame: pd.DataFrame) -> None:
    """Section 3's table: each proposal's ratio to the floor where the floor applies."""
    show_table(dlc.ratio_table(frame), {
        "design": "design", "count": "cells (floor above 1 B)",
        "min": Column("least ratio to the floor (×)", fmt="{:.2f}"),
        "50%": Column("median ratio (×)", fmt="{:.2f}"),
        "max": Column("largest ratio (×)", fmt="{:.2f}"),
    }, name="ratio-to-floor")  # fmt: skip


WIN_AXES = (
    ("delay", "delay"),
    ("pattern", "delayed messages"),
    ("tick_ms", "tick (ms)"),
    ("batch_size", "batch (msg per entry)"),
)


def show_wins(frame: pd.DataFrame) -> None:
    """Section 4: cells won per design, by delay, pattern, tick and batch size."""
    for axis, header in WIN_AXES:
        wins = dl.win_table(frame, axis).reset_index()
        columns = {axis: header, **{d: f"{d} (cells won)" for d in wins.columns if d != axis}}
        show_table(wins, columns, name=f"wins-by-{axis}")


def show_seed_savings(saved: pd.DataFrame) -> None:
    """Section 5: the saving kept and the bytes per entry on the seeds' scenarios."""
    kept = dlc.by_design(saved, "scenario", "saving_kept")
    show_table(kept, _per_design(kept, "scenario", "saving kept", "{:.0%}"), name="saving-kept")
    per_entry = dlc.by_design(saved, "scenario", "bytes_per_entry")
    show_table(
        per_entry,
        _per_design(per_entry, "scenario", "B per entry", "{:.2f}"),
        name="seed-bytes-per-entry",
    )


def show_acceptance(frame: pd.DataFrame, accepted: pd.DataFrame) -> None:
    """Section 6: the acceptance headline and table."""
    headline(*dlc.acceptance_headline(frame, accepted))
    show_table(accepted, {"check": "check", "passed": "passed", "worst": Column("worst value", sig=3),
                          "bound": "bound"}, name="acceptance")  # fmt: skip


def show_op_costs(ops: pd.DataFrame) -> None:
    """Section 7: the work per operation headline and table."""
    headline(*dlc.op_headline(ops))
    show_table(ops, {
        "delay": "delay", "design": "design",
        "touches_per_add": Column("cache lines per add", fmt="{:.1f}"),
        "touches_per_delivered": Column("cache lines per delivered message", fmt="{:.2f}"),
        "max_touches_one_add": "largest add (cache lines)",
        "max_touches_one_scan": "largest scan (cache lines)",
        "live_bytes_per_entry": _bytes("live (B per entry)"),
        "paused_bytes_per_entry": _bytes("paused (B per entry)"),
        "held_when_published": "entries held when publishing ends",
    }, name="op-cost", max_rows=20)  # fmt: skip


def show_at_scale(big: pd.DataFrame, sweep_profile: str, big_sweep_dir: str) -> None:
    """Section 8: the 1e9-message points, or a note saying none were read."""
    if not len(big):
        show_markdown(dlc.no_big_points_note(sweep_profile, big_sweep_dir))
        return
    at_scale = dlc.by_design(big, "delay", "bytes_per_entry")
    show_table(at_scale, _per_design(at_scale, "delay", "B per entry", "{:.2f}"), name="at-scale")
    show_table(dlc.at_scale_runs(big), {"delay": "delay", "messages": "messages",
                                        "wall_s": Column("wall time (s)", fmt="{:,.0f}")},
               name="at-scale-runs")  # fmt: skip


def show_lab_conclusions(lines: list[str], one_sentence: str) -> None:
    """Part I's conclusions as bullets, then its one sentence (escaped)."""
    show_markdown(bullets(lines))
    show_markdown("**Design lab I in one sentence:** " + escape_markdown(one_sentence))


# --------------------------------------------------------------------------- part II


def show_realistic_data(
    realistic: pd.DataFrame, extra: pd.DataFrame | None, extra_path: str
) -> None:
    """The realistic matrix's size and whether the stored large rows were added."""
    stored = "added from " + escape_markdown(extra_path) if extra is not None else "not present"
    show_markdown(f"{realistic.drop_duplicates(list(dl.CELL_COLUMNS)).shape[0]} realistic cells × "
                  f"{realistic.design.nunique()} designs, {int(realistic.index_entries.min()):,} to "
                  f"{int(realistic.index_entries.max()):,} held entries; stored rows {stored}.")  # fmt: skip


def show_realistic_worst(realistic: pd.DataFrame) -> None:
    """Section 9: each design's worst paused and dispatching bytes, then sorted-chunks' cells
    furthest above the entropy estimate."""
    show_table(real.worst_per_design(realistic), {
        "design": "design", "worst_paused_B": _bytes("worst paused (B per entry)"),
        "worst_dispatching_B": _bytes("worst dispatching (B per entry)"),
        "cells_paused_above_24B": "cells above 24 B, paused",
        "cells_dispatching_above_24B": "cells above 24 B, dispatching",
        "cells_refused": "cells refused", "cells": "cells", "worst_paused_cell": "worst paused cell",
    }, name="realistic-worst")  # fmt: skip
    cells = real.cell_table(realistic)
    sc = cells[cells.design == verdict.PROPOSAL]
    spread = (sc.paused_B_per_entry - sc.entropy_B_per_entry).rank(ascending=False, method="first")
    show_table(sc, {
        "index_entries": "held entries", "paused_B_per_entry": _bytes("paused (B per entry)"),
        "entropy_B_per_entry": _bytes("entropy estimate (B per entry)"),
        "dispatching_B_per_entry": _bytes("dispatching (B per entry)"),
        "floor_B_per_entry": _bytes("counting floor (B per entry)"),
        "pattern": "delayed messages", "delay": "delay", "messages": "messages",
        "rate_per_ms": "rate (msg per ms)", "tick_ms": "tick (ms)",
    }, name="realistic-sorted-chunks",
        caption="sorted-chunks: the 12 cells furthest above the entropy estimate",
        keep=(spread <= 12).to_numpy(), max_rows=12)  # fmt: skip


def show_by_size(summary: verdict.RealisticSummary) -> None:
    """Section 10's tables: worst bytes per decade of held entries, and the cells above the heap."""
    designs = [verdict.PROPOSAL, "time-buckets-hier", "triple-heap"]
    by_size = summary.by_size[summary.by_size.design.isin(designs)]
    show_table(by_size, verdict.SIZE_HEADERS, name="realistic-by-size", max_rows=30)
    if len(summary.above):
        show_table(summary.above, verdict.ABOVE_HEADERS, name="sorted-chunks-above-heap")
    else:
        show_markdown(
            "*sorted-chunks is never above the heap's 24 B in this matrix, paused or dispatching.*"
        )


def show_latency(latency: pd.DataFrame, latency_path: str) -> None:
    """Section 11: the JMH latency and allocation tables, or a note saying none were found."""
    if not len(latency):
        show_markdown(
            f"*No JMH latency in {escape_markdown(latency_path)}: run "
            "`trackerlab.experiments.real_broker.tracker_latency.run`.*"
        )
        return
    show_table(verdict.latency_table(latency), verdict.LATENCY_HEADERS, name="jmh-latency")
    show_table(verdict.latency_table(latency), verdict.ALLOCATION_HEADERS, name="jmh-allocation")


def show_broker(broker: pd.DataFrame, latency: pd.DataFrame, broker_dir: str) -> None:
    """Section 12: the broker memory and cost tables and the runs missing."""
    if not len(broker):
        show_markdown(
            f"*No broker runs in {escape_markdown(broker_dir)}: run `trackerlab broker run trackers`.*"
        )
        return
    rows = verdict.broker_table(broker, latency)
    memory = verdict.BROKER_MEMORY_HEADERS
    cost = verdict.BROKER_COST_HEADERS
    jol = Column(memory["jol_bytes_per_entry"], fmt="{:.1f}")
    show_table(rows, {**memory, "jol_bytes_per_entry": jol}, name="broker-memory")
    alloc = Column(cost["alloc_bytes_per_msg"], fmt="{:,.0f}")
    show_table(rows, {**cost, "alloc_bytes_per_msg": alloc}, name="broker-cost")
    gone = verdict.missing_runs(broker)
    if gone:
        show_markdown("*Not run in the broker:* " + ", ".join(f"{t} on {w}" for t, w in gone) + ".")


def show_comparisons(comparisons: pd.DataFrame) -> None:
    """Section 13: the other designs with their sources."""
    show_table(
        verdict.comparisons_table(comparisons), verdict.COMPARISON_HEADERS, name="comparisons"
    )


def show_verdict(
    realistic: pd.DataFrame, latency: pd.DataFrame, broker: pd.DataFrame, comparisons: pd.DataFrame
) -> None:
    """Section 14: the conclusions as bullets, the evidence headline and the answer."""
    lines = verdict.conclusions(realistic, latency, broker, comparisons)
    show_markdown(bullets(lines[:-1]))
    e = verdict.evidence(realistic, latency, broker)
    headline("sorted-chunks, realistic matrix", f"{e.worst_paused_B:.1f} B/entry worst paused",
             f"{e.cells} cells of at least {e.min_held:,} held entries; heap 24 B")  # fmt: skip
    answer(lines[-1])
