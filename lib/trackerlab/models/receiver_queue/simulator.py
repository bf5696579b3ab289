"""Auto-scaled consumer receiver queue (PIP-74): a deterministic discrete-event simulator.

:func:`simulate` runs one :class:`~trackerlab.models.receiver_queue.config.ReceiverQueueConfig`
through the event loop of :mod:`trackerlab.models.receiver_queue.engine` (the chain and the
harness choices are described in :mod:`trackerlab.models.receiver_queue.config`).
"""

from __future__ import annotations

from trackerlab.models.receiver_queue.config import (
    CLIENTS,
    ReceiverQueueConfig,
    ReceiverQueueResult,
    producer_schedule,
)
from trackerlab.models.receiver_queue.engine import Engine

__all__ = ["CLIENTS", "ReceiverQueueConfig", "ReceiverQueueResult", "simulate"]


def simulate(cfg: ReceiverQueueConfig) -> ReceiverQueueResult:
    """Run one simulation. Deterministic for a given config (``seed`` included).

    Cost: O(messages) with a small constant (a lean per-message loop between coarse
    events); see :mod:`trackerlab.models.receiver_queue.engine`.
    """
    cfg = cfg.validated()
    return Engine(cfg, producer_schedule(cfg)).run()
