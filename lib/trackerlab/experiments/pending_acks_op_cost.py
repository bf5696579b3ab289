"""Operation cost of the PendingAcksMap layouts on seed 002's benchmark cycles.

The cycles follow ``PendingAcksMapBenchmark`` (#26024 branch, ``microbench``):

- ``dispatchAndAckCycle`` (``RollingWindowState``): a window of N pending entries; each
  operation acknowledges the oldest (``removeAndGetRemainingUnacked``) and dispatches the
  next sequence number (``addPendingAckIfAllowed``) at ``ledger = seq / epl``, ``entry =
  seq % epl`` with ``epl = ceil(N / ledgers)``;
- ``dispatchAckAndPartialAckCycle``: the same plus, every 16th operation,
  ``updateRemainingUnacked(.., 1)`` on the entry half a window ahead (skipped at <= 1);
- ``removeAllUpTo`` (``RangeState``): a fresh map, then one call at ``(ledgers / 2,
  entriesInLedger(ledgers / 2) / 2)``;
- ``removeAllUpToSameLedger`` (``CleanupState``, "smallPrefix"): a fresh map, then one
  call removing the first ``max(1, N / 50)`` entries of ledger 0. The stored benchmark source
  only declares this state for 1-ledger datasets while the seed's table has four columns; here
  each dataset keeps its own ledger layout, so ledger 0 holds ``N / ledgers`` entries.

Two measurements, both from one run: Python time per operation of the models, reported as a
ratio to the ``pending-acks-treemap`` layout (never as absolute speed: these are Python models), and the
machine-independent :class:`~trackerlab.models.primitives.op_cost.OpCost` per operation. The ``pending-acks-treemap``
row follows the benchmark's own ``OldProductionPendingAckStore`` (no boundary copy in
``removeAllUpTo``), which is what the seed's "old" column measured.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

from trackerlab.core.errors import UsageError
from trackerlab.core.params import check_choice, check_int
from trackerlab.models.pending_acks.common import PendingAcksModel
from trackerlab.models.pending_acks.layouts import (
    LAYOUTS,
    Dataset,
    benchmark_hash,
    benchmark_remaining,
    check_layout,
)
from trackerlab.models.pending_acks.treemap import TreeMapPendingAcks
from trackerlab.models.primitives.op_cost import OpCost

CYCLES = (
    "dispatchAndAckCycle",
    "dispatchAckAndPartialAckCycle",
    "removeAllUpTo",
    "removeAllUpToSameLedger",
)
LEDGER_SPREADS = (1, 5, 10, 20)
ENTRIES = 50_000
PARTIAL_ACK_INTERVAL = 16

#: Seed 002 (#26024 description; JMH 1.37, OpenJDK 25.0.2): (old TreeMap, #26024) per cycle
#: and ledger count; ns/op for the cycles, us/op for the range removals.
SEED_JMH: dict[tuple[str, int], tuple[float, float]] = {
    ("dispatchAndAckCycle", 1): (204.8, 192.9),
    ("dispatchAndAckCycle", 5): (181.1, 129.5),
    ("dispatchAndAckCycle", 10): (189.3, 172.8),
    ("dispatchAndAckCycle", 20): (265.9, 163.7),
    ("dispatchAckAndPartialAckCycle", 1): (216.2, 158.4),
    ("dispatchAckAndPartialAckCycle", 5): (185.3, 126.1),
    ("dispatchAckAndPartialAckCycle", 10): (178.5, 131.5),
    ("dispatchAckAndPartialAckCycle", 20): (180.1, 122.1),
    ("removeAllUpTo", 1): (788.7, 1903.0),
    ("removeAllUpTo", 5): (572.1, 430.7),
    ("removeAllUpTo", 10): (533.4, 204.1),
    ("removeAllUpTo", 20): (487.6, 122.5),
    ("removeAllUpToSameLedger", 1): (43.2, 63.1),
    ("removeAllUpToSameLedger", 5): (41.0, 62.0),
    ("removeAllUpToSameLedger", 10): (37.9, 59.8),
    ("removeAllUpToSameLedger", 20): (36.8, 64.4),
}
#: The two layouts the seed's JMH tables compare.
SEED_OLD, SEED_NEW = "pending-acks-treemap", "pending-acks-open-hash-bitset"


def new_model(layout: str, treemap_store: str = "jmh") -> Callable[..., PendingAcksModel]:
    """``from_arrays`` of a layout; ``treemap_store="jmh"`` selects the benchmark's store."""
    check_choice("treemap_store", treemap_store, ("jmh", "pulsar"))
    if layout == "pending-acks-treemap" and treemap_store == "jmh":

        def jmh_treemap(*arrays):
            model = TreeMapPendingAcks.from_arrays(*arrays)
            model.jmh_old_store = True
            return model

        return jmh_treemap
    return LAYOUTS[check_layout(layout)].from_arrays


