"""Design lab I's tables and sentences (the ``design_lab`` report, sections 1-8 and its
conclusions), each computed from the frames of :mod:`trackerlab.experiments.design_lab`.

Every sentence is its own function, so a test can parse the numbers it states and check
them against the frame it was given; :func:`conclusions` lists them in the report's order.
Headlines are ``(label, value, note)`` triples for :func:`trackerlab.reporting.headline`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast  # itertuples fields are typed as any scalar; these columns are integers

import pandas as pd

import trackerlab.experiments.design_lab as dl

Headline = tuple[str, str, str]


# --------------------------------------------------------------------------- data and tables


def lab_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per matrix cell (the first design's row), O(rows)."""
    return frame.drop_duplicates(list(dl.CELL_COLUMNS))


def _messages(frame: pd.DataFrame) -> str:
    return ", ".join(f"{m:,}" for m in sorted(lab_cells(frame).messages.unique().tolist()))


def matrix_scale(frame: pd.DataFrame) -> str:
    """``"8 cells of 5,000 messages"``: the matrix's size as the conclusions state it."""
    return f"{len(lab_cells(frame))} cells of {_messages(frame)} messages"


def data_line(frame: pd.DataFrame) -> str:
    """``"8 cells × 7 designs; messages per cell: 5,000."``"""
    return (
        f"{len(lab_cells(frame))} cells × {frame.design.nunique()} designs; messages per cell: "
        f"{_messages(frame)}."
    )


def worst_headline(frame: pd.DataFrame) -> Headline:
    """The best proposal's worst bytes per entry, the report's figure to remember."""
    best = dl.best_proposal(frame)
    row = dl.worst_case(frame).set_index("design").loc[best]
    return (
        "worst case of the best proposal",
        f"{row.worst_bytes_per_entry:.2f} B/entry ({best})",
        f"heap 24 B; worst ratio to the floor {row.worst_ratio_to_floor:.2f}x over "
        f"{len(lab_cells(frame))} cells",
    )


def furthest_above_floor(table: pd.DataFrame, design: str, rows: int = 12) -> pd.Series:
    """Mask of the ``rows`` cells of :func:`~trackerlab.experiments.design_lab.cell_table`
    (reset) where ``design`` is furthest above ``floor_B`` (ties: first row first)."""
    spread = (table[design] - table["floor_B"]).rank(ascending=False, method="first")
    return spread <= rows


def ratio_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per proposal, over the cells whose floor applies (above 1 B/entry): count, least,
    median and largest ratio to the floor."""
    applies = frame[frame.floor_applies & frame.proposal]
    summary = applies.groupby("design").ratio_to_floor.describe()
    return summary[["count", "min", "50%", "max"]].reset_index()


def by_design(frame: pd.DataFrame, index: str, values: str) -> pd.DataFrame:
    """``values`` with one column per design, one row per ``index`` (a pivot, mean of ties)."""
    return frame.pivot_table(index=index, columns="design", values=values).reset_index()


def acceptance_headline(frame: pd.DataFrame, accepted: pd.DataFrame) -> Headline:
    """How many of :func:`~trackerlab.experiments.design_lab.acceptance`'s checks passed."""
    best = dl.best_proposal(frame)
    checks = "; ".join(f"{r.check}: {r.worst:.3g} vs {r.bound:g}" for r in accepted.itertuples())
    return (
        "design-lab acceptance",
        f"{int(accepted.passed.sum())} of {len(accepted)} checks passed",
        f"{best}: {checks}",
    )


def op_costs(
    messages: int, rate_per_ms: float, delays: Sequence[str], tick_ms: int
) -> pd.DataFrame:
    """:func:`~trackerlab.experiments.design_lab.op_cost` for each delay, one frame with a
    ``delay`` column (the designs' cost in each delay's run)."""
    parts = [dl.op_cost(messages, rate_per_ms, d, tick_ms).assign(delay=d) for d in delays]
    return pd.concat(parts, ignore_index=True)


def op_headline(ops: pd.DataFrame, design: str = "time-buckets-hier") -> Headline:
    """The most cache lines per add and per delivered message of ``design``."""
    hier = ops[ops.design == design]
    return (
        "work per add (hier)",
        f"{hier.touches_per_add.max():.1f} cache lines",
        f"{hier.touches_per_delivered.max():.2f} per delivered message",
    )


def at_scale_runs(big: pd.DataFrame) -> pd.DataFrame:
    """Messages and wall time of each 1e9-message point (one per delay)."""
    return big.groupby("delay")[["messages", "wall_s"]].first().reset_index()


