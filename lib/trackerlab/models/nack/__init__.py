"""The client's negative-ack tracker (one per consumer): the maps before PIP-393 and
PIP-393's time buckets."""

from trackerlab.models.nack.map_trackers import (
    NegativeAcksTrackerHashMap,
    NegativeAcksTrackerPairMap,
)
from trackerlab.models.nack.pip393_tracker import BucketNackTracker

__all__ = ["BucketNackTracker", "NegativeAcksTrackerHashMap", "NegativeAcksTrackerPairMap"]
