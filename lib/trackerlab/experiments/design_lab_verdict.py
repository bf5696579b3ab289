"""Design lab II's verdict (issue 27, item 5): the realistic matrix, the JMH latency, the broker
table and the comparisons, brought to one sentence a broker engineer can act on.

Pure functions over frames; the only I/O is in the ``load_*`` helpers, which take paths:

- :func:`load_broker` reads the summary rows ``trackers-<tracker>-<workload>.parquet`` that
  ``trackerlab broker run trackers`` writes (:func:`~trackerlab.experiments.real_broker.trackers.summarize`),
  ignoring the ``-samples``, ``-gc`` and ``-smoke`` files beside them;
- :func:`load_latency` reads the JMH Parquet of
  :mod:`~trackerlab.experiments.real_broker.tracker_latency`;
- :func:`load_comparisons` reads the comparisons (Kafka's TimingWheel, Netty's
  HashedWheelTimer, RocketMQ's timer log, PIP-195, Elias-Fano, PIP-448) through
  ``trackerlab.experiments.design_lab_comparisons.load()``, imported lazily: when that module
  or its CSV is absent the frame holds one row saying so (:data:`NOT_AVAILABLE`);
- :func:`load_realistic_extra` reads stored realistic-matrix rows (sorted-chunks at 10^7..10^9).

:func:`answer` is the one sentence; it is never more generous than its evidence: a proposal
that is smaller in memory but slower on a method (p99 above :data:`SLOWER_FACTOR` times the
incumbent's), behind in the broker (:data:`BEHIND_SHARE`) or not run on a workload gets a
"but not yet" sentence naming each of those, with the numbers. Every number is computed here
from the frames; nothing is hard-coded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

import trackerlab.experiments.design_lab as dl
import trackerlab.experiments.design_lab_comparisons as design_lab_comparisons
import trackerlab.experiments.design_lab_realistic as dr
from trackerlab.core.errors import UsageError

#: The proposal the verdict is about (issue 27, item 2).
PROPOSAL = "sorted-chunks"
#: What a broker engineer runs today: Pulsar 4.2.4's default, #23611's time buckets.
INCUMBENT = "time-buckets"
#: The heap's bytes per entry, the ceiling of the design lab.
HEAP_B = float(dl.HEAP_BYTES_PER_ENTRY)
#: A tracker is *behind* on a workload when it held fewer than this share of the largest
#: pending-entry count any tracker held on that workload when publishing ended (its
#: dispatcher, or the broker around it, did not keep up: its bytes per entry are then taken
#: at another point and do not compare like for like).
BEHIND_SHARE = 0.5
#: A method is *slower* when its JMH p99 is above this many times the incumbent's (the
#: machine is shared and noisy: differences under 2x are not claimed).
SLOWER_FACTOR = 2.0
#: Cells above 24 B in trackers of fewer held entries than this are stated in the sentence
#: but do not make the proposal "not smaller": there the heap's 24 B/entry line is at most
#: 240 KB, and the excess is a fixed per-tracker cost (:func:`realistic_summary` says which).
SMALL_TRACKER = 10**4
#: The broker summary columns this module reads (``trackers.summarize``).
BROKER_COLUMNS = (
    "tracker", "pulsar_version", "workload", "rate_per_s", "achieved_rate_per_s",
    "pending_entries", "jol_bytes", "jol_bytes_per_entry", "metric_index_bytes",
    "alloc_bytes_per_s", "gc_pauses", "gc_pause_total_ms", "gc_pause_max_ms", "rebuild_ms",
    "count_before_unload", "count_rebuilt",
)  # fmt: skip
#: The JMH columns this module reads (``tracker_latency.run``).
LATENCY_COLUMNS = (
    "pulsar_version", "kind", "design", "benchmark", "prefill_messages", "p50_ns", "p99_ns",
    "p99_9_ns", "samples", "alloc_bytes_per_op",
)  # fmt: skip
#: JMH benchmark -> the short name of the method in tables (``TrackerBench.java``).
BENCHMARKS = {
    "addInOrder": "add_in_order",
    "addOutOfOrder": "add_out_of_order",
    "getScheduled100": "get_scheduled",
}
#: What each benchmark calls, for sentences.
METHOD_WORDS = {
    "add_in_order": "in-order addMessage",
    "add_out_of_order": "out-of-order addMessage",
    "get_scheduled": "getScheduledMessages(100)",
}
#: The comparisons' schema (``design_lab_comparisons``).
COMPARISON_COLUMNS = (
    "design", "system", "source", "memory_bytes_per_entry", "memory_fixed_bytes",
    "disk_bytes_per_entry", "precision", "ordering", "recovery", "basis", "notes",
)  # fmt: skip
NOT_AVAILABLE = "not available"
#: The realistic frame's columns this module reads (``design_lab_realistic.run_realistic``).
REALISTIC_COLUMNS = (
    *dl.CELL_COLUMNS, "design", "index_entries", "entries", "jvm_bytes", "bytes_per_entry",
    "live_bytes_per_entry", "refused",
)  # fmt: skip

#: Reader headers (units in every header) for ``show_table``: the broker table in two parts
#: (memory, then cost), so that every column fits the page.
BROKER_MEMORY_HEADERS = {
    "tracker": "tracker", "pulsar_version": "release", "workload": "workload",
    "pending_entries": "pending entries", "jol_bytes_per_entry": "live JOL (B per entry)",
    "metric_index_bytes": "broker metric (B)",
    "behind": f"behind (< {BEHIND_SHARE:.0%} of the most pending, or < 90% tracked)",
}  # fmt: skip
BROKER_COST_HEADERS = {
    "tracker": "tracker", "workload": "workload",
    "add_in_order_p99_ns": "add, in order: p99 (ns)",
    "add_out_of_order_p99_ns": "add, out of order: p99 (ns)",
    "get_scheduled_p99_ns": "getScheduled: p99 (ns)",
    "alloc_bytes_per_msg": "whole-broker allocation (B per message)",
    "gc_pause_total_ms": "GC pauses, total (ms)", "gc_pause_max_ms": "GC pause, max (ms)",
    "rebuild_ms": "rebuild after unload (ms)",
}  # fmt: skip
BROKER_HEADERS = {**BROKER_MEMORY_HEADERS, **BROKER_COST_HEADERS}
_SHORT = {"add_in_order": "add, in order", "add_out_of_order": "add, out of order",
          "get_scheduled": "getScheduled(100)"}  # fmt: skip
LATENCY_HEADERS = {
    "tracker": "tracker", "pulsar_version": "release",
    **{f"{m}_{q}_ns": f"{_SHORT[m]}: {q} (ns)" for q in ("p99", "p50") for m in BENCHMARKS.values()},
}  # fmt: skip
ALLOCATION_HEADERS = {
    "tracker": "tracker", "prefill_messages": "prefill (messages)",
    **{f"{m}_alloc_bytes": f"{_SHORT[m]}: allocation (B per call)" for m in BENCHMARKS.values()},
}  # fmt: skip
SIZE_HEADERS = {
    "held_entries": "held entries", "design": "design",
    "worst_paused_B": "worst paused (B per entry)",
    "worst_dispatching_B": "worst dispatching (B per entry)",
    "cells_above_24B": "cells above 24 B", "cells_refused": "cells refused", "cells": "cells",
}  # fmt: skip
ABOVE_HEADERS = {
    "index_entries": "held entries", "bytes_per_entry": "paused (B per entry)",
    "live_bytes_per_entry": "dispatching (B per entry)", "reason": "why above 24 B",
    "delay": "delay", "pattern": "delayed messages", "rate_per_ms": "rate (msg per ms)",
    "tick_ms": "tick (ms)", "messages": "messages",
}  # fmt: skip
COMPARISON_HEADERS = {
    "design": "design", "system": "system",
    "memory_bytes_per_entry": "memory (B per entry)", "memory_fixed_bytes": "memory, fixed (B)",
    "disk_bytes_per_entry": "disk (B per entry)", "precision": "precision",
    "ordering": "ordering", "recovery": "recovery", "basis": "basis", "source": "source",
}  # fmt: skip


def _check_columns(frame: pd.DataFrame, needed: tuple[str, ...], what: str) -> None:
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise UsageError(f"{what}: missing columns {', '.join(missing)}")


# --------------------------------------------------------------------------- loading


def load_broker(folder: Path) -> pd.DataFrame:
    """The summary rows of ``folder/trackers-<tracker>-<workload>.parquet`` (one row each),
    sorted by workload and tracker; an empty frame with :data:`BROKER_COLUMNS` when the folder
    has none. ``-samples``, ``-gc`` and ``-smoke`` files are ignored. A file without a column
    of :data:`BROKER_COLUMNS` is a UsageError naming it. O(files)."""
    folder = Path(folder)
    parts = []
    for path in sorted(folder.glob("trackers-*.parquet")) if folder.is_dir() else []:
        stem = path.stem
        if stem.endswith(("-samples", "-gc")) or "-smoke" in stem:
            continue
        frame = pd.read_parquet(path)
        _check_columns(frame, BROKER_COLUMNS, f"broker summary {path.name}")
        parts.append(frame.assign(source_file=path.name))
    if not parts:
        return pd.DataFrame(columns=[*BROKER_COLUMNS, "source_file"])
    out = pd.concat(parts, ignore_index=True)
    return out.sort_values(["workload", "tracker"], ignore_index=True)


def load_latency(path: Path) -> pd.DataFrame:
    """The JMH rows of ``path`` (``tracker-latency.parquet``); empty with
    :data:`LATENCY_COLUMNS` when the file is absent. O(rows)."""
    path = Path(path)
    if not path.is_file():
        return pd.DataFrame(columns=list(LATENCY_COLUMNS))
    frame = pd.read_parquet(path)
    _check_columns(frame, LATENCY_COLUMNS, f"JMH latency {path.name}")
    return frame


def _not_available(reason: str) -> pd.DataFrame:
    row: dict[str, object] = dict.fromkeys(COMPARISON_COLUMNS, np.nan)
    row.update(design=NOT_AVAILABLE, system="", source="", precision="", ordering="",
               recovery="", basis=NOT_AVAILABLE, notes=reason)  # fmt: skip
    return pd.DataFrame([row], columns=list(COMPARISON_COLUMNS))


def load_comparisons(path: Path | None = None) -> pd.DataFrame:
    """The comparisons table (:func:`design_lab_comparisons.load`: checked, ValueError on a
    corrupt file), ``path`` or the stored ``data/design_lab/comparisons.csv``. An absent file
    gives one row with ``design`` = :data:`NOT_AVAILABLE` and the reason in ``notes``.
    O(rows)."""
    where = Path(path) if path is not None else design_lab_comparisons.default_path()
    if not where.is_file():
        return _not_available(f"no comparisons file {where.name}")
    frame = design_lab_comparisons.load(where)
    _check_columns(frame, COMPARISON_COLUMNS, "comparisons")
    return frame.reset_index(drop=True)


def load_realistic_extra(path: Path) -> pd.DataFrame | None:
    """Stored realistic-matrix rows (``run_realistic``'s columns, e.g. sorted-chunks at
    10^7..10^9 entries), or None when ``path`` is absent. Rows stored by
    ``design_lab_large`` are paused sizes only: without a ``live_bytes_per_entry`` column
    they get NaN there (not dispatched). O(rows)."""
    path = Path(path)
    if not path.is_file():
        return None
    frame = pd.read_parquet(path)
    if "live_bytes_per_entry" not in frame:
        frame = frame.assign(live_bytes_per_entry=np.nan)
    _check_columns(frame, REALISTIC_COLUMNS, f"realistic rows {path.name}")
    return frame


def realistic_rows(
    paused: dr.RealisticMatrix, dispatching: dr.RealisticMatrix, extra_path: str
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The realistic frame (:func:`combine_realistic`) of ``paused`` run without a dispatcher,
    ``dispatching`` run with one up to its largest size, and the stored rows of
    ``extra_path`` (relative to the repository) when that file exists; and those stored rows
    (None when absent)."""
    extra = load_realistic_extra(repo_path(extra_path))
    frame = combine_realistic(
        dr.run_realistic(paused, dispatch_upto=0),
        dr.run_realistic(dispatching, dispatch_upto=max(dispatching.sizes)),
        extra,
    )
    return frame, extra