def no_data_note(sweep_profile: str) -> str:
    """Said when the sweep had no design-lab rows and the matrix ran in this process."""
    return (
        f"> **No design-lab rows in the `{sweep_profile}` sweep.** The matrix below was computed "
        f"in this process from the same reducer counts. Run `trackerlab sweep --profile "
        f"{sweep_profile}` for the profile's matrix at its scale."
    )


def no_big_points_note(sweep_profile: str, big_sweep_dir: str) -> str:
    """Said when no 1e9-message points were read."""
    where = "the sweep folder given" if big_sweep_dir else f"the `{sweep_profile}` sweep"
    return (
        f"*Not measured in this run: {where} has no 1e9-message points. They come from "
        "`trackerlab sweep --profile large` (block `design-lab-1e9`), read here through "
        "`big_sweep_dir`.*"
    )


# --------------------------------------------------------------------------- sentences


def _worst(frame: pd.DataFrame) -> pd.DataFrame:
    return dl.worst_case(frame).set_index("design")


def best_sentence(frame: pd.DataFrame) -> str:
    """The best proposal's worst and median bytes per entry against #23611 and the heap."""
    best = dl.best_proposal(frame)
    worst = _worst(frame)
    row, tb, heap = worst.loc[best], worst.loc["time-buckets"], worst.loc["triple-heap"]
    return (
        f"- Over {matrix_scale(frame)}, **{best}** is the best proposal: at worst "
        f"{row.worst_bytes_per_entry:.2f} B/entry (median {row.median_bytes_per_entry:.2f}), "
        f"against {tb.worst_bytes_per_entry:.0f} B for #23611's time buckets and "
        f"{heap.worst_bytes_per_entry:.1f} B for the heap with its growth slack; worst cell: "
        f"{row.worst_cell}."
    )


def floor_sentence(frame: pd.DataFrame) -> str:
    """The best proposal's worst ratio to the floor and its cells above 3x and above 24 B."""
    row = _worst(frame).loc[dl.best_proposal(frame)]
    return (
        f"- Where the floor is above 1 B/entry it stays within {row.worst_ratio_to_floor:.2f}x "
        f"of it ({int(row.cells_above_3x_floor)} cells above 3x); it is above 24 B in "
        f"{int(row.cells_above_24B)} cells."
    )


def other_proposal_sentences(frame: pd.DataFrame) -> list[str]:
    """One sentence per other proposal: its worst bytes per entry, its cells above 24 B."""
    best = dl.best_proposal(frame)
    worst = _worst(frame)
    return [
        f"- {design}: worst {w.worst_bytes_per_entry:.1f} B/entry, above 24 B in "
        f"{int(w.cells_above_24B)} of {int(w.cells)} cells."
        for design in dl.PROPOSALS
        if design != best
        for w in [worst.loc[design]]
    ]


def seed_sentence(frame: pd.DataFrame, saved: pd.DataFrame) -> str:
    """The share of the time buckets' saving the best proposal keeps on the seed scenarios."""
    best = dl.best_proposal(frame)
    kept = saved[saved.design == best].saving_kept
    return (
        f"- On the seeds' fixed-delay scenarios ({int(saved.messages.min()):,} to "
        f"{int(saved.messages.max()):,} messages) {best} keeps between {kept.min():.0%} and "
        f"{kept.max():.0%} of the time buckets' saving over the heap."
    )


def acceptance_sentence(frame: pd.DataFrame, accepted: pd.DataFrame) -> str:
    """All checks pass, or which fail and the (up to three) worst cells beyond a bound."""
    failed = accepted[~accepted.passed]
    if failed.empty:
        return (
            f"- All three acceptance checks pass on this matrix ({matrix_scale(frame)}); a larger "
            "matrix is evidence only once it has been run."
        )
    beyond = dl.beyond_bounds(frame, dl.best_proposal(frame))
    worst_cells = "; ".join(
        f"{r.delay}, {r.pattern}, tick {int(cast(int, r.tick_ms))} ms, "
        f"batch {int(cast(int, r.batch_size))}: "
        f"{r.bytes_per_entry:.2f} B vs floor {r.floor_per_entry:.2f} B over {int(cast(int, r.entries)):,} entries"
        for r in beyond.head(3).itertuples()
    )
    checks = "; ".join(
        f"{r.check} (worst {r.worst:.3g}, bound {r.bound:g})" for r in failed.itertuples()
    )
    return f"- Not reached: {checks}. The {len(beyond)} cells beyond a bound, worst first: {worst_cells}."


