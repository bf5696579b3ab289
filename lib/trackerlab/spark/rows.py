"""Result rows of a sweep point: one per design (and JVM shape), from the point's totals.

Shared by the Spark engine (:mod:`trackerlab.spark.sweep_engine`) and the single-process path
(:func:`local_rows`, what the notebook falls back to without a sweep folder), so a number
means the same whichever way it was computed. No Spark import here. Each design is sized by
its catalog entry's ``from_counts`` (:mod:`trackerlab.catalog`).

Columns (bytes are ints; ``*_per_entry`` divide by ``entries``, what the structure holds):

- ``time-buckets`` / ``nack-time-buckets``: the #23611 / PIP-393 index as Java's ``add``
  builds it; ``*-runs``: the same after ``runOptimize()`` (the improvement variant);
  ``entries`` = (bucket, ledger, entry) memberships;
- ``triple-heap``: ``TripleLongPriorityQueue`` v2 (one triple per tracked entry, its last
  selected message's deliverAt); ``jvm_direct_bytes`` is its off-heap ``bytesCapacity()``;
- ``nack-pair-map``: the nack tracker before PIP-393 (version B, one-section
  ``ConcurrentLongLongPairHashMap``; :mod:`trackerlab.models.nack.pair_map_counts`), one key
  per distinct (ledger, entry); only on trim-bits points (the grid checks);
- ``jvm_total_bytes`` = heap + direct; ``python_bytes`` = the Python model (pympler +
  CRoaring allocation rules, ``exact=False``);
- ``theory_published_per_entry``: the seeds' formula for M = x · 2^y (PIP-393 for the nack
  index, the TimeBucket blog for the delayed one; 24 B for the heap; PIP-393's best case
  32 / 0.66 = 48.5 B for the pair map).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trackerlab.catalog import CATALOG
from trackerlab.models.design import PointCounts
from trackerlab.models.time_buckets import aggregates as tba
from trackerlab.models.time_buckets import reducer as bc
from trackerlab.sizing import theory
from trackerlab.sizing.jvm import COMPRESSED
from trackerlab.sizing.request import SizeResult

#: Where the design lab's proposals live: sized from the reducer only (:func:`index_rows`).
PROPOSALS_SOURCE = "lib/trackerlab/models/proposals/"
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
    columns = point.columns()
    kind = point.workload.delay.kind
    return columns | {
        "delay_kind": kind,
        "random_delay": kind != "fixed",
        "messages_per_bucket": theory.pip393_messages_per_bucket(
            point.workload.rate_per_ms, point.trim_bits
        ),
    }


def design_rows(
    point: Any, totals: Mapping[str, int], agg: tba.IndexAggregates
) -> list[dict[str, Any]]:
    """The rows of ``point`` (a :class:`~trackerlab.spark.grid.GridPoint`) from combined
    reducer totals and the index aggregates: each design's catalog ``from_counts``, once per
    JVM shape for the designs that have shapes."""
    base = _point_columns(point)
    base |= {"selected": totals["selected"], "index_messages": totals["index_messages"]}
    counts = PointCounts(totals, agg, point.workload.rate_per_ms, point.trim_bits, point.tick_ms)
    rows = []
    for name in point.designs:
        design = CATALOG[name]
        for shape in point.shapes if design.shapes else (None,):
            size = design.size_from_counts(counts, shape, COMPRESSED)
            rows.append(_row(base, name, shape, size))
    return rows


def _row(base: dict[str, Any], design: str, shape: str | None, size: SizeResult) -> dict[str, Any]:
    entries = size.entries
    jvm, direct, python = size.jvm_bytes or 0, size.jvm_direct_bytes or 0, size.python_bytes or 0
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
        "theory_published_per_entry": float(size.details["theory_published_per_entry"]),
    }
    for key in COUNT_COLUMNS:
        value = size.details.get(key)
        row[key] = int(value) if value is not None else None
    return row


def local_rows(point: Any, tasks: list[tuple[int, int]] | None = None) -> list[dict[str, Any]]:
    """A point computed in this process with the numpy reducer (no Spark)."""
    totals, agg = bc.reduce_workload(point.workload, point.trim_bits, point.tick_ms, tasks)
    return design_rows(point, totals, agg)


def index_rows(point: Any) -> list[dict[str, Any]]:
    """A point through the single-process pyroaring path: build the
    :class:`~trackerlab.models.time_buckets.time_bucket_index.TimeBucketIndex`
    (:func:`trackerlab.models.delayed.time_bucket_runs.build_index`), size its content; the heap
    from the entries the heap builder keeps (each entry's last selected message, tracked when
    due after one tick, as :func:`trackerlab.models.delayed.delayed_designs.size_heap`). For small points (the notebook's fallback, the equality tests)."""
    import dataclasses

    import numpy as np

    from trackerlab.models.delayed.time_bucket_runs import build_index

    lab = tuple(d for d in point.designs if CATALOG[d].source.startswith(PROPOSALS_SOURCE))
    if lab:  # the design lab's proposals need the reducer's per-bucket counts
        rest = tuple(d for d in point.designs if d not in lab)
        lab_rows = local_rows(dataclasses.replace(point, designs=lab))
        return (index_rows(dataclasses.replace(point, designs=rest)) if rest else []) + lab_rows
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
    for c in run.workload.chunks():
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
    if "nack-pair-map" in point.designs:
        # the map itself, from the messages' keys: a check on the count-only sizing
        from trackerlab.models.nack.map_trackers import NegativeAcksTrackerPairMap
        from trackerlab.models.primitives.pair_hash_map import ConcurrentLongLongPairHashMap

        empty = NegativeAcksTrackerPairMap.new_map()
        built = ConcurrentLongLongPairHashMap.from_arrays(
            led, ent, np.ones_like(led), np.arange(len(led)), auto_shrink=True, concurrency_level=1
        )
        row = next(r for r in rows if r["design"] == "nack-pair-map")
        assert built.expected_items == empty.expected_items
        row["jvm_bytes"] = row["jvm_total_bytes"] = built.jvm_bytes()
        row["capacity_longs"] = 4 * built.capacity()
        row["entries"] = len(built)
    return rows
