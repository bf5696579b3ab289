"""Proposal ``time-buckets-sealed``: ``time-buckets-flat`` plus ``runOptimize()`` on each bucket
when it seals, under a fixed-delay policy.

A bucket *seals* when no message can be added to it any more. In general a tracker cannot know
that before the bucket is due (a message with a short delay may still arrive). Under a fixed
delay it can: with PIP-437's topic policy ``fixedDelayedDeliveryTimeMs`` (or any stream whose
delays are all equal) every message added at ``now`` has ``deliverAt = now + d``, so a bucket is
sealed as soon as ``now + d`` passes its end::

    // in addMessage, after the add: buckets ending at or before now + d are complete
    for (RoaringBitmap b : delayed.subMap(sealedBefore, trimLowerBit(now + d, bits)).values()) {
        b.runOptimize();                      // once per bucket: O(its containers)
    }
    sealedBefore = trimLowerBit(now + d, bits);

Consecutive entry ids of one ledger, which a fixed delay puts in one bucket, become one run
container (4 B per run) instead of an array (2 B per id) or a bitset (8 KiB per 2^16 ids).

How it differs from ``time-buckets-runs``: that design sizes #23611's index with every bitmap
run-optimized at the moment of the snapshot, open buckets included, which no Pulsar code path
does and whose cost (``runOptimize`` on every bitmap, repeatedly, as buckets fill) it does not
count. Here the call is made once per bucket, at the moment it seals, on the flat 32-bit
bitmaps; buckets still open keep their array/bitset containers, and without a fixed delay
nothing is ever sealed before it is due (the design is then ``time-buckets-flat``). Sizes are
taken one tick after the last add (the newest bucket, at most ``2^bits`` ms of messages, has
sealed too; before that it is the only plain one).
"""

from __future__ import annotations

import numpy as np

import trackerlab.models.proposals.counts as counts
from trackerlab.models.design import DELAYED, Design, PointCounts
from trackerlab.models.proposals.flat_buckets import FlatBucketTracker, build
from trackerlab.sizing import jvm_collections as jc
from trackerlab.sizing.jvm import COMPRESSED, JvmLayout
from trackerlab.sizing.request import SizeRequest, SizeResult


class SealedBucketTracker(FlatBucketTracker):
    """Flat buckets; with ``fixed_delay_ms`` (the policy) buckets run-optimize as they seal."""

    def __init__(
        self, tick_ms: int = 1000, strict: bool = False, fixed_delay_ms: int | None = None
    ) -> None:
        super().__init__(tick_ms, strict)
        self.fixed_delay_ms = fixed_delay_ms
        self.sealed_before: int | None = None  # buckets below this key are run-optimized
        self.last_add_ms: int | None = None

    def _add(self, ledger: int, entry: int, deliver_at: int, now_ms: int) -> bool:
        if self.fixed_delay_ms is not None and deliver_at != now_ms + self.fixed_delay_ms:
            raise ValueError(
                f"the fixed-delay policy ({self.fixed_delay_ms} ms) needs deliverAt = now + "
                f"delay, got {deliver_at} at {now_ms}"
            )
        added = super()._add(ledger, entry, deliver_at, now_ms)
        self.last_add_ms = now_ms
        self.advance(now_ms)
        return added

    def _add_arrays(
        self, ledger: np.ndarray, entry: np.ndarray, deliver_at: np.ndarray, now: np.ndarray
    ) -> None:
        if self.fixed_delay_ms is not None and np.any(deliver_at != now + self.fixed_delay_ms):
            raise ValueError(f"the fixed-delay policy ({self.fixed_delay_ms} ms) was broken")
        super()._add_arrays(ledger, entry, deliver_at, now)
        self.last_add_ms = int(now.max())
        self.advance(self.last_add_ms)

    def advance(self, now_ms: int) -> None:
        """Seal (run-optimize) every bucket that ends at or before ``now + d``. O(buckets sealed)."""
        if self.fixed_delay_ms is None:
            return
        bound = int(self.bucket_of(now_ms + self.fixed_delay_ms))
        if self.sealed_before is None or bound > self.sealed_before:
            if self.cost is not None:  # runOptimize reads each newly sealed bucket once
                lo = self.sealed_before
                for key in self.buckets.irange(minimum=lo, maximum=bound, inclusive=(True, False)):
                    self.cost.stream(2 * len(self.buckets[key]))
            self.sealed_before = bound

    def is_sealed(self, key: int) -> bool:
        """The bucket at ``key`` has been run-optimized (no add can reach it). O(1)."""
        return self.sealed_before is not None and key < self.sealed_before

    def _clear(self) -> None:
        super()._clear()
        self.sealed_before = self.last_add_ms = None

    def jvm_bytes(self, layout: JvmLayout = COMPRESSED) -> int:
        """As flat buckets, sealed ones with ``runOptimize``'s run containers. O(values)."""
        keys = list(self.buckets)
        return (
            jc.fastutil_avl_tree_map(len(keys), layout=layout)
            + counts.roaring_bitmaps_bytes(
                [self.buckets[k] for k in keys], [self.is_sealed(k) for k in keys], layout
            )
            + self.slots.jvm_bytes(layout)
        )


def size_sealed_buckets(request: SizeRequest) -> SizeResult:
    """Built from the workload's messages, under the fixed-delay policy when every tracked
    message has the same delay; sized one tick after the last add. O(n log n)."""
    delays = [c.delay_ms[c.delay_ms > request.tick_ms] for c in request.workload.chunks()]
    tracked = np.concatenate(delays) if delays else np.zeros(0, dtype=np.int64)
    fixed = int(tracked[0]) if len(tracked) and tracked.min() == tracked.max() else None
    tracker = build(SealedBucketTracker(request.tick_ms, fixed_delay_ms=fixed), request)
    if tracker.last_add_ms is not None:
        tracker.advance(tracker.last_add_ms + request.tick_ms)
    sealed = sum(tracker.is_sealed(k) for k in tracker.buckets)
    return counts.built_result(
        "time-buckets-sealed",
        tracker,
        request,
        buckets=len(tracker.buckets),
        sealed_buckets=sealed,
        fixed_delay_ms=fixed,
    )


def sealed_from_counts(c: PointCounts, shape: str | None, layout: JvmLayout) -> SizeResult:
    """Under a fixed delay (tracked delays' min equals their max) every bucket is sealed one
    tick after the last add: the index's run-optimized containers; else flat buckets."""
    t = c.totals
    fixed = t["entries"] > 0 and t["delay_min"] == t["delay_max"]
    return counts.bitmap_buckets_result(
        "time-buckets-sealed", c, "runs" if fixed else "plain", layout
    )


DESIGN = Design(
    tracker=DELAYED,
    summary="proposal: time-buckets-flat + runOptimize() once per bucket when it seals "
    "(fixed-delay policy)",
    java="Long2ObjectAVLTreeMap<RoaringBitmap> + slot table; runOptimize() on seal",
    source="lib/trackerlab/models/proposals/sealed_buckets.py",
    prs=(),
    releases="proposal",
    memory="heap",
    options=("tick_ms", "layout"),
    build=size_sealed_buckets,
    from_counts=sealed_from_counts,
    columns=("python", "jvm"),
    proposal=True,
)
