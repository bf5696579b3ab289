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

from trackerlab.experiments.reproduce.number_registry import FORMULA, Reproduction, reproduces
from trackerlab.experiments.reproduce.published import PublishedNumber, load_published
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
#: N05's stated range 4096 < M < 50000, sampled at M = 5120 .. 49152 (x msg/ms, y bits).
N05_RANGE = ((5, 10), (8, 10), (8, 11), (8, 12), (48, 10))
#: N06's stated range M < 4096 on PIP-393's test ledgers (1000 entries).
N06_RANGE = ((1, 10), (2, 10), (3, 10))
#: N17 measured in a real JVM: ``trackerlab jvm-check --only timebuckets-blog-x8-y15``
#: (OpenJDK 17.0.15, compressed oops, Debian fastutil 8, RoaringBitmap 1.6.10; the agent's
#: deep size = JOL's ``GraphLayout.totalSize``) of the structure built in the JVM by
#: ``Probe.blogTimeBuckets`` with 10,000,000 ``addLong``; equal to the layout model.
N17_REAL_JVM_BYTES = 2_001_128


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
        **kwargs,  # type: ignore[arg-type]  # kwargs is dict[str, object] of the run's keyword options, passed through
    )


@reproduces("N04")
def pip393_large_buckets(row: PublishedNumber) -> Reproduction:
    sizes = measure(PIP_X500)
    per_bitmap = sizes.jvm_bytes / sizes.bitmaps
    held = sizes.per_entry("jvm_bytes")
    return _rep(
        row,
        PIP_X500,
        values={"per_bitmap_bytes": per_bitmap, "bitmaps": sizes.bitmaps},
        explanation="M = 512,000 (x=500, y=10): every bitmap is one 8 KiB bitset for up to "
        f"50,000 entries plus the Roaring64Bitmap, ART and container objects ({per_bitmap:,.0f} "
        "B per bitmap in the layout model, byte-exact against a real JVM in jvm-check), and "
        f"the two partial ledgers at the ends of the run; 8192/50000 = {8192 / 50_000:.4f} "
        f"B/entry is the payload, the structure holds {held:.3f} whatever M > 50,000 (one "
        "bitmap per full ledger).",
    )


def _range_ratios(
    points, messages: int, entries_per_ledger: int = 50_000
) -> tuple[list[float], list[float]]:
    """Model / formula and M at each (x, y) point of a formula's range (bulk builds)."""
    ratios, ms = [], []
    for x, y in points:
        run = BucketRun(Workload(messages, float(x), entries_per_ledger=entries_per_ledger), y)
        sizes = measure(run, python=False)
        ratios.append(sizes.per_entry("jvm_bytes") / published_bytes_per_entry(run))
        ms.append(run.messages_per_bucket)
    return ratios, ms


@reproduces("N05")
def pip393_middle_regime(row: PublishedNumber) -> Reproduction:
    run = BucketRun(Workload(10_000_000, 8.0), 10, shape="avl-openhash")
    ratios, ms = _range_ratios(N05_RANGE, 2_000_000)
    pairs = ", ".join(f"M={m:,.0f}: {r:.2f}" for m, r in zip(ms, ratios, strict=True))
    rep = _rep(
        row,
        run,
        explanation=f"model / (8192/M) across the stated range: {pairs} (2e6 messages per "
        "point, 50,000-entry ledgers). A bucket of M entries spans two ledgers as often as "
        "M/50,000 of the time, each with its own bitmap (an array container below 4,096 "
        "entries, an 8 KiB bitset above), plus about 0.8 KB of objects per bucket.",
    )
    rep.published_value = published_bytes_per_entry(run)
    rep.basis = FORMULA
    rep.range_ratios = tuple(ratios)
    return rep


@reproduces("N06")
def pip393_small_buckets(row: PublishedNumber) -> Reproduction:
    ratios, ms = _range_ratios(N06_RANGE, 1_000_000, entries_per_ledger=1000)
    pairs = ", ".join(f"M={m:,.0f}: {r * 4:.2f} B" for m, r in zip(ms, ratios, strict=True))
    rep = _rep(
        row,
        PIP_X1,
        values={"range_min_bytes": 4 * min(ratios), "range_max_bytes": 4 * max(ratios)},
        explanation="Roaring array containers store one 2-byte short per value "
        "(theory_corrected counts that); 4N is twice it. With the per-bucket objects (AVL "
        "entry, inner Long2ObjectOpenHashMap, Roaring64Bitmap, ~0.8 KB) and array capacity "
        f"slack (1093 slots for 1024 values) the structure holds {pairs}: it matches 4 nowhere "
        "in M < 4096 and only approaches it as M falls.",
    )
    rep.basis = FORMULA
    rep.range_ratios = tuple(ratios)
    return rep