def combine_realistic(*frames: pd.DataFrame | None) -> pd.DataFrame:
    """One realistic frame from several runs (a paused matrix, a dispatching matrix, stored
    rows): a (cell, design) present more than once keeps its first row (paused figures are
    deterministic, the same in every run), with the first dispatching figure any of its rows
    has. O(rows)."""
    parts = [f for f in frames if f is not None and len(f)]
    if not parts:
        return pd.DataFrame(columns=list(REALISTIC_COLUMNS))
    out = pd.concat(parts, ignore_index=True)
    key = [*dl.CELL_COLUMNS, "design"]
    live = out.groupby(key, sort=False, dropna=False).live_bytes_per_entry.transform("first")
    out = out.assign(live_bytes_per_entry=live).drop_duplicates(key)
    return out.reset_index(drop=True)


# --------------------------------------------------------------------------- tables


def tracker_name(design: str) -> str:
    """The broker's tracker name of a JMH ``design`` label: ``"time-buckets (#23611)"`` ->
    ``"time-buckets"`` (the label's words before a parenthesis)."""
    return str(design).split(" (")[0].strip()


def latency_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per tracker: p50 and p99 (ns) and JMH's allocation per call (B) of each
    benchmark of :data:`BENCHMARKS`. O(rows)."""
    cols = ["tracker", "pulsar_version", "prefill_messages"]
    if frame.empty:
        return pd.DataFrame(
            columns=list(dict.fromkeys([*cols, *LATENCY_HEADERS, *ALLOCATION_HEADERS]))
        )
    f = frame.assign(tracker=frame.design.map(tracker_name),
                     method=frame.benchmark.map(BENCHMARKS))  # fmt: skip
    f = f[f.method.notna()]
    rows = []
    for (tracker, version), g in f.groupby(["tracker", "pulsar_version"], sort=False):
        row: dict[str, object] = {"tracker": tracker, "pulsar_version": version,
                                  "prefill_messages": int(g.prefill_messages.max())}  # fmt: skip
        for m in BENCHMARKS.values():
            b = g[g.method == m]
            one = b.iloc[0] if len(b) else None
            row[f"{m}_p50_ns"] = float(one.p50_ns) if one is not None else np.nan
            row[f"{m}_p99_ns"] = float(one.p99_ns) if one is not None else np.nan
            row[f"{m}_alloc_bytes"] = float(one.alloc_bytes_per_op) if one is not None else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def _flagged(value: object) -> bool:
    """A run's own ``behind`` flag: True only for a boolean True (NaN in rows written before
    the flag existed). O(1)."""
    return isinstance(value, bool | np.bool_) and bool(value)


def broker_table(frame: pd.DataFrame, latency: pd.DataFrame) -> pd.DataFrame:
    """Per (tracker, workload): pending entries, live JOL bytes per entry, the broker's metric
    (``delayedMessageIndexSizeInBytes``, B), the JMH p99 of the three methods (ns; measured
    outside the broker, one figure per tracker), whole-broker allocation per message
    (``alloc_bytes_per_s`` / achieved rate: every thread of the broker JVM, not only the
    tracker), GC pauses (total and max, ms), the rebuild after an unload (ms), and ``behind``:
    fewer than :data:`BEHIND_SHARE` of the largest ``pending_entries`` on that workload
    (``pending_share`` is the ratio), or the run's own ``behind`` (its tracked share under
    ``trackers.BEHIND_SHARE``: every tracker may be behind on a workload). O(rows)."""
    lat = latency_table(latency)
    p99 = [f"{m}_p99_ns" for m in BENCHMARKS.values()]
    out = frame.copy()
    if out.empty:
        return pd.DataFrame(columns=[*BROKER_HEADERS.keys(), "pending_share"])
    by_tracker = lat.drop_duplicates("tracker").set_index("tracker")
    for col in p99:
        out[col] = out.tracker.map(by_tracker[col]) if len(lat) else np.nan
    rate = out.achieved_rate_per_s.astype(float)
    out["alloc_bytes_per_msg"] = out.alloc_bytes_per_s.astype(float) / rate.where(rate > 0)
    most = out.groupby("workload").pending_entries.transform("max").astype(float)
    out["pending_share"] = out.pending_entries.astype(float) / most.where(most > 0)
    # behind: well below the others on the workload, or below the run's own tracked share
    # (broker run trackers: entries over messages sent and not received, under 90%)
    own = out["behind"].map(_flagged) if "behind" in out else False
    out["behind"] = (out.pending_share < BEHIND_SHARE) | own
    keep = [*BROKER_HEADERS.keys(), "pending_share", "rate_per_s", "achieved_rate_per_s"]
    return out[keep].reset_index(drop=True)


def missing_runs(frame: pd.DataFrame, trackers: tuple[str, ...] | None = None,
                 workloads: tuple[str, ...] | None = None) -> list[tuple[str, str]]:  # fmt: skip
    """(tracker, workload) pairs issue 27 asks for that ``frame`` has no row for (defaults:
    every tracker and workload of ``broker run trackers``). O(trackers x workloads)."""
    if trackers is None or workloads is None:
        from trackerlab.experiments.real_broker import trackers as tr

        trackers = trackers or tuple(tr.TRACKERS)
        workloads = workloads or tuple(tr.WORKLOADS)
    have = set(zip(frame.tracker, frame.workload, strict=True)) if len(frame) else set()
    return [(t, w) for t in trackers for w in workloads if (t, w) not in have]


def comparisons_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The comparisons in :data:`COMPARISON_HEADERS`' order (numbers as floats)."""
    out = frame[list(COMPARISON_HEADERS)].copy()
    for col in ("memory_bytes_per_entry", "memory_fixed_bytes", "disk_bytes_per_entry"):
        out[col] = pd.to_numeric(out[col], errors="coerce")
    return out.reset_index(drop=True)


