"""Sweeps over the receiver-queue simulator: memory, throughput, latency sensitivity.

Prefetch memory is what the client holds and the application has not taken yet:
queued messages × message size (bytes, ints). The worst case of a fixed queue is
``receiverQueueSize × maxMessageSize`` per partition consumer: PIP-74's motivation
(PR #14494) is 1,000 × 5 MB ≈ 5 GB; with the broker's default ``maxMessageSize`` of
5 MiB (5,242,880 B) it is 5,242,880,000 B = 4.88 GiB.

Memory sweeps use a slow application with an endless backlog (the case where a
prefetch buffer fills), the clients' fitted latencies, and compare the auto-scaled queue
with and without a client memory limit against the fixed queue. Every run is one
:func:`~trackerlab.models.receiver_queue.simulator.simulate` call, O(messages).
"""

from __future__ import annotations

from collections.abc import Iterable

from trackerlab.experiments.reproduce.receiver_queue import Harness, harness_for
from trackerlab.models.receiver_queue.simulator import ReceiverQueueConfig, simulate

#: Broker default ``maxMessageSize`` (5 MiB), the "5 MB" of PIP-74's worst case.
__all__ = [
    "MAX_MESSAGE_BYTES",
    "latency_sweep",
    "memory_sweep",
    "slow_consumer_config",
    "worst_case_prefetch_bytes",
]

MAX_MESSAGE_BYTES = 5 * 1024 * 1024


def worst_case_prefetch_bytes(
    queue_size: int = 1000, message_bytes: int = MAX_MESSAGE_BYTES, partitions: int = 1
) -> int:
    """Bytes a full fixed queue holds: ``queue_size * message_bytes`` per partition consumer."""
    return queue_size * message_bytes * partitions


def slow_consumer_config(
    client: str,
    rate: float,
    *,
    mode: str = "auto",
    message_bytes: int = 128,
    memory_limit_bytes: int | None = None,
    partitions: int = 1,
    refill_latency_ms: float | None = None,
    duration_s: float = 30.0,
    harness: Harness | None = None,
    seed: int = 0,
) -> ReceiverQueueConfig:
    """An application consuming at ``rate`` from an endless backlog.

    ``mode``: ``auto`` (auto-scaled, max 1000) or ``fixed`` (1000, the default queue).
    """
    timing = (harness or harness_for(client)).timing()
    if refill_latency_ms is not None:
        timing["refill_latency_ms"] = refill_latency_ms
    return ReceiverQueueConfig(
        client=client,
        rate=rate,
        partitions=partitions,
        auto_scale=mode == "auto",
        producer_rate=None,
        **timing,
        message_bytes=message_bytes,
        memory_limit_bytes=memory_limit_bytes,
        duration_s=duration_s,
        seed=seed,
    )


def memory_sweep(
    client: str,
    rates: Iterable[float],
    *,
    message_bytes: int,
    memory_limit_bytes: int | None,
    partitions: int = 1,
    duration_s: float = 30.0,
    refill_latency_ms: float | None = None,
):
    """Per rate and mode: final size, peak and mean prefetched bytes, throughput, shrinks.

    Modes: ``fixed`` (1000), ``auto`` (no memory limit), ``auto+limit``
    (``memory_limit_bytes``). Returns a pandas DataFrame; sizes in bytes.
    """
    import pandas as pd

    records = []
    for rate in rates:
        for mode, limit in (("fixed", None), ("auto", None), ("auto+limit", memory_limit_bytes)):
            cfg = slow_consumer_config(
                client,
                rate,
                mode="fixed" if mode == "fixed" else "auto",
                message_bytes=message_bytes,
                memory_limit_bytes=limit,
                partitions=partitions,
                duration_s=duration_s,
                refill_latency_ms=refill_latency_ms,
            )
            res = simulate(cfg)
            prefetch = res.samples["prefetch_bytes"]
            records.append(
                {
                    "rate": rate,
                    "mode": mode,
                    "final_total_size": res.final_total_size,
                    "peak_prefetch_bytes": res.peak_prefetch_bytes,
                    "mean_prefetch_bytes": sum(prefetch) // len(prefetch),
                    "throughput_msg_s": res.throughput,
                    "throughput_share": res.throughput / rate,
                    "shrinks": res.shrinks,
                }
            )
    return pd.DataFrame(records)


def latency_sweep(
    client: str,
    rates: Iterable[float],
    latencies_ms: Iterable[float],
    *,
    rate_is: str = "consumer",
    duration_s: float = 30.0,
):
    """Final queue size and throughput per (rate, refill latency), as a DataFrame.

    ``rate_is="consumer"``: a rate-limited application on an endless backlog;
    ``"producer"``: the fitted harness with the refill latency replaced.
    """
    import pandas as pd

    records = []
    for rate in rates:
        for lat in latencies_ms:
            if rate_is == "consumer":
                cfg = slow_consumer_config(
                    client, rate, refill_latency_ms=lat, duration_s=duration_s
                )
            else:
                h = harness_for(client)
                cfg = h.config(client, rate, 1).with_(refill_latency_ms=lat, duration_s=duration_s)
            res = simulate(cfg)
            records.append(
                {
                    "rate": rate,
                    "refill_latency_ms": lat,
                    "final_total_size": res.final_total_size,
                    "throughput_msg_s": res.throughput,
                }
            )
    return pd.DataFrame(records)
