"""The consumer's auto-scaled receiver queue (PIP-74): Go and Java client rules, the
``pulsar-perf`` harness around them modelled from the code, and its event simulator."""

from trackerlab.models.receiver_queue.harness import (
    CLIENTS,
    OPEN_PARAMETERS,
    HarnessConfig,
    HarnessResult,
)
from trackerlab.models.receiver_queue.simulator import produce, simulate

__all__ = ["CLIENTS", "OPEN_PARAMETERS", "HarnessConfig", "HarnessResult", "produce", "simulate"]
