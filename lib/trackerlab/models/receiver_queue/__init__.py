"""The consumer's auto-scaled receiver queue (PIP-74): Go and Java client rules, the
harness around them, and a discrete-event simulator."""

from trackerlab.models.receiver_queue.config import (
    CLIENTS,
    ReceiverQueueConfig,
    ReceiverQueueResult,
)
from trackerlab.models.receiver_queue.simulator import simulate

__all__ = ["CLIENTS", "ReceiverQueueConfig", "ReceiverQueueResult", "simulate"]
