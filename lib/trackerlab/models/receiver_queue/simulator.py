"""Auto-scaled receiver queue (PIP-74) under the modelled ``pulsar-perf`` harness.

:func:`simulate` runs one :class:`~trackerlab.models.receiver_queue.harness.HarnessConfig`:
the Go perf producer's entries (:mod:`~trackerlab.models.receiver_queue.perf_producer`),
then the broker, client and application event loop
(:mod:`~trackerlab.models.receiver_queue.harness_engine`).
"""

from __future__ import annotations

from trackerlab.models.receiver_queue.harness import (
    CLIENTS,
    NS,
    OPEN_PARAMETERS,
    HarnessConfig,
    HarnessResult,
)
from trackerlab.models.receiver_queue.harness_engine import HarnessEngine
from trackerlab.models.receiver_queue.perf_producer import ProducerEntries, perf_producer

__all__ = ["CLIENTS", "OPEN_PARAMETERS", "HarnessConfig", "HarnessResult", "produce", "simulate"]


def produce(cfg: HarnessConfig) -> ProducerEntries:
    """The perf producer's batch entries for ``cfg`` (validated first)."""
    cfg = cfg.validated()
    return perf_producer(
        cfg.rate,
        cfg.partitions,
        cfg.duration_s * NS,
        cfg.message_bytes,
        cfg.producer_timing(),
        limiter=cfg.limiter,
        batching_delay_ms=cfg.batching_delay_ms,
        max_messages=cfg.batching_max_messages,
        max_bytes=cfg.batching_max_bytes,
        max_pending=cfg.max_pending_messages,
        batching=cfg.batching,
    )


def simulate(cfg: HarnessConfig) -> HarnessResult:
    """Run the modelled harness. Deterministic for a given config (``seed`` included).

    Cost: the producer loop (O(entries + router decisions)) and O(entries + Flows) heap
    events; independent of the message count.
    """
    return HarnessEngine(cfg.validated(), produce(cfg)).run()
