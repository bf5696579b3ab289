"""PendingAcksMap sizes: seed 002's table, bytes per entry by window, capacity retention.

Every JVM number is the layout model applied to a model's actual state (hash capacities,
BitSet words, tree entry counts, distinct boxed ``Long`` objects); every Python number is
:func:`trackerlab.sizing.python.python_real_bytes` of the same model. Builds use the bulk
path (``from_arrays``); the retention timeline drives the per-operation API.

Windows (spec pulsar-structures.md §4.3): ``receiverQueueSize = 1000`` (client),
``maxUnackedMessagesPerConsumer = 50000``, ``maxUnackedMessagesPerSubscription = 200000``;
PendingAcksMap counts entries, so with batching these are upper bounds on entries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

import pandas as pd

from trackerlab.core.params import check_int
from trackerlab.models.pending_acks.common import PendingAcksModel
from trackerlab.models.pending_acks.layouts import LAYOUTS, Dataset, check_layout, new_pending_acks
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout

#: (entries, ledgers) of seed 002's JOL table (published ids N20-N40).
SEED_CASES: tuple[tuple[int, int], ...] = (
    (100, 1),
    (1_000, 1),
    (50_000, 1),
    (50_000, 5),
    (50_000, 10),
    (50_000, 20),
    (1_000, 100),
)
#: Seed 002's layouts, in the order of its table's columns.
#: Pending windows the seed names (entries).
WINDOWS = {"receiver queue": 1_000, "per consumer": 50_000, "per subscription": 200_000}


@lru_cache(maxsize=64)
def built(layout: str, entries: int, ledgers: int, first_ledger: int = 0) -> PendingAcksModel:
    """The seed's dataset in ``layout`` (cached: callers must not mutate it)."""
    return Dataset(entries, ledgers, first_ledger).build(check_layout(layout))


def measure(
    model: PendingAcksModel, python: bool = True, layout: JvmLayout = COMPRESSED
) -> dict[str, object]:
    """``jvm_bytes`` and (optionally) ``python_bytes`` of a model, plus per-entry values."""
    from trackerlab.sizing.python import python_real_bytes

    n = model.size()
    jvm = model.jvm_bytes(layout)
    py = python_real_bytes(model) if python else None
    return {
        "layout": model.name,
        "entries": n,
        "ledgers": model.ledger_count(),
        "jvm_bytes": jvm,
        "python_bytes": py,
        "jvm_bytes_per_entry": jvm / n if n else None,
        "python_bytes_per_entry": py / n if (n and py is not None) else None,
    }


def size_table(
    layouts: Iterable[str] = tuple(LAYOUTS),
    cases: Sequence[tuple[int, int]] = SEED_CASES,
    python: bool = True,
) -> pd.DataFrame:
    """One row per (layout, entries, ledgers): JVM and Python bytes."""
    rows = []
    for layout in layouts:
        for entries, ledgers in cases:
            row = measure(built(layout, entries, ledgers), python)
            rows.append(row | {"ledgers": ledgers})
    return pd.DataFrame(rows)


def bytes_per_entry_grid(
    layouts: Iterable[str] = tuple(LAYOUTS),
    windows: Iterable[int] = tuple(WINDOWS.values()),
    ledgers_per_window: Iterable[int] = (1, 2, 5, 10, 20, 100),
    python: bool = False,
) -> pd.DataFrame:
    """JVM (and Python) bytes per entry for each window size and ledger spread."""
    rows = []
    for window in windows:
        check_int("window", window, 1)
        for ledgers in ledgers_per_window:
            if ledgers > window:
                continue
            for layout in layouts:
                model = Dataset(window, ledgers).build(check_layout(layout))
                rows.append(measure(model, python) | {"window": window, "ledgers": ledgers})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- retention


def _record(rows: list, t: int, phase: str, model: PendingAcksModel, python: bool = False) -> None:
    from trackerlab.sizing.python import python_real_bytes

    rows.append(
        {
            "layout": model.name,
            "t": t,
            "phase": phase,
            "entries": model.size(),
            "ledgers": model.ledger_count(),
            "jvm_bytes": model.jvm_bytes(),
            "python_bytes": python_real_bytes(model) if python else None,
        }
    )


