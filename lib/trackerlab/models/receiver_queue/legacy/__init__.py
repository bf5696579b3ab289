"""The first receiver-queue simulator, kept only as the baseline of ``trackerlab bench
receiver-queue``.

It routed round-robin, published one message per entry, and stood for the whole harness
with a fitted 20 ms refill latency and a per-message event loop (about 9-10 s for 60 s at
20,000 msg/s). The Go and Java rules it runs are the shared ones of
:mod:`trackerlab.models.receiver_queue.go` and :mod:`~trackerlab.models.receiver_queue.java`;
the harness is superseded by :mod:`trackerlab.models.receiver_queue.harness`, which models
it from the code. Nothing but the benchmark and its own tests uses this package.
"""

from trackerlab.models.receiver_queue.legacy.config import (
    ReceiverQueueConfig,
    ReceiverQueueResult,
    producer_schedule,
)
from trackerlab.models.receiver_queue.legacy.engine import Engine

#: The timing the first simulator fitted on the 12 published rows (go: 20 ms refill;
#: java: 15 ms), which its benchmark cases used.
FITTED_TIMING = {
    "go": {"refill_latency_ms": 20.0, "dispatch_ms": 0.02, "app_wakeup_us": 100.0},
    "java": {"refill_latency_ms": 15.0, "dispatch_ms": 0.02, "app_wakeup_us": 100.0},
}

__all__ = [
    "FITTED_TIMING",
    "ReceiverQueueConfig",
    "ReceiverQueueResult",
    "simulate_legacy",
]


def simulate_legacy(cfg: ReceiverQueueConfig) -> ReceiverQueueResult:
    """Run the first simulator (per-message engine, O(messages) Python steps)."""
    cfg = cfg.validated()
    return Engine(cfg, producer_schedule(cfg)).run()
