"""Result rows of a sweep point: one per design (and JVM shape), from the point's totals.

Shared by the Spark engine (:mod:`trackerlab.spark.sweep`) and the single-process path
(:func:`local_rows`, what the notebook falls back to without a sweep folder), so a number
means the same whichever way it was computed. No Spark import here.

Columns (bytes are ints; ``*_per_entry`` divide by ``entries``, what the structure holds):

- ``time-buckets``: the PIP-393/#23611 index as Java's ``add`` builds it;
  ``time-buckets-runs``: the same after ``runOptimize()`` (the improvement variant);
  ``entries`` = (bucket, ledger, entry) memberships;
- ``triple-heap``: ``TripleLongPriorityQueue`` v2 (one triple per tracked entry, its last
  selected message's deliverAt); ``jvm_direct_bytes`` is its off-heap ``bytesCapacity()``;
- ``pair-hash-map``: the nack tracker before PIP-393 (version B, one-section
  ``ConcurrentLongLongPairHashMap``; :mod:`trackerlab.models.pair_map_sizes`), one key per
  distinct (ledger, entry); only on trim-bits points (the grid checks);
- ``jvm_total_bytes`` = heap + direct; ``python_bytes`` = the Python model (pympler +
  CRoaring allocation rules, ``exact=False``);
- ``theory_published_per_entry``: the seeds' formula for M = x · 2^y (PIP-393 for trim-bits
  points, the TimeBucket blog for tick points; 24 B for the heap; PIP-393's best case
  32 / 0.66 = 48.5 B for the pair map).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trackerlab.models import bucket_content as bc
from trackerlab.models import time_bucket_aggregates as tba
from trackerlab.models.pair_map_sizes import pair_map_sizes
from trackerlab.models.triple_heap_sizes import heap_sizes
from trackerlab.sizing import theory

BUCKET_DESIGNS = {"time-buckets": "plain", "time-buckets-runs": "runs"}
#: Structure counts of a row (None where a design has no such thing).
COUNT_COLUMNS = (
    "buckets",
    "bitmaps",
    "chunks",
    "runs",
    "array_containers",
    "bitset_containers",
    "run_containers",
    "capacity_longs",
)


def _point_columns(point: Any) -> dict[str, Any]:
    kind = point.delay.split(":", 1)[0]
    return {
        "grid_row": point.grid_row,
        "block": point.block,
        "point_id": point.point_id,
        "seed": point.seed,
        "replicate": point.replicate,
        "messages": point.messages,
        "rate_per_ms": point.rate_per_ms,
        "trim_bits": point.trim_bits,
        "tick_ms": point.tick_ms,
        "entries_per_ledger": point.entries_per_ledger,
        "batch_size": point.batch_size,
        "delay": point.delay,
        "delay_kind": kind,
        "random_delay": kind != "fixed",
        "pattern": point.pattern,
        "messages_per_bucket": theory.pip393_messages_per_bucket(
            point.rate_per_ms, point.trim_bits
        ),
    }


def design_rows(
    point: Any, totals: Mapping[str, int], agg: tba.IndexAggregates
) -> list[dict[str, Any]]:
    """The rows of ``point`` (a :class:`~trackerlab.spark.grid.GridPoint`) from combined
    reducer totals and the index aggregates."""
    base = _point_columns(point)
    base |= {"selected": totals["selected"], "index_messages": totals["index_messages"]}
    m = base["messages_per_bucket"]
    published = (
        theory.timebucket_bytes_per_entry(m)
        if point.tick_ms is not None
        else theory.pip393_bytes_per_entry(m)
    )
    rows = []
    for design in point.designs:
        if design == "triple-heap":
            tick = point.tick_ms if point.tick_ms is not None else 0
            h = heap_sizes(totals["heap_entries"], tick)
            rows.append(
                _row(
                    base,
                    design,
                    None,
                    h.entries,
                    h.jvm_heap_bytes,
                    h.jvm_direct_bytes,
                    h.python_bytes,
                    float(theory.triple_bytes_per_entry()),
                    capacity_longs=h.capacity_longs,
                )
            )
            continue
        if design == "pair-hash-map":
            # heap_entries: distinct (ledger, entry) pairs (every one tracked on trim-bits points)
            pm = pair_map_sizes(totals["heap_entries"])
            rows.append(
                _row(
                    base,
                    design,
                    None,
                    pm.entries,
                    pm.jvm_heap_bytes,
                    0,
                    pm.python_bytes,
                    theory.pip393_open_addressing_bytes_per_entry()[0],
                    capacity_longs=4 * pm.capacity,
                )
            )
            continue
        variant = BUCKET_DESIGNS[design]
        for shape in point.shapes:
            jvm, python = tba.index_bytes(agg, variant, shape)
            rows.append(
                _row(
                    base,
                    design,
                    shape,
                    totals["entries"],
                    jvm,
                    0,
                    python,
                    published,
                    buckets=agg.buckets,
                    bitmaps=totals["bitmaps"],
                    chunks=totals["chunks"],
                    runs=totals["runs"],
                    array_containers=totals[f"array_{variant}"],
                    bitset_containers=totals[f"bitset_{variant}"],
                    run_containers=totals["run_runs"] if variant == "runs" else 0,
                )
            )
    return rows


def _row(
    base: dict[str, Any],
    design: str,
    shape: str | None,
    entries: int,
    jvm: int,
    direct: int,
    python: int,
    published: float,
    **counts: int,
) -> dict[str, Any]:
    total = jvm + direct
    row = {
        **base,
        "design": design,
        "shape": shape,
        "entries": int(entries),
        "jvm_bytes": int(jvm),
        "jvm_direct_bytes": int(direct),
        "jvm_total_bytes": int(total),
        "python_bytes": int(python),
        "jvm_bytes_per_entry": total / entries if entries else float("nan"),
        "python_bytes_per_entry": python / entries if entries else float("nan"),
        "jvm_bytes_per_message": total / base["selected"] if base["selected"] else float("nan"),
        "theory_published_per_entry": float(published),
    }
    for key in COUNT_COLUMNS:
        row[key] = int(counts[key]) if key in counts else None
    return row


def local_rows(point: Any, tasks: list[tuple[int, int]] | None = None) -> list[dict[str, Any]]:
    """A point computed in this process with the numpy reducer (no Spark)."""
    totals, agg = bc.reduce_workload(point.workload(), point.trim_bits, point.tick_ms, tasks)
    return design_rows(point, totals, agg)


def index_rows(point: Any) -> list[dict[str, Any]]:
    """A point through the single-process pyroaring path: build the
    :class:`~trackerlab.models.time_buckets.TimeBucketIndex`
    (:func:`trackerlab.experiments.time_bucket_runs.build_index`), size its content; the heap
    from the entries the heap builder keeps (:func:`trackerlab.sizing.heap_structures`
    rules). For small points (the notebook's fallback, the equality tests)."""
    import numpy as np

    from trackerlab.experiments.time_bucket_runs import build_index

    run = point.bucket_run()
    index = build_index(run)
    content = index.content(runs=True)
    agg = tba.aggregates_of_content(content)
    stats = index.stats()
    cols = tba.chunk_columns(content[:, 3], content[:, 4]) if len(content) else None
    totals: dict[str, int] = {
        "entries": stats.entries,
        "bitmaps": stats.bitmaps,
        "chunks": len(content),
    }
    for field in ("runs", "array_plain", "bitset_plain", "array_runs", "bitset_runs", "run_runs"):
        totals[field] = int(cols[field].sum()) if cols is not None else 0
    ledger, entry, delay, selected = [], [], [], 0
    for c in run.workload().chunks():
        ledger.append(c.ledger)
        entry.append(c.entry)
        delay.append(c.delay_ms)
        selected += len(c)
    led, ent, dl = (
        np.concatenate(x) if x else np.zeros(0, np.int64) for x in (ledger, entry, delay)
    )
    last = np.r_[(led[1:] != led[:-1]) | (ent[1:] != ent[:-1]), True] if len(led) else led > 0
    tracked = dl > point.tick_ms if point.tick_ms is not None else np.ones(len(dl), bool)
    totals["heap_entries"] = int((last & tracked).sum())
    totals["selected"] = selected
    totals["index_messages"] = int(tracked.sum())
    rows = design_rows(point, totals, agg)
    if "pair-hash-map" in point.designs:
        # the map itself, from the messages' keys: a check on the count-only sizing
        from trackerlab.models.nack_trackers import NegativeAcksTrackerPairMap
        from trackerlab.models.pair_hash_map import ConcurrentLongLongPairHashMap

        empty = NegativeAcksTrackerPairMap.new_map()
        built = ConcurrentLongLongPairHashMap.from_arrays(
            led, ent, np.ones_like(led), np.arange(len(led)), auto_shrink=True, concurrency_level=1
        )
        row = next(r for r in rows if r["design"] == "pair-hash-map")
        assert built.expected_items == empty.expected_items
        row["jvm_bytes"] = row["jvm_total_bytes"] = built.jvm_bytes()
        row["capacity_longs"] = 4 * built.capacity()
        row["entries"] = len(built)
    return rows
