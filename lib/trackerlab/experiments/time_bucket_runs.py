"""Build time-bucket indexes for a workload and size them in the three columns.

Shared by ``trackerlab reproduce`` (N04–N10, N14–N19), ``trackerlab size``, the
negative-ack and delayed-delivery notebooks and the benchmark, so a number is computed
one way everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from trackerlab.models.delayed_bucket_tracker import precision_bits_for_tick
from trackerlab.models.time_bucket_sizing import (
    jvm_bytes,
    per_bitmap_overhead,
    per_bucket_overhead,
)
from trackerlab.models.time_buckets import TimeBucketIndex, trim_lower_bits
from trackerlab.sizing import theory
from trackerlab.sizing.jvm import LAYOUTS
from trackerlab.sizing.python import python_real_bytes
from trackerlab.sizing.registry import SizeRequest, SizeResult, structure
from trackerlab.workloads import DelaySpec, PatternSpec, Workload


@dataclass(frozen=True)
class BucketRun:
    """One experiment: ``messages`` at ``rate_per_ms`` (x), ``trim_bits`` (y), keyed by
    ``publish + delay``; ``shape`` is the Java declaration sized (see time_bucket_sizing)."""

    messages: int
    rate_per_ms: float
    trim_bits: int
    entries_per_ledger: int = 50_000
    delay: str = "fixed:0"
    pattern: str = "all"
    batch_size: int = 1
    shape: str = "avl-openhash"
    run_optimize: bool = False
    layout: str = "compressed"
    seed: int = 0
    #: the published theory column: "pip393" (seed 000) or "timebucket" (seed 001)
    formula: str = "pip393"
    #: delayed delivery: messages due within one tick are dispatched at once, not tracked
    tick_ms: int | None = None

    def workload(self) -> Workload:
        return Workload(
            messages=self.messages,
            rate_per_ms=self.rate_per_ms,
            entries_per_ledger=self.entries_per_ledger,
            batch_size=self.batch_size,
            delay=DelaySpec.parse(self.delay),
            pattern=PatternSpec.parse(self.pattern),
            seed=self.seed,
        )

    @property
    def messages_per_bucket(self) -> float:
        """M = x · 2^y (the seeds' notation, corrected reading)."""
        return theory.pip393_messages_per_bucket(self.rate_per_ms, self.trim_bits)


@dataclass(frozen=True)
class BucketSizes:
    """The three columns for one run, in bytes (per-entry values divide by ``entries``)."""

    entries: int
    buckets: int
    bitmaps: int
    python_bytes: int
    jvm_bytes: int
    theory_published_bytes: float
    theory_corrected_bytes: float
    array_containers: int
    bitset_containers: int
    run_containers: int

    def per_entry(self, column: str) -> float:
        return getattr(self, column) / self.entries if self.entries else 0.0


def build_index(run: BucketRun) -> TimeBucketIndex:
    """Stream the workload into a new index (bulk path) and seal it."""
    index = TimeBucketIndex(run.trim_bits, "open-hash", run.run_optimize)
    for chunk in run.workload().chunks():
        ledger, entry, deliver_at = chunk.ledger, chunk.entry, chunk.deliver_at
        if run.tick_ms is not None:  # addMessage: deliverAt <= now + tick is dispatched at once
            keep = chunk.delay_ms > run.tick_ms
            ledger, entry, deliver_at = ledger[keep], entry[keep], deliver_at[keep]
        index.add_arrays(trim_lower_bits(deliver_at, run.trim_bits), ledger, entry)
    index.seal()
    return index


def published_bytes_per_entry(run: BucketRun) -> float:
    """The seed's own formula for M = x · 2^y, with the seed's assumption of 50,000 entries
    per ledger whatever the run uses (PIP-393 predicts 3.81 MB for its 1000-entry ledgers)."""
    m = run.messages_per_bucket
    if run.formula == "timebucket":
        return theory.timebucket_bytes_per_entry(m)
    return theory.pip393_bytes_per_entry(m)


@lru_cache(maxsize=32)
def measure(run: BucketRun, python: bool = True) -> BucketSizes:
    """Build ``run`` and size it; cached per run within a process."""
    index = build_index(run)
    stats = index.stats()
    layout = LAYOUTS[run.layout]
    m = run.messages_per_bucket
    corrected = theory.corrected_bucket_bytes_per_entry(
        m,
        run.entries_per_ledger,
        per_bucket_overhead(run.shape, layout),
        per_bitmap_overhead(layout),
        run.run_optimize,
    )
    return BucketSizes(
        entries=stats.entries,
        buckets=stats.buckets,
        bitmaps=stats.bitmaps,
        python_bytes=python_real_bytes(index.buckets) if python else 0,
        jvm_bytes=jvm_bytes(index, run.shape, layout),
        theory_published_bytes=published_bytes_per_entry(run) * stats.entries,
        theory_corrected_bytes=corrected * stats.entries,
        array_containers=stats.array_containers,
        bitset_containers=stats.bitset_containers,
        run_containers=stats.run_containers,
    )


# --------------------------------------------------------------------------- trackerlab size


def _size_result(name: str, run: BucketRun) -> SizeResult:
    sizes = measure(run)
    return SizeResult(
        structure=name,
        entries=sizes.entries,
        python_bytes=sizes.python_bytes,
        jvm_bytes=sizes.jvm_bytes,
        theory_bytes=sizes.theory_published_bytes,
        theory_corrected_bytes=sizes.theory_corrected_bytes,
        details={
            "messages_per_bucket": run.messages_per_bucket,
            "buckets": sizes.buckets,
            "bitmaps": sizes.bitmaps,
            "containers": f"{sizes.array_containers} array, {sizes.bitset_containers} bitset, "
            f"{sizes.run_containers} run",
            "java_shape": run.shape,
        },
    )


_USES = (
    "messages",
    "rate_per_ms",
    "entries_per_ledger",
    "batch_size",
    "delay",
    "pattern",
    "seed",
    "layout",
    "run_optimize",
)


def _run_for(req: SizeRequest, trim_bits: int, formula: str, tick_ms: int | None) -> BucketRun:
    return BucketRun(
        messages=req.messages,
        rate_per_ms=req.rate_per_ms,
        trim_bits=trim_bits,
        entries_per_ledger=req.entries_per_ledger,
        delay=req.delay,
        pattern=req.pattern,
        batch_size=req.batch_size,
        run_optimize=req.run_optimize,
        layout=req.layout,
        seed=req.seed,
        formula=formula,
        tick_ms=tick_ms,
    )


@structure(
    "nack-buckets",
    "PIP-393 NegativeAcksTracker: AVL -> open hash -> Roaring64Bitmap",
    (*_USES, "trim_bits"),
)
def _nack_buckets(req: SizeRequest) -> SizeResult:
    return _size_result("nack-buckets", _run_for(req, req.trim_bits, "pip393", None))


@structure(
    "delayed-buckets",
    "time-bucketed InMemoryDelayedDeliveryTracker (#23611): trim bits = floor(log2 tick)",
    (*_USES, "tick_ms"),
)
def _delayed_buckets(req: SizeRequest) -> SizeResult:
    bits = precision_bits_for_tick(req.tick_ms)
    return _size_result("delayed-buckets", _run_for(req, bits, "timebucket", req.tick_ms))
