"""Size what a Pulsar version runs: the release table (:mod:`trackerlab.models.pulsar_releases`) picks the
catalog design, its shape and variant, and the defaults; :func:`size_for_version` sizes it.

Variants a design's ``build`` does not take are applied here, from the model's own numbers:

- ``triple-heap`` ``v1`` (2.10.0–2.10.1): the single direct ``ByteBuf`` replaces the segmented
  queue's direct bytes (``details["v1_bytebuf_bytes"]`` of the same build);
- ``time-buckets`` ``a`` (4.0.1–4.0.5): ``addMessage`` streams ``values()`` of every map
  (``getNumberOfDelayedMessages``), so each map holds its cached ``values`` view: 16 B per
  bucket and one for the outer map, in ``jvm_bytes`` (measured on 4.0.1's own class);
- ``time-buckets`` ``a+counter`` (4.1.x, 4.2.x, #24430): the same index without the views
  until ``getBufferMemoryUsage()`` (the broker's stats) streams it (``metric_views_jvm_bytes``);
  the tracker holds one more object, the ``AtomicLong delayedMessagesCount`` (24 B,
  ``jvm-check`` case ``jdk-atomic-long-x2``), reported as ``counters_jvm_bytes``;
- ``time-buckets-long-bitmap`` (master) reports its two ``AtomicLong`` objects the same way.

``jvm_bytes`` stays the structure the design sizes (the index); ``counters_jvm_bytes`` is the
tracker's counter objects; the tracker object itself is in neither (its fields depend on the
abstract tracker class of each release, which was not read for every line).
"""

from __future__ import annotations

from dataclasses import replace

from trackerlab.catalog.designs import CATALOG
from trackerlab.core.errors import UsageError
from trackerlab.models import pulsar_releases
from trackerlab.sizing.jvm import JvmLayout
from trackerlab.sizing.jvm_long_bitmap import atomic_long
from trackerlab.sizing.request import SizeRequest, SizeResult

__all__ = ["TRACKER_ALIASES", "request_defaults", "size_for_version"]

#: Names ``trackerlab size`` accepts in place of a design -> tracker key of the table.
TRACKER_ALIASES = {
    "delayed": "delayed",
    "delayed-bucket": "delayed_bucket",
    "delayed-topic": "delayed_topic",
    "nack": "nack",
    "pending-acks": "pending_acks",
}
#: The nack precision a time-bucket design uses when the version has none (PIP-393's default).
PIP393_DEFAULT_BITS = 8


def request_defaults(release: pulsar_releases.Release) -> dict[str, int]:
    """``SizeRequest``/workload defaults of a release: tick, nack precision, ledger size."""
    bits = release.default("negativeAckPrecisionBitCnt")
    return {
        "tick_ms": int(release.default("delayedDeliveryTickTimeMillis")),
        "trim_bits": int(bits) if bits is not None else PIP393_DEFAULT_BITS,
        "entries_per_ledger": int(release.default("managedLedgerMaxEntriesPerLedger")),
    }


def size_for_version(
    tracker: str, release: pulsar_releases.Release, request: SizeRequest
) -> tuple[pulsar_releases.Choice, SizeResult | None]:
    """The choice the release makes for ``tracker`` and its size for ``request`` (None when the
    structure is absent, not modelled, or cannot be built from messages)."""
    choice = release.choice(tracker)
    design = choice.design
    if design is None or CATALOG[design].build is None:
        return choice, None
    request = replace(request, roaring=release.roaring_art)
    if choice.shape is not None and choice.shape in CATALOG[design].shapes:
        request = replace(request, shape=choice.shape)
    elif not CATALOG[design].shapes:
        request = replace(request, shape=None)
    result = CATALOG[design].build_size(request)
    return choice, annotate(result, choice, release, request)


def values_views_bytes(buckets: int, layout: JvmLayout) -> int:
    """The ``values()`` views a time-bucket index caches once a stream walks it: one per
    inner map and one for the outer map, each an object with its outer-map reference
    (fastutil's anonymous ``AbstractObjectCollection``). O(1)."""
    return (buckets + 1) * layout.instance("L") if buckets else 0


def annotate(
    result: SizeResult,
    choice: pulsar_releases.Choice | None,
    release: pulsar_releases.Release,
    request: SizeRequest,
) -> SizeResult:
    """Apply the choice's variant (None: a design sized as asked) and name the version in
    ``details``."""
    layout = request.jvm_layout
    result.details["pulsar_version"] = release.label
    if choice is None:
        return result
    if choice.variant == "v1":
        v1 = result.details.get("v1_bytebuf_bytes")
        if not isinstance(v1, int):
            raise UsageError(f"{release.label}: the single ByteBuf queue cannot hold it ({v1})")
        result.details["v2_segmented_bytes"] = result.jvm_direct_bytes
        result.jvm_direct_bytes = v1
    if choice.variant in ("a", "a+counter"):
        views = values_views_bytes(int(result.details.get("buckets", 0)), layout)
        if choice.variant == "a":
            # getNumberOfDelayedMessages() streams values() of every map on each addMessage:
            # each map caches its values view from its first add (4.0.1 measured)
            result.jvm_bytes = (result.jvm_bytes or 0) + views
            result.details["values_views_jvm_bytes"] = views
            result.details["counters_jvm_bytes"] = 0
        else:
            # the AtomicLong count spares the adds; getBufferMemoryUsage() (the broker's stats)
            # still streams values(), after which the views stay (4.2.4 measured)
            result.details["metric_views_jvm_bytes"] = views
            result.details["counters_jvm_bytes"] = atomic_long(layout)
    if choice.variant == "ids-map":
        # 4.2's NegativeAcksTracker also holds nackedMessageIds, empty for untraced, unchunked ids
        from trackerlab.models.nack.pip393_tracker import ids_map_bytes

        ids = ids_map_bytes(choice.variant, layout)
        result.jvm_bytes = (result.jvm_bytes or 0) + ids
        result.details["ids_map_jvm_bytes"] = ids
    result.details["pulsar_java"] = choice.java
    return result


def version_note(design: str, release: pulsar_releases.Release) -> str | None:
    """One line when ``release`` does not run ``design`` for its tracker, else None."""
    tracker = CATALOG[design].tracker
    keys = [k for k, c in release.choices.items() if c.design == design]
    if keys:
        return None
    runs = [
        f"{c.design or 'nothing modelled'} ({k})"
        for k, c in release.choices.items()
        if k in ("delayed", "nack", "pending_acks") and _tracker_of(k) == tracker.name
    ]
    if not runs:
        return f"{release.label} does not run {design}"
    return f"{release.label} runs {', '.join(runs)}, not {design}; sized as asked"


def _tracker_of(key: str) -> str:
    from trackerlab.models.design import DELAYED, NACK, PENDING_ACKS

    return {"delayed": DELAYED, "nack": NACK, "pending_acks": PENDING_ACKS}[key].name
