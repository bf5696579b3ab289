"""The broker's delayed-delivery index (one per Shared subscription): the triple heap, the
time-bucketed tracker, PIP-195's buckets, #15500's delay-level topics, and their aggregated
time-stepped models."""

from trackerlab.models.delayed.bucketed_tracker import BucketDelayedTracker, precision_bits_for_tick
from trackerlab.models.delayed.heap import InMemoryDelayedDeliveryTracker
from trackerlab.models.delayed.time_bucket_runs import BucketRun, measure

__all__ = [
    "BucketDelayedTracker",
    "BucketRun",
    "InMemoryDelayedDeliveryTracker",
    "measure",
    "precision_bits_for_tick",
]