@reproduces("N07", "N08")
def pip393_x1_total(row: PublishedNumber) -> Reproduction:
    sizes = measure(PIP_X1)
    split = (
        f"{sizes.buckets:,} buckets and {sizes.bitmaps:,} bitmaps (1000-entry ledgers split "
        "most 1024-ms buckets in two)"
    )
    if row.id == "N08":
        return _rep(
            row, PIP_X1, explanation=f"measured by the PIP's heap walk; the model holds {split}"
        )
    model = sizes.jvm_bytes / (row.unit_bytes or 1)
    measured = load_published()["N08"].value
    payload = 2 * sizes.entries / (row.unit_bytes or 1)
    return _rep(
        row,
        PIP_X1,
        values={"n08_published": measured, "payload_mib": payload},
        explanation=f"4 B x {sizes.entries:,} / 2^20 = {4 * sizes.entries / 2**20:.2f} MiB; the "
        f"payload is 2 B per value = {payload:.2f} MiB and the whole structure {model:.2f} MiB "
        f"({split}), which the PIP measured as {measured} MiB (N08).",
    )


@reproduces("N09")
def pip393_x50(row: PublishedNumber) -> Reproduction:
    return _rep(
        row,
        PIP_X50,
        explanation=f"twice the {8192 / 50_000:.3f} theory, as the PIP found: a "
        f"{PIP_X50.messages_per_bucket:,.0f}-entry bucket spans two ledgers, so most bitmaps "
        "hold well under 50,000 entries yet cost a full 8 KiB",
    )


@reproduces("N10")
def pip393_x500(row: PublishedNumber) -> Reproduction:
    return _rep(row, PIP_X500)


@reproduces("N14", "N15", "N16", "N17")
def blog_heap_sizes(row: PublishedNumber) -> Reproduction:
    x_y = {"N14": (1, 10), "N15": (4, 10), "N16": (8, 10), "N17": (8, 15)}[row.id]
    run = BLOG[x_y]
    if row.id != "N17":
        explanation = ""
        if row.id == "N14":
            sizes = measure(run)
            explanation = (
                f"{sizes.buckets:,} buckets of {run.messages_per_bucket:,.0f} entries: objects "
                "per bucket dominate over the 2 B/value payload (the blog attributes the "
                "excess to 'Long2ObjectSortedMap etc.')"
            )
        return _rep(row, run, explanation=explanation)
    real = N17_REAL_JVM_BYTES / (row.unit_bytes or 1)
    sizes = measure(run)
    published = float(row.published)
    return _rep(
        row,
        run,
        values={"real_jvm_mib": real, "real_jvm_bytes": N17_REAL_JVM_BYTES},
        explanation=f"measured: {N17_REAL_JVM_BYTES:,} B = {real:.4f} MiB, the deep size "
        "(Instrumentation agent, JOL's totalSize) of "
        "Long2ObjectAVLTreeMap<Long2ObjectAVLTreeMap<Roaring64Bitmap>> built in OpenJDK "
        "17.0.15 by 10,000,000 addLong at x=8 msg/ms, y=15 bits, 50,000 entries/ledger "
        "(jvm-check case timebuckets-blog-x8-y15; tests/jvmcheck asserts it). The layout "
        f"model gives the same bytes: {sizes.buckets} buckets, {sizes.bitmaps} bitmaps "
        f"({sizes.bitset_containers} 8 KiB bitsets, {sizes.array_containers} arrays). The "
        f"blog's jmap figure is {published - real:.2f} MiB ({published / real - 1:.0%}) above what the "
        "structure holds; what jmap counted besides it is not recoverable from the seed.",
    )


@reproduces("N18")
def blog_small_regime(row: PublishedNumber) -> Reproduction:
    run = BLOG[(1, 10)]
    sizes = measure(run)
    held = sizes.per_entry("jvm_bytes")
    overhead = (sizes.jvm_bytes - 2 * sizes.entries) / sizes.buckets
    return _rep(
        row,
        run,
        values={"m": run.messages_per_bucket, "overhead_per_bucket_bytes": overhead},
        explanation="2 B per value is the array payload alone; each "
        f"{run.messages_per_bucket:,.0f}-entry bucket also carries {overhead:,.0f} B of Java "
        f"objects and array capacity slack, {held:.2f} B/entry in all.",
    )


@reproduces("N19")
def blog_one_bit_bound(row: PublishedNumber) -> Reproduction:
    runs = measure(BLOG_RUNS).per_entry("jvm_bytes")
    rep = _rep(
        row,
        BLOG_RUNS,
        values={"times_below": 0.125 / runs},
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