def retention_timeline(
    layout: str,
    peak: int = 50_000,
    keep: int = 1_000,
    steps: int = 10,
    hold: int = 3,
    python: bool = False,
    iterate: bool = True,
) -> pd.DataFrame:
    """Seed 002's capacity-retention scenario as a timeline of one ledger's bucket.

    ``ramp``: ``peak`` entries dispatched into ledger 0 (``steps`` checkpoints);
    ``drain``: mark-delete advances until ``keep`` entries remain (``steps`` calls of
    ``removeAllUpTo``); ``hold``: the tail stays pending (``hold`` checkpoints, e.g. a slow
    consumer); ``done``: mark-delete passes the ledger and the bucket is dropped. Before the
    drop a ``forEach`` runs (a redelivery or a harness reading the map), which makes Java cache
    the outer map's 16-B ``entrySet`` view: seed 002 measured 64 B, not 48 B, for the empty
    map (``iterate=False`` leaves that step out: 48 B). One ``t`` per checkpoint; the x axis
    is operations, not seconds. ``python`` adds the Python-real bytes of each checkpoint
    (asizeof: about 1 us per object).
    """
    check_int("peak", peak, 1)
    check_int("keep", keep, 0, peak)
    check_int("steps", steps, 1)
    model = new_pending_acks(layout)
    rows: list[dict] = []
    t = 0
    _record(rows, t, "ramp", model, python)
    chunk = -(-peak // steps)
    for start in range(0, peak, chunk):
        for e in range(start, min(peak, start + chunk)):
            model.add_pending_ack_if_allowed(0, e, (e & 15) + 1, e * 31 & 0x7FFF_FFFF)
        t += 1
        _record(rows, t, "ramp", model, python)
    target = peak - keep
    for i in range(1, steps + 1):
        model.remove_all_up_to(0, target * i // steps - 1)
        t += 1
        _record(rows, t, "drain", model, python)
    for _ in range(hold):
        t += 1
        _record(rows, t, "hold", model, python)
    if iterate:
        model.for_each(lambda *row: None)
    model.remove_all_up_to(0, peak)
    t += 1
    _record(rows, t, "done", model, python)
    return pd.DataFrame(rows)


def retained_after(
    layout: str, peak: int = 50_000, keep: int = 1_000, python: bool = False, iterate: bool = True
) -> dict[str, dict[str, int | None]]:
    """Bytes at the seed's three retention points (``peak``, ``keep``: the tail of ``keep``
    entries, ``removed``: bucket gone), each ``{"jvm_bytes": .., "python_bytes": ..}``;
    ``iterate`` as in :func:`retention_timeline`."""
    df = retention_timeline(layout, peak, keep, steps=1, hold=0, python=python, iterate=iterate)
    points = {
        "peak": df[df.phase == "ramp"].iloc[-1],
        "keep": df[df.phase == "drain"].iloc[-1],
        "removed": df[df.phase == "done"].iloc[-1],
    }
    return {
        name: {
            "jvm_bytes": int(row.jvm_bytes),
            "python_bytes": None if row.python_bytes is None else int(row.python_bytes),
        }
        for name, row in points.items()
    }


def stuck_entry_timeline(
    layout: str, window: int = 10_000, ledgers: int = 4, entries_per_ledger: int = 10_000
) -> pd.DataFrame:
    """A rolling window over several ledgers while one early entry stays unacked.

    The window of ``window`` entries moves through ``ledgers`` ledgers of
    ``entries_per_ledger``; entry 0 of ledger 0 is never acknowledged, so mark-delete cannot
    pass it and ledger 0's bucket keeps its peak capacity while the other buckets come and go.
    One checkpoint per ``window // 5`` dispatched entries.
    """
    check_int("window", window, 1)
    model = new_pending_acks(layout)
    rows: list[dict] = []
    total = ledgers * entries_per_ledger
    step = max(1, window // 5)
    for seq in range(total):
        ledger, entry = divmod(seq, entries_per_ledger)
        model.add_pending_ack_if_allowed(ledger, entry, 1, 0)
        old = seq - window
        if old > 0:  # individual acks of everything but (0, 0)
            model.remove(*divmod(old, entries_per_ledger))
        if seq % step == step - 1:
            _record(rows, seq + 1, "rolling", model)
    return pd.DataFrame(rows)
