"""The precision each design pays: how much earlier (or later) than asked a message comes back.

Delayed index (``AbstractDelayedDeliveryTracker``, non-strict mode: ``cutoff = now + tick``):

- ``triple-heap`` hands a message out once ``deliverAt <= now + tick``: up to one tick early;
- ``time-buckets`` (variant a, #23611 as released: keys floored to ``2^bits`` ms,
  ``bits = floor(log2 tick)``, a bucket is due when its key ``<= now + tick``): up to
  ``tick + 2^bits - 1`` ms early (spec pulsar-structures.md §3.5; issue #25996); the
  proposals keyed the same way pay the same. 4.2.4's index (``whole_bucket``: a bucket is due
  when its last ms ``<= now + tick``, ``getBucketCutoffTime``) is one tick early at most;
- ``pip195-buckets``: the shared queue holds exact ``deliverAt`` values: one tick, as the heap.

Negative-ack tracker:

- PIP-393 (``nack-time-buckets``): keys floored to ``2^bits`` ms and redelivered when the key
  is ``<= now``: up to ``2^bits - 1`` ms early, never late beyond timer jitter (§1.4);
- versions A and B (``nack-hash-map``, ``nack-pair-map``): a full scan every
  ``delay / 3`` redelivers entries whose time has passed: never early, up to ``delay / 3``
  late (``timerIntervalNanos = nackDelayNanos / 3``, §1.2–1.3).
"""

from __future__ import annotations

#: Designs keyed by floored time buckets whose due rule adds the tick.
_BUCKETED_DELAYED = ("time-buckets", "time-buckets-runs", "time-buckets-flat")


def early_ms(design: str, tick_ms: int, bits: int, whole_bucket: bool = False) -> float | None:
    """The largest early delivery of ``design`` (ms), or None when the planner does not know.
    ``whole_bucket``: the index hands a bucket out once its last ms is due (4.2.4). O(1)."""
    width = (1 << bits) - 1
    if design in _BUCKETED_DELAYED or (design.startswith("time-buckets") and bits >= 0):
        return float(tick_ms if whole_bucket else tick_ms + width)
    if design in ("triple-heap", "pip195-buckets", "delay-level-topics"):
        return float(tick_ms)
    if design.startswith("nack-time-buckets"):
        return float(width)
    if design in ("nack-hash-map", "nack-pair-map", "nack-pair-map-16"):
        return 0.0
    return None


def late_ms(design: str, nack_delay_ms: float) -> float:
    """How late a design may redeliver a nack, by its own rules (not timer jitter)."""
    if design in ("nack-hash-map", "nack-pair-map", "nack-pair-map-16"):
        return nack_delay_ms / 3
    return 0.0
