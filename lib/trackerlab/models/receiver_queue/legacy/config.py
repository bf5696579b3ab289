"""The legacy simulator's configuration and result (kept for the benchmark baseline).

The chain, per partition: producer → broker (permits, Flow requests, reads of up to
``dispatcherMaxReadBatchSize`` entries taking ``dispatch_ms``) → network (one way =
``(refill_latency_ms - dispatch_ms) / 2``) → client receiver queue → application, which
consumes at ``rate`` msg/s through a Guava ``SmoothBursty`` limiter as ``pulsar-perf
consume -r`` does. ``refill_latency_ms`` is therefore the time from a Flow leaving the
client to the first refilled message arriving when the broker has a backlog.

Client rules: :mod:`trackerlab.models.receiver_queue.go` (Go ``partitionConsumer``, #976 and
#991) and :mod:`trackerlab.models.receiver_queue.java` (``ConsumerImpl`` /
``MultiTopicsConsumerImpl``, PIP-74 #14494); ``auto_scale=False`` gives the fixed-size
baseline. The event loop is :mod:`trackerlab.models.receiver_queue.legacy.engine`.

Harness choices the code does not dictate are fields of :class:`ReceiverQueueConfig`:
the producer (``producer_rate``, paced or Poisson, ``initial_backlog``), the refill latency,
how the application is rate-limited (``app_burst_s``: Guava's stored permits) and its
start-up (``limiter_idle_s``: how long the limiter has existed, idle, when the consumer
connects; it decides how many messages the application takes back to back at start).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

import numpy as np

from trackerlab.core.errors import UsageError
from trackerlab.core.params import check_choice, check_float, check_int, check_positive
from trackerlab.models.receiver_queue import go, java
from trackerlab.models.receiver_queue.memory_limit import DEFAULT_MEMORY_LIMIT_BYTES

CLIENTS = ("go", "java")
RECEIVE_MODES = ("receive", "batch")
ARRIVALS = ("paced", "poisson")
NS = 1_000_000_000


@dataclass(frozen=True)
class ReceiverQueueConfig:
    """One simulation: client, workload and harness. Validate with :meth:`validated`."""

    client: str = "go"
    rate: float = 1000.0  #: application consumption rate (msg/s), the ``-r`` of pulsar-perf consume
    partitions: int = 1
    auto_scale: bool = True  #: False: fixed queue of ``receiver_queue_size``
    receiver_queue_size: int = 1000  #: the maximum (auto) or the fixed size
    max_total_receiver_queue_size_across_partitions: int = (
        java.DEFAULT_MAX_TOTAL_RECEIVER_QUEUE_SIZE_ACROSS_PARTITIONS
    )
    refill_latency_ms: float = 30.0  #: Flow sent → first refill message received
    dispatch_ms: float = 1.0  #: one broker read + dispatch
    max_read_entries: int = 100  #: broker ``dispatcherMaxReadBatchSize``
    producer_rate: float | None = 1000.0  #: msg/s over all partitions; None: endless backlog
    arrivals: str = "paced"  #: producer timing: paced (i / rate) or poisson (seeded)
    initial_backlog: int = 0  #: messages already in the topic when the consumer connects
    message_bytes: int = 128
    memory_limit_bytes: int | None = DEFAULT_MEMORY_LIMIT_BYTES  #: None: no client limit
    app_burst_s: float = 1.0  #: Guava maxBurstSeconds of the application's limiter
    limiter_idle_s: float = 0.0  #: limiter age when the consumer connects (start-up)
    app_wakeup_us: float = 50.0  #: an idle Go dispatcher / Java application thread reacts this late
    receive_mode: str = "receive"  #: Java: receive() per message, or batchReceive()
    batch_max_messages: int = -1  #: Java BatchReceivePolicy.maxNumMessages (-1: none)
    batch_timeout_ms: float = java.DEFAULT_BATCH_TIMEOUT_MS
    message_channel_capacity: int = go.MESSAGE_CHANNEL_CAPACITY  #: Go ``messageCh``
    duration_s: float = 60.0
    sample_ms: float = 100.0
    seed: int = 0
    record_consumption: bool = False  #: keep (time, partition, sequence) of every message

    def validated(self) -> ReceiverQueueConfig:
        """Check every field (UsageError naming the parameter and range); return self."""
        check_choice("client", self.client, CLIENTS)
        check_positive("rate", self.rate)
        check_int("partitions", self.partitions, 1, 1000)
        check_int("receiver_queue_size", self.receiver_queue_size, 1, 10_000_000)
        check_int(
            "max_total_receiver_queue_size_across_partitions",
            self.max_total_receiver_queue_size_across_partitions,
            1,
            None,
        )
        if self.client == "java" and self.partitions > 1:
            check_int(
                "max_total_receiver_queue_size_across_partitions / partitions",
                self.max_total_receiver_queue_size_across_partitions // self.partitions,
                1,
                None,
            )
        check_float("dispatch_ms", self.dispatch_ms, 0, None, lo_open=True)
        check_float(
            "refill_latency_ms", self.refill_latency_ms, self.dispatch_ms, None, lo_open=True
        )
        if self.one_way_ns < 1:  # every network hop takes time: events never pile up at "now"
            raise UsageError(
                f"refill_latency_ms must exceed dispatch_ms ({self.dispatch_ms:g}) by at least "
                f"2 ns, got {self.refill_latency_ms:g}"
            )
        check_int("max_read_entries", self.max_read_entries, 1, None)
        if self.producer_rate is not None:
            check_positive("producer_rate", self.producer_rate)
        check_choice("arrivals", self.arrivals, ARRIVALS)
        check_int("initial_backlog", self.initial_backlog, 0, None)
        check_int("message_bytes", self.message_bytes, 1, None)
        if self.memory_limit_bytes is not None:
            check_int("memory_limit_bytes", self.memory_limit_bytes, 1, None)
        check_float("app_burst_s", self.app_burst_s, 0, None)
        check_float("limiter_idle_s", self.limiter_idle_s, 0, None)
        check_float("app_wakeup_us", self.app_wakeup_us, 0, None)
        check_choice("receive_mode", self.receive_mode, RECEIVE_MODES)
        check_int("batch_max_messages", self.batch_max_messages, -1, None)
        check_positive("batch_timeout_ms", self.batch_timeout_ms)
        check_int("message_channel_capacity", self.message_channel_capacity, 1, None)
        check_positive("duration_s", self.duration_s)
        check_positive("sample_ms", self.sample_ms)
        check_int("seed", self.seed, 0, None)
        return self

    def with_(self, **changes) -> ReceiverQueueConfig:
        """A copy with ``changes`` applied."""
        return replace(self, **changes)

    # ---------------------------------------------------------------- derived quantities

    @property
    def partition_max_size(self) -> int:
        """Each partition consumer's maximum (Java divides the cross-partition total)."""
        if self.client == "java":
            return java.partition_max_size(
                self.receiver_queue_size,
                self.max_total_receiver_queue_size_across_partitions,
                self.partitions,
            )
        return self.receiver_queue_size

    @property
    def one_way_ns(self) -> int:
        return round((self.refill_latency_ms - self.dispatch_ms) * 1e6) // 2

    @property
    def dispatch_ns(self) -> int:
        return max(1, round(self.dispatch_ms * 1e6))