def work_sentence(frame: pd.DataFrame, ops: pd.DataFrame, op_messages: int) -> str | None:
    """The best proposal's cache lines per add and per delivered message (None: not run)."""
    h = ops[ops.design == dl.best_proposal(frame)]
    if not len(h):
        return None
    heap = ops[ops.design.str.startswith("triple")].touches_per_add.max()
    return (
        f"- Work: {h.touches_per_add.max():.1f} cache lines per add and "
        f"{h.touches_per_delivered.max():.2f} per delivered message at most over the "
        f"operation-cost runs of {op_messages:,} messages (the heap, analytic: "
        f"{heap:.1f} per add); the largest single add touched {h.max_touches_one_add.max():.0f} "
        f"lines and the largest single getScheduledMessages call "
        f"{h.max_touches_one_scan.max():.0f}."
    )


def live_memory_sentence(frame: pd.DataFrame, ops: pd.DataFrame, op_tick_ms: int) -> str | None:
    """The best proposal's largest live bytes per entry against its paused size (None: not run)."""
    best = dl.best_proposal(frame)
    h = ops[ops.design == best]
    if not len(h):
        return None
    w = h.loc[h.live_bytes_per_entry.idxmax()]
    side = "under" if (h.live_bytes_per_entry <= dl.HEAP_BYTES_PER_ENTRY).all() else "above"
    return (
        f"- Memory while dispatching: {best} held up to {w.live_bytes_per_entry:.2f} B/entry "
        f"with the dispatcher running ({w.delay}, tick {op_tick_ms} ms) against "
        f"{w.paused_bytes_per_entry:.2f} B paused; the matrix and the acceptance above size "
        f"paused snapshots, so they understate its live memory where delays are short "
        f"next to a near bucket (256 ticks). Live, it stays {side} the heap's 24 B in these runs."
    )


def below_floor_sentence(frame: pd.DataFrame) -> str | None:
    """How many (cell, design) pairs sit below the floor, per design (None: none)."""
    below = frame[frame.ratio_to_floor < 1]
    if not len(below):
        return None
    per_design = ", ".join(f"{d}: {n}" for d, n in below.groupby("design").size().items())
    return (
        f"- {len(below)} (cell, design) pairs sit below the floor ({per_design}; delays "
        f"{', '.join(sorted(below.delay.unique()))}): the floor counts every set "
        "the delay's support allows, the worst case, so a structure that exploits a skewed "
        "distribution (a mixture's weights) or the regular layout of batches goes under it. "
        "There it is a reference, not a lower bound."
    )


def at_scale_sentence(frame: pd.DataFrame, big: pd.DataFrame) -> str | None:
    """The best proposal's bytes per entry at each 1e9-message point (None: none read)."""
    if not len(big):
        return None
    best = dl.best_proposal(frame)
    b = big[big.design == best].set_index("delay").bytes_per_entry
    values = ", ".join(f"{v:.3g} B/entry for {d}" for d, v in b.items())
    return f"- At 1e9 messages ({len(b)} delay families measured): {best} costs {values}."


def conclusions(
    frame: pd.DataFrame,
    saved: pd.DataFrame,
    accepted: pd.DataFrame,
    ops: pd.DataFrame,
    big: pd.DataFrame,
    op_messages: int,
    op_tick_ms: int,
) -> list[str]:
    """Design lab I's conclusions in the report's order (sentences with nothing to say are
    left out)."""
    lines = [
        best_sentence(frame),
        floor_sentence(frame),
        *other_proposal_sentences(frame),
        seed_sentence(frame, saved),
        acceptance_sentence(frame, accepted),
        work_sentence(frame, ops, op_messages),
        live_memory_sentence(frame, ops, op_tick_ms),
        below_floor_sentence(frame),
        at_scale_sentence(frame, big),
    ]
    return [line for line in lines if line is not None]


def one_sentence(frame: pd.DataFrame, accepted: pd.DataFrame) -> str:
    """Design lab I in one sentence (not escaped: the caller escapes it for markdown)."""
    best = dl.best_proposal(frame)
    worst = _worst(frame)
    row, tb, heap = worst.loc[best], worst.loc["time-buckets"], worst.loc["triple-heap"]
    failed = accepted[~accepted.passed]
    verdict = (
        "it passes all three acceptance checks"
        if failed.empty
        else f"{len(failed)} of {len(accepted)} acceptance checks not reached"
    )
    return (
        f"Over {matrix_scale(frame)}, {best} is the best proposal: at worst "
        f"{row.worst_bytes_per_entry:.2f} B/entry against {tb.worst_bytes_per_entry:.0f} B for the "
        f"time buckets and {heap.worst_bytes_per_entry:.1f} B for the heap; {verdict}"
    )
