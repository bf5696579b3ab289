"""Sizes of the proposals from a reducer's aggregates (Spark sweeps), and the result of a build.

A sweep never builds a tracker: it knows the index's totals, the histogram of ledgers per
bucket and the design lab's per-bucket histograms
(:mod:`~trackerlab.models.time_buckets.lab_stats`). Each proposal's bytes decompose into
sums over containers or streams (totals), a function of each bucket's counts (histograms:
capacities of key arrays, ``int[]`` and ``byte[]`` growth) and the slot table (the ledger
range). ``tests/models/proposals`` holds every ``from_counts`` equal to the built tracker.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

import numpy as np

from trackerlab.models.design import PointCounts
from trackerlab.models.proposals.ledger_slots import check_bounds, slot_table_bytes
from trackerlab.models.time_buckets.lab_stats import PACKED_FIELD, SPILL_AT, LabHistograms
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing import jvm_roaring as jr
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.python import python_real_bytes
from trackerlab.sizing.request import SizeRequest, SizeResult

#: Ledgers a bucket may hold for the packed-count field of the reducer's per-bucket value.
ADAPTIVE_MAX_WINDOW = PACKED_FIELD // SPILL_AT


def ledger_window(totals: Mapping[str, int]) -> int:
    """Ledgers from the oldest to the newest tracked one (0 when nothing is tracked)."""
    if totals["entries"] == 0:
        return 0
    return int(totals["ledger_max"]) - int(totals["ledger_min"]) + 1


def checked_window(totals: Mapping[str, int]) -> int:
    """:func:`ledger_window`, after checking the packed-position bounds."""
    window = ledger_window(totals)
    if window:
        check_bounds(window, int(totals["entry_max"]))
    return window


def lab_histograms(c: PointCounts, name: str) -> LabHistograms:
    """The per-bucket histograms of the design lab, or ValueError naming the design."""
    lab = c.aggregates.lab
    if lab is None:
        raise ValueError(
            f"{name} is sized from the reducer's per-bucket lab statistics "
            "(models/time_buckets/reducer.py); these aggregates have none"
        )
    return lab


@cache
def roaring_fixed_bytes(containers: int, layout: JvmLayout = COMPRESSED) -> int:
    """A ``RoaringBitmap`` with ``containers`` containers added one key at a time, containers
    excluded: the bitmap, its ``RoaringArray`` and the ``char[]``/``Container[]`` key arrays."""
    cap = jr.roaring_array_capacity(containers)
    return jr.roaring_bitmap_from_containers([], key_capacity=cap, layout=layout)


def per_bucket_sum(values: np.ndarray, counts: np.ndarray, fn) -> int:
    """``sum(counts[i] * fn(values[i]))``, one call per distinct value."""
    return int(sum(int(n) * fn(int(v)) for v, n in zip(values, counts, strict=True)))


def roaring_bitmaps_bytes(
    bitmaps: list, run_optimized: list[bool] | None = None, layout: JvmLayout = COMPRESSED
) -> int:
    """Deep bytes of 32-bit ``RoaringBitmap``s built by ``add`` with these (pyroaring) bitmaps'
    values, each then ``runOptimize()``-d where ``run_optimized`` says: one vectorized pass
    equal to :func:`~trackerlab.sizing.jvm_roaring.roaring_bitmap_bytes_of` per bitmap. O(values)."""
    from trackerlab.models.time_buckets import shapes as tbs

    if not bitmaps:
        return 0
    parts = [np.frombuffer(bm.to_array(), dtype=np.uint32) for bm in bitmaps]
    sizes = np.array([len(p) for p in parts], dtype=np.int64)
    values = np.concatenate(parts).astype(np.int64)
    owner = np.repeat(np.arange(len(parts)), sizes)
    chunk = values >> 16
    new = np.r_[True, (owner[1:] != owner[:-1]) | (chunk[1:] != chunk[:-1])]
    starts = np.flatnonzero(new)
    card = np.diff(np.r_[starts, len(values)])
    breaks = new.copy()
    breaks[1:] |= values[1:] != values[:-1] + 1
    runs = np.add.reduceat(breaks.astype(np.int64), starts) if len(starts) else card
    containers = tbs.container_bytes(card, runs, False, layout)
    if run_optimized is not None and any(run_optimized):
        optimized = np.asarray(run_optimized, dtype=bool)[owner[starts]]
        runs_bytes = tbs.container_bytes(card, runs, True, layout)
        containers = np.where(optimized, runs_bytes, containers)
    per_bitmap = np.bincount(owner[starts], minlength=len(parts))
    per_bitmap = per_bitmap[sizes > 0]
    k, n = np.unique(per_bitmap, return_counts=True)
    empty = int((sizes == 0).sum()) * roaring_fixed_bytes(0, layout)
    return (
        int(containers.sum())
        + per_bucket_sum(k, n, lambda d: roaring_fixed_bytes(d, layout))
        + empty
    )


def bitmap_buckets_result(
    name: str, c: PointCounts, variant: str, layout: JvmLayout = COMPRESSED
) -> SizeResult:
    """One ``RoaringBitmap`` per bucket (``time-buckets-flat``, ``-sealed``): its key arrays by
    the bucket's ledger count, the index's containers (``variant``: plain or runs)."""
    totals, agg = c.totals, c.aggregates
    window = checked_window(totals)
    jvm = jc.fastutil_avl_tree_map(agg.buckets, layout=layout)
    jvm += per_bucket_sum(
        agg.ledger_counts, agg.bucket_counts, lambda k: roaring_fixed_bytes(k, layout)
    )
    jvm += int(totals[f"jvm_containers_{variant}"]) + slot_table_bytes(window, layout)
    return SizeResult(
        structure=name,
        entries=int(totals["entries"]),
        jvm_bytes=int(jvm),
        jvm_direct_bytes=0,
        details={
            "buckets": agg.buckets,
            "bitmaps": agg.buckets,
            "chunks": int(totals["chunks"]),
            "runs": int(totals["runs"]),
            "array_containers": int(totals[f"array_{variant}"]),
            "bitset_containers": int(totals[f"bitset_{variant}"]),
            "run_containers": int(totals["run_runs"]) if variant == "runs" else 0,
            "ledger_window": window,
            "theory_published_per_entry": float("nan"),
        },
    )


def built_result(name: str, tracker, request: SizeRequest, **details: object) -> SizeResult:
    """The three columns of a built proposal (Python-real, JVM; no published theory)."""
    return SizeResult(
        structure=name,
        entries=tracker.count,
        python_bytes=python_real_bytes(tracker, exact=False),
        jvm_bytes=tracker.jvm_bytes(request.jvm_layout),
        jvm_direct_bytes=0,
        details={
            **details,
            "ledger_window": tracker.slots.end - tracker.slots.first if tracker.count else 0,
            "trim_bits": tracker.bits,
        },
    )