# --------------------------------------------------------------------------- realistic


def _held_decade(frame: pd.DataFrame) -> pd.Series:
    held = frame.index_entries.astype(float).clip(lower=1)
    return pd.Series(np.floor(np.log10(held)), index=frame.index).astype(int)


@dataclass(frozen=True)
class RealisticSummary:
    """``by_size``: per (held-entries decade, design) the worst paused and dispatching bytes
    per entry; ``above``: the proposal's cells above the heap's 24 B, with the reason."""

    by_size: pd.DataFrame
    above: pd.DataFrame


def _reason(row: pd.Series, same_cell_largest: float, largest_held: int) -> str:
    paused, live = row.bytes_per_entry, row.live_bytes_per_entry
    parts = []
    if paused > HEAP_B:
        excess = row.jvm_bytes - HEAP_B * row.entries
        fixed = (
            f"a fixed per-tracker cost: {excess:,.0f} B above 24 B x {int(row.entries):,} "
            f"entries; {same_cell_largest:.1f} B/entry in the same cell at {largest_held:,} "
            "held entries"
            if not math.isnan(same_cell_largest) and same_cell_largest <= HEAP_B
            and largest_held > row.index_entries
            else f"{paused:.1f} B/entry paused at {int(row.index_entries):,} held entries and "
            "no larger run of the cell under 24 B"
        )  # fmt: skip
        parts.append(fixed)
    if not math.isnan(live) and live > HEAP_B:
        parts.append(f"while dispatching: {live:.1f} B/entry live against {paused:.1f} paused")
    return "; ".join(parts)


