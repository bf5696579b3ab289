"""The time-bucket index shared by PIP-393's nack tracker and the time-bucketed delayed
tracker: the index, its JVM shapes, the streaming content reducer and count-only aggregates."""

from trackerlab.models.time_buckets.shapes import SHAPES
from trackerlab.models.time_buckets.time_bucket_index import TimeBucketIndex, trim_lower_bits

__all__ = ["SHAPES", "TimeBucketIndex", "trim_lower_bits"]