# --------------------------------------------------------------------------- rolling window


class RollingWindow:
    """``RollingWindowState``: slot arrays, a cursor and the next sequence number."""

    def __init__(self, entries: int, ledgers: int) -> None:
        self.entries = check_int("entries", entries, 2)
        self.epl = max(1, -(-entries // check_int("ledgers", ledgers, 1)))
        seq = np.arange(entries, dtype=np.int64)
        self.ledger_ids = (seq // self.epl).tolist()
        self.entry_ids = (seq % self.epl).tolist()
        self.remaining = benchmark_remaining(seq).tolist()
        self.cursor = 0
        self.next_sequence = entries
        self.operations = 0

    def arrays(self) -> tuple[np.ndarray, ...]:
        seq = np.arange(self.entries, dtype=np.int64)
        return (
            np.array(self.ledger_ids),
            np.array(self.entry_ids),
            np.array(self.remaining),
            benchmark_hash(seq),
        )

    def dispatch_and_ack(self, store: PendingAcksModel) -> int:
        slot = self.cursor
        self.cursor = slot + 1 if slot + 1 < self.entries else 0
        removed = store.remove_and_get_remaining_unacked(
            self.ledger_ids[slot], self.entry_ids[slot]
        )
        seq = self.next_sequence
        self.next_sequence += 1
        ledger, entry = divmod(seq, self.epl)
        remaining = (seq & 15) + 1
        self.ledger_ids[slot], self.entry_ids[slot], self.remaining[slot] = ledger, entry, remaining
        h = (seq * 31) & 0xFFFF_FFFF
        store.add_pending_ack_if_allowed(ledger, entry, remaining, h - (h >> 31 << 32))
        return removed + remaining

    def partial_ack(self, store: PendingAcksModel) -> int:
        self.operations += 1
        if (self.operations - 1) & (PARTIAL_ACK_INTERVAL - 1):
            return 0
        slot = self.cursor + self.entries // 2
        if slot >= self.entries:
            slot -= self.entries
        remaining = self.remaining[slot]
        if remaining <= 1:
            return 0
        if not store.update_remaining_unacked(self.ledger_ids[slot], self.entry_ids[slot], 1):
            return 0
        self.remaining[slot] = remaining - 1
        return remaining


@contextmanager
def _no_gc() -> Iterator[None]:
    """Time without the cyclic garbage collector, as ``timeit`` does."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _run_cycle(cycle: str, store: PendingAcksModel, window: RollingWindow, ops: int) -> float:
    """Run ``ops`` operations; returns the seconds they took."""
    step = window.dispatch_and_ack
    partial = cycle == "dispatchAckAndPartialAckCycle"
    with _no_gc():
        start = time.perf_counter()
        if partial:
            for _ in range(ops):
                step(store)
                window.partial_ack(store)
        else:
            for _ in range(ops):
                step(store)
        return time.perf_counter() - start


# --------------------------------------------------------------------------- range removals


def mark_delete_position(cycle: str, dataset: Dataset) -> tuple[int, int]:
    """Where the range cycles put mark-delete for a dataset."""
    if cycle == "removeAllUpTo":
        ledger = dataset.ledgers // 2
        return ledger, dataset.entries_in_ledger(ledger) // 2
    return 0, max(1, dataset.entries // 50) - 1


# --------------------------------------------------------------------------- the run


@dataclass(frozen=True)
class BenchConfig:
    """What :func:`run_bench` runs; validated like every user input."""

    layouts: tuple[str, ...] = tuple(LAYOUTS)
    ledgers: tuple[int, ...] = LEDGER_SPREADS
    cycles: tuple[str, ...] = CYCLES
    entries: int = ENTRIES
    ops: int = 20_000
    repeats: int = 3
    treemap_store: str = "jmh"

    def __post_init__(self) -> None:
        check_int("--entries", self.entries, 2, 10_000_000)  # first: --ledgers is bounded by it
        check_int("--ops", self.ops, 1, 100_000_000)
        check_int("--repeats", self.repeats, 1, 100)
        for name, values in (("--layouts", self.layouts), ("--cycles", self.cycles)):
            if not values:
                raise UsageError(f"{name} must name at least one value")
        if not self.ledgers:
            raise UsageError("--ledgers must name at least one ledger spread")
        for layout in self.layouts:
            check_layout(layout, "--layouts")
        for cycle in self.cycles:
            check_choice("--cycles", cycle, CYCLES)
        for n in self.ledgers:
            check_int("--ledgers", n, 1, self.entries)
        check_choice("--treemap-store", self.treemap_store, ("jmh", "pulsar"))


def _consume(ledger_id: int, entry_id: int, remaining: int, sticky_key_hash: int) -> None:
    """The benchmark's removed-entry callback (sums into a blackhole)."""


def _measure_cycle(layout: str, cycle: str, ledgers: int, cfg: BenchConfig) -> dict:
    make = new_model(layout, cfg.treemap_store)
    best = float("inf")
    cost = OpCost()
    if cycle.startswith("removeAllUpTo"):
        dataset = Dataset(cfg.entries, ledgers)
        base = make(*dataset.arrays())
        md = mark_delete_position(cycle, dataset)
        removed = 0
        for _ in range(cfg.repeats):
            store = base.copy()
            with _no_gc():
                start = time.perf_counter()
                removed = store.remove_all_up_to(*md, _consume)
                best = min(best, time.perf_counter() - start)
        counted = base.copy()
        counted.cost = cost
        counted.remove_all_up_to(*md, _consume)
        ops, extra = 1, {"removed": removed}
    else:
        window = RollingWindow(cfg.entries, ledgers)
        base = make(*window.arrays())
        for _ in range(cfg.repeats):
            store, w = base.copy(), RollingWindow(cfg.entries, ledgers)
            best = min(best, _run_cycle(cycle, store, w, cfg.ops))
        counted = base.copy()
        counted.cost = cost
        _run_cycle(cycle, counted, RollingWindow(cfg.entries, ledgers), cfg.ops)
        ops, extra = cfg.ops, {}
    return {
        "cycle": cycle,
        "ledgers": ledgers,
        "layout": layout,
        "python_us_per_op": best / ops * 1e6,
        **cost.per_op(ops),
        **extra,
    }


def run_bench(cfg: BenchConfig | None = None, log: Callable[[str], None] | None = None):
    """Every (cycle, ledger spread, layout) in one run; a DataFrame with Python time per
    operation, its ratio to ``pending-acks-treemap`` in the same cell, and the OpCost counters per op."""
    cfg = cfg or BenchConfig()
    rows = []
    for cycle in cfg.cycles:
        for ledgers in cfg.ledgers:
            for layout in cfg.layouts:
                rows.append(_measure_cycle(layout, cycle, ledgers, cfg))
                if log:
                    log(f"{cycle} ledgers={ledgers} {layout}")
    df = pd.DataFrame(rows)
    for column, out in (("python_us_per_op", "time_ratio"), ("touches", "touch_ratio")):
        if "pending-acks-treemap" in cfg.layouts:
            base = df[df.layout == "pending-acks-treemap"].set_index(["cycle", "ledgers"])[column]
            df[out] = df[column] / df.set_index(["cycle", "ledgers"]).index.map(base.to_dict())
    return df


def _at(cell: pd.DataFrame, layout: str, column: str) -> float:
    """``cell.at[layout, column]``: a float64/int64 cell of :func:`run_bench` (cast for mypy)."""
    return cast(float, cell.at[layout, column])


def seed_direction(df: pd.DataFrame) -> pd.DataFrame:
    """Against the seed's JMH tables: which of treemap / open-hash-bitset wins each cell.

    ``seed``: the layout with the lower published time; ``touches`` and ``python``: the one
    with fewer estimated cache lines touched and the faster Python model, from ``df``.
    """
    rows = []
    for (cycle, ledgers), (old, new) in SEED_JMH.items():
        cell = df[(df.cycle == cycle) & (df.ledgers == ledgers)].set_index("layout")
        if not {SEED_OLD, SEED_NEW} <= set(cell.index):
            continue

        def winner(column: str, cell: pd.DataFrame = cell) -> str:
            return (
                SEED_NEW if _at(cell, SEED_NEW, column) < _at(cell, SEED_OLD, column) else SEED_OLD
            )

        seed = SEED_NEW if new < old else SEED_OLD
        rows.append(
            {
                "cycle": cycle,
                "ledgers": ledgers,
                "seed_old": old,
                "seed_new": new,
                "seed_change": new / old - 1,
                "seed_winner": seed,
                "touch_change": _at(cell, SEED_NEW, "touches") / _at(cell, SEED_OLD, "touches") - 1,
                "touches_winner": winner("touches"),
                "python_change": _at(cell, SEED_NEW, "python_us_per_op")
                / _at(cell, SEED_OLD, "python_us_per_op")
                - 1,
                "python_winner": winner("python_us_per_op"),
            }
        )
    out = pd.DataFrame(rows)
    if not out.empty:
        out["touches_agree"] = out.touches_winner == out.seed_winner
        out["python_agree"] = out.python_winner == out.seed_winner
    return out


def format_bench(df: pd.DataFrame, columns: Iterable[str] | None = None) -> str:
    """A plain-text table of :func:`run_bench` results."""
    cols = list(
        columns
        or (
            "cycle",
            "ledgers",
            "layout",
            "time_ratio",
            "touches",
            "touch_ratio",
            "random",
            "streamed_bytes",
            "nodes",
            "lookups",
            "allocs",
            "alloc_bytes",
        )
    )
    cols = [c for c in cols if c in df.columns]
    return df[cols].to_string(index=False, float_format=lambda v: f"{v:.3g}")
