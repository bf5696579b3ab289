"""The auto-scaled receiver queue of each client (PIP-74), as catalog entries.

A receiver queue holds prefetched messages, not an index: its memory is the prefetched
messages' bytes, bounded by the client's ``memoryLimit``. Both entries run the same event
simulation (:func:`~trackerlab.models.receiver_queue.simulator.simulate`) with the client's
rules (``HarnessConfig.client``), under the modelled ``pulsar-perf`` harness.
"""

from __future__ import annotations

from trackerlab.models.design import RECEIVER_QUEUE, Design
from trackerlab.models.receiver_queue.simulator import simulate

GO = Design(
    tracker=RECEIVER_QUEUE,
    summary="Go partitionConsumer: queue doubles while the hint is set, from 1 to the maximum",
    java="pulsar-client-go pulsar/consumer_partition.go (Go, not Java)",
    source="apache/pulsar-client-go pulsar/consumer_partition.go",
    prs=("go#976", "go#991"),
    releases="pulsar-client-go since 2023-03 (#976 merged 2023-03-15)",
    memory="heap (client)",
    discrete_events=simulate,
    columns=(),
)
JAVA = Design(
    tracker=RECEIVER_QUEUE,
    summary="Java ConsumerImpl / MultiTopicsConsumerImpl auto-scaled queue (PIP-74)",
    java="ConsumerBase.currentReceiverQueueSize, ConsumerImpl, MultiTopicsConsumerImpl",
    source="pulsar-client/src/main/java/org/apache/pulsar/client/impl/ConsumerBase.java",
    prs=("#14494", "#16336"),
    releases="2.11 and later",
    memory="heap (client)",
    discrete_events=simulate,
    columns=(),
)