def realistic_summary(frame: pd.DataFrame, design: str = PROPOSAL) -> RealisticSummary:
    """Per tracker size (the decade of held entries, as ``worst_by_size``) and design: the
    worst paused and dispatching bytes per entry, cells above 24 B, cells refused; and every
    cell where ``design`` is above the heap's 24 B, paused or dispatching, with why: a fixed
    per-tracker cost when the same cell at the largest size run is under 24 B, dispatching
    when the live figure is the one above. O(rows)."""
    _check_columns(frame, REALISTIC_COLUMNS, "realistic frame")
    f = frame.assign(held_decade=_held_decade(frame))
    rows = []
    for (_, design_), g in f.groupby(["held_decade", "design"], sort=True):
        decade = int(g.held_decade.iloc[0])
        paused, live = g.bytes_per_entry.astype(float), g.live_bytes_per_entry.astype(float)
        rows.append({
            "held_entries": f"{10**decade:,}..{10 ** (decade + 1):,}", "held_decade": int(decade),
            "design": design_, "worst_paused_B": paused.max(), "worst_dispatching_B": live.max(),
            "cells_above_24B": int(((paused > HEAP_B) | (live > HEAP_B)).sum()),
            "cells_refused": int((g.refused.fillna("") != "").sum()), "cells": len(g),
        })  # fmt: skip
    by_size = pd.DataFrame(rows, columns=["held_entries", "held_decade", *list(SIZE_HEADERS)[1:]])
    g = f[f.design == design]
    over = g[(g.bytes_per_entry > HEAP_B) | (g.live_bytes_per_entry > HEAP_B)]
    cell = [c for c in dl.CELL_COLUMNS if c != "messages"]
    reasons = []
    for _, row in over.iterrows():
        same = g[(g[cell] == row[cell]).all(axis=1)]
        top = same.loc[same.index_entries.idxmax()]
        reasons.append(_reason(row, float(top.bytes_per_entry), int(top.index_entries)))
    keep = [*dl.CELL_COLUMNS, "index_entries", "entries", "jvm_bytes", "bytes_per_entry",
            "live_bytes_per_entry"]  # fmt: skip
    above = over[keep].assign(reason=reasons).reset_index(drop=True)
    return RealisticSummary(by_size, above)


