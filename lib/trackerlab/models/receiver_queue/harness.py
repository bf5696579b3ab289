"""The modelled ``pulsar-perf`` harness of PR #976's tables: configuration and result.

One run: the Go perf producer (:mod:`~trackerlab.models.receiver_queue.perf_producer`)
publishes batch entries at ``rate``; per partition an Exclusive-subscription dispatcher
(:mod:`~trackerlab.models.receiver_queue.dispatcher`; ``subscription_type="shared"``: a
Shared one, as ``trackerlab plan`` sizes) sends whole entries against the
consumer's permits; the consumer client (Go ``partitionConsumer``, or Java ``ConsumerImpl``
with ``MultiTopicsConsumerImpl`` for partitioned topics) counts them, scales its queue and
returns permits as its application takes messages. The event loop is
:mod:`~trackerlab.models.receiver_queue.harness_engine`.

Every constant of the code is a default below with its source. What the code leaves
open is a field marked **open**: the local standalone's latencies and the processes'
start-up. :data:`OPEN_PARAMETERS` lists them with the value used when nothing is fitted
and why.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

import numpy as np

import trackerlab.models.receiver_queue.batch_container as bc
import trackerlab.models.receiver_queue.dispatcher as dp
import trackerlab.models.receiver_queue.go as go
import trackerlab.models.receiver_queue.java as java
from trackerlab.core.params import check_choice, check_float, check_int, check_positive
from trackerlab.models.receiver_queue.multi_topics import DRAINS
from trackerlab.models.receiver_queue.overshoot import EXCLUSIVE, SUBSCRIPTION_TYPES
from trackerlab.models.receiver_queue.perf_producer import (
    DEFAULT_MAX_PENDING_MESSAGES,
    ProducerTiming,
)
from trackerlab.models.receiver_queue.token_bucket import LIMITERS

CLIENTS = ("go", "java")
NS = 1_000_000_000

#: The numbers the code does not fix: name -> (value used unless fitted, why that value).
OPEN_PARAMETERS: dict[str, tuple[float, str]] = {
    "one_way_us": (
        100.0,
        "loopback one-way latency plus a Netty/Go read and write: tens to a few hundred us on "
        "one host",
    ),
    "persist_us": (
        1000.0,
        "batch flushed -> entry readable: a bookie journal write on a local standalone "
        "(journalSyncData fsync), about a millisecond",
    ),
    "read_us": (
        20.0,
        "one dispatcher read from the entry cache, the write and the executor hop before "
        "the next read",
    ),
    "app_message_us": (
        5.0,
        "the Go perf consumer's loop per message (channel receive, Ack command, counters)",
    ),
    "tick_latency_us": (
        0.0,
        "how late the producer's event loop runs each 10 ms flush tick (Go scheduler latency "
        "under load; mean of seeded exponential delays); 0: an exact ticker. The one value "
        "the reproduction fits (3000 us, on N46-N51)",
    ),
    "producer_setup_ms": (
        20.0,
        "router created (time.Now(), default_router.go:47) -> first send: the partition "
        "producers' lookups and CreateProducer round trips",
    ),
    "consumer_lead_s": (
        1.0,
        "the consumer subscribed this long before the producer's first send (the PR lists "
        "two commands; the table needs the consumer up first to see the start-up burst)",
    ),
}


@dataclass(frozen=True)
class HarnessConfig:
    """One run of the modelled harness. Validate with :meth:`validated`."""

    client: str = "go"
    #: ``produce -r``: publish rate in msg/s over all partitions (perf-producer.go:64-65, int)
    rate: float = 1000.0
    partitions: int = 1
    duration_s: float = 60.0
    #: ``produce -s``: payload bytes (perf-producer.go:72-73; the table used 128)
    message_bytes: int = 128
    #: perf producer limiter: ``token-bucket`` (#989, b8563cd8) or ``window`` (before #989)
    limiter: str = "token-bucket"
    #: ``DisableBatching`` (never set by perf-producer.go:92-98): False -> one message per entry
    batching: bool = True
    #: ``-b 0`` -> ``defaultBatchingMaxPublishDelay`` 10 ms (producer_impl.go:38,90-92)
    batching_delay_ms: float = bc.DEFAULT_MAX_DELAY_MS
    batching_max_messages: int = bc.DEFAULT_MAX_MESSAGES  #: producer_impl.go:44
    batching_max_bytes: int = bc.DEFAULT_MAX_BYTES  #: producer_impl.go:41
    max_pending_messages: int = DEFAULT_MAX_PENDING_MESSAGES  #: perf-producer.go:74-75
    auto_scale: bool = True  #: ``--enable-auto-scaled-queue-size`` (perf-consumer.go:61-62)
    #: the maximum; the Go perf consumer never passes ``-r`` (perf-consumer.go:81-86), so the
    #: default ``defaultReceiverQueueSize`` = 1000 (reader_impl.go:32, consumer_impl.go:79-80)
    receiver_queue_size: int = go.DEFAULT_RECEIVER_QUEUE_SIZE
    max_total_receiver_queue_size_across_partitions: int = (
        java.DEFAULT_MAX_TOTAL_RECEIVER_QUEUE_SIZE_ACROSS_PARTITIONS
    )
    #: Java partitioned topics: ``batch-receive`` (#16336, 2.9.4 / 2.10.2+) or ``receive-async``
    java_drain: str = "batch-receive"
    java_batch_max_messages: int = -1  #: ``BatchReceivePolicy.DEFAULT_POLICY``
    java_batch_max_bytes: int = java.DEFAULT_BATCH_MAX_BYTES
    java_batch_timeout_ms: float = java.DEFAULT_BATCH_TIMEOUT_MS
    #: client ``memoryLimit``: None for the #976 Go client (no limit before #991); Go #991 and
    #: Java (PIP-120) default to 64 MiB
    memory_limit_bytes: int | None = None
    #: the broker's dispatcher: ``exclusive`` (the Go perf consumer subscribes with the zero
    #: value, Exclusive: consumer.go:38 @ b8563cd8; Failover dispatches the same way) or
    #: ``shared`` (the consumer alone on a Shared subscription, as ``trackerlab plan`` sizes it)
    subscription_type: str = EXCLUSIVE
    read_batch_size: int = dp.DISPATCHER_MAX_READ_BATCH_SIZE
    max_read_bytes: int = dp.DISPATCHER_MAX_READ_SIZE_BYTES
    new_entries_check_delay_ms: float = dp.NEW_ENTRIES_CHECK_DELAY_MS
    # ---- open: see OPEN_PARAMETERS
    one_way_us: float = OPEN_PARAMETERS["one_way_us"][0]
    persist_us: float = OPEN_PARAMETERS["persist_us"][0]
    read_us: float = OPEN_PARAMETERS["read_us"][0]
    app_message_us: float = OPEN_PARAMETERS["app_message_us"][0]
    tick_latency_us: float = OPEN_PARAMETERS["tick_latency_us"][0]
    producer_setup_ms: float = OPEN_PARAMETERS["producer_setup_ms"][0]
    consumer_lead_s: float = OPEN_PARAMETERS["consumer_lead_s"][0]
    #: a rate-limited application (msg/s; Java perf ``consume -r`` uses Guava), None: none
    app_rate: float | None = None
    app_burst_s: float = 0.0  #: Guava ``maxBurstSeconds`` of that limiter (Java perf: 1.0)
    #: seeds the ticker phases and the router's ``rand.Uint32()`` start (default_router.go:46)
    seed: int = 0
    sample_ms: float = 100.0

    def validated(self) -> HarnessConfig:
        """Check every field (UsageError naming the parameter and range); return self. O(fields)."""
        check_choice("client", self.client, CLIENTS)
        check_float("rate", self.rate, 1, 1e7)
        check_int("partitions", self.partitions, 1, 1000)
        check_float("duration_s", self.duration_s, 0, 86_400, lo_open=True)
        check_int("message_bytes", self.message_bytes, 1, bc.MAX_MESSAGE_BYTES)
        check_choice("limiter", self.limiter, LIMITERS)
        check_positive("batching_delay_ms", self.batching_delay_ms)
        check_int("batching_max_messages", self.batching_max_messages, 1, None)
        check_int("batching_max_bytes", self.batching_max_bytes, 1, None)
        check_int("max_pending_messages", self.max_pending_messages, 1, None)
        check_int("receiver_queue_size", self.receiver_queue_size, 1, 10_000_000)
        check_int(
            "max_total_receiver_queue_size_across_partitions",
            self.max_total_receiver_queue_size_across_partitions,
            self.partitions,
            None,
        )
        check_choice("java_drain", self.java_drain, DRAINS)
        check_int("java_batch_max_messages", self.java_batch_max_messages, -1, None)
        check_int("java_batch_max_bytes", self.java_batch_max_bytes, -1, None)
        check_positive("java_batch_timeout_ms", self.java_batch_timeout_ms)
        if self.memory_limit_bytes is not None:
            check_int("memory_limit_bytes", self.memory_limit_bytes, 1, None)
        check_choice("subscription_type", self.subscription_type, SUBSCRIPTION_TYPES)
        check_int("read_batch_size", self.read_batch_size, 1, None)
        check_int("max_read_bytes", self.max_read_bytes, 1, None)
        check_float("new_entries_check_delay_ms", self.new_entries_check_delay_ms, 0, None)
        check_float("one_way_us", self.one_way_us, 0, 1e7, lo_open=True)
        check_float("persist_us", self.persist_us, 0, 1e7)
        check_float("read_us", self.read_us, 0, 1e7, lo_open=True)
        check_float("app_message_us", self.app_message_us, 0, 1e7, lo_open=True)
        check_float("tick_latency_us", self.tick_latency_us, 0, 1e7)
        check_float("producer_setup_ms", self.producer_setup_ms, 0, 1e6)
        check_float("consumer_lead_s", self.consumer_lead_s, -1e4, 1e4)
        if self.app_rate is not None:
            check_positive("app_rate", self.app_rate)
        check_float("app_burst_s", self.app_burst_s, 0, 3600)
        check_int("seed", self.seed, 0, None)
        check_positive("sample_ms", self.sample_ms)
        return self

    def with_(self, **changes) -> HarnessConfig:
        """A copy with ``changes`` applied. O(fields)."""
        return replace(self, **changes)

    # ---------------------------------------------------------------- derived

    @property
    def partition_max_size(self) -> int:
        """Each partition consumer's maximum (Java divides the cross-partition total). O(1)."""
        if self.client == "java":
            return java.partition_max_size(
                self.receiver_queue_size,
                self.max_total_receiver_queue_size_across_partitions,
                self.partitions,
            )
        return self.receiver_queue_size

    def producer_timing(self) -> ProducerTiming:
        """The seeded producer-side choices: ticker phases and the router's start. O(partitions)."""
        rng = np.random.default_rng(self.seed)
        delay_ns = self.batching_delay_ms * 1e6
        phases = tuple(float(x) for x in rng.uniform(0, delay_ns, self.partitions))
        start = int(rng.integers(0, self.partitions))
        ready = (self.one_way_us + self.persist_us) * 1e3
        return ProducerTiming(
            tick_phases_ns=phases,
            router_start=start,
            router_age_ns=self.producer_setup_ms * 1e6,
            ready_ns=ready,
            receipt_ns=ready + self.one_way_us * 1e3,
            tick_latency_ns=self.tick_latency_us * 1e3,
            seed=self.seed,
        )


