"""Build time-bucket indexes for a workload and size them in the three columns.

The index is shared by PIP-393's nack tracker and the time-bucketed delayed tracker. A run
with a tick goes through the delayed tracker's own ``addMessage`` (its tick cutoff), hence
this module's place beside it; a run without one indexes every message, as PIP-393's test
loop did. Shared by ``trackerlab reproduce`` (N04–N10, N14–N19), ``trackerlab size``, the
negative-ack and delayed-delivery notebooks and the benchmark, so a number is computed one
way everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TypedDict, Unpack

from trackerlab.models.delayed.bucketed_tracker import BucketDelayedTracker, precision_bits_for_tick
from trackerlab.models.time_buckets.shapes import (
    jvm_bytes,
    per_bitmap_overhead,
    per_bucket_overhead,
)
from trackerlab.models.time_buckets.time_bucket_index import TimeBucketIndex, trim_lower_bits
from trackerlab.sizing import theory
from trackerlab.sizing.jvm import LAYOUTS
from trackerlab.sizing.python import python_real_bytes
from trackerlab.sizing.request import SizeResult
from trackerlab.workloads.stream import Workload


class BucketRunOptions(TypedDict, total=False):
    """The optional :class:`BucketRun` fields :meth:`BucketRun.delayed` passes through."""

    shape: str
    run_optimize: bool
    layout: str
    roaring: str
    formula: str


@dataclass(frozen=True)
class BucketRun:
    """One experiment: a workload's messages keyed by ``publish + delay`` in buckets of
    ``2^trim_bits`` ms (x = ``workload.rate_per_ms``, y = ``trim_bits`` in the seeds);
    ``shape`` is the Java declaration sized (:mod:`trackerlab.models.time_buckets.shapes`).

    With ``tick_ms`` the run is the delayed tracker's: messages go through
    :meth:`BucketDelayedTracker.add_chunk <trackerlab.models.delayed.bucketed_tracker.BucketDelayedTracker.add_chunk>`,
    so those due within one tick are dispatched, not tracked, and ``trim_bits`` must be the
    tracker's ``floor(log2 tick)``. Without it every message is indexed (PIP-393's test loop).
    """

    workload: Workload
    trim_bits: int
    shape: str = "avl-openhash"
    run_optimize: bool = False
    layout: str = "compressed"
    #: RoaringBitmap ART generation of the release (``JvmLayout.roaring_art``)
    roaring: str = "1.6"
    #: the published theory column: "pip393" (seed 000) or "timebucket" (seed 001)
    formula: str = "pip393"
    tick_ms: int | None = None

    def __post_init__(self) -> None:
        if self.tick_ms is not None and self.trim_bits != precision_bits_for_tick(self.tick_ms):
            raise ValueError(
                f"a delayed run with tick {self.tick_ms} ms uses "
                f"{precision_bits_for_tick(self.tick_ms)} trim bits, got {self.trim_bits}"
            )

    @classmethod
    def delayed(
        cls, workload: Workload, tick_ms: int, **options: Unpack[BucketRunOptions]
    ) -> BucketRun:
        """The time-bucketed delayed tracker's run at ``tick_ms`` (no Java method). O(1)."""
        return cls(workload, precision_bits_for_tick(tick_ms), tick_ms=tick_ms, **options)

    @property
    def messages_per_bucket(self) -> float:
        """M = x · 2^y (the seeds' notation, corrected reading). O(1)."""
        return theory.pip393_messages_per_bucket(self.workload.rate_per_ms, self.trim_bits)


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
        """``column`` divided by the entries (0 when empty). O(1)."""
        return getattr(self, column) / self.entries if self.entries else 0.0


def build_index(run: BucketRun) -> TimeBucketIndex:
    """Stream the workload into a new index (bulk path) and seal it. O(messages)."""
    if run.tick_ms is not None:
        tracker = BucketDelayedTracker(run.tick_ms, run_optimize=run.run_optimize)
        for chunk in run.workload.chunks():
            tracker.add_chunk(chunk)
        index = tracker.index
    else:
        index = TimeBucketIndex(run.trim_bits, "open-hash", run.run_optimize)
        for chunk in run.workload.chunks():
            index.add_arrays(
                trim_lower_bits(chunk.deliver_at, run.trim_bits), chunk.ledger, chunk.entry
            )
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
    layout = replace(LAYOUTS[run.layout], roaring_art=run.roaring)
    m = run.messages_per_bucket
    corrected = theory.corrected_bucket_bytes_per_entry(
        m,
        run.workload.entries_per_ledger,
        per_bucket_overhead(run.shape, layout),
        per_bitmap_overhead(layout),
        run.run_optimize,
    )
    return BucketSizes(
        entries=stats.entries,
        buckets=stats.buckets,
        bitmaps=stats.bitmaps,
        python_bytes=python_real_bytes(index.buckets, exact=False) if python else 0,
        jvm_bytes=jvm_bytes(index, run.shape, layout),
        theory_published_bytes=published_bytes_per_entry(run) * stats.entries,
        theory_corrected_bytes=corrected * stats.entries,
        array_containers=stats.array_containers,
        bitset_containers=stats.bitset_containers,
        run_containers=stats.run_containers,
    )


def size_result(name: str, run: BucketRun) -> SizeResult:
    """:func:`measure` as the three columns of ``trackerlab size``."""
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