def producer_schedule(cfg: ReceiverQueueConfig) -> list[list[int]] | None:
    """Publish times (ns) of the produced messages, per partition; None for endless backlog.

    Messages are routed round-robin (message ``i`` to partition ``i % partitions``), as the
    Java ``RoundRobinPartitionMessageRouter`` does without batching. ``paced``: message
    ``i`` at ``i / producer_rate``; ``poisson``: exponential gaps from ``numpy`` seeded with
    ``seed``. O(messages), vectorised.
    """
    if cfg.producer_rate is None:
        return None
    n = int(cfg.duration_s * cfg.producer_rate) + 1
    if cfg.arrivals == "paced":
        times = (np.arange(n, dtype=np.float64) * (NS / cfg.producer_rate)).astype(np.int64)
    else:
        gaps = np.random.default_rng(cfg.seed).exponential(NS / cfg.producer_rate, n)
        times = np.cumsum(gaps).astype(np.int64)
    return [times[q :: cfg.partitions].tolist() for q in range(cfg.partitions)]


@dataclass
class ReceiverQueueResult:
    """What a simulation produced. Times in ns; sizes and counts in messages."""

    config: ReceiverQueueConfig
    final_sizes: tuple[int, ...]  #: per partition consumer
    parent_size: int | None  #: Java multi-topics parent queue, else None
    consumed: int
    produced: int | None  #: messages published by the end (None: endless backlog)
    flows: int
    expansions: int
    shrinks: int
    peak_queued: int  #: most messages held by the client at once (queue + channel)
    size_log: list[tuple[int, int, int]]  #: (t_ns, partition, new size); parent is -1
    samples: dict[str, list] = field(repr=False)
    consumption: list[tuple[int, int, int]] | None = field(default=None, repr=False)

    @property
    def final_total_size(self) -> int:
        """Sum of the partition consumers' sizes ("Final total receiver queue size")."""
        return sum(self.final_sizes)

    @property
    def throughput(self) -> float:
        """Messages consumed per second of simulated time."""
        return self.consumed / self.config.duration_s

    @property
    def peak_prefetch_bytes(self) -> int:
        """Peak prefetched bytes: ``peak_queued * message_bytes``."""
        return self.peak_queued * self.config.message_bytes

    def frame(self):
        """The sampled time series as a pandas DataFrame (one row per sample)."""
        import pandas as pd

        return pd.DataFrame(self.samples)

    def summary(self) -> dict[str, object]:
        """Headline numbers of the run, for the CLI and the notebooks."""
        cfg = self.config
        out: dict[str, object] = {
            "client": cfg.client + ("" if cfg.auto_scale else " (fixed)"),
            "rate_msg_s": cfg.rate,
            "partitions": cfg.partitions,
            "final_sizes": ",".join(map(str, self.final_sizes)),
            "final_total_size": self.final_total_size,
        }
        if self.parent_size is not None:
            out["parent_size"] = self.parent_size
        out.update(
            consumed=self.consumed,
            throughput_msg_s=round(self.throughput, 3),
            peak_queued_messages=self.peak_queued,
            peak_prefetch_bytes=self.peak_prefetch_bytes,
            flows=self.flows,
            expansions=self.expansions,
            shrinks=self.shrinks,
        )
        return out

    def as_dict(self) -> dict[str, object]:
        return {"config": asdict(self.config), **self.summary()}
