"""The design lab (``notebooks/design_lab.ipynb``): every delayed-index design over a matrix of
workloads, beside the entropy floor of each cell and the heap's 24 B.

A **cell** is one workload (delay distribution, selected fraction, rate, tick, batching) at a
number of messages. Each design is sized from the cell's counts
(:mod:`trackerlab.models.time_buckets.reducer`, the same pass the Spark sweep runs, so a cell
computed here and one read from ``trackerlab sweep`` agree to the byte), in JVM bytes per entry
it holds (heap + direct for the heap). Beside it: the floor ``log2 C(u, n) / n``
(:mod:`trackerlab.models.proposals.floor`) of the cell's (bucket, ledger, entry) set and the
ceiling, the heap's 24-byte triple.

The acceptance of the issue, computed by :func:`acceptance`: the best proposal is at most 24 B
per entry in every cell, within 3x the floor wherever the floor exceeds 1 B, and keeps 90% of
the time buckets' saving over the heap on the seeds' fixed-delay scenarios
(:func:`seed_fixed_scenarios`). :func:`op_cost` counts the work per operation of each proposal
(:class:`~trackerlab.models.primitives.op_cost.OpCost`) while a dispatcher drains it.

This matrix is not Pulsar's own workload: half its cells batch delayed messages, which the Java
client never does, and its ledgers hold 50,000 entries at any rate. The realistic matrix
(unbatched, ledgers rolled as the release rolls them, memory while dispatching, an entropy
estimate) is :mod:`~trackerlab.experiments.design_lab_realistic`; there these cells are
kept only as a stated ablation (``design_lab_realistic.ABLATION``).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from trackerlab.catalog import CATALOG
from trackerlab.core.params import check_int, check_positive
from trackerlab.core.paths import data_dir, display_path, repo_root
from trackerlab.models.delayed.bucketed_tracker import precision_bits_for_tick
from trackerlab.models.design import PointCounts
from trackerlab.models.primitives.op_cost import OpCost
from trackerlab.models.proposals.adaptive_leaf import AdaptiveBucketTracker
from trackerlab.models.proposals.flat_buckets import FlatBucketTracker
from trackerlab.models.proposals.floor import entropy_floor_bytes
from trackerlab.models.proposals.hier_buckets import HierBucketTracker
from trackerlab.models.proposals.sealed_buckets import SealedBucketTracker
from trackerlab.models.time_buckets import reducer as bc
from trackerlab.sizing.jvm import COMPRESSED
from trackerlab.spark.store import read_sweep
from trackerlab.workloads.delay_spec import DelaySpec
from trackerlab.workloads.stream import PatternSpec, Workload

#: The proposals, best candidates last; then the designs they are measured against.
PROPOSALS = (
    "time-buckets-flat",
    "time-buckets-sealed",
    "time-buckets-adaptive",
    "time-buckets-hier",
)
BASELINES = ("time-buckets", "time-buckets-runs", "triple-heap")
DESIGNS = PROPOSALS + BASELINES
#: The heap's triple (deliverAt, ledgerId, entryId): the ceiling a design must stay under.
HEAP_BYTES_PER_ENTRY = 24
#: Where the floor is above this many bytes per entry, a design should be within FLOOR_FACTOR.
FLOOR_APPLIES_ABOVE = 1.0
FLOOR_FACTOR = 3.0
SAVING_KEPT = 0.9
#: The sweep block the lab's matrix lives in (spark/profiles.yaml).
BLOCK = "design-lab"
CELL_COLUMNS = ("delay", "pattern", "rate_per_ms", "tick_ms", "batch_size", "messages")


@dataclass(frozen=True)
class Matrix:
    """The workload axes; cells are their product at ``messages`` each."""

    delays: tuple[str, ...]
    patterns: tuple[str, ...]
    rates_per_ms: tuple[float, ...]
    ticks_ms: tuple[int, ...]
    batch_sizes: tuple[int, ...]
    messages: int

    def __post_init__(self) -> None:
        """Every axis value is checked here, before any cell runs (one-line UsageError)."""
        check_int("messages", self.messages, 1)
        for delay in self.delays:
            DelaySpec.parse(delay)
        for pattern in self.patterns:
            PatternSpec.parse(pattern)
        for rate in self.rates_per_ms:
            check_positive("rate (messages per ms)", rate)
        for tick in self.ticks_ms:
            check_int("tick (ms)", tick, 1)
        for batch in self.batch_sizes:
            check_int("batch size", batch, 1)

    def cells(self) -> list[dict[str, Any]]:
        return [
            dict(zip(CELL_COLUMNS, (*combo, self.messages), strict=True))
            for combo in itertools.product(
                self.delays, self.patterns, self.rates_per_ms, self.ticks_ms, self.batch_sizes
            )
        ]


def cell_workload(cell: dict[str, Any]) -> Workload:
    """The cell's stream; with its ledger size where the cell gives one
    (``entries_per_ledger``: the realistic matrix's ledgers roll as the release rolls them)."""
    # Any: from_options takes the stream's keyword options as **kwargs after typed parameters
    ledger: dict[str, Any] = {"entries_per_ledger": int(cell["entries_per_ledger"])} if (
        "entries_per_ledger" in cell
    ) else {}  # fmt: skip
    return Workload.from_options(
        int(cell["messages"]),
        float(cell["rate_per_ms"]),
        delay=str(cell["delay"]),
        pattern=str(cell["pattern"]),
        batch_size=int(cell["batch_size"]),
        **ledger,
    )


def cell_floor(cell: dict[str, Any] | pd.Series, entries: int) -> float:
    """The cell's floor in bytes per entry (NaN for unbounded delays)."""
    if entries <= 0:
        return float("nan")
    total = entropy_floor_bytes(
        int(cell["messages"]),
        int(cell["batch_size"]),
        float(cell["rate_per_ms"]),
        DelaySpec.parse(str(cell["delay"])),
        int(cell["tick_ms"]),
        entries,
    )
    return total / entries


def size_cell(cell: dict[str, Any], designs: Sequence[str] = DESIGNS) -> list[dict[str, Any]]:
    """One row per design for one cell, from the reducer's counts (single process)."""
    workload = cell_workload(cell)
    tick = int(cell["tick_ms"])
    bits = precision_bits_for_tick(tick)
    totals, agg = bc.reduce_workload(workload, bits, tick)
    counts = PointCounts(totals, agg, workload.rate_per_ms, bits, tick)
    floor = cell_floor(cell, int(totals["entries"]))
    rows = []
    for name in designs:
        size = CATALOG[name].size_from_counts(counts, None, COMPRESSED)
        jvm = (size.jvm_bytes or 0) + (size.jvm_direct_bytes or 0)
        rows.append({**cell, "design": name, "entries": size.entries, "jvm_bytes": jvm})
    return [{**r, "index_entries": int(totals["entries"]), "floor_per_entry": floor} for r in rows]


def finish(frame: pd.DataFrame) -> pd.DataFrame:
    """Add bytes per entry, the ratio to the floor and whether the floor applies."""
    out = frame.copy()
    out["bytes_per_entry"] = out.jvm_bytes / out.entries.where(out.entries > 0)
    out["proposal"] = out.design.isin(PROPOSALS)
    out["floor_applies"] = out.floor_per_entry > FLOOR_APPLIES_ABOVE
    out["ratio_to_floor"] = out.bytes_per_entry / out.floor_per_entry.where(out.floor_per_entry > 0)
    return out


def run_matrix(matrix: Matrix, designs: Sequence[str] = DESIGNS) -> pd.DataFrame:
    """Every cell of ``matrix`` in this process (the fallback when no sweep ran)."""
    rows = []
    for cell in matrix.cells():
        rows += size_cell(cell, designs)
    return finish(pd.DataFrame(rows))


# --------------------------------------------------------------------------- sweep results


@dataclass
class LabResults:
    frame: pd.DataFrame
    source: str
    from_spark: bool
    big_points: pd.DataFrame  # the 1e9-message points, with their wall times


def from_sweep(rows: pd.DataFrame) -> pd.DataFrame:
    """The lab's frame from a sweep's rows (block :data:`BLOCK` and its 1e9 points)."""
    lab = rows[rows.block.str.contains(BLOCK) & rows.design.isin(DESIGNS)].copy()
    if lab.empty:
        return lab
    lab["jvm_bytes"] = lab.jvm_total_bytes
    lab["tick_ms"] = lab.tick_ms.astype(int)
    index = lab[lab.design == "time-buckets"].set_index("point_id").entries
    lab["index_entries"] = lab.point_id.map(index).fillna(0).astype(int)
    lab["floor_per_entry"] = [cell_floor(r, int(r["index_entries"])) for _, r in lab.iterrows()]
    keep = [*CELL_COLUMNS, "design", "entries", "jvm_bytes", "index_entries", "floor_per_entry"]
    extra = [c for c in ("block", "point_id", "wall_s", "task_s") if c in lab.columns]
    return finish(lab[keep + extra].reset_index(drop=True))


def _repo_path(folder: str) -> Path:
    path = Path(folder)
    return path if path.is_absolute() else repo_root() / path


def _read_lab(path: Path) -> pd.DataFrame:
    """The design-lab rows of the sweep in ``path`` (empty when there are none)."""
    try:
        rows = read_sweep(path)
    except FileNotFoundError:
        return pd.DataFrame()
    return from_sweep(rows) if len(rows) and "block" in rows else pd.DataFrame()


def load_matrix(
    sweep_profile: str, sweep_dir: str, fallback: Matrix, big_sweep_dir: str = ""
) -> LabResults:
    """The sweep's design-lab rows (``data/sweeps/<profile>``), else ``fallback`` computed here.
    The 1e9-message points come from ``big_sweep_dir`` when given (a sweep of the
    ``design-lab-1e9`` block alone), else from the matrix's own sweep. Relative folders are
    read from the repository root (a notebook runs inside ``notebooks/``)."""
    path = _repo_path(sweep_dir) if sweep_dir else data_dir() / "sweeps" / sweep_profile
    lab = _read_lab(path)
    big_rows = _read_lab(_repo_path(big_sweep_dir)) if big_sweep_dir else lab
    big = big_rows[big_rows.messages >= 10**9] if len(big_rows) else pd.DataFrame()
    if len(lab):
        cells = lab.drop_duplicates(list(CELL_COLUMNS)).shape[0]
        source = f"Spark sweep {display_path(path)} ({cells} cells, block {BLOCK!r})"
        return LabResults(lab, source, True, big)
    t0 = time.perf_counter()
    frame = run_matrix(fallback)
    source = (
        f"single process, {len(fallback.cells())} cells of {fallback.messages:,} messages "
        f"({time.perf_counter() - t0:.1f} s); no design-lab rows in {display_path(path)}"
    )
    return LabResults(frame, source, False, big)


# --------------------------------------------------------------------------- summaries


def worst_case(frame: pd.DataFrame) -> pd.DataFrame:
    """Per design: the worst bytes per entry over the matrix (the figure to remember), the
    worst ratio to the floor where it applies, and how many cells break each bound."""
    rows = []
    for design, g in frame.groupby("design", sort=False):
        applies = g[g.floor_applies]
        # cast: idxmax gives one label of the unique index, so .loc returns one row
        worst = (
            cast(pd.Series, g.loc[g.bytes_per_entry.idxmax()])
            if g.bytes_per_entry.notna().any()
            else None
        )
        rows.append(
            {
                "design": design,
                "proposal": design in PROPOSALS,
                "worst_bytes_per_entry": g.bytes_per_entry.max(),
                "median_bytes_per_entry": g.bytes_per_entry.median(),
                "worst_cell": _cell_label(worst) if worst is not None else "",
                "worst_ratio_to_floor": applies.ratio_to_floor.max() if len(applies) else np.nan,
                "cells": len(g),
                "cells_above_24B": int((g.bytes_per_entry > HEAP_BYTES_PER_ENTRY).sum()),
                "cells_above_3x_floor": int((applies.ratio_to_floor > FLOOR_FACTOR).sum()),
            }
        )
    order = {d: i for i, d in enumerate(DESIGNS)}
    return (
        pd.DataFrame(rows).sort_values("design", key=lambda s: s.map(order)).reset_index(drop=True)
    )


def _cell_label(row: pd.Series) -> str:
    batch = f", batch {int(row.batch_size)}" if int(row.batch_size) > 1 else ""
    return f"{row.delay}, {row.pattern}, {row.rate_per_ms:g}/ms, tick {int(row.tick_ms)} ms{batch}"


def winners(frame: pd.DataFrame, among: Sequence[str] = DESIGNS) -> pd.DataFrame:
    """Per cell, the design with the fewest bytes per entry among ``among``."""
    g = frame[frame.design.isin(among) & frame.bytes_per_entry.notna()]
    best = g.loc[g.groupby(list(CELL_COLUMNS)).bytes_per_entry.idxmin()]
    return best[[*CELL_COLUMNS, "design", "bytes_per_entry", "floor_per_entry"]].reset_index(
        drop=True
    )


def win_table(
    frame: pd.DataFrame, by: str = "delay", among: Sequence[str] = DESIGNS
) -> pd.DataFrame:
    """How many cells each design wins, split by one axis (``delay``, ``pattern``...)."""
    best = winners(frame, among)
    return (
        best.pivot_table(index=by, columns="design", values="bytes_per_entry", aggfunc="count")
        .fillna(0)
        .astype(int)
    )


def cell_table(frame: pd.DataFrame, designs: Sequence[str] = DESIGNS) -> pd.DataFrame:
    """One row per cell: each design's bytes per entry, the floor beside them."""
    wide = frame.pivot_table(
        index=list(CELL_COLUMNS), columns="design", values="bytes_per_entry", aggfunc="first"
    )
    wide = wide[[d for d in designs if d in wide.columns]]
    floor = frame.groupby(list(CELL_COLUMNS)).floor_per_entry.first()
    wide.insert(0, "floor_B", floor)
    wide.insert(1, "ceiling_B", float(HEAP_BYTES_PER_ENTRY))
    return wide


def beyond_bounds(frame: pd.DataFrame, design: str) -> pd.DataFrame:
    """The cells where ``design`` is above the heap's 24 B or, where the floor applies, above
    3x the floor: the evidence behind a failed acceptance check, worst ratio first."""
    g = frame[frame.design == design]
    over = (g.bytes_per_entry > HEAP_BYTES_PER_ENTRY) | (
        g.floor_applies & (g.ratio_to_floor > FLOOR_FACTOR)
    )
    keep = [*CELL_COLUMNS, "entries", "floor_per_entry", "bytes_per_entry", "ratio_to_floor"]
    return g.loc[over, keep].sort_values("ratio_to_floor", ascending=False).reset_index(drop=True)


def best_proposal(frame: pd.DataFrame) -> str:
    """The proposal with the smallest worst-case bytes per entry over the matrix."""
    worst = worst_case(frame)
    return str(worst[worst.proposal].sort_values("worst_bytes_per_entry").design.iloc[0])


# --------------------------------------------------------------------------- seeds' fixed delays


def seed_fixed_scenarios(
    messages: int, batched_messages: int | None = None
) -> list[dict[str, object]]:
    """The seeds' fixed-delay scenarios, at ``messages`` each: the TimeBucket blog's (seed 001,
    §3.3) x = 1, 4, 8 msg/ms with 2^10-ms buckets and x = 8 with 2^15 ms (ticks of 1,024 and
    32,768 ms: ``bits = floor(log2 tick)``), 50,000 entries per ledger, every message delayed (1 day
    here, so the tracker keeps them all); and its 1-day scenario at 10,000 msg/s, ticks 1 s and 1
    min, batches of 1 and 100."""
    check_int("seed_messages", messages, 1)
    if batched_messages is not None:
        check_int("seed_batched_messages", batched_messages, 1)
    out: list[dict[str, object]] = []
    for rate, tick in ((1.0, 1024), (4.0, 1024), (8.0, 1024), (8.0, 32768)):
        out.append({"scenario": f"seed 001: x={rate:g}, y={tick.bit_length() - 1}",
                    "delay": "fixed:1d", "pattern": "all", "rate_per_ms": rate,
                    "tick_ms": tick, "batch_size": 1, "messages": messages})  # fmt: skip
    for tick, batch in itertools.product((1000, 60000), (1, 100)):
        out.append({"scenario": f"seed 001: 1 day at 10,000 msg/s, tick {tick // 1000} s, batch {batch}",
                    "delay": "fixed:1d", "pattern": "all", "rate_per_ms": 10.0, "tick_ms": tick,
                    "batch_size": batch,
                    "messages": batched_messages if batch > 1 and batched_messages else messages})  # fmt: skip
    return out


def savings(scenarios: Sequence[dict[str, Any]], designs: Sequence[str] = DESIGNS) -> pd.DataFrame:
    """Bytes of each design on each scenario and the share of the time buckets' saving over the
    heap it keeps: ``(heap - design) / (heap - time-buckets)`` (total bytes, heap with its
    growth slack and direct memory)."""
    rows = []
    for sc in scenarios:
        cell = {k: sc[k] for k in CELL_COLUMNS}
        sized = {r["design"]: r for r in size_cell(cell, designs)}
        heap, tb = sized["triple-heap"]["jvm_bytes"], sized["time-buckets"]["jvm_bytes"]
        for name, r in sized.items():
            saving = (heap - r["jvm_bytes"]) / (heap - tb) if heap != tb else float("nan")
            rows.append({"scenario": sc["scenario"], "messages": sc["messages"], "design": name,
                         "jvm_mib": r["jvm_bytes"] / 2**20,
                         "bytes_per_entry": r["jvm_bytes"] / max(r["entries"], 1),
                         "saving_kept": saving})  # fmt: skip
    return pd.DataFrame(rows)


def acceptance(frame: pd.DataFrame, saved: pd.DataFrame, design: str | None = None) -> pd.DataFrame:
    """The issue's three checks for ``design`` (default: :func:`best_proposal`), with the value
    that decides each."""
    design = design or best_proposal(frame)
    g = frame[frame.design == design]
    applies = g[g.floor_applies]
    kept = saved[saved.design == design].saving_kept
    checks = [
        ("at most 24 B/entry in every cell", g.bytes_per_entry.max(), HEAP_BYTES_PER_ENTRY,
         bool((g.bytes_per_entry <= HEAP_BYTES_PER_ENTRY).all())),
        ("within 3x the floor where it is above 1 B", applies.ratio_to_floor.max(), FLOOR_FACTOR,
         bool((applies.ratio_to_floor <= FLOOR_FACTOR).all())),
        ("keeps 90% of the time buckets' saving (seeds, fixed delays)", kept.min(), SAVING_KEPT,
         bool((kept >= SAVING_KEPT).all())),
    ]  # fmt: skip
    return pd.DataFrame(
        [
            {"design": design, "check": c, "worst": w, "bound": b, "passed": ok}
            for c, w, b, ok in checks
        ]
    )


# --------------------------------------------------------------------------- operation cost

TRACKERS = {
    "time-buckets-flat": FlatBucketTracker,
    "time-buckets-sealed": SealedBucketTracker,
    "time-buckets-adaptive": AdaptiveBucketTracker,
    "time-buckets-hier": HierBucketTracker,
}


def op_cost(
    messages: int,
    rate_per_ms: float,
    delay: str,
    tick_ms: int,
    batch_per_scan: int = 1000,
    designs: Sequence[str] = PROPOSALS,
) -> pd.DataFrame:
    """Work per operation while a dispatcher drains each proposal: every message added when
    published (``addMessage``), ``getScheduledMessages(batch_per_scan)`` called once per tick
    until nothing is due, then until empty. Counters per add, per delivered message, and the
    largest single call of each kind (a bound on one operation's work). Memory beside the work:
    JVM bytes per held entry when publishing ends, with the dispatcher running
    (``live_bytes_per_entry``: ``time-buckets-hier`` then holds its due near buckets expanded
    into per-tick ``long[]``) and with it paused (``paused_bytes_per_entry``, what the matrix
    sizes). O(messages) Python."""
    check_int("op_messages", messages, 1)
    check_int("op_tick_ms", tick_ms, 1)
    check_int("batch per scan", batch_per_scan, 1)
    workload = Workload.from_options(messages, rate_per_ms, delay=delay)
    columns = [(c.ledger, c.entry, c.deliver_at, c.publish_ms) for c in workload.chunks()]
    stream = list(
        zip(*(np.concatenate(c).tolist() for c in zip(*columns, strict=True)), strict=True)
    )
    spec = DelaySpec.parse(delay)
    rows = []
    for name in designs:
        drained = _Drain(_tracker(name, tick_ms, spec), tick_ms, batch_per_scan).run(stream)
        paused = _tracker(name, tick_ms, spec)
        for ledger, entry, at, now in stream:
            paused.add_message(ledger, entry, at, now)
        held = max(paused.number_of_delayed_messages(), 1)
        rows.append(
            {"design": name, **drained, "paused_bytes_per_entry": paused.jvm_bytes() / held}
        )
    heap_depth = math.log2(max(messages, 2))
    rows.append({"design": "triple-heap (analytic)", "adds": messages, "delivered": messages,
                 "touches_per_add": heap_depth, "random_per_add": heap_depth,
                 "touches_per_delivered": 2 * heap_depth})  # fmt: skip
    return pd.DataFrame(rows)


def _tracker(name: str, tick_ms: int, spec: DelaySpec):
    """A proposal's per-message model (sealed with the fixed-delay policy when it applies)."""
    if name == "time-buckets-sealed" and spec.kind == "fixed":
        return SealedBucketTracker(tick_ms, fixed_delay_ms=int(spec.params[0]))
    return TRACKERS[name](tick_ms)


class _Drain:
    """One tracker under a dispatcher: adds as published, a due scan per tick."""

    def __init__(self, tracker, tick_ms: int, batch: int) -> None:
        self.tracker, self.tick_ms, self.batch = tracker, tick_ms, batch
        self.adds, self.scans = OpCost(), OpCost()
        self.n_adds = self.n_out = self.n_scans = 0
        self.max_add = self.max_scan = 0.0

    def scan(self, now: int) -> None:
        """``getScheduledMessages`` until fewer than a batch come out."""
        while True:
            self.tracker.cost = OpCost()
            got = self.tracker.get_scheduled_messages(self.batch, now)
            _add_into(self.scans, self.tracker.cost)
            self.max_scan = max(self.max_scan, self.tracker.cost.touches)
            self.n_scans += 1
            self.n_out += len(got)
            if len(got) < self.batch:
                return

    def run(self, stream: list[tuple[int, int, int, int]]) -> dict[str, float]:
        tracker, tick = self.tracker, self.tick_ms
        next_scan = stream[0][3] if stream else 0
        for ledger, entry, at, now in stream:
            while next_scan <= now:
                self.scan(next_scan)
                next_scan += tick
            tracker.cost = OpCost()
            if tracker.add_message(ledger, entry, at, now):
                self.n_adds += 1
            _add_into(self.adds, tracker.cost)
            self.max_add = max(self.max_add, tracker.cost.touches)
        held = tracker.number_of_delayed_messages()
        live = tracker.jvm_bytes() / max(held, 1)
        t = next_scan
        while tracker.number_of_delayed_messages():
            self.scan(t)
            if tracker.number_of_delayed_messages():  # the dispatcher idles till one is due
                t = max(t + tick, tracker.next_key() - tick)
        a = self.adds.per_op(max(self.n_adds, 1))
        s = self.scans.per_op(max(self.n_out, 1))
        return {"adds": self.n_adds, "delivered": self.n_out, "scans": self.n_scans,
                "touches_per_add": a["touches"], "random_per_add": a["random"],
                "streamed_bytes_per_add": a["streamed_bytes"], "alloc_bytes_per_add": a["alloc_bytes"],
                "max_touches_one_add": self.max_add, "touches_per_delivered": s["touches"],
                "streamed_bytes_per_delivered": s["streamed_bytes"],
                "max_touches_one_scan": self.max_scan, "held_when_published": held,
                "live_bytes_per_entry": live}  # fmt: skip


def _add_into(total: OpCost, part: OpCost | None) -> None:
    if part is None:
        return
    for field in (
        "random",
        "streamed_bytes",
        "nodes",
        "lookups",
        "probes",
        "allocs",
        "alloc_bytes",
    ):
        setattr(total, field, getattr(total, field) + getattr(part, field))


# --------------------------------------------------------------------------- figures


def plot_worst_case(worst: pd.DataFrame):
    """Worst and median bytes per entry per design (log scale), the heap's 24 B as a line."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5))
    y = np.arange(len(worst))
    colours = ["C0" if p else "C7" for p in worst.proposal]
    # a dot plot: bars have no zero on a log axis
    ax.hlines(y, worst.median_bytes_per_entry, worst.worst_bytes_per_entry, color=colours, lw=2)
    ax.scatter(worst.worst_bytes_per_entry, y, color=colours, zorder=3, label="worst cell")
    ax.scatter(worst.median_bytes_per_entry, y, color="black", marker="|", s=200, label="median")
    ax.axvline(HEAP_BYTES_PER_ENTRY, color="C3", ls="--", label="heap: 24 B/entry")
    ax.set_xscale("log")
    ax.set_yticks(y, worst.design)
    ax.invert_yaxis()
    ax.set_xlabel("JVM bytes per entry, worst cell of the matrix (log)")
    ax.set_title("The figure to remember: worst case over the matrix (blue: proposals)")
    ax.legend(loc="lower right")
    ax.grid(True, axis="x", which="major", alpha=0.25)
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
    fig.tight_layout()
    return fig


def plot_vs_floor(frame: pd.DataFrame, designs: Sequence[str] = PROPOSALS):
    """Each cell's bytes per entry against its entropy floor, with y = x and y = 3x."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 6))
    g = frame[frame.floor_per_entry > 0]
    for i, name in enumerate(designs):
        d = g[g.design == name]
        ax.scatter(d.floor_per_entry, d.bytes_per_entry, s=12, alpha=0.7, label=name, color=f"C{i}")
    lo = max(g.floor_per_entry.min(), 1e-3)
    xs = np.array([lo, g.floor_per_entry.max()])
    ax.plot(xs, xs, "k-", lw=1, label="floor")
    ax.plot(xs, FLOOR_FACTOR * xs, "k--", lw=1, label="3 x floor")
    ax.axhline(HEAP_BYTES_PER_ENTRY, color="C3", ls=":", label="heap 24 B")
    ax.axvline(FLOOR_APPLIES_ABOVE, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):  # labels on decades only: minor labels collide
        axis.set_minor_formatter(plt.NullFormatter())
    ax.set_xlabel("entropy floor log2 C(u, n) / n (bytes per entry, log)")
    ax.set_ylabel("JVM bytes per entry (log)")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
