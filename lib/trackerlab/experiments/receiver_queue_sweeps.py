"""Sweeps over the modelled harness: prefetch memory per consumer, and open-parameter
sensitivity.

**Prefetch memory** is what a client holds that its application has not taken: received
messages x payload bytes. With batching the broker sends whole entries against the
permits (which go negative), so a consumer can hold more than its queue size: after a
Flow of ``size / 2`` permits the dispatcher reads up to ``min(permits, 100)`` *entries*,
each up to 1000 messages (128 KiB). The question the user asks is whether the client
stays under its ``memoryLimit`` — 64 MB by default since PIP-120 (Java, #13306, 2.10) and
in the Go client since #991 (``defaultMemoryLimitBytes = 64 * 1024 * 1024``,
client_impl.go:36-37 @ 20291f5c). A fixed queue's worst case is ``receiverQueueSize x
maxMessageSize`` per partition consumer: PIP-74's 1,000 x 5 MB ≈ 5 GB.

Every run is one :func:`~trackerlab.models.receiver_queue.simulate` call (cost
independent of the message count).
"""

from __future__ import annotations

from collections.abc import Iterable

from trackerlab.models.receiver_queue import HarnessConfig, HarnessResult, simulate

__all__ = [
    "DEFAULT_MEMORY_LIMIT_BYTES",
    "MAX_MESSAGE_BYTES",
    "memory_sweep",
    "open_parameter_sweep",
    "prefetch_record",
    "queue_modes",
    "worst_case_prefetch_bytes",
]

#: Broker default ``maxMessageSize`` (5 MiB), the "5 MB" of PIP-74's worst case.
MAX_MESSAGE_BYTES = 5 * 1024 * 1024
#: ``memoryLimit`` default: 64 MiB (Go ``defaultMemoryLimitBytes``, client_impl.go:36 @
#: 20291f5c; Java ``ClientBuilder.memoryLimit`` default 64 MB since PIP-120, #13306).
DEFAULT_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024


def worst_case_prefetch_bytes(
    queue_size: int = 1000, message_bytes: int = MAX_MESSAGE_BYTES, partitions: int = 1
) -> int:
    """Bytes a full fixed queue holds: ``queue_size * message_bytes`` per partition consumer."""
    return queue_size * message_bytes * partitions


def memory_sweep(
    client: str,
    rates: Iterable[float],
    *,
    message_bytes: int,
    partitions: int = 1,
    app_rate: float | None = None,
    memory_limit_bytes: int | None = DEFAULT_MEMORY_LIMIT_BYTES,
    duration_s: float = 30.0,
    base: HarnessConfig | None = None,
):
    """Per producer rate and queue mode: peak prefetch per consumer and for the client.

    Modes: ``fixed`` (1000, no auto-scaling), ``auto`` (auto-scaled, no memory limit: the
    #976 Go client), ``auto+limit`` (auto-scaled under ``memory_limit_bytes``: Go #991,
    Java). ``app_rate`` slows the application (msg/s; None: the perf consumer's loop).
    Returns a pandas DataFrame; sizes in messages, memory in bytes.
    """
    import pandas as pd

    base = base or HarnessConfig()
    budget = memory_limit_bytes or DEFAULT_MEMORY_LIMIT_BYTES
    records = []
    for rate in rates:
        for mode, auto, limit in queue_modes(memory_limit_bytes):
            cfg = base.with_(
                client=client,
                rate=rate,
                partitions=partitions,
                message_bytes=message_bytes,
                auto_scale=auto,
                memory_limit_bytes=limit,
                app_rate=app_rate,
                app_burst_s=1.0 if (app_rate is not None and client == "java") else 0.0,
                duration_s=duration_s,
            )
            records.append(prefetch_record(cfg, mode, simulate(cfg), budget))
    return pd.DataFrame(records)


def queue_modes(memory_limit_bytes: int | None) -> tuple[tuple[str, bool, int | None], ...]:
    """The (mode, auto-scaled, memory limit) rows :func:`memory_sweep` runs per rate:
    ``fixed`` and ``auto`` without a limit, ``auto+limit`` under ``memory_limit_bytes``."""
    return (
        ("fixed", False, None),
        ("auto", True, None),
        ("auto+limit", True, memory_limit_bytes),
    )


def prefetch_record(
    cfg: HarnessConfig, mode: str, res: HarnessResult, budget: int
) -> dict[str, object]:
    """One :func:`memory_sweep` row: the settings of run ``cfg``, its peak prefetch per
    consumer and for the client (``res``), and whether the client stayed within ``budget``
    bytes."""
    return {
        "client": cfg.client,
        "rate": cfg.rate,
        "mode": mode,
        "partitions": cfg.partitions,
        "message_bytes": cfg.message_bytes,
        "final_sizes": ",".join(map(str, res.final_sizes)),
        "peak_prefetched_per_consumer": max(res.peak_prefetched),
        "peak_prefetched_bytes_per_consumer": max(res.peak_prefetched_bytes),
        "peak_client_bytes": res.peak_client_bytes,
        "memory_limit_bytes": budget,
        "under_limit": res.peak_client_bytes <= budget,
        "throughput_msg_s": res.throughput,
        "lag_s": res.lag_s,
        "shrinks": res.shrinks,
        "messages_per_entry": res.produced / res.entries if res.entries else 0.0,
    }


def open_parameter_sweep(
    rows: Iterable[tuple[str, float, int]],
    parameter: str,
    values: Iterable[float],
    *,
    base: HarnessConfig | None = None,
    seeds: Iterable[int] = (0,),
):
    """Final total queue size of each ``(id, rate, partitions)`` row as one open parameter
    of the harness takes each of ``values`` (everything else from ``base``)."""
    import pandas as pd

    base = base or HarnessConfig()
    records = []
    for pid, rate, partitions in rows:
        for value in values:
            for seed in seeds:
                cfg = base.with_(rate=rate, partitions=partitions, seed=seed, **{parameter: value})
                res = simulate(cfg)
                records.append(
                    {
                        "id": pid,
                        "rate": rate,
                        "partitions": partitions,
                        "parameter": parameter,
                        "value": value,
                        "seed": seed,
                        "final_total_size": res.final_total_size,
                        "final_sizes": ",".join(map(str, res.final_sizes)),
                    }
                )
    return pd.DataFrame(records)