# --------------------------------------------------------------------------- the verdict


@dataclass(frozen=True)
class Evidence:
    """The figures the sentences state, each from the frames (NaN / empty when absent)."""

    cells: int  # the proposal's realistic cells of at least ``min_held`` held entries
    min_held: int  # SMALL_TRACKER when some cells are that large, else 0
    worst_paused_B: float  # the proposal's largest paused B/entry over those cells
    dispatch_cells: int  # cells with a dispatching figure (any size)
    worst_live_B: float  # the proposal's largest dispatching B/entry (NaN: not run)
    dispatch_max_held: int
    above_cells: int
    above_max_held: int
    heap_worst_B: float
    broker_workload: str  # a workload both the proposal and the incumbent ran ("" if none)
    proposal_jol_B: float
    incumbent_jol_B: float
    proposal_pending: int
    most_pending: int
    proposal_behind: bool
    proposal_missing: tuple[str, ...]  # workloads the proposal was not run on
    slower: tuple[tuple[str, float, float], ...]  # (method, proposal p99, incumbent p99)
    latency_compared: bool = True  # JMH rows for both the proposal and the incumbent


def evidence(
    realistic: pd.DataFrame, latency: pd.DataFrame, broker: pd.DataFrame,
    proposal: str = PROPOSAL, incumbent: str = INCUMBENT,
) -> Evidence:  # fmt: skip
    """The verdict's figures from the three frames (``broker``: :func:`broker_table`'s or
    :func:`load_broker`'s rows). O(rows)."""
    g = realistic[realistic.design == proposal] if len(realistic) else realistic
    min_held = SMALL_TRACKER if len(g) and (g.index_entries >= SMALL_TRACKER).any() else 0
    large = g[g.index_entries >= min_held] if len(g) else g
    paused = large.bytes_per_entry.astype(float).dropna() if len(g) else pd.Series(dtype=float)
    live_rows = g[g.live_bytes_per_entry.notna()] if len(g) else g
    over = g[(g.bytes_per_entry > HEAP_B) | (g.live_bytes_per_entry > HEAP_B)] if len(g) else g
    h = realistic[realistic.design == "triple-heap"] if len(realistic) else realistic
    heap_both = pd.concat([h.bytes_per_entry, h.live_bytes_per_entry]).astype(float).dropna()
    workload, p_jol, i_jol, p_pend, most, behind = "", math.nan, math.nan, 0, 0, False
    missing: tuple[str, ...] = ()
    if len(broker):
        b = broker.copy()
        most_by = b.groupby("workload").pending_entries.max()
        shared = sorted(
            set(b.workload[b.tracker == proposal]) & set(b.workload[b.tracker == incumbent])
        )
        workloads_all = sorted(set(b.workload))
        missing = tuple(w for w in workloads_all if w not in set(b.workload[b.tracker == proposal]))
        if shared:
            # the workload where the proposal's count is furthest below the most (the caveat)
            share = {w: float(b[(b.tracker == proposal) & (b.workload == w)].pending_entries.iloc[0])
                     / float(most_by[w]) for w in shared}  # fmt: skip
            workload = min(shared, key=lambda w: share[w])
            p = b[(b.tracker == proposal) & (b.workload == workload)].iloc[0]
            i = b[(b.tracker == incumbent) & (b.workload == workload)].iloc[0]
            p_jol, i_jol = float(p.jol_bytes_per_entry), float(i.jol_bytes_per_entry)
            p_pend, most = int(p.pending_entries), int(most_by[workload])
            own = p.get("behind", False)  # NaN in rows written before the flag
            behind = share[workload] < BEHIND_SHARE or _flagged(own)
    slower = []
    lat = latency_table(latency).drop_duplicates("tracker").set_index("tracker")
    if proposal in lat.index and incumbent in lat.index:
        for m in BENCHMARKS.values():
            p99p, p99i = (
                float(lat[f"{m}_p99_ns"].astype(float)[proposal]),
                float(lat[f"{m}_p99_ns"].astype(float)[incumbent]),
            )
            if p99p > SLOWER_FACTOR * p99i:
                slower.append((m, p99p, p99i))
    return Evidence(
        cells=len(large), min_held=min_held,
        worst_paused_B=float(paused.max()) if len(paused) else math.nan,
        dispatch_cells=len(live_rows),
        worst_live_B=float(live_rows.live_bytes_per_entry.max()) if len(live_rows) else math.nan,
        dispatch_max_held=int(live_rows.index_entries.max()) if len(live_rows) else 0,
        above_cells=len(over), above_max_held=int(over.index_entries.max()) if len(over) else 0,
        heap_worst_B=float(heap_both.max()) if len(heap_both) else math.nan,
        broker_workload=workload, proposal_jol_B=p_jol, incumbent_jol_B=i_jol,
        proposal_pending=p_pend, most_pending=most, proposal_behind=behind,
        proposal_missing=missing, slower=tuple(slower),
        latency_compared=proposal in lat.index and incumbent in lat.index,
    )  # fmt: skip


