"""Cost estimates of ``trackerlab size`` and ``trackerlab simulate`` for the cost guard.

:func:`trackerlab.core.budget.check` refuses, before any work, a run whose estimate exceeds the
machine. The constants below are marginal costs measured with ``/usr/bin/time`` on the
project machine (2 cores, shared, uniform 0-60 s delays; peak RSS and wall time between two
sizes of the same run, e.g. 4e5 -> 3e6 -> 1e7 messages), rounded up: estimates err on the
large side. A design not listed gets the most expensive class.
"""

from __future__ import annotations

from trackerlab.core.budget import Estimate

BASE_SECONDS = 5.0
BASE_BYTES = 250 << 20

#: ``trackerlab size DESIGN``: (microseconds, bytes held) per message. Bitmap indexes stream
#: their messages in chunks (4.6-11.5 B/msg measured from 3e6 to 1e7); the heap and the
#: maps first collect one row per entry (128-237 B/msg); the Python-object layouts keep a
#: Python object per entry (measured from 1e5 to 4e5).
SIZE_COSTS: dict[str, tuple[float, float]] = {
    "nack-time-buckets": (1.5, 12),
    "nack-time-buckets-runs": (1.5, 12),
    "time-buckets": (1.5, 12),
    "time-buckets-runs": (1.5, 12),
    "time-buckets-flat": (1.5, 12),
    "triple-heap": (2.0, 130),
    "nack-pair-map": (3.0, 240),
    "nack-pair-map-16": (3.0, 240),
    "pending-acks-pair-hash": (3.0, 240),
    "pending-acks-open-hash": (15.0, 330),
    "pending-acks-open-hash-bitset": (10.0, 330),
    "pending-acks-packed-rb": (25.0, 450),
    "pending-acks-packed-avl": (35.0, 450),
    "pending-acks-treemap": (50.0, 520),
    "nack-hash-map": (60.0, 800),
}
DEFAULT_SIZE_COST = (60.0, 800.0)

#: ``simulate receiver-queue``: 1.2e6 messages (60 s at 20,000 msg/s) took 28-34 s on the
#: loaded machine; each sampled row and each Poisson gap is kept.
RECEIVER_QUEUE_US_PER_MESSAGE = 30.0
RECEIVER_QUEUE_BYTES_PER_MESSAGE = 48.0
BYTES_PER_SAMPLE = 400.0

#: ``simulate delayed``: the sampled buckets' content grows with the rate (0.1 day: 1e6
#: msg/s 10.6 s, 1e7 13.5 s, 1e8 46 s; 1 day at 1e7: 42 s; 1e10 msg/s: 2.2 GB at 0.1 day).
DELAYED_SECONDS_PER_RATE_DAY = 4e-6
DELAYED_BYTES_PER_RATE = 0.25


def size_estimate(design: str, messages: int) -> Estimate:
    """``trackerlab size DESIGN --messages N``."""
    us, held = SIZE_COSTS.get(design, DEFAULT_SIZE_COST)
    return Estimate(
        f"size {design} of {messages:,} messages",
        BASE_SECONDS + messages * us / 1e6,
        BASE_BYTES + messages * held,
    )


def receiver_queue_estimate(
    rate_per_s: float, duration_s: float, partitions: int, sample_ms: float
) -> Estimate:
    """``simulate receiver-queue``: messages = rate x duration (the producer matches the
    rate), rows = duration / sample period."""
    messages = rate_per_s * duration_s
    samples = duration_s * 1000.0 / sample_ms * max(partitions, 1)
    return Estimate(
        f"simulate receiver-queue ({messages:,.0f} messages, {samples:,.0f} samples)",
        BASE_SECONDS + messages * RECEIVER_QUEUE_US_PER_MESSAGE / 1e6,
        BASE_BYTES + messages * RECEIVER_QUEUE_BYTES_PER_MESSAGE + samples * BYTES_PER_SAMPLE,
    )


def delayed_estimate(rate_per_s: float, days: float) -> Estimate:
    """``simulate delayed``: time-stepped, but the content of its sampled time buckets grows
    with the rate."""
    return Estimate(
        f"simulate delayed ({rate_per_s:,.0f} msg/s over {days:g} days)",
        BASE_SECONDS + DELAYED_SECONDS_PER_RATE_DAY * rate_per_s * max(days, 0.1),
        BASE_BYTES + DELAYED_BYTES_PER_RATE * rate_per_s * max(days, 1.0),
    )
