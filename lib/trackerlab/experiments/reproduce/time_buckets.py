"""Reproduction of the time-bucket numbers: PIP-393 (N04–N10) and the TimeBucket blog (N14–N19).

Each function rebuilds the seed's experiment with the bulk path and reports the JVM model
(the Java shape the seed measured), the Python-real bytes and both theories. Findings the
numbers rest on:

- PIP-393 writes "a bucket contains 2**x ms, M=2**x*y msgs"; its examples use M = x·2^y.
- PIP-393's "4 B per entry below 4096" is twice Roaring's 2 B per array value; its total
  for x=1, y=10 (3.81 MB) is close to the measured 3.35 MB only because per-bucket and
  per-bitmap object overheads (≈ 0.8 KB per 1024-entry bucket) fill the gap.
- Neither seed counts run containers: entry ids within a bucket are consecutive, so a
  run-optimized bitmap holds a whole ledger in one 4-B run (N19).
"""

from __future__ import annotations

from trackerlab.experiments.reproduce.published import PublishedNumber
from trackerlab.experiments.reproduce.registry import Reproduction, reproduces
from trackerlab.models.delayed.time_bucket_runs import (
    BucketRun,
    BucketSizes,
    measure,
    published_bytes_per_entry,
)
from trackerlab.sizing import theory
from trackerlab.workloads.stream import Workload

# The seeds' own experiments. PIP-393's test map (seed 000): AVL -> open hash -> bitmap,
# 1e6 nacks, timestamp + 1 per message. The blog (seed 001): Long2ObjectSortedMap twice
# (AVL/AVL), 1e7 messages, 50,000 entries per ledger.
PIP_X1 = BucketRun(Workload(1_000_000, 1.0, entries_per_ledger=1000), 10)
PIP_X50 = BucketRun(Workload(1_000_000, 50.0), 10)
PIP_X500 = BucketRun(Workload(1_000_000, 500.0), 10)
BLOG = {
    x_y: BucketRun(Workload(10_000_000, x_y[0]), x_y[1], shape="avl-avl", formula="timebucket")
    for x_y in ((1, 10), (4, 10), (8, 10), (8, 15))
}
BLOG_RUNS = BucketRun(
    Workload(10_000_000, 8.0), 15, shape="avl-avl", formula="timebucket", run_optimize=True
)


def _in_unit(row: PublishedNumber, sizes: BucketSizes, column: str) -> float:
    """A size column in the row's unit: per entry for B/entry rows, else bytes / unit."""
    if row.unit.startswith("B/"):
        return sizes.per_entry(column)
    return getattr(sizes, column) / (row.unit_bytes or 1)


def _rep(row: PublishedNumber, run: BucketRun, **kwargs: object) -> Reproduction:
    sizes = measure(run)
    return Reproduction(
        row.id,
        row.published,
        row.unit,
        jvm_model=_in_unit(row, sizes, "jvm_bytes"),
        python_real=_in_unit(row, sizes, "python_bytes"),
        theory_published=_in_unit(row, sizes, "theory_published_bytes"),
        theory_corrected=_in_unit(row, sizes, "theory_corrected_bytes"),
        **kwargs,  # type: ignore[arg-type]
    )


@reproduces("N04")
def pip393_large_buckets(row: PublishedNumber) -> Reproduction:
    return _rep(
        row,
        PIP_X500,
        explanation="M = 512,000 (x=500, y=10): every bitmap is one 8 KiB bitset for up to "
        "50,000 entries; the model adds the Roaring64Bitmap objects and the two partial "
        "ledgers at the ends of the 1e6-entry run.",
    )


@reproduces("N05")
def pip393_middle_regime(row: PublishedNumber) -> Reproduction:
    run = BucketRun(Workload(10_000_000, 8.0), 10, shape="avl-openhash")
    rep = _rep(
        row,
        run,
        explanation="8192/M evaluated at M = 8192 (x=8, y=10): 1.0 B/entry; the model adds "
        "about 0.8 KB of objects per bucket and one extra bitmap where a bucket spans two "
        "ledgers.",
    )
    rep.published_value = published_bytes_per_entry(run)
    return rep


@reproduces("N06")
def pip393_small_buckets(row: PublishedNumber) -> Reproduction:
    return _rep(
        row,
        PIP_X1,
        explanation="The PIP counts 4 B per value; Roaring array containers hold 2 B "
        "(theory_corrected). The model lands near 4 only because each 1024-entry bucket also "
        "carries ~0.8 KB of objects (AVL entry, inner Long2ObjectOpenHashMap, Roaring64Bitmap) "
        "and array capacity slack (1093 slots for 1024 values).",
    )


@reproduces("N07", "N08")
def pip393_x1_total(row: PublishedNumber) -> Reproduction:
    note = (
        "the prediction 4 B x 1e6 / 2^20 = 3.81 MB; the model holds 1,969 bitmaps "
        "(1000-entry ledgers split most 1024-ms buckets in two)"
        if row.id == "N07"
        else "measured by the PIP's heap walk; the model holds 977 buckets and 1,969 bitmaps"
    )
    return _rep(row, PIP_X1, explanation=note)


@reproduces("N09")
def pip393_x50(row: PublishedNumber) -> Reproduction:
    return _rep(
        row,
        PIP_X50,
        explanation="twice the 0.163 theory, as the PIP found: a 51,200-entry bucket spans "
        "two ledgers, so most bitmaps hold well under 50,000 entries yet cost a full 8 KiB",
    )


@reproduces("N10")
def pip393_x500(row: PublishedNumber) -> Reproduction:
    return _rep(row, PIP_X500)


@reproduces("N14", "N15", "N16", "N17")
def blog_heap_sizes(row: PublishedNumber) -> Reproduction:
    x_y = {"N14": (1, 10), "N15": (4, 10), "N16": (8, 10), "N17": (8, 15)}[row.id]
    run = BLOG[x_y]
    explanation = {
        "N14": "9,766 buckets of 1024 entries: objects per bucket dominate over the 2 B/value "
        "payload (the blog attributes the excess to 'Long2ObjectSortedMap etc.')",
        "N17": "238 bitsets of 8 KiB for 1e7 entries; jmap also counts heap the model does "
        "not (unreclaimed array containers of the bitmaps that turned into bitsets are "
        "garbage the JVM may not have collected yet)",
    }.get(row.id, "")
    return _rep(row, run, explanation=explanation)


@reproduces("N18")
def blog_small_regime(row: PublishedNumber) -> Reproduction:
    return _rep(
        row,
        BLOG[(1, 10)],
        explanation="2 B per value is the array payload alone; each 1024-entry bucket also "
        "carries about 0.6 KB of Java objects and array capacity slack, 2.6 B/entry in all.",
    )


@reproduces("N19")
def blog_one_bit_bound(row: PublishedNumber) -> Reproduction:
    rep = _rep(
        row,
        BLOG_RUNS,
        explanation="1 bit per entry bounds random subsets only. Entry ids in a bucket are "
        "consecutive: run-optimized bitmaps (the improvement variant, x=8, y=15) hold each "
        "ledger in one 4-B run and the whole index in well under 1 bit per entry. The true "
        "floor for an interval is about 31 bits per bitmap (theory_corrected: "
        "interval bound per entry).",
    )
    sizes = measure(BLOG_RUNS)
    rep.theory_published = theory.one_bit_lower_bound_bytes_per_entry()
    rep.theory_corrected = sizes.bitmaps * theory.interval_bits(50_000) / 8 / sizes.entries
    return rep