def _memory_clause(e: Evidence, incumbent: str) -> str:
    parts = []
    if not math.isnan(e.worst_paused_B):
        over = f" of at least {e.min_held:,} held entries" if e.min_held else ""
        parts.append(f"at worst {e.worst_paused_B:.1f} B/entry paused over the {e.cells} "
                     f"realistic cells{over}")  # fmt: skip
    if not math.isnan(e.worst_live_B):
        parts.append(f"{e.worst_live_B:.1f} B/entry dispatching over {e.dispatch_cells} cells "
                     f"of at most {e.dispatch_max_held:,} held entries")  # fmt: skip
    if e.above_cells:
        parts.append(f"above the heap's 24 B only in {e.above_cells} cells of at most "
                     f"{e.above_max_held:,} held entries")  # fmt: skip
    elif parts:
        parts.append("never above the heap's 24 B")
    if e.broker_workload:
        parts.append(f"{e.proposal_jol_B:.1f} B/entry by JOL in the broker on "
                     f"{e.broker_workload} against {e.incumbent_jol_B:.1f} for {incumbent}")  # fmt: skip
    return ", ".join(parts)


def _caveats(e: Evidence, incumbent: str) -> list[str]:
    out = []
    for m, p, i in e.slower:
        out.append(f"its {METHOD_WORDS[m]} p99 is {p:,.0f} ns against {i:,.0f} ns for "
                   f"{incumbent} (JMH)")  # fmt: skip
    if e.proposal_behind:
        out.append(f"in the broker it held only {e.proposal_pending:,} of "
                   f"{e.most_pending:,} pending entries on {e.broker_workload} (behind)")  # fmt: skip
    if e.proposal_missing:
        out.append("it was not run in the broker on " + " or ".join(e.proposal_missing))
    return out


