"""Helpers of the proposals' tests: feed a workload one message at a time, drain a tracker."""

from __future__ import annotations

from trackerlab.models.proposals.base import ProposalTracker
from trackerlab.workloads.stream import Workload


def add_one_by_one(tracker: ProposalTracker, workload: Workload) -> ProposalTracker:
    """``add_message`` per message, in publish order, each dispatched as published."""
    for chunk in workload.chunks():
        columns = (chunk.ledger, chunk.entry, chunk.deliver_at, chunk.publish_ms)
        for ledger, entry, at, now in zip(*(c.tolist() for c in columns), strict=True):
            tracker.add_message(ledger, entry, at, now)
    return tracker


def add_bulk(tracker: ProposalTracker, workload: Workload) -> ProposalTracker:
    for chunk in workload.chunks():
        tracker.add_chunk(chunk)
    return tracker


def drain(tracker: ProposalTracker, batch: int = 997) -> list[tuple[int, int]]:
    """Every position, in delivery order, by repeated ``getScheduledMessages`` far ahead."""
    out: list[tuple[int, int]] = []
    far = 1 << 60
    while True:
        got = tracker.get_scheduled_messages(batch, far)
        if not got:
            return out
        out += got


def built_both_ways(make, delay: str, batch: int, messages: int = 15_000, epl: int = 3000):
    """A tracker fed in bulk and one fed message by message, after checking that they hold the
    same count and JVM bytes (the caller compares structures); both then drain identically."""
    workload = Workload.from_options(
        messages, 2.0, delay=delay, entries_per_ledger=epl, batch_size=batch
    )
    bulk = add_bulk(make(), workload)
    single = add_one_by_one(make(), workload)
    assert bulk.count == single.count > 0
    assert bulk.jvm_bytes() == single.jvm_bytes()
    return bulk, single
