"""The broker's own view of a subscription: the admin REST API's topic stats.

``GET /admin/v2/persistent/public/default/<topic>/stats`` (``TopicStatsImpl`` /
``SubscriptionStatsImpl`` in pulsar-common): per subscription ``msgBacklog``, ``msgDelayed``,
``unackedMessages``, ``delayedMessageIndexSizeInBytes`` (2.11+, #15867: the tracker's
``getBufferMemoryUsage()``) and its consumers' ``availablePermits``. A field a release lacks
is None. Calling it makes the broker run ``getBufferMemoryUsage()`` (4.2's time buckets then
cache a ``values()`` view per map).
"""

from __future__ import annotations

import json
import urllib.request
from dataclasses import dataclass

__all__ = ["SubscriptionStats", "subscription_stats"]


@dataclass(frozen=True)
class SubscriptionStats:
    """One subscription's counts as the broker reports them."""

    msg_backlog: int | None
    msg_delayed: int | None
    unacked: int | None
    delayed_index_bytes: int | None  # delayedMessageIndexSizeInBytes
    available_permits: int | None  # summed over the consumers
    consumers: int


def _int(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def subscription_stats(
    admin_url: str, topic: str, timeout_s: float = 30.0
) -> dict[str, SubscriptionStats]:
    """Every subscription of ``persistent://public/default/<topic>`` by name. ``topic`` is the
    local name. Never through a proxy."""
    url = f"{admin_url}/persistent/public/default/{topic}/stats"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=timeout_s) as reply:
        data = json.loads(reply.read())
    out = {}
    for name, sub in (data.get("subscriptions") or {}).items():
        consumers = sub.get("consumers") or []
        permits = [_int(c.get("availablePermits")) for c in consumers]
        out[name] = SubscriptionStats(
            msg_backlog=_int(sub.get("msgBacklog")),
            msg_delayed=_int(sub.get("msgDelayed")),
            unacked=_int(sub.get("unackedMessages")),
            delayed_index_bytes=_int(sub.get("delayedMessageIndexSizeInBytes")),
            available_permits=sum(p for p in permits if p is not None) if consumers else None,
            consumers=len(consumers),
        )
    return out