def answer(realistic: pd.DataFrame, latency: pd.DataFrame, broker: pd.DataFrame,
           proposal: str = PROPOSAL, incumbent: str = INCUMBENT) -> str:  # fmt: skip
    """The report's one sentence: which tracker a broker engineer should want, on which
    evidence, with its numbers. Smaller in memory with no caveat: want the proposal. Smaller
    with caveats (a method :data:`SLOWER_FACTOR` x slower, behind in the broker, a workload
    not run): want it for its memory, but not yet to deploy, naming each caveat. Not smaller,
    or no evidence: say that."""
    e = evidence(realistic, latency, broker, proposal, incumbent)
    if math.isnan(e.worst_paused_B) and not e.broker_workload:
        return (f"There is no evidence yet to choose {proposal} over {incumbent}: neither the "
                "realistic matrix nor a broker run of both is in this report.")  # fmt: skip
    small_only = e.above_cells == 0 or e.above_max_held < SMALL_TRACKER
    smaller = small_only and (not e.broker_workload or e.proposal_jol_B < e.incumbent_jol_B)
    memory = _memory_clause(e, incumbent)
    caveats = _caveats(e, incumbent)
    if not e.latency_compared:
        caveats.append(f"no JMH latency compares it with {incumbent}")
    if not e.broker_workload:
        caveats.append(f"no broker run compares it with {incumbent}")
    if not smaller:
        return (f"A broker engineer should not want {proposal} over {incumbent} on this "
                f"evidence: {memory}.")  # fmt: skip
    if not caveats:
        return f"A broker engineer should want {proposal}: {memory}."
    return (f"A broker engineer should want {proposal} for its memory, {memory}; but not "
            f"deploy it yet: {'; '.join(caveats)}.")  # fmt: skip


def realistic_sentences(realistic: pd.DataFrame, proposal: str = PROPOSAL) -> list[str]:
    """The realistic matrix: ``proposal``'s worst paused and dispatching bytes per entry and
    its cells above the heap, then hier's and the heap's worst and refused cells."""
    if not len(realistic):
        return ["The realistic matrix was not run in this report."]
    s = realistic_summary(realistic, proposal)
    g = realistic[realistic.design == proposal]
    paused, live = g.bytes_per_entry.max(), g.live_bytes_per_entry.max()
    lines = [
        f"Realistic matrix ({realistic.drop_duplicates(list(dl.CELL_COLUMNS)).shape[0]} cells, "
        f"{int(realistic.index_entries.min()):,} to {int(realistic.index_entries.max()):,} held "
        f"entries): {proposal} at worst {paused:.1f} B/entry paused and "
        + (f"{live:.1f} B/entry dispatching" if not math.isnan(live) else "not run dispatching")
        + (f"; above the heap's 24 B in {len(s.above)} cells, all of at most "
           f"{int(s.above.index_entries.max()):,} held entries" if len(s.above)
           else "; never above the heap's 24 B") + "."
    ]  # fmt: skip
    for name in ("time-buckets-hier", "triple-heap"):
        h = realistic[realistic.design == name]
        if len(h):
            refused = int((h.refused.fillna("") != "").sum())
            both = pd.concat([h.bytes_per_entry, h.live_bytes_per_entry]).dropna()
            lines.append(f"{name}: at worst {both.max():.1f} B/entry where it holds the "
                         f"workload; refused {refused} of {len(h)} cells.")  # fmt: skip
    return lines


def latency_sentences(latency: pd.DataFrame) -> list[str]:
    """One sentence per JMH benchmark: each tracker's p99, or what is missing."""
    lat = latency_table(latency)
    if not len(lat):
        return ["No JMH latency was found: the latency comparison is missing."]
    t = lat.drop_duplicates("tracker").set_index("tracker")
    lines = []
    for m in BENCHMARKS.values():
        parts = [f"{name} {t.at[name, f'{m}_p99_ns']:,.0f} ns" for name in t.index
                 if not math.isnan(t[f"{m}_p99_ns"].astype(float)[name])]  # fmt: skip
        lines.append(f"JMH p99 of {METHOD_WORDS[m]} (prefill "
                     f"{int(lat.prefill_messages.max()):,}): " + ", ".join(parts) + ".")  # fmt: skip
    return lines


