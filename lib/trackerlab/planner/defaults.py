"""Pulsar's own defaults and designs for the release a plan assumes.

Every value comes from the release table (:mod:`trackerlab.models.pulsar_releases`, the YAML
``data/pulsar_releases.yaml`` with each fact's evidence and source), except the three settings
the table does not hold, which name their Pulsar setting and source here. The planner asks
only :func:`defaults_for`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from trackerlab.models import pulsar_releases

#: ``managedLedgerMaxSizePerLedgerMbytes`` = 2048 (ServiceConfiguration.java; the same in every
#: line the table covers: spec pulsar-structures.md §5).
LEDGER_MAX_BYTES = 2048 * 1024 * 1024
#: ``acknowledgementsGroupTimeMicros`` = 100 ms (ConsumerConfigurationData.java).
ACK_GROUP_MS = 100.0
#: PIP-393's ``negativeAckPrecisionBitCnt`` default, used to size the PIP-393 rows of a release
#: that has no such setting (before 4.0.2): the plan says it was not the release's own.
PIP393_PRECISION_BITS = 8


@dataclass(frozen=True)
class PulsarDefaults:
    """What a plan assumes when the user does not say, with the release it comes from."""

    version: str
    tick_ms: int
    #: ``negativeAckPrecisionBitCnt``; PIP-393's 8 when the release has no such setting
    nack_precision_bits: int
    #: False when the release has no ``negativeAckPrecisionBitCnt`` (before 4.0.2)
    has_nack_precision: bool
    nack_delay_ms: float
    entries_per_ledger: int
    ledger_min_rollover_ms: float
    ledger_max_rollover_ms: float
    receiver_queue: int
    max_unacked_per_consumer: int
    #: ``delayedDeliveryFixedDelayDetectionLookahead``; 0 where the release has none
    fixed_delay_lookahead: int
    memory_limit_bytes: int
    #: the catalog design each tracker runs in this release (None: not modelled)
    nack_design: str | None
    delayed_design: str | None
    pending_acks_design: str | None
    #: PIP-195's opt-in bucket tracker when the release has it (3.0+), else None
    bucket_design: str | None = None
    #: the Java shape of the release's time-bucket designs (None: the design's first)
    nack_shape: str | None = None
    #: the nack design's variant (``ids-map``: 4.2's empty ``nackedMessageIds`` beside it)
    nack_variant: str | None = None
    delayed_shape: str | None = None
    #: the delayed design's variant (``a``: 4.0.1-4.0.5, whose adds cache values views)
    delayed_variant: str | None = None
    #: when the release's own time-bucket index hands a bucket out (``Choice.due``): None, its
    #: key is due; ``whole-bucket``, its last ms is due (4.2.4, issue #25996)
    delayed_due: str | None = None
    #: the RoaringBitmap ART generation of the release's jar (``JvmLayout.roaring_art``)
    roaring_art: str = "1.6"
    ledger_max_bytes: int = LEDGER_MAX_BYTES
    ack_group_ms: float = ACK_GROUP_MS


@functools.lru_cache(maxsize=256)
def defaults_for(version: str | None) -> PulsarDefaults:
    """The defaults of ``version`` (a line ``4.2.x``, a minor ``4.2``, a patch ``4.0.7`` or
    ``master``; None: the newest release). Unknown: a one-line UsageError listing the lines.
    Cached: the release table is read once per version (a fleet parses thousands of rows)."""
    rel = pulsar_releases.resolve(None if version is None else str(version).strip())
    knob = rel.default
    bits = knob("negativeAckPrecisionBitCnt")
    return PulsarDefaults(
        version=rel.label,
        tick_ms=int(knob("delayedDeliveryTickTimeMillis")),
        nack_precision_bits=PIP393_PRECISION_BITS if bits is None else int(bits),
        has_nack_precision=bits is not None,
        nack_delay_ms=float(knob("negativeAckRedeliveryDelay_ms")),
        entries_per_ledger=int(knob("managedLedgerMaxEntriesPerLedger")),
        ledger_min_rollover_ms=knob("managedLedgerMinLedgerRolloverTimeMinutes") * 60_000.0,
        ledger_max_rollover_ms=knob("managedLedgerMaxLedgerRolloverTimeMinutes") * 60_000.0,
        receiver_queue=int(knob("receiverQueueSize")),
        max_unacked_per_consumer=int(knob("maxUnackedMessagesPerConsumer")),
        fixed_delay_lookahead=int(knob("delayedDeliveryFixedDelayDetectionLookahead") or 0),
        memory_limit_bytes=int(knob("memoryLimitBytes")),
        nack_design=rel.design("nack"),
        delayed_design=rel.design("delayed"),
        pending_acks_design=rel.design("pending_acks"),
        bucket_design=rel.design("delayed_bucket"),
        nack_shape=rel.choice("nack").shape,
        nack_variant=rel.choice("nack").variant,
        delayed_shape=rel.choice("delayed").shape,
        delayed_variant=rel.choice("delayed").variant,
        delayed_due=rel.choice("delayed").due,
        roaring_art=rel.roaring_art,
    )