@dataclass
class HarnessResult:
    """What a run produced. Sizes and counts in messages, bytes in bytes, times in ns."""

    config: HarnessConfig
    final_sizes: tuple[int, ...]  #: per partition consumer
    parent_size: int | None  #: Java multi-topics parent queue, else None
    produced: int  #: messages the producer sent during the run
    entries: int  #: batch entries published
    consumed: int  #: messages the application took
    dispatched: int  #: messages the broker sent
    flows: int
    expansions: int
    shrinks: int
    #: most messages one partition consumer held at once (received, not yet taken)
    peak_prefetched: tuple[int, ...]
    peak_client_messages: int  #: most messages the whole client held (parent queue included)
    peak_memory_bytes: int  #: most bytes the client memory controller had reserved
    last_consumed_s: float  #: when the application last took a message (-1: never)
    #: messages readable at the broker by 90% of the run (what a live consumer must have had)
    published_by_last_tenth: int
    producer_hung_s: float | None  #: the perf producer's send loop hung then (None: never)
    size_log: list[tuple[int, int, int]]
    samples: dict[str, list] = field(repr=False)

    @property
    def final_total_size(self) -> int:
        """Sum of the partition consumers' sizes (the table's "final total"). O(partitions)."""
        return sum(self.final_sizes)

    @property
    def peak_prefetched_bytes(self) -> tuple[int, ...]:
        """Per partition consumer: ``peak_prefetched * message_bytes``. O(partitions)."""
        return tuple(n * self.config.message_bytes for n in self.peak_prefetched)

    @property
    def peak_client_bytes(self) -> int:
        """``peak_client_messages * message_bytes``. O(1)."""
        return self.peak_client_messages * self.config.message_bytes

    @property
    def throughput(self) -> float:
        """Messages consumed per simulated second. O(1)."""
        return self.consumed / self.config.duration_s

    @property
    def lag_s(self) -> float:
        """Produced but not consumed at the end, in seconds of publishing. O(1)."""
        return (self.produced - self.consumed) / self.config.rate

    @property
    def stalled(self) -> bool:
        """The application stopped: it took nothing in the last 10% of the run although
        messages written before that were still waiting for it. O(1)."""
        return (
            self.last_consumed_s < 0.9 * self.config.duration_s
            and self.published_by_last_tenth > self.consumed
        )

    def frame(self):
        """The sampled time series as a pandas DataFrame (one row per sample). O(samples)."""
        import pandas as pd

        return pd.DataFrame(self.samples)

    def summary(self) -> dict[str, object]:
        """Headline numbers of the run, for the CLI and the notebooks. O(partitions)."""
        cfg = self.config
        out: dict[str, object] = {
            "client": cfg.client + ("" if cfg.auto_scale else " (fixed)"),
            "rate_msg_s": cfg.rate,
            "partitions": cfg.partitions,
            "subscription_type": cfg.subscription_type,
            "final_sizes": ",".join(map(str, self.final_sizes)),
            "final_total_size": self.final_total_size,
        }
        if self.parent_size is not None:
            out["parent_size"] = self.parent_size
        out.update(
            produced=self.produced,
            entries=self.entries,
            messages_per_entry=round(self.produced / self.entries, 2) if self.entries else 0,
            consumed=self.consumed,
            lag_s=round(self.lag_s, 3),
            stalled=self.stalled,
            producer_hung_s=self.producer_hung_s,
            peak_prefetched_messages=",".join(map(str, self.peak_prefetched)),
            peak_prefetched_bytes=",".join(map(str, self.peak_prefetched_bytes)),
            peak_client_bytes=self.peak_client_bytes,
            memory_limit_bytes=cfg.memory_limit_bytes,
            flows=self.flows,
            expansions=self.expansions,
            shrinks=self.shrinks,
        )
        return out

    def as_dict(self) -> dict[str, object]:
        """The configuration and :meth:`summary` as one dict. O(fields + partitions)."""
        return {"config": asdict(self.config), **self.summary()}