def broker_sentences(broker: pd.DataFrame, latency: pd.DataFrame) -> list[str]:
    """One sentence per broker workload (JOL bytes per entry over the pending entries of each
    tracker, behind flagged), then the runs missing; or what is missing."""
    if not len(broker):
        return ["No broker runs were found: the broker table is empty "
                "(run `trackerlab broker run trackers`)."]  # fmt: skip
    table = broker if "pending_share" in broker else broker_table(broker, latency)
    lines = []
    for w, g in table.groupby("workload", sort=True):
        parts = [f"{r.tracker} {r.jol_bytes_per_entry:.1f} B/entry over "
                 f"{int(cast(float, r.pending_entries)):,} entries" + (" (behind)" if r.behind else "")
                 for r in g.itertuples()]  # fmt: skip
        lines.append(f"Broker, {w}: " + "; ".join(parts) + ".")
    gone = missing_runs(table)
    if gone:
        lines.append("Not run in the broker: "
                     + ", ".join(f"{t} on {w}" for t, w in gone) + ".")  # fmt: skip
    return lines


def comparison_sentence(comparisons: pd.DataFrame | None) -> str:
    """The range of the other designs' memory per entry, or why it is not available."""
    if comparisons is None or not len(comparisons) or (comparisons.design == NOT_AVAILABLE).all():
        why = ""
        if comparisons is not None and len(comparisons):
            why = f" ({comparisons.notes.iloc[0]})"
        return f"Comparisons with other designs: {NOT_AVAILABLE}{why}."
    c = comparisons_table(comparisons).dropna(subset=["memory_bytes_per_entry"])
    if not len(c):
        return f"Comparisons ({len(comparisons)} rows): no memory figure per entry."
    lo, hi = c.loc[c.memory_bytes_per_entry.idxmin()], c.loc[c.memory_bytes_per_entry.idxmax()]
    return (
        f"Comparisons ({len(comparisons)} rows): memory from {lo.memory_bytes_per_entry:.1f} "
        f"B/entry ({lo.design}) to {hi.memory_bytes_per_entry:.1f} B/entry ({hi.design})."
    )


def conclusions(realistic: pd.DataFrame, latency: pd.DataFrame, broker: pd.DataFrame,
                comparisons: pd.DataFrame | None,
                proposal: str = PROPOSAL, incumbent: str = INCUMBENT) -> list[str]:  # fmt: skip
    """The closing sentences, each computed from the frames: realistic matrix, latency,
    broker, comparisons, then the one-sentence :func:`answer` last; missing inputs give a
    sentence saying what is missing."""
    return [
        *realistic_sentences(realistic, proposal),
        *latency_sentences(latency),
        *broker_sentences(broker, latency),
        comparison_sentence(comparisons),
        answer(realistic, latency, broker, proposal, incumbent),
    ]


# --------------------------------------------------------------------------- report helpers


def repo_path(path: str) -> Path:
    """``path`` relative to the repository root unless absolute (a notebook runs inside
    ``notebooks/``)."""
    from trackerlab.core.paths import repo_root

    p = Path(path)
    return p if p.is_absolute() else repo_root() / p


def plot_by_size(
    by_size: pd.DataFrame, designs: tuple[str, ...] = (PROPOSAL, "time-buckets-hier", "triple-heap")
):
    """Worst paused (solid) and dispatching (dashed) bytes per entry per held-entries decade
    for ``designs`` (log scale), the heap's 24 B as a red line. Returns the figure (shown by
    ``plt.show()``)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5))
    for k, design in enumerate(designs):
        g = by_size[by_size.design == design].sort_values("held_decade")
        if g.empty:
            continue
        x = 10.0 ** g.held_decade.to_numpy()
        colour = f"C{k}"
        ax.plot(x, g.worst_paused_B, "o-", color=colour, label=f"{design}, paused")
        live = g.worst_dispatching_B.notna().to_numpy()
        if live.any():
            ax.plot(x[live], g.worst_dispatching_B.to_numpy()[live], "s--", color=colour,
                    label=f"{design}, dispatching")  # fmt: skip
    ax.axhline(HEAP_B, color="C3", ls=":", label="heap: 24 B/entry")
    ax.set(xscale="log", yscale="log", xlabel="held entries (decade, lower bound)",
           ylabel="worst JVM bytes per entry (log)",
           title="Realistic matrix: worst bytes per entry per tracker size")  # fmt: skip
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    fig.tight_layout()
    return fig
