"""The broker's ``PendingAcksMap`` (one per consumer) in every layout Pulsar had or proposed."""

from trackerlab.models.pending_acks.layouts import LAYOUTS, Dataset, build, new_pending_acks

__all__ = ["LAYOUTS", "Dataset", "build", "new_pending_acks"]
