"""Pulsar's own defaults and designs for the release a plan assumes.

Each value names its Pulsar setting and source file. Until the release table
(``data/pulsar_releases.yaml``, issue 13) lands, this module holds the newest release line's
values and the design each tracker runs by line; the planner asks only :func:`defaults_for`.
"""

from __future__ import annotations

from dataclasses import dataclass

from trackerlab.errors import UsageError


@dataclass(frozen=True)
class PulsarDefaults:
    """What a plan assumes when the user does not say, with the release line it comes from."""

    version: str
    #: ``delayedDeliveryTickTimeMillis`` (ServiceConfiguration)
    tick_ms: int = 1000
    #: ``negativeAckPrecisionBitCnt`` (ConsumerConfigurationData, client 4.0.2+, #23804)
    nack_precision_bits: int = 8
    #: ``negativeAckRedeliveryDelayMicros`` = 1 min (ConsumerConfigurationData)
    nack_delay_ms: float = 60_000.0
    #: ``managedLedgerMaxEntriesPerLedger`` (ServiceConfiguration)
    entries_per_ledger: int = 50_000
    #: ``managedLedgerMinLedgerRolloverTimeMinutes`` = 10, ``...Max...`` = 240
    ledger_min_rollover_ms: float = 10 * 60_000.0
    ledger_max_rollover_ms: float = 240 * 60_000.0
    #: ``managedLedgerMaxSizePerLedgerMbytes`` = 2048
    ledger_max_bytes: int = 2048 * 1024 * 1024
    #: ``receiverQueueSize`` (ConsumerConfigurationData)
    receiver_queue: int = 1000
    #: ``maxUnackedMessagesPerConsumer`` (ServiceConfiguration)
    max_unacked_per_consumer: int = 50_000
    #: ``memoryLimitBytes`` = 64 MiB (ClientConfigurationData, PIP-120, 2.10+)
    memory_limit_bytes: int = 64 * 1024 * 1024
    #: ``acknowledgementsGroupTimeMicros`` = 100 ms (ConsumerConfigurationData)
    ack_group_ms: float = 100.0
    #: the catalog design each tracker runs in this release line
    nack_design: str = "nack-time-buckets"
    delayed_design: str = "time-buckets"
    pending_acks_design: str = "pending-acks-packed-rb"


#: Release lines the planner knows, newest first (see the module docstring).
RELEASES = {
    "4.2": PulsarDefaults("4.2"),
}
NEWEST = next(iter(RELEASES))


def defaults_for(version: str | None) -> PulsarDefaults:
    """The defaults of ``version`` (a release line such as ``4.2``; None: the newest)."""
    if version is None:
        return RELEASES[NEWEST]
    line = ".".join(str(version).strip().split(".")[:2])
    if line not in RELEASES:
        raise UsageError(
            f"unknown Pulsar version {version!r}; choose one of: {', '.join(RELEASES)}"
        )
    return RELEASES[line]
